package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestCompletionRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	key := strings.Repeat("ab", 32)

	if _, found, err := db.GetCompletion(ctx, key); err != nil || found {
		t.Fatalf("empty cache: found %v, error %v; want not found, no error", found, err)
	}

	tests := []struct {
		name string
		key  string
		resp pipeline.ModelResponse
	}{
		{name: "with logprobs", key: key, resp: pipeline.ModelResponse{
			Text: "Yes, because…\n\"quoted\"",
			TokenLogprobs: []pipeline.TokenLogprob{
				{Token: "Yes", Logprob: -0.05, Top: []pipeline.TopLogprob{{Token: "Yes", Logprob: -0.05}, {Token: "No", Logprob: -3.2}}},
				{Token: ",", Logprob: -1.5e-7},
			},
			Model: "gpt-test-0125", PromptTokens: 321, CompletionTokens: 12,
		}},
		{name: "text only", key: strings.Repeat("cd", 32), resp: pipeline.ModelResponse{
			Text: "", Model: "offline-v1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := tt.resp
			stored.Cached = true // not stored: the cache layer marks hits
			if err := db.PutCompletion(ctx, tt.key, "judge", stored); err != nil {
				t.Fatal(err)
			}
			got, found, err := db.GetCompletion(ctx, tt.key)
			if err != nil || !found {
				t.Fatalf("found %v, error %v", found, err)
			}
			if diff := cmp.Diff(tt.resp, got); diff != "" {
				t.Errorf("stored answer (-want +got)\n%s", diff)
			}
		})
	}
}

func TestPutCompletionKeepsFirst(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	key := strings.Repeat("ef", 32)
	first := pipeline.ModelResponse{Text: "first", Model: "m", PromptTokens: 1, CompletionTokens: 1}
	if err := db.PutCompletion(ctx, key, "judge", first); err != nil {
		t.Fatal(err)
	}
	if err := db.PutCompletion(ctx, key, "judge", pipeline.ModelResponse{Text: "second", Model: "m"}); err != nil {
		t.Fatalf("duplicate key: %v, want no error", err)
	}
	got, _, err := db.GetCompletion(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("answer after duplicate put (-want +got)\n%s", diff)
	}
	var task string
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT task, COUNT(*) FROM model_cache`).Scan(&task, &n); err != nil {
		t.Fatal(err)
	}
	if task != "judge" || n != 1 {
		t.Errorf("model_cache holds %d rows (task %q), want 1 (judge)", n, task)
	}
}
