package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Prepared data folders. Most tests need a collection to search, report on
// or serve, not the act of ingesting it: each corpus is ingested once per
// test binary into a folder under fixtureRoot, and every test that asks
// for it gets its own copy (a few milliseconds), so tests stay independent
// and can run in parallel. Tests about ingest itself still ingest.

var (
	fixtureRootOnce sync.Once
	fixtureRoot     string
	fixtureRootErr  error
	fixtures        sync.Map // corpus path → *fixture
)

type fixture struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureRoot != "" {
		os.RemoveAll(fixtureRoot)
	}
	os.Exit(code)
}

// preparedData returns a fresh data folder holding corpus ingested with the
// default options, as `crucible ingest --data DIR corpus` leaves it.
func preparedData(t *testing.T, corpus string) string {
	t.Helper()
	v, _ := fixtures.LoadOrStore(corpus, &fixture{})
	f := v.(*fixture)
	f.once.Do(func() { f.dir, f.err = prepareFixture(corpus) })
	if f.err != nil {
		t.Fatalf("prepare the data folder of %s: %v", corpus, f.err)
	}
	data := t.TempDir()
	if err := os.CopyFS(data, os.DirFS(f.dir)); err != nil {
		t.Fatalf("copy the prepared data folder of %s: %v", corpus, err)
	}
	return data
}

func prepareFixture(corpus string) (string, error) {
	// Made on first use, not in TestMain, so that the helper processes
	// the kill tests start (and kill) leave nothing behind.
	fixtureRootOnce.Do(func() { fixtureRoot, fixtureRootErr = os.MkdirTemp("", "crucible-fixtures-") })
	if fixtureRootErr != nil {
		return "", fixtureRootErr
	}
	dir, err := os.MkdirTemp(fixtureRoot, strings.TrimSuffix(filepath.Base(corpus), ".gz")+"-")
	if err != nil {
		return "", err
	}
	var out, errb strings.Builder
	err = run(context.Background(), []string{"ingest", "--data", dir, corpus},
		func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, errb.String())
	}
	return dir, nil
}
