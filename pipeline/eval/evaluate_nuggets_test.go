package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

// Nugget values of q1 in testdata/sample.{qrels,run,nuggets}, cutoffs 2, 3
// and 10.
//
// q1 is ranked d1 d3 d2 d10 d9 (see evaluate_test.go). d1 covers n1 n2, d3
// covers n2, d9 covers n3; d5 covers nothing. Pool (id descending): d9 d3
// d1.
//
// Ideal: rank 1 d9 1, d3 1, d1 2: d1 (weights n1 0.5 n2 0.5 n3 1). Rank 2
// d9 1, d3 0.5: d9. Rank 3 d3 0.5, /log2 4. ideal@2 = 2 + 1/log2 3,
// ideal@3 = ideal@10 = 2 + 1/log2 3 + 0.25.
//
// Run: d1 2; d3 0.5/log2 3; d2 and d10 are not nugget-judged; d9 at rank
// 5: 1/log2 6.
//
// q2 has no nugget judgements and q3 only a non-covering one: the nugget
// measures are undefined for both. q4 (missing from the run) has none
// either.
var (
	sampleNuggetMeasures = []string{"alpha_ndcg_cut_2", "alpha_ndcg_cut_3", "alpha_ndcg_cut_10",
		"coverage_2", "coverage_3", "coverage_10"}
	sampleQ1Nuggets = map[string]float64{
		"alpha_ndcg_cut_2":  (2 + 0.5/log2(3)) / (2 + 1/log2(3)),                    // 0.8801
		"alpha_ndcg_cut_3":  (2 + 0.5/log2(3)) / (2 + 1/log2(3) + 0.25),             // 0.8037
		"alpha_ndcg_cut_10": (2 + 0.5/log2(3) + 1/log2(6)) / (2 + 1/log2(3) + 0.25), // 0.9380
		"coverage_2":        2.0 / 3, "coverage_3": 2.0 / 3, "coverage_10": 1,       // n1 n2, then n3 at rank 5
	}
)

func readSampleNuggets(t *testing.T) NuggetQrels {
	t.Helper()
	n, err := ReadNuggetQrelsFile("testdata/sample.nuggets")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// merge returns the union of value maps.
func merge(ms ...map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func TestEvaluateSampleWithNuggets(t *testing.T) {
	qrels, run := readSample(t)
	nuggets := readSampleNuggets(t)
	got, err := Evaluate(qrels, run, Options{Ks: []int{10, 2, 3}, Nuggets: nuggets})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	undefined := map[string][]string{}
	for _, m := range sampleNuggetMeasures {
		undefined[m] = []string{"q2", "q3"}
	}
	want := Results{
		Measures: append(append([]string{}, sampleMeasures...), sampleNuggetMeasures...),
		Queries:  []string{"q1", "q2", "q3"},
		PerQuery: map[string]map[string]float64{
			"q1": merge(sampleQ1, sampleQ1Nuggets),
			"q2": sampleQ2,
			"q3": zeros(sampleMeasures),
		},
		// The standard means are over q1 q2 q3 as without nuggets; the
		// nugget means are over q1 alone.
		Mean:      merge(meansOf(3), sampleQ1Nuggets),
		Missing:   []string{"q4"},
		Unjudged:  []string{"q5"},
		Undefined: undefined,
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Evaluate mismatch (-want +got):\n%s", diff)
	}
	for m, n := range map[string]int{"map": 3, "alpha_ndcg_cut_10": 1, "coverage_2": 1} {
		if got := got.NumQueriesFor(m); got != n {
			t.Errorf("NumQueriesFor(%q) = %d, want %d", m, got, n)
		}
	}
}

func TestEvaluateNuggetOptions(t *testing.T) {
	log2 := math.Log2
	// Two nugget-judged queries; r is missing from the run.
	qrels := Qrels{"q": {"a": 1, "b": 1}, "r": {"b": 1}}
	nuggets := NuggetQrels{
		"q": {"a": {"n1": 1}, "b": {"n2": 1}, "c": {"n1": 1}},
		"r": {"b": {"n1": 1}},
	}
	// Scores order q as a c b; the rank column as c b a.
	run := Run{"q": {{"a", 3, 0.9}, {"c", 1, 0.5}, {"b", 2, 0.1}}}
	// q's pool (id descending) c b a. Ideal: all gain 1 at rank 1, c (the
	// largest id); then b 1, a 0.5: b. ideal@2 = 1 + 1/log2 3.
	ideal2 := 1 + 1/log2(3)
	tests := []struct {
		name string
		opts Options
		want map[string]float64 // means
		nq   int
	}{
		{
			// a 1, c covers n1 again: 0.5/log2 3. recip_rank 1 (a relevant).
			// map: a at rank 1, b at rank 3: (1 + 2/3)/2 = 5/6.
			name: "score order",
			opts: Options{Ks: []int{2}, Nuggets: nuggets},
			want: map[string]float64{
				"map": 5.0 / 6, "recip_rank": 1, "P_2": 0.5, "recall_2": 0.5,
				"ndcg_cut_2": 1 / ideal2, "alpha_ndcg_cut_2": (1 + 0.5/log2(3)) / ideal2, "coverage_2": 0.5,
			},
			nq: 1,
		},
		{
			// c 1, b 1/log2 3: the ideal itself. recip_rank 1/2 (b).
			// map: b at rank 2 (1/2), a at rank 3 (2/3): (1/2 + 2/3)/2.
			name: "rank order",
			opts: Options{Ks: []int{2}, Nuggets: nuggets, ByRank: true},
			want: map[string]float64{
				"map": 7.0 / 12, "recip_rank": 0.5, "P_2": 0.5, "recall_2": 0.5,
				"ndcg_cut_2": (1 / log2(3)) / ideal2, "alpha_ndcg_cut_2": 1, "coverage_2": 1,
			},
			nq: 1,
		},
		{
			// r is averaged as 0: it has nuggets, so it is defined.
			name: "complete: missing query with nuggets scores 0",
			opts: Options{Ks: []int{2}, Nuggets: nuggets, Complete: true},
			want: map[string]float64{
				"map": 5.0 / 12, "recip_rank": 0.5, "P_2": 0.25, "recall_2": 0.25,
				"ndcg_cut_2": 0.5 / ideal2, "alpha_ndcg_cut_2": (1 + 0.5/log2(3)) / ideal2 / 2, "coverage_2": 0.25,
			},
			nq: 2,
		},
		{
			// α = 1: c's second cover of n1 gains nothing; the ideal (c, b)
			// is unchanged: 1/ideal2.
			name: "alpha option",
			opts: Options{Ks: []int{2}, Nuggets: nuggets, Alpha: 1},
			want: map[string]float64{
				"map": 5.0 / 6, "recip_rank": 1, "P_2": 0.5, "recall_2": 0.5,
				"ndcg_cut_2": 1 / ideal2, "alpha_ndcg_cut_2": 1 / ideal2, "coverage_2": 0.5,
			},
			nq: 1,
		},
		{
			// Nuggets feed nugget measures passed in Measures too.
			name: "custom measures read the nuggets",
			opts: Options{Measures: []Measure{Coverage(1), AlphaNDCG(2, 1)}, Nuggets: nuggets},
			want: map[string]float64{"coverage_1": 0.5, "alpha_ndcg_cut_2": 1 / ideal2},
			nq:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Evaluate(qrels, run, tt.opts)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Mean, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("means mismatch (-want +got):\n%s", diff)
			}
			if got.NumQueries() != tt.nq {
				t.Errorf("NumQueries() = %d, want %d", got.NumQueries(), tt.nq)
			}
			if got.Undefined != nil {
				t.Errorf("Undefined = %v, want nil: every query has nuggets", got.Undefined)
			}
		})
	}
}

func TestEvaluateNuggetErrors(t *testing.T) {
	qrels := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 1, 1}}}
	nuggets := NuggetQrels{"q": {"a": {"n": 1}}}
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "alpha above 1", opts: Options{Nuggets: nuggets, Alpha: 1.5}, wantErr: "alpha 1.5 is outside (0, 1]"},
		{name: "negative alpha", opts: Options{Nuggets: nuggets, Alpha: -0.5}, wantErr: "alpha -0.5 is outside (0, 1]"},
		{name: "NaN alpha", opts: Options{Nuggets: nuggets, Alpha: math.NaN()}, wantErr: "alpha NaN is outside (0, 1]"},
		{
			name:    "alpha and measures",
			opts:    Options{Nuggets: nuggets, Alpha: 0.3, Measures: []Measure{MAP()}},
			wantErr: "options set both alpha and measures",
		},
		{name: "alpha without nuggets", opts: Options{Alpha: 0.3}, wantErr: "options set alpha without nugget judgements"},
		{
			name:    "nuggets for other queries only",
			opts:    Options{Ks: []int{5}, Nuggets: NuggetQrels{"other": {"a": {"n": 1}}}},
			wantErr: `measure "alpha_ndcg_cut_5" is defined for none of the 1 queries averaged`,
		},
		{
			name:    "nugget measure without nuggets",
			opts:    Options{Measures: []Measure{MAP(), Coverage(3)}},
			wantErr: `measure "coverage_3" is defined for none of the 1 queries averaged`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(qrels, run, tt.opts)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Evaluate error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestResultsJSON(t *testing.T) {
	qrels, run := readSample(t)
	res, err := Evaluate(qrels, run, Options{Ks: []int{2}, Nuggets: readSampleNuggets(t)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"mean", "measures", "missing", "per_query", "queries", "undefined", "unjudged"}
	if diff := cmp.Diff(wantKeys, sortedKeys(keys)); diff != "" {
		t.Errorf("JSON keys mismatch (-want +got):\n%s", diff)
	}
	if got, want := string(keys["undefined"]), `{"alpha_ndcg_cut_2":["q2","q3"],"coverage_2":["q2","q3"]}`; got != want {
		t.Errorf("undefined = %s, want %s", got, want)
	}
	var back Results
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if diff := cmp.Diff(res, back); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}

	// Empty lists are left out.
	res, err = Evaluate(Qrels{"q": {"a": 1}}, Run{"q": {{"a", 1, 1}}}, Options{Ks: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	data, err = json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"missing", "unjudged", "undefined"} {
		if strings.Contains(string(data), `"`+key+`"`) {
			t.Errorf("JSON %s has empty %q", data, key)
		}
	}
}

func TestWriteTableSkipsUndefined(t *testing.T) {
	res := Results{
		Measures: []string{"map", "coverage_5"},
		Queries:  []string{"q1", "q2"},
		PerQuery: map[string]map[string]float64{
			"q1": {"map": 0.5, "coverage_5": 0.25},
			"q2": {"map": 1},
		},
		Mean:      map[string]float64{"map": 0.75, "coverage_5": 0.25},
		Undefined: map[string][]string{"coverage_5": {"q2"}},
	}
	var buf bytes.Buffer
	if err := res.WriteTable(&buf, true); err != nil {
		t.Fatal(err)
	}
	want := "map                   \tq1\t0.5000\n" +
		"coverage_5            \tq1\t0.2500\n" +
		"map                   \tq2\t1.0000\n" +
		"num_q                 \tall\t2\n" +
		"map                   \tall\t0.7500\n" +
		"coverage_5            \tall\t0.2500\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteTable mismatch (-want +got):\n%s", diff)
	}
}

// TestSampleNuggetTable checks files to table with nugget judgements
// against a golden whose nugget lines are sampleQ1Nuggets rounded to 4
// places (0.8801, 0.8037, 0.9380, 0.6667, 0.6667, 1.0000).
func TestSampleNuggetTable(t *testing.T) {
	qrels, run := readSample(t)
	res, err := Evaluate(qrels, run, Options{Ks: []int{2, 3, 10}, Nuggets: readSampleNuggets(t)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteTable(&buf, true); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "sample-nuggets.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("table mismatch with %s (-want +got):\n%s", path, diff)
	}
}
