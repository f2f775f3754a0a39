// Package migrations holds Crucible's SQL schema as numbered files and
// applies the ones a database has not seen yet.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.sql
var files embed.FS

// Names lists the migration files in the order they apply.
func Names() ([]string, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Apply runs every migration not yet recorded in schema_migrations, each in
// its own transaction together with its record, so a failed file leaves the
// database as it was before that file.
func Apply(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := Names()
	if err != nil {
		return err
	}
	if err := checkKnown(ctx, db, names); err != nil {
		return err
	}
	for _, name := range names {
		if err := applyFile(ctx, db, name); err != nil {
			return err
		}
	}
	return nil
}

// ErrUnknownMigration means the database records a migration this build
// does not ship: a newer or different build of Crucible made or upgraded
// it, and this one cannot know what that migration changed.
var ErrUnknownMigration = errors.New("the database was migrated by another build of Crucible")

// checkKnown refuses a database that records a migration not among names,
// before any migration runs: applying this build's migrations on top of a
// schema it does not know could break it.
func checkKnown(ctx context.Context, db *sql.DB, names []string) error {
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n] = true
	}
	rows, err := db.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY name`)
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	var unknown []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		if !known[n] {
			unknown = append(unknown, n)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%w: it records migration(s) %s, which this build does not have; open it with the build that made it (or restore a copy made before), nothing was changed", ErrUnknownMigration, strings.Join(unknown, ", "))
	}
	return nil
}

func applyFile(ctx context.Context, db *sql.DB, name string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", name, err)
	}
	defer tx.Rollback()

	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return fmt.Errorf("migration %s: check: %w", name, err)
	}
	if n > 0 {
		return nil
	}
	body, err := files.ReadFile(name)
	if err != nil {
		return fmt.Errorf("migration %s: read: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("migration %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name) VALUES (?)`, name); err != nil {
		return fmt.Errorf("migration %s: record: %w", name, err)
	}
	return tx.Commit()
}
