package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/uploads"
)

var _ uploads.Store = (*DB)(nil)

const uploadColumns = `id, uploader, files, dir, state, records, documents, added, replaced, passages,
	skipped, notices, bytes_read, committed_documents, message, created_at, started_at, finished_at, cancelled_by, unchanged`

func scanUpload(s scanner) (uploads.Upload, error) {
	var u uploads.Upload
	var files, state, created, started, finished string
	c := &u.Counts
	err := s.Scan(&u.ID, &u.Uploader, &files, &u.Dir, &state, &c.Records, &c.Documents, &c.Added, &c.Replaced,
		&c.Passages, &c.Skipped, &c.Notices, &c.BytesRead, &u.Committed, &u.Message, &created, &started, &finished, &u.CancelledBy, &c.Unchanged)
	if err != nil {
		return u, err
	}
	u.State = uploads.State(state)
	if err := json.Unmarshal([]byte(files), &u.Files); err != nil {
		return u, fmt.Errorf("upload %d: files: %w", u.ID, err)
	}
	u.CreatedAt, u.StartedAt, u.FinishedAt = parseTime(created), parseTime(started), parseTime(finished)
	return u, nil
}

// CreateUpload implements uploads.Store.
func (d *DB) CreateUpload(ctx context.Context, u uploads.Upload) (uploads.Upload, error) {
	switch {
	case len(u.Files) == 0:
		return uploads.Upload{}, pipeline.Invalidf("an upload needs at least one file")
	case strings.TrimSpace(u.Dir) == "":
		return uploads.Upload{}, pipeline.Invalidf("an upload needs the folder its files are in")
	}
	files, err := toJSON(u.Files)
	if err != nil {
		return uploads.Upload{}, fmt.Errorf("create upload: %w", err)
	}
	var id int64
	err = d.db.QueryRowContext(ctx, `INSERT INTO uploads (uploader, files, dir, created_at) VALUES (?, ?, ?, ?)
		RETURNING id`, u.Uploader, files, u.Dir, formatTime(d.now())).Scan(&id)
	if err != nil {
		return uploads.Upload{}, fmt.Errorf("create upload: %w", err)
	}
	return d.Upload(ctx, id)
}

// Upload implements uploads.Store.
func (d *DB) Upload(ctx context.Context, id int64) (uploads.Upload, error) {
	u, err := scanUpload(d.db.QueryRowContext(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return uploads.Upload{}, fmt.Errorf("no upload has the id %d: %w", id, errNotFound)
	}
	if err != nil {
		return uploads.Upload{}, fmt.Errorf("load upload %d: %w", id, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT seq, file, line, reason, skipped FROM upload_errors
		WHERE upload_id = ? ORDER BY seq LIMIT ?`, id, uploads.MaxErrors)
	if err != nil {
		return uploads.Upload{}, fmt.Errorf("load upload %d problems: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var e uploads.RecordError
		var skipped int
		if err := rows.Scan(&e.Seq, &e.File, &e.Line, &e.Reason, &skipped); err != nil {
			return uploads.Upload{}, fmt.Errorf("load upload %d problems: %w", id, err)
		}
		e.Skipped = skipped != 0
		u.Errors = append(u.Errors, e)
	}
	if err := rows.Err(); err != nil {
		return uploads.Upload{}, fmt.Errorf("load upload %d problems: %w", id, err)
	}
	return u, nil
}

// Uploads implements uploads.Store.
func (d *DB) Uploads(ctx context.Context, limit int) ([]uploads.Upload, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+uploadColumns+` FROM uploads ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list uploads: %w", err)
	}
	defer rows.Close()
	var out []uploads.Upload
	for rows.Next() {
		u, err := scanUpload(rows)
		if err != nil {
			return nil, fmt.Errorf("list uploads: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list uploads: %w", err)
	}
	return out, nil
}

// ClaimUpload implements uploads.Store.
func (d *DB) ClaimUpload(ctx context.Context) (uploads.Upload, error) {
	var id int64
	err := d.db.QueryRowContext(ctx, `UPDATE uploads SET state = 'running',
		started_at = CASE WHEN started_at = '' THEN ? ELSE started_at END
		WHERE id = (SELECT id FROM uploads WHERE state = 'queued' ORDER BY id LIMIT 1)
		RETURNING id`, formatTime(d.now())).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return uploads.Upload{}, fmt.Errorf("no queued upload: %w", errNotFound)
	}
	if err != nil {
		return uploads.Upload{}, fmt.Errorf("claim upload: %w", err)
	}
	return d.Upload(ctx, id)
}

// SaveUploadProgress implements uploads.Store. The counts and the problems
// are written in one transaction.
func (d *DB) SaveUploadProgress(ctx context.Context, id int64, c uploads.Counts, committed int, problems []uploads.RecordError) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("upload %d progress: %w", id, err)
	}
	defer tx.Rollback()
	r, err := tx.ExecContext(ctx, `UPDATE uploads SET records = ?, documents = ?, added = ?, replaced = ?, passages = ?,
		skipped = ?, notices = ?, bytes_read = ?, committed_documents = ?, unchanged = ? WHERE id = ?`,
		c.Records, c.Documents, c.Added, c.Replaced, c.Passages, c.Skipped, c.Notices, c.BytesRead, committed, c.Unchanged, id)
	if err != nil {
		return fmt.Errorf("upload %d progress: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("upload %d progress: %w", id, errNotFound)
	}
	if len(problems) > 0 {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_errors (upload_id, seq, file, line, reason, skipped)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (upload_id, seq) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("upload %d problems: %w", id, err)
		}
		defer stmt.Close()
		for _, p := range problems {
			if p.Seq < 0 || p.Seq >= uploads.MaxErrors {
				continue
			}
			skipped := 0
			if p.Skipped {
				skipped = 1
			}
			if _, err := stmt.ExecContext(ctx, id, p.Seq, p.File, p.Line, p.Reason, skipped); err != nil {
				return fmt.Errorf("upload %d problem %d: %w", id, p.Seq, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("upload %d progress: %w", id, err)
	}
	return nil
}

// FinishUpload implements uploads.Store.
func (d *DB) FinishUpload(ctx context.Context, id int64, state uploads.State, message string) error {
	if !state.Finished() {
		return pipeline.Invalidf("finish upload %d: %q is not a final state", id, state)
	}
	r, err := d.db.ExecContext(ctx, `UPDATE uploads SET state = ?, message = ?, finished_at = ? WHERE id = ?`,
		string(state), message, formatTime(d.now()), id)
	if err != nil {
		return fmt.Errorf("finish upload %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("finish upload %d: %w", id, errNotFound)
	}
	return nil
}

// CancelUpload implements uploads.Store.
func (d *DB) CancelUpload(ctx context.Context, id int64, by, message string) error {
	r, err := d.db.ExecContext(ctx, `UPDATE uploads SET state = 'failed', cancelled_by = ?, message = ?, finished_at = ?
		WHERE id = ? AND state IN ('queued', 'running')`, by, message, formatTime(d.now()), id)
	if err != nil {
		return fmt.Errorf("cancel upload %d: %w", id, err)
	}
	if n, _ := r.RowsAffected(); n > 0 {
		return nil
	}
	u, err := d.Upload(ctx, id)
	if err != nil {
		return err
	}
	return pipeline.Invalidf("upload %d has already ended (%s): there is nothing to cancel", id, u.State)
}

// RequeueUploads implements uploads.Store.
func (d *DB) RequeueUploads(ctx context.Context) (int, error) {
	r, err := d.db.ExecContext(ctx, `UPDATE uploads SET state = 'queued' WHERE state = 'running'`)
	if err != nil {
		return 0, fmt.Errorf("requeue interrupted uploads: %w", err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}

// UnfinishedUploadDirs implements uploads.Store.
func (d *DB) UnfinishedUploadDirs(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT dir FROM uploads WHERE state IN ('queued', 'running') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list unfinished uploads: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var dir string
		if err := rows.Scan(&dir); err != nil {
			return nil, fmt.Errorf("list unfinished uploads: %w", err)
		}
		out = append(out, dir)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list unfinished uploads: %w", err)
	}
	return out, nil
}
