package eval

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Options control Evaluate.
type Options struct {
	// Ks are the cutoffs of P_k, recall_k and ndcg_cut_k in the standard
	// measure set (see StandardMeasures), and of alpha_ndcg_cut_k and
	// coverage_k when Nuggets are given; nil means DefaultCutoffs.
	Ks []int
	// Complete averages over every judged query, a query missing from the
	// run scoring 0 on every measure: trec_eval -c. Otherwise only queries
	// with both judgements and results are averaged (trec_eval's default).
	Complete bool
	// Measures, when non-empty, are computed instead of the standard set;
	// Ks and Alpha must then be unset. Names must be unique, non-empty and
	// without whitespace.
	Measures []Measure
	// Nuggets are nugget-level judgements. With them the standard set also
	// has alpha_ndcg_cut_k then coverage_k for each cutoff (see
	// NuggetMeasures), and nugget measures among Measures read them. A
	// query with no nugget in them has no value for the nugget measures:
	// it is left out of their means and listed in Results.Undefined.
	// Nugget judgements of a query absent from the qrels are not used.
	Nuggets NuggetQrels
	// Alpha is the α of alpha_ndcg_cut_k in the standard set; 0 means
	// DefaultAlpha (0.5). It must be in (0, 1] and needs Nuggets. For
	// α = 0 build the measures with NuggetMeasures and pass them in
	// Measures.
	Alpha float64
	// ByRank orders each query's documents by the run's rank column (see
	// RankedByRank), as ndeval does by default, instead of by score as
	// trec_eval (and ndeval -traditional) do.
	ByRank bool
}

// Results are the per-query values and means of an evaluation. They
// marshal to JSON with snake_case keys.
type Results struct {
	// Measures are the measure names in computation (and table) order.
	Measures []string `json:"measures"`
	// Queries are the queries averaged, in byte order (trec_eval's order).
	Queries []string `json:"queries"`
	// PerQuery maps each averaged query to its value of each measure
	// defined for it (see Undefined).
	PerQuery map[string]map[string]float64 `json:"per_query"`
	// Mean maps each measure to its mean over the queries of Queries for
	// which it is defined.
	Mean map[string]float64 `json:"mean"`
	// Missing are judged queries with no results in the run, in byte order.
	// With Complete they are in Queries, scoring 0; without, they are not
	// averaged.
	Missing []string `json:"missing,omitempty"`
	// Unjudged are run queries with no judgements, in byte order. They are
	// never averaged.
	Unjudged []string `json:"unjudged,omitempty"`
	// Undefined maps a measure to the queries of Queries it has no value
	// for, in byte order: for the nugget measures, the queries without
	// nuggets. They have no entry for it in PerQuery and are left out of
	// its mean. Measures defined for every query are not listed; nil when
	// none is.
	Undefined map[string][]string `json:"undefined,omitempty"`
}

// NumQueries returns the number of queries averaged (trec_eval's num_q).
func (r Results) NumQueries() int { return len(r.Queries) }

// NumQueriesFor returns the number of queries the mean of measure is
// over: NumQueries less the queries it is undefined for.
func (r Results) NumQueriesFor(measure string) int {
	return len(r.Queries) - len(r.Undefined[measure])
}

// Evaluate scores run against qrels. Each query's entries are ordered as
// trec_eval orders them (see Ranked), or by rank with Options.ByRank; see
// the package documentation for the conventions. Bad options, no query to
// average (no judged query has results, or with Complete the qrels are
// empty), or a measure defined for none of the queries averaged (nugget
// judgements that cover none of them) give an error wrapping
// pipeline.ErrInvalid: trec_eval also stops there rather than report an
// empty mean.
func Evaluate(qrels Qrels, run Run, opts Options) (Results, error) {
	measures, err := opts.measures()
	if err != nil {
		return Results{}, err
	}
	order := Ranked
	if opts.ByRank {
		order = RankedByRank
	}
	res := Results{
		Measures: make([]string, len(measures)),
		PerQuery: map[string]map[string]float64{},
		Mean:     map[string]float64{},
	}
	for i, m := range measures {
		res.Measures[i] = m.Name
	}

	undefined := map[string][]string{}
	for _, qid := range sortedKeys(qrels) {
		entries := run[qid]
		if len(entries) == 0 {
			res.Missing = append(res.Missing, qid)
			if !opts.Complete {
				continue
			}
		}
		r := newRanking(qid, qrels[qid], opts.Nuggets[qid], order(entries))
		values := make(map[string]float64, len(measures))
		for _, m := range measures {
			switch {
			case m.Defined != nil && !m.Defined(r):
				undefined[m.Name] = append(undefined[m.Name], qid)
			case len(entries) == 0:
				values[m.Name] = 0
			default:
				values[m.Name] = m.Compute(r)
			}
		}
		res.Queries = append(res.Queries, qid)
		res.PerQuery[qid] = values
	}
	for _, qid := range sortedKeys(run) {
		if _, ok := qrels[qid]; !ok && len(run[qid]) > 0 {
			res.Unjudged = append(res.Unjudged, qid)
		}
	}
	if len(res.Queries) == 0 {
		return Results{}, pipeline.Invalidf(
			"no query to average: %d judged queries, %d run queries, none in common", len(qrels), len(run))
	}
	if len(undefined) > 0 {
		res.Undefined = undefined
	}

	// Sum in query order, then divide, as trec_eval accumulates.
	for _, m := range res.Measures {
		sum, n := 0.0, 0
		for _, qid := range res.Queries {
			if v, ok := res.PerQuery[qid][m]; ok {
				sum += v
				n++
			}
		}
		if n == 0 {
			return Results{}, pipeline.Invalidf(
				"measure %q is defined for none of the %d queries averaged (nugget measures need nugget judgements for them)",
				m, len(res.Queries))
		}
		res.Mean[m] = sum / float64(n)
	}
	return res, nil
}

// measures returns the measures to compute, checked.
func (o Options) measures() ([]Measure, error) {
	if o.Alpha != 0 {
		switch {
		case !(o.Alpha > 0 && o.Alpha <= 1):
			return nil, pipeline.Invalidf("alpha %v is outside (0, 1]", o.Alpha)
		case len(o.Measures) > 0:
			return nil, pipeline.Invalidf("options set both alpha and measures; alpha applies only to the standard measures")
		case o.Nuggets == nil:
			return nil, pipeline.Invalidf("options set alpha without nugget judgements")
		}
	}
	if len(o.Measures) == 0 {
		ms, err := StandardMeasures(o.Ks)
		if err != nil || o.Nuggets == nil {
			return ms, err
		}
		alpha := o.Alpha
		if alpha == 0 {
			alpha = DefaultAlpha
		}
		nms, err := NuggetMeasures(o.Ks, alpha)
		if err != nil {
			return nil, err
		}
		return append(ms, nms...), nil
	}
	if o.Ks != nil {
		return nil, pipeline.Invalidf("options set both cutoffs and measures; cutoffs apply only to the standard measures")
	}
	seen := map[string]bool{}
	for i, m := range o.Measures {
		switch {
		case m.Name == "":
			return nil, pipeline.Invalidf("measure %d has no name", i+1)
		case strings.ContainsFunc(m.Name, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }):
			return nil, pipeline.Invalidf("measure name %q contains whitespace", m.Name)
		case m.Compute == nil:
			return nil, pipeline.Invalidf("measure %q has no Compute function", m.Name)
		case seen[m.Name]:
			return nil, pipeline.Invalidf("measure %q given twice", m.Name)
		}
		seen[m.Name] = true
	}
	return o.Measures, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// WriteTable writes the results as trec_eval prints them: lines "measure
// \t qid \t value" with the measure left-aligned in 22 columns and the value
// as %6.4f. With perQuery (trec_eval -q) each averaged query's lines come
// first, in query order, without the measures undefined for it; then the
// "all" lines: num_q (the number of queries averaged) and each measure's
// mean. A mean over fewer queries than num_q (see Undefined) is not
// marked in the table; the JSON form lists the queries it leaves out.
func (r Results) WriteTable(w io.Writer, perQuery bool) error {
	bw := bufio.NewWriter(w)
	if perQuery {
		for _, qid := range r.Queries {
			for _, m := range r.Measures {
				if v, ok := r.PerQuery[qid][m]; ok {
					fmt.Fprintf(bw, "%-22s\t%s\t%6.4f\n", m, qid, v)
				}
			}
		}
	}
	fmt.Fprintf(bw, "%-22s\tall\t%d\n", "num_q", r.NumQueries())
	for _, m := range r.Measures {
		fmt.Fprintf(bw, "%-22s\tall\t%6.4f\n", m, r.Mean[m])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write evaluation table: %w", err)
	}
	return nil
}
