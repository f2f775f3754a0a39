package eval

import (
	"fmt"
	"math"
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// DefaultAlpha is the α of α-nDCG unless told otherwise: ndeval's default
// and the value of Clarke et al.'s experiments.
const DefaultAlpha = 0.5

// hasNuggets is the Defined function of the nugget measures.
func hasNuggets(r *Ranking) bool { return len(r.Nuggets) > 0 }

// AlphaNDCG is α-nDCG@k (Clarke et al., SIGIR 2008) as ndeval computes it.
// The document at rank i (1-based) gains, for each nugget it covers,
// (1-α)^c where c is the number of documents ranked above it that cover
// the same nugget; the gain is discounted by log2(i+1). The sum over the
// top k is divided by the same sum for an ideal ranking, built greedily
// (finding the best one is NP-hard): at each rank, of the documents that
// cover at least one nugget and are not yet placed, retrieved or not, take
// the one of largest gain given those already placed; equal gains go to
// the largest document id in byte order, ndeval's rule. Coverage is binary (grade > 0), and a
// document missing from the nugget judgements gains nothing.
//
// The measure is named alpha_ndcg_cut_k whatever α is, and is undefined
// for a query without nuggets (see Ranking.Nuggets); Compute gives 0 for
// such a query. alpha must be in [0, 1]: AlphaNDCG panics otherwise, since
// that is a programming error (Options.Alpha is checked by Evaluate).
func AlphaNDCG(k int, alpha float64) Measure {
	if !(alpha >= 0 && alpha <= 1) {
		panic(fmt.Sprintf("eval.AlphaNDCG: alpha %v outside [0, 1]", alpha))
	}
	keep := 1 - alpha
	return Measure{
		Name: "alpha_ndcg_cut_" + strconv.Itoa(k),
		Compute: func(r *Ranking) float64 {
			if !hasNuggets(r) {
				return 0
			}
			weights := nuggetWeights(len(r.Nuggets))
			dcg := 0.0
			for i := 0; i < k && i < len(r.Covers); i++ {
				if c := r.Covers[i]; c != nil {
					dcg += takeGain(weights, c, keep) / math.Log2(float64(i+2))
				}
			}
			ideal := idealAlphaDCG(r.PoolCovers, len(r.Nuggets), k, keep)
			if ideal == 0 { // cannot happen with nuggets; kept for safety
				return 0
			}
			return dcg / ideal
		},
		Defined: hasNuggets,
	}
}

// nuggetWeights returns the gain each nugget still offers: 1 until a
// document covering it is placed.
func nuggetWeights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// gainOf is what a document covering nuggets would gain now.
func gainOf(weights []float64, covers []int) float64 {
	g := 0.0
	for _, n := range covers {
		g += weights[n]
	}
	return g
}

// takeGain places a document covering nuggets: it returns the document's
// gain and multiplies each covered nugget's weight by keep (1-α), as
// ndeval does, so that weights[n] is (1-α)^c.
func takeGain(weights []float64, covers []int, keep float64) float64 {
	g := gainOf(weights, covers)
	for _, n := range covers {
		weights[n] *= keep
	}
	return g
}

// idealAlphaDCG is the α-DCG@k of the greedy ideal ranking over pool, the
// nugget sets of the covering documents in document id descending order
// (so that the first of equal gains is the largest id).
func idealAlphaDCG(pool [][]int, numNuggets, k int, keep float64) float64 {
	weights := nuggetWeights(numNuggets)
	placed := make([]bool, len(pool))
	sum := 0.0
	for rank := 0; rank < k && rank < len(pool); rank++ {
		best, bestGain := -1, 0.0
		for j, covers := range pool {
			if placed[j] {
				continue
			}
			if g := gainOf(weights, covers); best < 0 || g > bestGain {
				best, bestGain = j, g
			}
		}
		if bestGain == 0 {
			break // nothing left gains anything (α = 1 after full coverage)
		}
		placed[best] = true
		sum += takeGain(weights, pool[best], keep) / math.Log2(float64(rank+2))
	}
	return sum
}

// Coverage is coverage@k: the share of the query's nuggets (see
// Ranking.Nuggets) that at least one of the top k documents covers.
// ndeval calls it subtopic recall (strec). Coverage is binary (grade > 0).
// Named coverage_k; undefined for a query without nuggets, for which
// Compute gives 0.
func Coverage(k int) Measure {
	return Measure{
		Name: "coverage_" + strconv.Itoa(k),
		Compute: func(r *Ranking) float64 {
			if !hasNuggets(r) {
				return 0
			}
			seen := make([]bool, len(r.Nuggets))
			covered := 0
			for i := 0; i < k && i < len(r.Covers); i++ {
				for _, n := range r.Covers[i] {
					if !seen[n] {
						seen[n] = true
						covered++
					}
				}
			}
			return float64(covered) / float64(len(r.Nuggets))
		},
		Defined: hasNuggets,
	}
}

// NuggetMeasures returns alpha_ndcg_cut_k (with the given α) then
// coverage_k for each cutoff in ascending order; nil cutoffs mean
// DefaultCutoffs. A cutoff below 1 or given twice, or α outside [0, 1], is
// an error wrapping pipeline.ErrInvalid.
func NuggetMeasures(cutoffs []int, alpha float64) ([]Measure, error) {
	if !(alpha >= 0 && alpha <= 1) {
		return nil, pipeline.Invalidf("alpha %v is outside [0, 1]", alpha)
	}
	ks, err := checkCutoffs(cutoffs)
	if err != nil {
		return nil, err
	}
	var ms []Measure
	for _, k := range ks {
		ms = append(ms, AlphaNDCG(k, alpha))
	}
	for _, k := range ks {
		ms = append(ms, Coverage(k))
	}
	return ms, nil
}
