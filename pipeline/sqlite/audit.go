package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// ErrJobUnfinished is returned by DeleteJob for a queued or running job,
// which must be cancelled first.
var ErrJobUnfinished = errors.New("the job has not finished")

// DeleteJob deletes a finished, failed or cancelled job with everything
// it made: its retrieval, nuggets, candidates and rerank record, and its
// report with the report's versions, reviews and status history. The
// audit entry (its At set now, its ID assigned) is written in the same
// transaction, so a deletion is never unrecorded. A job that does not
// exist wraps pipeline.ErrNotFound; a queued or running one wraps
// ErrJobUnfinished and pipeline.ErrConflict, and nothing is deleted.
func (d *DB) DeleteJob(ctx context.Context, id int64, entry pipeline.AuditEntry) (pipeline.AuditEntry, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return entry, fmt.Errorf("delete job %d: %w", id, err)
	}
	defer tx.Rollback()
	var state string
	var reportID sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT state, report_id FROM jobs WHERE id = ?`, id).Scan(&state, &reportID)
	if errors.Is(err, sql.ErrNoRows) {
		return entry, fmt.Errorf("job %d: %w", id, errNotFound)
	}
	if err != nil {
		return entry, fmt.Errorf("delete job %d: %w", id, err)
	}
	switch pipeline.JobState(state) {
	case pipeline.JobQueued, pipeline.JobRunning:
		return entry, fmt.Errorf("delete job %d: %w (%s): cancel it first: %w", id, ErrJobUnfinished, state, pipeline.ErrConflict)
	}
	// The report is found by its job too: a report stored just before its
	// job was marked done has the job's id but the job not yet the report's.
	if _, err := tx.ExecContext(ctx, `DELETE FROM reports WHERE job_id = ? OR id = ?`, id, reportID.Int64); err != nil {
		return entry, fmt.Errorf("delete the report of job %d: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id = ?`, id); err != nil {
		return entry, fmt.Errorf("delete job %d: %w", id, err)
	}
	entry.At = d.now()
	res, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, action, subject, detail) VALUES (?, ?, ?, ?, ?)`,
		formatTime(entry.At), entry.Actor, entry.Action, entry.Subject, entry.Detail)
	if err != nil {
		return entry, fmt.Errorf("record the deletion of job %d: %w", id, err)
	}
	if entry.ID, err = res.LastInsertId(); err != nil {
		return entry, fmt.Errorf("record the deletion of job %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return entry, fmt.Errorf("delete job %d: %w", id, err)
	}
	return entry, nil
}

// AuditLog lists the newest audit entries first, at most limit (50 when
// limit is not positive).
func (d *DB) AuditLog(ctx context.Context, limit int) ([]pipeline.AuditEntry, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := d.db.QueryContext(ctx, `SELECT id, at, actor, action, subject, detail FROM audit_log ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	defer rows.Close()
	var out []pipeline.AuditEntry
	for rows.Next() {
		var e pipeline.AuditEntry
		var at string
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Subject, &e.Detail); err != nil {
			return nil, fmt.Errorf("read the audit log: %w", err)
		}
		e.At = parseTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
