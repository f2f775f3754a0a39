package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

// errUnused is returned by the fake job store's methods the portal never
// calls.
var errUnused = errors.New("fake job store: not used by the portal")

// fakeJobStore serves jobs, reports and job artefacts from memory. A job
// with a script advances as it is read: the n-th call to Job returns
// script[n-1], the last entry repeating.
type fakeJobStore struct {
	mu         sync.Mutex
	jobs       map[int64]pipeline.Job
	script     map[int64][]pipeline.Job
	jobCalls   map[int64]int
	reports    map[int64]pipeline.Report
	reportJobs map[int64]int64
	nuggets    map[int64][]pipeline.Nugget
	candidates map[int64][]pipeline.Candidate
	retrieval  map[int64][]pipeline.RetrievedDoc
	// err, when set, fails every read; artefactErr fails only the reads
	// of nuggets, candidates and retrieval.
	err         error
	artefactErr error
	// failProblems, when set, fails ReportProblems.
	failProblems error
	// audit is the audit log DeleteJob writes.
	audit []pipeline.AuditEntry
}

// DeleteJob deletes a finished job and its report, logging entry.
func (f *fakeJobStore) DeleteJob(_ context.Context, id int64, entry pipeline.AuditEntry) (pipeline.AuditEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return entry, fmt.Errorf("job %d: %w", id, pipeline.ErrNotFound)
	}
	if !j.State.Finished() {
		return entry, fmt.Errorf("job %d is %s: %w", id, j.State, pipeline.ErrConflict)
	}
	delete(f.jobs, id)
	delete(f.reports, j.ReportID)
	entry.ID, entry.At = int64(len(f.audit)+1), testNow
	f.audit = append(f.audit, entry)
	return entry, nil
}

// AuditLog lists the deletions, newest first.
func (f *fakeJobStore) AuditLog(context.Context, int) ([]pipeline.AuditEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.audit)
	slices.Reverse(out)
	return out, nil
}

// deletions counts the jobs deleted.
func (f *fakeJobStore) deletions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.audit)
}

func newFakeJobStore() *fakeJobStore {
	return &fakeJobStore{
		jobs:       map[int64]pipeline.Job{},
		script:     map[int64][]pipeline.Job{},
		jobCalls:   map[int64]int{},
		reports:    map[int64]pipeline.Report{},
		reportJobs: map[int64]int64{},
		nuggets:    map[int64][]pipeline.Nugget{},
		candidates: map[int64][]pipeline.Candidate{},
		retrieval:  map[int64][]pipeline.RetrievedDoc{},
	}
}

func (f *fakeJobStore) put(j pipeline.Job) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs[j.ID] = j
}

func (f *fakeJobStore) calls(id int64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.jobCalls[id]
}

func (f *fakeJobStore) Job(_ context.Context, id int64) (pipeline.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return pipeline.Job{}, f.err
	}
	f.jobCalls[id]++
	if s := f.script[id]; len(s) > 0 {
		return s[min(f.jobCalls[id], len(s))-1], nil
	}
	j, ok := f.jobs[id]
	if !ok {
		return pipeline.Job{}, fmt.Errorf("job %d: %w", id, pipeline.ErrNotFound)
	}
	return j, nil
}

func (f *fakeJobStore) Jobs(_ context.Context, limit int) ([]pipeline.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []pipeline.Job
	for _, j := range f.jobs {
		out = append(out, j)
	}
	// Newest first: ids grow with time.
	for i := range out {
		for k := i + 1; k < len(out); k++ {
			if out[k].ID > out[i].ID {
				out[i], out[k] = out[k], out[i]
			}
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (f *fakeJobStore) Report(_ context.Context, id int64) (pipeline.Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return pipeline.Report{}, f.err
	}
	r, ok := f.reports[id]
	if !ok {
		return pipeline.Report{}, fmt.Errorf("report %d: %w", id, pipeline.ErrNotFound)
	}
	return r, nil
}

// ReportProblems gives a report's problems, as the SQLite store does for
// the job list and the job page; failProblems makes it fail.
func (f *fakeJobStore) ReportProblems(_ context.Context, id int64) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failProblems != nil {
		return nil, f.failProblems
	}
	r, ok := f.reports[id]
	if !ok {
		return nil, fmt.Errorf("report %d: %w", id, pipeline.ErrNotFound)
	}
	return r.Problems, nil
}

// ReportJob makes the fake a handlers.ReportJobFinder, as the SQLite store
// is meant to be.
func (f *fakeJobStore) ReportJob(_ context.Context, reportID int64) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.reportJobs[reportID]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("job of report %d: %w", reportID, pipeline.ErrNotFound)
}

func (f *fakeJobStore) Nuggets(_ context.Context, jobID int64) ([]pipeline.Nugget, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nuggets[jobID], errors.Join(f.err, f.artefactErr)
}

func (f *fakeJobStore) Candidates(_ context.Context, jobID int64) ([]pipeline.Candidate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.candidates[jobID], errors.Join(f.err, f.artefactErr)
}

func (f *fakeJobStore) Retrieval(_ context.Context, jobID int64) ([]pipeline.RetrievedDoc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.retrieval[jobID], errors.Join(f.err, f.artefactErr)
}

func (f *fakeJobStore) CreateJob(context.Context, pipeline.Job) (pipeline.Job, bool, error) {
	return pipeline.Job{}, false, errUnused
}
func (f *fakeJobStore) ClaimJob(context.Context) (pipeline.Job, error) {
	return pipeline.Job{}, errUnused
}
func (f *fakeJobStore) SetProgress(context.Context, int64, pipeline.Progress) error { return errUnused }
func (f *fakeJobStore) FinishJob(context.Context, int64, pipeline.JobState, string, string) error {
	return errUnused
}
func (f *fakeJobStore) RequestCancel(context.Context, int64) (pipeline.Job, error) {
	return pipeline.Job{}, errUnused
}
func (f *fakeJobStore) RequeueInterrupted(context.Context) (int, error) { return 0, errUnused }
func (f *fakeJobStore) SaveRetrieval(context.Context, int64, []pipeline.RetrievedDoc) error {
	return errUnused
}
func (f *fakeJobStore) SaveNuggets(context.Context, int64, []pipeline.Nugget) error { return errUnused }
func (f *fakeJobStore) SaveCandidates(context.Context, int64, []pipeline.Candidate) error {
	return errUnused
}
func (f *fakeJobStore) SaveReport(context.Context, int64, pipeline.Report) (int64, error) {
	return 0, errUnused
}

// storeWithoutFinder hides the fake's ReportJob method: a JobStore that
// cannot link reports to jobs.
type storeWithoutFinder struct{ pipeline.JobStore }

// finderFunc adapts a function to handlers.ReportJobFinder.
type finderFunc func(ctx context.Context, reportID int64) (int64, error)

func (f finderFunc) ReportJob(ctx context.Context, reportID int64) (int64, error) {
	return f(ctx, reportID)
}

// submission is one call of fakeReportService.Submit (or SubmitCapped,
// or Estimate).
type submission struct {
	Request  pipeline.Request
	Settings pipeline.Settings
	Engine   string
	Caps     pipeline.Caps
}

// fakeReportService validates like the real service and records calls.
type fakeReportService struct {
	mu        sync.Mutex
	engines   []pipeline.EngineInfo
	nextID    int64
	existing  bool
	submitErr error
	submitted []submission
	cancelErr error
	cancelled []int64
	// limits are the portal's caps (JobCaps); estimates the dry runs
	// asked for, estimate what they answer; resumes the jobs resumed,
	// with their caps, resumeErr what Resume answers.
	limits    pipeline.Caps
	estimates []submission
	estimate  pipeline.CostEstimate
	resumes   []submission
	resumeErr error
}

func (f *fakeReportService) JobCaps() pipeline.Caps { return f.limits }

func (f *fakeReportService) SubmitCapped(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string, caps pipeline.Caps) (pipeline.Job, bool, error) {
	if err := caps.Check(f.limits); err != nil {
		return pipeline.Job{}, false, err
	}
	job, existing, err := f.Submit(ctx, req, s, engine)
	f.mu.Lock()
	f.submitted[len(f.submitted)-1].Caps = caps
	f.mu.Unlock()
	job.Caps = caps.Within(f.limits)
	return job, existing, err
}

func (f *fakeReportService) Estimate(_ context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.CostEstimate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.estimates = append(f.estimates, submission{Request: req, Settings: s, Engine: engine})
	return f.estimate, nil
}

func (f *fakeReportService) Resume(_ context.Context, id int64, caps pipeline.Caps) (pipeline.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resumes = append(f.resumes, submission{Caps: caps, Request: pipeline.Request{ID: fmt.Sprint(id)}})
	if f.resumeErr != nil {
		return pipeline.Job{}, f.resumeErr
	}
	return pipeline.Job{ID: id, State: pipeline.JobQueued, Caps: caps}, nil
}

// testEngines are the engines the fake service offers, the offline one
// first as the default.
var testEngines = []pipeline.EngineInfo{
	{ID: "offline", Label: "offline engine", Offline: true},
	{ID: "openai", Label: "Llama-3.3-70B"},
}

func (f *fakeReportService) Engines() []pipeline.EngineInfo { return f.engines }

func (f *fakeReportService) Submit(_ context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.Job, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitted = append(f.submitted, submission{Request: req, Settings: s, Engine: engine})
	fe := pipeline.FieldErrors{}
	for _, err := range []error{req.Validate(), s.Validate()} {
		var e pipeline.FieldErrors
		if errors.As(err, &e) {
			for k, v := range e {
				fe[k] = v
			}
		}
	}
	if len(fe) > 0 {
		return pipeline.Job{}, false, fe
	}
	if f.submitErr != nil {
		return pipeline.Job{}, false, f.submitErr
	}
	return pipeline.Job{ID: f.nextID, State: pipeline.JobQueued, Request: req, Settings: s, Engine: engine}, f.existing, nil
}

func (f *fakeReportService) Cancel(_ context.Context, id int64) (pipeline.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	if f.cancelErr != nil {
		return pipeline.Job{}, f.cancelErr
	}
	return pipeline.Job{ID: id, State: pipeline.JobCancelled}, nil
}

func (f *fakeReportService) submissions() []submission {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]submission(nil), f.submitted...)
}

func (f *fakeReportService) cancels() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.cancelled...)
}

// testNow is the fixed clock of the report pages' tests.
var testNow = time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)

// reportServer is the portal with the report pages, on fakes.
type reportServer struct {
	*testServer
	jobs *fakeJobStore
	svc  *fakeReportService
	now  *fakeClock
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// reportDeps are the optional parts of a report server's dependencies.
type reportDeps struct {
	jobs pipeline.JobStore // nil: the fake job store
	// service wraps the fake report service as Deps.Reports.
	service func(*fakeReportService) pipeline.ReportService
	finder  interface {
		ReportJob(ctx context.Context, reportID int64) (int64, error)
	}
	// store, when set, replaces the fake document store as Deps.Store.
	store pipeline.DocumentStore
	// collection is Deps.Collection.
	collection func(ctx context.Context) ([]string, error)
	// titles is Deps.Titles.
	titles interface {
		Titles(ctx context.Context, ids []string) (map[string]string, error)
	}
}

// newReportServer builds the portal with report pages over the fakes.
// cfg's clock is replaced by a settable one starting at testNow.
func newReportServer(t *testing.T, store *fakeStore, cfg web.Config, opts ...func(*reportDeps)) *reportServer {
	t.Helper()
	if store == nil {
		store = &fakeStore{}
	}
	jobs := newFakeJobStore()
	svc := &fakeReportService{engines: testEngines, nextID: 7}
	clock := &fakeClock{t: testNow}
	cfg.Now = clock.Now
	cfg.LocalMode = true
	rd := reportDeps{jobs: jobs}
	for _, o := range opts {
		o(&rd)
	}
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&syncWriter{w: &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	deps := web.Deps{
		Searcher: &fakeSearcher{},
		Store:    store,
		Marker:   wordMarker{},
		Logger:   logger,
		Version:  "v1.2.3",
		Engine:   "offline engine",
		Jobs:     rd.jobs,
		Reports:  svc,
	}
	if rd.service != nil {
		deps.Reports = rd.service(svc)
	}
	deps.Collection = rd.collection
	if rd.finder != nil {
		deps.ReportJobs = rd.finder
	}
	if rd.store != nil {
		deps.Store = rd.store
	}
	if rd.titles != nil {
		deps.Titles = rd.titles
	}
	e, err := web.New(cfg, deps)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	return &reportServer{
		testServer: newTestServerOf(t, &testServer{e: e, store: store, log: &logBuf}),
		jobs:       jobs,
		svc:        svc,
		now:        clock,
	}
}
