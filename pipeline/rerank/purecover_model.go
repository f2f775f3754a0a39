package rerank

import (
	"context"
	"fmt"
)

// pureCoverReranker is PureCover: weighted requirement coverage minus
// noise, from model judgements.
type pureCoverReranker struct{ reranker }

// Rerank asks for the request's weighted information requirements (at
// most Options.Requirements; P(e|q) is the 1–5 weights normalised), then,
// for every requirement and each of the leading Options.Depth candidates
// (run concurrently), whether the document gives that requirement. A
// judgement's probability of "yes" p comes from the token log-probabilities
// (1 or 0 from the stated answer when there are none, an unreadable answer
// counting 0; p is kept within [0.001, 0.999]). P(d|e) is a softmax over the candidates
// of the log-odds ln(p/(1−p)) divided by Options.Temperature (default
// DefaultSupportTemperature): each document's share of a requirement is
// its odds raised to 1/T over the candidates' sum (at T = 1, its odds over
// the sum of odds). A softmax over p itself, which lies in [0, 1], would
// be nearly uniform at any usable temperature. The paper
// estimates P(d|e) from a model's attention, which an API does not
// expose; these judgements stand in for it. PureCover's greedy then
// selects at most Options.CoverK documents with Options.Lambda; the set
// comes first in selection order, then every other candidate in
// first-stage order.
//
// Because P(d|e) is a share of the requirement among the candidates, a
// requirement that several documents support equally is split among them,
// and the noise term outweighs the gain of a document whose support is
// no better than the average candidate's (with the default λ =
// DefaultCoverLambda ≈ 1/Depth): the set stops before K, and can be
// empty, when many candidates say the same thing equally well. The trace
// shows each term.
//
// When the requirements answer yields none, the request itself (title and
// problem statement) is the one requirement, with the default weight.
func (p *pureCoverReranker) Rerank(ctx context.Context, in Input) (Result, error) {
	ru, err := p.start(ctx, in)
	if err != nil {
		return Result{}, err
	}
	trace := PureCoverTrace{
		Depth: len(ru.head), K: p.s.cover.K, Lambda: p.s.cover.Lambda, Temperature: p.s.temperature,
		Requirements: []PureCoverRequirement{}, Rows: []PureCoverRow{}, Steps: []PureCoverStep{},
	}
	if len(ru.head) == 0 {
		return ru.result(nil, 0, trace)
	}
	ru.plan(1)
	req := RequestInfo(in.Request)
	resp, err := ru.ask(ctx, BuildRequirements(RequirementsInput{Request: req, Max: p.s.requirements, Docs: ru.docs}))
	if err != nil {
		return Result{}, fmt.Errorf("purecover: requirements of request %q: %w", in.Request.ID, err)
	}
	out, perr := ParseRequirements(resp.Text)
	reqs := out.Requirements
	switch {
	case perr != nil:
		trace.Failures = append(trace.Failures, failure("requirements", resp.Text, perr))
		trace.Notes = append(trace.Notes, "no requirement could be read; the request itself is the one requirement")
		reqs = []Requirement{{Text: flatten(requestQuery(req)), Weight: DefaultRequirementWeight}}
	case len(reqs) > p.s.requirements:
		trace.Notes = append(trace.Notes, fmt.Sprintf("the model gave %d requirements; the first %d are used", len(reqs), p.s.requirements))
		reqs = reqs[:p.s.requirements]
	}
	for _, m := range out.Report.Missing {
		trace.Notes = append(trace.Notes, m+" was missing; it was set to the default weight")
	}
	raw := make([]float64, len(reqs))
	for e, r := range reqs {
		raw[e] = float64(r.Weight)
	}
	weights, err := NormalizeWeights(raw)
	if err != nil {
		return Result{}, fmt.Errorf("purecover: %w", err)
	}
	for e, r := range reqs {
		trace.Requirements = append(trace.Requirements, PureCoverRequirement{Text: r.Text, Weight: r.Weight, P: weights[e]})
	}

	ne := len(reqs)
	ru.plan(len(ru.head) * ne)
	yes := make([][]float64, len(ru.head))
	for d := range yes {
		yes[d] = make([]float64, ne)
	}
	sources := make([]string, len(ru.head)*ne)
	failures := make([]*ParseFailure, len(ru.head)*ne)
	err = ru.forEach(ctx, len(ru.head)*ne, func(ctx context.Context, k int) error {
		d, e := k/ne, k%ne
		resp, err := ru.ask(ctx, BuildSupport(SupportInput{Request: req, Requirement: reqs[e].Text, Doc: ru.docs[d]}))
		if err != nil {
			return fmt.Errorf("purecover: judge document %q for requirement %d: %w", ru.head[d].ID, e+1, err)
		}
		pr, source, perr := yesScore(resp, func(s string) (bool, error) {
			out, err := ParseSupport(s)
			return out.Yes, err
		})
		if perr != nil {
			f := failure(fmt.Sprintf("judge %s for requirement %d", ru.head[d].ID, e+1), resp.Text, perr)
			failures[k] = &f
		}
		yes[d][e], sources[k] = pr, source
		return nil
	})
	if err != nil {
		return Result{}, wrapCtx("purecover", err)
	}
	scores := make([][]float64, len(ru.head))
	for d := range scores {
		scores[d] = make([]float64, ne)
		for e := range scores[d] {
			scores[d][e] = logit(yes[d][e])
		}
	}
	for k, s := range sources {
		switch s {
		case SourceLogprobs:
			trace.FromLogprobs++
		case SourceAnswer:
			trace.FromAnswer++
		default:
			trace.Unparsable++
		}
		if failures[k] != nil {
			trace.Failures = append(trace.Failures, *failures[k])
		}
	}
	support, err := SupportFromJudgements(scores, p.s.temperature)
	if err != nil {
		return Result{}, fmt.Errorf("purecover: %w", err)
	}
	sel, err := PureCover(ru.head, weights, support, p.s.cover)
	if err != nil {
		return Result{}, fmt.Errorf("purecover: %w", err)
	}
	trace.StoppedEarly = sel.StoppedEarly
	for _, st := range sel.Steps {
		trace.Steps = append(trace.Steps, PureCoverStep{
			DocID: st.ID, Gain: st.Gain, Coverage: st.Value.Coverage, Noise: st.Value.Noise, Objective: st.Value.Objective,
		})
	}
	rank := ru.ranks(sel.Selected)
	chosen := make([]bool, len(ru.head))
	for _, d := range sel.Selected {
		chosen[d] = true
	}
	for d, c := range ru.head {
		trace.Rows = append(trace.Rows, PureCoverRow{
			DocID: c.ID, Title: ru.docs[d].Title, FirstStageRank: d + 1, Rank: rank[d],
			Yes: yes[d], Support: support[d], Noise: documentNoise(weights, support[d]), Selected: chosen[d],
		})
	}
	return ru.result(sel.Selected, len(sel.Selected), trace)
}
