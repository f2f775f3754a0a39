package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// crucible report --dry-run prints each request's estimate by stage and
// writes nothing; --max-calls stops a report at its cap, which a second
// run with a higher cap goes past with the calls before it from the
// cache; the estimate is within 20% of the calls the run makes.
func TestReportDryRunAndCaps(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"t-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":900}`+"\n"), 0o644)

	stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"t-1: estimate with the offline engine", "ideate", "scan", "total", "spends no tokens", "estimated 1 request(s)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	// A reranker's calls are estimated by the offline engine's reranker.
	if rr, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--dry-run", "--reranker", "pointwise"); code != 0 ||
		!regexp.MustCompile(`(?m)^\s*rerank\s+[1-9]`).MatchString(rr) {
		t.Errorf("dry run with a reranker: exit %d\n%s%s", code, rr, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the dry run wrote %d files", len(entries))
	}
	m := regexp.MustCompile(`(?m)^\s*total\s+(\d+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no total in:\n%s", stdout)
	}
	estimated, _ := strconv.Atoi(m[1])

	_, stderr, code = runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--max-calls", "10")
	if code != 3 || !strings.Contains(stderr, "request t-1: stopped at the cap: 10 calls, during ") || !strings.Contains(stderr, "higher cap") {
		t.Fatalf("capped run: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "t-1.json")); err == nil {
		t.Error("a report stopped at its cap was written")
	}
	stdout, stderr, code = runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--max-calls", "100000", "--max-time", "10m")
	if code != 0 {
		t.Fatalf("run with a higher cap: exit %d\n%s", code, stderr)
	}
	m = regexp.MustCompile(`t-1: .* (\d+) model calls \((\d+) cached\)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("output: %s", stdout)
	}
	calls, _ := strconv.Atoi(m[1])
	cached, _ := strconv.Atoi(m[2])
	if cached < 10 {
		t.Errorf("the second run replayed %d calls, want at least the 10 before the cap", cached)
	}
	if d := float64(estimated-calls) / float64(calls); d > 0.2 || d < -0.2 {
		t.Errorf("estimated %d calls, the run made %d", estimated, calls)
	}
	if _, _, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--max-calls", "-1"); code != 2 {
		t.Errorf("a negative cap: exit %d, want 2", code)
	}
}
