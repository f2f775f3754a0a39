package llm

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

// memoryCache is a CacheStore in a map.
type memoryCache struct {
	mu sync.Mutex
	m  map[string]pipeline.ModelResponse
}

func (c *memoryCache) GetCompletion(_ context.Context, key string) (pipeline.ModelResponse, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r, ok, nil
}

func (c *memoryCache) PutCompletion(_ context.Context, key string, _ pipeline.Task, r pipeline.ModelResponse) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]pipeline.ModelResponse{}
	}
	c.m[key] = r
	return nil
}

// callLog is a pipeline.ModelObserver that keeps what it hears.
type callLog struct {
	mu    sync.Mutex
	calls []pipeline.ModelCall
}

func (l *callLog) ModelCall(c pipeline.ModelCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// TestCachedObservesCalls: the cache reports every call with its engine,
// the run's stage, the retries the endpoint client noted, whether it was
// a hit, its tokens, and its error.
func TestCachedObservesCalls(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		switch {
		case last["content"] == "fail":
			writeJSON(w, 500, `{"error":{"message":"overloaded","type":"server_error"}}`)
		case n == 1:
			writeJSON(w, 429, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		default:
			writeJSON(w, 200, answer("Yes"))
		}
	})
	client, _ := newTestClient(t, f.URL(), func(c *Config) { c.MaxRetries = 2 })
	log := &callLog{}
	cached := Cached{Next: client, Store: &memoryCache{}, Namespace: "test-model", Observer: log, Engine: "openai"}

	note := &pipeline.StageNote{}
	note.Set("verify")
	ctx := pipeline.WithStageNote(context.Background(), note)
	if _, err := cached.Complete(ctx, yesNoRequest); err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Complete(ctx, yesNoRequest); err != nil {
		t.Fatal(err)
	}
	failing := yesNoRequest
	failing.Messages = []pipeline.Message{{Role: "user", Content: "fail"}}
	_, err := cached.Complete(context.Background(), failing)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("failing call: %v, want ErrModel", err)
	}

	want := []pipeline.ModelCall{
		{Engine: "openai", Task: "judge", Stage: "verify", Retries: 1, PromptTokens: 10, CompletionTokens: 3},
		{Engine: "openai", Task: "judge", Stage: "verify", Cached: true, PromptTokens: 10, CompletionTokens: 3},
		{Engine: "openai", Task: "judge", Retries: 2, Err: err},
	}
	if diff := cmp.Diff(want, log.calls, cmpopts.IgnoreFields(pipeline.ModelCall{}, "Elapsed"), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("observed calls (-want +got):\n%s", diff)
	}
	for i, c := range log.calls {
		if c.Elapsed <= 0 {
			t.Errorf("call %d: elapsed %v", i, c.Elapsed)
		}
	}

	// Without Engine the namespace names the engine; without an observer
	// nothing is reported and the answer is the same.
	cached.Engine = ""
	cached.Complete(context.Background(), yesNoRequest)
	if got := log.calls[len(log.calls)-1].Engine; got != "test-model" {
		t.Errorf("engine %q, want the namespace", got)
	}
	cached.Observer = nil
	n := len(log.calls)
	if resp, err := cached.Complete(context.Background(), yesNoRequest); err != nil || !resp.Cached || resp.Text != "Yes" {
		t.Errorf("without an observer: %+v, %v", resp, err)
	}
	if len(log.calls) != n {
		t.Error("a call was reported without an observer")
	}
}
