package rerank

import (
	"context"
	"fmt"
	"slices"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// pointwiseReranker is the pointwise yes/no baseline.
type pointwiseReranker struct{ reranker }

// Rerank asks, for each of the leading Options.Depth candidates (run
// concurrently), whether the document is relevant, and orders them by the
// probability of "yes" read from the answer's token log-probabilities
// (prompts.YesProbability); a server that returns none falls back to the
// stated answer, yes 1 and no 0, and an unreadable answer scores 0. Ties
// keep first-stage order.
func (p *pointwiseReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := p.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	trace := PointwiseTrace{Depth: len(ru.head), Rows: []PointwiseRow{}}
	ru.plan(len(ru.head))
	req := RequestInfo(in.Request)
	scores := make([]float64, len(ru.head))
	sources := make([]string, len(ru.head))
	failures := make([]*ParseFailure, len(ru.head))
	err = ru.forEach(ctx, len(ru.head), func(ctx context.Context, i int) error {
		resp, err := ru.ask(ctx, BuildPointwise(PointwiseInput{Request: req, Doc: ru.docs[i]}))
		if err != nil {
			return fmt.Errorf("pointwise: judge document %q: %w", ru.head[i].ID, err)
		}
		var perr error
		scores[i], sources[i], perr = yesScore(resp, func(s string) (bool, error) {
			out, err := ParsePointwise(s)
			return out.Relevant, err
		})
		if perr != nil {
			f := failure("judge "+ru.head[i].ID, resp.Text, perr)
			failures[i] = &f
		}
		return nil
	})
	if err != nil {
		return Result{}, wrapCtx("pointwise", err)
	}
	order := make([]int, len(ru.head))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	rank := ru.ranks(order)
	for i, c := range ru.head {
		trace.Rows = append(trace.Rows, PointwiseRow{
			DocID: c.ID, Title: ru.docs[i].Title, FirstStageRank: i + 1, Rank: rank[i], Score: scores[i], Source: sources[i],
		})
		trace.count(sources[i])
		if failures[i] != nil {
			trace.Failures = append(trace.Failures, *failures[i])
		}
	}
	return ru.result(order, 0, trace)
}

func (t *PointwiseTrace) count(source string) {
	switch source {
	case SourceLogprobs:
		t.FromLogprobs++
	case SourceAnswer:
		t.FromAnswer++
	default:
		t.Unparsable++
	}
}

// yesScore is the probability of "yes" of a yes/no answer: from its token
// log-probabilities when it has them (SourceLogprobs), else 1 or 0 from
// the answer parse reads (SourceAnswer), else 0 with the parse error
// (SourceUnparsable).
func yesScore(resp pipeline.ModelResponse, parse func(string) (bool, error)) (float64, string, error) {
	if p, ok := prompts.YesProbability(resp); ok {
		return p, SourceLogprobs, nil
	}
	yes, err := parse(resp.Text)
	if err != nil {
		return 0, SourceUnparsable, err
	}
	if yes {
		return 1, SourceAnswer, nil
	}
	return 0, SourceAnswer, nil
}
