//go:build sqlite_fts5

package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// fts5Available says whether this binary has SQLite's FTS5 compiled in.
const fts5Available = true

// buildFTS5 loads scale copies of the passages into an FTS5 table (porter
// stemming over unicode61 tokens) in a fresh database file.
func buildFTS5(ctx context.Context, path string, docs []pipeline.IngestDocument, scale int) (*sql.DB, time.Duration, error) {
	os.Remove(path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE passages USING fts5(pid UNINDEXED, body, tokenize='porter unicode61')`); err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("fts5: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		db.Close()
		return nil, 0, err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO passages (pid, body) VALUES (?, ?)`)
	if err != nil {
		tx.Rollback()
		db.Close()
		return nil, 0, err
	}
	for r := 0; r < scale; r++ {
		for _, d := range docs {
			d = replicate(d, r)
			for _, p := range d.Passages {
				// The same text Crucible indexes: title, then passage.
				if _, err := stmt.ExecContext(ctx, p.ID(), d.Doc.Title+"\n"+p.Text); err != nil {
					tx.Rollback()
					db.Close()
					return nil, 0, err
				}
			}
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, 0, err
	}
	return db, time.Since(start), nil
}

// searchFTS5 runs a bag-of-words OR query of words (quoted, so FTS5
// reads them as words, not syntax) ranked by FTS5's bm25() and returns
// the ids of the top k passages, reading their text as a search page
// would. No words, no hits.
func searchFTS5(ctx context.Context, db *sql.DB, words []string, k int) ([]string, error) {
	if len(words) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	rows, err := db.QueryContext(ctx, `SELECT pid, body, bm25(passages) FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT ?`,
		strings.Join(quoted, " OR "), k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var pid, body string
		var score float64
		if err := rows.Scan(&pid, &body, &score); err != nil {
			return nil, err
		}
		ids = append(ids, pid)
	}
	return ids, rows.Err()
}
