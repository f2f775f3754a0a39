package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/*.md from the current offline engine")

// goldenRequests are the requests whose offline reports are kept as
// golden Markdown: a tariff request of the tuning set, the energy crisis
// of the 1970s, and HIV/AIDS from the held-out set.
var goldenRequests = []struct{ file, id string }{
	{"sotu-requests.jsonl", "sotu-04"},
	{"sotu-requests.jsonl", "sotu-09"},
	{"sotu2-requests.jsonl", "sotu2-11"},
}

// TestGoldenReports writes the offline engine's reports for a few demo
// requests as Markdown and compares them with testdata/golden: what a new
// user sees first, readable (attributed, self-contained sentences) and
// organised (facet headings, chronological within each). A change of the
// engine that changes them shows here as a diff to read; `go test -run
// GoldenReports -update ./cmd/crucible` rewrites them. -short skips it.
func TestGoldenReports(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("golden reports skipped in -short mode")
	}
	skipUnderRace(t)
	ctx := context.Background()
	a, eng := demoOfflineApp(t)
	for _, g := range goldenRequests {
		var req pipeline.Request
		for _, l := range readJSONL[requestLine](t, "../../testdata/eval/"+g.file) {
			raw, _ := json.Marshal(l)
			r, _, err := parseRequest(raw)
			if err != nil {
				t.Fatal(err)
			}
			if r.ID == g.id {
				req = r
			}
		}
		if req.ID == "" {
			t.Fatalf("request %s not in %s", g.id, g.file)
		}
		t.Run(g.id, func(t *testing.T) {
			rep, err := eng.Generate(ctx, req, pipeline.DefaultSettings(), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, a, rep)
			titles := map[string]string{}
			for _, id := range export.CitedDocIDs(rep) {
				d, err := a.db.Document(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				titles[id] = d.Title
			}
			got := export.Markdown(rep, titles)
			path := filepath.Join("testdata", "golden", g.id+".md")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden report (run with -update to write it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("the offline report for %s changed (-want +got); run with -update if intended:\n%s", g.id, diff)
			}
		})
	}
}
