package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// fakeModel answers with a function of the request and records what it
// was asked.
type fakeModel struct {
	mu     sync.Mutex
	asked  []pipeline.ModelRequest
	answer func(req pipeline.ModelRequest) (pipeline.ModelResponse, error)
}

func (f *fakeModel) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	f.mu.Unlock()
	return f.answer(req)
}

func text(s string) func(pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	return func(pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		return pipeline.ModelResponse{Text: s}, nil
	}
}

// withLogprobs answers s with a first token whose alternatives give
// P(yes) = p.
func withLogprobs(s string, p float64) func(pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	return func(pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		first := strings.Fields(s)[0]
		lp := math.Log(0.5)
		switch first {
		case "yes":
			lp = math.Log(p)
		case "no":
			lp = math.Log(1 - p)
		}
		return pipeline.ModelResponse{Text: s, TokenLogprobs: []pipeline.TokenLogprob{{
			Token: first, Logprob: lp,
			Top: []pipeline.TopLogprob{{Token: "yes", Logprob: math.Log(p)}, {Token: "no", Logprob: math.Log(1 - p)}},
		}}}, nil
	}
}

func TestModelJudgeCovers(t *testing.T) {
	answerNugget := Nugget{RequestID: "r", ID: "n1", Question: "What will the barrier cost?", Answers: []string{"12 million euros", "€12m"}}
	claimNugget := Nugget{RequestID: "r", ID: "c1", Text: "Foot Locker closes its Hong Kong stores."}
	tests := []struct {
		name    string
		nugget  Nugget
		answer  func(pipeline.ModelRequest) (pipeline.ModelResponse, error)
		want    Verdict
		wantErr string
	}{
		{"yes", answerNugget, text("Yes."), Verdict{Yes: true, Score: 1, Reason: "model answered yes"}, ""},
		{"no in markdown", claimNugget, text("**No**, it is about sales."), Verdict{Score: 0, Reason: "model answered no"}, ""},
		{"labelled answer after reasoning", answerNugget, text("<think>hmm</think>The sentence gives the cost.\nAnswer: yes"),
			Verdict{Yes: true, Score: 1, Reason: "model answered yes"}, ""},
		{"probability from log-probabilities", answerNugget, withLogprobs("yes", 0.8),
			Verdict{Yes: true, Score: 0.8, Reason: "model answered yes, P(yes) = 0.80"}, ""},
		{"garbage with log-probabilities falls back on them", answerNugget, withLogprobs("Perhaps yes perhaps no", 0.3),
			Verdict{Yes: false, Score: 0.3, Reason: "answer unreadable; P(yes) = 0.30 from token probabilities"}, ""},
		{"garbage", claimNugget, text("I cannot tell."), Verdict{},
			`judge nugget c1 against a sentence: parse judge_covers answer: no yes or no in the answer (answer begins "I cannot tell.")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &fakeModel{answer: tt.answer}
			got, err := ModelJudge{Model: m}.Covers(context.Background(), tt.nugget, "The barrier costs 12 million euros.")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
				}
				if !errors.Is(err, pipeline.ErrInvalid) {
					t.Errorf("a garbage answer's error does not wrap ErrInvalid")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Score-tt.want.Score) > 1e-9 || got.Yes != tt.want.Yes || got.Reason != tt.want.Reason {
				t.Errorf("verdict = %+v, want %+v", got, tt.want)
			}
			if len(m.asked) != 1 || m.asked[0].Task != prompts.TaskJudgeCovers {
				t.Fatalf("asked %+v", m.asked)
			}
			in, ok := m.asked[0].Input.(prompts.JudgeCoversInput)
			if !ok || in.Sentence != "The barrier costs 12 million euros." || in.Claim != tt.nugget.Text ||
				len(in.Answers) != len(tt.nugget.Answers) || in.Question != tt.nugget.Question {
				t.Errorf("input = %+v", m.asked[0].Input)
			}
		})
	}
}

func TestModelJudgeSupports(t *testing.T) {
	m := &fakeModel{answer: text("no")}
	j := ModelJudge{Model: m, Label: "test-model"}
	ev := Evidence{DocID: "d1", PassageID: "d1#0", Text: "The council approved the barrier.", Span: "approved the barrier", Basis: BasisProvenance}
	got, err := j.Supports(context.Background(), "The council rejected the barrier.", ev)
	if err != nil {
		t.Fatal(err)
	}
	if got.Yes || got.Score != 0 {
		t.Errorf("verdict = %+v, want no", got)
	}
	in := m.asked[0].Input.(prompts.JudgeSupportInput)
	if m.asked[0].Task != prompts.TaskJudgeSupport || in.PassageText != ev.Text || in.Span != ev.Span || in.Sentence != "The council rejected the barrier." {
		t.Errorf("asked %+v", m.asked[0])
	}
	// No model call for a missing document or an empty text.
	for _, ev := range []Evidence{{DocID: "gone", Basis: BasisMissing}, {DocID: "d9", Text: " . ", Basis: BasisDocument}} {
		v, err := j.Supports(context.Background(), "Anything.", ev)
		if err != nil || v.Yes {
			t.Errorf("Supports(%+v) = %+v, %v; want no", ev, v, err)
		}
	}
	if len(m.asked) != 1 {
		t.Errorf("%d model calls, want 1", len(m.asked))
	}
	if j.Name() != "model judge: test-model" || (ModelJudge{}).Name() != "model judge" {
		t.Errorf("names %q %q", j.Name(), ModelJudge{}.Name())
	}
}

func TestModelJudgeModelFailure(t *testing.T) {
	m := &fakeModel{answer: func(pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		return pipeline.ModelResponse{}, fmt.Errorf("after 3 tries: %w", pipeline.ErrModel)
	}}
	_, err := ModelJudge{Model: m}.Supports(context.Background(), "A sentence.", Evidence{DocID: "d1", Text: "A passage.", Basis: BasisBestPassage})
	if !errors.Is(err, pipeline.ErrModel) || !strings.Contains(err.Error(), "judge the citation of d1") {
		t.Errorf("error = %v", err)
	}
	if _, err := (ModelJudge{}).Covers(context.Background(), Nugget{ID: "n"}, "s"); err == nil {
		t.Error("a judge without a model answered")
	}
}

func TestModelJudgeEvaluator(t *testing.T) {
	// The model says yes to coverage only for sentences giving the cost,
	// yes to support for every citation, and garbage for sentence 3's
	// coverage questions.
	m := &fakeModel{answer: func(req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
		switch in := req.Input.(type) {
		case prompts.JudgeCoversInput:
			switch {
			case strings.Contains(in.Sentence, "three years"):
				return pipeline.ModelResponse{Text: "Let me think about it."}, nil
			case strings.Contains(in.Sentence, "12 million") && in.Question == "What will the barrier cost?":
				return pipeline.ModelResponse{Text: "yes"}, nil
			}
			return pipeline.ModelResponse{Text: "no"}, nil
		case prompts.JudgeSupportInput:
			return pipeline.ModelResponse{Text: "yes"}, nil
		}
		return pipeline.ModelResponse{}, fmt.Errorf("unexpected task %s", req.Task)
	}}
	got, err := (&Evaluator{Judge: ModelJudge{Model: m}, Source: testSource()}).EvaluateReport(context.Background(), testReport(), testGold())
	if err != nil {
		t.Fatal(err)
	}
	// n1 covered by s0 and s1 (both give the cost) → covered 1 of 4, s0
	// novel, s0 and s1 relevant. Citations: 5, of which d2 is missing (no
	// model call) → 4 supported. Sentence 3's 4 coverage answers are
	// undecided.
	want := Counts{Nuggets: 4, VitalNuggets: 2, Covered: 1, VitalCovered: 1, Sentences: 4, NovelSentences: 1,
		RelevantSentences: 2, Citations: 5, Supported: 4, Undecided: 4}
	if got.Counts != want {
		t.Errorf("counts = %+v\nwant     %+v", got.Counts, want)
	}
	// 16 coverage questions and 4 citation questions (not the missing d2).
	if len(m.asked) != 20 {
		t.Errorf("%d model calls, want 20", len(m.asked))
	}
}
