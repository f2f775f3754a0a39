package llm

import (
	"context"
	"errors"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// countingModel answers every call with 10 prompt tokens and 2 more.
type countingModel struct{ calls int }

func (m *countingModel) Complete(context.Context, pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	m.calls++
	return pipeline.ModelResponse{Text: "ok", PromptTokens: 10, CompletionTokens: 2}, nil
}

// Capped lets the calls of its budget through and refuses the next one
// before it reaches the model, naming the cap and the run's stage.
func TestCapped(t *testing.T) {
	next := &countingModel{}
	b := pipeline.NewBudget(pipeline.Caps{Calls: 3})
	m := Capped{Next: next, Budget: b}
	note := &pipeline.StageNote{}
	note.Set("rank")
	ctx := pipeline.WithStageNote(context.Background(), note)
	for i := 0; i < 3; i++ {
		if _, err := m.Complete(ctx, pipeline.ModelRequest{Task: "t"}); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	_, err := m.Complete(ctx, pipeline.ModelRequest{Task: "t"})
	var ce *pipeline.CapError
	if !errors.As(err, &ce) || !errors.Is(err, pipeline.ErrCapReached) || *ce != (pipeline.CapError{Cap: pipeline.CapCalls, Limit: 3, Stage: "rank"}) {
		t.Fatalf("the fourth call: %v", err)
	}
	if next.calls != 3 {
		t.Errorf("the model answered %d calls, want 3", next.calls)
	}
	if u := b.Used(); u.Calls != 3 || u.PromptTokens != 30 || u.CompletionTokens != 6 {
		t.Errorf("used %+v", u)
	}
	// Without a budget it passes every call on.
	if _, err := (Capped{Next: next}).Complete(ctx, pipeline.ModelRequest{Task: "t"}); err != nil || next.calls != 4 {
		t.Errorf("no budget: %v, %d calls", err, next.calls)
	}
}
