package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

// benchFlags are the flags of `crucible bench`.
type benchFlags struct {
	corpus  string
	queries string
	scales  []int
	work    string
	k       int
	passes  int
	docs    bool
}

func cmdBench(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "report" {
		return benchReport(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "index" && args[0] != "search") {
		fmt.Fprintln(stderr, "usage: crucible bench index|search|report [--corpus FILE] [--scale 1,10] [--queries FILE] [--work DIR]")
		return fmt.Errorf("%w: bench needs a benchmark name: index, search or report", errUsage)
	}
	what := args[0]
	fs := newFlagSet("bench "+what, stderr)
	var bf benchFlags
	fs.StringVar(&bf.corpus, "corpus", "testdata/corpora/sotu.jsonl.gz", "corpus `file` to benchmark with")
	fs.StringVar(&bf.queries, "queries", "testdata/bench/queries.txt", "search benchmark queries, one per line")
	scales := fs.String("scale", "1,10", "comma-separated corpus replication factors (10 = every passage ten times, with new ids)")
	fs.StringVar(&bf.work, "work", "", "scratch `folder` (default: a temporary folder, removed afterwards)")
	fs.IntVar(&bf.k, "k", 10, "hits per search")
	fs.IntVar(&bf.passes, "passes", 5, "times each query is run (after one warm-up pass)")
	fs.BoolVar(&bf.docs, "docs", false, "search: rank documents (MaxP) instead of passages")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this `file`")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for _, s := range strings.Split(*scales, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("%w: --scale %q: want positive integers like 1,10", errUsage, *scales)
		}
		bf.scales = append(bf.scales, n)
	}
	if bf.work == "" {
		dir, err := os.MkdirTemp("", "crucible-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bf.work = dir
	}
	docs, err := loadBenchCorpus(ctx, bf.corpus)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "machine: %s/%s, %d CPUs, %s; corpus %s (%d documents)\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), bf.corpus, len(docs))
	if !fts5Available {
		fmt.Fprintln(stdout, "note: SQLite FTS5 is not compiled in (build with -tags sqlite_fts5); its columns are skipped")
	}
	if what == "index" {
		return benchIndex(ctx, bf, docs, stdout)
	}
	return benchSearch(ctx, bf, docs, stdout)
}

// loadBenchCorpus reads and segments the corpus once.
func loadBenchCorpus(ctx context.Context, path string) ([]pipeline.IngestDocument, error) {
	var docs []pipeline.IngestDocument
	_, err := corpus.Walk(ctx, []string{path}, corpus.Options{}, func(d pipeline.Document) error {
		spans := index.Segment(d.Text, pipeline.MaxPassageChars)
		ps := make([]pipeline.Passage, len(spans))
		for i, s := range spans {
			ps[i] = pipeline.Passage{DocID: d.ID, Ordinal: i, Start: s.Start, End: s.End, Text: d.Text[s.Start:s.End]}
		}
		docs = append(docs, pipeline.IngestDocument{Doc: d, Passages: ps})
		return nil
	}, func(corpus.Problem) {})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("bench: %s holds no documents", path)
	}
	return docs, nil
}

// replicate returns copy r of a document (r = 0 is the original) with new
// document and passage ids.
func replicate(d pipeline.IngestDocument, r int) pipeline.IngestDocument {
	if r == 0 {
		return d
	}
	id := d.Doc.ID + "~" + strconv.Itoa(r)
	out := pipeline.IngestDocument{Doc: d.Doc}
	out.Doc.ID = id
	out.Passages = make([]pipeline.Passage, len(d.Passages))
	for i, p := range d.Passages {
		p.DocID = id
		out.Passages[i] = p
	}
	return out
}

// peakRSS is the process's peak resident set size so far.
func peakRSS() string {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "?"
	}
	return fmt.Sprintf("%d MiB", ru.Maxrss/1024)
}

// buildCrucible ingests scale copies of docs into a fresh data folder and
// returns the opened app and the time it took.
func buildCrucible(ctx context.Context, dir string, docs []pipeline.IngestDocument, scale int) (*app, int, time.Duration, error) {
	os.RemoveAll(dir)
	a, err := openApp(ctx, commonFlags{data: dir, k1: index.DefaultOptions().K1, b: index.DefaultOptions().B})
	if err != nil {
		return nil, 0, 0, err
	}
	start := time.Now()
	in := &pipeline.Ingester{Store: a.db, Index: a.index, Segment: index.Segment}
	n := 0
	for r := 0; r < scale; r++ {
		for _, d := range docs {
			d = replicate(d, r)
			n += len(d.Passages)
			// Re-segmenting is part of ingest cost, as in `crucible ingest`.
			if err := in.Add(ctx, d.Doc); err != nil {
				a.Close()
				return nil, 0, 0, err
			}
		}
	}
	if err := in.Flush(ctx); err != nil {
		a.Close()
		return nil, 0, 0, err
	}
	return a, n, time.Since(start), nil
}

func benchIndex(ctx context.Context, bf benchFlags, docs []pipeline.IngestDocument, stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scale\tpassages\tcrucible s\tcrucible passages/s\tfts5 s\tfts5 passages/s\tcrucible/fts5 time\tpeak RSS\t")
	for _, scale := range bf.scales {
		a, n, took, err := buildCrucible(ctx, filepath.Join(bf.work, fmt.Sprintf("crucible-%d", scale)), docs, scale)
		if err != nil {
			return err
		}
		a.Close()
		ftsCol := "-\t-\t-"
		if fts5Available {
			db, ftook, err := buildFTS5(ctx, filepath.Join(bf.work, fmt.Sprintf("fts5-%d.db", scale)), docs, scale)
			if err != nil {
				return err
			}
			db.Close()
			ftsCol = fmt.Sprintf("%.2f\t%.0f\t%.2f", ftook.Seconds(), float64(n)/ftook.Seconds(), took.Seconds()/ftook.Seconds())
		}
		fmt.Fprintf(tw, "%dx\t%d\t%.2f\t%.0f\t%s\t%s\t\n", scale, n, took.Seconds(), float64(n)/took.Seconds(), ftsCol, peakRSS())
	}
	return tw.Flush()
}

func readQueries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" && !strings.HasPrefix(q, "#") {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("bench: %s holds no queries", path)
	}
	return qs, sc.Err()
}

// latencies runs fn for every query, once to warm up and then passes
// times, and returns the p50 and p99 of the timed runs.
func latencies(queries []string, passes int, fn func(q string) error) (p50, p99 time.Duration, err error) {
	for _, q := range queries {
		if err := fn(q); err != nil {
			return 0, 0, fmt.Errorf("query %q: %w", q, err)
		}
	}
	var ds []time.Duration
	for p := 0; p < passes; p++ {
		for _, q := range queries {
			start := time.Now()
			if err := fn(q); err != nil {
				return 0, 0, fmt.Errorf("query %q: %w", q, err)
			}
			ds = append(ds, time.Since(start))
		}
	}
	slices.Sort(ds)
	pct := func(p float64) time.Duration {
		i := int(p*float64(len(ds))+0.5) - 1
		return ds[max(0, min(i, len(ds)-1))]
	}
	return pct(0.50), pct(0.99), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func benchSearch(ctx context.Context, bf benchFlags, docs []pipeline.IngestDocument, stdout io.Writer) error {
	queries, err := readQueries(bf.queries)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d queries × %d passes, top %d %s; crucible = full search (BM25 + text + highlighted fragments), fts5 = bm25() ORDER BY rank with text (passages)\n", len(queries), bf.passes, bf.k, unit(bf.docs))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scale\tpassages\tcrucible p50 ms\tcrucible p99 ms\tfts5 p50 ms\tfts5 p99 ms\tcrucible/fts5 p50\tcrucible/fts5 p99\tpeak RSS\t")
	for _, scale := range bf.scales {
		a, n, _, err := buildCrucible(ctx, filepath.Join(bf.work, fmt.Sprintf("crucible-%d", scale)), docs, scale)
		if err != nil {
			return err
		}
		s := a.searcher()
		c50, c99, err := latencies(queries, bf.passes, func(q string) error {
			_, err := s.Search(ctx, pipeline.SearchRequest{Query: q, K: bf.k, Docs: bf.docs, Highlight: true})
			return err
		})
		a.Close()
		if err != nil {
			return err
		}
		ftsCol := "-\t-\t-\t-"
		if fts5Available {
			db, _, err := buildFTS5(ctx, filepath.Join(bf.work, fmt.Sprintf("fts5-%d.db", scale)), docs, scale)
			if err != nil {
				return err
			}
			f50, f99, err := latencies(queries, bf.passes, func(q string) error { return searchFTS5(ctx, db, q, bf.k) })
			db.Close()
			if err != nil {
				return err
			}
			ftsCol = fmt.Sprintf("%s\t%s\t%.2f\t%.2f", ms(f50), ms(f99), float64(c50)/float64(f50), float64(c99)/float64(f99))
		}
		fmt.Fprintf(tw, "%dx\t%d\t%s\t%s\t%s\t%s\t\n", scale, n, ms(c50), ms(c99), ftsCol, peakRSS())
	}
	return tw.Flush()
}
