// Package sqlite is the SQLite adapter of the pipeline domain: raw SQL over
// mattn/go-sqlite3. SQLite is the source of truth for documents and
// passages; everything derived (the search index) can be rebuilt from it.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/crucible-portal/crucible/migrations"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// DB is an open Crucible database.
type DB struct {
	db   *sql.DB
	path string
	now  func() time.Time
	// corpus caches the collection's fingerprint (CorpusFacts), stats its
	// statistics (Stats), authors its authors' years (AuthorYears).
	corpus  corpusCache
	stats   statsCache
	authors authorsCache
}

// Open opens (creating if needed) the database file at path, sets WAL mode,
// foreign keys and a busy timeout, and applies pending migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	q := url.Values{}
	q.Set("_foreign_keys", "on")
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_synchronous", "NORMAL")
	// Each connection keeps its most used statements prepared: the portal
	// asks the same few dozen queries over and over.
	q.Set("_stmt_cache_size", "64")
	// Writers take the lock when they begin, so two writers queue on the
	// busy timeout instead of failing to upgrade a read lock.
	q.Set("_txlock", "immediate")
	dsn := "file:" + path + "?" + q.Encode()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := migrations.Apply(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	// Keep connections open between requests: database/sql closes all but
	// two idle ones by default, and the portal's concurrent requests then
	// reopen (and re-prepare) a SQLite connection each.
	db.SetMaxIdleConns(32)
	return &DB{db: db, path: path, now: time.Now}, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Path is the database file.
func (d *DB) Path() string { return d.path }

// SQL exposes the handle for adapters in this module that need raw access
// (benchmarks comparing against FTS5).
func (d *DB) SQL() *sql.DB { return d.db }

// Setting returns a stored setting, or ErrNotFound.
func (d *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := d.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("setting %q: %w", key, errNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("setting %q: %w", key, err)
	}
	return v, nil
}

// SetSetting stores a setting.
func (d *DB) SetSetting(ctx context.Context, key, value string) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("set setting %q: %w", key, err)
	}
	return nil
}

// isConstraint reports whether err is an SQLite constraint violation.
func isConstraint(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrConstraint
}
