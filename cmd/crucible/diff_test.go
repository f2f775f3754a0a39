package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffGolden compares two known reports of the demo sample: a.json,
// an offline report as `crucible report` wrote it (NeuCLIR), and
// b.ragtime.jsonl, the same request made with ideation_docs 6 and then
// edited — a sentence reworded, one removed, one added from another
// report, a citation's span changed — written in the RAGTIME form. The
// output is kept in testdata/diff/*.golden (go test -update rewrites
// them); with gold nuggets the metrics are compared too.
func TestDiffGolden(t *testing.T) {
	a := filepath.Join("testdata", "diff", "a.json")
	b := filepath.Join("testdata", "diff", "b.ragtime.jsonl")
	gold := filepath.Join("testdata", "diff", "gold.jsonl")
	cases := []struct {
		name string
		args func() []string
	}{
		{"a-b", func() []string { return []string{"diff", a, b} }},
		{"b-a", func() []string { return []string{"diff", b, a} }},
		{"a-a", func() []string { return []string{"diff", a, a} }},
		{"a-b-metrics", func() []string {
			return []string{"diff", "--nuggets", gold, a, "--data", preparedData(t, sampleCorpus), b}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tc.args()...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			path := filepath.Join("testdata", "diff", tc.name+".golden")
			if *updateGolden {
				if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run DiffGolden -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("crucible %s (-want +got):\n%s", strings.Join(tc.args(), " "), diff)
			}
		})
	}
}

func TestDiffUsage(t *testing.T) {
	a := filepath.Join("testdata", "diff", "a.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"one file", []string{"diff", a}, 2, "two report files"},
		{"missing file", []string{"diff", a, "testdata/diff/nope.json"}, 1, "nope.json"},
		{"unknown request", []string{"diff", "--request", "other", a, a}, 1, `no report for request "other"`},
		{"gold without data", []string{"diff", "--nuggets", "testdata/diff/gold.jsonl", "--data", t.TempDir(), a, a}, 2, "holds none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}
