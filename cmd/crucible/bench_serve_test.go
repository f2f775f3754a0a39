package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBenchServe runs the serve benchmark for a second with two signed-in
// clients and a report job on the demo corpus.
func TestBenchServe(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the serve benchmark needs the demo corpus ingested and the portal started")
	}
	data := preparedData(t, demoCorpus)
	start := time.Now()
	out, stderr, code := runCmd(t, "bench", "serve", "--data", data, "--clients", "2", "--duration", "1s", "--with-report",
		"--queries", "../../"+querySetDefault, "--requests", "../../testdata/eval/sotu-requests.jsonl")
	if code != 0 {
		t.Fatalf("bench serve: exit %d\n%s\n%s", code, out, stderr)
	}
	t.Logf("bench serve took %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	for _, want := range []string{"2 clients", "signed in as analysts", "report running", "report jobs (offline engine): 1 submitted"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The "all all" row: requests made, none failed.
	m := regexp.MustCompile(`(?m)^\s*all\s+all\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(\d+)\s*$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary row in:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n < 2 {
		t.Errorf("%d requests in a second with two clients", n)
	}
	if m[2] != "0" {
		t.Errorf("%s requests failed:\n%s", m[2], out)
	}
}

func TestBenchServeFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--clients", "0"},
		{"--clients", "5000"},
		{"--duration", "1h"},
		{"--scale", "0"},
	} {
		_, stderr, code := runCmd(t, append([]string{"bench", "serve"}, args...)...)
		if code != 2 {
			t.Errorf("bench serve %q: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}
