package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

// benchFlags are the flags of `crucible bench index|search`.
type benchFlags struct {
	corpus   string
	queries  string
	scales   []int
	work     string
	k        int
	passes   int
	warmup   int
	docs     bool
	markdown bool
	peers    []string
	tools    peerTools
	// keepWork keeps each scale's folders (--work given); a temporary
	// work folder loses them as soon as the scale is measured.
	keepWork bool
	// batchDocs is the ingest's documents per batch (0: the Ingester's
	// default).
	batchDocs int
}

const benchUsage = "usage: crucible bench index|search [--corpus FILE] [--scale 1,10,30] [--queries FILE] [--peers lucene,xapian] [--work DIR] [--markdown]\n" +
	"       crucible bench serve [--clients 50] [--duration 30s] [--scale 1] [--with-report]\n" +
	"       crucible bench queries [--corpus FILE] [--base FILE] [--seed N] [--out FILE]\n" +
	"       crucible bench report [--n 3] [--latency 100ms]"

func cmdBench(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "report":
			return benchReport(ctx, args[1:], stdout, stderr)
		case "serve":
			return benchServe(ctx, args[1:], stdout, stderr)
		case "queries":
			return benchQueries(ctx, args[1:], stdout, stderr)
		}
	}
	if len(args) == 0 || (args[0] != "index" && args[0] != "search") {
		fmt.Fprintln(stderr, benchUsage)
		return fmt.Errorf("%w: bench needs a benchmark name: index, search, serve, queries or report", errUsage)
	}
	what := args[0]
	fs := newFlagSet("bench "+what, stderr)
	var bf benchFlags
	fs.StringVar(&bf.corpus, "corpus", "testdata/corpora/sotu.jsonl.gz", "corpus `file` to benchmark with")
	fs.StringVar(&bf.queries, "queries", "testdata/bench/queries.txt", "search benchmark queries, one per line (testdata/bench/queries-200.txt: the 200-query set)")
	scales := fs.String("scale", "1,10", "comma-separated corpus replication factors (10 = every passage ten times, with new ids)")
	fs.StringVar(&bf.work, "work", "", "scratch `folder`, kept afterwards (default: a temporary folder, each scale's files removed once measured)")
	fs.IntVar(&bf.k, "k", 10, "hits per search")
	fs.IntVar(&bf.passes, "passes", 5, "timed passes over the queries (after the warm-up)")
	fs.IntVar(&bf.warmup, "warmup", 1, "untimed passes over the queries first (the first one's hits are compared)")
	fs.BoolVar(&bf.docs, "docs", false, "search: rank documents (MaxP) instead of passages (not with --peers)")
	fs.BoolVar(&bf.markdown, "markdown", false, "print the table as Markdown")
	peers := fs.String("peers", "", "comma-separated peers to run side by side: lucene, xapian (see bench/README.md)")
	fs.StringVar(&bf.tools.dir, "peers-dir", "bench", "`folder` holding the peer programs (lucene/LuceneBench.java, xapian/xapian_bench.py)")
	fs.StringVar(&bf.tools.java, "java", "java", "java `command` for the Lucene peer (JDK 11 or later)")
	fs.StringVar(&bf.tools.jars, "lucene-jars", "/usr/share/java", "`folder` holding lucene-core-*.jar and lucene-analyzers-common-*.jar")
	fs.StringVar(&bf.tools.python, "python", "/usr/bin/python3", "python `command` with the xapian bindings, for the Xapian peer")
	fs.IntVar(&bf.batchDocs, "batch-docs", 0, "documents per ingest batch when building (default: crucible ingest's)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this `file`")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	var err error
	if bf.passes < 1 || bf.warmup < 1 {
		return fmt.Errorf("%w: --passes and --warmup need at least 1", errUsage)
	}
	if bf.scales, err = parseScales(*scales); err != nil {
		return err
	}
	if bf.peers, err = parsePeers(*peers); err != nil {
		return err
	}
	if len(bf.peers) > 0 && bf.docs {
		return fmt.Errorf("%w: --peers compares passage rankings; --docs is for Crucible and FTS5 alone", errUsage)
	}
	if err := bf.tools.check(ctx, bf.peers); err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if bf.work == "" {
		dir, err := os.MkdirTemp("", "crucible-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bf.work = dir
	} else {
		if err := os.MkdirAll(bf.work, 0o755); err != nil {
			return err
		}
		bf.keepWork = true
	}
	docs, err := loadBenchCorpus(ctx, bf.corpus)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "machine: %s/%s, %d CPUs, %s; corpus %s (%d documents); BM25 k1 %.2g, b %.2g\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), bf.corpus, len(docs),
		index.DefaultOptions().K1, index.DefaultOptions().B)
	if !fts5Available {
		fmt.Fprintln(stdout, "note: SQLite FTS5 is not compiled in (build with -tags sqlite_fts5); its rows are skipped")
	}
	if len(bf.peers) > 0 {
		if err := bf.tools.prepare(ctx, bf.peers, bf.work); err != nil {
			return err
		}
		fmt.Fprintln(stdout, bf.tools.describe(bf.peers))
	}
	if what == "index" {
		return benchIndex(ctx, bf, docs, stdout)
	}
	return benchSearch(ctx, bf, docs, stdout)
}

func parseScales(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: --scale %q: want positive integers like 1,10", errUsage, s)
		}
		out = append(out, n)
	}
	return out, nil
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
// document and passage ids. The copy number leads the id ("3~sotu-1790-…"),
// so that the store's id order, which a rebuild reads in, holds every
// document of a copy before the next copy's, as a collection of distinct
// documents would: with the number after the id, a rebuild's batches held
// one document's copies side by side, whose few distinct terms made its
// segments cheaper to build than any real collection's.
func replicate(d pipeline.IngestDocument, r int) pipeline.IngestDocument {
	if r == 0 {
		return d
	}
	id := strconv.Itoa(r) + "~" + d.Doc.ID
	out := pipeline.IngestDocument{Doc: d.Doc}
	out.Doc.ID = id
	out.Passages = make([]pipeline.Passage, len(d.Passages))
	for i, p := range d.Passages {
		p.DocID = id
		out.Passages[i] = p
	}
	return out
}

// resetPeakRSS returns what memory it can to the OS and restarts the
// kernel's peak-RSS count (VmHWM) from the current RSS, so the next
// peakRSSBytes covers only what follows. It says whether the reset
// worked (Linux 4.0 and later); where it does not, the peak is the
// process's since it started.
func resetPeakRSS() bool {
	runtime.GC()
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSBytes is the process's peak resident set since it started or
// since the last resetPeakRSS.
func peakRSSBytes() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						return kb * 1024
					}
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// cpuTime is the CPU time (user and system) this process has used, over
// all its threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitIdle waits, up to limit, until the process has used less than 5% of
// a core over a quarter of a second, so background work (Bleve merging
// segments after a build) does not count as search CPU.
func waitIdle(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		c0, t0 := cpuTime(), time.Now()
		time.Sleep(250 * time.Millisecond)
		if float64(cpuTime()-c0) < 0.05*float64(time.Since(t0)) {
			return
		}
	}
}

// dirSize is the total size of the regular files under path (a file or a
// folder); 0 when it does not exist.
func dirSize(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// buildCrucible ingests scale copies of docs into a fresh data folder and
// returns the opened app, the passages and the time it took.
func buildCrucible(ctx context.Context, dir string, docs []pipeline.IngestDocument, scale, batchDocs int) (*app, int, time.Duration, error) {
	os.RemoveAll(dir)
	a, err := openApp(ctx, commonFlags{data: dir, k1: index.DefaultOptions().K1, b: index.DefaultOptions().B})
	if err != nil {
		return nil, 0, 0, err
	}
	start := time.Now()
	// A first load, as `crucible ingest` makes it into an empty index.
	in := &pipeline.Ingester{Store: a.db, Index: a.index, Segment: index.Segment, Overlap: true, Bulk: true, BatchDocs: batchDocs}
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

// crucibleBuild builds Crucible's data folder for a scale and closes it
// (which saves the index), measuring the build as the row of an engine.
func crucibleBuild(ctx context.Context, dir string, docs []pipeline.IngestDocument, scale, batchDocs int) (benchRow, error) {
	row := benchRow{Scale: scale, Engine: engineCrucible}
	defer bulkGC()() // as crucible ingest runs
	row.PeakExact = resetPeakRSS()
	c0, t0 := cpuTime(), time.Now()
	var (
		a   *app
		n   int
		err error
	)
	// Labelled so that a --cpuprofile tells the phases apart (goroutines
	// started inside inherit the label): pprof -tagfocus=bench=ingest.
	pprof.Do(ctx, pprof.Labels("bench", "ingest"), func(ctx context.Context) {
		a, n, _, err = buildCrucible(ctx, dir, docs, scale, batchDocs)
	})
	if err != nil {
		return row, err
	}
	if err := a.Close(); err != nil {
		return row, err
	}
	row.Passages, row.Build, row.BuildCPU = n, time.Since(t0), cpuTime()-c0
	row.PeakRSS = peakRSSBytes()
	row.DiskBytes = dirSize(indexPath(dir))
	return row, nil
}

// crucibleReindex rebuilds the index of a data folder crucibleBuild made,
// from its store, as `crucible reindex` does: the index build alone, the
// work the peers' builds do (they index passages read from a file).
func crucibleReindex(ctx context.Context, dir string, scale, passages int) (benchRow, error) {
	row := benchRow{Scale: scale, Engine: engineCrucibleIndex, Passages: passages}
	defer bulkGC()() // as crucible reindex runs
	a, err := openApp(ctx, commonFlags{data: dir, k1: index.DefaultOptions().K1, b: index.DefaultOptions().B})
	if err != nil {
		return row, err
	}
	row.PeakExact = resetPeakRSS()
	c0, t0 := cpuTime(), time.Now()
	pprof.Do(ctx, pprof.Labels("bench", "reindex"), func(ctx context.Context) {
		err = a.rebuild(ctx, nil)
	})
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return row, err
	}
	row.Build, row.BuildCPU = time.Since(t0), cpuTime()-c0
	row.PeakRSS = peakRSSBytes()
	row.DiskBytes = dirSize(indexPath(dir))
	return row, nil
}

// fts5Build loads the FTS5 table for a scale, measured like crucibleBuild.
func fts5Build(ctx context.Context, path string, docs []pipeline.IngestDocument, scale, passages int) (benchRow, *sql.DB, error) {
	row := benchRow{Scale: scale, Engine: engineFTS5, Passages: passages}
	row.PeakExact = resetPeakRSS()
	c0 := cpuTime()
	db, took, err := buildFTS5(ctx, path, docs, scale)
	if err != nil {
		return row, nil, err
	}
	row.Build, row.BuildCPU = took, cpuTime()-c0
	row.PeakRSS = peakRSSBytes()
	row.DiskBytes = dirSize(path) + dirSize(path+"-wal")
	return row, db, nil
}

func benchIndex(ctx context.Context, bf benchFlags, docs []pipeline.IngestDocument, stdout io.Writer) error {
	fmt.Fprintln(stdout, "build = every passage read, analysed, indexed and saved (crucible: the full ingest, store included, until the index is closed; crucible index: the index alone rebuilt from the store, as crucible reindex does; FTS5: one transaction); peak RSS of the process during the build")
	var rows []benchRow
	for _, scale := range bf.scales {
		dir := filepath.Join(bf.work, fmt.Sprintf("crucible-%d", scale))
		row, err := crucibleBuild(ctx, dir, docs, scale, bf.batchDocs)
		if err != nil {
			return err
		}
		irow, err := crucibleReindex(ctx, dir, scale, row.Passages)
		if err != nil {
			return err
		}
		rows = append(rows, row, irow)
		if fts5Available {
			path := filepath.Join(bf.work, fmt.Sprintf("fts5-%d.db", scale))
			frow, db, err := fts5Build(ctx, path, docs, scale, row.Passages)
			if err != nil {
				return err
			}
			db.Close()
			rows = append(rows, frow)
			bf.discard(path, path+"-wal", path+"-shm")
		}
		bf.discard(dir)
		prows, err := bf.runPeers(ctx, docs, scale, nil)
		if err != nil {
			return err
		}
		rows = append(rows, prows...)
	}
	return writeTable(stdout, indexTable(rows), bf.markdown)
}

// discard removes a scale's files once measured, unless --work was given.
func (bf benchFlags) discard(paths ...string) {
	if bf.keepWork {
		return
	}
	for _, p := range paths {
		os.RemoveAll(p)
	}
}

// benchQuery is one query of the search benchmark; IDs number the queries
// in file order (q001, q002, ...).
type benchQuery struct {
	ID, Text string
}

func readQueries(path string) ([]benchQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []benchQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" && !strings.HasPrefix(q, "#") {
			qs = append(qs, benchQuery{ID: fmt.Sprintf("q%03d", len(qs)+1), Text: q})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("bench: %s holds no queries", path)
	}
	return qs, nil
}

// timing is what the timed passes of a search benchmark measured.
type timing struct {
	P50, P99 time.Duration
	// CPU is the process's CPU time over the timed passes divided by the
	// number of timed queries.
	CPU time.Duration
	// QPS is timed queries per second of wall clock, one at a time.
	QPS float64
}

// measure runs fn for every query warmup times untimed, keeping the ids
// the first pass returns, and then passes times, timing each run and the
// process's CPU time over all of them.
func measure(queries []benchQuery, warmup, passes int, fn func(q string) ([]string, error)) (timing, [][]string, error) {
	hits := make([][]string, len(queries))
	for w := 0; w < max(1, warmup); w++ {
		for i, q := range queries {
			ids, err := fn(q.Text)
			if err != nil {
				return timing{}, nil, fmt.Errorf("query %q: %w", q.Text, err)
			}
			if w == 0 {
				hits[i] = ids
			}
		}
	}
	if passes < 1 {
		return timing{}, hits, nil
	}
	ds := make([]time.Duration, 0, passes*len(queries))
	c0, w0 := cpuTime(), time.Now()
	for p := 0; p < passes; p++ {
		for _, q := range queries {
			start := time.Now()
			if _, err := fn(q.Text); err != nil {
				return timing{}, nil, fmt.Errorf("query %q: %w", q.Text, err)
			}
			ds = append(ds, time.Since(start))
		}
	}
	wall, cpu := time.Since(w0), cpuTime()-c0
	slices.Sort(ds)
	return timing{
		P50: percentile(ds, 0.50), P99: percentile(ds, 0.99),
		CPU: cpu / time.Duration(len(ds)),
		QPS: float64(len(ds)) / wall.Seconds(),
	}, hits, nil
}

// percentile is the nearest-rank percentile of sorted durations (the rule
// the peer programs use too).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func benchSearch(ctx context.Context, bf benchFlags, docs []pipeline.IngestDocument, stdout io.Writer) error {
	queries, err := readQueries(bf.queries)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d queries (%s) × %d timed passes after %d warm-up pass(es), top %d %s, one at a time\n",
		len(queries), bf.queries, bf.passes, bf.warmup, bf.k, unit(bf.docs))
	fmt.Fprintln(stdout, "crucible rank = Index.Top (BM25 top-k ranking and ids, matches counted no further than the ranking needs, as the peers count); crucible page = Searcher.Search as the search page calls it (ranking, exact total, text, title, highlighted fragments); "+
		"fts5 = bm25() ORDER BY rank over an OR of the words Crucible keeps, with text; lucene, xapian = top-k ids (bench/README.md)")
	var rows []benchRow
	for _, scale := range bf.scales {
		srows, err := crucibleSearch(ctx, bf, docs, scale, queries)
		if err != nil {
			return err
		}
		rows = append(rows, srows...)
		prows, err := bf.runPeers(ctx, docs, scale, queries)
		if err != nil {
			return err
		}
		rows = append(rows, prows...)
	}
	return writeTable(stdout, searchTable(rows, bf.k), bf.markdown)
}

// crucibleSearch measures Crucible's ranking, its full search and FTS5 at
// one scale.
func crucibleSearch(ctx context.Context, bf benchFlags, docs []pipeline.IngestDocument, scale int, queries []benchQuery) ([]benchRow, error) {
	dir := filepath.Join(bf.work, fmt.Sprintf("crucible-%d", scale))
	build, err := crucibleBuild(ctx, dir, docs, scale, bf.batchDocs)
	if err != nil {
		return nil, err
	}
	a, err := openApp(ctx, commonFlags{data: dir, k1: index.DefaultOptions().K1, b: index.DefaultOptions().B})
	if err != nil {
		return nil, err
	}
	closeApp := func() error {
		if a == nil {
			return nil
		}
		err := a.Close()
		a = nil
		return err
	}
	defer closeApp()
	waitIdle(30 * time.Second)
	rank := build
	rank.Engine = engineCrucibleRank
	rank.HasSearch = true
	rank.Timing, rank.Hits, err = measure(queries, bf.warmup, bf.passes, func(q string) ([]string, error) {
		rk, err := a.index.Top(ctx, q, bf.docs, bf.k)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(rk.Hits))
		for i, h := range rk.Hits {
			ids[i] = h.PassageID
		}
		return ids, nil
	})
	if err != nil {
		return nil, err
	}
	s := a.searcher()
	page := build
	page.Engine = engineCruciblePage
	page.HasSearch = true
	page.Timing, page.Hits, err = measure(queries, bf.warmup, bf.passes, func(q string) ([]string, error) {
		// As the search page asks: highlighted fragments and the exact
		// number of matches it shows.
		res, err := s.Search(ctx, pipeline.SearchRequest{Query: q, K: bf.k, Docs: bf.docs, Highlight: true, Count: true})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ids[i] = h.PassageID
		}
		return ids, nil
	})
	if err != nil {
		return nil, err
	}
	rank.PeakRSS = peakRSSBytes()
	page.PeakRSS = rank.PeakRSS
	rows := []benchRow{rank, page}
	if fts5Available {
		// FTS5 gets the words Crucible's analyser keeps (no stop words),
		// as typed: its own porter tokenizer stems them.
		words := make([][]string, len(queries))
		byText := make(map[string][]string, len(queries))
		for i, q := range queries {
			words[i] = fts5Words(a.index, q.Text)
			byText[q.Text] = words[i]
		}
		path := filepath.Join(bf.work, fmt.Sprintf("fts5-%d.db", scale))
		frow, db, err := fts5Build(ctx, path, docs, scale, build.Passages)
		if err != nil {
			return nil, err
		}
		frow.HasSearch = true
		frow.Timing, frow.Hits, err = measure(queries, bf.warmup, bf.passes, func(q string) ([]string, error) {
			return searchFTS5(ctx, db, byText[q], bf.k)
		})
		db.Close()
		bf.discard(path, path+"-wal", path+"-shm")
		if err != nil {
			return nil, err
		}
		frow.PeakRSS = peakRSSBytes()
		rows = append(rows, frow)
	}
	if err := closeApp(); err != nil {
		return nil, err
	}
	bf.discard(dir)
	return rows, nil
}

// fts5Words are the words of q that Crucible's analyser keeps, as typed
// (possessive 's removed), for an FTS5 query: stop words, which Crucible
// drops, are left out so FTS5 matches and scores the same words.
func fts5Words(ix *index.Index, q string) []string {
	var out []string
	for _, t := range ix.Analyze(q) {
		w := q[t.Start:t.End]
		for _, s := range []string{"'s", "’s", "'S", "’S"} {
			w = strings.TrimSuffix(w, s)
		}
		w = strings.Trim(w, "'’")
		if w != "" {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// The search benchmark's query set (testdata/bench/queries-200.txt):
// the hand-written queries, then document titles, common phrases and
// random phrases drawn from the corpus with a fixed seed.
const (
	querySetSeed    = 14
	querySetTitles  = 20
	querySetCommon  = 10
	querySetRandom  = 120
	querySetMinLen  = 2
	querySetMaxLen  = 4
	querySetDefault = "testdata/bench/queries-200.txt"
)

// querySet is the generated query set, by kind.
type querySet struct {
	Base, Titles, Common, Random []string
}

func (s querySet) all() []string {
	return slices.Concat(s.Base, s.Titles, s.Common, s.Random)
}

// benchQueries writes the query set: `crucible bench queries --out
// testdata/bench/queries-200.txt` from the repository root made the
// committed file.
func benchQueries(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench queries", stderr)
	corpusPath := fs.String("corpus", "testdata/corpora/sotu.jsonl.gz", "corpus `file` the titles and phrases come from")
	base := fs.String("base", "testdata/bench/queries.txt", "hand-written queries that open the set, one per line")
	seed := fs.Uint64("seed", querySetSeed, "random seed of the titles and phrases")
	out := fs.String("out", "", "write the set to this `file` (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	docs, err := readCorpusDocs(ctx, *corpusPath)
	if err != nil {
		return err
	}
	bq, err := readQueries(*base)
	if err != nil {
		return err
	}
	baseTexts := make([]string, len(bq))
	for i, q := range bq {
		baseTexts[i] = q.Text
	}
	set := generateQuerySet(docs, baseTexts, *seed)
	text := formatQuerySet(set, *seed)
	if *out == "" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d queries to %s\n", len(set.all()), *out)
	return nil
}

// readCorpusDocs reads a corpus's documents (unsegmented).
func readCorpusDocs(ctx context.Context, path string) ([]pipeline.Document, error) {
	var docs []pipeline.Document
	_, err := corpus.Walk(ctx, []string{path}, corpus.Options{}, func(d pipeline.Document) error {
		docs = append(docs, d)
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

func formatQuerySet(s querySet, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The search benchmark's query set (docs/benchmarks.md, \"Side by side with Lucene and Xapian\"),\n")
	fmt.Fprintf(&b, "# made from the repository root by: crucible bench queries --seed %d --out %s\n", seed, querySetDefault)
	fmt.Fprintf(&b, "# (corpus testdata/corpora/sotu.jsonl.gz). Do not edit by hand: TestQuerySetFile regenerates and compares it.\n")
	section := func(title string, qs []string) {
		fmt.Fprintf(&b, "# %d %s\n", len(qs), title)
		for _, q := range qs {
			b.WriteString(q)
			b.WriteByte('\n')
		}
	}
	section("hand-written queries (testdata/bench/queries.txt)", s.Base)
	section("document titles", s.Titles)
	section("common phrases: the most frequent two-word phrases that hold a word other than a stop word", s.Common)
	section(fmt.Sprintf("random %d–%d-word phrases of the corpus (seed %d)", querySetMinLen, querySetMaxLen, seed), s.Random)
	return b.String()
}

// corpusChunks splits text into runs of words not broken by punctuation
// (a phrase is drawn from one run): words are letters and digits, with
// apostrophes inside them; hyphens and other symbols separate words;
// sentence and clause punctuation, brackets and quotes end a run.
func corpusChunks(text string) [][]string {
	var chunks [][]string
	var cur []string
	start := -1 // of the word being read; -1 between words
	endWord := func(end int) {
		if start >= 0 {
			if w := strings.Trim(text[start:end], "'’"); w != "" {
				cur = append(cur, w)
			}
		}
		start = -1
	}
	endChunk := func(end int) {
		endWord(end)
		if len(cur) > 0 {
			chunks = append(chunks, cur)
		}
		cur = nil
	}
	for i, r := range text {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '\''),
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '’'):
			if start < 0 {
				start = i
			}
		case strings.ContainsRune(".,;:!?()[]{}\"“”—–", r):
			endChunk(i)
		default:
			endWord(i)
		}
	}
	endChunk(len(text))
	return chunks
}

// isStopWord says whether Crucible's analyser drops w (its possessive
// removed and lower-cased, as the analyser does before its stop list).
func isStopWord(stop map[string]bool, w string) bool {
	w = strings.ToLower(w)
	for _, s := range []string{"'s", "’s"} {
		w = strings.TrimSuffix(w, s)
	}
	return stop[w]
}

// generateQuerySet draws the query set from the documents: querySetTitles
// titles of distinct documents, the querySetCommon most frequent
// two-word phrases that are not only stop words, and querySetRandom
// phrases of 2 to 4 consecutive words (with at least one word that is
// not a stop word) from random places of random documents, none twice.
// The same documents and seed give the same set.
func generateQuerySet(docs []pipeline.Document, base []string, seed uint64) querySet {
	stop := map[string]bool{}
	for _, w := range stopWordList() {
		stop[w] = true
	}
	set := querySet{Base: slices.Clone(base)}
	seen := map[string]bool{}
	for _, q := range base {
		seen[strings.ToLower(q)] = true
	}
	add := func(list *[]string, q string) bool {
		k := strings.ToLower(q)
		if seen[k] {
			return false
		}
		seen[k] = true
		*list = append(*list, q)
		return true
	}
	rng := rand.New(rand.NewPCG(seed, 0x6372756369626c65))

	for _, i := range rng.Perm(len(docs)) {
		if len(set.Titles) == querySetTitles {
			break
		}
		if t := strings.TrimSpace(docs[i].Title); t != "" {
			add(&set.Titles, t)
		}
	}

	chunks := make([][][]string, len(docs))
	bigrams := map[string]int{}
	var lower []string
	var stopped []bool
	for i, d := range docs {
		chunks[i] = corpusChunks(d.Text)
		for _, c := range chunks[i] {
			lower, stopped = lower[:0], stopped[:0]
			for _, w := range c {
				lower = append(lower, strings.ToLower(w))
				stopped = append(stopped, isStopWord(stop, w))
			}
			for j := 0; j+1 < len(c); j++ {
				if !stopped[j] || !stopped[j+1] {
					bigrams[lower[j]+" "+lower[j+1]]++
				}
			}
		}
	}
	common := make([]string, 0, len(bigrams))
	for k := range bigrams {
		common = append(common, k)
	}
	sort.Slice(common, func(i, j int) bool {
		if bigrams[common[i]] != bigrams[common[j]] {
			return bigrams[common[i]] > bigrams[common[j]]
		}
		return common[i] < common[j]
	})
	for _, q := range common {
		if len(set.Common) == querySetCommon {
			break
		}
		add(&set.Common, q)
	}

	// Random phrases: a document, then a run of it weighted by its words
	// (a uniform word position), then a start within the run. A corpus too
	// small for that many distinct phrases gives fewer.
	for tries := 0; len(set.Random) < querySetRandom && tries < 100*querySetRandom; tries++ {
		cs := chunks[rng.IntN(len(docs))]
		total := 0
		for _, c := range cs {
			total += len(c)
		}
		if total == 0 {
			continue
		}
		pos := rng.IntN(total)
		var c []string
		for _, cc := range cs {
			if pos < len(cc) {
				c = cc
				break
			}
			pos -= len(cc)
		}
		n := querySetMinLen + rng.IntN(querySetMaxLen-querySetMinLen+1)
		if len(c) < n {
			continue
		}
		start := rng.IntN(len(c) - n + 1)
		words := c[start : start+n]
		content := false
		for _, w := range words {
			if !isStopWord(stop, w) {
				content = true
			}
		}
		if content {
			add(&set.Random, strings.Join(words, " "))
		}
	}
	return set
}
