package jobs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// scriptedEndpoint is an OpenAI-compatible server whose answers come from
// the offline engine: a recorder in front of the client remembers each
// request's structured input by the hash of its messages, and the server
// answers the messages it receives with that input. So the whole pipeline
// runs through real HTTP, the real client, the real prompts and parsers.
type scriptedEndpoint struct {
	engine   *offline.Engine
	mu       sync.Mutex
	inputs   map[string]pipeline.ModelRequest
	requests atomic.Int32
	// throttleFirst answers the first n requests with 429.
	throttleFirst int32
	// garble answers this task with prose the parsers must tolerate.
	garble pipeline.Task
	// noLogprobs leaves log-probabilities out of every answer.
	noLogprobs bool
	// charTokens reports a call's tokens as its characters / 4 (rounded
	// up), prompt and answer, instead of a fixed 100 and 10.
	charTokens bool
	// delay holds every answer this long.
	delay time.Duration
}

func messagesKey(ms []pipeline.Message) string {
	b, _ := json.Marshal(ms)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recorder remembers structured inputs before the client sends messages.
type recorder struct {
	ep   *scriptedEndpoint
	next pipeline.Model
}

func (r recorder) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	r.ep.mu.Lock()
	r.ep.inputs[messagesKey(req.Messages)] = req
	r.ep.mu.Unlock()
	return r.next.Complete(ctx, req)
}

type chatRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Logprobs bool `json:"logprobs"`
}

func (ep *scriptedEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := ep.requests.Add(1)
	if n <= ep.throttleFirst {
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	ms := make([]pipeline.Message, len(cr.Messages))
	for i, m := range cr.Messages {
		ms[i] = pipeline.Message{Role: m.Role, Content: m.Content}
	}
	ep.mu.Lock()
	req, ok := ep.inputs[messagesKey(ms)]
	ep.mu.Unlock()
	if ep.delay > 0 {
		select {
		case <-time.After(ep.delay):
		case <-r.Context().Done():
			return
		}
	}
	if !ok {
		http.Error(w, `{"error":{"message":"unknown messages"}}`, 400)
		return
	}
	req.Logprobs = cr.Logprobs && !ep.noLogprobs
	resp, err := ep.engine.Complete(r.Context(), req)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	text := resp.Text
	if req.Task == ep.garble {
		text = "Here is my answer, written freely: the document is interesting."
	}
	type top struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
	}
	type tok struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
		Top     []top   `json:"top_logprobs"`
	}
	choice := map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": text}}
	if req.Logprobs && len(resp.TokenLogprobs) > 0 && req.Task != ep.garble {
		var toks []tok
		for _, t := range resp.TokenLogprobs {
			x := tok{Token: t.Token, Logprob: t.Logprob}
			for _, a := range t.Top {
				x.Top = append(x.Top, top{a.Token, a.Logprob})
			}
			toks = append(toks, x)
		}
		choice["logprobs"] = map[string]any{"content": toks}
	}
	promptTokens, completionTokens := 100, 10
	if ep.charTokens {
		chars := 0
		for _, m := range ms {
			chars += utf8.RuneCountInString(m.Content)
		}
		promptTokens, completionTokens = (chars+3)/4, (utf8.RuneCountInString(text)+3)/4
	}
	out, _ := json.Marshal(map[string]any{
		"id": "x", "object": "chat.completion", "created": 1, "model": "scripted-1",
		"choices": []any{choice},
		"usage": map[string]int{"prompt_tokens": promptTokens, "completion_tokens": completionTokens,
			"total_tokens": promptTokens + completionTokens},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func (w *world) openAIEngine(t *testing.T, ep *scriptedEndpoint) jobs.Engine {
	t.Helper()
	srv := httptest.NewServer(ep)
	t.Cleanup(srv.Close)
	client, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "scripted-1",
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, MaxConcurrent: 8})
	if err != nil {
		t.Fatal(err)
	}
	e := w.engine(recorder{ep: ep, next: llm.Cached{Next: client, Store: w.db, Namespace: client.Name()}})
	e.Info = pipeline.EngineInfo{ID: "openai", Label: client.Name()}
	e.Pipeline.Name = client.Name()
	// The dry run's stand-in, as engines.go gives a model engine.
	e.Pipeline.StandIn = offline.New(analyzer{w.ix})
	return e
}

func runOne(t *testing.T, w *world, e jobs.Engine, s pipeline.Settings) pipeline.Job {
	t.Helper()
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	job, _, err := r.Submit(ctx, request, s, e.Info.ID)
	if err != nil {
		t.Fatal(err)
	}
	return waitFor(t, w.db, job.ID, finished)
}

func TestReportThroughOpenAIEndpoint(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}, throttleFirst: 2}
	s := pipeline.DefaultSettings()
	s.Verify = true
	j := runOne(t, w, w.openAIEngine(t, ep), s)
	if j.State != pipeline.JobDone {
		t.Fatalf("job ended %s (%s: %s)", j.State, j.ErrorStage, j.Error)
	}
	if j.Progress.Usage.PromptTokens == 0 || j.Progress.Usage.Calls == 0 {
		t.Errorf("usage not accounted: %+v", j.Progress.Usage)
	}
	rep, err := w.db.Report(context.Background(), j.ReportID)
	if err != nil || len(rep.Sentences) == 0 {
		t.Fatalf("report: %d sentences (%v)", len(rep.Sentences), err)
	}
	if rep.Engine != "scripted-1" || rep.RunID != "crucible-scripted-1-verified" {
		t.Errorf("engine %q run %q", rep.Engine, rep.RunID)
	}
	for _, snt := range rep.Sentences {
		if snt.Supported != pipeline.VerdictYes || snt.Covers != pipeline.VerdictYes {
			t.Errorf("sentence not verified through the endpoint: %+v", snt)
		}
	}
	// Same report as the offline engine answering directly: the endpoint
	// path changes transport, not results (log-probabilities included).
	direct, err := w.engine(offline.New(analyzer{w.ix})).Pipeline.Generate(context.Background(), request, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct.Sentences) != len(rep.Sentences) {
		t.Errorf("endpoint report has %d sentences, direct %d", len(rep.Sentences), len(direct.Sentences))
	}
	for i := range min(len(direct.Sentences), len(rep.Sentences)) {
		if direct.Sentences[i].Text != rep.Sentences[i].Text || direct.Sentences[i].Citation != rep.Sentences[i].Citation {
			t.Errorf("sentence %d differs: %q vs %q", i, rep.Sentences[i].Text, direct.Sentences[i].Text)
		}
	}
}

func TestEndpointWithoutLogprobsAndGarbledAnswers(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{},
		noLogprobs: true, garble: prompts.TaskNuggetQuality}
	j := runOne(t, w, w.openAIEngine(t, ep), pipeline.DefaultSettings())
	if j.State != pipeline.JobDone {
		t.Fatalf("job ended %s (%s: %s)", j.State, j.ErrorStage, j.Error)
	}
	rep, err := w.db.Report(context.Background(), j.ReportID)
	if err != nil || len(rep.Sentences) == 0 {
		t.Fatalf("without log-probabilities and with garbled quality answers: %d sentences (%v)", len(rep.Sentences), err)
	}
	for _, s := range rep.Sentences {
		if s.Confidence <= 0 || s.Confidence > 1 {
			t.Errorf("confidence %v out of range without log-probabilities", s.Confidence)
		}
	}
}
