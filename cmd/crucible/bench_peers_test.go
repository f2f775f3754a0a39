package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePeerOutput(t *testing.T) {
	t.Parallel()
	queries := []benchQuery{{"q001", "war"}, {"q002", "the union"}}
	good := `{"engine":"lucene","version":"8.8.1","passages":3,"build_seconds":1.5,"build_cpu_seconds":2.25,
		"build_peak_rss_bytes":104857600,"peak_rss_bytes":209715200,"queries":2,"passes":5,"k":10,
		"p50_ms":0.5,"p99_ms":4,"cpu_ms_per_query":0.75,"qps":1500.5,
		"results":[{"id":"q002","hits":["a#0","b#1"]},{"id":"q001","hits":[]}]}`
	row, err := parsePeerOutput([]byte(good), 10, 3, queries, 10)
	if err != nil {
		t.Fatal(err)
	}
	if row.Engine != "lucene" || row.Version != "8.8.1" || row.Scale != 10 || row.Passages != 3 || !row.HasSearch {
		t.Errorf("row = %+v", row)
	}
	if row.Build != 1500*time.Millisecond || row.BuildCPU != 2250*time.Millisecond || row.PeakRSS != 200<<20 {
		t.Errorf("build %v, CPU %v, peak %d", row.Build, row.BuildCPU, row.PeakRSS)
	}
	if row.Timing.P50 != 500*time.Microsecond || row.Timing.P99 != 4*time.Millisecond ||
		row.Timing.CPU != 750*time.Microsecond || row.Timing.QPS != 1500.5 {
		t.Errorf("timing = %+v", row.Timing)
	}
	// Hits come back in query order, whatever the file's order.
	if len(row.Hits) != 2 || len(row.Hits[0]) != 0 || !slices.Equal(row.Hits[1], []string{"a#0", "b#1"}) {
		t.Errorf("hits = %q", row.Hits)
	}

	// An index-only run: no queries, the build's peak.
	build := `{"engine":"xapian","version":"1.4.22","passages":3,"build_seconds":1,"build_cpu_seconds":1,"build_peak_rss_bytes":1048576,"peak_rss_bytes":2097152}`
	row, err = parsePeerOutput([]byte(build), 1, 3, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if row.HasSearch || row.PeakRSS != 1<<20 {
		t.Errorf("index-only row = %+v", row)
	}

	for name, bad := range map[string]string{
		"wrong passage count": strings.Replace(good, `"passages":3`, `"passages":4`, 1),
		"missing query":       strings.Replace(good, `{"id":"q001","hits":[]}`, `{"id":"q003","hits":[]}`, 1),
		"too many hits":       strings.Replace(good, `"hits":[]`, `"hits":["1","2","3","4","5","6","7","8","9","10","11"]`, 1),
		"unknown field":       strings.Replace(good, `"qps"`, `"qpz"`, 1),
		"no engine":           strings.Replace(good, `"engine":"lucene"`, `"engine":""`, 1),
		"not JSON":            "Exception in thread main",
	} {
		if _, err := parsePeerOutput([]byte(bad), 1, 3, queries, 10); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestTopOverlap(t *testing.T) {
	t.Parallel()
	if got := baseID("12~sotu-1790#3"); got != "sotu-1790#3" {
		t.Errorf("baseID = %q", got)
	}
	if got := baseID("a~b#3"); got != "a~b#3" {
		t.Errorf("baseID of an id with a non-numeric ~ = %q", got)
	}
	if got := baseID("1x~b#3"); got != "1x~b#3" {
		t.Errorf("baseID of an id with a non-numeric ~ = %q", got)
	}
	ref := [][]string{{"a#0", "b#0", "c#0", "d#0"}, {"x#1", "1~x#1"}, {}, {"z#0"}}
	other := [][]string{{"b#0", "a#0", "e#0", "f#0"}, {"2~x#1", "3~x#1"}, {}, {}}
	got, n := topOverlap(ref, other)
	// 2/4, 2/2 (copies count as the original), skipped, 0/1.
	if want := (0.5 + 1 + 0) / 3; n != 3 || got < want-1e-9 || got > want+1e-9 {
		t.Errorf("topOverlap = %v over %d, want %v over 3", got, n, want)
	}
}

func TestBenchTables(t *testing.T) {
	t.Parallel()
	hits := [][]string{{"a#0", "b#0"}}
	rows := []benchRow{
		{Scale: 1, Engine: engineCrucibleRank, Passages: 100, PeakRSS: 300 << 20, PeakExact: true, HasSearch: true, Hits: hits,
			Timing: timing{P50: time.Millisecond, P99: 4 * time.Millisecond, CPU: time.Millisecond, QPS: 1000}},
		{Scale: 1, Engine: engineCruciblePage, Passages: 100, PeakRSS: 300 << 20, PeakExact: true, HasSearch: true, Hits: hits,
			Timing: timing{P50: 3 * time.Millisecond, P99: 9 * time.Millisecond, CPU: 3 * time.Millisecond, QPS: 300}},
		{Scale: 1, Engine: engineFTS5, Passages: 100, PeakRSS: 100 << 20, PeakExact: true, HasSearch: true, Hits: [][]string{{"c#0"}},
			Timing: timing{P50: 6 * time.Millisecond, P99: 18 * time.Millisecond, CPU: 6 * time.Millisecond, QPS: 150}},
		{Scale: 1, Engine: peerLucene, Version: "8.8.1", Passages: 100, PeakRSS: 150 << 20, HasSearch: true, Hits: [][]string{{"b#0", "c#0"}},
			Timing: timing{P50: 2 * time.Millisecond, P99: 2 * time.Millisecond, CPU: 4 * time.Millisecond, QPS: 500}},
	}
	tab := searchTable(rows, 10)
	find := func(tab table, engine string) []string {
		for _, r := range tab.rows {
			if r[1] == engine {
				return r
			}
		}
		t.Fatalf("no row %q in %q", engine, tab.rows)
		return nil
	}
	if r := find(tab, "lucene 8.8.1"); r[8] != "0.500" || r[3] != "2.00" {
		t.Errorf("lucene row = %q", r)
	}
	if r := find(tab, "crucible page"); r[8] != "1.000" {
		t.Errorf("crucible page overlap = %q", r[8])
	}
	// p50 1/2, p99 4/2, CPU 1/4, QPS 1000/500, RSS 300/150.
	if r := find(tab, "crucible rank ÷ lucene"); !slices.Equal(r[3:8], []string{"0.50", "2.00", "0.25", "2.00", "2.00"}) {
		t.Errorf("ratio row = %q", r)
	}
	if r := find(tab, "crucible page ÷ fts5"); !slices.Equal(r[3:8], []string{"0.50", "0.50", "0.50", "2.00", "3.00"}) {
		t.Errorf("ratio row = %q", r)
	}
	for _, r := range tab.rows {
		if strings.Contains(r[1], "xapian") {
			t.Errorf("a row for xapian, which did not run: %q", r)
		}
	}

	irows := []benchRow{
		{Scale: 10, Engine: engineCrucible, Passages: 1000, Build: 4 * time.Second, BuildCPU: 6 * time.Second, PeakRSS: 400 << 20, PeakExact: true, DiskBytes: 50 << 20},
		{Scale: 10, Engine: peerXapian, Version: "1.4.22", Passages: 1000, Build: 2 * time.Second, BuildCPU: 2 * time.Second, PeakRSS: 100 << 20, DiskBytes: 100 << 20},
	}
	itab := indexTable(irows)
	if r := find(itab, "xapian 1.4.22"); r[0] != "10×" || r[3] != "2.00" || r[4] != "500" || r[6] != "100" {
		t.Errorf("xapian row = %q", r)
	}
	if r := find(itab, "crucible ÷ xapian"); !slices.Equal(r[3:8], []string{"2.00", "", "3.00", "4.00", "0.50"}) {
		t.Errorf("ratio row = %q", r)
	}
	var md strings.Builder
	if err := writeTable(&md, itab, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 10× | crucible ÷ xapian |  | 2.00 |") {
		t.Errorf("markdown table:\n%s", md.String())
	}
}

func TestParsePeers(t *testing.T) {
	t.Parallel()
	if got, err := parsePeers(" Lucene, xapian,lucene "); err != nil || !slices.Equal(got, []string{"lucene", "xapian"}) {
		t.Errorf("parsePeers = %q, %v", got, err)
	}
	if _, err := parsePeers("lucene,solr"); err == nil {
		t.Error("solr: no error")
	}
	_, stderr, code := runCmd(t, "bench", "search", "--peers", "lucene", "--docs")
	if code != 2 || !strings.Contains(stderr, "--docs") {
		t.Errorf("--peers with --docs: exit %d, %s", code, stderr)
	}
}

// TestPeersSideBySide runs the Lucene and Xapian programs of bench/ on the
// sample corpus with a few queries, through `crucible bench search` and
// `crucible bench index`. It needs a JDK, Debian's Lucene 8 jars and
// /usr/bin/python3 with the xapian bindings, which CI does not install.
func TestPeersSideBySide(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the peers start a JVM and build three indexes")
	}
	if err := peersAvailable(context.Background(), "../../bench", peerLucene, peerXapian); err != nil {
		t.Skipf("Lucene or Xapian is not installed here, so the side-by-side benchmark cannot run: %v", err)
	}
	dir := t.TempDir()
	queries := filepath.Join(dir, "queries.txt")
	if err := os.WriteFile(queries, []byte("louisiana purchase\nthe union\nState of the Union Address, George Washington (1790)\nof the\nnation's debt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCmd(t, "bench", "search", "--corpus", sampleCorpus, "--queries", queries, "--scale", "1",
		"--passes", "1", "--peers", "lucene,xapian", "--peers-dir", "../../bench", "--work", filepath.Join(dir, "work"))
	if code != 0 {
		t.Fatalf("bench search --peers: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"crucible rank", "crucible page", "lucene 8", "xapian 1.4", "crucible rank ÷ lucene", "crucible rank ÷ xapian", "top-10 overlap"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The engines agree on most of the top 10 (the same analysis and
	// k1/b; the BM25 formulas differ in details).
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == "1×" && (f[1] == "lucene" || f[1] == "xapian") {
			if ov := f[len(f)-1]; ov < "0.700" || ov > "1.000" {
				t.Errorf("%s: top-10 overlap with Crucible %s, want at least 0.7:\n%s", f[1], ov, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "peers-1", "lucene.json")); err != nil {
		t.Errorf("--work keeps the peers' output: %v", err)
	}

	out, stderr, code = runCmd(t, "bench", "index", "--corpus", sampleCorpus, "--scale", "1",
		"--peers", "xapian", "--peers-dir", "../../bench")
	if code != 0 {
		t.Fatalf("bench index --peers: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "crucible ÷ xapian") || !strings.Contains(out, "build CPU s") {
		t.Errorf("bench index output:\n%s", out)
	}
}

func TestPeersMissing(t *testing.T) {
	t.Parallel()
	_, stderr, code := runCmd(t, "bench", "search", "--peers", "lucene", "--java", "/nonexistent/java", "--peers-dir", "../../bench")
	if code != 1 || !strings.Contains(stderr, "JDK") {
		t.Errorf("missing java: exit %d, %s", code, stderr)
	}
	_, stderr, code = runCmd(t, "bench", "search", "--peers", "xapian", "--python", "/nonexistent/python3", "--peers-dir", "../../bench")
	if code != 1 || !strings.Contains(stderr, "xapian") {
		t.Errorf("missing python: exit %d, %s", code, stderr)
	}
	_, stderr, code = runCmd(t, "bench", "search", "--peers", "xapian", "--peers-dir", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "xapian_bench.py") {
		t.Errorf("missing peer program: exit %d, %s", code, stderr)
	}
}
