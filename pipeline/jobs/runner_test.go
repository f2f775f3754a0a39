package jobs_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

type analyzer struct{ ix *index.Index }

func (a analyzer) Terms(s string) []string            { return a.ix.Terms(s) }
func (a analyzer) Sentences(s string) []pipeline.Span { return index.Sentences(s) }

// world is a data folder with the sample corpus ingested.
type world struct {
	db *sqlite.DB
	ix *index.Index
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix, err := index.Open(filepath.Join(dir, "index"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	in := &pipeline.Ingester{Store: db, Index: ix, Segment: index.Segment}
	_, err = corpus.Walk(ctx, []string{"../../cmd/crucible/testdata/sotu-sample.jsonl"}, corpus.Options{},
		func(d pipeline.Document) error { return in.Add(ctx, d) }, nil)
	if err == nil {
		err = in.Flush(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &world{db: db, ix: ix}
}

// gate wraps a model: after `after` extraction calls it blocks every call
// until released, so a test can stop the runner mid-scan.
type gate struct {
	next    pipeline.Model
	after   int32
	calls   atomic.Int32
	reached chan struct{}
	once    sync.Once
}

func (g *gate) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if req.Task == prompts.TaskExtract && g.calls.Add(1) > g.after {
		g.once.Do(func() { close(g.reached) })
		<-ctx.Done()
		return pipeline.ModelResponse{}, ctx.Err()
	}
	return g.next.Complete(ctx, req)
}

func (w *world) engine(model pipeline.Model) jobs.Engine {
	return jobs.Engine{
		Info: pipeline.EngineInfo{ID: "offline", Label: "offline engine", Offline: true},
		Pipeline: &crucible.Engine{Searcher: &index.Searcher{Index: w.ix, Source: w.db}, Store: w.db, Model: model,
			Terms: w.ix.Terms, SentenceKey: w.ix.SentenceKey, Name: "offline engine"},
	}
}

func (w *world) cached(next pipeline.Model) pipeline.Model {
	return llm.Cached{Next: next, Store: w.db, Namespace: offline.Version}
}

var request = pipeline.Request{ID: "t1", Title: "Tariff and trade", ProblemStatement: "What did the addresses say about tariffs, duties and trade with other nations?", Limit: 1200}

func waitFor(t *testing.T, db *sqlite.DB, id int64, done func(pipeline.Job) bool) pipeline.Job {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		j, err := db.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if done(j) {
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %d did not reach the expected state", id)
	return pipeline.Job{}
}

func finished(j pipeline.Job) bool { return j.State.Finished() }

func TestJobRunsToAReport(t *testing.T) {
	w := newWorld(t)
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(w.cached(offline.New(analyzer{w.ix})))}, Poll: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	job, existing, err := r.Submit(ctx, request, pipeline.DefaultSettings(), "")
	if err != nil || existing {
		t.Fatalf("submit: %v existing=%v", err, existing)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobDone || j.ReportID == 0 {
		t.Fatalf("job ended %s (%s: %s)", j.State, j.ErrorStage, j.Error)
	}
	if j.Progress.Usage.Calls == 0 {
		t.Error("no model calls recorded")
	}
	rep, err := w.db.Report(context.Background(), j.ReportID)
	if err != nil || len(rep.Sentences) == 0 {
		t.Fatalf("report: %d sentences, %v", len(rep.Sentences), err)
	}
	ret, _ := w.db.Retrieval(context.Background(), job.ID)
	ns, _ := w.db.Nuggets(context.Background(), job.ID)
	cs, _ := w.db.Candidates(context.Background(), job.ID)
	if len(ret) == 0 || len(ns) == 0 || len(cs) == 0 {
		t.Errorf("artefacts: %d retrieved, %d nuggets, %d candidates", len(ret), len(ns), len(cs))
	}
}

func TestSubmitValidates(t *testing.T) {
	w := newWorld(t)
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(offline.New(analyzer{w.ix}))}}
	bad := request
	bad.Limit = 0
	s := pipeline.DefaultSettings()
	s.Retrieve = 0
	_, _, err := r.Submit(context.Background(), bad, s, "gpt-9")
	var fe pipeline.FieldErrors
	if !errors.As(err, &fe) || fe["limit"] == "" || fe["retrieve"] == "" || fe["engine"] == "" {
		t.Errorf("err = %v, want limit, retrieve and engine field errors", err)
	}
}

// A request without an id gets its generated one, the same for the same
// request, so a second submission finds the first job.
func TestSubmitGeneratesRequestIDs(t *testing.T) {
	w := newWorld(t)
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(offline.New(analyzer{w.ix}))}}
	req := request
	req.ID = ""
	job, existing, err := r.Submit(context.Background(), req, pipeline.DefaultSettings(), "")
	if err != nil || existing {
		t.Fatalf("submit: %v, existing %v", err, existing)
	}
	if job.Request.ID != req.GeneratedID() || !strings.HasPrefix(job.Request.ID, "req-") {
		t.Errorf("request id %q, want %q", job.Request.ID, req.GeneratedID())
	}
	again, existing, err := r.Submit(context.Background(), req, pipeline.DefaultSettings(), "")
	if err != nil || !existing || again.ID != job.ID {
		t.Errorf("second submission: job %d existing %v (%v), want job %d", again.ID, existing, err, job.ID)
	}
}

// TestInterruptedJobResumes stops the runner mid-scan (a shutdown), starts
// a new one on the same store, and checks the job finishes with the same
// report as an uninterrupted run, replaying cached calls.
func TestInterruptedJobResumes(t *testing.T) {
	// Reference: an uninterrupted run in another world.
	ref := newWorld(t)
	refRep, err := ref.engine(offline.New(analyzer{ref.ix})).Pipeline.Generate(context.Background(), request, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}

	w := newWorld(t)
	g := &gate{next: offline.New(analyzer{w.ix}), after: 5, reached: make(chan struct{})}
	r1 := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(w.cached(g))}, Poll: 10 * time.Millisecond}
	ctx1, stop1 := context.WithCancel(context.Background())
	done1 := make(chan error)
	go func() { done1 <- r1.Run(ctx1) }()
	job, _, err := r1.Submit(ctx1, request, pipeline.DefaultSettings(), "offline")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.reached:
	case <-time.After(2 * time.Minute):
		t.Fatal("the job never reached the scan stage")
	}
	stop1() // shutdown mid-scan
	<-done1
	j, _ := w.db.Job(context.Background(), job.ID)
	if j.State != pipeline.JobRunning || j.Progress.Stage != crucible.StageScan {
		t.Fatalf("after shutdown the job is %s at %q, want running at scan", j.State, j.Progress.Stage)
	}

	r2 := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(w.cached(offline.New(analyzer{w.ix})))}, Poll: 10 * time.Millisecond}
	ctx2, stop2 := context.WithCancel(context.Background())
	done2 := make(chan error)
	go func() { done2 <- r2.Run(ctx2) }()
	defer func() { stop2(); <-done2 }()
	j = waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobDone {
		t.Fatalf("resumed job ended %s (%s: %s)", j.State, j.ErrorStage, j.Error)
	}
	if j.Progress.Usage.CacheHits == 0 {
		t.Error("the resumed job replayed no cached call")
	}
	rep, err := w.db.Report(context.Background(), j.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(refRep.Sentences, rep.Sentences); diff != "" {
		t.Errorf("resumed report differs from an uninterrupted one (-want +got)\n%s", diff)
	}
}

func TestCancelRunningJob(t *testing.T) {
	w := newWorld(t)
	g := &gate{next: offline.New(analyzer{w.ix}), after: 0, reached: make(chan struct{})}
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(g)}, Poll: 10 * time.Millisecond}
	ctx := startRunner(t, r)
	job, _, err := r.Submit(ctx, request, pipeline.DefaultSettings(), "offline")
	if err != nil {
		t.Fatal(err)
	}
	<-g.reached
	if _, err := r.Cancel(ctx, job.ID); err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobCancelled {
		t.Errorf("cancelled job ended %s", j.State)
	}
	// What it produced before the cancel is kept.
	if ns, _ := w.db.Nuggets(context.Background(), job.ID); len(ns) == 0 {
		t.Error("a cancelled job lost its nuggets")
	}
	if _, err := r.Cancel(ctx, job.ID); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("cancel a finished job: err = %v, want ErrConflict", err)
	}
}

// TestCancelWhileCheckingEndpoint cancels a job whose endpoint check never
// returns (an endpoint that accepts and never answers): the job ends
// cancelled, in stage start, not failed with the check's context error.
func TestCancelWhileCheckingEndpoint(t *testing.T) {
	w := newWorld(t)
	e := w.engine(failing{})
	checking := make(chan struct{})
	var once sync.Once
	e.Check = func(ctx context.Context) error {
		once.Do(func() { close(checking) })
		<-ctx.Done()
		return errors.New("model endpoint http://x: " + ctx.Err().Error())
	}
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx := startRunner(t, r)
	job, _, err := r.Submit(ctx, request, pipeline.DefaultSettings(), "offline")
	if err != nil {
		t.Fatal(err)
	}
	<-checking
	if _, err := r.Cancel(ctx, job.ID); err != nil {
		t.Fatal(err)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobCancelled || j.ErrorStage != "start" {
		t.Errorf("job cancelled during the endpoint check ended %s in %q: %q", j.State, j.ErrorStage, j.Error)
	}
}

// failing answers every call with a model failure.
type failing struct{}

func (failing) Complete(context.Context, pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	return pipeline.ModelResponse{}, errors.Join(pipeline.ErrModel, errors.New("endpoint down"))
}

func TestFailedJobRecordsStage(t *testing.T) {
	w := newWorld(t)
	e := w.engine(failing{})
	e.Check = func(context.Context) error { return nil }
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	job, _, _ := r.Submit(ctx, request, pipeline.DefaultSettings(), "offline")
	j := waitFor(t, w.db, job.ID, finished)
	cancel()
	<-done // only the second runner below may claim the next job
	if j.State != pipeline.JobFailed || j.ErrorStage != crucible.StageIdeate || j.Error == "" {
		t.Errorf("job = %s at %q: %q", j.State, j.ErrorStage, j.Error)
	}
	if ret, _ := w.db.Retrieval(context.Background(), job.ID); len(ret) == 0 {
		t.Error("the failed job lost its retrieval")
	}

	// An endpoint that is down fails the job at start with its message.
	e.Check = func(context.Context) error {
		return errors.New("model endpoint http://x unreachable: connection refused")
	}
	r2 := &jobs.Runner{Store: w.db, Available: []jobs.Engine{e}, Poll: 10 * time.Millisecond}
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan error)
	go func() { done2 <- r2.Run(ctx2) }()
	defer func() { cancel2(); <-done2 }()
	other := request
	other.ID = "t2"
	job2, _, _ := r2.Submit(ctx2, other, pipeline.DefaultSettings(), "offline")
	j2 := waitFor(t, w.db, job2.ID, finished)
	if j2.State != pipeline.JobFailed || j2.ErrorStage != "start" || j2.Error != "model endpoint http://x unreachable: connection refused" {
		t.Errorf("job with a down endpoint = %s at %q: %q", j2.State, j2.ErrorStage, j2.Error)
	}
}
