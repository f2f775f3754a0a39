package rerank

import (
	"context"
	"fmt"
)

// setrReranker is SetR (Lee et al.): one set-wise selection prompt.
type setrReranker struct{ reranker }

// Rerank shows the leading Options.Depth candidates in one prompt that
// asks for the request's information requirements, the documents meeting
// each and the set that covers them with the least redundancy, of any
// size (ParseSetR). The selected set comes first in the answer's order
// (Result.Selected is its size), then every other candidate in
// first-stage order. An answer without a usable "Final Selection" line
// selects nothing: the ranking is the first-stage order and the trace
// records the failure.
func (s *setrReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := s.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	trace := SetRTrace{Depth: len(ru.head), Requirements: []SetRTraceRequirement{}, Selected: []string{}}
	if len(ru.head) == 0 {
		return ru.result(nil, 0, trace)
	}
	ru.plan(1)
	resp, err := ru.ask(ctx, BuildSetR(SetRInput{Request: RequestInfo(in.Request), Docs: ru.docs}))
	if err != nil {
		return Result{}, fmt.Errorf("setr: select among documents %s: %w", idRange(candidateIDs(ru.head)), err)
	}
	out, perr := ParseSetR(resp.Text, len(ru.head))
	for _, r := range out.Requirements {
		tr := SetRTraceRequirement{Text: r.Text, DocIDs: []string{}}
		for _, i := range r.Docs {
			tr.DocIDs = append(tr.DocIDs, ru.head[i].ID)
		}
		trace.Requirements = append(trace.Requirements, tr)
	}
	if perr != nil {
		trace.Failures = append(trace.Failures, failure("final selection", resp.Text, perr))
		return ru.result(nil, 0, trace)
	}
	for _, i := range out.Selection.Order {
		trace.Selected = append(trace.Selected, ru.head[i].ID)
	}
	trace.Repeated, trace.OutOfRange = out.Selection.Repeated, out.Selection.OutOfRange
	return ru.result(out.Selection.Order, len(out.Selection.Order), trace)
}

// candidateIDs lists the candidates' ids.
func candidateIDs(cs []Candidate) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}
