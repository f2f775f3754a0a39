package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
)

var _ pipeline.AuthorLister = (*DB)(nil)

// authorsCache keeps each author's span of years with the number of the
// last ingest batch it covers (as corpusCache): reading every document's
// metadata reads past its text, which a report must not do each time.
type authorsCache struct {
	mu    sync.Mutex
	valid bool
	batch int64
	years map[string]pipeline.Period
}

// AuthorYears returns, for each author of the stored documents
// (pipeline.DocumentAuthor), the years their dated documents span
// (pipeline.AuthorLister). It reads the documents only when a batch was
// ingested since the last call; the map returned is the caller's.
func (d *DB) AuthorYears(ctx context.Context) (map[string]pipeline.Period, error) {
	c := &d.authors
	c.mu.Lock()
	defer c.mu.Unlock()
	batch, err := d.LatestBatch(ctx)
	if err != nil {
		return nil, fmt.Errorf("author years: %w", err)
	}
	if !c.valid || c.batch != batch {
		years, err := d.readAuthorYears(ctx)
		if err != nil {
			return nil, err
		}
		// The batch number read first may be older than what the
		// documents hold, never newer: at worst the next call reads them
		// again.
		c.valid, c.batch, c.years = true, batch, years
	}
	return maps.Clone(c.years), nil
}

func (d *DB) readAuthorYears(ctx context.Context) (map[string]pipeline.Period, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, metadata FROM documents`)
	if err != nil {
		return nil, fmt.Errorf("author years: %w", err)
	}
	defer rows.Close()
	var metas []map[string]string
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fmt.Errorf("author years: %w", err)
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, fmt.Errorf("author years: document %q: metadata: %w", id, err)
		}
		metas = append(metas, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("author years: %w", err)
	}
	return pipeline.AuthorYearsOf(metas), nil
}
