package rerank

import (
	"context"
	"fmt"
)

// setwiseReranker is the setwise heap sort (after Zhuang et al., SIGIR
// 2024): a heap whose every comparison asks the model for the best of a
// node and its children.
type setwiseReranker struct{ reranker }

// Rerank sorts the Options.TopK best of the leading Options.Depth
// candidates with a heap sort on a max-heap of arity Options.SetSize − 1:
// sifting a node down shows the model the node and its children (at most
// SetSize documents, the node first, labelled A, B, ...), and the chosen
// one moves up. The heap is built bottom-up, then the top is taken TopK
// times. The rest follow in first-stage order. An answer that names no
// document keeps the node where it is. The calls are sequential.
func (s *setwiseReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := s.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	arity := s.s.setSize - 1
	m := len(ru.head)
	topK := min(s.s.topK, m)
	trace := SetwiseTrace{Depth: m, SetSize: s.s.setSize, TopK: topK, Top: []string{}, Comparisons: []SetwiseComparison{}}
	ru.plan(setwisePlan(m, arity, topK))
	req := RequestInfo(in.Request)
	heap := make([]int, m) // candidate positions in heap order
	for i := range heap {
		heap[i] = i
	}
	siftDown := func(node, size int, phase string) error {
		for {
			set := []int{node}
			for c := arity*node + 1; c <= arity*node+arity && c < size; c++ {
				set = append(set, c)
			}
			if len(set) == 1 {
				return nil
			}
			docs := make([]PromptDoc, len(set))
			ids := make([]string, len(set))
			for k, h := range set {
				docs[k] = ru.docs[heap[h]]
				ids[k] = ru.head[heap[h]].ID
			}
			resp, err := ru.ask(ctx, BuildSetwise(SetwiseInput{Request: req, Docs: docs}))
			if err != nil {
				return fmt.Errorf("setwise: compare documents %s: %w", idRange(ids), err)
			}
			choice := 0
			out, perr := ParseSetwise(resp.Text, len(set))
			if perr != nil {
				trace.Failures = append(trace.Failures, failure("compare "+idRange(ids), resp.Text, perr))
			} else {
				choice = out.Choice
			}
			trace.Comparisons = append(trace.Comparisons, SetwiseComparison{Phase: phase, Docs: ids, Winner: ids[choice]})
			if choice == 0 {
				return nil
			}
			best := set[choice]
			heap[node], heap[best] = heap[best], heap[node]
			node = best
		}
	}
	if m > 1 {
		for node := (m - 2) / arity; node >= 0; node-- {
			if err := siftDown(node, m, "build"); err != nil {
				return Result{}, err
			}
		}
	}
	order := make([]int, 0, topK)
	for size := m; len(order) < topK; {
		order = append(order, heap[0])
		size--
		heap[0] = heap[size]
		if len(order) < topK {
			if err := siftDown(0, size, "extract"); err != nil {
				return Result{}, err
			}
		}
	}
	for _, i := range order {
		trace.Top = append(trace.Top, ru.head[i].ID)
	}
	return ru.result(order, 0, trace)
}

// setwisePlan estimates the calls of a setwise sort: one per internal node
// to build the heap, and a sift of the heap's depth per extraction after
// the first.
func setwisePlan(m, arity, topK int) int {
	if m < 2 {
		return 0
	}
	internal := (m-2)/arity + 1
	depth := 0
	for span, level := 1, 1; span < m; depth++ {
		level *= arity
		span += level
	}
	return internal + max(topK-1, 0)*depth
}
