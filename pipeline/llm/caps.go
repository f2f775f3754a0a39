package llm

import (
	"context"

	"github.com/crucible-portal/crucible/pipeline"
)

// Capped is a pipeline.Model that lets calls through while a job's
// budget lasts (pipeline.Budget: its caps on calls and tokens). A call
// past a cap fails, before it reaches Next, with a *pipeline.CapError
// naming the cap and the stage the run is in (pipeline.StageFrom); every
// later call fails the same way, so the stage's other calls stop too and
// the run ends with what it stored so far. The tokens of each answered
// call are spent from the budget.
//
// Put it in front of the cache (Cached): a cache hit then counts as a
// call, so a job stops at the same call whether its answers are cached or
// not, and a resumed job replays the calls before its old cap for nothing.
type Capped struct {
	Next   pipeline.Model
	Budget *pipeline.Budget
}

// Complete implements pipeline.Model.
func (c Capped) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if c.Budget == nil {
		return c.Next.Complete(ctx, req)
	}
	if err := c.Budget.Admit(pipeline.StageFrom(ctx)); err != nil {
		return pipeline.ModelResponse{}, err
	}
	resp, err := c.Next.Complete(ctx, req)
	if err == nil {
		c.Budget.Spend(resp)
	}
	return resp, err
}
