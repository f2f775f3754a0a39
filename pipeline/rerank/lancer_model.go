package rerank

import (
	"context"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// lancerReranker is LANCER (Ju et al., ECIR 2026): sub-questions, a 0–5
// answerability rating of every candidate for every sub-question, and an
// aggregation of the rating grid.
type lancerReranker struct{ reranker }

// Rerank asks for Options.SubQuestions sub-questions (or takes the oracle
// questions), rates each of the leading Options.Depth candidates for each
// question with the request concatenated to it (n × depth calls, run
// concurrently), and orders them by Aggregate with Options.Aggregation
// and the stable tie convention. An unparsable rating counts 0, as the
// paper has it, and is listed in the trace. When the model's sub-question
// answer yields no question, the request itself (title and problem
// statement) is the one question, and the trace says so; extra questions
// beyond n are dropped.
func (l *lancerReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := l.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	trace := LANCERTrace{Aggregation: l.s.aggregation.String(), Depth: len(ru.head), Rows: []LANCERRow{}, Questions: []string{}}
	if len(ru.head) == 0 {
		return ru.result(nil, 0, trace)
	}
	questions, err := l.questions(ctx, ru, &trace)
	if err != nil {
		return Result{}, err
	}
	trace.Questions = questions
	ru.plan(len(ru.head) * len(questions))

	req := RequestInfo(in.Request)
	nq := len(questions)
	ratings := make([][]int, len(ru.head))
	for i := range ratings {
		ratings[i] = make([]int, nq)
	}
	failures := make([]*ParseFailure, len(ru.head)*nq)
	err = ru.forEach(ctx, len(ru.head)*nq, func(ctx context.Context, k int) error {
		i, j := k/nq, k%nq
		resp, err := ru.ask(ctx, BuildRate(RateInput{Request: req, Question: questions[j], Doc: ru.docs[i]}))
		if err != nil {
			return fmt.Errorf("lancer: rate document %q for sub-question %d: %w", ru.head[i].ID, j+1, err)
		}
		out, perr := ParseRate(resp.Text)
		if perr != nil {
			f := failure(fmt.Sprintf("rate %s for sub-question %d", ru.head[i].ID, j+1), resp.Text, perr)
			failures[k] = &f
			return nil // counts 0
		}
		ratings[i][j] = out.Rating
		return nil
	})
	if err != nil {
		return Result{}, wrapCtx("lancer", err)
	}
	for _, f := range failures {
		if f != nil {
			trace.Failures = append(trace.Failures, *f)
			trace.Unparsable++
		}
	}
	agg, err := Aggregate(l.s.aggregation, ru.head, ratings, AggregateOptions{})
	if err != nil {
		return Result{}, fmt.Errorf("lancer: %w", err)
	}
	trace.Prefix = agg.Prefix
	rank := ru.ranks(agg.Order)
	score := make([]float64, len(ru.head))
	gain := make([]float64, len(ru.head))
	for k, i := range agg.Order {
		score[i] = agg.Scores[k]
		if agg.Gains != nil {
			gain[i] = agg.Gains[k]
		}
	}
	for i, c := range ru.head {
		trace.Rows = append(trace.Rows, LANCERRow{
			DocID: c.ID, Title: ru.docs[i].Title, FirstStageRank: i + 1, Rank: rank[i],
			Ratings: ratings[i], Score: score[i], Gain: gain[i],
		})
	}
	return ru.result(agg.Order, 0, trace)
}

// questions returns the oracle questions of the request, or asks the
// model for n sub-questions.
func (l *lancerReranker) questions(ctx context.Context, ru *run, trace *LANCERTrace) ([]string, error) {
	if l.s.oracle != nil {
		var qs []string
		for _, q := range l.s.oracle[ru.in.Request.ID] {
			if q = flatten(q); q != "" {
				qs = append(qs, q)
			}
		}
		if len(qs) == 0 {
			return nil, fmt.Errorf("lancer: oracle mode: %w", pipeline.Invalidf("no oracle questions for request %q", ru.in.Request.ID))
		}
		trace.Oracle = true
		return qs, nil
	}
	ru.plan(1)
	req := RequestInfo(ru.in.Request)
	resp, err := ru.ask(ctx, BuildSubQuestions(SubQuestionsInput{Request: req, N: l.s.subQuestions}))
	if err != nil {
		return nil, fmt.Errorf("lancer: sub-questions for request %q: %w", ru.in.Request.ID, err)
	}
	out, perr := ParseSubQuestions(resp.Text)
	qs := out.Questions
	switch {
	case perr != nil:
		trace.Failures = append(trace.Failures, failure("sub-questions", resp.Text, perr))
		trace.Notes = append(trace.Notes, "no sub-question could be read; the request itself is the one question")
		return []string{flatten(requestQuery(req))}, nil
	case len(qs) > l.s.subQuestions:
		trace.Notes = append(trace.Notes, fmt.Sprintf("the model gave %d sub-questions; the first %d are used", len(qs), l.s.subQuestions))
		qs = qs[:l.s.subQuestions]
	case len(qs) < l.s.subQuestions:
		trace.Notes = append(trace.Notes, fmt.Sprintf("the model gave %d of the %d sub-questions asked for", len(qs), l.s.subQuestions))
	}
	for _, s := range out.Report.Skipped {
		trace.Notes = append(trace.Notes, fmt.Sprintf("sub-question entry dropped (%s): %s", s.Reason, s.Text))
	}
	return qs, nil
}

// wrapCtx names the method on an error that does not already name it
// (ctx's error from a cancelled run).
func wrapCtx(method string, err error) error {
	if strings.HasPrefix(err.Error(), method+":") {
		return err
	}
	return fmt.Errorf("%s: %w", method, err)
}
