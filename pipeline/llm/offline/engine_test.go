package offline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

func newTestEngine() *Engine { return New(testAnalyzer{}) }

// complete runs one request through the engine and fails the test on an
// error.
func complete(t *testing.T, e *Engine, req pipeline.ModelRequest) pipeline.ModelResponse {
	t.Helper()
	resp, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(%s): %v", req.Task, err)
	}
	return resp
}

// sampleRequests is one request of every task, built by pipeline/prompts.
func sampleRequests() []pipeline.ModelRequest {
	nugget := prompts.QA{Question: "Congress passed the McKinley Tariff in what year?", Answer: "1890"}
	return []pipeline.ModelRequest{
		prompts.BuildSummarize(prompts.SummarizeInput{Request: tariffRequest, DocID: "d1", DocText: tariffAddress}),
		prompts.BuildNuggets(prompts.NuggetsInput{Request: tariffRequest, DocID: "d1", Summary: tariffAddress, Max: 5}),
		prompts.BuildParaphrase(prompts.ParaphraseInput{Request: tariffRequest, A: nugget,
			B: prompts.QA{Question: "In what year did Congress enact the McKinley Tariff?", Answer: "in 1890"}}),
		prompts.BuildNuggetQuality(prompts.NuggetQualityInput{Request: tariffRequest, Nugget: nugget}),
		prompts.BuildExtract(prompts.ExtractInput{Request: tariffRequest, Nugget: nugget, DocID: "d1", PassageText: tariffAddress}),
		prompts.BuildVerifySupport(prompts.VerifySupportInput{Sentence: "Congress passed the McKinley Tariff in 1890.", PassageText: tariffAddress}),
		prompts.BuildVerifyCoverage(prompts.VerifyCoverageInput{Nugget: nugget, Sentence: "Congress passed the McKinley Tariff in 1890."}),
		prompts.BuildFacets(prompts.FacetsInput{Request: tariffRequest}),
	}
}

func TestCompleteAnswersEveryTaskInItsFormat(t *testing.T) {
	e := newTestEngine()
	parse := map[pipeline.Task]func(string) error{
		prompts.TaskSummarize:      func(s string) error { _, err := prompts.ParseSummarize(s); return err },
		prompts.TaskNuggets:        func(s string) error { _, err := prompts.ParseNuggets(s); return err },
		prompts.TaskParaphrase:     func(s string) error { _, err := prompts.ParseParaphrase(s); return err },
		prompts.TaskNuggetQuality:  func(s string) error { _, err := prompts.ParseNuggetQuality(s); return err },
		prompts.TaskExtract:        func(s string) error { _, err := prompts.ParseExtract(s); return err },
		prompts.TaskVerifySupport:  func(s string) error { _, err := prompts.ParseVerifySupport(s); return err },
		prompts.TaskVerifyCoverage: func(s string) error { _, err := prompts.ParseVerifyCoverage(s); return err },
		prompts.TaskFacets:         func(s string) error { _, err := prompts.ParseFacets(s); return err },
	}
	for _, req := range sampleRequests() {
		t.Run(string(req.Task), func(t *testing.T) {
			resp := complete(t, e, req)
			if err := parse[req.Task](resp.Text); err != nil {
				t.Fatalf("the task's parser rejects the answer %q: %v", resp.Text, err)
			}
			if resp.Model != Version || resp.PromptTokens != 0 || resp.CompletionTokens != 0 || resp.Cached {
				t.Errorf("response metadata = model %q, tokens %d/%d, cached %v; want %q, 0/0, false",
					resp.Model, resp.PromptTokens, resp.CompletionTokens, resp.Cached, Version)
			}
			if got, want := len(resp.TokenLogprobs) > 0, req.Logprobs; got != want {
				t.Errorf("log-probabilities given = %v; the request asked for them: %v", got, want)
			}
		})
	}
}

func TestCompleteIsDeterministic(t *testing.T) {
	for _, req := range sampleRequests() {
		t.Run(string(req.Task), func(t *testing.T) {
			first := complete(t, newTestEngine(), req)
			for i := 0; i < 3; i++ {
				again := complete(t, newTestEngine(), req)
				if diff := cmp.Diff(first, again); diff != "" {
					t.Fatalf("second answer differs (-first +again)\n%s", diff)
				}
			}
		})
	}
}

func TestCompleteConcurrently(t *testing.T) {
	e := newTestEngine()
	reqs := sampleRequests()
	want := make([]string, len(reqs))
	for i, req := range reqs {
		want[i] = complete(t, e, req).Text
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(reqs))
	for g := 0; g < 8; g++ {
		for i, req := range reqs {
			wg.Go(func() {
				resp, err := e.Complete(context.Background(), req)
				switch {
				case err != nil:
					errs <- err
				case resp.Text != want[i]:
					errs <- fmt.Errorf("%s: concurrent answer %q differs from %q", req.Task, resp.Text, want[i])
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCompleteWithoutLogprobsRequest(t *testing.T) {
	req := sampleRequests()[2] // paraphrase
	req.Logprobs = false
	resp := complete(t, newTestEngine(), req)
	if len(resp.TokenLogprobs) != 0 {
		t.Errorf("TokenLogprobs = %v for a request that did not ask for them", resp.TokenLogprobs)
	}
}

func TestCompleteRejectsWhatItCannotAnswer(t *testing.T) {
	summarize := sampleRequests()[0]
	tests := []struct {
		name   string
		engine *Engine
		req    pipeline.ModelRequest
		want   string
	}{
		{"no input", newTestEngine(), pipeline.ModelRequest{Task: prompts.TaskSummarize}, "no structured input"},
		{"unknown input type", newTestEngine(), pipeline.ModelRequest{Task: "translate", Input: struct{ Text string }{"hola"}}, "unknown input type"},
		{"task and input disagree", newTestEngine(), pipeline.ModelRequest{Task: prompts.TaskExtract, Input: summarize.Input}, `task "extract"`},
		{"pointer to an input", newTestEngine(), pipeline.ModelRequest{Input: &prompts.SummarizeInput{}}, "unknown input type"},
		{"no analyzer", New(nil), summarize, "no text analyzer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.engine.Complete(context.Background(), tt.req)
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Fatalf("error = %v, want one wrapping pipeline.ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestCompleteEmptyTaskTakesTheInputsTask(t *testing.T) {
	req := sampleRequests()[6]
	req.Task = ""
	resp := complete(t, newTestEngine(), req)
	if _, err := prompts.ParseVerifyCoverage(resp.Text); err != nil {
		t.Errorf("answer %q: %v", resp.Text, err)
	}
}

func TestCompleteHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, req := range sampleRequests() {
		t.Run(string(req.Task), func(t *testing.T) {
			_, err := newTestEngine().Complete(ctx, req)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", err)
			}
		})
	}
}

func TestYesNoLogprobsReadBackTheEnginesProbability(t *testing.T) {
	for _, p := range []float64{0, 0.02, 0.3, 0.49, 0.5, 0.51, 0.77, 0.999, 1} {
		resp := pipeline.ModelResponse{TokenLogprobs: yesNoLogprobs(p)}
		got, ok := prompts.YesProbability(resp)
		if !ok {
			t.Fatalf("p = %g: YesProbability found no yes/no token in %+v", p, resp.TokenLogprobs)
		}
		if want := clampProb(p); math.Abs(got-want) > 1e-9 {
			t.Errorf("p = %g: YesProbability = %g, want %g", p, got, want)
		}
		if tok := resp.TokenLogprobs[0].Token; (tok == "yes") != (clampProb(p) >= 0.5) {
			t.Errorf("p = %g: the token given is %q", p, tok)
		}
	}
}

func TestAnswerLogprobsSpellTheAnswer(t *testing.T) {
	text := prompts.FormatExtract(prompts.ExtractOutput{Found: true,
		Support:    "In 1890 Congress passed the McKinley Tariff.",
		Sentence:   "In 1890 Congress passed the McKinley Tariff.",
		Confidence: 0.83})
	for _, conf := range []float64{0.05, 0.5, 0.83, 1} {
		toks := answerLogprobs(text, conf)
		var b strings.Builder
		for _, tk := range toks {
			b.WriteString(tk.Token)
		}
		if b.String() != text {
			t.Fatalf("tokens spell %q, want %q", b.String(), text)
		}
		got, ok := prompts.SentenceLikelihood(pipeline.ModelResponse{TokenLogprobs: toks})
		if !ok || math.Abs(got-clampProb(conf)) > 1e-9 {
			t.Errorf("conf %g: SentenceLikelihood = %g, %v", conf, got, ok)
		}
	}
}
