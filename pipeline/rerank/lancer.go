package rerank

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Candidate is one first-stage result. A list of candidates is always in
// first-stage order, best first; Score is carried for traces and is never
// used to reorder the list.
type Candidate struct {
	ID    string
	Score float64
}

// Rating scale of LANCER's answerability judgements.
const (
	// MinRating and MaxRating bound a parsed rating.
	MinRating = 0
	MaxRating = 5
	// Unparsable marks a rating the model's answer did not yield. The
	// authors' parser produces it and their released ratings hold a few
	// such cells, so the aggregation accepts it and treats it as given: it
	// is dropped by every threshold τ ≥ 1, counts −1 in sum with τ = 0 and
	// ranks below 0 in rrf. Crucible's own rating step maps unparsable
	// answers to 0, as the paper says (DESIGN §6).
	Unparsable = -1
)

// Strategy names a LANCER aggregation strategy.
type Strategy string

// The aggregation strategies. Each returns every candidate.
const (
	// Sum orders by s_i = Σ_j r_ij·[r_ij ≥ τ] descending (with τ = 0,
	// s_i = Σ_j r_ij, so an Unparsable cell counts −1); ties keep
	// first-stage order.
	Sum Strategy = "sum"
	// GreedySum clips c_ij = r_ij·[r_ij ≥ τ], queues the candidates by
	// S_i = Σ_j c_ij descending, then repeatedly takes the first queued
	// candidate with the largest gain Σ_j max(c_ij − B_j, 0) over the column
	// maxima B of the documents already taken. Once no candidate adds
	// anything, the rest follow in queue order (descending S_i).
	GreedySum Strategy = "greedy-sum"
	// GreedyCoverage is GreedySum over binary cells c_ij = [r_ij ≥ τ]: the
	// gain is the number of newly covered sub-questions.
	GreedyCoverage Strategy = "greedy-coverage"
	// GreedyAlpha is an α-nDCG-style greedy: with weights w_j starting at 1,
	// it repeatedly takes the lowest-index candidate with the largest
	// a_i = Σ_j w_j·[r_ij ≥ τ] (float64, summed in sub-question order) and
	// multiplies w_j by (1 − α) for every sub-question it covers.
	GreedyAlpha Strategy = "greedy-alpha"
	// RRF ranks the candidates for each sub-question by raw rating
	// descending, tied ratings receiving distinct consecutive ranks ρ_ij,
	// and orders by F_i = Σ_j 1/(κ + ρ_ij) descending. It takes no τ.
	RRF Strategy = "rrf"
)

// Strategies lists every aggregation strategy.
func Strategies() []Strategy {
	return []Strategy{Sum, GreedySum, GreedyCoverage, GreedyAlpha, RRF}
}

// Defaults of LANCER's aggregation (the authors' code).
const (
	DefaultTau   = 1
	DefaultAlpha = 0.5
	DefaultRRFK  = pipeline.RRFK
)

// Method is a strategy with its threshold τ: ratings below τ are treated
// as 0 (sum, greedy-sum) or as not covering (greedy-coverage,
// greedy-alpha). RRF ignores Tau.
//
// Note that the zero Tau is a real threshold, not "the default": a Method
// literal {Strategy: Sum} is the plain sum (τ = 0), while ParseMethod("sum")
// gives τ = DefaultTau, as LANCER reads its strategy names.
type Method struct {
	Strategy Strategy
	Tau      int
}

// ParseMethod reads a strategy name as LANCER writes it: "sum",
// "sum:tau=3", "greedy-coverage:tau=2", "greedy-alpha", "rrf". Without
// ":tau=" the threshold is DefaultTau. Case and surrounding spaces are
// ignored. The result is validated.
func ParseMethod(name string) (Method, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	base, param, hasParam := strings.Cut(s, ":")
	m := Method{Strategy: Strategy(strings.TrimSpace(base)), Tau: DefaultTau}
	if m.Strategy == RRF {
		m.Tau = 0
	}
	if hasParam {
		key, value, ok := strings.Cut(strings.TrimSpace(param), "=")
		if !ok || strings.TrimSpace(key) != "tau" {
			return Method{}, pipeline.Invalidf("aggregation method %q: want NAME or NAME:tau=N", name)
		}
		if m.Strategy == RRF {
			return Method{}, pipeline.Invalidf("aggregation method %q: rrf takes no tau", name)
		}
		tau, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return Method{}, pipeline.Invalidf("aggregation method %q: tau %q is not an integer", name, value)
		}
		m.Tau = tau
	}
	if err := m.Validate(); err != nil {
		return Method{}, fmt.Errorf("aggregation method %q: %w", name, err)
	}
	return m, nil
}

// String is the method's name as the LANCER test vectors spell it:
// "sum" for the sum at τ = 1, "rrf", otherwise "NAME:tau=N".
func (m Method) String() string {
	switch {
	case m.Strategy == RRF:
		return string(RRF)
	case m.Strategy == Sum && m.Tau == DefaultTau:
		return string(Sum)
	}
	return fmt.Sprintf("%s:tau=%d", m.Strategy, m.Tau)
}

// Validate reports an unknown strategy or a threshold outside the rating
// scale. Greedy-coverage and greedy-alpha need τ ≥ 1: at τ = 0 a rating of
// 0 would count as covering its sub-question.
func (m Method) Validate() error {
	if !slices.Contains(Strategies(), m.Strategy) {
		return pipeline.Invalidf("unknown aggregation strategy %q (want sum, greedy-sum, greedy-coverage, greedy-alpha or rrf)", string(m.Strategy))
	}
	if m.Strategy == RRF {
		return nil
	}
	if m.Tau < 0 || m.Tau > MaxRating {
		return pipeline.Invalidf("%s: tau %d is outside 0..%d", m.Strategy, m.Tau, MaxRating)
	}
	if m.Tau == 0 && (m.Strategy == GreedyCoverage || m.Strategy == GreedyAlpha) {
		return pipeline.Invalidf("%s: tau must be at least 1 (at 0 every rating counts as coverage)", m.Strategy)
	}
	return nil
}

// TieBreak chooses how the argsort-dependent strategies (greedy-sum,
// greedy-coverage, rrf) order equal values. Sum and greedy-alpha have one
// deterministic tie rule and ignore it.
type TieBreak int

const (
	// TiesStable is a stable argsort: the greedy queue puts the later
	// first-stage candidate first among equal S (the authors' code reverses
	// an ascending sort); rrf gives the earlier candidate the better rank
	// among equal ratings and orders equal F by first-stage order. This is
	// the test vectors' "expected_stable" and the default.
	TiesStable TieBreak = iota
	// TiesNumpy reproduces numpy's default argsort as the authors ran it
	// (numpy ≤ 1.24, or any numpy on a CPU without the SIMD sort): an
	// unstable introsort whose tie order depends on the data. This is the
	// test vectors' "expected". It exists to reproduce published numbers;
	// its tie order has no meaning.
	TiesNumpy
)

// String names the convention.
func (t TieBreak) String() string {
	switch t {
	case TiesStable:
		return "stable"
	case TiesNumpy:
		return "numpy"
	}
	return "TieBreak(" + strconv.Itoa(int(t)) + ")"
}

// AggregateOptions tunes Aggregate. The zero value is the authors' setup
// with the stable tie convention.
type AggregateOptions struct {
	Ties TieBreak
	// Alpha is greedy-alpha's discount α in (0, 1]; 0 means DefaultAlpha.
	Alpha float64
	// RRFK is rrf's constant κ; 0 means DefaultRRFK.
	RRFK int
}

// Aggregation is a reranked list and its trace.
type Aggregation struct {
	Method Method
	// Order holds candidate positions (0-based, first-stage order) in the
	// aggregated order; IDs the same candidates' ids. Both hold every
	// candidate once.
	Order []int
	IDs   []string
	// Scores[k] is the static utility of the candidate at position k: the
	// thresholded sum s_i for sum and greedy-sum, the number of covered
	// sub-questions for greedy-coverage and greedy-alpha, the fused F_i for
	// rrf.
	Scores []float64
	// Gains[k] is, for the greedy strategies, the gain with which the
	// candidate at position k was taken (0 for the appended tail); nil for
	// sum and rrf.
	Gains []float64
	// Prefix is, for the greedy strategies, the number of leading
	// candidates taken with a positive gain; the rest were appended in
	// descending utility (greedy-sum, greedy-coverage) or in first-stage
	// order (greedy-alpha: they cover nothing). It is len(Order) for sum
	// and rrf.
	Prefix int
}

// Aggregate reranks candidates by method from ratings, where ratings[i][j]
// is candidate i's rating for sub-question j: one row per candidate, in the
// same order, all rows of the same length (at least one sub-question), each
// value in MinRating..MaxRating or Unparsable. Candidate ids must be
// non-empty and distinct. Errors wrap pipeline.ErrInvalid.
func Aggregate(method Method, candidates []Candidate, ratings [][]int, opts AggregateOptions) (Aggregation, error) {
	if err := method.Validate(); err != nil {
		return Aggregation{}, err
	}
	alpha, kappa, err := opts.resolve()
	if err != nil {
		return Aggregation{}, err
	}
	if err := validateRatings(candidates, ratings); err != nil {
		return Aggregation{}, err
	}
	agg := Aggregation{Method: method}
	switch method.Strategy {
	case Sum:
		agg.Order, agg.Scores = aggregateSum(ratings, method.Tau)
		agg.Prefix = len(agg.Order)
	case GreedySum, GreedyCoverage:
		agg.Order, agg.Scores, agg.Gains, agg.Prefix = aggregateGreedy(ratings, method.Tau, method.Strategy == GreedyCoverage, opts.Ties)
	case GreedyAlpha:
		agg.Order, agg.Scores, agg.Gains, agg.Prefix = aggregateAlpha(ratings, method.Tau, alpha)
	case RRF:
		agg.Order, agg.Scores = aggregateRRF(ratings, kappa, opts.Ties)
		agg.Prefix = len(agg.Order)
	}
	agg.IDs = make([]string, len(agg.Order))
	for k, i := range agg.Order {
		agg.IDs[k] = candidates[i].ID
	}
	return agg, nil
}

func (o AggregateOptions) resolve() (alpha float64, kappa int, err error) {
	if o.Ties != TiesStable && o.Ties != TiesNumpy {
		return 0, 0, pipeline.Invalidf("unknown tie convention %d", int(o.Ties))
	}
	alpha = o.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if math.IsNaN(alpha) || alpha <= 0 || alpha > 1 {
		return 0, 0, pipeline.Invalidf("greedy-alpha: alpha %v is outside (0, 1]", o.Alpha)
	}
	kappa = o.RRFK
	if kappa == 0 {
		kappa = DefaultRRFK
	}
	if kappa < 0 {
		return 0, 0, pipeline.Invalidf("rrf: constant %d is negative", o.RRFK)
	}
	return alpha, kappa, nil
}

// validateRatings checks the candidates and the shape and range of the
// rating matrix.
func validateRatings(candidates []Candidate, ratings [][]int) error {
	if err := validateCandidates(candidates); err != nil {
		return err
	}
	if len(ratings) != len(candidates) {
		return pipeline.Invalidf("ratings have %d rows for %d candidates", len(ratings), len(candidates))
	}
	if len(ratings) == 0 {
		return nil
	}
	n := len(ratings[0])
	if n == 0 {
		return pipeline.Invalidf("ratings have no sub-question columns")
	}
	for i, row := range ratings {
		if len(row) != n {
			return pipeline.Invalidf("ratings row %d (candidate %q) has %d columns, row 0 has %d", i, candidates[i].ID, len(row), n)
		}
		for j, r := range row {
			if (r < MinRating || r > MaxRating) && r != Unparsable {
				return pipeline.Invalidf("rating %d of candidate %q (row %d) for sub-question %d is outside %d..%d (or %d for unparsable)",
					r, candidates[i].ID, i, j, MinRating, MaxRating, Unparsable)
			}
		}
	}
	return nil
}

// validateCandidates rejects empty and repeated ids.
func validateCandidates(candidates []Candidate) error {
	seen := make(map[string]int, len(candidates))
	for i, c := range candidates {
		if c.ID == "" {
			return pipeline.Invalidf("candidate %d has an empty id", i)
		}
		if first, dup := seen[c.ID]; dup {
			return pipeline.Invalidf("candidate id %q appears at positions %d and %d", c.ID, first, i)
		}
		seen[c.ID] = i
	}
	return nil
}

// identity returns 0, 1, …, m−1.
func identity(m int) []int {
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	return order
}

// aggregateSum implements Sum: a stable sort by the (thresholded) sum.
func aggregateSum(ratings [][]int, tau int) (order []int, scores []float64) {
	sums := make([]int, len(ratings))
	for i, row := range ratings {
		for _, r := range row {
			if tau == 0 || r >= tau {
				sums[i] += r
			}
		}
	}
	order = identity(len(ratings))
	slices.SortStableFunc(order, func(a, b int) int { return sums[b] - sums[a] })
	scores = make([]float64, len(order))
	for k, i := range order {
		scores[k] = float64(sums[i])
	}
	return order, scores
}

// aggregateGreedy implements GreedySum and (binary) GreedyCoverage.
func aggregateGreedy(ratings [][]int, tau int, binary bool, ties TieBreak) (order []int, scores, gains []float64, prefix int) {
	m, n := len(ratings), 0
	if m > 0 {
		n = len(ratings[0])
	}
	cells := make([][]int, m)
	utility := make([]float64, m)
	for i, row := range ratings {
		cells[i] = make([]int, n)
		s := 0
		for j, r := range row {
			switch {
			case r < tau:
			case binary:
				cells[i][j] = 1
			default:
				cells[i][j] = r
			}
			s += cells[i][j]
		}
		utility[i] = float64(s)
	}
	// The queue is an ascending argsort of S, reversed.
	queue := argsortAscending(utility, ties)
	slices.Reverse(queue)

	best := make([]int, n)
	order = make([]int, 0, m)
	gains = make([]float64, 0, m)
	for len(queue) > 0 {
		pick, pickGain := -1, 0
		for k, i := range queue {
			g := 0
			for j, c := range cells[i] {
				if c > best[j] {
					g += c - best[j]
				}
			}
			if g > pickGain {
				pick, pickGain = k, g
			}
		}
		if pick < 0 {
			// No candidate adds anything, and gains never grow back: the
			// authors' loop would now take the queue front to back.
			order = append(order, queue...)
			for range queue {
				gains = append(gains, 0)
			}
			break
		}
		i := queue[pick]
		queue = slices.Delete(queue, pick, pick+1)
		for j, c := range cells[i] {
			best[j] = max(best[j], c)
		}
		order = append(order, i)
		gains = append(gains, float64(pickGain))
		prefix++
	}
	scores = make([]float64, m)
	for k, i := range order {
		scores[k] = utility[i]
	}
	return order, scores, gains, prefix
}

// aggregateAlpha implements GreedyAlpha.
func aggregateAlpha(ratings [][]int, tau int, alpha float64) (order []int, scores, gains []float64, prefix int) {
	m := len(ratings)
	n := 0
	if m > 0 {
		n = len(ratings[0])
	}
	weight := make([]float64, n)
	for j := range weight {
		weight[j] = 1
	}
	taken := make([]bool, m)
	order = make([]int, 0, m)
	gains = make([]float64, 0, m)
	for len(order) < m {
		pick, pickScore := -1, 0.0
		for i, row := range ratings {
			if taken[i] {
				continue
			}
			a := 0.0
			for j, r := range row {
				if r >= tau {
					a += weight[j]
				}
			}
			if pick < 0 || a > pickScore {
				pick, pickScore = i, a
			}
		}
		if pickScore == 0 {
			// Weights only shrink, so everything left scores 0 from now
			// on, and the lowest index wins each step: first-stage order.
			for i := range ratings {
				if !taken[i] {
					order = append(order, i)
					gains = append(gains, 0)
				}
			}
			break
		}
		taken[pick] = true
		order = append(order, pick)
		gains = append(gains, pickScore)
		prefix++
		for j, r := range ratings[pick] {
			if r >= tau {
				weight[j] *= 1 - alpha
			}
		}
	}
	scores = make([]float64, m)
	for k, i := range order {
		for _, r := range ratings[i] {
			if r >= tau {
				scores[k]++
			}
		}
	}
	return order, scores, gains, prefix
}

// aggregateRRF implements RRF.
func aggregateRRF(ratings [][]int, kappa int, ties TieBreak) (order []int, fused []float64) {
	m := len(ratings)
	if m == 0 {
		return []int{}, []float64{}
	}
	n := len(ratings[0])
	rank := make([][]int, m)
	for i := range rank {
		rank[i] = make([]int, n)
	}
	key := make([]float64, m)
	for j := 0; j < n; j++ {
		for i, row := range ratings {
			key[i] = -float64(row[j])
		}
		for p, i := range argsortAscending(key, ties) {
			rank[i][j] = p + 1
		}
	}
	score := make([]float64, m)
	for i := range score {
		for j := 0; j < n; j++ {
			score[i] += 1 / float64(kappa+rank[i][j])
		}
		key[i] = -score[i]
	}
	order = argsortAscending(key, ties)
	fused = make([]float64, m)
	for k, i := range order {
		fused[k] = score[i]
	}
	return order, fused
}
