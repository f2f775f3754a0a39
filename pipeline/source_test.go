package pipeline_test

import (
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestShownSource(t *testing.T) {
	for in, want := range map[string]string{
		"speeches.jsonl:12":                      "speeches.jsonl:12",
		"corpora/sotu.jsonl.gz:3":                "corpora/sotu.jsonl.gz:3",
		"/var/lib/crucible/uploads/u7/a.jsonl:4": "a.jsonl:4",
		"/home/ana/notes/memo.md":                "memo.md",
		`C:\Users\ana\corpus\memo.txt`:           "memo.txt",
		"docs/a:b.md":                            "docs/a:b.md",
		"":                                       "",
		"/srv/data/file.jsonl:":                  "file.jsonl:",
		"/srv/data/2021:report.txt":              "2021:report.txt",
	} {
		if got := pipeline.ShownSource(in); got != want {
			t.Errorf("ShownSource(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelativeSource(t *testing.T) {
	for _, tc := range []struct{ source, wd, want string }{
		{"/srv/crucible/testdata/sotu.jsonl.gz:7", "/srv/crucible", "testdata/sotu.jsonl.gz:7"},
		{"/home/ana/corpus/a.md", "/srv/crucible", "a.md"},
		{"/srv/crucible/a.md", "/srv/crucible", "a.md"},
		{"corpus/a.md", "/srv/crucible", "corpus/a.md"},
		{"/srv/crucible-other/a.jsonl:2", "/srv/crucible", "a.jsonl:2"},
		{"/srv/a.jsonl:2", "", "a.jsonl:2"},
	} {
		if got := pipeline.RelativeSource(tc.source, tc.wd); got != tc.want {
			t.Errorf("RelativeSource(%q, %q) = %q, want %q", tc.source, tc.wd, got, tc.want)
		}
	}
}
