package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
)

// CreateGoldSet stores nuggets as a gold set called name (trimmed) and
// returns the set with its id and creation time. A blank name or an empty
// set is an error wrapping pipeline.ErrInvalid. Names need not be unique:
// a corrected file uploaded again under its old name is a new set.
func (d *DB) CreateGoldSet(ctx context.Context, name string, nuggets []judge.Nugget) (judge.GoldSet, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return judge.GoldSet{}, pipeline.Invalidf("a gold set needs a name")
	case len(nuggets) == 0:
		return judge.GoldSet{}, pipeline.Invalidf("gold set %q has no nuggets", name)
	}
	body, err := toJSON(nuggets)
	if err != nil {
		return judge.GoldSet{}, fmt.Errorf("save gold set %q: %w", name, err)
	}
	set := judge.GoldSet{Name: name, Nuggets: nuggets, CreatedAt: d.now().UTC()}
	sum := set.Summary()
	err = d.db.QueryRowContext(ctx, `INSERT INTO gold_sets (name, nuggets, nugget_count, request_count, created_at)
		VALUES (?, ?, ?, ?, ?) RETURNING id`,
		name, body, sum.NuggetCount, sum.RequestCount, formatTime(set.CreatedAt)).Scan(&set.ID)
	if err != nil {
		return judge.GoldSet{}, fmt.Errorf("save gold set %q: %w", name, err)
	}
	return set, nil
}

// GoldSet returns the gold set with the id and its nuggets in file order,
// or an error wrapping pipeline.ErrNotFound.
func (d *DB) GoldSet(ctx context.Context, id int64) (judge.GoldSet, error) {
	set := judge.GoldSet{ID: id}
	var body, created string
	err := d.db.QueryRowContext(ctx, `SELECT name, nuggets, created_at FROM gold_sets WHERE id = ?`, id).
		Scan(&set.Name, &body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return judge.GoldSet{}, fmt.Errorf("no gold set has the id %d: %w", id, errNotFound)
	}
	if err != nil {
		return judge.GoldSet{}, fmt.Errorf("load gold set %d: %w", id, err)
	}
	if err := json.Unmarshal([]byte(body), &set.Nuggets); err != nil {
		return judge.GoldSet{}, fmt.Errorf("load gold set %d: nuggets: %w", id, err)
	}
	set.CreatedAt = parseTime(created)
	return set, nil
}

// GoldSets lists the stored gold sets without their nuggets, newest first.
func (d *DB) GoldSets(ctx context.Context) ([]judge.GoldSetSummary, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, name, nugget_count, request_count, created_at
		FROM gold_sets ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list gold sets: %w", err)
	}
	defer rows.Close()
	var out []judge.GoldSetSummary
	for rows.Next() {
		var s judge.GoldSetSummary
		var created string
		if err := rows.Scan(&s.ID, &s.Name, &s.NuggetCount, &s.RequestCount, &created); err != nil {
			return nil, fmt.Errorf("list gold sets: %w", err)
		}
		s.CreatedAt = parseTime(created)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list gold sets: %w", err)
	}
	return out, nil
}
