package rerank

import (
	"math"

	"github.com/crucible-portal/crucible/pipeline"
)

// PureCover defaults (DESIGN §6).
const (
	// DefaultCoverK is the largest selected set.
	DefaultCoverK = 5
	// DefaultCoverLambda weighs noise against coverage. DESIGN §6 took
	// 0.3 from the paper, whose P(d|e) comes from attention; with
	// judgement-based estimates, P(d|e) is a document's share of a
	// requirement among the candidates, so a document that supports every
	// requirement as well as the average candidate gains about 1/N (N
	// candidates, DefaultCoverDepth = 20) while its noise is nearly 1. λ =
	// 1/20 makes such a document break even: only documents that support
	// some requirement better than the average are selected. At 0.3 a
	// document had to hold about a quarter of a requirement, and on the
	// offline engine PureCover selected at most one document for most
	// requests (SummHay news and HotpotQA, reranking BM25's top 20).
	DefaultCoverLambda = 0.05
	// DefaultTemperature is the softmax temperature for judgements on
	// LANCER's 0–5 scale: one rating point multiplies a document's share
	// of a requirement by e ≈ 2.7.
	DefaultTemperature = 1.0
)

// CoverOptions tunes PureCover. Start from DefaultCoverOptions: the zero
// value has K = 0, which is rejected, and λ = 0 (pure coverage).
type CoverOptions struct {
	// K is the most documents selected; at least 1.
	K int
	// Lambda is the noise penalty λ ≥ 0.
	Lambda float64
}

// DefaultCoverOptions returns K = 5, λ = 0.05.
func DefaultCoverOptions() CoverOptions {
	return CoverOptions{K: DefaultCoverK, Lambda: DefaultCoverLambda}
}

// CoverValue is the objective of a set S of documents and its two terms.
type CoverValue struct {
	// Coverage is Σ_e P(e|q)·[1 − Π_{d∈S}(1 − P(d|e))]: for each
	// requirement, the chance that at least one selected document supports
	// it, weighted by the requirement's weight.
	Coverage float64
	// Noise is Σ_{d∈S} (1 − max_e P(d|e)·P(e|q)): for each selected
	// document, how little of it goes to the single requirement it serves
	// best.
	Noise float64
	// Objective is Coverage − λ·Noise.
	Objective float64
}

// CoverStep is one greedy addition and the set's value after it.
type CoverStep struct {
	// Position is the document's position among the candidates (0-based,
	// first-stage order); ID its id.
	Position int
	ID       string
	// Gain is the objective's increase by this document (its marginal
	// gain when it was chosen).
	Gain float64
	// Value is the selected set's value after the step.
	Value CoverValue
}

// CoverSelection is PureCover's result.
type CoverSelection struct {
	// Selected holds the chosen candidates' positions in the order they
	// were chosen; IDs their ids.
	Selected []int
	IDs      []string
	// Steps is the trace: one entry per chosen document.
	Steps []CoverStep
	// StoppedEarly is true when the greedy stopped with fewer than K
	// documents (and candidates left) because no remaining document had a
	// positive gain.
	StoppedEarly bool
}

// PureCover selects at most opts.K candidates by greedily maximising
//
//	f(S) = Σ_e w_e·[1 − Π_{d∈S}(1 − p_de)] − λ·Σ_{d∈S} (1 − max_e p_de·w_e)
//
// where w_e = weights[e] = P(e|q) is the weight of information requirement
// e for the request and p_de = support[d][e] = P(d|e) is how strongly
// candidate d supports requirement e (rows aligned with candidates; see
// SupportFromJudgements). Each step adds the document with the largest
// marginal gain, the earlier candidate on ties.
//
// The coverage term is a weighted probabilistic coverage: monotone and
// submodular, so with λ = 0 the greedy set is within 1 − 1/e of the best
// set of at most K documents. The noise term is modular (a fixed cost per
// document), so f stays submodular but is no longer monotone: a document
// that adds little coverage can lower f. The greedy therefore stops as
// soon as no remaining document has a positive gain. By submodularity no
// gain can grow again later, and indeed no superset of the current set
// scores higher (f(S∪T) − f(S) ≤ Σ_{d∈T} gain(d|S) ≤ 0), so stopping
// loses nothing that continuing could find.
//
// weights and support must hold probabilities in [0, 1]; there must be at
// least one requirement. Errors wrap pipeline.ErrInvalid.
func PureCover(candidates []Candidate, weights []float64, support [][]float64, opts CoverOptions) (CoverSelection, error) {
	if opts.K < 1 {
		return CoverSelection{}, pipeline.Invalidf("purecover: K is %d, want at least 1", opts.K)
	}
	if err := validateLambda(opts.Lambda); err != nil {
		return CoverSelection{}, err
	}
	if err := validateCandidates(candidates); err != nil {
		return CoverSelection{}, err
	}
	if err := validateCover(weights, support); err != nil {
		return CoverSelection{}, err
	}
	if len(support) != len(candidates) {
		return CoverSelection{}, pipeline.Invalidf("purecover: support has %d rows for %d candidates", len(support), len(candidates))
	}

	noise := make([]float64, len(support))
	for d, row := range support {
		noise[d] = documentNoise(weights, row)
	}
	// residual[e] = Π_{d∈S}(1 − p_de): the chance that requirement e is
	// still unsupported.
	residual := make([]float64, len(weights))
	for e := range residual {
		residual[e] = 1
	}
	chosen := make([]bool, len(candidates))
	sel := CoverSelection{Selected: []int{}, IDs: []string{}, Steps: []CoverStep{}}
	var value CoverValue
	for len(sel.Selected) < opts.K && len(sel.Selected) < len(candidates) {
		best, bestGain := -1, 0.0
		for d, row := range support {
			if chosen[d] {
				continue
			}
			gain := -opts.Lambda * noise[d]
			for e, w := range weights {
				gain += w * residual[e] * row[e]
			}
			if gain > bestGain {
				best, bestGain = d, gain
			}
		}
		if best < 0 {
			sel.StoppedEarly = true
			break
		}
		chosen[best] = true
		for e := range residual {
			residual[e] *= 1 - support[best][e]
		}
		value.Coverage = 0
		for e, w := range weights {
			value.Coverage += w * (1 - residual[e])
		}
		value.Noise += noise[best]
		value.Objective = value.Coverage - opts.Lambda*value.Noise
		sel.Selected = append(sel.Selected, best)
		sel.IDs = append(sel.IDs, candidates[best].ID)
		sel.Steps = append(sel.Steps, CoverStep{Position: best, ID: candidates[best].ID, Gain: bestGain, Value: value})
	}
	return sel, nil
}

// EvaluateCover computes PureCover's objective for the set of candidate
// positions set (distinct, in range) with penalty lambda.
func EvaluateCover(weights []float64, support [][]float64, set []int, lambda float64) (CoverValue, error) {
	if err := validateLambda(lambda); err != nil {
		return CoverValue{}, err
	}
	if err := validateCover(weights, support); err != nil {
		return CoverValue{}, err
	}
	residual := make([]float64, len(weights))
	for e := range residual {
		residual[e] = 1
	}
	var v CoverValue
	seen := make(map[int]bool, len(set))
	for _, d := range set {
		if d < 0 || d >= len(support) {
			return CoverValue{}, pipeline.Invalidf("purecover: set member %d is outside 0..%d", d, len(support)-1)
		}
		if seen[d] {
			return CoverValue{}, pipeline.Invalidf("purecover: set member %d is repeated", d)
		}
		seen[d] = true
		for e := range residual {
			residual[e] *= 1 - support[d][e]
		}
		v.Noise += documentNoise(weights, support[d])
	}
	for e, w := range weights {
		v.Coverage += w * (1 - residual[e])
	}
	v.Objective = v.Coverage - lambda*v.Noise
	return v, nil
}

// documentNoise is 1 − max_e p_de·w_e.
func documentNoise(weights, row []float64) float64 {
	best := 0.0
	for e, w := range weights {
		best = max(best, row[e]*w)
	}
	return 1 - best
}

func validateLambda(lambda float64) error {
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || lambda < 0 {
		return pipeline.Invalidf("purecover: lambda %v must be a finite number ≥ 0", lambda)
	}
	return nil
}

// validateCover checks that weights and support hold probabilities and
// that support is a matrix with one column per requirement.
func validateCover(weights []float64, support [][]float64) error {
	if len(weights) == 0 {
		return pipeline.Invalidf("purecover: no requirements (empty weights)")
	}
	for e, w := range weights {
		if !isProbability(w) {
			return pipeline.Invalidf("purecover: weight %v of requirement %d is not in [0, 1]", w, e)
		}
	}
	for d, row := range support {
		if len(row) != len(weights) {
			return pipeline.Invalidf("purecover: support row %d has %d columns for %d requirements", d, len(row), len(weights))
		}
		for e, p := range row {
			if !isProbability(p) {
				return pipeline.Invalidf("purecover: support %v of candidate %d for requirement %d is not in [0, 1]", p, d, e)
			}
		}
	}
	return nil
}

func isProbability(p float64) bool { return p >= 0 && p <= 1 } // false for NaN

// SupportFromJudgements turns raw judgement scores into P(d|e): for each
// requirement e (column), a softmax over the candidates (rows) of
// scores[d][e]/temperature. Each column of the result sums to 1. A low
// temperature concentrates a requirement on its best-judged documents; a
// high one spreads it evenly. scores must be a finite, non-ragged matrix
// with at least one column; temperature must be finite and positive.
func SupportFromJudgements(scores [][]float64, temperature float64) ([][]float64, error) {
	if math.IsNaN(temperature) || math.IsInf(temperature, 0) || temperature <= 0 {
		return nil, pipeline.Invalidf("softmax temperature %v must be finite and positive", temperature)
	}
	if len(scores) == 0 {
		return [][]float64{}, nil
	}
	n := len(scores[0])
	if n == 0 {
		return nil, pipeline.Invalidf("judgement scores have no requirement columns")
	}
	for d, row := range scores {
		if len(row) != n {
			return nil, pipeline.Invalidf("judgement row %d has %d columns, row 0 has %d", d, len(row), n)
		}
		for e, s := range row {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return nil, pipeline.Invalidf("judgement score of candidate %d for requirement %d is %v", d, e, s)
			}
		}
	}
	out := make([][]float64, len(scores))
	for d := range out {
		out[d] = make([]float64, n)
	}
	for e := 0; e < n; e++ {
		// Subtracting the column maximum keeps exp from overflowing and
		// leaves the softmax unchanged.
		top := math.Inf(-1)
		for _, row := range scores {
			top = max(top, row[e])
		}
		total := 0.0
		for d, row := range scores {
			out[d][e] = math.Exp((row[e] - top) / temperature)
			total += out[d][e]
		}
		for d := range out {
			out[d][e] /= total
		}
	}
	return out, nil
}

// RatingScores converts an integer rating matrix (LANCER's 0–5 ratings) to
// the float scores SupportFromJudgements takes.
func RatingScores(ratings [][]int) [][]float64 {
	out := make([][]float64, len(ratings))
	for i, row := range ratings {
		out[i] = make([]float64, len(row))
		for j, r := range row {
			out[i][j] = float64(r)
		}
	}
	return out
}

// NormalizeWeights scales non-negative requirement weights (for example a
// model's importance judgements) to sum to 1, so they can serve as P(e|q).
// All-zero weights become uniform.
func NormalizeWeights(weights []float64) ([]float64, error) {
	if len(weights) == 0 {
		return nil, pipeline.Invalidf("no requirement weights")
	}
	top := 0.0
	for e, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, pipeline.Invalidf("requirement weight %d is %v, want a finite number ≥ 0", e, w)
		}
		top = max(top, w)
	}
	out := make([]float64, len(weights))
	if top == 0 {
		for e := range out {
			out[e] = 1 / float64(len(out))
		}
		return out, nil
	}
	// Dividing by the largest weight first keeps the total finite.
	total := 0.0
	for e, w := range weights {
		out[e] = w / top
		total += out[e]
	}
	for e := range out {
		out[e] /= total
	}
	return out, nil
}
