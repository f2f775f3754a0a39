package rerank

import (
	"context"
	"fmt"
)

// listwiseReranker is the listwise sliding-window baseline.
type listwiseReranker struct{ reranker }

// Rerank runs one bottom-up sliding-window pass (SlidingRerank with
// Options.WindowSize and WindowStride) over the leading Options.Depth
// candidates: each window's documents are shown as [1]..[m] and the
// model's "[i] > [j] > ..." answer (ParseListwise) reorders the window,
// the documents it leaves out following in their previous order. An
// answer that names no document leaves the window as it was. The calls
// are sequential: each window sees the previous one's result.
func (l *listwiseReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := l.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	trace := ListwiseTrace{Depth: len(ru.head), WindowSize: l.s.windowSize, WindowStride: l.s.windowStride, Windows: []ListwiseWindow{}}
	windows, err := SlidingWindows(len(ru.head), l.s.windowSize, l.s.windowStride)
	if err != nil {
		return Result{}, fmt.Errorf("listwise: %w", err)
	}
	ru.plan(len(windows))
	req := RequestInfo(in.Request)
	positions := make([]int, len(ru.head))
	for i := range positions {
		positions[i] = i
	}
	order, err := SlidingRerank(positions, l.s.windowSize, l.s.windowStride, func(w Window, window []int) ([]int, error) {
		docs := make([]PromptDoc, len(window))
		before := make([]string, len(window))
		for k, i := range window {
			docs[k] = ru.docs[i]
			before[k] = ru.head[i].ID
		}
		resp, err := ru.ask(ctx, BuildListwise(ListwiseInput{Request: req, Docs: docs}))
		if err != nil {
			return nil, fmt.Errorf("rank documents %s: %w", idRange(before), err)
		}
		parsed, perr := ParseListwise(resp.Text, len(window))
		if perr != nil {
			trace.Failures = append(trace.Failures, failure(fmt.Sprintf("rank window [%d,%d)", w.Start, w.End), resp.Text, perr))
		}
		after := make([]string, len(window))
		for k, p := range parsed.Order {
			after[k] = before[p]
		}
		trace.Windows = append(trace.Windows, ListwiseWindow{
			Start: w.Start, End: w.End, Before: before, After: after, Ranked: parsed.Ranked, Complete: parsed.Complete(),
		})
		return parsed.Order, nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("listwise: %w", err)
	}
	return ru.result(order, 0, trace)
}

// idRange names the documents of a window for an error message: the
// first and last ids and the count.
func idRange(ids []string) string {
	switch len(ids) {
	case 0:
		return "(none)"
	case 1:
		return fmt.Sprintf("%q", ids[0])
	}
	return fmt.Sprintf("%q … %q (%d documents)", ids[0], ids[len(ids)-1], len(ids))
}
