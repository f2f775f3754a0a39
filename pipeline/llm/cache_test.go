package llm_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

var _ llm.CacheStore = (*sqlite.DB)(nil)

func mustOpenDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fakeModel answers every request with the same response, or fails the
// first failures calls.
type fakeModel struct {
	calls    atomic.Int32
	failures int32
	resp     pipeline.ModelResponse
}

func (m *fakeModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	n := m.calls.Add(1)
	if n <= m.failures {
		return pipeline.ModelResponse{}, fmt.Errorf("%w: endpoint down (call %d)", pipeline.ErrModel, n)
	}
	resp := m.resp
	resp.Text = fmt.Sprintf("%s [%s]", resp.Text, req.Task)
	return resp, nil
}

var baseRequest = pipeline.ModelRequest{
	Task:        "extract",
	Input:       map[string]string{"ignored": "by the key"},
	Messages:    []pipeline.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Who?"}},
	MaxTokens:   64,
	Temperature: 0,
	Logprobs:    true,
}

var modelAnswer = pipeline.ModelResponse{
	Text: "Washington",
	TokenLogprobs: []pipeline.TokenLogprob{
		{Token: "Washington", Logprob: -0.2, Top: []pipeline.TopLogprob{{Token: "Washington", Logprob: -0.2}, {Token: "Adams", Logprob: -1.9}}},
		{Token: ".", Logprob: -0.01},
	},
	Model:            "gpt-test-0125",
	PromptTokens:     120,
	CompletionTokens: 2,
}

func TestCachedMissThenHit(t *testing.T) {
	ctx := context.Background()
	next := &fakeModel{resp: modelAnswer}
	c := llm.Cached{Next: next, Store: mustOpenDB(t), Namespace: "gpt-test"}

	first, err := c.Complete(ctx, baseRequest)
	if err != nil {
		t.Fatal(err)
	}
	want := modelAnswer
	want.Text = "Washington [extract]"
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("miss (-want +got)\n%s", diff)
	}

	second, err := c.Complete(ctx, baseRequest)
	if err != nil {
		t.Fatal(err)
	}
	want.Cached = true
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("hit (-want +got)\n%s", diff)
	}
	if n := next.calls.Load(); n != 1 {
		t.Errorf("Next called %d times, want 1", n)
	}
}

func TestCachedKeyDependsOnEveryParameter(t *testing.T) {
	base := llm.CacheKey("gpt-test", baseRequest)
	tests := []struct {
		name      string
		namespace string
		edit      func(r *pipeline.ModelRequest)
		same      bool
	}{
		{name: "namespace", namespace: "offline-v1", edit: func(r *pipeline.ModelRequest) {}},
		{name: "task", edit: func(r *pipeline.ModelRequest) { r.Task = "judge" }},
		{name: "message content", edit: func(r *pipeline.ModelRequest) { r.Messages[1].Content = "Who? " }},
		{name: "message role", edit: func(r *pipeline.ModelRequest) { r.Messages[0].Role = "user" }},
		{name: "message split", edit: func(r *pipeline.ModelRequest) {
			r.Messages = []pipeline.Message{{Role: "system", Content: "Be brief.Who?"}}
		}},
		{name: "max tokens", edit: func(r *pipeline.ModelRequest) { r.MaxTokens = 65 }},
		{name: "temperature", edit: func(r *pipeline.ModelRequest) { r.Temperature = 0.2 }},
		{name: "logprobs", edit: func(r *pipeline.ModelRequest) { r.Logprobs = false }},
		{name: "input is not part of the key", edit: func(r *pipeline.ModelRequest) { r.Input = 42 }, same: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := baseRequest
			req.Messages = append([]pipeline.Message(nil), baseRequest.Messages...)
			tt.edit(&req)
			ns := tt.namespace
			if ns == "" {
				ns = "gpt-test"
			}
			got := llm.CacheKey(ns, req)
			if (got == base) != tt.same {
				t.Errorf("key %s vs base %s: same = %v, want %v", got, base, got == base, tt.same)
			}
			if len(got) != 64 {
				t.Errorf("key %q is not a hex SHA-256", got)
			}
		})
	}

	// A different request through Cached is a miss.
	ctx := context.Background()
	next := &fakeModel{resp: modelAnswer}
	c := llm.Cached{Next: next, Store: mustOpenDB(t), Namespace: "gpt-test"}
	other := baseRequest
	other.Temperature = 0.5
	for _, r := range []pipeline.ModelRequest{baseRequest, other, baseRequest, other} {
		if _, err := c.Complete(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if n := next.calls.Load(); n != 2 {
		t.Errorf("Next called %d times for 2 distinct requests, want 2", n)
	}
}

// TestCacheKeyStable pins the canonical form: a change would silently
// invalidate every stored answer, so it must be deliberate (bump
// cacheKeyVersion and update this key).
func TestCacheKeyStable(t *testing.T) {
	got := llm.CacheKey("gpt-test", baseRequest)
	const want = "9bc978b3114a6ffda6539e4840d7a3dd0b75b010ba6e745d1de08c12f6bccad0"
	if got != want {
		t.Errorf("CacheKey = %s, want %s", got, want)
	}
}

func TestCachedErrorsNotCached(t *testing.T) {
	ctx := context.Background()
	next := &fakeModel{failures: 1, resp: modelAnswer}
	c := llm.Cached{Next: next, Store: mustOpenDB(t), Namespace: "gpt-test"}

	_, err := c.Complete(ctx, baseRequest)
	if !errors.Is(err, pipeline.ErrModel) {
		t.Fatalf("first call error = %v, want Next's error wrapping ErrModel", err)
	}
	got, err := c.Complete(ctx, baseRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cached || got.Text != "Washington [extract]" {
		t.Errorf("second call = %+v, want a fresh answer", got)
	}
	if n := next.calls.Load(); n != 2 {
		t.Errorf("Next called %d times, want 2", n)
	}
}

func TestCachedConcurrentIdenticalCalls(t *testing.T) {
	ctx := context.Background()
	next := &fakeModel{resp: modelAnswer}
	c := llm.Cached{Next: next, Store: mustOpenDB(t), Namespace: "gpt-test"}

	const n = 16
	var wg sync.WaitGroup
	results := make([]pipeline.ModelResponse, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = c.Complete(ctx, baseRequest) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("call %d: %v", i, errs[i])
			continue
		}
		if results[i].Text != "Washington [extract]" {
			t.Errorf("call %d: text %q", i, results[i].Text)
		}
	}
	if calls := next.calls.Load(); calls < 1 || calls > n {
		t.Errorf("Next called %d times, want 1..%d", calls, n)
	}
	got, err := c.Complete(ctx, baseRequest)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Cached {
		t.Error("the answer was not cached")
	}
}

// failingStore fails every read or every write.
type failingStore struct {
	llm.CacheStore
	failGet, failPut bool
}

func (s failingStore) GetCompletion(ctx context.Context, key string) (pipeline.ModelResponse, bool, error) {
	if s.failGet {
		return pipeline.ModelResponse{}, false, errors.New("disk I/O error")
	}
	return s.CacheStore.GetCompletion(ctx, key)
}

func (s failingStore) PutCompletion(ctx context.Context, key string, task pipeline.Task, resp pipeline.ModelResponse) error {
	if s.failPut {
		return errors.New("database is locked")
	}
	return s.CacheStore.PutCompletion(ctx, key, task, resp)
}

func TestCachedStoreErrors(t *testing.T) {
	tests := []struct {
		name      string
		store     failingStore
		wantErr   string
		wantCalls int32
	}{
		{name: "read fails", store: failingStore{failGet: true}, wantErr: `model cache: task "extract": disk I/O error`, wantCalls: 0},
		{name: "write fails", store: failingStore{failPut: true}, wantErr: `model cache: task "extract": database is locked`, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &fakeModel{resp: modelAnswer}
			tt.store.CacheStore = mustOpenDB(t)
			c := llm.Cached{Next: next, Store: tt.store, Namespace: "gpt-test"}
			_, err := c.Complete(context.Background(), baseRequest)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("error = %v, want %q", err, tt.wantErr)
			}
			if n := next.calls.Load(); n != tt.wantCalls {
				t.Errorf("Next called %d times, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestCachedMisconfigured(t *testing.T) {
	db := mustOpenDB(t)
	tests := []struct {
		name string
		c    llm.Cached
	}{
		{name: "no next", c: llm.Cached{Store: db, Namespace: "m"}},
		{name: "no store", c: llm.Cached{Next: &fakeModel{}, Namespace: "m"}},
		{name: "no namespace", c: llm.Cached{Next: &fakeModel{}, Store: db, Namespace: " "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.c.Complete(context.Background(), baseRequest); !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("error = %v, want one wrapping ErrInvalid", err)
			}
		})
	}
}
