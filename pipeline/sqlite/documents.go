package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

var errNotFound = pipeline.ErrNotFound

// Document returns the document with the id, or an error wrapping
// pipeline.ErrNotFound.
func (d *DB) Document(ctx context.Context, id string) (pipeline.Document, error) {
	var doc pipeline.Document
	var meta, at string
	err := d.db.QueryRowContext(ctx,
		`SELECT id, title, text, metadata, source, ingested_at FROM documents WHERE id = ?`, id).
		Scan(&doc.ID, &doc.Title, &doc.Text, &meta, &doc.Source, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, errNotFound)
	}
	if err != nil {
		return pipeline.Document{}, fmt.Errorf("load document %q: %w", id, err)
	}
	if err := json.Unmarshal([]byte(meta), &doc.Metadata); err != nil {
		return pipeline.Document{}, fmt.Errorf("document %q: metadata: %w", id, err)
	}
	doc.IngestedAt, _ = time.Parse(time.RFC3339Nano, at)
	return doc, nil
}

// DocumentDates returns the "date" metadata of the documents with the
// ids, by id; documents without a date and unknown ids are left out
// (pipeline.DateLister).
func (d *DB) DocumentDates(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	const chunk = 500 // well under SQLite's bound on query parameters
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		rows, err := d.db.QueryContext(ctx,
			`SELECT id, json_extract(metadata, '$.date') FROM documents WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("document dates: %w", err)
		}
		for rows.Next() {
			var id string
			var date sql.NullString
			if err := rows.Scan(&id, &date); err != nil {
				rows.Close()
				return nil, fmt.Errorf("document dates: %w", err)
			}
			if date.Valid && date.String != "" {
				out[id] = date.String
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("document dates: %w", err)
		}
		ids = ids[n:]
	}
	return out, nil
}

// Passages returns the document's passages in order, or an error wrapping
// pipeline.ErrNotFound when the document does not exist. The texts are cut
// from the document's text, read once (the store keeps each text once).
func (d *DB) Passages(ctx context.Context, docID string) ([]pipeline.Passage, error) {
	var text string
	err := d.db.QueryRowContext(ctx, `SELECT text FROM documents WHERE id = ?`, docID).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("document %q: %w", docID, errNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("passages of %q: %w", docID, err)
	}
	rows, err := d.db.QueryContext(ctx,
		`SELECT ordinal, start, "end" FROM passages WHERE doc_id = ? ORDER BY ordinal`, docID)
	if err != nil {
		return nil, fmt.Errorf("passages of %q: %w", docID, err)
	}
	defer rows.Close()
	var ps []pipeline.Passage
	for rows.Next() {
		p := pipeline.Passage{DocID: docID}
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End); err != nil {
			return nil, fmt.Errorf("passages of %q: %w", docID, err)
		}
		if p.Text, err = cut(text, p); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("passages of %q: %w", docID, err)
	}
	return ps, nil
}

// cut returns passage p's text: its document's bytes p.Start..p.End, or an
// error naming the passage when the stored offsets do not fit the text.
func cut(text string, p pipeline.Passage) (string, error) {
	if p.Start < 0 || p.Start > p.End || p.End > len(text) {
		return "", fmt.Errorf("passage %s: offsets %d..%d outside its document's %d bytes", p.ID(), p.Start, p.End, len(text))
	}
	return text[p.Start:p.End], nil
}

// Passage returns one passage by document id and ordinal.
func (d *DB) Passage(ctx context.Context, docID string, ordinal int) (pipeline.Passage, error) {
	p := pipeline.Passage{DocID: docID, Ordinal: ordinal}
	var text string
	err := d.db.QueryRowContext(ctx,
		`SELECT p.start, p."end", d.text FROM passages p JOIN documents d ON d.id = p.doc_id
		WHERE p.doc_id = ? AND p.ordinal = ?`, docID, ordinal).
		Scan(&p.Start, &p.End, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("passage %s: %w", pipeline.PassageID(docID, ordinal), errNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("load passage %s: %w", pipeline.PassageID(docID, ordinal), err)
	}
	p.Text, err = cut(text, p)
	return p, err
}

// HitPassages loads the passages named by ids ("doc#ordinal") and the
// titles of their documents: one query per 400 passages for their offsets
// and titles, then one per 500 of their documents for the texts, each
// document's text read once however many of its passages are asked for (a
// search page, or a retrieval of 100 documents, is two round trips).
// Unknown passages are absent from the map; a malformed id is an error.
func (d *DB) HitPassages(ctx context.Context, ids []string) (map[string]pipeline.Passage, map[string]string, error) {
	passages := make(map[string]pipeline.Passage, len(ids))
	titles := make(map[string]string)
	const chunk = 400
	for len(ids) > 0 {
		part := ids[:min(chunk, len(ids))]
		ids = ids[len(part):]
		args := make([]any, 0, 2*len(part))
		var q strings.Builder
		// A join with the list (not "IN (VALUES ...)", which SQLite
		// answers by scanning every passage) looks each one up by key.
		q.WriteString(`SELECT p.doc_id, p.ordinal, p.start, p."end", d.title FROM (VALUES `)
		for i, id := range part {
			docID, ord, err := pipeline.ParsePassageID(id)
			if err != nil {
				return nil, nil, err
			}
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?,?)")
			args = append(args, docID, ord)
		}
		q.WriteString(`) v JOIN passages p ON p.doc_id = v.column1 AND p.ordinal = v.column2
			JOIN documents d ON d.id = p.doc_id`)
		rows, err := d.db.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return nil, nil, fmt.Errorf("load passages: %w", err)
		}
		for rows.Next() {
			var p pipeline.Passage
			var title string
			if err := rows.Scan(&p.DocID, &p.Ordinal, &p.Start, &p.End, &title); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("load passages: %w", err)
			}
			passages[p.ID()] = p
			titles[p.DocID] = title
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("load passages: %w", err)
		}
	}
	docIDs := make([]string, 0, len(titles))
	for id := range titles {
		docIDs = append(docIDs, id)
	}
	texts, err := d.texts(ctx, docIDs)
	if err != nil {
		return nil, nil, fmt.Errorf("load passages: %w", err)
	}
	for id, p := range passages {
		if p.Text, err = cut(texts[p.DocID], p); err != nil {
			return nil, nil, err
		}
		passages[id] = p
	}
	return passages, titles, nil
}

// texts reads the texts of the documents with the ids, by id, in one
// query per 500 of them; unknown ids are absent.
func (d *DB) texts(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	const chunk = 500 // well under SQLite's bound on query parameters
	for len(ids) > 0 {
		part := ids[:min(chunk, len(ids))]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := d.db.QueryContext(ctx,
			`SELECT id, text FROM documents WHERE id IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = text
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Titles returns the titles of the given documents; unknown ids are absent
// from the map.
func (d *DB) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		part := ids[:n]
		ids = ids[n:]
		args := make([]any, len(part))
		ph := make([]byte, 0, 2*len(part))
		for i, id := range part {
			args[i] = id
			if i > 0 {
				ph = append(ph, ',')
			}
			ph = append(ph, '?')
		}
		rows, err := d.db.QueryContext(ctx, `SELECT id, title FROM documents WHERE id IN (`+string(ph)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load titles: %w", err)
		}
		for rows.Next() {
			var id, title string
			if err := rows.Scan(&id, &title); err != nil {
				rows.Close()
				return nil, fmt.Errorf("load titles: %w", err)
			}
			out[id] = title
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load titles: %w", err)
		}
	}
	return out, nil
}

// statsCache keeps the collection's statistics with the number of the last
// ingest batch they cover (every write of documents is a journalled
// batch, as for corpusCache): summing the texts' lengths reads every
// document, which the home page must not do on each visit.
type statsCache struct {
	mu    sync.Mutex
	valid bool
	batch int64
	stats pipeline.CollectionStats
}

// Stats summarises the collection. It reads the documents only when a
// batch was ingested since the last call (by any process: the batch
// number is read from the database).
func (d *DB) Stats(ctx context.Context) (pipeline.CollectionStats, error) {
	c := &d.stats
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, err := d.LatestBatch(ctx)
	if err != nil {
		return pipeline.CollectionStats{}, fmt.Errorf("collection stats: %w", err)
	}
	if c.valid && c.batch == batch {
		return c.stats, nil
	}
	s, err := d.readStats(ctx)
	if err != nil {
		return s, err
	}
	// The batch number read first may be older than what the counts hold,
	// never newer: at worst the next call reads them again.
	c.valid, c.batch, c.stats = true, batch, s
	return s, nil
}

func (d *DB) readStats(ctx context.Context) (pipeline.CollectionStats, error) {
	var s pipeline.CollectionStats
	var last sql.NullString
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(length(CAST(text AS BLOB))),0), MAX(ingested_at) FROM documents`).
		Scan(&s.Documents, &s.Characters, &last)
	if err != nil {
		return s, fmt.Errorf("collection stats: %w", err)
	}
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM passages`).Scan(&s.Passages); err != nil {
		return s, fmt.Errorf("collection stats: %w", err)
	}
	if last.Valid {
		s.LastIngest, _ = time.Parse(time.RFC3339Nano, last.String)
	}
	return s, nil
}

// ReplaceDocuments stores documents with their passages in one transaction.
// A document whose id is already stored replaces the old one (and its
// passages); within the batch the last occurrence of an id wins. A
// document stored already exactly as given (title, text, metadata, source
// and passages) is left as it is and listed in ReplaceResult.Unchanged.
// Either the whole batch is stored or nothing is.
//
// A passage is stored as its offsets into its document: its text must be
// the document's bytes Start..End (as pipeline.Ingester makes it), or the
// batch is refused with an error wrapping pipeline.ErrInvalid that names
// the passage.
//
// A batch that writes anything is journalled in ingest_batches in the same
// transaction (its number, the ids written and the versions replaced), so
// an index that lost the batch can be brought back in step exactly
// (BatchesAfter).
func (d *DB) ReplaceDocuments(ctx context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	var res pipeline.ReplaceResult
	// Last occurrence of an id wins within the batch.
	last := make(map[string]int, len(batch))
	for i, b := range batch {
		last[b.Doc.ID] = i
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("store documents: %w", err)
	}
	defer tx.Rollback()

	prepare := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	oldDoc := prepare(`SELECT title, text, metadata, source FROM documents WHERE id = ?`)
	oldPassages := prepare(`SELECT ordinal, start, "end" FROM passages WHERE doc_id = ? ORDER BY ordinal`)
	del := prepare(`DELETE FROM documents WHERE id = ?`)
	insDoc := prepare(`INSERT INTO documents (id, title, text, metadata, source, ingested_at, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	insPas := prepare(`INSERT INTO passages (doc_id, ordinal, start, "end") VALUES (?, ?, ?, ?)`)
	if err != nil {
		return res, fmt.Errorf("store documents: %w", err)
	}
	for _, st := range []*sql.Stmt{oldDoc, oldPassages, del, insDoc, insPas} {
		defer st.Close()
	}

	now := d.now().UTC().Format(time.RFC3339Nano)
	var written []string
	for i, b := range batch {
		if last[b.Doc.ID] != i {
			continue
		}
		doc := b.Doc
		meta := doc.Metadata
		if meta == nil {
			meta = map[string]string{}
		}
		mj, err := json.Marshal(meta)
		if err != nil {
			return res, fmt.Errorf("store document %q: metadata: %w", doc.ID, err)
		}
		// The store keeps each text once: a passage is its offsets
		// into the document, so its text must be those bytes.
		for _, p := range b.Passages {
			if t, err := cut(doc.Text, p); err != nil || t != p.Text {
				return res, pipeline.Invalidf("store passage %s: its text is not its document's bytes %d..%d", p.ID(), p.Start, p.End)
			}
		}
		prev, same, found, err := loadPrevious(ctx, oldDoc, oldPassages, b, string(mj))
		if err != nil {
			return res, fmt.Errorf("store document %q: %w", doc.ID, err)
		}
		switch {
		case same:
			res.Unchanged = append(res.Unchanged, doc.ID)
			continue
		case found:
			res.Replaced++
			res.Previous = append(res.Previous, prev)
			if _, err := del.ExecContext(ctx, doc.ID); err != nil {
				return res, fmt.Errorf("store document %q: %w", doc.ID, err)
			}
		default:
			res.Inserted++
		}
		written = append(written, doc.ID)
		doc.Metadata = meta
		if _, err := insDoc.ExecContext(ctx, doc.ID, doc.Title, doc.Text, string(mj), doc.Source, now, pipeline.DocumentContentHash(doc)); err != nil {
			if isConstraint(err) {
				return res, fmt.Errorf("store document %q: %w: %v", doc.ID, pipeline.ErrConflict, err)
			}
			return res, fmt.Errorf("store document %q: %w", doc.ID, err)
		}
		for _, p := range b.Passages {
			if _, err := insPas.ExecContext(ctx, doc.ID, p.Ordinal, p.Start, p.End); err != nil {
				return res, fmt.Errorf("store passage %s: %w", p.ID(), err)
			}
		}
	}
	if len(written) > 0 {
		if res.Batch, err = journalBatch(ctx, tx, written, res.Previous, now); err != nil {
			return res, err
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("store documents: commit: %w", err)
	}
	return res, nil
}

// loadPrevious reads the stored version of b's document (title and
// passages) inside the replacing transaction, and whether it is exactly b
// (metadata given as stored JSON).
func loadPrevious(ctx context.Context, doc, passages *sql.Stmt, b pipeline.IngestDocument, meta string) (prev pipeline.IngestDocument, same, found bool, err error) {
	id := b.Doc.ID
	prev = pipeline.IngestDocument{Doc: pipeline.Document{ID: id}}
	var text, oldMeta, source string
	err = doc.QueryRowContext(ctx, id).Scan(&prev.Doc.Title, &text, &oldMeta, &source)
	if errors.Is(err, sql.ErrNoRows) {
		return prev, false, false, nil
	}
	if err != nil {
		return prev, false, false, err
	}
	rows, err := passages.QueryContext(ctx, id)
	if err != nil {
		return prev, false, true, err
	}
	defer rows.Close()
	for rows.Next() {
		p := pipeline.Passage{DocID: id}
		if err := rows.Scan(&p.Ordinal, &p.Start, &p.End); err != nil {
			return prev, false, true, err
		}
		if p.Text, err = cut(text, p); err != nil {
			return prev, false, true, err
		}
		prev.Passages = append(prev.Passages, p)
	}
	if err := rows.Err(); err != nil {
		return prev, false, true, err
	}
	same = prev.Doc.Title == b.Doc.Title && text == b.Doc.Text && oldMeta == meta &&
		source == b.Doc.Source && samePassages(prev.Passages, b.Passages)
	return prev, same, true, nil
}

func samePassages(a, b []pipeline.Passage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Ordinal != b[i].Ordinal || a[i].Start != b[i].Start || a[i].End != b[i].End || a[i].Text != b[i].Text {
			return false
		}
	}
	return true
}

// EachPassage calls fn for every stored passage, in document id and ordinal
// order, with its document's title. It streams: memory stays flat however
// large the collection. Each document's text is read once, with its first
// passage, and the passages are cut from it.
func (d *DB) EachPassage(ctx context.Context, fn func(title string, p pipeline.Passage) error) error {
	rows, err := d.db.QueryContext(ctx, `SELECT p.doc_id, d.title, p.ordinal, p.start, p."end",
		CASE WHEN p.ordinal = 0 THEN d.text END
		FROM passages p JOIN documents d ON d.id = p.doc_id ORDER BY p.doc_id, p.ordinal`)
	if err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	var doc, text string
	for rows.Next() {
		var title string
		var first sql.NullString
		var p pipeline.Passage
		if err := rows.Scan(&p.DocID, &title, &p.Ordinal, &p.Start, &p.End, &first); err != nil {
			return fmt.Errorf("read passages: %w", err)
		}
		if p.DocID != doc {
			doc, text = p.DocID, first.String
			// Ordinals start at 0 (pipeline.Ingester); a document
			// stored otherwise has its text read on its own.
			if !first.Valid {
				if err := d.db.QueryRowContext(ctx, `SELECT text FROM documents WHERE id = ?`, doc).Scan(&text); err != nil {
					return fmt.Errorf("read passages of %q: %w", doc, err)
				}
			}
		}
		if p.Text, err = cut(text, p); err != nil {
			return err
		}
		if err := fn(title, p); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	return nil
}

// SourceFiles lists the distinct files the documents were ingested from
// (their source up to its first ":", as "sotu.jsonl.gz" of
// "sotu.jsonl.gz:12"), in byte order, at most limit of them.
func (d *DB) SourceFiles(ctx context.Context, limit int) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT CASE WHEN instr(source, ':') > 0 THEN substr(source, 1, instr(source, ':') - 1)
		ELSE source END AS f FROM documents WHERE source != '' ORDER BY f LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list source files: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, fmt.Errorf("list source files: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
