package migrations

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestPassageTextOnceKeepsThePassages: a database from before
// 0020_passage_text_once.sql (passages kept their text) keeps every
// passage's offsets when it is upgraded, loses the duplicate text, and
// the text is still its document's bytes at the offsets.
func TestPassageTextOnceKeepsThePassages(t *testing.T) {
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
	first := "Naïve café."
	text := first + " Second passage."
	if _, err := db.ExecContext(ctx, `INSERT INTO documents (id, title, text, ingested_at) VALUES ('d', 'T', ?, '2026-01-01T00:00:00Z')`, text); err != nil {
		t.Fatal(err)
	}
	for i, p := range [][2]int{{0, len(first)}, {len(first) + 1, len(text)}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO passages (doc_id, ordinal, start, "end", text) VALUES ('d', ?, ?, ?, ?)`,
			i, p[0], p[1], text[p[0]:p[1]]); err != nil {
			t.Fatal(err)
		}
	}

	if err := Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	var cols int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('passages') WHERE name = 'text'`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != 0 {
		t.Error("passages still has a text column")
	}
	rows, err := db.QueryContext(ctx, `SELECT p.start, p."end", d.text FROM passages p JOIN documents d ON d.id = p.doc_id ORDER BY p.ordinal`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s, e int
		var doc string
		if err := rows.Scan(&s, &e, &doc); err != nil {
			t.Fatal(err)
		}
		got = append(got, doc[s:e])
	}
	if len(got) != 2 || got[0] != "Naïve café." || got[1] != "Second passage." {
		t.Errorf("passages after the upgrade = %q", got)
	}
}
