package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

var _ pipeline.JobStore = (*DB)(nil)

const jobColumns = `id, state, request, settings, engine, stage, done, total, calls, cache_hits,
	prompt_tokens, completion_tokens, error, error_stage, cancel_requested, COALESCE(report_id, 0),
	created_at, started_at, finished_at, submitted_by, caps, cap_reached`

func fingerprint(j pipeline.Job) (string, error) {
	b, err := json.Marshal(struct {
		R pipeline.Request
		S pipeline.Settings
		E string
	}{j.Request, j.Settings, j.Engine})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

type scanner interface{ Scan(...any) error }

func scanJob(s scanner) (pipeline.Job, error) {
	var j pipeline.Job
	var req, set, state, created, started, finished, caps, reached string
	var cancel int
	err := s.Scan(&j.ID, &state, &req, &set, &j.Engine, &j.Progress.Stage, &j.Progress.Done, &j.Progress.Total,
		&j.Progress.Usage.Calls, &j.Progress.Usage.CacheHits, &j.Progress.Usage.PromptTokens, &j.Progress.Usage.CompletionTokens,
		&j.Error, &j.ErrorStage, &cancel, &j.ReportID, &created, &started, &finished, &j.SubmittedBy, &caps, &reached)
	if err != nil {
		return j, err
	}
	j.State = pipeline.JobState(state)
	if caps != "" {
		if err := json.Unmarshal([]byte(caps), &j.Caps); err != nil {
			return j, fmt.Errorf("job %d: caps: %w", j.ID, err)
		}
	}
	if reached != "" {
		// Stored as failed (the table's state check predates stopped
		// jobs; migration 0019).
		j.Stopped = &pipeline.CapError{}
		if err := json.Unmarshal([]byte(reached), j.Stopped); err != nil {
			return j, fmt.Errorf("job %d: cap reached: %w", j.ID, err)
		}
		if j.State == pipeline.JobFailed {
			j.State = pipeline.JobStopped
		}
	}
	j.CancelRequested = cancel != 0
	if err := json.Unmarshal([]byte(req), &j.Request); err != nil {
		return j, fmt.Errorf("job %d: request: %w", j.ID, err)
	}
	if err := json.Unmarshal([]byte(set), &j.Settings); err != nil {
		return j, fmt.Errorf("job %d: settings: %w", j.ID, err)
	}
	j.CreatedAt, j.StartedAt, j.FinishedAt = parseTime(created), parseTime(started), parseTime(finished)
	return j, nil
}

// CreateJob implements pipeline.JobStore.
func (d *DB) CreateJob(ctx context.Context, j pipeline.Job) (pipeline.Job, bool, error) {
	fp, err := fingerprint(j)
	if err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	req, err1 := toJSON(j.Request)
	set, err2 := toJSON(j.Settings)
	caps, err3 := encodeCaps(j.Caps)
	if err := errors.Join(err1, err2, err3); err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	defer tx.Rollback()
	row := tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs
		WHERE fingerprint = ? AND state IN ('queued','running') ORDER BY id LIMIT 1`, fp)
	if existing, err := scanJob(row); err == nil {
		return existing, true, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO jobs (state, request, settings, engine, fingerprint, created_at, submitted_by, caps)
		VALUES ('queued', ?, ?, ?, ?, ?, ?, ?)`, req, set, j.Engine, fp, formatTime(d.now()), j.SubmittedBy, caps)
	if err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return j, false, fmt.Errorf("create job: %w", err)
	}
	created, err := d.Job(ctx, id)
	return created, false, err
}

// Job implements pipeline.JobStore.
func (d *DB) Job(ctx context.Context, id int64) (pipeline.Job, error) {
	j, err := scanJob(d.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("job %d: %w", id, errNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("load job %d: %w", id, err)
	}
	return j, nil
}

// Jobs implements pipeline.JobStore.
func (d *DB) Jobs(ctx context.Context, limit int) ([]pipeline.Job, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var out []pipeline.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// ClaimJob implements pipeline.JobStore.
func (d *DB) ClaimJob(ctx context.Context) (pipeline.Job, error) {
	var id int64
	err := d.db.QueryRowContext(ctx, `UPDATE jobs SET state = 'running', started_at = ?
		WHERE id = (SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1)
		RETURNING id`, formatTime(d.now())).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Job{}, fmt.Errorf("no queued job: %w", errNotFound)
	}
	if err != nil {
		return pipeline.Job{}, fmt.Errorf("claim job: %w", err)
	}
	return d.Job(ctx, id)
}

// SetProgress implements pipeline.JobStore.
func (d *DB) SetProgress(ctx context.Context, id int64, p pipeline.Progress) error {
	_, err := d.db.ExecContext(ctx, `UPDATE jobs SET stage = ?, done = ?, total = ?, calls = ?, cache_hits = ?,
		prompt_tokens = ?, completion_tokens = ? WHERE id = ?`,
		p.Stage, p.Done, p.Total, p.Usage.Calls, p.Usage.CacheHits, p.Usage.PromptTokens, p.Usage.CompletionTokens, id)
	if err != nil {
		return fmt.Errorf("job %d progress: %w", id, err)
	}
	return nil
}

// FinishJob implements pipeline.JobStore.
func (d *DB) FinishJob(ctx context.Context, id int64, state pipeline.JobState, errStage, errMsg string) error {
	if !state.Finished() {
		return pipeline.Invalidf("finish job %d: %q is not a final state", id, state)
	}
	if state == pipeline.JobStopped {
		return pipeline.Invalidf("finish job %d: a job stops with StopJob, which records the cap", id)
	}
	r, err := d.db.ExecContext(ctx, `UPDATE jobs SET state = ?, error_stage = ?, error = ?, finished_at = ? WHERE id = ?`,
		string(state), errStage, errMsg, formatTime(d.now()), id)
	if err != nil {
		return fmt.Errorf("finish job %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("finish job %d: %w", id, errNotFound)
	}
	return nil
}

// RequestCancel implements pipeline.JobStore.
func (d *DB) RequestCancel(ctx context.Context, id int64) (pipeline.Job, error) {
	j, err := d.Job(ctx, id)
	if err != nil {
		return j, err
	}
	if j.State.Finished() {
		return j, fmt.Errorf("job %d is already %s: %w", id, j.State, pipeline.ErrConflict)
	}
	now := formatTime(d.now())
	_, err = d.db.ExecContext(ctx, `UPDATE jobs SET cancel_requested = 1,
		state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
		finished_at = CASE WHEN state = 'queued' THEN ? ELSE finished_at END
		WHERE id = ? AND state IN ('queued','running')`, now, id)
	if err != nil {
		return j, fmt.Errorf("cancel job %d: %w", id, err)
	}
	return d.Job(ctx, id)
}

// RequeueInterrupted implements pipeline.JobStore.
func (d *DB) RequeueInterrupted(ctx context.Context) (int, error) {
	r, err := d.db.ExecContext(ctx, `UPDATE jobs SET state = CASE WHEN cancel_requested = 1 THEN 'cancelled' ELSE 'queued' END
		WHERE state = 'running'`)
	if err != nil {
		return 0, fmt.Errorf("requeue interrupted jobs: %w", err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}

var _ pipeline.CapStore = (*DB)(nil)

// encodeCaps is the caps column: empty for none.
func encodeCaps(c pipeline.Caps) (string, error) {
	if c.IsZero() {
		return "", nil
	}
	b, err := json.Marshal(c)
	return string(b), err
}

// StopJob implements pipeline.CapStore. The job is stored as failed with
// the cap recorded (migration 0019) and read back as stopped.
func (d *DB) StopJob(ctx context.Context, id int64, cap pipeline.CapError) error {
	b, err := json.Marshal(cap)
	if err != nil {
		return fmt.Errorf("stop job %d: %w", id, err)
	}
	r, err := d.db.ExecContext(ctx, `UPDATE jobs SET state = 'failed', cap_reached = ?, error_stage = ?, error = ?, finished_at = ?
		WHERE id = ?`, string(b), cap.Stage, cap.Error(), formatTime(d.now()), id)
	if err != nil {
		return fmt.Errorf("stop job %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("stop job %d: %w", id, errNotFound)
	}
	return nil
}

// ResumeJob implements pipeline.CapStore.
func (d *DB) ResumeJob(ctx context.Context, id int64, caps pipeline.Caps) (pipeline.Job, error) {
	enc, err := encodeCaps(caps)
	if err != nil {
		return pipeline.Job{}, fmt.Errorf("resume job %d: %w", id, err)
	}
	r, err := d.db.ExecContext(ctx, `UPDATE jobs SET state = 'queued', caps = ?, cap_reached = '', error = '', error_stage = '',
		finished_at = '', cancel_requested = 0 WHERE id = ? AND state = 'failed' AND cap_reached <> ''`, enc, id)
	if err != nil {
		return pipeline.Job{}, fmt.Errorf("resume job %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		j, err := d.Job(ctx, id)
		if err != nil {
			return j, err
		}
		return j, fmt.Errorf("job %d is %s, not stopped at a cap: %w", id, j.State, pipeline.ErrConflict)
	}
	return d.Job(ctx, id)
}
