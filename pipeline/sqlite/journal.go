package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/crucible-portal/crucible/pipeline"
)

// journalDoc is a replaced version of a document as the journal keeps it.
type journalDoc struct {
	ID       string           `json:"id"`
	Title    string           `json:"title"`
	Passages []journalPassage `json:"passages"`
}

type journalPassage struct {
	Ordinal int    `json:"o"`
	Start   int    `json:"s"`
	End     int    `json:"e"`
	Text    string `json:"t"`
}

// journalBatch records a stored batch in ingest_batches inside its
// transaction and returns the batch's number.
func journalBatch(ctx context.Context, tx *sql.Tx, ids []string, previous []pipeline.IngestDocument, now string) (int64, error) {
	prev := make([]journalDoc, len(previous))
	for i, p := range previous {
		prev[i] = journalDoc{ID: p.Doc.ID, Title: p.Doc.Title, Passages: make([]journalPassage, len(p.Passages))}
		for j, q := range p.Passages {
			prev[i].Passages[j] = journalPassage{Ordinal: q.Ordinal, Start: q.Start, End: q.End, Text: q.Text}
		}
	}
	idj, err := json.Marshal(ids)
	if err != nil {
		return 0, fmt.Errorf("journal batch: %w", err)
	}
	pj, err := json.Marshal(prev)
	if err != nil {
		return 0, fmt.Errorf("journal batch: %w", err)
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO ingest_batches (doc_ids, previous, stored_at) VALUES (?, ?, ?)`, string(idj), string(pj), now)
	if err != nil {
		return 0, fmt.Errorf("journal batch: %w", err)
	}
	return r.LastInsertId()
}

// LatestBatch is the number of the last batch the store committed (0 when
// none was ever journalled).
func (d *DB) LatestBatch(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	err := d.db.QueryRowContext(ctx, `SELECT seq FROM sqlite_sequence WHERE name = 'ingest_batches'`).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("latest ingest batch: %w", err)
	}
	return n.Int64, nil
}

// BatchesAfter gathers the batches committed after batch seq into one
// index batch: the current version of every document they wrote, and for
// each the version an index holding batch seq has (the version replaced by
// the first of those batches to write it; none for a document that batch
// inserted). Its Seq is the latest batch. It fails with
// pipeline.ErrJournalGap when the journal no longer holds all of them.
func (d *DB) BatchesAfter(ctx context.Context, seq int64) (pipeline.IndexBatch, error) {
	out := pipeline.IndexBatch{Seq: seq}
	latest, err := d.LatestBatch(ctx)
	if err != nil || latest <= seq {
		return out, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT seq, doc_ids, previous FROM ingest_batches WHERE seq > ? ORDER BY seq`, seq)
	if err != nil {
		return out, fmt.Errorf("read ingest journal: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var ids []string
	next := seq + 1
	for rows.Next() {
		var n int64
		var idj, pj string
		if err := rows.Scan(&n, &idj, &pj); err != nil {
			return out, fmt.Errorf("read ingest journal: %w", err)
		}
		if n != next {
			break
		}
		next++
		var batchIDs []string
		var prev []journalDoc
		if err := json.Unmarshal([]byte(idj), &batchIDs); err != nil {
			return out, fmt.Errorf("ingest journal batch %d: %w", n, err)
		}
		if err := json.Unmarshal([]byte(pj), &prev); err != nil {
			return out, fmt.Errorf("ingest journal batch %d: %w", n, err)
		}
		byID := make(map[string]journalDoc, len(prev))
		for _, p := range prev {
			byID[p.ID] = p
		}
		for _, id := range batchIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			ids = append(ids, id)
			if p, ok := byID[id]; ok {
				doc := pipeline.IngestDocument{Doc: pipeline.Document{ID: id, Title: p.Title}}
				for _, q := range p.Passages {
					doc.Passages = append(doc.Passages, pipeline.Passage{DocID: id, Ordinal: q.Ordinal, Start: q.Start, End: q.End, Text: q.Text})
				}
				out.Previous = append(out.Previous, doc)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("read ingest journal: %w", err)
	}
	if next <= latest {
		return out, fmt.Errorf("%w: batches %d to %d are needed, the journal holds them only up to %d", pipeline.ErrJournalGap, seq+1, latest, next-1)
	}
	sort.Strings(ids)
	titles, err := d.Titles(ctx, ids)
	if err != nil {
		return out, err
	}
	for _, id := range ids {
		title, ok := titles[id]
		if !ok {
			continue
		}
		ps, err := d.Passages(ctx, id)
		if err != nil {
			return out, err
		}
		out.Docs = append(out.Docs, pipeline.IngestDocument{Doc: pipeline.Document{ID: id, Title: title}, Passages: ps})
	}
	out.Seq = latest
	return out, nil
}

// TrimBatches deletes the journal's batches up to and including through:
// call it only once an index holding them has been saved to disk.
func (d *DB) TrimBatches(ctx context.Context, through int64) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM ingest_batches WHERE seq <= ?`, through); err != nil {
		return fmt.Errorf("trim ingest journal: %w", err)
	}
	return nil
}
