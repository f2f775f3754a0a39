package rerank

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// vectorDir holds the LANCER aggregation test vectors made from the
// authors' released ratings (see its README for the tie rules).
const vectorDir = "../../../shared/testvectors/lancer"

// vectorFile is one "lancer-aggregation-testvectors/1" file.
type vectorFile struct {
	Format     string                 `json:"format"`
	ID         string                 `json:"id"`
	Strategies []string               `json:"strategies"`
	Topics     []string               `json:"topics"`
	Data       map[string]vectorTopic `json:"data"`
}

type vectorTopic struct {
	Candidates               []string            `json:"candidates"`
	Subquestions             []json.RawMessage   `json:"subquestions"`
	Ratings                  [][]int             `json:"ratings"`
	Expected                 map[string][]string `json:"expected"`
	ExpectedStable           map[string][]string `json:"expected_stable"`
	GreedyPrefixLength       map[string]int      `json:"greedy_prefix_length"`
	GreedyPrefixLengthStable map[string]int      `json:"greedy_prefix_length_stable"`
}

// loadVectors reads every *.json.gz vector file, or skips the test when
// the shared folder is absent.
func loadVectors(t *testing.T) []vectorFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(vectorDir, "*.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skipf("no LANCER test vectors in %s (the shared folder is absent): skipping", vectorDir)
	}
	sort.Strings(paths)
	var files []vectorFile
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			t.Fatalf("%s: %v", path, err)
		}
		var vf vectorFile
		err = json.NewDecoder(zr).Decode(&vf)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !strings.HasPrefix(vf.Format, "lancer-aggregation-testvectors/") {
			t.Fatalf("%s: unexpected format %q", path, vf.Format)
		}
		files = append(files, vf)
	}
	return files
}

// argsortDependent reports whether a strategy's output depends on the tie
// convention (the vectors then also hold expected_stable).
func argsortDependent(s Strategy) bool {
	return s == GreedySum || s == GreedyCoverage || s == RRF
}

// TestLANCERVectors reproduces every list of every vector file: each
// strategy under the numpy convention against "expected", and under the
// stable convention against "expected_stable" (argsort-dependent
// strategies) or "expected" (the others, whose tie rule is fixed).
func TestLANCERVectors(t *testing.T) {
	files := loadVectors(t)
	type tally struct{ checked, exact int }
	perConvention := map[TieBreak]*tally{TiesNumpy: {}, TiesStable: {}}
	perStrategy := map[string]*[2]int{} // exact numpy, exact stable
	topics := 0
	// conventionsDiffer counts the argsort-dependent lists on which the two
	// expected lists differ: proof that both tie emulations are exercised.
	conventionsDiffer, dependent := 0, 0
	var failures []string
	for _, vf := range files {
		for _, qid := range vf.Topics {
			topic, ok := vf.Data[qid]
			if !ok {
				t.Fatalf("%s: topic %s listed but absent", vf.ID, qid)
			}
			topics++
			candidates := make([]Candidate, len(topic.Candidates))
			for i, id := range topic.Candidates {
				candidates[i] = Candidate{ID: id, Score: 1 / float64(i+1)}
			}
			for _, name := range vf.Strategies {
				method, err := ParseMethod(name)
				if err != nil {
					t.Fatalf("%s/%s: %v", vf.ID, qid, err)
				}
				if got := method.String(); got != name {
					t.Errorf("ParseMethod(%q).String() = %q", name, got)
				}
				if argsortDependent(method.Strategy) {
					dependent++
					if !slices.Equal(topic.Expected[name], topic.ExpectedStable[name]) {
						conventionsDiffer++
					}
				}
				if perStrategy[name] == nil {
					perStrategy[name] = &[2]int{}
				}
				for ci, ties := range []TieBreak{TiesNumpy, TiesStable} {
					want := topic.Expected[name]
					wantPrefix, hasPrefix := topic.GreedyPrefixLength[name]
					if ties == TiesStable && argsortDependent(method.Strategy) {
						want = topic.ExpectedStable[name]
						wantPrefix, hasPrefix = topic.GreedyPrefixLengthStable[name]
					}
					if want == nil {
						t.Fatalf("%s/%s %s: no expected list for %s ties", vf.ID, qid, name, ties)
					}
					got, err := Aggregate(method, candidates, topic.Ratings, AggregateOptions{Ties: ties})
					if err != nil {
						t.Fatalf("%s/%s %s: %v", vf.ID, qid, name, err)
					}
					perConvention[ties].checked++
					if slices.Equal(got.IDs, want) && (!hasPrefix || got.Prefix == wantPrefix) {
						perConvention[ties].exact++
						perStrategy[name][ci]++
						continue
					}
					msg := fmt.Sprintf("%s/%s %s (%s ties): first difference at position %d", vf.ID, qid, name, ties, firstDifference(got.IDs, want))
					if hasPrefix && got.Prefix != wantPrefix {
						msg += fmt.Sprintf("; greedy prefix %d, want %d", got.Prefix, wantPrefix)
					}
					failures = append(failures, msg)
				}
			}
		}
	}
	names := make([]string, 0, len(perStrategy))
	for name := range perStrategy {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := perStrategy[name]
		t.Logf("%-22s numpy ties %3d/%d exact, stable ties %3d/%d exact", name, c[0], topics, c[1], topics)
	}
	for _, ties := range []TieBreak{TiesNumpy, TiesStable} {
		c := perConvention[ties]
		t.Logf("%s ties: %d/%d topic×strategy lists exact (%d topics × %d strategies)", ties, c.exact, c.checked, topics, len(names))
	}
	t.Logf("numpy and stable expected lists differ on %d of %d argsort-dependent topic×strategy pairs", conventionsDiffer, dependent)
	if conventionsDiffer == 0 {
		t.Error("the vectors never tell the tie conventions apart: the numpy emulation is untested")
	}
	for i, f := range failures {
		if i == 20 {
			t.Errorf("… and %d more", len(failures)-20)
			break
		}
		t.Error(f)
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
