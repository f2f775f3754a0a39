//go:build !sqlite_fts5

package main

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

const fts5Available = false

var errNoFTS5 = errors.New("SQLite FTS5 is not compiled in: build with -tags sqlite_fts5")

func buildFTS5(context.Context, string, []pipeline.IngestDocument, int) (*sql.DB, time.Duration, error) {
	return nil, 0, errNoFTS5
}

func searchFTS5(context.Context, *sql.DB, []string, int) ([]string, error) { return nil, errNoFTS5 }
