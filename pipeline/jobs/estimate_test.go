package jobs_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// estimateTolerance is how far an estimate may be from the actual count
// (issue 16 #3: within 20%).
const estimateTolerance = 0.20

// checkWithin fails when got is not within estimateTolerance of want.
func checkWithin(t *testing.T, what string, est, actual int) {
	t.Helper()
	if actual == 0 && est == 0 {
		return
	}
	if d := math.Abs(float64(est-actual)) / float64(max(actual, 1)); d > estimateTolerance {
		t.Errorf("%s: estimated %d, actual %d (%.0f%% off)", what, est, actual, 100*d)
	}
}

// TestEstimateAgainstScriptedRun estimates a job, runs it through a
// scripted OpenAI-compatible endpoint that counts a token per four
// characters, and compares: calls, prompt and completion tokens within
// 20% in all; the stages before the scan exactly (the dry run's
// stand-in is the offline engine, whose answers the endpoint gives).
func TestEstimateAgainstScriptedRun(t *testing.T) {
	for _, verify := range []bool{false, true} {
		w := newWorld(t)
		ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}, charTokens: true}
		r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.openAIEngine(t, ep)}, Poll: 10 * time.Millisecond}
		ctx := startRunner(t, r)
		s := pipeline.DefaultSettings()
		s.Verify = verify
		est, err := r.Estimate(ctx, request, s, "openai")
		if err != nil {
			t.Fatal(err)
		}
		if ep.requests.Load() != 0 {
			t.Fatalf("the dry run called the endpoint %d times", ep.requests.Load())
		}
		job, _, err := r.Submit(ctx, request, s, "openai")
		if err != nil {
			t.Fatal(err)
		}
		j := waitFor(t, w.db, job.ID, finished)
		if j.State != pipeline.JobDone {
			t.Fatalf("job ended %s: %s", j.State, j.Error)
		}
		u, tot := j.Progress.Usage, est.Total()
		t.Logf("verify=%v: estimated %d calls (at most %d), %d prompt and %d completion tokens; actual %d calls, %d and %d",
			verify, tot.Calls, tot.MaxCalls, tot.PromptTokens, tot.CompletionTokens, u.Calls, u.PromptTokens, u.CompletionTokens)
		for _, st := range est.Stages {
			t.Logf("  %-8s %6d calls (at most %d) %9d prompt %7d completion tokens", st.Stage, st.Calls, st.MaxCalls, st.PromptTokens, st.CompletionTokens)
		}
		checkWithin(t, "calls", tot.Calls, u.Calls)
		checkWithin(t, "prompt tokens", tot.PromptTokens, u.PromptTokens)
		checkWithin(t, "completion tokens", tot.CompletionTokens, u.CompletionTokens)
		if tot.MaxCalls < u.Calls {
			t.Errorf("the bound of %d calls is below the %d made", tot.MaxCalls, u.Calls)
		}
	}
}

// TestEstimateAgainstOfflineRun does the same with the offline engine,
// whose calls are tasks and which spends no tokens.
func TestEstimateAgainstOfflineRun(t *testing.T) {
	w := newWorld(t)
	model := w.cached(offline.New(analyzer{w.ix}))
	e := w.engine(model)
	e.Pipeline.StandIn, e.Pipeline.Offline = model, true
	e.Pipeline.ScanLimit, e.Pipeline.Defaults = crucible.OfflineScanLimit, crucible.OfflineHeuristics
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx := startRunner(t, r)
	est, err := r.Estimate(ctx, request, pipeline.DefaultSettings(), "")
	if err != nil {
		t.Fatal(err)
	}
	tot := est.Total()
	if !est.Offline || tot.PromptTokens != 0 || tot.CompletionTokens != 0 {
		t.Errorf("offline estimate %+v spends tokens", tot)
	}
	job, _, err := r.Submit(ctx, request, pipeline.DefaultSettings(), "")
	if err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobDone {
		t.Fatalf("job ended %s: %s", j.State, j.Error)
	}
	t.Logf("offline: estimated %d calls, actual %d (%d of them replayed from the dry run's cache)", tot.Calls, j.Progress.Usage.Calls, j.Progress.Usage.CacheHits)
	checkWithin(t, "calls", tot.Calls, j.Progress.Usage.Calls)
	// The dry run filled the cache the job replays: the stages before the
	// scan cost nothing more.
	before := 0
	for _, st := range est.Stages {
		if st.Stage == crucible.StageScan {
			break
		}
		before += st.Calls
	}
	if j.Progress.Usage.CacheHits < before {
		t.Errorf("the job replayed %d calls from the cache, want the dry run's %d", j.Progress.Usage.CacheHits, before)
	}
}

// TestEstimateNeedsAStandIn: an engine without a stand-in offers no
// estimate, and bad input is refused as Submit refuses it.
func TestEstimateNeedsAStandIn(t *testing.T) {
	w := newWorld(t)
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(offline.New(analyzer{w.ix}))}}
	if _, err := r.Estimate(context.Background(), request, pipeline.DefaultSettings(), ""); err == nil {
		t.Error("an engine without a stand-in gave an estimate")
	}
	bad := request
	bad.Title = ""
	_, err := r.Estimate(context.Background(), bad, pipeline.DefaultSettings(), "nope")
	fe, ok := err.(pipeline.FieldErrors)
	if !ok || fe["title"] == "" || fe["engine"] == "" {
		t.Errorf("bad input: %v, want title and engine field errors", err)
	}
}
