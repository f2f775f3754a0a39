package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The nugget example used below:
//
//	judgements: a covers n1 n2; b covers n1; c covers n3 (grade 2 counts
//	            as 1); d is judged for n2 but covers nothing (0); e has a
//	            negative grade for n1 (covers nothing).
//	run:        b 0.9, x 0.8 (not judged), a 0.7, d 0.6, c 0.5
//
// The query's nuggets are n1 n2 n3 (indexes 0 1 2). The ideal pool is the
// covering documents in id descending order: c b a.
//
// Greedy ideal, α = 0.5: rank 1 gains c 1, b 1, a 2: a. Weights n1 0.5,
// n2 0.5, n3 1. Rank 2: c 1, b 0.5: c. Rank 3: b 0.5. So
//
//	ideal@1 = 2, ideal@2 = 2 + 1/log2(3), ideal@3 = ideal@2 + 0.5/log2(4),
//
// and no further gain (the pool has three documents).
//
// Run, α = 0.5: b gains 1 at rank 1; x nothing; a at rank 3 gains
// 0.5 (n1, seen once) + 1 (n2) = 1.5, discounted by log2(4) = 2: 0.75;
// d nothing; c at rank 5 gains 1, discounted by log2(6).
var (
	exNuggets = map[string]map[string]int{
		"a": {"n1": 1, "n2": 1},
		"b": {"n1": 1},
		"c": {"n3": 2},
		"d": {"n2": 0},
		"e": {"n1": -1},
	}
	exEntries = []RunEntry{
		{"b", 1, 0.9}, {"x", 2, 0.8}, {"a", 3, 0.7}, {"d", 4, 0.6}, {"c", 5, 0.5},
	}
	exIdeal = []float64{0, 2, 2 + 1/math.Log2(3), 2 + 1/math.Log2(3) + 0.5/2} // by k
)

func TestNewRankingWithNuggets(t *testing.T) {
	got := NewRankingWithNuggets("q", map[string]int{"a": 2, "b": 1}, exNuggets, exEntries)
	want := &Ranking{
		QueryID:    "q",
		DocIDs:     []string{"b", "x", "a", "d", "c"},
		Grades:     []int{1, 0, 2, 0, 0},
		Judged:     []bool{true, false, true, false, false},
		NumRel:     2,
		Ideal:      []int{2, 1},
		Nuggets:    []string{"n1", "n2", "n3"},
		Covers:     [][]int{{0}, nil, {0, 1}, nil, {2}},
		PoolDocIDs: []string{"c", "b", "a"},
		PoolCovers: [][]int{{2}, {0}, {0, 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewRankingWithNuggets mismatch (-want +got):\n%s", diff)
	}

	// Without covered nuggets the nugget fields stay nil.
	for name, judgements := range map[string]map[string]map[string]int{
		"nil":          nil,
		"none covered": {"a": {"n1": 0}, "b": {"n2": -1}},
	} {
		r := NewRankingWithNuggets("q", nil, judgements, exEntries)
		if r.Nuggets != nil || r.Covers != nil || r.PoolDocIDs != nil || r.PoolCovers != nil {
			t.Errorf("%s: nugget fields = %v %v %v %v, want all nil",
				name, r.Nuggets, r.Covers, r.PoolDocIDs, r.PoolCovers)
		}
	}
}

func TestNuggetMeasures(t *testing.T) {
	log2 := math.Log2
	tieNuggets := map[string]map[string]int{
		"a": {"n1": 1, "n3": 1}, "b": {"n2": 1, "n4": 1}, "c": {"n3": 1, "n4": 1},
	}
	tests := []struct {
		name       string
		measure    Measure
		judgements map[string]map[string]int
		entries    []RunEntry
		want       float64
	}{
		// alpha_ndcg_cut_k on the example.
		{
			// b gains 1; ideal@1 = 2 (a covers two nuggets): 1/2.
			name: "alpha_ndcg_cut_1", measure: AlphaNDCG(1, 0.5),
			judgements: exNuggets, entries: exEntries, want: 0.5,
		},
		{
			// b 1, x 0 (not judged: no gain): 1 / (2 + 1/log2 3) = 0.3801.
			name: "alpha_ndcg_cut_2 unjudged document gains nothing", measure: AlphaNDCG(2, 0.5),
			judgements: exNuggets, entries: exEntries, want: 1 / exIdeal[2],
		},
		{
			// a covers n1 (seen: 0.5) and n2 (new: 1): 1.5/log2 4 = 0.75.
			// (1 + 0.75) / (2 + 1/log2 3 + 0.25) = 0.6074.
			name: "alpha_ndcg_cut_3 document covering several nuggets", measure: AlphaNDCG(3, 0.5),
			judgements: exNuggets, entries: exEntries, want: 1.75 / exIdeal[3],
		},
		{
			// c adds 1/log2 6 at rank 5; the ideal has nothing after rank 3:
			// (1.75 + 0.3869) / 2.8809 = 0.7417.
			name: "alpha_ndcg_cut_10 beyond the ideal pool", measure: AlphaNDCG(10, 0.5),
			judgements: exNuggets, entries: exEntries, want: (1.75 + 1/log2(6)) / exIdeal[3],
		},
		{
			// Ranked a b (a at its best score 0.7, once): a 2, b 0.5/log2 3.
			// Counting a's 0.2 copy at rank 3 would add (0.25 + 0.5)/2.
			name: "alpha_ndcg_cut_3 duplicate document counted once", measure: AlphaNDCG(3, 0.5),
			judgements: exNuggets,
			entries:    []RunEntry{{"a", 1, 0.2}, {"b", 2, 0.5}, {"a", 3, 0.7}},
			want:       (2 + 0.5/log2(3)) / exIdeal[3],
		},
		{
			// All scores tie: trec_eval order is id descending, c b a.
			// c 1, b 1/log2 3: 1.6309/2.6309 = 0.6199. Ascending ids (a b)
			// would give (2 + 0.5/log2 3)/2.6309 = 0.8801.
			name: "alpha_ndcg_cut_2 tied scores by id descending", measure: AlphaNDCG(2, 0.5),
			judgements: exNuggets,
			entries:    []RunEntry{{"a", 1, 1}, {"b", 2, 1}, {"c", 3, 1}},
			want:       (1 + 1/log2(3)) / exIdeal[2],
		},
		{
			// Ideal: a, c and b all gain 2 at rank 1; the tie goes to the
			// largest id, c (n3 n4). Then a (n1, n3 seen) and b (n2, n4 seen)
			// both gain 1.5: b. ideal@2 = 2 + 1.5/log2 3 = 2.9464.
			// Run a b: a 2, b 2/log2 3: 3.2619/2.9464 = 1.1071. The greedy
			// ideal is not optimal (a then b is better), so the score
			// exceeds 1; had the tie gone to a, the ideal would be a b and
			// the score 1.
			name: "alpha_ndcg_cut_2 ideal ties to the largest id", measure: AlphaNDCG(2, 0.5),
			judgements: tieNuggets,
			entries:    []RunEntry{{"a", 1, 2}, {"b", 2, 1}},
			want:       (2 + 2/log2(3)) / (2 + 1.5/log2(3)),
		},
		{
			name: "alpha_ndcg_cut_5 nothing covering retrieved", measure: AlphaNDCG(5, 0.5),
			judgements: exNuggets,
			entries:    []RunEntry{{"x", 1, 2}, {"d", 2, 1}, {"e", 3, 0}},
			want:       0,
		},
		{
			// α = 1: only a nugget's first cover gains. b 1; a gains 0 for n1
			// and 1 for n2, /log2 4: 0.5. Ideal: a 2, c 1/log2 3, then b
			// gains 0. 1.5 / (2 + 1/log2 3) = 0.5701.
			name: "alpha 1", measure: AlphaNDCG(3, 1),
			judgements: exNuggets, entries: exEntries, want: 1.5 / (2 + 1/log2(3)),
		},
		{
			// α = 0: a document gains the number of nuggets it covers.
			// b 1, a 2/log2 4 = 1. Ideal: a 2, then c and b tie at 1 (c
			// first, then b): 2 + 1/log2 3 + 1/2. 2 / 3.1309 = 0.6388.
			name: "alpha 0", measure: AlphaNDCG(3, 0),
			judgements: exNuggets, entries: exEntries, want: 2 / (2.5 + 1/log2(3)),
		},
		{
			name: "alpha_ndcg_cut_10 no nuggets scores 0", measure: AlphaNDCG(10, 0.5),
			judgements: map[string]map[string]int{"b": {"n1": 0}}, entries: exEntries, want: 0,
		},

		// coverage_k: covered nuggets among n1 n2 n3.
		{
			name: "coverage_1", measure: Coverage(1),
			judgements: exNuggets, entries: exEntries, want: 1.0 / 3, // b: n1
		},
		{
			name: "coverage_2", measure: Coverage(2),
			judgements: exNuggets, entries: exEntries, want: 1.0 / 3, // x adds nothing
		},
		{
			name: "coverage_3", measure: Coverage(3),
			judgements: exNuggets, entries: exEntries, want: 2.0 / 3, // a adds n2
		},
		{
			name: "coverage_5", measure: Coverage(5),
			judgements: exNuggets, entries: exEntries, want: 1, // c adds n3
		},
		{
			// Ranked a b: a covers n1 n2, b only n1 again: 2/3, not more.
			name: "coverage_3 duplicate document", measure: Coverage(3),
			judgements: exNuggets,
			entries:    []RunEntry{{"a", 1, 0.2}, {"b", 2, 0.5}, {"a", 3, 0.7}},
			want:       2.0 / 3,
		},
		{
			// Tied: c b a. Top 1 is c (n3); ascending ids would give a (n1 n2).
			name: "coverage_1 tied scores by id descending", measure: Coverage(1),
			judgements: exNuggets,
			entries:    []RunEntry{{"a", 1, 1}, {"b", 2, 1}, {"c", 3, 1}},
			want:       1.0 / 3,
		},
		{
			name: "coverage_10 no nuggets scores 0", measure: Coverage(10),
			judgements: nil, entries: exEntries, want: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRankingWithNuggets("q", nil, tt.judgements, tt.entries)
			got := tt.measure.Compute(r)
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("%s = %.10f, want %.10f", tt.measure.Name, got, tt.want)
			}
		})
	}
}

func TestNuggetMeasuresDefined(t *testing.T) {
	tests := []struct {
		name       string
		judgements map[string]map[string]int
		entries    []RunEntry
		want       bool
	}{
		{name: "covered nuggets", judgements: exNuggets, entries: exEntries, want: true},
		{name: "covered nuggets, none retrieved", judgements: exNuggets, entries: []RunEntry{{"x", 1, 1}}, want: true},
		{name: "covered nuggets, empty run", judgements: exNuggets, entries: nil, want: true},
		{name: "no nugget judgements", judgements: nil, entries: exEntries, want: false},
		{name: "only non-covering judgements", judgements: map[string]map[string]int{"a": {"n": 0}}, entries: exEntries, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRankingWithNuggets("q", nil, tt.judgements, tt.entries)
			for _, m := range []Measure{AlphaNDCG(5, 0.5), Coverage(5)} {
				if got := m.Defined(r); got != tt.want {
					t.Errorf("%s Defined = %v, want %v", m.Name, got, tt.want)
				}
			}
		})
	}
	for _, m := range []Measure{MAP(), RecipRank(), Precision(1), Recall(1), NDCGCut(1)} {
		if m.Defined != nil {
			t.Errorf("%s has a Defined function; the standard measures are defined for every query", m.Name)
		}
	}
}

func TestAlphaNDCGRejectsBadAlpha(t *testing.T) {
	for _, alpha := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AlphaNDCG(10, %v) did not panic", alpha)
				}
			}()
			AlphaNDCG(10, alpha)
		}()
	}
}

func TestNuggetMeasuresSet(t *testing.T) {
	ms, err := NuggetMeasures([]int{10, 5}, 0.3)
	if err != nil {
		t.Fatalf("NuggetMeasures: %v", err)
	}
	want := []string{"alpha_ndcg_cut_5", "alpha_ndcg_cut_10", "coverage_5", "coverage_10"}
	if diff := cmp.Diff(want, measureNames(ms)); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	// The α given is the one used: alpha_ndcg_cut_5 with α = 0.3 on the
	// example. b 1; a 0.7 + 1 = 1.7 at rank 3, /2 = 0.85; c 1/log2 6.
	// Ideal: a 2; then c 1 beats b 0.7; then b 0.7/2.
	r := NewRankingWithNuggets("q", nil, exNuggets, exEntries)
	wantValue := (1 + 0.85 + 1/math.Log2(6)) / (2 + 1/math.Log2(3) + 0.35)
	if got := ms[0].Compute(r); math.Abs(got-wantValue) > 1e-12 {
		t.Errorf("alpha_ndcg_cut_5 with α 0.3 = %.10f, want %.10f", got, wantValue)
	}

	for _, tt := range []struct {
		cutoffs []int
		alpha   float64
		wantErr string
	}{
		{cutoffs: []int{0}, alpha: 0.5, wantErr: "cutoff 0 is not positive"},
		{cutoffs: []int{5, 5}, alpha: 0.5, wantErr: "cutoff 5 given twice"},
		{cutoffs: []int{5}, alpha: 2, wantErr: "alpha 2 is outside [0, 1]"},
		{cutoffs: []int{5}, alpha: math.NaN(), wantErr: "alpha NaN is outside [0, 1]"},
	} {
		if _, err := NuggetMeasures(tt.cutoffs, tt.alpha); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("NuggetMeasures(%v, %v) error = %v, want %q", tt.cutoffs, tt.alpha, err, tt.wantErr)
		}
	}
}

func TestParseNuggetMeasures(t *testing.T) {
	ms, err := ParseMeasures("alpha_ndcg_cut.10,5", "coverage.20", "map")
	if err != nil {
		t.Fatalf("ParseMeasures: %v", err)
	}
	want := []string{"alpha_ndcg_cut_5", "alpha_ndcg_cut_10", "coverage_20", "map"}
	if diff := cmp.Diff(want, measureNames(ms)); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	// The parsed measures are the constructors' with DefaultAlpha.
	r := NewRankingWithNuggets("q", nil, exNuggets, exEntries)
	if got, want := ms[1].Compute(r), AlphaNDCG(10, DefaultAlpha).Compute(r); got != want {
		t.Errorf("parsed alpha_ndcg_cut.10 = %v, AlphaNDCG(10, 0.5) = %v", got, want)
	}
	if got, want := ms[2].Compute(r), Coverage(20).Compute(r); got != want {
		t.Errorf("parsed coverage.20 = %v, Coverage(20) = %v", got, want)
	}
	if ms[1].Defined == nil || ms[2].Defined == nil {
		t.Error("parsed nugget measures lack their Defined function")
	}
}
