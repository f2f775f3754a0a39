package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

// isTerminal reports whether w is a terminal (progress bars only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar returns a progress bar on stderr when it is a terminal, else nil.
func newBar(stderr io.Writer, total int64, desc string, bytes bool) *progressbar.ProgressBar {
	if !isTerminal(stderr) {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(bytes),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func cmdIngest(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", stderr)
	var c commonFlags
	c.register(fs, env)
	maxField := fs.Int64("max-field-bytes", corpus.DefaultMaxFieldBytes, "skip records with a field larger than this")
	maxFile := fs.Int64("max-file-content-bytes", corpus.DefaultMaxFileBytes,
		"stop reading a JSON Lines file after this much content (decompressed), keeping what came before")
	maxTotal := fs.Int64("max-content-bytes", 0, "stop reading after this much content of all files together (decompressed); 0: no limit")
	maxPassages := fs.Int("max-passages-per-doc", defaultMaxPassages, "skip a document that segments into more passages than this; 0: no limit")
	batchDocs := fs.Int("batch-documents", pipeline.DefaultBatchDocs, "documents per batch committed to the store and the index (an interrupted ingest loses at most the batch being written; later runs continue)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible ingest --data DIR PATH...\n\nPATH: .jsonl/.json/.ndjson files (optionally .gz) or .txt/.md/.html/.pdf/.docx files or folders of them.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: ingest needs at least one PATH", errUsage)
	}
	if *batchDocs < 1 {
		return fmt.Errorf("%w: --batch-documents %d: need at least 1", errUsage, *batchDocs)
	}
	a, err := openApp(ctx, c)
	if err != nil {
		return err
	}
	defer a.Close()
	defer bulkGC()()
	// An ingest killed earlier left batches the index lacks: index them
	// first, so this run continues from a consistent pair.
	if err := a.ensureIndex(ctx, stderr); err != nil {
		return err
	}
	res, err := ingest(ctx, a, fs.Args(), ingestOptions{
		Options:     corpus.Options{MaxFieldBytes: *maxField, MaxFileBytes: *maxFile, MaxTotalBytes: *maxTotal},
		MaxPassages: *maxPassages,
		BatchDocs:   *batchDocs,
	}, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res.summaryLine())
	if res.walk.Skipped > 0 {
		return &exitError{code: 3, msg: fmt.Sprintf("%d record(s) skipped; see the messages above", res.walk.Skipped)}
	}
	return nil
}

type ingestResult struct {
	walk  corpus.Summary
	stats pipeline.IngestStats
	took  time.Duration
}

func (r ingestResult) summaryLine() string {
	return fmt.Sprintf("ingested %d documents (%d new, %d replaced, %d unchanged), writing %d passages, from %d file(s) in %s; %d record(s) skipped, %d notice(s)",
		r.stats.Inserted+r.stats.Replaced+r.stats.Unchanged, r.stats.Inserted, r.stats.Replaced, r.stats.Unchanged, r.stats.Passages,
		r.walk.Files, r.took.Round(10*time.Millisecond), r.walk.Skipped, r.walk.Notices)
}

// ingestOptions are the reader's options and the passages one document
// may have (0: no limit).
type ingestOptions struct {
	corpus.Options
	MaxPassages int
	BatchDocs   int // documents per batch (0: the Ingester's default)
}

// defaultMaxPassages bounds the passages of one document read by
// `crucible ingest` (about 10 MB of text); the portal's uploads have their
// own bound (uploads.DefaultMaxPassages).
const defaultMaxPassages = 10000

// ingest reads paths into the app's store and index, printing problems to
// stderr as they come (above the progress bar, if any). A document with
// more passages than allowed is skipped with a problem, like a bad record.
func ingest(ctx context.Context, a *app, paths []string, o ingestOptions, stderr io.Writer) (ingestResult, error) {
	opts := o.Options
	start := time.Now()
	total, err := corpus.TotalBytes(paths)
	if err != nil {
		return ingestResult{}, err
	}
	bar := newBar(stderr, total, "ingesting", true)
	if bar != nil {
		opts.Progress = func(n int64) { bar.Add64(n) }
	}
	// A first load (an empty store and index) indexes its batches two at
	// a time, in any order (pipeline.Ingester.Bulk): nothing searches the
	// index while this process holds it, and no batch replaces what the
	// index holds.
	held, err := a.index.Count()
	if err != nil {
		return ingestResult{}, err
	}
	st, err := a.db.Stats(ctx)
	if err != nil {
		return ingestResult{}, err
	}
	in := &pipeline.Ingester{Store: a.db, Index: a.index, Segment: index.Segment, MaxPassages: o.MaxPassages, BatchDocs: o.BatchDocs, Overlap: true, Bulk: held == 0 && st.Documents == 0}
	tooLong := 0
	problem := func(p corpus.Problem) {
		if bar != nil {
			bar.Clear()
		}
		kind := "skipped"
		if !p.Skipped {
			kind = "note"
		}
		fmt.Fprintf(stderr, "%s: %s\n", kind, p.String())
	}
	// A document's source names the file as given, relative to the
	// working folder: no server path reaches the portal's pages.
	wd, _ := os.Getwd()
	sum, err := corpus.Walk(ctx, paths, opts, func(d pipeline.Document) error {
		d.Source = pipeline.RelativeSource(d.Source, wd)
		err := in.Add(ctx, d)
		var many *pipeline.TooManyPassagesError
		if errors.As(err, &many) {
			tooLong++
			problem(corpus.Problem{File: d.Source, Reason: many.Error(), Skipped: true})
			return nil
		}
		return err
	}, problem)
	sum.Skipped += tooLong
	sum.Documents -= tooLong
	if err == nil {
		err = in.Flush(ctx)
	}
	if bar != nil {
		bar.Finish()
	}
	res := ingestResult{walk: sum, stats: in.Stats(), took: time.Since(start)}
	if err != nil {
		return res, fmt.Errorf("ingest stopped after %d documents: %w", res.stats.Inserted+res.stats.Replaced, err)
	}
	return res, nil
}

func cmdReindex(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("reindex", stderr)
	var c commonFlags
	c.register(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := openApp(ctx, c)
	var unreadable *unreadableIndexError
	if errors.As(err, &unreadable) {
		fmt.Fprintf(stderr, "the index cannot be opened (%v): rebuilding it from the store\n", unreadable.err)
		a, err = openStore(ctx, c)
	}
	if err != nil {
		return err
	}
	defer a.Close()
	defer bulkGC()()
	st, err := a.db.Stats(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := newBar(stderr, int64(st.Passages), "indexing", false)
	var progress func(int)
	if bar != nil {
		progress = func(done int) { bar.Set(done) }
	}
	if err := a.rebuild(ctx, progress); err != nil {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	n, _ := a.index.Count()
	fmt.Fprintf(stdout, "reindexed %d passages of %d documents in %s (BM25 k1=%g b=%g)\n",
		n, st.Documents, time.Since(start).Round(10*time.Millisecond), a.opts.K1, a.opts.B)
	return nil
}
