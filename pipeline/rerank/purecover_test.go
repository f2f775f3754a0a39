package rerank

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

var approx = cmpopts.EquateApprox(0, 1e-12)

func TestPureCoverHandComputed(t *testing.T) {
	// Two requirements weighted w = [0.6, 0.4].
	candidates := []Candidate{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	weights := []float64{0.6, 0.4}
	support := [][]float64{
		{0.5, 0.0}, // a: noise 1 − max(.5·.6, 0) = 0.7
		{0.4, 0.0}, // b: noise 1 − .4·.6 = 0.76
		{0.0, 0.9}, // c: noise 1 − .9·.4 = 0.64
	}
	tests := []struct {
		name string
		opts CoverOptions
		want CoverSelection
	}{
		{
			// λ = 0.3. Step 1 gains: a .6·.5 − .3·.7 = .09; b .24 − .228 =
			// .012; c .4·.9 − .3·.64 = .168 → c; residual [1, .1];
			// coverage .36, noise .64, objective .36 − .192 = .168.
			// Step 2: a .6·1·.5 − .21 = .09; b .24 − .228 = .012 → a;
			// residual [.5, .1]; coverage .6·.5 + .4·.9 = .66, noise 1.34,
			// objective .66 − .402 = .258.
			// Step 3: b .6·.5·.4 − .228 = −.108 ≤ 0 → stop early.
			name: "lambda 0.3", opts: CoverOptions{K: 3, Lambda: 0.3},
			want: CoverSelection{
				Selected: []int{2, 0}, IDs: []string{"c", "a"},
				Steps: []CoverStep{
					{Position: 2, ID: "c", Gain: 0.168, Value: CoverValue{Coverage: 0.36, Noise: 0.64, Objective: 0.168}},
					{Position: 0, ID: "a", Gain: 0.09, Value: CoverValue{Coverage: 0.66, Noise: 1.34, Objective: 0.258}},
				},
				StoppedEarly: true,
			},
		},
		{
			// λ = 0: gains c .36, a .3, then b .6·.5·.4 = .12; coverage
			// .6·(1 − .5·.6) + .4·.9 = .42 + .36 = .78.
			name: "pure coverage", opts: CoverOptions{K: 3, Lambda: 0},
			want: CoverSelection{
				Selected: []int{2, 0, 1}, IDs: []string{"c", "a", "b"},
				Steps: []CoverStep{
					{Position: 2, ID: "c", Gain: 0.36, Value: CoverValue{Coverage: 0.36, Noise: 0.64, Objective: 0.36}},
					{Position: 0, ID: "a", Gain: 0.3, Value: CoverValue{Coverage: 0.66, Noise: 1.34, Objective: 0.66}},
					{Position: 1, ID: "b", Gain: 0.12, Value: CoverValue{Coverage: 0.78, Noise: 2.1, Objective: 0.78}},
				},
			},
		},
		{
			// K = 1 stops at the budget, not early.
			name: "budget", opts: CoverOptions{K: 1, Lambda: 0.3},
			want: CoverSelection{
				Selected: []int{2}, IDs: []string{"c"},
				Steps: []CoverStep{
					{Position: 2, ID: "c", Gain: 0.168, Value: CoverValue{Coverage: 0.36, Noise: 0.64, Objective: 0.168}},
				},
			},
		},
		{
			// λ = 1: every gain is negative (c: .36 − .64), nothing is chosen.
			name: "all noise", opts: CoverOptions{K: 3, Lambda: 1},
			want: CoverSelection{Selected: []int{}, IDs: []string{}, Steps: []CoverStep{}, StoppedEarly: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PureCover(candidates, weights, support, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("PureCover (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPureCoverTies(t *testing.T) {
	// b and c are identical: the earlier candidate wins the tie.
	candidates := []Candidate{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	support := [][]float64{{0.1}, {0.8}, {0.8}}
	got, err := PureCover(candidates, []float64{1}, support, CoverOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b"}, got.IDs); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestPureCoverInvalid(t *testing.T) {
	cands := []Candidate{{ID: "a"}, {ID: "b"}}
	ok := [][]float64{{0.5}, {0.5}}
	tests := []struct {
		name       string
		candidates []Candidate
		weights    []float64
		support    [][]float64
		opts       CoverOptions
		want       string
	}{
		{"zero K", cands, []float64{1}, ok, CoverOptions{}, "K is 0, want at least 1"},
		{"negative lambda", cands, []float64{1}, ok, CoverOptions{K: 2, Lambda: -1}, "lambda -1 must be a finite number ≥ 0"},
		{"NaN lambda", cands, []float64{1}, ok, CoverOptions{K: 2, Lambda: math.NaN()}, "lambda NaN"},
		{"no requirements", cands, nil, ok, DefaultCoverOptions(), "no requirements"},
		{"weight above 1", cands, []float64{1.5}, ok, DefaultCoverOptions(), "weight 1.5 of requirement 0 is not in [0, 1]"},
		{"support NaN", cands, []float64{1}, [][]float64{{0.5}, {math.NaN()}}, DefaultCoverOptions(), "support NaN of candidate 1 for requirement 0"},
		{"ragged support", cands, []float64{0.5, 0.5}, [][]float64{{0.5, 0.1}, {0.5}}, DefaultCoverOptions(), "support row 1 has 1 columns for 2 requirements"},
		{"row count", cands, []float64{1}, [][]float64{{0.5}}, DefaultCoverOptions(), "support has 1 rows for 2 candidates"},
		{"duplicate id", []Candidate{{ID: "a"}, {ID: "a"}}, []float64{1}, ok, DefaultCoverOptions(), `candidate id "a" appears at positions 0 and 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PureCover(tt.candidates, tt.weights, tt.support, tt.opts)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	if _, err := EvaluateCover([]float64{1}, ok, []int{0, 0}, 0); err == nil || !strings.Contains(err.Error(), "set member 0 is repeated") {
		t.Errorf("EvaluateCover with a repeated member: error = %v", err)
	}
	if _, err := EvaluateCover([]float64{1}, ok, []int{2}, 0); err == nil || !strings.Contains(err.Error(), "set member 2 is outside 0..1") {
		t.Errorf("EvaluateCover with an out-of-range member: error = %v", err)
	}
}

// randomCoverInstance draws a small PureCover instance: normalised
// requirement weights and a support matrix, half the time from 0–5
// ratings through the softmax, half the time uniform in [0, 1].
func randomCoverInstance(t *testing.T, rng *rand.Rand) (candidates []Candidate, weights []float64, support [][]float64) {
	t.Helper()
	m, e := 2+rng.IntN(8), 1+rng.IntN(5)
	raw := make([]float64, e)
	for i := range raw {
		raw[i] = rng.Float64()
	}
	weights, err := NormalizeWeights(raw)
	if err != nil {
		t.Fatal(err)
	}
	candidates = make([]Candidate, m)
	for i := range candidates {
		candidates[i] = Candidate{ID: string(rune('a' + i))}
	}
	if rng.IntN(2) == 0 {
		scores := make([][]float64, m)
		for d := range scores {
			scores[d] = make([]float64, e)
			for j := range scores[d] {
				scores[d][j] = float64(rng.IntN(6))
			}
		}
		temperature := []float64{0.5, 1, 2}[rng.IntN(3)]
		if support, err = SupportFromJudgements(scores, temperature); err != nil {
			t.Fatal(err)
		}
		return candidates, weights, support
	}
	support = make([][]float64, m)
	for d := range support {
		support[d] = make([]float64, e)
		for j := range support[d] {
			support[d][j] = rng.Float64()
		}
	}
	return candidates, weights, support
}

// bestSubset returns the largest objective over all sets of at most k of
// m candidates, by enumeration.
func bestSubset(t *testing.T, weights []float64, support [][]float64, k int, lambda float64) float64 {
	t.Helper()
	best := 0.0 // the empty set
	for mask := 1; mask < 1<<len(support); mask++ {
		var set []int
		for d := range support {
			if mask&(1<<d) != 0 {
				set = append(set, d)
			}
		}
		if len(set) > k {
			continue
		}
		v, err := EvaluateCover(weights, support, set, lambda)
		if err != nil {
			t.Fatal(err)
		}
		best = max(best, v.Objective)
	}
	return best
}

// TestPureCoverGreedyBound checks the 1 − 1/e guarantee of the coverage
// term against exhaustive search on seeded random instances.
func TestPureCoverGreedyBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260, 6))
	bound := 1 - 1/math.E
	worst := 1.0
	for trial := range 600 {
		candidates, weights, support := randomCoverInstance(t, rng)
		k := 1 + rng.IntN(min(4, len(candidates)))
		got, err := PureCover(candidates, weights, support, CoverOptions{K: k, Lambda: 0})
		if err != nil {
			t.Fatal(err)
		}
		greedy := 0.0
		if n := len(got.Steps); n > 0 {
			greedy = got.Steps[n-1].Value.Coverage
		}
		opt := bestSubset(t, weights, support, k, 0)
		if opt == 0 {
			continue
		}
		ratio := greedy / opt
		worst = min(worst, ratio)
		if ratio < bound-1e-12 {
			t.Errorf("trial %d: greedy coverage %.6f is %.4f of the optimum %.6f (< 1 − 1/e)", trial, greedy, ratio, opt)
		}
	}
	t.Logf("worst greedy/optimum coverage ratio over 600 instances: %.4f (bound %.4f)", worst, bound)
}

func TestPureCoverGreedySuboptimal(t *testing.T) {
	// A max-coverage instance where greedy is not optimal. Four equally
	// weighted requirements; with K = 2 the best pair is {s1, s2} (coverage
	// 1). Greedy takes s3 first: gain .25·.1 + .25 + .25 = .525 beats .5.
	// Then s1 adds only .25·.9 = .225 (e2 is covered) and s2 adds .25 (e4):
	// coverage .025 + .25 + .25 + .25 = .775 = 77.5% of the optimum.
	candidates := []Candidate{{ID: "s1"}, {ID: "s2"}, {ID: "s3"}}
	weights := []float64{0.25, 0.25, 0.25, 0.25}
	support := [][]float64{
		{1, 1, 0, 0},   // s1: e1, e2
		{0, 0, 1, 1},   // s2: e3, e4
		{0.1, 1, 1, 0}, // s3: e2, e3 and a little of e1
	}
	got, err := PureCover(candidates, weights, support, CoverOptions{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"s3", "s2"}, got.IDs); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if c := got.Steps[len(got.Steps)-1].Value.Coverage; math.Abs(c-0.775) > 1e-12 {
		t.Errorf("coverage = %v, want 0.775", c)
	}
	if opt := bestSubset(t, weights, support, 2, 0); math.Abs(opt-1) > 1e-12 {
		t.Errorf("exhaustive optimum = %v, want 1", opt)
	}
}

// TestPureCoverTrace checks the trace against EvaluateCover and the early
// stop: when the greedy stops before K, no set containing its selection
// (within the budget) scores higher.
func TestPureCoverTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	stopped := 0
	for trial := range 400 {
		candidates, weights, support := randomCoverInstance(t, rng)
		opts := CoverOptions{K: 1 + rng.IntN(len(candidates)), Lambda: []float64{0, 0.1, 0.3, 1}[rng.IntN(4)]}
		got, err := PureCover(candidates, weights, support, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Selected) > opts.K {
			t.Fatalf("trial %d: %d documents selected, K = %d", trial, len(got.Selected), opts.K)
		}
		previous := 0.0
		for s, step := range got.Steps {
			want, err := EvaluateCover(weights, support, got.Selected[:s+1], opts.Lambda)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, step.Value, approx); diff != "" {
				t.Fatalf("trial %d step %d: value (-EvaluateCover +trace):\n%s", trial, s, diff)
			}
			if step.Gain <= 0 || math.Abs(step.Value.Objective-previous-step.Gain) > 1e-12 {
				t.Fatalf("trial %d step %d: gain %v, objective went %v → %v", trial, s, step.Gain, previous, step.Value.Objective)
			}
			previous = step.Value.Objective
		}
		if !got.StoppedEarly {
			continue
		}
		stopped++
		// Every superset of the selection within the budget scores at
		// most the selection (submodularity: gains can only shrink).
		inSel := map[int]bool{}
		for _, d := range got.Selected {
			inSel[d] = true
		}
		for mask := 0; mask < 1<<len(candidates); mask++ {
			set := append([]int(nil), got.Selected...)
			for d := range candidates {
				if mask&(1<<d) != 0 && !inSel[d] {
					set = append(set, d)
				}
			}
			if len(set) > opts.K {
				continue
			}
			v, err := EvaluateCover(weights, support, set, opts.Lambda)
			if err != nil {
				t.Fatal(err)
			}
			if v.Objective > previous+1e-12 {
				t.Fatalf("trial %d: stopped at %v with objective %v, but superset %v scores %v", trial, got.Selected, previous, set, v.Objective)
			}
		}
	}
	if stopped == 0 {
		t.Error("no instance stopped early: the early-stop check never ran")
	}
	t.Logf("%d of 400 instances stopped early", stopped)
}

func TestSupportFromJudgements(t *testing.T) {
	tests := []struct {
		name        string
		scores      [][]float64
		temperature float64
		want        [][]float64
	}{
		{
			// Column 0: exp(0), exp(ln 3) → 1/4, 3/4. Column 1: equal → 1/2.
			name:        "two candidates",
			scores:      [][]float64{{0, 5}, {math.Log(3), 5}},
			temperature: 1,
			want:        [][]float64{{0.25, 0.5}, {0.75, 0.5}},
		},
		{
			// T = 2 halves the log-odds: exp(0), exp(2 ln 3 / 2) → 1/4, 3/4.
			name:        "temperature",
			scores:      [][]float64{{0}, {2 * math.Log(3)}},
			temperature: 2,
			want:        [][]float64{{0.25}, {0.75}},
		},
		{
			// Huge scores do not overflow: the column maximum is subtracted.
			name:        "large",
			scores:      [][]float64{{1e300}, {1e300}},
			temperature: 1,
			want:        [][]float64{{0.5}, {0.5}},
		},
		{name: "empty", scores: nil, temperature: 1, want: [][]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SupportFromJudgements(tt.scores, tt.temperature)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []struct {
		name        string
		scores      [][]float64
		temperature float64
		want        string
	}{
		{"zero temperature", [][]float64{{1}}, 0, "temperature 0 must be finite and positive"},
		{"ragged", [][]float64{{1, 2}, {1}}, 1, "judgement row 1 has 1 columns, row 0 has 2"},
		{"infinite", [][]float64{{1}, {math.Inf(1)}}, 1, "judgement score of candidate 1 for requirement 0 is +Inf"},
		{"no columns", [][]float64{{}}, 1, "no requirement columns"},
	} {
		if _, err := SupportFromJudgements(bad.scores, bad.temperature); !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error = %v, want ErrInvalid containing %q", bad.name, err, bad.want)
		}
	}
	// From LANCER ratings: one 5 among 0s at T = 1 takes e^5/(e^5 + 2).
	got, err := SupportFromJudgements(RatingScores([][]int{{5}, {0}, {0}}), DefaultTemperature)
	if err != nil {
		t.Fatal(err)
	}
	e5 := math.Exp(5)
	if diff := cmp.Diff([][]float64{{e5 / (e5 + 2)}, {1 / (e5 + 2)}, {1 / (e5 + 2)}}, got, approx); diff != "" {
		t.Errorf("from ratings (-want +got):\n%s", diff)
	}
}

func TestNormalizeWeights(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"proportional", []float64{2, 6}, []float64{0.25, 0.75}},
		{"all zero is uniform", []float64{0, 0}, []float64{0.5, 0.5}},
		{"huge stays finite", []float64{1e308, 1e308, 1e308}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeWeights(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range [][]float64{nil, {1, -1}, {math.NaN()}} {
		if _, err := NormalizeWeights(bad); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("NormalizeWeights(%v) error = %v, want ErrInvalid", bad, err)
		}
	}
}
