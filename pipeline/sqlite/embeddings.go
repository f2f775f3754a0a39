package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// GetEmbeddings returns the vectors stored in namespace for the keys, by
// key; keys without one are absent. It implements llm.EmbeddingStore.
func (d *DB) GetEmbeddings(ctx context.Context, namespace string, keys []string) (map[string][]float32, error) {
	if strings.TrimSpace(namespace) == "" {
		return nil, fmt.Errorf("load embeddings: %w", pipeline.Invalidf("empty namespace"))
	}
	out := make(map[string][]float32, len(keys))
	err := eachIDChunk(keys, func(_ []string, ph string, args []any) error {
		rows, err := d.db.QueryContext(ctx, `SELECT text_key, vector FROM embeddings WHERE namespace = ? AND text_key IN (`+ph+`)`,
			append([]any{namespace}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var blob []byte
			if err := rows.Scan(&k, &blob); err != nil {
				return err
			}
			if len(blob)%4 != 0 {
				return fmt.Errorf("embedding %s: %d bytes, not a whole number of float32s", k, len(blob))
			}
			v := make([]float32, len(blob)/4)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
			}
			out[k] = v
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("load embeddings: %w", err)
	}
	return out, nil
}

// PutEmbeddings stores vectors in namespace in one transaction, replacing
// earlier ones of the same key. It implements llm.EmbeddingStore. An empty
// key or vector is an error wrapping pipeline.ErrInvalid, and nothing is
// stored.
func (d *DB) PutEmbeddings(ctx context.Context, namespace string, vectors map[string][]float32) error {
	if strings.TrimSpace(namespace) == "" {
		return fmt.Errorf("store embeddings: %w", pipeline.Invalidf("empty namespace"))
	}
	for k, v := range vectors {
		if k == "" || len(v) == 0 {
			return fmt.Errorf("store embeddings: %w", pipeline.Invalidf("an empty key or vector (key %q, %d values)", k, len(v)))
		}
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO embeddings (namespace, text_key, vector) VALUES (?, ?, ?)
		ON CONFLICT(namespace, text_key) DO UPDATE SET vector = excluded.vector`)
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	defer stmt.Close()
	for k, v := range vectors {
		blob := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(blob[4*i:], math.Float32bits(x))
		}
		if _, err := stmt.ExecContext(ctx, namespace, k, blob); err != nil {
			return fmt.Errorf("store embeddings: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store embeddings: commit: %w", err)
	}
	return nil
}
