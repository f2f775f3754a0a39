package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
)

var _ pipeline.ManifestStore = (*DB)(nil)

// corpusCache keeps the collection's fingerprint with the number of the
// last ingest batch it covers: every write of documents is a journalled
// batch (ReplaceDocuments), so while the number stays the same, so does
// the collection.
type corpusCache struct {
	mu    sync.Mutex
	valid bool
	batch int64
	facts pipeline.CorpusFacts
}

// hashBackfillBatch is how many documents stored before content hashes
// were kept get theirs per transaction.
const hashBackfillBatch = 256

// CorpusFacts returns the collection's fingerprint (pipeline.CorpusHasher
// over every document's id and content hash, in id order) with its
// document and passage counts. It reads the stored hashes through an
// index, never the texts, and only when a batch was ingested since the
// last call; documents stored before hashes were kept (migration 0018)
// get theirs first, once.
func (d *DB) CorpusFacts(ctx context.Context) (pipeline.CorpusFacts, error) {
	c := &d.corpus
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, err := d.LatestBatch(ctx)
	if err != nil {
		return pipeline.CorpusFacts{}, fmt.Errorf("corpus fingerprint: %w", err)
	}
	if c.valid && c.batch == batch {
		return c.facts, nil
	}
	if err := d.backfillContentHashes(ctx); err != nil {
		return pipeline.CorpusFacts{}, err
	}
	var h pipeline.CorpusHasher
	var passages int
	// Each statement reads one snapshot; an ingest landing between the two
	// changes the batch number, so the next call reads both again.
	rows, err := d.db.QueryContext(ctx, `SELECT id, content_hash FROM documents INDEXED BY documents_content_hash ORDER BY id`)
	if err != nil {
		return pipeline.CorpusFacts{}, fmt.Errorf("corpus fingerprint: %w", err)
	}
	for rows.Next() {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			rows.Close()
			return pipeline.CorpusFacts{}, fmt.Errorf("corpus fingerprint: %w", err)
		}
		h.Add(id, hash)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return pipeline.CorpusFacts{}, fmt.Errorf("corpus fingerprint: %w", err)
	}
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM passages`).Scan(&passages); err != nil {
		return pipeline.CorpusFacts{}, fmt.Errorf("corpus fingerprint: %w", err)
	}
	// The batch number read before the documents may be older than what
	// they hold, never newer: at worst the next call reads them again.
	c.valid, c.batch, c.facts = true, batch, h.Facts(passages)
	return c.facts, nil
}

// backfillContentHashes hashes the documents stored without a content
// hash, a batch at a time.
func (d *DB) backfillContentHashes(ctx context.Context) error {
	for {
		n, err := d.backfillBatch(ctx)
		if err != nil {
			return fmt.Errorf("hash stored documents: %w", err)
		}
		if n < hashBackfillBatch {
			return nil
		}
	}
}

func (d *DB) backfillBatch(ctx context.Context) (int, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, title, metadata FROM documents WHERE content_hash = '' LIMIT ?`, hashBackfillBatch)
	if err != nil {
		return 0, err
	}
	var docs []pipeline.Document
	var ids []string
	for rows.Next() {
		var doc pipeline.Document
		var meta string
		if err := rows.Scan(&doc.ID, &doc.Title, &meta); err != nil {
			rows.Close()
			return 0, err
		}
		if err := json.Unmarshal([]byte(meta), &doc.Metadata); err != nil {
			rows.Close()
			return 0, fmt.Errorf("document %q: metadata: %w", doc.ID, err)
		}
		docs = append(docs, doc)
		ids = append(ids, doc.ID)
	}
	if err := closeRows(rows); err != nil {
		return 0, err
	}
	texts, err := documentTexts(ctx, tx, ids)
	if err != nil {
		return 0, err
	}
	for _, doc := range docs {
		doc.Text = texts[doc.ID]
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET content_hash = ? WHERE id = ?`, pipeline.DocumentContentHash(doc), doc.ID); err != nil {
			return 0, err
		}
	}
	return len(docs), tx.Commit()
}

// SaveManifest implements pipeline.ManifestStore.
func (d *DB) SaveManifest(ctx context.Context, jobID int64, m pipeline.Manifest) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("save the manifest of job %d: %w", jobID, err)
	}
	res, err := d.db.ExecContext(ctx, `UPDATE jobs SET manifest = ? WHERE id = ?`, string(b), jobID)
	if err != nil {
		return fmt.Errorf("save the manifest of job %d: %w", jobID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("save the manifest of job %d: %w", jobID, errNotFound)
	}
	return nil
}

// JobManifest implements pipeline.ManifestStore.
func (d *DB) JobManifest(ctx context.Context, jobID int64) (pipeline.Manifest, error) {
	var raw string
	err := d.db.QueryRowContext(ctx, `SELECT manifest FROM jobs WHERE id = ?`, jobID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Manifest{}, fmt.Errorf("job %d: %w", jobID, errNotFound)
	}
	if err != nil {
		return pipeline.Manifest{}, fmt.Errorf("load the manifest of job %d: %w", jobID, err)
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return pipeline.Manifest{}, fmt.Errorf("load the manifest of job %d: %w", jobID, err)
	}
	if m == nil {
		return pipeline.Manifest{}, fmt.Errorf("job %d has no manifest: %w", jobID, errNotFound)
	}
	return *m, nil
}

// encodeManifest is a stored manifest column: ” for none.
func encodeManifest(m *pipeline.Manifest) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	return string(b), nil
}

// decodeManifest reads a stored manifest column: nil for ”.
func decodeManifest(raw string) (*pipeline.Manifest, error) {
	if raw == "" {
		return nil, nil
	}
	var m pipeline.Manifest
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return &m, nil
}
