package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// fakeEndpoint is a scripted OpenAI-compatible server. handle answers the
// n-th chat completion request (from 1); every request body is recorded.
type fakeEndpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	hits   atomic.Int32
	handle func(n int, body map[string]any, w http.ResponseWriter, r *http.Request)
	// models answers GET /models; nil answers 404.
	models func(w http.ResponseWriter, r *http.Request)
}

func newFakeEndpoint(t *testing.T, handle func(n int, body map[string]any, w http.ResponseWriter, r *http.Request)) *fakeEndpoint {
	t.Helper()
	f := &fakeEndpoint{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			if f.models == nil {
				http.NotFound(w, r)
				return
			}
			f.models(w, r)
		case r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/v1/embeddings"):
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("read request body: %v", err)
				return
			}
			var body map[string]any
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Errorf("request body is not JSON: %v\n%s", err, raw)
				return
			}
			f.mu.Lock()
			f.bodies = append(f.bodies, body)
			f.mu.Unlock()
			n := int(f.hits.Add(1))
			f.handle(n, body, w, r)
		default:
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEndpoint) URL() string { return f.srv.URL + "/v1" }

func (f *fakeEndpoint) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

// newTestClient makes a client for url with tiny retry waits; the waits it
// would sleep are recorded instead of slept.
func newTestClient(t *testing.T, url string, edit func(*Config)) (*OpenAI, *[]time.Duration) {
	t.Helper()
	cfg := Config{
		BaseURL:     url,
		APIKey:      "sk-test",
		Model:       "test-model",
		Timeout:     5 * time.Second,
		BackoffBase: time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	waits := new([]time.Duration)
	o.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return o, waits
}

const answerWithLogprobs = `{
  "id": "c1", "object": "chat.completion", "created": 1, "model": "test-model-2025",
  "choices": [{"index": 0, "finish_reason": "stop",
    "message": {"role": "assistant", "content": "Yes"},
    "logprobs": {"content": [
      {"token": "Yes", "logprob": -0.01, "top_logprobs": [
        {"token": "Yes", "logprob": -0.01}, {"token": "No", "logprob": -4.6}]}
    ]}}],
  "usage": {"prompt_tokens": 42, "completion_tokens": 1, "total_tokens": 43}
}`

func answer(text string) string {
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"test-model",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],
		"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, b)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var yesNoRequest = pipeline.ModelRequest{
	Task:        "judge",
	Messages:    []pipeline.Message{{Role: "system", Content: "Answer yes or no."}, {Role: "user", Content: "Is water wet?"}},
	MaxTokens:   1,
	Temperature: 0,
	Logprobs:    true,
}

func TestCompleteWithLogprobs(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("Authorization = %q", got)
		}
		writeJSON(w, 200, answerWithLogprobs)
	})
	var sent atomic.Int32
	o, _ := newTestClient(t, f.URL(), func(c *Config) {
		c.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			sent.Add(1)
			return http.DefaultTransport.RoundTrip(r)
		})}
	})
	got, err := o.Complete(context.Background(), yesNoRequest)
	if err != nil {
		t.Fatal(err)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the injected HTTP client sent %d requests, want 1", n)
	}
	want := pipeline.ModelResponse{
		Text: "Yes",
		TokenLogprobs: []pipeline.TokenLogprob{{Token: "Yes", Logprob: -0.01, Top: []pipeline.TopLogprob{
			{Token: "Yes", Logprob: -0.01}, {Token: "No", Logprob: -4.6}}}},
		Model:            "test-model-2025",
		PromptTokens:     42,
		CompletionTokens: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got)\n%s", diff)
	}
	wantBody := map[string]any{
		"model": "test-model",
		"messages": []any{
			map[string]any{"role": "system", "content": "Answer yes or no."},
			map[string]any{"role": "user", "content": "Is water wet?"},
		},
		"max_tokens":   1.0,
		"temperature":  0.0,
		"logprobs":     true,
		"top_logprobs": 5.0,
		"stream":       false,
	}
	if diff := cmp.Diff([]map[string]any{wantBody}, f.requests()); diff != "" {
		t.Errorf("request body (-want +got)\n%s", diff)
	}
}

func TestCompleteWithoutLogprobsFromServer(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, answer("Yes"))
	})
	o, _ := newTestClient(t, f.URL(), nil)
	got, err := o.Complete(context.Background(), yesNoRequest)
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.ModelResponse{Text: "Yes", Model: "test-model", PromptTokens: 10, CompletionTokens: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got)\n%s", diff)
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestCompleteLogprobsRejected(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		if _, asked := body["logprobs"]; asked {
			writeJSON(w, 400, `{"error":{"message":"logprobs is not supported by this model","type":"invalid_request_error","param":null}}`)
			return
		}
		writeJSON(w, 200, answer("Yes"))
	})
	o, waits := newTestClient(t, f.URL(), nil)
	got, err := o.Complete(context.Background(), yesNoRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Yes" || len(got.TokenLogprobs) != 0 {
		t.Errorf("response = %+v, want text Yes without logprobs", got)
	}
	// A second call does not ask again.
	if _, err := o.Complete(context.Background(), yesNoRequest); err != nil {
		t.Fatal(err)
	}
	var asked []bool
	for _, b := range f.requests() {
		_, ok := b["logprobs"]
		asked = append(asked, ok)
	}
	if diff := cmp.Diff([]bool{true, false, false}, asked); diff != "" {
		t.Errorf("requests asking for logprobs (-want +got)\n%s", diff)
	}
	if len(*waits) != 0 {
		t.Errorf("the fallback waited %v; it is not a retry", *waits)
	}
}

func TestCompleteOther400NotRetried(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 400, `{"error":{"message":"maximum context length is 4096 tokens","type":"invalid_request_error"}}`)
	})
	o, _ := newTestClient(t, f.URL(), nil)
	_, err := o.Complete(context.Background(), yesNoRequest)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("error = %v, want one wrapping ErrModel", err)
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
	want := "model call failed: model endpoint " + f.URL() + ": 400 Bad Request: maximum context length is 4096 tokens"
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err, want)
	}
}

func TestCompleteRetriesRateLimits(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		backoffMax time.Duration
		wantWait   time.Duration // exact wait; 0 means "within the jitter bound"
	}{
		{name: "429 with Retry-After", status: 429, header: map[string]string{"Retry-After": "2"}, backoffMax: time.Minute, wantWait: 2 * time.Second},
		{name: "429 Retry-After capped", status: 429, header: map[string]string{"Retry-After": "120"}, backoffMax: 3 * time.Second, wantWait: 3 * time.Second},
		{name: "429 retry-after-ms", status: 429, header: map[string]string{"Retry-After-Ms": "250"}, backoffMax: time.Minute, wantWait: 250 * time.Millisecond},
		{name: "503 with Retry-After", status: 503, header: map[string]string{"Retry-After": "1"}, backoffMax: time.Minute, wantWait: time.Second},
		{name: "429 without Retry-After", status: 429, backoffMax: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					writeJSON(w, tt.status, `{"error":{"message":"slow down","type":"rate_limit"}}`)
					return
				}
				writeJSON(w, 200, answer("ok"))
			})
			o, waits := newTestClient(t, f.URL(), func(c *Config) { c.BackoffMax = tt.backoffMax })
			got, err := o.Complete(context.Background(), yesNoRequest)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != "ok" {
				t.Errorf("text = %q, want ok", got.Text)
			}
			if n := f.hits.Load(); n != 2 {
				t.Errorf("server saw %d requests, want 2", n)
			}
			if len(*waits) != 1 {
				t.Fatalf("waits = %v, want one", *waits)
			}
			w := (*waits)[0]
			if tt.wantWait != 0 && w != tt.wantWait {
				t.Errorf("wait = %v, want %v", w, tt.wantWait)
			}
			if tt.wantWait == 0 && (w < 0 || w > time.Millisecond) {
				t.Errorf("wait = %v, want within [0, BackoffBase=1ms]", w)
			}
		})
	}
}

func TestCompleteGivesUpAfterRetryBudget(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 500, `{"error":{"message":"overloaded","type":"server_error"}}`)
	})
	o, waits := newTestClient(t, f.URL(), func(c *Config) {
		c.MaxRetries = 3
		c.BackoffBase = time.Millisecond
		c.BackoffMax = 4 * time.Millisecond
	})
	_, err := o.Complete(context.Background(), yesNoRequest)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("error = %v, want one wrapping ErrModel", err)
	}
	if n := f.hits.Load(); n != 4 {
		t.Errorf("server saw %d requests, want 4 (1 + 3 retries)", n)
	}
	want := "model call failed: model endpoint " + f.URL() + ": giving up after 4 attempts; last error: 500 Internal Server Error: overloaded"
	if err.Error() != want {
		t.Errorf("error\n got %q\nwant %q", err, want)
	}
	// Full jitter: wait n is within [0, min(max, base·2ⁿ)].
	bounds := []time.Duration{time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}
	if len(*waits) != len(bounds) {
		t.Fatalf("waits = %v, want %d", *waits, len(bounds))
	}
	for i, w := range *waits {
		if w < 0 || w > bounds[i] {
			t.Errorf("wait %d = %v, want within [0, %v]", i, w, bounds[i])
		}
	}
}

func TestCompleteNoRetries(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 502, `<html>bad gateway</html>`)
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) { c.MaxRetries = -1 })
	_, err := o.Complete(context.Background(), yesNoRequest)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("error = %v, want one wrapping ErrModel", err)
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
	if !strings.Contains(err.Error(), "giving up after 1 attempts; last error: 502 Bad Gateway: <html>bad gateway</html>") {
		t.Errorf("error = %q", err)
	}
}

func TestCompleteClientErrorsFailAtOnce(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{name: "401 openai style", status: 401, body: `{"error":{"message":"invalid api key","type":"invalid_request_error"}}`, want: "401 Unauthorized: invalid api key"},
		{name: "403", status: 403, body: `{"error":{"message":"no access to this model"}}`, want: "403 Forbidden: no access to this model"},
		{name: "404 ollama style", status: 404, body: `{"error":"model \"test-model\" not found, try pulling it first"}`, want: `404 Not Found: model "test-model" not found, try pulling it first`},
		{name: "422 fastapi style", status: 422, body: `{"detail":"messages: field required"}`, want: "422 Unprocessable Entity: messages: field required"},
		{name: "400 plain text", status: 400, body: "bad\n  request\n", want: "400 Bad Request: bad request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.status, tt.body)
			})
			o, waits := newTestClient(t, f.URL(), nil)
			_, err := o.Complete(context.Background(), yesNoRequest)
			if !errors.Is(err, pipeline.ErrModel) {
				t.Fatalf("error = %v, want one wrapping ErrModel", err)
			}
			if n := f.hits.Load(); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			if len(*waits) != 0 {
				t.Errorf("waited %v before failing", *waits)
			}
			want := "model call failed: model endpoint " + f.URL() + ": " + tt.want
			if err.Error() != want {
				t.Errorf("error\n got %q\nwant %q", err, want)
			}
		})
	}
}

func TestCompleteAttemptTimeoutIsRetried(t *testing.T) {
	timedOut := make(chan struct{})
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			// Hang until the client gives up on this attempt.
			<-r.Context().Done()
			close(timedOut)
			return
		}
		writeJSON(w, 200, answer("late but fine"))
	})
	o, waits := newTestClient(t, f.URL(), func(c *Config) { c.Timeout = 50 * time.Millisecond })
	got, err := o.Complete(context.Background(), yesNoRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "late but fine" {
		t.Errorf("text = %q", got.Text)
	}
	<-timedOut // the first request's context ended on the server side
	if n := f.hits.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
	if len(*waits) != 1 {
		t.Errorf("waits = %v, want one retry", *waits)
	}
}

func TestCompleteTimeoutsExhaustBudget(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) {
		c.Timeout = 20 * time.Millisecond
		c.MaxRetries = 1
	})
	_, err := o.Complete(context.Background(), yesNoRequest)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("error = %v, want one wrapping ErrModel", err)
	}
	if !strings.HasSuffix(err.Error(), "giving up after 2 attempts; last error: no answer within 20ms") {
		t.Errorf("error = %q", err)
	}
}

func TestCompleteContextCancelled(t *testing.T) {
	arrived := make(chan struct{})
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		close(arrived)
		// Never answers: only the client going away ends this request.
		<-r.Context().Done()
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) { c.Timeout = time.Hour })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := o.Complete(ctx, yesNoRequest)
		done <- err
	}()
	<-arrived
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Complete did not return after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want one wrapping context.Canceled", err)
	}
	if errors.Is(err, pipeline.ErrModel) {
		t.Errorf("error = %v wraps ErrModel; a cancellation is not a model failure", err)
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry after cancellation)", n)
	}
}

func TestCompleteContextCancelledDuringBackoff(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 503, `{"error":{"message":"busy"}}`)
	})
	o, err := NewOpenAI(Config{BaseURL: f.URL(), Model: "m", BackoffBase: time.Hour, BackoffMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.sleep = func(c context.Context, d time.Duration) error {
		cancel() // the job is cancelled while the client waits to retry
		return sleepCtx(c, d)
	}
	_, err = o.Complete(ctx, yesNoRequest)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want one wrapping context.Canceled", err)
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestCompleteMaxConcurrent(t *testing.T) {
	const limit, calls = 2, 8
	var inFlight, peak atomic.Int32
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		// Hold the request a little so unbounded clients would overlap.
		time.Sleep(20 * time.Millisecond)
		writeJSON(w, 200, answer("ok"))
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) { c.MaxConcurrent = limit })
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			_, err := o.Complete(context.Background(), yesNoRequest)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := f.hits.Load(); n != calls {
		t.Errorf("server saw %d requests, want %d", n, calls)
	}
	if p := peak.Load(); p > limit || p < 1 {
		t.Errorf("peak concurrent requests = %d, want 1..%d", p, limit)
	}
}

func TestCompleteSendsTemperature(t *testing.T) {
	tests := []struct {
		name        string
		temperature float64
	}{
		{name: "zero", temperature: 0},
		{name: "fractional", temperature: 0.7},
		{name: "one", temperature: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, answer("ok"))
			})
			o, _ := newTestClient(t, f.URL(), nil)
			req := yesNoRequest
			req.Temperature = tt.temperature
			req.Logprobs = false
			req.MaxTokens = 0
			if _, err := o.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			body := f.requests()[0]
			got, ok := body["temperature"]
			if !ok {
				t.Fatalf("request has no temperature: %v", body)
			}
			if got != tt.temperature {
				t.Errorf("temperature = %v, want %v", got, tt.temperature)
			}
			for _, k := range []string{"logprobs", "top_logprobs", "max_tokens"} {
				if v, ok := body[k]; ok {
					t.Errorf("request has %s = %v, want it absent", k, v)
				}
			}
		})
	}
}

func TestCompleteReasoningModel(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, answer("ok"))
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) { c.Model = "o3-mini" })
	req := yesNoRequest
	req.MaxTokens = 50
	if _, err := o.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := f.requests()[0]
	if body["max_completion_tokens"] != 50.0 {
		t.Errorf("max_completion_tokens = %v, want 50", body["max_completion_tokens"])
	}
	for _, k := range []string{"max_tokens", "temperature", "logprobs", "top_logprobs"} {
		if v, ok := body[k]; ok {
			t.Errorf("reasoning model request has %s = %v, want it absent", k, v)
		}
	}
}

func TestCompleteMalformedAnswer(t *testing.T) {
	tests := []struct {
		name      string
		bad       int // requests answered badly before a good one
		body      string
		wantErr   string // substring; "" means success
		wantCalls int32
	}{
		{name: "truncated then good", bad: 1, body: `{"choices": [`, wantCalls: 2},
		{name: "html page then good", bad: 1, body: `<html>proxy login</html>`, wantCalls: 2},
		{name: "no choices then good", bad: 1, body: `{"id":"x","choices":[]}`, wantCalls: 2},
		{name: "always truncated", bad: 99, body: `{"choices": [`, wantErr: "giving up after 3 attempts; last error: malformed response: unexpected EOF", wantCalls: 3},
		{name: "always no choices", bad: 99, body: `{"choices": []}`, wantErr: "last error: malformed response: no choices", wantCalls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
				if n <= tt.bad {
					writeJSON(w, 200, tt.body)
					return
				}
				writeJSON(w, 200, answer("ok"))
			})
			o, _ := newTestClient(t, f.URL(), func(c *Config) { c.MaxRetries = 2 })
			got, err := o.Complete(context.Background(), yesNoRequest)
			if n := f.hits.Load(); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got.Text != "ok" {
					t.Errorf("text = %q", got.Text)
				}
				return
			}
			if !errors.Is(err, pipeline.ErrModel) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want one wrapping ErrModel containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCompleteConnectionDroppedIsRetried(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close() // no answer at all
			return
		}
		writeJSON(w, 200, answer("ok"))
	})
	o, waits := newTestClient(t, f.URL(), nil)
	got, err := o.Complete(context.Background(), yesNoRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "ok" || f.hits.Load() != 2 || len(*waits) != 1 {
		t.Errorf("text %q after %d requests and waits %v; want ok after 2 requests and one wait", got.Text, f.hits.Load(), *waits)
	}
}

func TestCompleteRejectsEmptyRequest(t *testing.T) {
	o, _ := newTestClient(t, "http://127.0.0.1:1/v1", nil)
	_, err := o.Complete(context.Background(), pipeline.ModelRequest{Task: "judge"})
	if !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("error = %v, want one wrapping ErrInvalid", err)
	}
}

func TestNewOpenAIValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "no base URL", cfg: Config{Model: "m"}, want: "invalid input: model endpoint: no base URL"},
		{name: "not http", cfg: Config{BaseURL: "ftp://x/v1", Model: "m"}, want: `invalid input: model endpoint "ftp://x/v1": base URL must be an http or https URL`},
		{name: "no model", cfg: Config{BaseURL: "http://user:secret@x/v1"}, want: "invalid input: model endpoint http://user:xxxxx@x/v1: no model name"},
		{name: "negative timeout", cfg: Config{BaseURL: "http://x/v1", Model: "m", Timeout: -1}, want: "invalid input: model endpoint http://x/v1: negative timeout, concurrency or backoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewOpenAI(tt.cfg)
			if err == nil || err.Error() != tt.want || !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("error = %v, want %q wrapping ErrInvalid", err, tt.want)
			}
		})
	}
}

func TestNewOpenAIDefaults(t *testing.T) {
	o, err := NewOpenAI(Config{BaseURL: "http://x/v1/", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{BaseURL: "http://x/v1/", Model: "m", Timeout: DefaultTimeout, MaxConcurrent: DefaultMaxConcurrent,
		MaxRetries: DefaultMaxRetries, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax}
	if diff := cmp.Diff(want, o.cfg, cmp.Comparer(func(a, b *http.Client) bool { return a == b })); diff != "" {
		t.Errorf("config (-want +got)\n%s", diff)
	}
	if o.Endpoint() != "http://x/v1" || o.Name() != "m" || cap(o.sem) != DefaultMaxConcurrent {
		t.Errorf("endpoint %q, name %q, slots %d", o.Endpoint(), o.Name(), cap(o.sem))
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{name: "absent", header: http.Header{}, want: 0},
		{name: "seconds", header: http.Header{"Retry-After": {"7"}}, want: 7 * time.Second},
		{name: "fractional seconds", header: http.Header{"Retry-After": {"0.5"}}, want: 500 * time.Millisecond},
		{name: "http date", header: http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, want: 30 * time.Second},
		{name: "date in the past", header: http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, want: 0},
		{name: "garbage", header: http.Header{"Retry-After": {"soon"}}, want: 0},
		{name: "negative", header: http.Header{"Retry-After": {"-3"}}, want: 0},
		{name: "milliseconds win", header: http.Header{"Retry-After": {"1"}, "Retry-After-Ms": {"20"}}, want: 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.header, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	o, err := NewOpenAI(Config{BaseURL: "http://x/v1", Model: "m", BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	bounds := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
	for n, b := range bounds {
		b *= time.Millisecond
		for range 200 {
			if d := o.backoff(n, 0); d < 0 || d > b {
				t.Fatalf("backoff(%d) = %v, want within [0, %v]", n, d, b)
			}
		}
	}
	if d := o.backoff(100, 0); d < 0 || d > time.Second {
		t.Errorf("backoff(100) = %v, want within [0, 1s]", d)
	}
	if d := o.backoff(0, 5*time.Second); d != time.Second {
		t.Errorf("backoff with Retry-After 5s = %v, want the 1s cap", d)
	}
}

func TestCheck(t *testing.T) {
	t.Run("listed model", func(t *testing.T) {
		f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			t.Error("Check made a completion although the model is listed")
		})
		f.models = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"object":"list","data":[{"id":"other"},{"id":"test-model"}]}`)
		}
		o, _ := newTestClient(t, f.URL(), nil)
		if err := o.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no model list, completion works", func(t *testing.T) {
		f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, answer("OK"))
		})
		o, _ := newTestClient(t, f.URL(), nil)
		if err := o.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		if len(reqs) != 1 || reqs[0]["max_tokens"] != 1.0 {
			t.Errorf("completion requests = %v, want one with max_tokens 1", reqs)
		}
	})
	t.Run("model not served", func(t *testing.T) {
		f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 404, `{"error":{"message":"The model test-model does not exist."}}`)
		})
		f.models = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"object":"list","data":[{"id":"llama3"}]}`)
		}
		o, _ := newTestClient(t, f.URL(), nil)
		err := o.Check(context.Background())
		want := `model call failed: model endpoint ` + f.URL() + `: model "test-model": 404 Not Found: The model test-model does not exist. (the endpoint lists llama3)`
		if !errors.Is(err, pipeline.ErrModel) || err.Error() != want {
			t.Errorf("error\n got %v\nwant %s", err, want)
		}
	})
	t.Run("bad key", func(t *testing.T) {
		f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			t.Error("Check made a completion after a 401")
		})
		f.models = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 401, `{"error":{"message":"invalid api key"}}`)
		}
		o, _ := newTestClient(t, f.URL(), nil)
		err := o.Check(context.Background())
		want := "model call failed: model endpoint " + f.URL() + ": 401 Unauthorized: invalid api key"
		if !errors.Is(err, pipeline.ErrModel) || err.Error() != want {
			t.Errorf("error\n got %v\nwant %s", err, want)
		}
	})
	t.Run("closed port", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String() + "/v1"
		ln.Close()
		o, _ := newTestClient(t, url, nil)
		err = o.Check(context.Background())
		if !errors.Is(err, pipeline.ErrModel) {
			t.Fatalf("error = %v, want one wrapping ErrModel", err)
		}
		prefix := "model call failed: model endpoint " + url + " unreachable: dial tcp " + ln.Addr().String() + ": connect: connection refused"
		if err.Error() != prefix {
			t.Errorf("error\n got %q\nwant %q", err, prefix)
		}
	})
}
