package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// relevanceLevel is the lowest grade that counts as relevant: trec_eval's
// default, -l 1.
const relevanceLevel = 1

// DefaultCutoffs are trec_eval's default cutoffs for P, recall and ndcg_cut.
var DefaultCutoffs = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}

// Ranking is one query's retrieved documents in trec_eval order joined with
// the query's judgements: what a Measure reads.
type Ranking struct {
	QueryID string
	// DocIDs are the retrieved documents, best first, without duplicates.
	DocIDs []string
	// Grades[i] is the grade of DocIDs[i], 0 when it was not judged.
	Grades []int
	// Judged[i] tells whether DocIDs[i] is in the qrels.
	Judged []bool
	// NumRel is the number of relevant documents (grade ≥ 1) in the qrels
	// for the query, retrieved or not.
	NumRel int
	// Ideal holds the positive grades of all the query's judged documents,
	// highest first: the best possible ranking's gains.
	Ideal []int

	// The fields below come from nugget judgements (see
	// NewRankingWithNuggets); they are nil when the query has no nuggets.

	// Nuggets are the query's nuggets: those covered (grade > 0) by at
	// least one document of its nugget judgements, retrieved or not, in
	// byte order. The nugget measures are undefined for a query without.
	Nuggets []string
	// Covers[i] lists the nuggets DocIDs[i] covers, as ascending indexes
	// into Nuggets; nil when it covers none (a document missing from the
	// nugget judgements covers none).
	Covers [][]int
	// PoolDocIDs are the documents an ideal ranking is drawn from: every
	// document covering at least one nugget, retrieved or not, in id
	// descending byte order. PoolCovers[j] lists the nuggets PoolDocIDs[j]
	// covers, as ascending indexes into Nuggets.
	PoolDocIDs []string
	PoolCovers [][]int
}

// NewRanking orders entries as trec_eval does (see Ranked) and joins them
// with the query's judgements (document id → grade; nil for none).
func NewRanking(qid string, judgements map[string]int, entries []RunEntry) *Ranking {
	return newRanking(qid, judgements, nil, Ranked(entries))
}

// NewRankingWithNuggets is NewRanking that also joins the query's nugget
// judgements (document id → nugget id → grade; nil for none), which the
// nugget measures (AlphaNDCG, Coverage) read.
func NewRankingWithNuggets(qid string, judgements map[string]int, nuggets map[string]map[string]int, entries []RunEntry) *Ranking {
	return newRanking(qid, judgements, nuggets, Ranked(entries))
}

// newRanking builds a Ranking from entries already ordered and without
// duplicate documents.
func newRanking(qid string, judgements map[string]int, nuggets map[string]map[string]int, ranked []RunEntry) *Ranking {
	r := &Ranking{
		QueryID: qid,
		DocIDs:  make([]string, len(ranked)),
		Grades:  make([]int, len(ranked)),
		Judged:  make([]bool, len(ranked)),
	}
	for i, e := range ranked {
		r.DocIDs[i] = e.DocID
		r.Grades[i], r.Judged[i] = judgements[e.DocID]
	}
	for _, g := range judgements {
		if g >= relevanceLevel {
			r.NumRel++
		}
		if g > 0 {
			r.Ideal = append(r.Ideal, g)
		}
	}
	slices.SortFunc(r.Ideal, func(a, b int) int { return cmp.Compare(b, a) })
	r.joinNuggets(nuggets)
	return r
}

// joinNuggets fills the nugget fields from the query's nugget judgements.
func (r *Ranking) joinNuggets(judgements map[string]map[string]int) {
	r.Nuggets = nuggetsOf(judgements)
	if len(r.Nuggets) == 0 {
		r.Nuggets = nil
		return
	}
	index := make(map[string]int, len(r.Nuggets))
	for i, id := range r.Nuggets {
		index[id] = i
	}
	covers := func(docID string) []int {
		var out []int
		for nuggetID, g := range judgements[docID] {
			if g > 0 {
				out = append(out, index[nuggetID])
			}
		}
		slices.Sort(out)
		return out
	}
	r.Covers = make([][]int, len(r.DocIDs))
	for i, docID := range r.DocIDs {
		r.Covers[i] = covers(docID)
	}
	for _, docID := range sortedKeys(judgements) {
		if c := covers(docID); c != nil {
			r.PoolDocIDs = append(r.PoolDocIDs, docID)
			r.PoolCovers = append(r.PoolCovers, c)
		}
	}
	slices.Reverse(r.PoolDocIDs)
	slices.Reverse(r.PoolCovers)
}

// relevant reports whether the document at 0-based position i is relevant.
func (r *Ranking) relevant(i int) bool { return r.Grades[i] >= relevanceLevel }

// Measure is one per-query effectiveness value. Name is how results and
// tables label it (trec_eval's name where there is one, e.g. "ndcg_cut_10").
// Compute must not modify the Ranking.
type Measure struct {
	Name    string
	Compute func(r *Ranking) float64
	// Defined, when set, reports whether the measure has a value for the
	// ranking's query; the nugget measures have none for a query without
	// nuggets. Evaluate leaves such a query out of the measure's mean and
	// lists it in Results.Undefined. nil means defined for every query.
	Defined func(r *Ranking) bool
}

// MAP is trec_eval's map: the precision at each relevant retrieved
// document, summed and divided by the number of relevant documents in the
// qrels. 0 when no relevant document is retrieved.
func MAP() Measure {
	return Measure{Name: "map", Compute: func(r *Ranking) float64 {
		found := 0
		sum := 0.0
		for i := range r.Grades {
			if r.relevant(i) {
				found++
				sum += float64(found) / float64(i+1)
			}
		}
		if found == 0 {
			return 0
		}
		return sum / float64(r.NumRel)
	}}
}

// RecipRank is trec_eval's recip_rank: 1 / rank of the first relevant
// document, 0 when none is retrieved.
func RecipRank() Measure {
	return Measure{Name: "recip_rank", Compute: func(r *Ranking) float64 {
		for i := range r.Grades {
			if r.relevant(i) {
				return 1 / float64(i+1)
			}
		}
		return 0
	}}
}

// Precision is trec_eval's P_k: relevant documents among the top k, divided
// by k even when fewer than k were retrieved.
func Precision(k int) Measure {
	return Measure{Name: "P_" + strconv.Itoa(k), Compute: func(r *Ranking) float64 {
		return float64(r.relevantInTop(k)) / float64(k)
	}}
}

// Recall is trec_eval's recall_k: relevant documents among the top k,
// divided by the number of relevant documents in the qrels; 0 when there
// are none.
func Recall(k int) Measure {
	return Measure{Name: "recall_" + strconv.Itoa(k), Compute: func(r *Ranking) float64 {
		if r.NumRel == 0 {
			return 0
		}
		return float64(r.relevantInTop(k)) / float64(r.NumRel)
	}}
}

func (r *Ranking) relevantInTop(k int) int {
	n := 0
	for i := 0; i < k && i < len(r.Grades); i++ {
		if r.relevant(i) {
			n++
		}
	}
	return n
}

// NDCGCut is trec_eval's ndcg_cut_k: DCG of the top k over the DCG of the
// ideal top k, with linear gain (the grade; grades ≤ 0 gain nothing) and
// discount log2(rank+1). 0 when the query has no positive grade.
func NDCGCut(k int) Measure {
	return Measure{Name: "ndcg_cut_" + strconv.Itoa(k), Compute: func(r *Ranking) float64 {
		dcg := 0.0
		for i := 0; i < k && i < len(r.Grades); i++ {
			if g := r.Grades[i]; g > 0 {
				dcg += float64(g) / math.Log2(float64(i+2))
			}
		}
		ideal := 0.0
		for i := 0; i < k && i < len(r.Ideal); i++ {
			ideal += float64(r.Ideal[i]) / math.Log2(float64(i+2))
		}
		if ideal == 0 {
			return 0
		}
		return dcg / ideal
	}}
}

// StandardMeasures returns map, recip_rank, then P_k, recall_k and
// ndcg_cut_k for each cutoff in ascending order: trec_eval's order of
// those measures. nil cutoffs mean DefaultCutoffs. A cutoff below 1 or
// given twice is an error wrapping pipeline.ErrInvalid.
func StandardMeasures(cutoffs []int) ([]Measure, error) {
	ks, err := checkCutoffs(cutoffs)
	if err != nil {
		return nil, err
	}
	ms := []Measure{MAP(), RecipRank()}
	for _, family := range []func(int) Measure{Precision, Recall, NDCGCut} {
		for _, k := range ks {
			ms = append(ms, family(k))
		}
	}
	return ms, nil
}

// checkCutoffs returns the cutoffs sorted ascending, DefaultCutoffs for nil.
func checkCutoffs(cutoffs []int) ([]int, error) {
	if cutoffs == nil {
		return slices.Clone(DefaultCutoffs), nil
	}
	ks := slices.Clone(cutoffs)
	slices.Sort(ks)
	for i, k := range ks {
		if k < 1 {
			return nil, pipeline.Invalidf("cutoff %d is not positive", k)
		}
		if i > 0 && ks[i-1] == k {
			return nil, pipeline.Invalidf("cutoff %d given twice", k)
		}
	}
	return ks, nil
}

// measureFamilies are the measures ParseMeasures knows, by trec_eval name.
// A family with cutoffs takes them as parameters ("P.5,10").
var measureFamilies = map[string]struct {
	single func() Measure
	cut    func(k int) Measure
}{
	"map":        {single: MAP},
	"recip_rank": {single: RecipRank},
	"P":          {cut: Precision},
	"recall":     {cut: Recall},
	"ndcg_cut":   {cut: NDCGCut},
	// Nugget measures, named in trec_eval's style.
	"alpha_ndcg_cut": {cut: func(k int) Measure { return AlphaNDCG(k, DefaultAlpha) }},
	"coverage":       {cut: Coverage},
}

// ParseMeasures builds measures from trec_eval -m arguments: "map",
// "recip_rank", or a cutoff measure with optional cutoffs ("P",
// "recall.100", "ndcg_cut.10,20"; without cutoffs, DefaultCutoffs). The
// nugget measures are "alpha_ndcg_cut" (AlphaNDCG with DefaultAlpha) and
// "coverage", with cutoffs in the same way ("alpha_ndcg_cut.5,10"). An
// unknown name, cutoffs on a measure that takes none, or a bad cutoff is an
// error wrapping pipeline.ErrInvalid. A measure named twice is kept once.
func ParseMeasures(specs ...string) ([]Measure, error) {
	var out []Measure
	seen := map[string]bool{}
	add := func(m Measure) {
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m)
		}
	}
	for _, spec := range specs {
		name, params, hasParams := strings.Cut(spec, ".")
		fam, ok := measureFamilies[name]
		if !ok {
			return nil, pipeline.Invalidf("unknown measure %q (known: map, recip_rank, P, recall, ndcg_cut, alpha_ndcg_cut, coverage)", name)
		}
		if fam.single != nil {
			if hasParams {
				return nil, pipeline.Invalidf("measure %q takes no cutoffs", name)
			}
			add(fam.single())
			continue
		}
		var ks []int // nil: DefaultCutoffs
		if hasParams {
			for _, p := range strings.Split(params, ",") {
				k, err := strconv.Atoi(p)
				if err != nil {
					return nil, pipeline.Invalidf("measure %q: cutoff %q is not a whole number", spec, p)
				}
				ks = append(ks, k)
			}
		}
		ks, err := checkCutoffs(ks)
		if err != nil {
			return nil, fmt.Errorf("measure %q: %w", spec, err)
		}
		for _, k := range ks {
			add(fam.cut(k))
		}
	}
	return out, nil
}
