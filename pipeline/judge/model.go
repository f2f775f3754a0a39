package judge

import (
	"context"
	"errors"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// ModelJudge asks a language model the two yes/no questions, with the
// prompts.TaskJudgeCovers and prompts.TaskJudgeSupport prompts. Wrap the
// model with the cache (pipeline/llm) so a re-run asks nothing twice.
//
// Score is the probability of "yes" read from the answer's token
// log-probabilities (prompts.YesProbability) when the endpoint returns
// them, else 1 or 0 from the answer. An answer that reads as neither yes
// nor no falls back on the log-probabilities when there are any (yes when
// P(yes) ≥ 0.5); without them it is an error wrapping pipeline.ErrInvalid
// (a *prompts.ParseError), which the Evaluator records as an undecided
// verdict. A failed model call is returned as the model's error.
type ModelJudge struct {
	Model pipeline.Model
	// Label names the model in Name ("model judge: <Label>"); optional.
	Label string
	// ModelName and Host are the model's name and its endpoint's host
	// (and port), which tell whether the judge is the model that wrote a
	// report (Info, pipeline.Independence); ModelName defaults to Label.
	ModelName string
	Host      string
}

// Name names the judge.
func (m ModelJudge) Name() string {
	if m.Label == "" {
		return "model judge"
	}
	return "model judge: " + m.Label
}

// Covers implements Judge.
func (m ModelJudge) Covers(ctx context.Context, n Nugget, sentence string) (Verdict, error) {
	in := prompts.JudgeCoversInput{Question: n.Question, Answers: n.Answers, Claim: n.Text, Sentence: sentence}
	v, err := m.ask(ctx, prompts.BuildJudgeCovers(in), func(text string) (bool, error) {
		out, err := prompts.ParseJudgeCovers(text)
		return out.Yes, err
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("judge nugget %s against a sentence: %w", n.ID, err)
	}
	return v, nil
}

// Supports implements Judge. A missing document or empty evidence is
// unsupported without a model call.
func (m ModelJudge) Supports(ctx context.Context, sentence string, ev Evidence) (Verdict, error) {
	switch {
	case ev.Basis == BasisMissing:
		return Verdict{Reason: "document not in the collection"}, nil
	case len(contentTerms(ev.Text).order) == 0:
		return Verdict{Reason: "the cited text is empty"}, nil
	}
	in := prompts.JudgeSupportInput{Sentence: sentence, Span: ev.Span, PassageText: ev.Text, Byline: ev.Byline}
	v, err := m.ask(ctx, prompts.BuildJudgeSupport(in), func(text string) (bool, error) {
		out, err := prompts.ParseJudgeSupport(text)
		return out.Yes, err
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("judge the citation of %s: %w", ev.DocID, err)
	}
	return v, nil
}

// ask sends one yes/no request and reads the verdict.
func (m ModelJudge) ask(ctx context.Context, req pipeline.ModelRequest, parse func(string) (bool, error)) (Verdict, error) {
	if m.Model == nil {
		return Verdict{}, errors.New("the model judge has no model")
	}
	resp, err := m.Model.Complete(ctx, req)
	if err != nil {
		return Verdict{}, err
	}
	yes, perr := parse(resp.Text)
	p, hasP := prompts.YesProbability(resp)
	switch {
	case perr != nil && hasP:
		return Verdict{Yes: p >= 0.5, Score: p,
			Reason: fmt.Sprintf("answer unreadable; P(yes) = %.2f from token probabilities", p)}, nil
	case perr != nil:
		return Verdict{}, perr
	case hasP:
		return Verdict{Yes: yes, Score: p, Reason: fmt.Sprintf("model answered %s, P(yes) = %.2f", yesNo(yes), p)}, nil
	default:
		s := 0.0
		if yes {
			s = 1
		}
		return Verdict{Yes: yes, Score: s, Reason: "model answered " + yesNo(yes)}, nil
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
