package index

import "context"

// ScoreExhaustive scores with the reference scorer that visits every
// posting, for the tests that compare it with the pruned one.
func (ix *Index) ScoreExhaustive(ctx context.Context, query string, docs bool, limit int) (Ranking, error) {
	ranked, total, terms, err := ix.score(ctx, query, docs, limit, true, true)
	rk := Ranking{Hits: ranked, Total: total, Terms: terms}
	if total < 0 {
		rk.Total, rk.TotalIsLowerBound = -total, true
	}
	return rk, err
}
