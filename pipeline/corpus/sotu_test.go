package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// TestSOTUCorpus reads the demo corpus, the 233 State of the Union
// addresses, from the project's copy or from the shared folder it came from.
func TestSOTUCorpus(t *testing.T) {
	candidates := []string{
		filepath.Join("..", "..", "testdata", "corpora", "sotu.jsonl.gz"),
		filepath.Join("..", "..", "..", "shared", "corpora", "sotu.jsonl.gz"),
	}
	path := ""
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			path = c
			break
		}
	}
	if path == "" {
		t.Skipf("demo corpus not found (looked for %s)", strings.Join(candidates, ", "))
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	ids := make(map[string]bool)
	var problems []string
	var progress int64
	sum, err := Walk(context.Background(), []string{path}, Options{Progress: func(n int64) { progress += n }},
		func(d pipeline.Document) error {
			if ids[d.ID] {
				t.Errorf("id %q delivered twice", d.ID)
			}
			ids[d.ID] = true
			if d.Title == "" || len(d.Text) < 1000 {
				t.Errorf("document %q: title %q and %d bytes of text, want a title and a whole address", d.ID, d.Title, len(d.Text))
			}
			return nil
		},
		func(p Problem) { problems = append(problems, p.String()) })
	if err != nil {
		t.Fatalf("Walk(%s): %v", path, err)
	}
	if len(problems) > 0 {
		t.Errorf("Walk(%s) reported %d problems, want none; first: %s", path, len(problems), problems[0])
	}
	want := Summary{Files: 1, Records: 233, Documents: 233, Bytes: info.Size()}
	if sum != want {
		t.Errorf("Summary = %+v, want %+v", sum, want)
	}
	if progress != info.Size() {
		t.Errorf("Progress total = %d, want the file size %d", progress, info.Size())
	}
}
