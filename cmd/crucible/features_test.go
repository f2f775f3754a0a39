package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

func TestFeaturesResumes(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	ns := rerank.FeatureNamespace(offline.Version, rerank.DefaultFeatureChars)

	// The first three documents, then the rest, then nothing: the sample
	// corpus holds eight addresses.
	steps := []struct {
		name string
		args []string
		want string
	}{
		{"first three", []string{"--docs", "3"}, "features of 3 documents: 3 extracted (0 from the answer cache), 0 already current, 0 unreadable"},
		{"the rest", nil, "features of 8 documents: 5 extracted (0 from the answer cache), 3 already current, 0 unreadable"},
		{"nothing left", nil, "features of 8 documents: 0 extracted (0 from the answer cache), 8 already current, 0 unreadable"},
	}
	for _, st := range steps {
		out, stderr, code := runCmd(t, append([]string{"features", "--data", data}, st.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", st.name, code, out, stderr)
		}
		if !strings.HasPrefix(out, st.want) || !strings.Contains(out, "(namespace "+ns+")") {
			t.Errorf("%s: stdout %q, want it to start %q and name namespace %s", st.name, out, st.want, ns)
		}
	}

	// Every document has features that name its subject.
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(data, "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.DocumentIDs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := db.GetFeatures(ctx, ns, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d documents have features, want 8", len(recs))
	}
	for _, id := range ids {
		f := recs[id].Features
		if len(f.Keywords) < rerank.MinKeywords || len(f.Queries) != rerank.PseudoQueries || len(f.Category) != rerank.CategoryLevels ||
			len(f.Headings) < rerank.MinHeadings || len(f.Headings) > rerank.MaxHeadings || f.Title == "" {
			t.Errorf("%s: %d keywords, %d queries, %d category levels, %d headings, title %q", id,
				len(f.Keywords), len(f.Queries), len(f.Category), len(f.Headings), f.Title)
		}
	}
	missing, err := db.MissingFeatures(ctx, ns, ids)
	if err != nil || len(missing) != 0 {
		t.Errorf("missing after the runs: %v, %v", missing, err)
	}
}

func TestFeaturesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"negative docs", []string{"--docs", "-1"}, 2, "--docs -1"},
		{"stray argument", []string{"extra"}, 2, "takes no arguments"},
		{"unknown engine", []string{"--engine", "nope"}, 2, `unknown engine "nope"`},
		{"openai without endpoint", []string{"--engine", "openai"}, 2, "--model-url"},
		{"empty collection", nil, 1, "no documents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, append([]string{"features", "--data", t.TempDir()}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
