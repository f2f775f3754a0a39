package eval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// The graded example used throughout (query q2 of testdata/sample.*):
//
//	qrels: a=3 b=2 c=1 d=0 e=-1 f=2
//	run:   c 0.9, e 0.8, a 0.7, x 0.6, b 0.5, d 0.4
//
// Ranked: c e a x b d, grades 1 -1 3 (x unjudged: 0) 2 0.
// Relevant (grade ≥ 1) in the qrels: a b c f, so NumRel = 4.
// Ideal gains: 3 2 2 1 (a, b and f, c).
var (
	gradedQrels   = map[string]int{"a": 3, "b": 2, "c": 1, "d": 0, "e": -1, "f": 2}
	gradedEntries = []RunEntry{
		{"c", 1, 0.9}, {"e", 2, 0.8}, {"a", 3, 0.7}, {"x", 4, 0.6}, {"b", 5, 0.5}, {"d", 6, 0.4},
	}
)

func TestNewRanking(t *testing.T) {
	got := NewRanking("q2", gradedQrels, gradedEntries)
	want := &Ranking{
		QueryID: "q2",
		DocIDs:  []string{"c", "e", "a", "x", "b", "d"},
		Grades:  []int{1, -1, 3, 0, 2, 0},
		Judged:  []bool{true, true, true, false, true, true},
		NumRel:  4,
		Ideal:   []int{3, 2, 2, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewRanking mismatch (-want +got):\n%s", diff)
	}
}

func TestMeasures(t *testing.T) {
	log2 := math.Log2
	tests := []struct {
		name       string
		measure    Measure
		judgements map[string]int
		entries    []RunEntry
		want       float64
	}{
		// map
		{
			// Relevant at ranks 1, 3, 5: (1/1 + 2/3 + 3/5) / 4 = (34/15)/4 = 17/30.
			name: "map graded, unretrieved relevant f in the denominator", measure: MAP(),
			judgements: gradedQrels, entries: gradedEntries, want: 17.0 / 30,
		},
		{
			// d1 2.0, then the 1.0 tie in order d3 d2 d10: relevant at 1 and 2,
			// (1/1 + 2/2) / 2 = 1. Ascending ids would give d10 d2 d3 and 0.75.
			name: "map ties broken by id descending", measure: MAP(),
			judgements: map[string]int{"d1": 1, "d3": 1, "d5": 0},
			entries:    []RunEntry{{"d1", 1, 2}, {"d2", 2, 1}, {"d10", 3, 1}, {"d3", 4, 1}, {"d9", 5, 0.5}},
			want:       1,
		},
		{
			// a counts once, at its best score: ranked a b, (1/1)/1 = 1.
			// Counting the 0.2 copy too would give (1/1 + 2/3)/1.
			name: "map duplicate document counted once", measure: MAP(),
			judgements: map[string]int{"a": 1},
			entries:    []RunEntry{{"a", 1, 0.2}, {"b", 2, 0.5}, {"a", 3, 0.7}},
			want:       1,
		},
		{
			name: "map no relevant retrieved", measure: MAP(),
			judgements: map[string]int{"a": 1, "b": 0},
			entries:    []RunEntry{{"b", 1, 2}, {"z", 2, 1}},
			want:       0,
		},
		{
			name: "map query without relevant documents", measure: MAP(),
			judgements: map[string]int{"a": 0}, entries: []RunEntry{{"a", 1, 1}}, want: 0,
		},
		{
			// Unjudged z and non-relevant b are misses: relevant at 3, (1/3)/1.
			name: "map documents missing from qrels are non-relevant", measure: MAP(),
			judgements: map[string]int{"a": 1, "b": 0},
			entries:    []RunEntry{{"z", 1, 3}, {"b", 2, 2}, {"a", 3, 1}},
			want:       1.0 / 3,
		},

		// recip_rank
		{
			name: "recip_rank first relevant at rank 1", measure: RecipRank(),
			judgements: gradedQrels, entries: gradedEntries, want: 1,
		},
		{
			name: "recip_rank first relevant at rank 3", measure: RecipRank(),
			judgements: map[string]int{"a": 2, "b": 0},
			entries:    []RunEntry{{"z", 1, 3}, {"b", 2, 2}, {"a", 3, 1}},
			want:       1.0 / 3,
		},
		{
			name: "recip_rank none relevant", measure: RecipRank(),
			judgements: map[string]int{"a": 0}, entries: []RunEntry{{"a", 1, 1}}, want: 0,
		},

		// P_k
		{
			// Top 2: c (1), e (-1): 1/2.
			name: "P_2", measure: Precision(2),
			judgements: gradedQrels, entries: gradedEntries, want: 0.5,
		},
		{
			// Top 3: c, e, a: 2/3.
			name: "P_3", measure: Precision(3),
			judgements: gradedQrels, entries: gradedEntries, want: 2.0 / 3,
		},
		{
			// Six retrieved, three relevant: 3/10, not 3/6.
			name: "P_10 beyond the list divides by k", measure: Precision(10),
			judgements: gradedQrels, entries: gradedEntries, want: 0.3,
		},

		// recall_k
		{
			// Top 3 hold c and a of the 4 relevant: 2/4.
			name: "recall_3", measure: Recall(3),
			judgements: gradedQrels, entries: gradedEntries, want: 0.5,
		},
		{
			// All 6 retrieved hold c, a, b: 3/4; f is never retrieved.
			name: "recall_10 beyond the list", measure: Recall(10),
			judgements: gradedQrels, entries: gradedEntries, want: 0.75,
		},
		{
			name: "recall with no relevant documents", measure: Recall(10),
			judgements: map[string]int{"a": 0}, entries: []RunEntry{{"a", 1, 1}}, want: 0,
		},

		// ndcg_cut_k, linear gain, discount log2(rank+1)
		{
			// DCG@2 = 1/log2(2) + 0 (e's -1 gains nothing) = 1.
			// IDCG@2 = 3/log2(2) + 2/log2(3) = 3 + 1.2618595 = 4.2618595.
			// 1 / 4.2618595 = 0.2346394.
			name: "ndcg_cut_2 graded", measure: NDCGCut(2),
			judgements: gradedQrels, entries: gradedEntries,
			want: 1 / (3 + 2/log2(3)),
		},
		{
			// DCG@3 = 1 + 0 + 3/log2(4) = 2.5.
			// IDCG@3 = 3 + 2/log2(3) + 2/log2(4) = 5.2618595.
			// 2.5 / 5.2618595 = 0.4751172.
			name: "ndcg_cut_3 graded", measure: NDCGCut(3),
			judgements: gradedQrels, entries: gradedEntries,
			want: 2.5 / (3 + 2/log2(3) + 1),
		},
		{
			// DCG = 1 + 3/log2(4) + 2/log2(6) = 1 + 1.5 + 0.7737056 = 3.2737056
			// (b at rank 5; d at rank 6 gains 0).
			// IDCG = 3 + 2/log2(3) + 2/log2(4) + 1/log2(5) = 5.6925361: all four
			// ideal gains fit under k=10.
			// 3.2737056 / 5.6925361 = 0.5750874. (Gain 2^g-1 would give 0.5230.)
			name: "ndcg_cut_10 linear gain, k beyond list and ideal", measure: NDCGCut(10),
			judgements: gradedQrels, entries: gradedEntries,
			want: (1 + 3/log2(4) + 2/log2(6)) / (3 + 2/log2(3) + 2/log2(4) + 1/log2(5)),
		},
		{
			name: "ndcg_cut perfect ranking", measure: NDCGCut(5),
			judgements: map[string]int{"a": 2, "b": 1},
			entries:    []RunEntry{{"a", 1, 2}, {"b", 2, 1}, {"z", 3, 0}},
			want:       1,
		},
		{
			// Ideal is every positive grade; the query has none: 0, not NaN.
			name: "ndcg_cut no positive grade", measure: NDCGCut(10),
			judgements: map[string]int{"a": 0, "b": -1},
			entries:    []RunEntry{{"a", 1, 2}, {"b", 2, 1}},
			want:       0,
		},
		{
			// Retrieved order b a: DCG = 1 + 2/log2(3) = 2.2618595;
			// IDCG = 2 + 1/log2(3) = 2.6309298; 0.8597186.
			name: "ndcg_cut swapped pair", measure: NDCGCut(10),
			judgements: map[string]int{"a": 2, "b": 1},
			entries:    []RunEntry{{"b", 1, 2}, {"a", 2, 1}},
			want:       (1 + 2/log2(3)) / (2 + 1/log2(3)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRanking("q", tt.judgements, tt.entries)
			got := tt.measure.Compute(r)
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("%s = %.10f, want %.10f", tt.measure.Name, got, tt.want)
			}
		})
	}
}

func TestMeasuresOnEmptyRanking(t *testing.T) {
	ms, err := StandardMeasures([]int{1, 10})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRanking("q", map[string]int{"a": 1}, nil)
	for _, m := range ms {
		if got := m.Compute(r); got != 0 {
			t.Errorf("%s on an empty ranking = %v, want 0", m.Name, got)
		}
	}
}

func measureNames(ms []Measure) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}

func TestStandardMeasures(t *testing.T) {
	tests := []struct {
		name    string
		cutoffs []int
		want    []string
	}{
		{
			name:    "cutoffs sorted ascending",
			cutoffs: []int{10, 2},
			want: []string{"map", "recip_rank", "P_2", "P_10", "recall_2", "recall_10",
				"ndcg_cut_2", "ndcg_cut_10"},
		},
		{
			name:    "no cutoffs",
			cutoffs: []int{},
			want:    []string{"map", "recip_rank"},
		},
		{
			name:    "nil means trec_eval defaults",
			cutoffs: nil,
			want: []string{"map", "recip_rank",
				"P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000",
				"recall_5", "recall_10", "recall_15", "recall_20", "recall_30", "recall_100", "recall_200", "recall_500", "recall_1000",
				"ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_15", "ndcg_cut_20", "ndcg_cut_30", "ndcg_cut_100", "ndcg_cut_200", "ndcg_cut_500", "ndcg_cut_1000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := StandardMeasures(tt.cutoffs)
			if err != nil {
				t.Fatalf("StandardMeasures: %v", err)
			}
			if diff := cmp.Diff(tt.want, measureNames(ms)); diff != "" {
				t.Errorf("names mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStandardMeasuresErrors(t *testing.T) {
	tests := []struct {
		name    string
		cutoffs []int
		wantErr string
	}{
		{name: "zero", cutoffs: []int{10, 0}, wantErr: "cutoff 0 is not positive"},
		{name: "negative", cutoffs: []int{-5}, wantErr: "cutoff -5 is not positive"},
		{name: "duplicate", cutoffs: []int{10, 5, 10}, wantErr: "cutoff 10 given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StandardMeasures(tt.cutoffs)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseMeasures(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  []string
	}{
		{name: "single measures", specs: []string{"map", "recip_rank"}, want: []string{"map", "recip_rank"}},
		{name: "one cutoff", specs: []string{"ndcg_cut.10"}, want: []string{"ndcg_cut_10"}},
		{name: "cutoff list sorted", specs: []string{"P.30,5"}, want: []string{"P_5", "P_30"}},
		{
			name:  "default cutoffs",
			specs: []string{"recall"},
			want: []string{"recall_5", "recall_10", "recall_15", "recall_20", "recall_30",
				"recall_100", "recall_200", "recall_500", "recall_1000"},
		},
		{name: "repeats kept once", specs: []string{"map", "P.10", "map", "P.5,10"}, want: []string{"map", "P_10", "P_5"}},
		{name: "none", specs: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := ParseMeasures(tt.specs...)
			if err != nil {
				t.Fatalf("ParseMeasures: %v", err)
			}
			var got []string
			if ms != nil {
				got = measureNames(ms)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names mismatch (-want +got):\n%s", diff)
			}
		})
	}

	// The parsed measure computes what the constructor's does.
	ms, err := ParseMeasures("ndcg_cut.3")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRanking("q2", gradedQrels, gradedEntries)
	if got, want := ms[0].Compute(r), NDCGCut(3).Compute(r); got != want {
		t.Errorf("parsed ndcg_cut.3 = %v, NDCGCut(3) = %v", got, want)
	}
}

func TestParseMeasuresErrors(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		wantErr string
	}{
		{name: "unknown", spec: "ndcg", wantErr: `unknown measure "ndcg"`},
		{name: "cutoff on single measure", spec: "map.10", wantErr: `measure "map" takes no cutoffs`},
		{name: "empty cutoff list", spec: "P.", wantErr: `measure "P.": cutoff "" is not a whole number`},
		{name: "word cutoff", spec: "recall.ten", wantErr: `measure "recall.ten": cutoff "ten" is not a whole number`},
		{name: "zero cutoff", spec: "P.0", wantErr: `measure "P.0": invalid input: cutoff 0 is not positive`},
		{name: "duplicate cutoff", spec: "ndcg_cut.5,5", wantErr: `cutoff 5 given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMeasures("map", tt.spec)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}
