package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// SaveRanker stores a trained nugget ranker and returns its id. With
// activate it becomes its engine's active model in the same transaction
// (the one active before is deactivated). A model that does not check
// (RankerModel.Check) or names no engine is an error wrapping
// pipeline.ErrInvalid, and nothing is stored.
func (d *DB) SaveRanker(ctx context.Context, m pipeline.RankerModel, activate bool) (int64, error) {
	if m.Engine == "" {
		return 0, fmt.Errorf("store ranker: %w", pipeline.Invalidf("the model names no engine"))
	}
	if err := m.Check(); err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = d.now().UTC()
	}
	m.ID, m.Active = 0, false
	body, err := toJSON(m)
	if err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO ranker_models (engine, model, trained_on, created_at) VALUES (?, ?, ?, ?)`,
		m.Engine, body, m.TrainedOn, m.CreatedAt.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	if activate {
		if err := setActive(ctx, tx, id, true); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store ranker: %w", err)
	}
	return id, nil
}

// SetRankerActive makes the model its engine's active ranker (deactivating
// the one before) or, with active false, stops using it: the engine's
// rank stage then uses the default weights. An unknown id is an error
// wrapping pipeline.ErrNotFound.
func (d *DB) SetRankerActive(ctx context.Context, id int64, active bool) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("ranker %d: %w", id, err)
	}
	defer tx.Rollback()
	if err := setActive(ctx, tx, id, active); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ranker %d: %w", id, err)
	}
	return nil
}

func setActive(ctx context.Context, tx *sql.Tx, id int64, active bool) error {
	var engine string
	err := tx.QueryRowContext(ctx, `SELECT engine FROM ranker_models WHERE id = ?`, id).Scan(&engine)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("ranker %d: %w", id, errNotFound)
	}
	if err != nil {
		return fmt.Errorf("ranker %d: %w", id, err)
	}
	if active {
		if _, err := tx.ExecContext(ctx, `UPDATE ranker_models SET active = 0 WHERE engine = ? AND active = 1`, engine); err != nil {
			return fmt.Errorf("ranker %d: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ranker_models SET active = ? WHERE id = ?`, boolInt(active), id); err != nil {
		return fmt.Errorf("ranker %d: %w", id, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Rankers lists the stored rankers, newest first.
func (d *DB) Rankers(ctx context.Context) ([]pipeline.RankerModel, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, model, active FROM ranker_models ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list rankers: %w", err)
	}
	defer rows.Close()
	var out []pipeline.RankerModel
	for rows.Next() {
		m, err := scanRanker(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list rankers: %w", err)
	}
	return out, nil
}

// Ranker returns a stored ranker; an unknown id is an error wrapping
// pipeline.ErrNotFound.
func (d *DB) Ranker(ctx context.Context, id int64) (pipeline.RankerModel, error) {
	m, err := scanRanker(d.db.QueryRowContext(ctx, `SELECT id, model, active FROM ranker_models WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.RankerModel{}, fmt.Errorf("ranker %d: %w", id, errNotFound)
	}
	return m, err
}

// ActiveRanker returns the engine's active ranker, or nil when it has
// none (the rank stage then uses the default weights).
func (d *DB) ActiveRanker(ctx context.Context, engine string) (*pipeline.RankerModel, error) {
	m, err := scanRanker(d.db.QueryRowContext(ctx, `SELECT id, model, active FROM ranker_models WHERE engine = ? AND active = 1`, engine))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}

type rowScanner interface{ Scan(dest ...any) error }

func scanRanker(r rowScanner) (pipeline.RankerModel, error) {
	var id int64
	var body string
	var active int
	if err := r.Scan(&id, &body, &active); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return pipeline.RankerModel{}, err
		}
		return pipeline.RankerModel{}, fmt.Errorf("load ranker: %w", err)
	}
	var m pipeline.RankerModel
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return pipeline.RankerModel{}, fmt.Errorf("ranker %d: %w", id, err)
	}
	if err := m.Check(); err != nil {
		return pipeline.RankerModel{}, fmt.Errorf("ranker %d: %w", id, err)
	}
	m.ID, m.Active = id, active == 1
	return m, nil
}
