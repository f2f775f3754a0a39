package sqlite

import (
	"context"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// JobCounts counts the jobs in each state, for the operations metrics
// (crucible_jobs). States without jobs are absent from the map; a job
// stopped at a cap, stored as failed (migration 0019), counts as stopped.
func (d *DB) JobCounts(ctx context.Context) (map[pipeline.JobState]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT CASE WHEN state = 'failed' AND cap_reached <> '' THEN 'stopped' ELSE state END AS st, COUNT(*)
		FROM jobs GROUP BY st`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	out := map[pipeline.JobState]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		out[pipeline.JobState(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	return out, nil
}
