package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline/eval"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

const sampleCorpus = "testdata/sotu-sample.jsonl"

// runCmd runs one command line and returns its output and exit status.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"ingest", "--data", t.TempDir()},
		{"search", "--data", t.TempDir()},
		{"search", "--data", t.TempDir(), "--queries", "q.jsonl"},
		{"bench", "nothing"},
		{"serve", "--nope"},
	} {
		_, stderr, code := runCmd(t, args...)
		if code != 2 {
			t.Errorf("crucible %q: exit %d, want 2 (usage); stderr:\n%s", args, code, stderr)
		}
		if !strings.Contains(stderr, "usage") && !strings.Contains(stderr, "Usage") && !strings.Contains(stderr, "flag provided but not defined") {
			t.Errorf("crucible %q: stderr does not explain usage:\n%s", args, stderr)
		}
	}
}

func TestIngestSearchReindex(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out, stderr, code := runCmd(t, "ingest", "--data", data, sampleCorpus)
	if code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(out, "ingested 8 documents (8 new, 0 replaced, 0 unchanged)") {
		t.Errorf("summary line: %q", out)
	}

	out, stderr, code = runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, stderr)
	}
	var hits []searchHitJSON
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("search --json output is not JSON: %v\n%s", err, out)
	}
	if len(hits) != 3 {
		t.Fatalf("got %d hits, want 3", len(hits))
	}
	for i, h := range hits {
		if h.Rank != i+1 || h.DocID == "" || !strings.HasPrefix(h.PassageID, h.DocID+"#") || h.Title == "" || h.Text == "" {
			t.Errorf("hit %d incomplete: %+v", i, h)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits not in score order: %v after %v", h.Score, hits[i-1].Score)
		}
		if !strings.Contains(strings.ToLower(h.Text+h.Title), "tariff") && !strings.Contains(strings.ToLower(h.Text), "protect") {
			t.Errorf("hit %d does not match the query: %q", i, h.Text)
		}
	}

	// Document mode: each document once.
	out, _, code = runCmd(t, "search", "--data", data, "--k", "10", "--docs", "--json", "the union")
	if code != 0 {
		t.Fatal("search --docs failed")
	}
	var docs []searchHitJSON
	json.Unmarshal([]byte(out), &docs)
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.DocID] {
			t.Errorf("document %s listed twice in --docs mode", d.DocID)
		}
		seen[d.DocID] = true
	}
	if len(docs) != 8 {
		t.Errorf("--docs returned %d documents, want all 8", len(docs))
	}

	// Reindex gives the same ranking.
	out, stderr, code = runCmd(t, "reindex", "--data", data)
	if code != 0 || !strings.Contains(out, "reindexed") {
		t.Fatalf("reindex: exit %d\n%s%s", code, out, stderr)
	}
	out2, _, _ := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	var hits2 []searchHitJSON
	json.Unmarshal([]byte(out2), &hits2)
	if len(hits2) != len(hits) {
		t.Fatalf("after reindex: %d hits, want %d", len(hits2), len(hits))
	}
	for i := range hits {
		if hits[i].PassageID != hits2[i].PassageID || hits[i].Score != hits2[i].Score {
			t.Errorf("after reindex hit %d = %s %v, want %s %v", i, hits2[i].PassageID, hits2[i].Score, hits[i].PassageID, hits[i].Score)
		}
	}

	// Re-ingesting the same documents neither duplicates nor rewrites them.
	out, _, code = runCmd(t, "ingest", "--data", data, sampleCorpus)
	if code != 0 || !strings.Contains(out, "(0 new, 0 replaced, 8 unchanged), writing 0 passages") {
		t.Errorf("re-ingest: exit %d, %q", code, out)
	}
	out3, _, _ := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	if out3 != out2 {
		t.Errorf("re-ingest changed the results:\n%s\nvs\n%s", out3, out2)
	}
}

func TestIngestBadRecordsKeepsTheRest(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join([]string{
		`{"id":"good-1","title":"Good","text":"A fine record about tariffs."}`,
		`{"id":"broken", "text": `,
		`{"title":"no id","text":"orphan"}`,
		`{"id":"empty","text":"   "}`,
		"{\"id\":\"bad-utf8\",\"text\":\"caf\xe9\"}",
		`{"id":"good-2","body":"Body alias text about commerce.","year":1999}`,
	}, "\n")), 0o644)
	out, stderr, code := runCmd(t, "ingest", "--data", data, bad)
	if code != 3 {
		t.Errorf("exit %d, want 3 (records skipped)", code)
	}
	for _, want := range []string{bad + ":2:", bad + ":3:", bad + ":4:", bad + ":5:", "4 record(s) skipped"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(out, "ingested 2 documents (2 new, 0 replaced, 0 unchanged)") {
		t.Errorf("summary: %q", out)
	}
	// The earlier collection is intact and the good records are searchable.
	out, _, _ = runCmd(t, "search", "--data", data, "--docs", "--k", "20", "--json", "commerce tariffs")
	for _, id := range []string{"good-1", "good-2"} {
		if !strings.Contains(out, `"doc_id": "`+id+`"`) {
			t.Errorf("%s not searchable after a partly bad ingest", id)
		}
	}
	if !strings.Contains(out, "sotu-") {
		t.Errorf("earlier documents lost after a bad ingest")
	}

	// A missing path is an error, not a crash, and stores nothing.
	_, stderr, code = runCmd(t, "ingest", "--data", data, filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != 1 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestSearchQueriesWritesRun(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	dir := t.TempDir()
	queries := filepath.Join(dir, "q.jsonl")
	os.WriteFile(queries, []byte(`{"id":"q1","text":"tariff revenue"}
{"id":"q2","text":"indian tribes"}
not json
{"id":"q3","text":""}

{"id":7,"text":"navy"}
`), 0o644)
	runFile := filepath.Join(dir, "out.run")
	out, stderr, code := runCmd(t, "search", "--data", data, "--queries", queries, "--run", runFile, "--k", "5", "--docs")
	if code != 3 {
		t.Errorf("exit %d, want 3 (bad lines); stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, queries+":3: invalid JSON") || !strings.Contains(stderr, queries+":4:") {
		t.Errorf("bad lines not reported by line:\n%s", stderr)
	}
	if !strings.Contains(out, "ran 3 queries") {
		t.Errorf("summary: %q", out)
	}
	runs, err := eval.ReadRunFile(runFile)
	if err != nil {
		t.Fatalf("run file unreadable: %v", err)
	}
	if n := len(runs["q1"]); n != 5 {
		t.Errorf("q1: %d entries, want 5", n)
	}
	for _, q := range []string{"q1", "q2", "7"} {
		if n := len(runs[q]); n < 1 || n > 5 {
			t.Errorf("query %s: %d entries, want 1 to 5", q, n)
		}
	}
	raw, _ := os.ReadFile(runFile)
	line := strings.SplitN(string(raw), "\n", 2)[0]
	if !regexp.MustCompile(`^q1 Q0 sotu-\S+ 1 \S+ crucible-bm25$`).MatchString(line) {
		t.Errorf("first run line %q is not TREC format", line)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a poller.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `crucible serve` on a free loopback port and returns its
// base URL; the server stops (gracefully) when the test ends.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, args...),
			func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v after shutdown", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop within 20s of cancellation")
		}
	})
	re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		// serve listens at once and answers 503 on /healthz until it has
		// ingested or rebuilt what it must: wait for the portal.
		if m := re.FindStringSubmatch(out.String()); m != nil {
			if resp, err := http.Get(m[1] + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return m[1]
				}
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start; stderr:\n%s", errb.String())
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeIngestsWhenEmptyAndRebuildsIndex(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	base := startServe(t, "--data", data, "--ingest-if-empty", sampleCorpus)
	code, body := get(t, base+"/healthz")
	if code != 200 || !strings.Contains(body, `"documents":8`) {
		t.Fatalf("healthz: %d %s", code, body)
	}
	code, body = get(t, base+"/search?q=tariff")
	if code != 200 || !strings.Contains(body, "<mark") {
		t.Errorf("search page: %d, highlights present: %v", code, strings.Contains(body, "<mark"))
	}
	code, _ = get(t, base+"/documents/no-such-document")
	if code != 404 {
		t.Errorf("unknown document: %d, want 404", code)
	}
}

func TestServeRebuildsMissingIndex(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	if err := os.RemoveAll(indexPath(data)); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--data", data)
	code, body := get(t, base+"/search?q=tariff")
	if code != 200 || !strings.Contains(body, "<mark") {
		t.Errorf("after a lost index, search gives %d without results", code)
	}
}

func TestServeRefusesBusyAddress(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	base := startServe(t, "--data", t.TempDir())
	addr := strings.TrimPrefix(base, "http://")
	_, stderr, code := runCmd(t, "serve", "--data", data, "--addr", addr)
	if code != 1 || !strings.Contains(stderr, "listen on "+addr) {
		t.Errorf("busy address: exit %d, stderr %q", code, stderr)
	}
}

func TestBenchReportRuns(t *testing.T) {
	t.Parallel()
	reqs := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"b1","title":"Tariffs","problem_statement":"What was said about tariffs and duties on imports?","limit":800}`+"\n"), 0o644)
	out, stderr, code := runCmd(t, "bench", "report", "--corpus", sampleCorpus, "--requests", reqs, "--n", "1", "--latency", "1ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"wall/bound", "calls/naive", "b1 calls:", "extract="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestReportEmptyOffSubject asks the sample corpus a request none of whose
// candidate sentences speaks of its subject (they cite treaties with other
// nations, or Indians without a treaty): the report is empty, and the
// problem it carries says which of the request's words the subject was
// read from, so that the requester can see why.
func TestReportEmptyOffSubject(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"tribes","title":"Indian tribes","problem_statement":"How were treaties with the Indian tribes described?","limit":600}`+"\n"), 0o644)
	stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--fill-report", "off")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "tribes: 0 sentences") {
		t.Errorf("the report is not empty:\n%s", stdout)
	}
	want := `the report is empty. Its subject was read from the request's words "indian", "tribes": `
	if !strings.Contains(stderr, "tribes: tolerated: ") || !strings.Contains(stderr, want) {
		t.Errorf("no problem names the subject's words; stderr:\n%s", stderr)
	}

	// With the fill (the offline default), a best passage's sentence
	// holding both anchors ("the Indian ... certain tribes") fills the
	// room, and the problem no longer says the report is empty.
	stdout, stderr, code = runCmd(t, "report", "--data", data, "--requests", reqs, "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "tribes: 0 sentences") {
		t.Skipf("the fill found nothing on the sample corpus:\n%s", stdout)
	}
	if strings.Contains(stderr, "the report is empty") || !strings.Contains(stderr, "the report holds only sentences the fill found") {
		t.Errorf("a filled report's problem still says it is empty; stderr:\n%s", stderr)
	}
}

func TestReportBatch(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(strings.Join([]string{
		`{"request_id":"t-1","title":"Tariffs","background":"A student.","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":900}`,
		`{"request_id":"t-2","title":"","problem_statement":"","limit":0}`,
		`not json`,
		``,
		`{"request_id":"t-3","title":"Treaties and duties on commerce","problem_statement":"What did the addresses say about treaties of commerce and duties on imports?","limit":600,"collection_ids":["sotu"]}`,
	}, "\n")), 0o644)
	stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--markdown")
	if code != 3 {
		t.Errorf("exit %d, want 3 (two bad lines); stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, reqs+":2:") || !strings.Contains(stderr, reqs+":3: invalid JSON") {
		t.Errorf("bad lines not reported by line:\n%s", stderr)
	}
	if !strings.Contains(stdout, "wrote 2 report(s)") {
		t.Errorf("summary: %q", stdout)
	}
	for _, id := range []string{"t-1", "t-3"} {
		b, err := os.ReadFile(filepath.Join(out, id+".json"))
		if err != nil {
			t.Fatalf("report %s: %v", id, err)
		}
		var rep struct {
			RequestID     string   `json:"request_id"`
			RunID         string   `json:"run_id"`
			CollectionIDs []string `json:"collection_ids"`
			Sentences     []struct {
				Text      string   `json:"text"`
				Citations []string `json:"citations"`
				Crucible  struct {
					PassageID string `json:"passage_id"`
					Start     int    `json:"start"`
					End       int    `json:"end"`
				} `json:"crucible"`
			} `json:"sentences"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if rep.RequestID != id || rep.RunID != "crucible-offline-engine" || len(rep.Sentences) == 0 {
			t.Errorf("%s: %+v", id, rep)
		}
		for _, s := range rep.Sentences {
			if len(s.Citations) != 1 || !strings.HasPrefix(s.Crucible.PassageID, s.Citations[0]+"#") || s.Crucible.End <= s.Crucible.Start {
				t.Errorf("%s: sentence %q has citations %v, provenance %+v", id, s.Text, s.Citations, s.Crucible)
			}
		}
		if md, err := os.ReadFile(filepath.Join(out, id+".md")); err != nil || !strings.Contains(string(md), "## References") {
			t.Errorf("%s.md missing or without references (%v)", id, err)
		}
	}
	// A second run replays every model call from the cache.
	stdout, _, _ = runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out)
	if !regexp.MustCompile(`t-1: \d+ sentences, \d+/900 characters, (\d+) model calls \((\d+) cached\)`).MatchString(stdout) {
		t.Fatalf("second run output: %s", stdout)
	}
	m := regexp.MustCompile(`t-1: .* (\d+) model calls \((\d+) cached\)`).FindStringSubmatch(stdout)
	if m[1] != m[2] {
		t.Errorf("second run made %s calls but only %s came from the cache", m[1], m[2])
	}
}

func TestReportBaselineLead(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"b-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":700}`+"\n"), 0o644)
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--baseline", "first"); code != 2 || !strings.Contains(stderr, `unknown --baseline "first"`) {
		t.Errorf("unknown baseline: exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--baseline", "lead")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "0 model calls") || !strings.Contains(stdout, "with the lead baseline") {
		t.Errorf("output: %s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "b-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		RunID     string `json:"run_id"`
		Sentences []struct {
			Text      string   `json:"text"`
			Citations []string `json:"citations"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.RunID != "lead-baseline" || len(rep.Sentences) == 0 {
		t.Fatalf("report: %+v", rep)
	}
	length := -1
	for _, s := range rep.Sentences {
		length += 1 + len([]rune(s.Text))
		if len(s.Citations) != 1 {
			t.Errorf("sentence %q cites %v", s.Text, s.Citations)
		}
	}
	if length > 700 {
		t.Errorf("baseline report of %d characters, limit 700", length)
	}
}

func TestReportWithReranker(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"rr-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":700}`+"\n"), 0o644)
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--reranker", "magic"); code != 2 || !strings.Contains(stderr, `unknown --reranker "magic"`) {
		t.Errorf("unknown reranker: exit %d, %s", code, stderr)
	}
	plain, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	reranked, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--reranker", "lancer")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// LANCER's sub-question and rating calls come on top of the plain run's.
	calls := func(s string) int {
		m := regexp.MustCompile(`(\d+) model calls`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no call count in %q", s)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if calls(reranked) <= calls(plain) {
		t.Errorf("with LANCER %d calls, without %d: the rerank stage made no call", calls(reranked), calls(plain))
	}
}

// A document's source is the path as given, relative to the working
// folder, or the file's name when it lies outside it: never an absolute
// server path.
func TestIngestSourceHoldsNoServerPath(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(sampleCorpus)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	b, err := os.ReadFile(sampleCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{abs, sampleCorpus + ":1"},
		{outside, "elsewhere.jsonl:1"},
	} {
		data := t.TempDir()
		if _, stderr, code := runCmd(t, "ingest", "--data", data, tc.path); code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s", tc.path, code, stderr)
		}
		db, err := sqlite.Open(context.Background(), dbPath(data))
		if err != nil {
			t.Fatal(err)
		}
		var first string
		if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &struct {
			ID *string `json:"id"`
		}{&first}); err != nil {
			t.Fatal(err)
		}
		d, err := db.Document(context.Background(), first)
		db.Close()
		if err != nil || d.Source != tc.want {
			t.Errorf("ingest %s: source %q (%v), want %q", tc.path, d.Source, err, tc.want)
		}
	}
}

// A gzip bomb given to the CLI is read only up to the content limit: the
// records before it are stored, and the message names the file, the line
// and the limit.
func TestIngestStopsAtTheContentLimit(t *testing.T) {
	t.Parallel()
	var raw bytes.Buffer
	raw.WriteString(`{"id":"a","title":"A","text":"Tariffs on steel."}` + "\n")
	raw.WriteString(`{"id":"b","title":"B","text":"Duties on wool."}` + "\n")
	raw.Write(bytes.Repeat([]byte("\n"), 4<<20))
	raw.WriteString(`{"id":"c","title":"C","text":"Never read."}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	bomb := filepath.Join(t.TempDir(), "bomb.jsonl.gz")
	if err := os.WriteFile(bomb, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	out, stderr, code := runCmd(t, "ingest", "--data", data, "--max-file-content-bytes", "1048576", bomb)
	if code != 3 || !strings.Contains(out, "ingested 2 documents") {
		t.Fatalf("ingest: exit %d, %q\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "bomb.jsonl.gz: reading stopped after line ") ||
		!strings.Contains(stderr, "the limit of 1 MiB per file (decompressed)") {
		t.Errorf("stderr does not name the file, line and limit:\n%s", stderr)
	}
}

// A reader never answers from an index out of step with the store (an
// ingest killed between its store and index commits leaves one): it says
// so and rebuilds the index from the store first.
func TestSearchRebuildsAnIndexOutOfStep(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	want, _, _ := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	// The index loses everything, as if the ingest had been killed
	// before its first index commit.
	if err := os.RemoveAll(indexPath(data)); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the index holds 0 passages and the store") || !strings.Contains(stderr, "index rebuilt") {
		t.Errorf("stderr does not say the index was rebuilt:\n%s", stderr)
	}
	if out != want || !strings.Contains(out, "tariff") {
		t.Errorf("search after the rebuild:\n%s\nwant\n%s", out, want)
	}
	// In step now: nothing more is said.
	if _, stderr, _ := runCmd(t, "search", "--data", data, "--k", "3", "protective tariff"); stderr != "" {
		t.Errorf("an index in step is reported: %q", stderr)
	}
}

// A document that segments into more passages than allowed is skipped
// with a message naming its source and the limit, like a bad record.
func TestIngestSkipsDocumentsWithTooManyPassages(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out, stderr, code := runCmd(t, "ingest", "--data", data, "--max-passages-per-doc", "1", sampleCorpus)
	if code != 3 || !strings.Contains(out, "ingested 0 documents") || !strings.Contains(out, "8 record(s) skipped") {
		t.Fatalf("ingest: exit %d, %q\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "skipped: "+sampleCorpus+":1: document \"sotu-1790-george-washington-n\" has ") ||
		!strings.Contains(stderr, "more than the limit of 1 per document: not stored") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestReportRuleFlags(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"rf-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":700}`+"\n"), 0o644)
	_, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--spread-sources", "sometimes")
	if code != 2 || !strings.Contains(stderr, `"sometimes" is neither on nor off`) || !strings.Contains(stderr, "-spread-sources") {
		t.Errorf("bad switch: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out,
		"--prefer-period", "off", "--passage-scores", "on", "--spread-sources", "yes"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "rf-1.json")); err != nil {
		t.Error(err)
	}
}

func TestSwitchFlag(t *testing.T) {
	var p *bool
	f := switchFlag{&p}
	if f.String() != "" {
		t.Errorf("unset switch reads %q", f.String())
	}
	for _, tc := range []struct {
		in   string
		want string
	}{{"on", "on"}, {"OFF", "off"}, {"true", "on"}, {"0", "off"}} {
		if err := f.Set(tc.in); err != nil || f.String() != tc.want {
			t.Errorf("Set(%q): %v, reads %q, want %q", tc.in, err, f.String(), tc.want)
		}
	}
	if err := f.Set("maybe"); err == nil {
		t.Error("Set(maybe) succeeded")
	}
}

// A request without a limit gets the form's default, and the summary says
// so; an explicit limit below the minimum is still refused.
func TestReportDefaultLimit(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"nl-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?"}`+"\n"+
		`{"request_id":"nl-2","title":"Tariffs","problem_statement":"What did the addresses say about tariffs?","limit":50}`+"\n"), 0o644)
	stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out)
	if code != 3 || !strings.Contains(stdout, "nl-1: ") || !strings.Contains(stdout, "/2000 characters") ||
		!strings.Contains(stdout, "1 request(s) named no limit: 2000 characters each, the default") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "limit") || !strings.Contains(stderr, "at least 100") {
		t.Errorf("the limit of 50 was not refused by name: %s", stderr)
	}
}

// crucible search prints each hit's matching fragment with the query's
// words marked, as the search page does, and says when every word was too
// common to search for.
func TestSearchPrintsFragments(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	stdout, stderr, code := runCmd(t, "search", "--data", data, "--k", "3", "tariff")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) < 3 || !strings.Contains(strings.ToLower(lines[1]), "[tariff") {
		t.Errorf("the first hit's fragment does not mark the query:\n%s", stdout)
	}
	stdout, _, code = runCmd(t, "search", "--data", data, "the", "of", "a")
	if code != 0 || !strings.Contains(stdout, "too common to search for") {
		t.Errorf("common words only: exit %d, %s", code, stdout)
	}
}
