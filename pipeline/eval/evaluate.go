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
	// measure set (see StandardMeasures); nil means DefaultCutoffs.
	Ks []int
	// Complete averages over every judged query, a query missing from the
	// run scoring 0 on every measure: trec_eval -c. Otherwise only queries
	// with both judgements and results are averaged (trec_eval's default).
	Complete bool
	// Measures, when non-empty, are computed instead of the standard set;
	// Ks must then be nil. Names must be unique, non-empty and without
	// whitespace.
	Measures []Measure
}

// Results are the per-query values and means of an evaluation.
type Results struct {
	// Measures are the measure names in computation (and table) order.
	Measures []string
	// Queries are the queries averaged, in byte order (trec_eval's order).
	Queries []string
	// PerQuery maps each averaged query to its value of each measure.
	PerQuery map[string]map[string]float64
	// Mean maps each measure to its mean over Queries.
	Mean map[string]float64
	// Missing are judged queries with no results in the run, in byte order.
	// With Complete they are in Queries, scoring 0; without, they are not
	// averaged.
	Missing []string
	// Unjudged are run queries with no judgements, in byte order. They are
	// never averaged.
	Unjudged []string
}

// NumQueries returns the number of queries averaged (trec_eval's num_q).
func (r Results) NumQueries() int { return len(r.Queries) }

// Evaluate scores run against qrels. Each query's entries are ordered as
// trec_eval orders them (see Ranked); see the package documentation for the
// conventions. Bad options, or no query to average (no judged query has
// results, or with Complete the qrels are empty), give an error wrapping
// pipeline.ErrInvalid: trec_eval also stops there rather than report an
// empty mean.
func Evaluate(qrels Qrels, run Run, opts Options) (Results, error) {
	measures, err := opts.measures()
	if err != nil {
		return Results{}, err
	}
	res := Results{
		Measures: make([]string, len(measures)),
		PerQuery: map[string]map[string]float64{},
		Mean:     map[string]float64{},
	}
	for i, m := range measures {
		res.Measures[i] = m.Name
	}

	for _, qid := range sortedKeys(qrels) {
		entries := run[qid]
		if len(entries) == 0 {
			res.Missing = append(res.Missing, qid)
			if !opts.Complete {
				continue
			}
		}
		values := make(map[string]float64, len(measures))
		if len(entries) == 0 {
			for _, m := range measures {
				values[m.Name] = 0
			}
		} else {
			r := NewRanking(qid, qrels[qid], entries)
			for _, m := range measures {
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

	// Sum in query order, then divide, as trec_eval accumulates.
	for _, m := range res.Measures {
		sum := 0.0
		for _, qid := range res.Queries {
			sum += res.PerQuery[qid][m]
		}
		res.Mean[m] = sum / float64(len(res.Queries))
	}
	return res, nil
}

// measures returns the measures to compute, checked.
func (o Options) measures() ([]Measure, error) {
	if len(o.Measures) == 0 {
		return StandardMeasures(o.Ks)
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
// first, in query order; then the "all" lines: num_q (the number of queries
// averaged) and each measure's mean.
func (r Results) WriteTable(w io.Writer, perQuery bool) error {
	bw := bufio.NewWriter(w)
	if perQuery {
		for _, qid := range r.Queries {
			for _, m := range r.Measures {
				fmt.Fprintf(bw, "%-22s\t%s\t%6.4f\n", m, qid, r.PerQuery[qid][m])
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
