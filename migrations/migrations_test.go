package migrations

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestDocumentTextInPassages: a database from before
// 0020_document_text_in_passages.sql (documents kept their whole text,
// passages theirs again) loses documents.text when it is upgraded, and
// the text is put together again, exactly, from its passages' gaps and
// texts and the document's tail; a document without passages keeps its
// text in its tail.
func TestDocumentTextInPassages(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_migrations (name TEXT PRIMARY KEY,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')))`); err != nil {
		t.Fatal(err)
	}
	names, err := Names()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name >= "0020" {
			break
		}
		if err := applyFile(ctx, db, name); err != nil {
			t.Fatal(err)
		}
	}
	first, second := "Naïve café.", "Second — passage."
	text := "  " + first + "\n\n" + second + " end\n"
	docs := map[string]string{"d": text, "bare": "no passages ünïcode"}
	for id, tx := range docs {
		if _, err := db.ExecContext(ctx, `INSERT INTO documents (id, title, text, ingested_at) VALUES (?, 'T', ?, '2026-01-01T00:00:00Z')`, id, tx); err != nil {
			t.Fatal(err)
		}
	}
	s1 := 2
	s2 := s1 + len(first) + 2
	for i, p := range [][2]int{{s1, s1 + len(first)}, {s2, s2 + len(second)}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO passages (doc_id, ordinal, start, "end", text) VALUES ('d', ?, ?, ?, ?)`,
			i, p[0], p[1], text[p[0]:p[1]]); err != nil {
			t.Fatal(err)
		}
	}

	if err := Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	var cols int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('documents') WHERE name = 'text'`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != 0 {
		t.Error("documents still has a text column")
	}
	for id, want := range docs {
		var got string
		var bytes int
		if err := db.QueryRowContext(ctx, `SELECT COALESCE((SELECT group_concat(gap || text, '') FROM
			(SELECT gap, text FROM passages WHERE doc_id = ? ORDER BY ordinal)), '') || tail, bytes FROM documents WHERE id = ?`, id, id).
			Scan(&got, &bytes); err != nil {
			t.Fatal(err)
		}
		if got != want || bytes != len(want) {
			t.Errorf("%s after the upgrade: %q, %d bytes; want %q, %d", id, got, bytes, want, len(want))
		}
	}
	var gaps []string
	rows, err := db.QueryContext(ctx, `SELECT gap FROM passages WHERE doc_id = 'd' ORDER BY ordinal`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		gaps = append(gaps, g)
	}
	if len(gaps) != 2 || gaps[0] != "  " || gaps[1] != "\n\n" {
		t.Errorf("gaps = %q, want two spaces and a blank line", gaps)
	}
}

// TestUnknownMigrationRefused: a database that records a migration this
// build does not ship (made or upgraded by another build) is refused with
// an error naming it, before anything is applied; a database that
// records only shipped migrations opens again.
func TestUnknownMigrationRefused(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, db); err != nil {
		t.Fatalf("applying again: %v", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations (name) VALUES ('0099_from_the_future.sql')`); err != nil {
		t.Fatal(err)
	}
	var before int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	err = Apply(ctx, db)
	if !errors.Is(err, ErrUnknownMigration) || !strings.Contains(err.Error(), "0099_from_the_future.sql") {
		t.Fatalf("Apply on a database from another build = %v, want ErrUnknownMigration naming 0099_from_the_future.sql", err)
	}
	var after int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&after); err != nil || after != before {
		t.Errorf("schema_migrations holds %d rows after the refusal, want %d (%v)", after, before, err)
	}
}
