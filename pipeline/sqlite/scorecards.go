package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

var _ pipeline.ScorecardStore = (*DB)(nil)

// SaveScorecard implements pipeline.ScorecardStore (migration 0019).
func (d *DB) SaveScorecard(ctx context.Context, reportID int64, sc pipeline.Scorecard) error {
	b, err := json.Marshal(sc)
	if err != nil {
		return fmt.Errorf("save the scorecard of report %d: %w", reportID, err)
	}
	var exists int
	err = d.db.QueryRowContext(ctx, `SELECT 1 FROM reports WHERE id = ?`, reportID).Scan(&exists)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("report %d: %w", reportID, errNotFound)
	}
	if err != nil {
		return fmt.Errorf("save the scorecard of report %d: %w", reportID, err)
	}
	_, err = d.db.ExecContext(ctx, `INSERT INTO report_scorecards (report_id, version, computed_at, scorecard) VALUES (?, ?, ?, ?)
		ON CONFLICT (report_id) DO UPDATE SET version = excluded.version, computed_at = excluded.computed_at, scorecard = excluded.scorecard`,
		reportID, sc.Version, formatTime(sc.ComputedAt), string(b))
	if err != nil {
		return fmt.Errorf("save the scorecard of report %d: %w", reportID, err)
	}
	return nil
}

// Scorecard implements pipeline.ScorecardStore.
func (d *DB) Scorecard(ctx context.Context, reportID int64) (pipeline.Scorecard, error) {
	var raw string
	err := d.db.QueryRowContext(ctx, `SELECT scorecard FROM report_scorecards WHERE report_id = ?`, reportID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Scorecard{}, fmt.Errorf("report %d has no scorecard: %w", reportID, errNotFound)
	}
	if err != nil {
		return pipeline.Scorecard{}, fmt.Errorf("load the scorecard of report %d: %w", reportID, err)
	}
	var sc pipeline.Scorecard
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return pipeline.Scorecard{}, fmt.Errorf("load the scorecard of report %d: %w", reportID, err)
	}
	return sc, nil
}
