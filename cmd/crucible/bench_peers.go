package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
)

// Side-by-side benchmarks: `crucible bench index|search --peers
// lucene,xapian` exports the passages (title + text, as Crucible indexes
// them), the queries and Crucible's stop words, runs the peer programs of
// bench/ as subprocesses (each builds its own index, times its own
// queries and writes JSON), and prints one table with every engine and
// the ratios. bench/README.md describes the programs and their output.

// Engine names as the tables print them.
const (
	engineCrucible = "crucible"
	// engineCrucibleIndex is the index built alone from the store
	// (crucible reindex): the work the peers' builds do.
	engineCrucibleIndex = "crucible index"
	engineCrucibleRank  = "crucible rank"
	engineCruciblePage  = "crucible page"
	engineFTS5          = "fts5"
	peerLucene          = "lucene"
	peerXapian          = "xapian"
)

// benchRow is one engine at one scale.
type benchRow struct {
	Scale    int
	Engine   string
	Version  string
	Passages int
	// Build is the wall clock of the build, BuildCPU the CPU time the
	// process used meanwhile (all threads).
	Build, BuildCPU time.Duration
	// PeakRSS is the peak resident set of the process while it built
	// (index benchmark) or built and searched (search benchmark). For
	// Crucible and FTS5, which run inside this process, PeakExact says
	// whether the count could be restarted before the build (otherwise it
	// is the process's peak so far).
	PeakRSS   int64
	PeakExact bool
	// DiskBytes is the size of the index on disk.
	DiskBytes int64
	HasSearch bool
	Timing    timing
	// Hits are the top-k passage ids of each query, in query order.
	Hits [][]string
}

func (r benchRow) label() string {
	if r.Version != "" {
		return r.Engine + " " + r.Version
	}
	return r.Engine
}

func parsePeers(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		switch p {
		case "":
		case peerLucene, peerXapian:
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		default:
			return nil, fmt.Errorf("%w: --peers %q: unknown peer %q; want lucene, xapian or both", errUsage, s, p)
		}
	}
	return out, nil
}

// peerTools locates the peer programs and what runs them.
type peerTools struct {
	dir    string // the bench/ folder
	java   string
	jars   string // folder of the Lucene jars
	python string

	classpath string // the Lucene jars, resolved by check
	classes   string // compiled LuceneBench classes; "" runs the source file
	xapian    string // the Xapian version python reports
}

func (t *peerTools) luceneSource() string { return filepath.Join(t.dir, "lucene", "LuceneBench.java") }
func (t *peerTools) xapianScript() string { return filepath.Join(t.dir, "xapian", "xapian_bench.py") }

// luceneJars finds lucene-core and lucene-analyzers-common in dir (the
// highest version of each when there are several).
func luceneJars(dir string) ([]string, error) {
	var jars []string
	for _, name := range []string{"lucene-core", "lucene-analyzers-common"} {
		m, _ := filepath.Glob(filepath.Join(dir, name+"-*.jar"))
		if len(m) == 0 {
			if _, err := os.Stat(filepath.Join(dir, name+".jar")); err == nil {
				m = []string{filepath.Join(dir, name+".jar")}
			}
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("no %s jar in %s", name, dir)
		}
		sort.Strings(m)
		jars = append(jars, m[len(m)-1])
	}
	return jars, nil
}

// check makes sure every peer asked for can run, saying what is missing.
func (t *peerTools) check(ctx context.Context, peers []string) error {
	for _, p := range peers {
		switch p {
		case peerLucene:
			if _, err := os.Stat(t.luceneSource()); err != nil {
				return fmt.Errorf("peer lucene: %s not found: run from the repository root or pass --peers-dir", t.luceneSource())
			}
			if _, err := exec.LookPath(t.java); err != nil {
				return fmt.Errorf("peer lucene: %q not found: install a JDK 11 or later (Debian: apt-get install default-jdk-headless) or pass --java", t.java)
			}
			jars, err := luceneJars(t.jars)
			if err != nil {
				return fmt.Errorf("peer lucene: %v: install Lucene 8 (Debian: apt-get install liblucene8-java) or pass --lucene-jars", err)
			}
			t.classpath = strings.Join(jars, string(os.PathListSeparator))
		case peerXapian:
			if _, err := os.Stat(t.xapianScript()); err != nil {
				return fmt.Errorf("peer xapian: %s not found: run from the repository root or pass --peers-dir", t.xapianScript())
			}
			if _, err := exec.LookPath(t.python); err != nil {
				return fmt.Errorf("peer xapian: %q not found: pass --python with a Python 3 that has the xapian bindings", t.python)
			}
			out, err := exec.CommandContext(ctx, t.python, "-c", "import xapian; print(xapian.version_string())").CombinedOutput()
			if err != nil {
				return fmt.Errorf("peer xapian: %s cannot import xapian (Debian: apt-get install python3-xapian, for /usr/bin/python3): %s",
					t.python, lastLine(out, err))
			}
			t.xapian = strings.TrimSpace(string(out))
		}
	}
	return nil
}

// peersAvailable says whether the peers can run here, and if not why (for
// tests, which skip).
func peersAvailable(ctx context.Context, dir string, peers ...string) error {
	t := peerTools{dir: dir, java: "java", jars: "/usr/share/java", python: "/usr/bin/python3"}
	return t.check(ctx, peers)
}

// prepare compiles LuceneBench once into the work folder when javac is
// there, so the JVM that runs it does not compile it (which would count in
// its peak memory); without javac the source file is run directly.
func (t *peerTools) prepare(ctx context.Context, peers []string, work string) error {
	if !slices.Contains(peers, peerLucene) {
		return nil
	}
	javac := "javac"
	if d := filepath.Dir(t.java); d != "." {
		javac = filepath.Join(d, "javac")
	}
	if _, err := exec.LookPath(javac); err != nil {
		return nil
	}
	classes := filepath.Join(work, "lucene-classes")
	if err := os.MkdirAll(classes, 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, javac, "-cp", t.classpath, "-d", classes, t.luceneSource()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("peer lucene: compile %s: %s", t.luceneSource(), lastLine(out, err))
	}
	t.classes = classes
	return nil
}

func (t *peerTools) describe(peers []string) string {
	var parts []string
	for _, p := range peers {
		switch p {
		case peerLucene:
			how := "source file run by java"
			if t.classes != "" {
				how = "compiled with javac"
			}
			parts = append(parts, fmt.Sprintf("lucene (%s, %s, default JVM settings)", t.classpath, how))
		case peerXapian:
			parts = append(parts, fmt.Sprintf("xapian %s (%s)", t.xapian, t.python))
		}
	}
	return "peers: " + strings.Join(parts, "; ")
}

// command is the command line that runs a peer.
func (t *peerTools) command(ctx context.Context, peer string, args []string) *exec.Cmd {
	if peer == peerLucene {
		if t.classes != "" {
			return exec.CommandContext(ctx, t.java, append([]string{"-cp", t.classpath + string(os.PathListSeparator) + t.classes, "LuceneBench"}, args...)...)
		}
		return exec.CommandContext(ctx, t.java, append([]string{"-cp", t.classpath, t.luceneSource()}, args...)...)
	}
	return exec.CommandContext(ctx, t.python, append([]string{t.xapianScript()}, args...)...)
}

// lastLine is the end of a failed command's output, for an error message.
func lastLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return err.Error()
	}
	return s + " (" + err.Error() + ")"
}

// stopWordList is Bleve's English stop list, the one Crucible's analyser
// drops (Bleve's "en" analyzer), sorted.
func stopWordList() []string {
	tm := analysis.NewTokenMap()
	if err := tm.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err) // a constant of the library
	}
	words := make([]string, 0, len(tm))
	for w := range tm {
		words = append(words, w)
	}
	sort.Strings(words)
	return words
}

// exportRecord is a line of the files the peers read.
type exportRecord struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func writeJSONLines(path string, each func(emit func(exportRecord) error) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err = each(func(r exportRecord) error { return enc.Encode(r) })
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// exportPassages writes scale copies of the passages as Crucible indexes
// them: the document title, a line break, the passage text.
func exportPassages(path string, docs []pipeline.IngestDocument, scale int) (int, error) {
	n := 0
	err := writeJSONLines(path, func(emit func(exportRecord) error) error {
		for r := 0; r < scale; r++ {
			for _, d := range docs {
				d = replicate(d, r)
				for _, p := range d.Passages {
					text := p.Text
					if index.DefaultOptions().TitleInPassages && d.Doc.Title != "" {
						text = d.Doc.Title + "\n" + p.Text
					}
					if err := emit(exportRecord{ID: p.ID(), Text: text}); err != nil {
						return err
					}
					n++
				}
			}
		}
		return nil
	})
	return n, err
}

func exportQueries(path string, queries []benchQuery) error {
	return writeJSONLines(path, func(emit func(exportRecord) error) error {
		for _, q := range queries {
			if err := emit(exportRecord{ID: q.ID, Text: q.Text}); err != nil {
				return err
			}
		}
		return nil
	})
}

// peerOutput is the JSON a peer program writes (bench/README.md).
type peerOutput struct {
	Engine            string  `json:"engine"`
	Version           string  `json:"version"`
	Passages          int     `json:"passages"`
	BuildSeconds      float64 `json:"build_seconds"`
	BuildCPUSeconds   float64 `json:"build_cpu_seconds"`
	BuildPeakRSSBytes int64   `json:"build_peak_rss_bytes"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
	Queries           int     `json:"queries"`
	Passes            int     `json:"passes"`
	Warmup            int     `json:"warmup"`
	K                 int     `json:"k"`
	P50MS             float64 `json:"p50_ms"`
	P99MS             float64 `json:"p99_ms"`
	CPUMSPerQuery     float64 `json:"cpu_ms_per_query"`
	QPS               float64 `json:"qps"`
	Results           []struct {
		ID   string   `json:"id"`
		Hits []string `json:"hits"`
	} `json:"results"`
}

// parsePeerOutput reads a peer's JSON and checks it against what the peer
// was given: passages passages, and, for a search run (queries not nil),
// every query once with at most k hits. It returns the row of the peer.
func parsePeerOutput(data []byte, scale, passages int, queries []benchQuery, k int) (benchRow, error) {
	var out peerOutput
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return benchRow{}, fmt.Errorf("peer output: %w", err)
	}
	if out.Engine == "" {
		return benchRow{}, errors.New("peer output: no engine name")
	}
	if out.Passages != passages {
		return benchRow{}, fmt.Errorf("peer output: %s indexed %d passages, want %d", out.Engine, out.Passages, passages)
	}
	row := benchRow{
		Scale: scale, Engine: out.Engine, Version: out.Version, Passages: out.Passages,
		Build:    seconds(out.BuildSeconds),
		BuildCPU: seconds(out.BuildCPUSeconds),
		PeakRSS:  out.BuildPeakRSSBytes, PeakExact: true,
	}
	if queries == nil {
		return row, nil
	}
	if len(out.Results) != len(queries) {
		return benchRow{}, fmt.Errorf("peer output: %s answered %d queries, want %d", out.Engine, len(out.Results), len(queries))
	}
	byID := make(map[string][]string, len(out.Results))
	for _, r := range out.Results {
		if len(r.Hits) > k {
			return benchRow{}, fmt.Errorf("peer output: %s gave %d hits for %s, more than k = %d", out.Engine, len(r.Hits), r.ID, k)
		}
		byID[r.ID] = r.Hits
	}
	row.Hits = make([][]string, len(queries))
	for i, q := range queries {
		h, ok := byID[q.ID]
		if !ok {
			return benchRow{}, fmt.Errorf("peer output: %s has no results for query %s", out.Engine, q.ID)
		}
		row.Hits[i] = h
	}
	row.HasSearch = true
	row.PeakRSS = out.PeakRSSBytes
	row.Timing = timing{
		P50: millis(out.P50MS), P99: millis(out.P99MS), CPU: millis(out.CPUMSPerQuery), QPS: out.QPS,
	}
	return row, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// runPeers exports a scale's passages (and the queries, for a search run)
// and runs every peer on them.
func (bf benchFlags) runPeers(ctx context.Context, docs []pipeline.IngestDocument, scale int, queries []benchQuery) ([]benchRow, error) {
	if len(bf.peers) == 0 {
		return nil, nil
	}
	dir := filepath.Join(bf.work, fmt.Sprintf("peers-%d", scale))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer bf.discard(dir)
	passagesFile := filepath.Join(dir, "passages.jsonl")
	n, err := exportPassages(passagesFile, docs, scale)
	if err != nil {
		return nil, err
	}
	stopFile := filepath.Join(dir, "stopwords.txt")
	if err := os.WriteFile(stopFile, []byte(strings.Join(stopWordList(), "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	args := []string{"--passages", passagesFile, "--stopwords", stopFile,
		"--k", strconv.Itoa(bf.k), "--k1", fmt.Sprint(index.DefaultOptions().K1), "--b", fmt.Sprint(index.DefaultOptions().B)}
	if queries != nil {
		queriesFile := filepath.Join(dir, "queries.jsonl")
		if err := exportQueries(queriesFile, queries); err != nil {
			return nil, err
		}
		args = append(args, "--queries", queriesFile, "--passes", strconv.Itoa(bf.passes), "--warmup", strconv.Itoa(bf.warmup))
	} else {
		args = append(args, "--passes", "0")
	}
	var rows []benchRow
	for _, p := range bf.peers {
		indexDir := filepath.Join(dir, p+"-index")
		outFile := filepath.Join(dir, p+".json")
		os.RemoveAll(indexDir)
		cmd := bf.tools.command(ctx, p, append(append([]string{}, args...), "--index", indexDir, "--out", outFile))
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("peer %s at %d×: %s", p, scale, lastLine(stderr.Bytes(), err))
		}
		data, err := os.ReadFile(outFile)
		if err != nil {
			return nil, fmt.Errorf("peer %s at %d×: %w", p, scale, err)
		}
		row, err := parsePeerOutput(data, scale, n, queries, bf.k)
		if err != nil {
			return nil, fmt.Errorf("peer %s at %d×: %w", p, scale, err)
		}
		row.Engine = p
		row.DiskBytes = dirSize(indexDir)
		bf.discard(indexDir)
		rows = append(rows, row)
	}
	return rows, nil
}

// baseID maps a passage id of a replicated corpus to the id of the
// original passage ("3~doc#7" → "doc#7", see replicate): at 10× every
// passage has ten copies with equal scores, and which copies make the top
// k is the engines' tie order, not their ranking.
func baseID(id string) string {
	if j := strings.IndexByte(id, '~'); j > 0 {
		if _, err := strconv.Atoi(id[:j]); err == nil {
			return id[j+1:]
		}
	}
	return id
}

// topOverlap is the mean, over queries where either side has hits, of the
// share of the top-k hits the two rankings have in common (original
// passages counted with their copies, see baseID; divided by the longer
// list), and the number of queries it is the mean of.
func topOverlap(ref, other [][]string) (float64, int) {
	sum, n := 0.0, 0
	for i := range ref {
		if i >= len(other) {
			break
		}
		a, b := ref[i], other[i]
		if len(a) == 0 && len(b) == 0 {
			continue
		}
		count := map[string]int{}
		for _, id := range a {
			count[baseID(id)]++
		}
		common := 0
		for _, id := range b {
			if k := baseID(id); count[k] > 0 {
				count[k]--
				common++
			}
		}
		sum += float64(common) / float64(max(len(a), len(b)))
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// table is a benchmark's result as printed.
type table struct {
	header []string
	rows   [][]string
	notes  []string
}

func writeTable(w io.Writer, t table, markdown bool) error {
	if markdown {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| "+strings.Join(t.header, " | ")+" |")
		fmt.Fprintln(w, strings.Repeat("|---", len(t.header))+"|")
		for _, r := range t.rows {
			fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		}
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
		for _, r := range t.rows {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, n := range t.notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

func mib(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

// ratio formats a/b, or "-" when either is missing.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// byScale groups rows by scale, in the order the scales first appear.
func byScale(rows []benchRow) [][]benchRow {
	var out [][]benchRow
	at := map[int]int{}
	for _, r := range rows {
		i, ok := at[r.Scale]
		if !ok {
			i = len(out)
			at[r.Scale] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

func findRow(rows []benchRow, engine string) (benchRow, bool) {
	for _, r := range rows {
		if r.Engine == engine {
			return r, true
		}
	}
	return benchRow{}, false
}

// ratioPairs are the ratio rows of the tables: Crucible against each
// peer, and against FTS5 (the search page against FTS5, which also
// returns text).
var ratioPairs = [][2]string{
	{engineCrucibleRank, peerLucene},
	{engineCrucibleRank, peerXapian},
	{engineCruciblePage, engineFTS5},
	{engineCrucible, peerLucene},
	{engineCrucible, peerXapian},
	{engineCrucible, engineFTS5},
	{engineCrucibleIndex, peerLucene},
	{engineCrucibleIndex, peerXapian},
}

func notExact(rows []benchRow) bool {
	for _, r := range rows {
		if (r.Engine == engineCrucible || r.Engine == engineCrucibleIndex || r.Engine == engineCrucibleRank || r.Engine == engineFTS5) && !r.PeakExact {
			return true
		}
	}
	return false
}

// indexTable is the build benchmark's table: a row per engine and scale,
// then Crucible's ratios to each other engine (above 1: Crucible takes
// more).
func indexTable(rows []benchRow) table {
	t := table{header: []string{"scale", "engine", "passages", "build s", "passages/s", "build CPU s", "peak RSS MiB", "index MiB"}}
	for _, group := range byScale(rows) {
		for _, r := range group {
			t.rows = append(t.rows, []string{
				fmt.Sprintf("%d×", r.Scale), r.label(), strconv.Itoa(r.Passages),
				fmt.Sprintf("%.2f", r.Build.Seconds()), fmt.Sprintf("%.0f", float64(r.Passages)/r.Build.Seconds()),
				fmt.Sprintf("%.2f", r.BuildCPU.Seconds()), mib(r.PeakRSS), mib(r.DiskBytes),
			})
		}
		for _, p := range ratioPairs {
			a, okA := findRow(group, p[0])
			b, okB := findRow(group, p[1])
			if !okA || !okB {
				continue
			}
			t.rows = append(t.rows, []string{
				fmt.Sprintf("%d×", a.Scale), p[0] + " ÷ " + p[1], "",
				ratio(a.Build.Seconds(), b.Build.Seconds()), "",
				ratio(a.BuildCPU.Seconds(), b.BuildCPU.Seconds()),
				ratio(float64(a.PeakRSS), float64(b.PeakRSS)), ratio(float64(a.DiskBytes), float64(b.DiskBytes)),
			})
		}
	}
	t.notes = append(t.notes, "ratios: Crucible's figure divided by the other engine's (above 1: Crucible takes more); index MiB: crucible = index.bleve (its SQLite store, which keeps the text, not counted), fts5 = the database, which keeps the text")
	if notExact(rows) {
		t.notes = append(t.notes, "note: this kernel cannot restart the peak-RSS count, so in-process peaks are cumulative")
	}
	return t
}

// searchTable is the search benchmark's table: a row per engine and
// scale, with the top-k overlap with Crucible's ranking, then Crucible's
// ratios to the peers (latency and CPU above 1: Crucible slower; QPS
// above 1: Crucible faster).
func searchTable(rows []benchRow, k int) table {
	t := table{header: []string{"scale", "engine", "passages", "p50 ms", "p99 ms", "CPU ms/query", "QPS", "peak RSS MiB", fmt.Sprintf("top-%d overlap", k)}}
	for _, group := range byScale(rows) {
		ref, hasRef := findRow(group, engineCrucibleRank)
		for _, r := range group {
			ov := "-"
			if hasRef && r.Engine != engineCrucibleRank && r.Hits != nil {
				o, n := topOverlap(ref.Hits, r.Hits)
				if n > 0 {
					ov = fmt.Sprintf("%.3f", o)
				}
			}
			t.rows = append(t.rows, []string{
				fmt.Sprintf("%d×", r.Scale), r.label(), strconv.Itoa(r.Passages),
				msf(r.Timing.P50), msf(r.Timing.P99), fmt.Sprintf("%.3f", float64(r.Timing.CPU)/float64(time.Millisecond)),
				fmt.Sprintf("%.0f", r.Timing.QPS), mib(r.PeakRSS), ov,
			})
		}
		for _, p := range ratioPairs {
			a, okA := findRow(group, p[0])
			b, okB := findRow(group, p[1])
			if !okA || !okB {
				continue
			}
			t.rows = append(t.rows, []string{
				fmt.Sprintf("%d×", a.Scale), p[0] + " ÷ " + p[1], "",
				ratio(float64(a.Timing.P50), float64(b.Timing.P50)), ratio(float64(a.Timing.P99), float64(b.Timing.P99)),
				ratio(float64(a.Timing.CPU), float64(b.Timing.CPU)), ratio(a.Timing.QPS, b.Timing.QPS),
				ratio(float64(a.PeakRSS), float64(b.PeakRSS)), "",
			})
		}
	}
	t.notes = append(t.notes, fmt.Sprintf("top-%d overlap: share of Crucible's top %d (crucible rank) the engine also returns, replicated copies counted as their original; ratios: Crucible's figure divided by the other's (latency, CPU, RSS above 1: Crucible more; QPS above 1: Crucible faster)", k, k))
	if notExact(rows) {
		t.notes = append(t.notes, "note: this kernel cannot restart the peak-RSS count, so in-process peaks are cumulative")
	}
	return t
}

// msf formats a duration in milliseconds with two decimals.
func msf(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
