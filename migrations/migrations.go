// Package migrations holds Crucible's SQL schema as numbered files and
// applies the ones a database has not seen yet.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
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
	for _, name := range names {
		if err := applyFile(ctx, db, name); err != nil {
			return err
		}
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
