package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// featureChunk bounds the ids of one IN (...) query, well under SQLite's
// limit on bound parameters.
const featureChunk = 500

// GetFeatures returns the feature records stored in namespace for the
// ids, by id; ids without a record are absent. It implements
// rerank.FeatureStore: whether a record is still current is the caller's
// check (its Hash against rerank.FeatureHash of the document).
func (d *DB) GetFeatures(ctx context.Context, namespace string, docIDs []string) (map[string]rerank.FeatureRecord, error) {
	if strings.TrimSpace(namespace) == "" {
		return nil, fmt.Errorf("load features: %w", pipeline.Invalidf("empty namespace"))
	}
	out := make(map[string]rerank.FeatureRecord, len(docIDs))
	err := eachIDChunk(docIDs, func(part []string, ph string, args []any) error {
		rows, err := d.db.QueryContext(ctx, `SELECT doc_id, content_hash, features FROM doc_features
			WHERE namespace = ? AND doc_id IN (`+ph+`)`, append([]any{namespace}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r rerank.FeatureRecord
			var body string
			if err := rows.Scan(&r.DocID, &r.Hash, &body); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(body), &r.Features); err != nil {
				return fmt.Errorf("features of document %q: %w", r.DocID, err)
			}
			out[r.DocID] = r
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("load features (%s): %w", namespace, err)
	}
	return out, nil
}

// PutFeatures stores records in namespace in one transaction, replacing
// any stored for the same document there. It implements
// rerank.FeatureStore. A record with an empty document id or hash is an
// error wrapping pipeline.ErrInvalid, and nothing is stored.
func (d *DB) PutFeatures(ctx context.Context, namespace string, recs []rerank.FeatureRecord) error {
	if strings.TrimSpace(namespace) == "" {
		return fmt.Errorf("store features: %w", pipeline.Invalidf("empty namespace"))
	}
	bodies := make([]string, len(recs))
	for i, r := range recs {
		switch {
		case r.DocID == "":
			return fmt.Errorf("store features: %w", pipeline.Invalidf("record %d has an empty document id", i))
		case r.Hash == "":
			return fmt.Errorf("store features of document %q: %w", r.DocID, pipeline.Invalidf("empty content hash"))
		}
		body, err := toJSON(r.Features)
		if err != nil {
			return fmt.Errorf("store features of document %q: %w", r.DocID, err)
		}
		bodies[i] = body
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store features: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO doc_features (doc_id, namespace, content_hash, features, extracted_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(doc_id, namespace) DO UPDATE SET content_hash = excluded.content_hash,
			features = excluded.features, extracted_at = excluded.extracted_at`)
	if err != nil {
		return fmt.Errorf("store features: %w", err)
	}
	defer stmt.Close()
	now := formatTime(d.now())
	for i, r := range recs {
		if _, err := stmt.ExecContext(ctx, r.DocID, namespace, r.Hash, bodies[i], now); err != nil {
			return fmt.Errorf("store features of document %q: %w", r.DocID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store features: commit: %w", err)
	}
	return nil
}

// MissingFeatures returns, in the order given, the ids of docIDs whose
// features in namespace must be extracted: those with no record there,
// and those whose record's hash is not rerank.FeatureHash of the
// document as stored now (its title or text changed since). An id that
// names no stored document is an error wrapping pipeline.ErrNotFound.
// Repeated ids are reported once.
func (d *DB) MissingFeatures(ctx context.Context, namespace string, docIDs []string) ([]string, error) {
	if strings.TrimSpace(namespace) == "" {
		return nil, fmt.Errorf("find missing features: %w", pipeline.Invalidf("empty namespace"))
	}
	current := make(map[string]bool, len(docIDs))
	known := make(map[string]bool, len(docIDs))
	err := eachIDChunk(docIDs, func(part []string, ph string, args []any) error {
		texts, err := documentTexts(ctx, d.db, part)
		if err != nil {
			return err
		}
		rows, err := d.db.QueryContext(ctx, `SELECT d.id, d.title, f.content_hash FROM documents d
			LEFT JOIN doc_features f ON f.doc_id = d.id AND f.namespace = ?
			WHERE d.id IN (`+ph+`)`, append([]any{namespace}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var doc pipeline.Document
			var hash sql.NullString
			if err := rows.Scan(&doc.ID, &doc.Title, &hash); err != nil {
				return err
			}
			doc.Text = texts[doc.ID]
			known[doc.ID] = true
			current[doc.ID] = hash.Valid && hash.String == rerank.FeatureHash(doc)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("find missing features (%s): %w", namespace, err)
	}
	var out []string
	seen := make(map[string]bool, len(docIDs))
	for _, id := range docIDs {
		if !known[id] {
			return nil, fmt.Errorf("find missing features: document %q: %w", id, errNotFound)
		}
		if !current[id] && !seen[id] {
			out = append(out, id)
		}
		seen[id] = true
	}
	return out, nil
}

// DocumentIDs returns the ids of the stored documents in the order they
// were stored (a re-ingested document counts from its last ingest), at
// most limit of them; limit ≤ 0 means all.
func (d *DB) DocumentIDs(ctx context.Context, limit int) ([]string, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM documents ORDER BY rowid LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return ids, nil
}

// eachIDChunk calls fn for successive chunks of at most featureChunk ids,
// with the chunk's "?, ?, ..." placeholders and its ids as arguments.
func eachIDChunk(ids []string, fn func(part []string, placeholders string, args []any) error) error {
	for len(ids) > 0 {
		part := ids[:min(featureChunk, len(ids))]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if err := fn(part, strings.TrimSuffix(strings.Repeat("?,", len(part)), ","), args); err != nil {
			return err
		}
	}
	return nil
}
