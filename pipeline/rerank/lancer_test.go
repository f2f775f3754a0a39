package rerank

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

// toyCandidates and toyRatings are the toy example of the test vectors'
// README: 5 documents × 3 sub-questions, with one unparsable (−1) cell.
var toyCandidates = []Candidate{{"d0", 1}, {"d1", 0.5}, {"d2", 0.33}, {"d3", 0.25}, {"d4", 0.2}}

var toyRatings = [][]int{
	{2, 0, 0},  // d0
	{0, 2, 0},  // d1
	{2, 2, 0},  // d2
	{0, 0, 1},  // d3
	{0, 0, -1}, // d4
}

func TestAggregateToy(t *testing.T) {
	tests := []struct {
		name       string
		method     Method
		wantIDs    []string
		wantScores []float64
		wantGains  []float64
		wantPrefix int
	}{
		{
			// s = 2, 2, 4, 1, 0 (the −1 is below τ = 1); stable sort descending.
			name: "sum", method: Method{Sum, 1},
			wantIDs:    []string{"d2", "d0", "d1", "d3", "d4"},
			wantScores: []float64{4, 2, 2, 1, 0},
			wantPrefix: 5,
		},
		{
			// Plain sum: d4 scores −1.
			name: "sum tau=0", method: Method{Sum, 0},
			wantIDs:    []string{"d2", "d0", "d1", "d3", "d4"},
			wantScores: []float64{4, 2, 2, 1, -1},
			wantPrefix: 5,
		},
		{
			// s = 2, 2, 4, 0, 0 (d3's 1 is below τ = 2).
			name: "sum tau=2", method: Method{Sum, 2},
			wantIDs:    []string{"d2", "d0", "d1", "d3", "d4"},
			wantScores: []float64{4, 2, 2, 0, 0},
			wantPrefix: 5,
		},
		{
			// S = 2, 2, 4, 1, 0. Ascending stable argsort d4 d3 d0 d1 d2,
			// reversed: queue d2 d1 d0 d3 d4. Gains 4,2,2,1,0: take d2,
			// B = [2,2,0]. Gains d1 0, d0 0, d3 1, d4 0: take d3. Then all
			// gains are 0: the queue follows, d1 d0 d4.
			name: "greedy-sum", method: Method{GreedySum, 1},
			wantIDs:    []string{"d2", "d3", "d1", "d0", "d4"},
			wantScores: []float64{4, 1, 2, 2, 0},
			wantGains:  []float64{4, 1, 0, 0, 0},
			wantPrefix: 2,
		},
		{
			// Binary cells, S = 1, 1, 2, 1, 0; queue d2 d3 d1 d0 d4.
			// d2 covers 2 questions, then d3 covers the third.
			name: "greedy-coverage", method: Method{GreedyCoverage, 1},
			wantIDs:    []string{"d2", "d3", "d1", "d0", "d4"},
			wantScores: []float64{2, 1, 1, 1, 0},
			wantGains:  []float64{2, 1, 0, 0, 0},
			wantPrefix: 2,
		},
		{
			// a = 1, 1, 2, 1, 0: take d2, w = [.5, .5, 1]. a(d0) = .5,
			// a(d1) = .5, a(d3) = 1: take d3, w = [.5, .5, .5]. d0 and d1
			// tie at .5: the lower index d0 first, then d1 (.5). d4 covers
			// nothing and comes last.
			name: "greedy-alpha", method: Method{GreedyAlpha, 1},
			wantIDs:    []string{"d2", "d3", "d0", "d1", "d4"},
			wantScores: []float64{2, 1, 1, 1, 0},
			wantGains:  []float64{2, 1, 0.5, 0.5, 0},
			wantPrefix: 4,
		},
		{
			// At τ = 2 d3 covers nothing: d2 (2), d0 (.5), d1 (.5), then
			// d3 and d4 in first-stage order.
			name: "greedy-alpha tau=2", method: Method{GreedyAlpha, 2},
			wantIDs:    []string{"d2", "d0", "d1", "d3", "d4"},
			wantScores: []float64{2, 1, 1, 0, 0},
			wantGains:  []float64{2, 0.5, 0.5, 0, 0},
			wantPrefix: 3,
		},
		{
			// Per-question ranks (ties: lower index first; −1 below 0):
			// q0: d0 1, d2 2, d1 3, d3 4, d4 5
			// q1: d1 1, d2 2, d0 3, d3 4, d4 5
			// q2: d3 1, d0 2, d1 3, d2 4, d4 5
			// F(d0) = 1/61+1/63+1/62 ≈ .04819, F(d1) = 1/63+1/61+1/63 ≈ .04814,
			// F(d2) = 1/62+1/62+1/64 ≈ .04788, F(d3) = 1/64+1/64+1/61 ≈ .04764,
			// F(d4) = 3/65 ≈ .04615.
			name: "rrf", method: Method{Strategy: RRF},
			wantIDs: []string{"d0", "d1", "d2", "d3", "d4"},
			wantScores: []float64{
				1.0/61 + 1.0/63 + 1.0/62,
				1.0/63 + 1.0/61 + 1.0/63,
				1.0/62 + 1.0/62 + 1.0/64,
				1.0/64 + 1.0/64 + 1.0/61,
				3.0 / 65,
			},
			wantPrefix: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ties := range []TieBreak{TiesStable, TiesNumpy} { // identical below 17 items
				got, err := Aggregate(tt.method, toyCandidates, toyRatings, AggregateOptions{Ties: ties})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantIDs, got.IDs); diff != "" {
					t.Errorf("%s ties: ids (-want +got):\n%s", ties, diff)
				}
				if diff := cmp.Diff(tt.wantScores, got.Scores, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
					t.Errorf("%s ties: scores (-want +got):\n%s", ties, diff)
				}
				if diff := cmp.Diff(tt.wantGains, got.Gains); diff != "" {
					t.Errorf("%s ties: gains (-want +got):\n%s", ties, diff)
				}
				if got.Prefix != tt.wantPrefix {
					t.Errorf("%s ties: prefix = %d, want %d", ties, got.Prefix, tt.wantPrefix)
				}
				for k, i := range got.Order {
					if toyCandidates[i].ID != got.IDs[k] {
						t.Errorf("Order[%d] = %d (%s) but IDs[%d] = %s", k, i, toyCandidates[i].ID, k, got.IDs[k])
					}
				}
			}
		})
	}
}

func TestAggregateOptions(t *testing.T) {
	// Two docs cover q0 and q1 once each; d1 covers both.
	candidates := []Candidate{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	ratings := [][]int{
		{3, 0}, // a
		{3, 3}, // b
		{0, 3}, // c
	}
	// α = 1 zeroes a question's weight once covered: after b, a and c
	// both score 0, so they follow in first-stage order with gain 0.
	got, err := Aggregate(Method{GreedyAlpha, 1}, candidates, ratings, AggregateOptions{Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{2, 0, 0}, got.Gains); diff != "" {
		t.Errorf("alpha=1 gains (-want +got):\n%s", diff)
	}
	if got.Prefix != 1 {
		t.Errorf("alpha=1 prefix = %d, want 1", got.Prefix)
	}
	// κ = 1: ranks q0: a 1, b 2, c 3; q1: b 1, c 2, a 3.
	// F(a) = 1/2+1/4 = .75, F(b) = 1/3+1/2 ≈ .833, F(c) = 1/4+1/3 ≈ .583.
	got, err = Aggregate(Method{Strategy: RRF}, candidates, ratings, AggregateOptions{RRFK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{1.0/3 + 1.0/2, 1.0/2 + 1.0/4, 1.0/4 + 1.0/3}, got.Scores, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
		t.Errorf("rrf κ=1 scores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "a", "c"}, got.IDs); diff != "" {
		t.Errorf("rrf κ=1 ids (-want +got):\n%s", diff)
	}
}

func TestAggregateEmpty(t *testing.T) {
	for _, s := range Strategies() {
		m := Method{Strategy: s, Tau: 1}
		got, err := Aggregate(m, nil, nil, AggregateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if len(got.IDs) != 0 || len(got.Order) != 0 || got.Prefix != 0 {
			t.Errorf("%s: got %+v, want an empty aggregation", s, got)
		}
	}
}

func TestAggregateInvalid(t *testing.T) {
	two := []Candidate{{ID: "a"}, {ID: "b"}}
	tests := []struct {
		name       string
		method     Method
		candidates []Candidate
		ratings    [][]int
		opts       AggregateOptions
		want       string // part of the error message
	}{
		{"unknown strategy", Method{"max", 1}, two, [][]int{{1}, {2}}, AggregateOptions{}, `unknown aggregation strategy "max"`},
		{"tau too high", Method{Sum, 6}, two, [][]int{{1}, {2}}, AggregateOptions{}, "tau 6 is outside 0..5"},
		{"tau negative", Method{GreedySum, -1}, two, [][]int{{1}, {2}}, AggregateOptions{}, "tau -1 is outside 0..5"},
		{"coverage tau 0", Method{GreedyCoverage, 0}, two, [][]int{{1}, {2}}, AggregateOptions{}, "greedy-coverage: tau must be at least 1"},
		{"alpha tau 0", Method{GreedyAlpha, 0}, two, [][]int{{1}, {2}}, AggregateOptions{}, "greedy-alpha: tau must be at least 1"},
		{"rating too high", Method{Sum, 1}, two, [][]int{{1, 2}, {6, 0}}, AggregateOptions{}, `rating 6 of candidate "b" (row 1) for sub-question 0 is outside 0..5`},
		{"rating below -1", Method{Sum, 1}, two, [][]int{{-2, 2}, {1, 0}}, AggregateOptions{}, `rating -2 of candidate "a" (row 0) for sub-question 0`},
		{"ragged", Method{RRF, 0}, two, [][]int{{1, 2}, {1}}, AggregateOptions{}, `ratings row 1 (candidate "b") has 1 columns, row 0 has 2`},
		{"row count", Method{Sum, 1}, two, [][]int{{1}}, AggregateOptions{}, "ratings have 1 rows for 2 candidates"},
		{"no columns", Method{Sum, 1}, two, [][]int{{}, {}}, AggregateOptions{}, "no sub-question columns"},
		{"duplicate id", Method{Sum, 1}, []Candidate{{ID: "a"}, {ID: "a"}}, [][]int{{1}, {2}}, AggregateOptions{}, `candidate id "a" appears at positions 0 and 1`},
		{"empty id", Method{Sum, 1}, []Candidate{{ID: "a"}, {ID: ""}}, [][]int{{1}, {2}}, AggregateOptions{}, "candidate 1 has an empty id"},
		{"alpha", Method{GreedyAlpha, 1}, two, [][]int{{1}, {2}}, AggregateOptions{Alpha: 1.5}, "alpha 1.5 is outside (0, 1]"},
		{"kappa", Method{RRF, 0}, two, [][]int{{1}, {2}}, AggregateOptions{RRFK: -3}, "rrf: constant -3 is negative"},
		{"ties", Method{RRF, 0}, two, [][]int{{1}, {2}}, AggregateOptions{Ties: 7}, "unknown tie convention 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Aggregate(tt.method, tt.candidates, tt.ratings, tt.opts)
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Fatalf("error = %v, want one wrapping ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseMethod(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Method
		wantStr string
		wantErr string
	}{
		{name: "sum default tau", in: "sum", want: Method{Sum, 1}, wantStr: "sum"},
		{name: "sum tau 0", in: "sum:tau=0", want: Method{Sum, 0}, wantStr: "sum:tau=0"},
		{name: "sum tau 1 spelled", in: "sum:tau=1", want: Method{Sum, 1}, wantStr: "sum"},
		{name: "case and spaces", in: "  Greedy-Coverage : TAU = 3 ", want: Method{GreedyCoverage, 3}, wantStr: "greedy-coverage:tau=3"},
		{name: "greedy default tau", in: "greedy-sum", want: Method{GreedySum, 1}, wantStr: "greedy-sum:tau=1"},
		{name: "alpha", in: "greedy-alpha:tau=5", want: Method{GreedyAlpha, 5}, wantStr: "greedy-alpha:tau=5"},
		{name: "rrf", in: "rrf", want: Method{Strategy: RRF}, wantStr: "rrf"},
		{name: "rrf with tau", in: "rrf:tau=2", wantErr: "rrf takes no tau"},
		{name: "other parameter", in: "sum:alpha=2", wantErr: "want NAME or NAME:tau=N"},
		{name: "bad tau", in: "sum:tau=x", wantErr: `tau "x" is not an integer`},
		{name: "unknown", in: "maxsim", wantErr: `unknown aggregation strategy "maxsim"`},
		{name: "tau zero coverage", in: "greedy-alpha:tau=0", wantErr: "tau must be at least 1"},
		{name: "tau too high", in: "greedy-sum:tau=9", wantErr: "tau 9 is outside 0..5"},
		{name: "empty", in: "", wantErr: "unknown aggregation strategy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMethod(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseMethod(%q) error = %v, want ErrInvalid containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ParseMethod(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if got.String() != tt.wantStr {
				t.Errorf("String() = %q, want %q", got.String(), tt.wantStr)
			}
		})
	}
}

func TestNumpyArgsortHandTraced(t *testing.T) {
	// 17 equal values: one partition, then insertion sorts that move
	// nothing. Pivot position 8 is swapped with 15 ([…7,15,9…14,8,16]);
	// the scans stop at every item (none is strictly less or greater), so
	// positions 1↔14, 2↔13, …, 6↔9 and 7↔8 are swapped until pi = 8 and
	// pj = 7; finally the pivot slot 15 is swapped with position 8.
	// The left part [0..7] and right part [9..16] are ≤ 16 items each and
	// keep their order.
	v := make([]float64, 17)
	want := []int{0, 14, 13, 12, 11, 10, 9, 15, 8, 6, 5, 4, 3, 2, 1, 7, 16}
	if diff := cmp.Diff(want, numpyArgsort(v)); diff != "" {
		t.Errorf("numpyArgsort of 17 zeros (-want +got):\n%s", diff)
	}
	// The stable convention keeps 0..16.
	if diff := cmp.Diff(identity(17), argsortAscending(v, TiesStable)); diff != "" {
		t.Errorf("stable argsort of 17 zeros (-want +got):\n%s", diff)
	}
}

func TestNumpyArgsortSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := rng.IntN(300)
		v := make([]float64, n)
		distinct := 1 + rng.IntN(8) // few distinct values: many ties
		for i := range v {
			v[i] = float64(rng.IntN(distinct))
		}
		got := numpyArgsort(v)
		if !isArgsort(v, got) {
			t.Fatalf("trial %d: numpyArgsort(%v) = %v is not an ascending permutation", trial, v, got)
		}
		// Segments of at most 16 items are insertion-sorted: stable.
		if n <= 16 && !slices.Equal(got, argsortAscending(v, TiesStable)) {
			t.Fatalf("trial %d: n = %d but numpyArgsort is not stable: %v", trial, n, got)
		}
		idx := identity(n)
		numpyHeapsort(v, idx)
		if !isArgsort(v, idx) {
			t.Fatalf("trial %d: numpyHeapsort(%v) = %v is not an ascending permutation", trial, v, idx)
		}
	}
}

// isArgsort reports whether order is a permutation of v's positions with
// non-decreasing values.
func isArgsort(v []float64, order []int) bool {
	if len(order) != len(v) {
		return false
	}
	seen := make([]bool, len(v))
	for k, i := range order {
		if i < 0 || i >= len(v) || seen[i] {
			return false
		}
		seen[i] = true
		if k > 0 && v[order[k-1]] > v[i] {
			return false
		}
	}
	return true
}
