package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// startRunner runs r until the test ends.
func startRunner(t *testing.T, r *jobs.Runner) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return ctx
}

// callsBefore returns the calls a run makes before the stage named: the
// dry run counts the stages before the scan exactly (its stand-in is the
// offline engine, whose answers the scripted endpoint gives).
func callsBefore(t *testing.T, r *jobs.Runner, s pipeline.Settings, engine, stage string) int {
	t.Helper()
	est, err := r.Estimate(context.Background(), request, s, engine)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range est.Stages {
		if st.Stage == stage {
			return n
		}
		n += st.Calls
	}
	t.Fatalf("the estimate has no stage %q", stage)
	return 0
}

// TestCapStopsJobAtTheCallAndResumes caps a job on a scripted endpoint a
// few extractions into its scan: it stops at exactly that call, in the
// scan, keeping its retrieval, nuggets and manifest; a resume must raise
// the cap; resumed with a higher one it finishes with the report of an
// uncapped run, the calls made before the cap replayed from the cache
// (the endpoint answers every call once in all).
func TestCapStopsJobAtTheCallAndResumes(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}}
	e := w.openAIEngine(t, ep)
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx := startRunner(t, r)
	s := pipeline.DefaultSettings()
	s.Concurrency = 1 // one call at a time: the cap falls on a known call
	capAt := callsBefore(t, r, s, "openai", crucible.StageScan) + 7

	job, _, err := r.SubmitCapped(ctx, request, s, "openai", pipeline.Caps{Calls: capAt})
	if err != nil {
		t.Fatal(err)
	}
	if job.Caps.Calls != capAt {
		t.Fatalf("job caps %+v, want %d calls", job.Caps, capAt)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobStopped || j.Stopped == nil {
		t.Fatalf("capped job ended %s (%s: %s), want stopped", j.State, j.ErrorStage, j.Error)
	}
	want := pipeline.CapError{Cap: pipeline.CapCalls, Limit: int64(capAt), Stage: crucible.StageScan}
	if *j.Stopped != want || j.ErrorStage != crucible.StageScan {
		t.Errorf("stopped at %+v (stage %q), want %+v", *j.Stopped, j.ErrorStage, want)
	}
	if wantMsg := "stopped at the cap: " + pipeline.CapText(pipeline.CapCalls, int64(capAt)) + ", during scan"; j.Error != wantMsg {
		t.Errorf("message %q, want %q", j.Error, wantMsg)
	}
	if got := int(ep.requests.Load()); got != capAt {
		t.Errorf("the endpoint answered %d calls before the cap of %d", got, capAt)
	}
	if j.Progress.Usage.Calls != capAt {
		t.Errorf("usage %d calls, want %d", j.Progress.Usage.Calls, capAt)
	}
	if ret, _ := w.db.Retrieval(ctx, job.ID); len(ret) == 0 {
		t.Error("the stopped job lost its retrieval")
	}
	if ns, _ := w.db.Nuggets(ctx, job.ID); len(ns) == 0 {
		t.Error("the stopped job lost its nuggets")
	}
	if _, err := w.db.JobManifest(ctx, job.ID); err != nil {
		t.Errorf("the stopped job lost its manifest: %v", err)
	}
	if _, err := r.Cancel(ctx, job.ID); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("cancel a stopped job: %v, want ErrConflict", err)
	}

	// The same cap would stop it again: refused.
	_, err = r.Resume(ctx, job.ID, pipeline.Caps{Calls: capAt})
	var fe pipeline.FieldErrors
	if !errors.As(err, &fe) || !strings.Contains(fe["max_calls"], "must be above") {
		t.Fatalf("resume with the same cap: %v, want a max_calls field error", err)
	}
	if _, err := r.Resume(ctx, job.ID, pipeline.Caps{Calls: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	j = waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobDone || j.Stopped != nil || j.Error != "" {
		t.Fatalf("resumed job ended %s (%s: %s) stopped %v", j.State, j.ErrorStage, j.Error, j.Stopped)
	}
	if j.Progress.Usage.CacheHits < capAt {
		t.Errorf("the resumed run replayed %d cached calls, want at least the %d made before the cap", j.Progress.Usage.CacheHits, capAt)
	}
	if got := int(ep.requests.Load()); got != j.Progress.Usage.Calls {
		t.Errorf("the endpoint answered %d calls for a job of %d: some were paid twice", got, j.Progress.Usage.Calls)
	}
	rep, err := w.db.Report(ctx, j.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := w.engine(offline.New(analyzer{w.ix})).Pipeline.Generate(ctx, request, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct.Sentences) != len(rep.Sentences) {
		t.Fatalf("resumed report has %d sentences, an uncapped run %d", len(rep.Sentences), len(direct.Sentences))
	}
	for i := range rep.Sentences {
		if direct.Sentences[i].Text != rep.Sentences[i].Text || direct.Sentences[i].Citation != rep.Sentences[i].Citation {
			t.Errorf("sentence %d differs from an uncapped run's: %q vs %q", i, rep.Sentences[i].Text, direct.Sentences[i].Text)
		}
	}
}

// TestTokenCap stops a job once its calls have spent the tokens it may:
// the scripted endpoint reports 110 tokens a call, so a cap of 1,100
// admits ten calls, all in the first stage that calls the model.
func TestTokenCap(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}}
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.openAIEngine(t, ep)}, Poll: 10 * time.Millisecond}
	ctx := startRunner(t, r)
	s := pipeline.DefaultSettings()
	s.Concurrency = 1
	job, _, err := r.SubmitCapped(ctx, request, s, "", pipeline.Caps{Tokens: 1100})
	if err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, w.db, job.ID, finished)
	want := pipeline.CapError{Cap: pipeline.CapTokens, Limit: 1100, Stage: crucible.StageIdeate}
	if j.State != pipeline.JobStopped || j.Stopped == nil || *j.Stopped != want {
		t.Fatalf("job ended %s stopped %v (%s), want %+v", j.State, j.Stopped, j.Error, want)
	}
	if got := ep.requests.Load(); got != 10 {
		t.Errorf("the endpoint answered %d calls, want 10", got)
	}
	if u := j.Progress.Usage; u.PromptTokens+u.CompletionTokens != 1100 {
		t.Errorf("usage %+v, want 1,100 tokens", u)
	}
}

// TestTimeCap stops a job whose run outlasts its wall time, in the stage
// it was in, and a server's caps bound what a job may ask for.
func TestTimeCap(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}, delay: 50 * time.Millisecond}
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.openAIEngine(t, ep)}, Poll: 10 * time.Millisecond,
		Limits: pipeline.Caps{Time: 300 * time.Millisecond, Calls: 5000}}
	ctx := startRunner(t, r)

	_, _, err := r.SubmitCapped(ctx, request, pipeline.DefaultSettings(), "", pipeline.Caps{Calls: 6000, Time: time.Hour})
	var fe pipeline.FieldErrors
	if !errors.As(err, &fe) || fe["max_calls"] == "" || fe["max_time"] == "" {
		t.Fatalf("caps above the server's: %v, want max_calls and max_time field errors", err)
	}
	job, _, err := r.SubmitCapped(ctx, request, pipeline.DefaultSettings(), "", pipeline.Caps{Calls: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if want := (pipeline.Caps{Calls: 4000, Time: 300 * time.Millisecond}); job.Caps != want {
		t.Errorf("job caps %+v, want the lower calls and the server's time %+v", job.Caps, want)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobStopped || j.Stopped == nil || j.Stopped.Cap != pipeline.CapTime || j.Stopped.Stage == "" {
		t.Fatalf("job ended %s stopped %+v (%s), want stopped at the time cap in some stage", j.State, j.Stopped, j.Error)
	}
	if j.Error != "stopped at the cap: 300ms of wall time, during "+j.Stopped.Stage || j.ErrorStage != j.Stopped.Stage {
		t.Errorf("message %q at %q", j.Error, j.ErrorStage)
	}
	// The server's own cap stopped it: no job may go past it.
	_, err = r.Resume(ctx, job.ID, pipeline.Caps{Time: time.Minute})
	if !errors.As(err, &fe) || fe["max_time"] == "" {
		t.Errorf("resume above the server's cap: %v, want a max_time field error", err)
	}
	_, err = r.Resume(ctx, job.ID, pipeline.Caps{})
	if !errors.As(err, &fe) || !strings.Contains(fe["max_time"], "server's cap") {
		t.Errorf("resume at the server's cap: %v, want a field error naming the server's cap", err)
	}
	// Only a stopped job resumes.
	other := request
	other.ID = "t-other"
	job2, _, err := r.SubmitCapped(ctx, other, pipeline.DefaultSettings(), "", pipeline.Caps{Calls: 1})
	if err != nil {
		t.Fatal(err)
	}
	if j2 := waitFor(t, w.db, job2.ID, finished); j2.State != pipeline.JobStopped {
		t.Fatalf("job of one call ended %s", j2.State)
	}
	r.Limits = pipeline.Caps{}
	if _, err := r.Resume(ctx, job2.ID, pipeline.Caps{Calls: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resume(ctx, job2.ID, pipeline.Caps{Calls: 3}); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("resume a job that is not stopped: %v, want ErrConflict", err)
	}
}
