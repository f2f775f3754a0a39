package rerank

import "github.com/crucible-portal/crucible/pipeline"

// SelectionRun turns a selected set into a full ranking of the candidates
// so that set-based rerankers (SetR, PureCover) are scored with the same
// rank metrics as the others: the selected candidates first, in selection
// order, then every other candidate in first-stage order. selected holds
// candidate positions (0-based), distinct and in range; it may be empty
// (the first-stage ranking) or hold them all (a full reranking, such as
// Aggregation.Order).
//
// The returned candidates carry synthetic scores 1/rank (1, 0.5, 0.333…),
// strictly descending so that evaluation tools which sort by score keep
// the order; their first-stage scores are not kept.
func SelectionRun(candidates []Candidate, selected []int) ([]Candidate, error) {
	if err := validateCandidates(candidates); err != nil {
		return nil, err
	}
	taken := make([]bool, len(candidates))
	out := make([]Candidate, 0, len(candidates))
	add := func(i int) {
		out = append(out, Candidate{ID: candidates[i].ID, Score: 1 / float64(len(out)+1)})
	}
	for k, i := range selected {
		if i < 0 || i >= len(candidates) {
			return nil, pipeline.Invalidf("selection entry %d is position %d, outside 0..%d", k, i, len(candidates)-1)
		}
		if taken[i] {
			return nil, pipeline.Invalidf("selection entry %d repeats position %d (candidate %q)", k, i, candidates[i].ID)
		}
		taken[i] = true
		add(i)
	}
	for i := range candidates {
		if !taken[i] {
			add(i)
		}
	}
	return out, nil
}
