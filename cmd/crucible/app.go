package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// commonFlags are the flags every data command takes.
type commonFlags struct {
	data string
	k1   float64
	b    float64
}

func (c *commonFlags) register(fs *flag.FlagSet, env envFunc) {
	fs.StringVar(&c.data, "data", env.get("CRUCIBLE_DATA", "data"), "data `folder` holding crucible.db and the index (env CRUCIBLE_DATA)")
	def := index.DefaultOptions()
	fs.Float64Var(&c.k1, "k1", envFloat(env, "CRUCIBLE_BM25_K1", def.K1), "BM25 k1 (env CRUCIBLE_BM25_K1)")
	fs.Float64Var(&c.b, "b", envFloat(env, "CRUCIBLE_BM25_B", def.B), "BM25 b (env CRUCIBLE_BM25_B)")
}

func envFloat(env envFunc, key string, def float64) float64 {
	if v := env.get(key, ""); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return def
}

// newFlagSet makes a FlagSet that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("crucible "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses and maps flag errors to usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return &exitError{code: 0}
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// app is the opened data folder: the store and the index.
type app struct {
	db    *sqlite.DB
	index *index.Index
	opts  index.Options
	dir   string
}

func (c commonFlags) options() index.Options {
	o := index.DefaultOptions()
	o.K1, o.B = c.k1, c.b
	return o
}

func dbPath(dir string) string    { return filepath.Join(dir, "crucible.db") }
func indexPath(dir string) string { return filepath.Join(dir, "index.bleve") }

// openApp opens (creating if needed) the data folder.
func openApp(ctx context.Context, c commonFlags) (*app, error) {
	if c.data == "" {
		return nil, fmt.Errorf("%w: --data is empty", errUsage)
	}
	if err := os.MkdirAll(c.data, 0o755); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	db, err := sqlite.Open(ctx, dbPath(c.data))
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(indexPath(c.data), c.options())
	if err != nil {
		db.Close()
		if !errors.Is(err, index.ErrIndexInUse) && !errors.Is(err, pipeline.ErrInvalid) {
			err = &unreadableIndexError{err: err, dir: c.data}
		}
		return nil, err
	}
	return &app{db: db, index: ix, opts: c.options(), dir: c.data}, nil
}

// unreadableIndexError is an index folder that exists but cannot be
// opened (damaged on disk): the store is intact and reindex rebuilds it.
type unreadableIndexError struct {
	err error
	dir string
}

func (e *unreadableIndexError) Error() string {
	return fmt.Sprintf("%v; the store is intact: run crucible reindex --data %s to rebuild the index from it", e.err, e.dir)
}

func (e *unreadableIndexError) Unwrap() error { return e.err }

// openStore opens only the data folder's store (for reindex, which must
// work when the index cannot be opened).
func openStore(ctx context.Context, c commonFlags) (*app, error) {
	db, err := sqlite.Open(ctx, dbPath(c.data))
	if err != nil {
		return nil, err
	}
	return &app{db: db, opts: c.options(), dir: c.data}, nil
}

// Close closes the index, which saves it to disk, and then forgets the
// journalled batches the saved index holds.
func (a *app) Close() error {
	var err error
	if a.index != nil {
		wm, werr := a.index.Watermark()
		err = a.index.Close()
		if err == nil && werr == nil && wm > 0 {
			err = a.db.TrimBatches(context.Background(), wm)
		}
	}
	if e := a.db.Close(); err == nil {
		err = e
	}
	return err
}

// searcher returns the search service over the app's index and store.
func (a *app) searcher() *index.Searcher {
	return &index.Searcher{Index: a.index, Source: a.db}
}

// indexInStep reports whether the index is of the current format and holds
// exactly the stored passages.
func (a *app) indexInStep(ctx context.Context) (stored, indexed int, ok bool, err error) {
	st, err := a.db.Stats(ctx)
	if err != nil {
		return 0, 0, false, err
	}
	current, err := a.index.Current()
	if err != nil {
		return 0, 0, false, err
	}
	if !current {
		return st.Passages, -1, false, nil
	}
	n, err := a.index.Count()
	if err != nil {
		return 0, 0, false, fmt.Errorf("count index: %w", err)
	}
	return st.Passages, n, st.Passages == n, nil
}

// ensureIndex makes sure the index is in step with the store before a
// command reads it, saying on w what it does (see syncIndex).
func (a *app) ensureIndex(ctx context.Context, w io.Writer) error {
	return a.syncIndex(ctx, func(msg string) { fmt.Fprintln(w, msg) }, nil)
}

// syncIndex brings the index in step with the store, the source of truth,
// so an answer is never drawn from a partial index. An ingest killed after
// the store committed batches the index had not saved leaves the index's
// watermark behind the store's latest batch: those batches are indexed
// again from the store's journal, which is what "the next run continues"
// means. When that cannot be done (an index of an older format, a deleted
// index folder, a journal that no longer holds the batches, passage counts
// that still disagree) the index is rebuilt from the store. say is told
// what is done; progress, if not nil, follows a rebuild. A failed rebuild
// names the command that does it.
func (a *app) syncIndex(ctx context.Context, say func(string), progress func(done, total int)) error {
	current, err := a.index.Current()
	if err != nil {
		return err
	}
	if current {
		if err := a.catchUp(ctx, say); err != nil {
			return err
		}
	}
	stored, indexed, ok, err := a.indexInStep(ctx)
	if err != nil || ok {
		return err
	}
	if indexed < 0 {
		say(fmt.Sprintf("the index is of an older format: rebuilding it from the %d stored passages (as crucible reindex does)...", stored))
	} else {
		say(fmt.Sprintf("the index holds %d passages and the store %d (an ingest was interrupted?): rebuilding the index from the store (as crucible reindex does)...", indexed, stored))
	}
	var each func(int)
	if progress != nil {
		progress(0, stored)
		each = func(done int) { progress(done, stored) }
	}
	if err := a.rebuild(ctx, each); err != nil {
		return fmt.Errorf("the index is out of step with the store and could not be rebuilt: %w; run crucible reindex --data %s", err, a.dir)
	}
	say("index rebuilt")
	return nil
}

// catchUp indexes the batches the store committed after the index's
// watermark, when the journal still holds them all. A journal gap or an
// index ahead of the store is left to the passage count check (and a
// rebuild).
func (a *app) catchUp(ctx context.Context, say func(string)) error {
	wm, err := a.index.Watermark()
	if err != nil {
		return err
	}
	latest, err := a.db.LatestBatch(ctx)
	if err != nil {
		return err
	}
	if latest <= wm {
		return nil
	}
	b, err := a.db.BatchesAfter(ctx, wm)
	if errors.Is(err, pipeline.ErrJournalGap) {
		return nil
	}
	if err != nil {
		return err
	}
	passages := 0
	for _, d := range b.Docs {
		passages += len(d.Passages)
	}
	say(fmt.Sprintf("an earlier ingest was interrupted: the index lacks the store's batches %d to %d; indexing their %d documents (%d passages) from the store...",
		wm+1, latest, len(b.Docs), passages))
	if err := a.index.IndexBatch(ctx, b); err != nil {
		return fmt.Errorf("index the batches an interrupted ingest left out: %w; run crucible reindex --data %s", err, a.dir)
	}
	say("the index has caught up with the store")
	return nil
}

// rebuild replaces the index from the store.
func (a *app) rebuild(ctx context.Context, progress func(int)) error {
	if a.index != nil {
		if err := a.index.Close(); err != nil {
			return fmt.Errorf("close index: %w", err)
		}
		a.index = nil
	}
	ix, err := index.Rebuild(ctx, indexPath(a.dir), a.opts, a.db, progress)
	if err != nil {
		// Reopen whatever index is there so the app stays usable.
		if old, oerr := index.Open(indexPath(a.dir), a.opts); oerr == nil {
			a.index = old
		}
		return err
	}
	a.index = ix
	return nil
}

var _ pipeline.DocumentStore = (*sqlite.DB)(nil)
