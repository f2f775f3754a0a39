// Package jobs runs report jobs in the background: a pool of workers
// claims queued jobs from the JobStore, runs the Crucible pipeline, stores
// progress and artefacts as they come, and ends each job done, failed
// (with the stage and the error, keeping what was produced) or cancelled.
//
// Jobs survive restarts: a job still running when the process stops stays
// "running" in the store and is queued again at the next start, where the
// model cache makes the calls it had finished free.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
)

// Engine is one way of answering model tasks.
type Engine struct {
	Info     pipeline.EngineInfo
	Pipeline *crucible.Engine
	// Check, if set, runs before each job so an unreachable endpoint fails
	// the job at once with a clear message instead of after long retries.
	Check func(ctx context.Context) error
}

// Runner queues and runs jobs. It implements pipeline.ReportService.
type Runner struct {
	Store     pipeline.JobStore
	Available []Engine // the engines jobs can use; the first is the default
	// Rerankers are the reranking methods a job's Settings.Reranker may
	// name (the engines' NewReranker builds them); empty: none on offer.
	Rerankers []string
	Workers   int // default 1
	// Poll is how often idle workers look for queued jobs and running jobs
	// look for a cancel request (default 500 ms).
	Poll   time.Duration
	Logger *slog.Logger
	// Observer, when set, hears jobs start and end and their stages'
	// durations, for the operator's metrics. Optional.
	Observer pipeline.JobObserver

	once    sync.Once
	wake    chan struct{}
	mu      sync.Mutex
	cancels map[int64]context.CancelFunc
}

var _ pipeline.ReportService = (*Runner)(nil)

// RerankMethods lists the reranking methods jobs may name (Rerankers).
func (r *Runner) RerankMethods() []string { return slices.Clone(r.Rerankers) }

func (r *Runner) init() {
	r.once.Do(func() {
		r.wake = make(chan struct{}, 1)
		r.cancels = map[int64]context.CancelFunc{}
		if r.Workers < 1 {
			r.Workers = 1
		}
		if r.Poll <= 0 {
			r.Poll = 500 * time.Millisecond
		}
		if r.Logger == nil {
			r.Logger = slog.New(slog.DiscardHandler)
		}
	})
}

// Engines implements pipeline.ReportService.
func (r *Runner) Engines() []pipeline.EngineInfo {
	out := make([]pipeline.EngineInfo, len(r.Available))
	for i, e := range r.Available {
		out[i] = e.Info
	}
	return out
}

func (r *Runner) engine(id string) (Engine, bool) {
	for _, e := range r.Available {
		if e.Info.ID == id {
			return e, true
		}
	}
	return Engine{}, false
}

// Submit implements pipeline.ReportService.
func (r *Runner) Submit(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.Job, bool, error) {
	r.init()
	fe := pipeline.FieldErrors{}
	var reqErr, setErr pipeline.FieldErrors
	if errors.As(req.Validate(), &reqErr) {
		for k, v := range reqErr {
			fe[k] = v
		}
	}
	if errors.As(s.Validate(), &setErr) {
		for k, v := range setErr {
			fe[k] = v
		}
	}
	if engine == "" && len(r.Available) > 0 {
		engine = r.Available[0].Info.ID
	}
	if _, ok := r.engine(engine); !ok {
		fe["engine"] = fmt.Sprintf("%q is not an available engine", engine)
	}
	if s.Reranker != "" && !slices.Contains(r.Rerankers, s.Reranker) {
		if len(r.Rerankers) == 0 {
			fe["reranker"] = "no reranker is available here"
		} else {
			fe["reranker"] = fmt.Sprintf("%q is not an available reranker (%s)", s.Reranker, strings.Join(r.Rerankers, ", "))
		}
	}
	if len(fe) > 0 {
		return pipeline.Job{}, false, fe
	}
	if req.ID == "" {
		// Exports and evaluations name a report by its request id.
		req.ID = req.GeneratedID()
	}
	job, existing, err := r.Store.CreateJob(ctx, pipeline.Job{Request: req, Settings: s, Engine: engine, SubmittedBy: pipeline.ActorFrom(ctx)})
	if err != nil {
		return job, false, err
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return job, existing, nil
}

// Cancel implements pipeline.ReportService.
func (r *Runner) Cancel(ctx context.Context, id int64) (pipeline.Job, error) {
	r.init()
	job, err := r.Store.RequestCancel(ctx, id)
	if err != nil {
		return job, err
	}
	r.mu.Lock()
	if cancel := r.cancels[id]; cancel != nil {
		cancel()
	}
	r.mu.Unlock()
	return job, nil
}

// Run requeues interrupted jobs, then works until ctx ends. Jobs running
// when ctx ends are left running in the store, to resume at the next
// start.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	n, err := r.Store.RequeueInterrupted(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		r.Logger.Info("resuming interrupted jobs", "jobs", n)
	}
	var wg sync.WaitGroup
	for w := 0; w < r.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx)
		}()
	}
	wg.Wait()
	return nil
}

func (r *Runner) work(ctx context.Context) {
	for ctx.Err() == nil {
		job, err := r.Store.ClaimJob(ctx)
		if errors.Is(err, pipeline.ErrNotFound) || (err != nil && ctx.Err() != nil) {
			select {
			case <-ctx.Done():
			case <-r.wake:
			case <-time.After(r.Poll):
			}
			continue
		}
		if err != nil {
			r.Logger.Error("claim job", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(r.Poll):
			}
			continue
		}
		r.execute(ctx, job)
	}
}

// execute runs one claimed job to its end (or to shutdown).
func (r *Runner) execute(ctx context.Context, job pipeline.Job) {
	log := r.Logger.With("job_id", job.ID)
	start := time.Now()
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var userCancelled bool
	var cmu sync.Mutex
	cancelByUser := func() {
		cmu.Lock()
		userCancelled = true
		cmu.Unlock()
		cancel()
	}
	r.mu.Lock()
	r.cancels[job.ID] = cancelByUser
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.cancels, job.ID)
		r.mu.Unlock()
	}()
	// A cancel requested through the store (another process, or before
	// this worker registered) is noticed within one poll.
	go func() {
		t := time.NewTicker(r.Poll)
		defer t.Stop()
		for {
			select {
			case <-jobCtx.Done():
				return
			case <-t.C:
				if j, err := r.Store.Job(jobCtx, job.ID); err == nil && j.CancelRequested {
					cancelByUser()
					return
				}
			}
		}
	}()

	// ended is how the job ended, for the observer: queued again when a
	// shutdown interrupts it.
	ended := pipeline.JobQueued
	if r.Observer != nil {
		r.Observer.JobStarted(job.Engine)
		defer func() { r.Observer.JobEnded(job.Engine, ended, time.Since(start)) }()
	}
	finish := func(state pipeline.JobState, stage, msg string) {
		ended = state
		// Record the end even though jobCtx may be cancelled.
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer fcancel()
		if err := r.Store.FinishJob(fctx, job.ID, state, stage, msg); err != nil {
			log.Error("finish job", "err", err)
		}
		log.Info("job finished", "state", state, "stage", stage, "elapsed", time.Since(start).Round(time.Millisecond))
	}

	eng, ok := r.engine(job.Engine)
	if !ok {
		finish(pipeline.JobFailed, "start", fmt.Sprintf("engine %q is not configured on this server", job.Engine))
		return
	}
	if eng.Check != nil {
		if err := eng.Check(jobCtx); err != nil {
			if ctx.Err() != nil {
				return // shutting down: resume later
			}
			finish(pipeline.JobFailed, "start", err.Error())
			return
		}
	}
	obs := &storeObserver{store: r.Store, jobID: job.ID, ctx: jobCtx, log: log,
		note: &pipeline.StageNote{}, observer: r.Observer, engine: job.Engine}
	// The model calls of the run learn its stage from the context.
	rep, err := eng.Pipeline.Generate(pipeline.WithStageNote(jobCtx, obs.note), job.Request, job.Settings, obs)
	obs.flush()
	cmu.Lock()
	byUser := userCancelled
	cmu.Unlock()
	switch {
	case err == nil:
		for _, p := range rep.Problems {
			r.Logger.Warn("job tolerated a problem", "job", job.ID, "problem", p)
		}
		obs.lastStageDone()
		fctx := context.WithoutCancel(ctx)
		if _, err := r.Store.SaveReport(fctx, job.ID, rep); err != nil {
			finish(pipeline.JobFailed, crucible.StageAssemble, "store the report: "+err.Error())
			return
		}
		finish(pipeline.JobDone, "", "")
	case byUser:
		finish(pipeline.JobCancelled, obs.stage(), "cancelled by a user")
	case ctx.Err() != nil:
		log.Info("job interrupted by shutdown; it resumes at the next start", "stage", obs.stage())
	default:
		stage := obs.stage()
		var se *crucible.StageError
		if errors.As(err, &se) {
			stage = se.Stage
		}
		finish(pipeline.JobFailed, stage, err.Error())
	}
}

// storeObserver writes a job's progress (throttled) and artefacts.
type storeObserver struct {
	store pipeline.JobStore
	jobID int64
	ctx   context.Context
	log   *slog.Logger
	// note tells the run's model calls its stage; observer (optional)
	// hears each stage's duration.
	note     *pipeline.StageNote
	observer pipeline.JobObserver
	engine   string

	mu      sync.Mutex
	last    pipeline.Progress
	written time.Time
	// entered is when the current stage began.
	entered time.Time
}

// progressEvery bounds progress writes; stage changes are always written.
const progressEvery = 200 * time.Millisecond

func (o *storeObserver) Progress(p pipeline.Progress) {
	o.mu.Lock()
	stageChanged := p.Stage != o.last.Stage
	if stageChanged {
		o.stageChanged(p.Stage)
	}
	o.last = p
	if !stageChanged && time.Since(o.written) < progressEvery && p.Done < p.Total {
		o.mu.Unlock()
		return
	}
	o.written = time.Now()
	o.mu.Unlock()
	if err := o.store.SetProgress(o.ctx, o.jobID, p); err != nil && o.ctx.Err() == nil {
		o.log.Warn("store progress", "err", err)
	}
}

// stageChanged notes that the run entered stage and reports the duration
// of the stage it left. The caller holds mu.
func (o *storeObserver) stageChanged(stage string) {
	now := time.Now()
	if o.note != nil {
		o.note.Set(stage)
	}
	if o.observer != nil && o.last.Stage != "" {
		o.observer.StageDone(o.engine, o.last.Stage, now.Sub(o.entered))
	}
	o.entered = now
}

// lastStageDone reports the duration of the stage a successful run ended
// in.
func (o *storeObserver) lastStageDone() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.observer != nil && o.last.Stage != "" {
		o.observer.StageDone(o.engine, o.last.Stage, time.Since(o.entered))
	}
}

// flush writes the last progress seen (usage totals in particular).
func (o *storeObserver) flush() {
	o.mu.Lock()
	p := o.last
	o.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(o.ctx), 10*time.Second)
	defer cancel()
	if err := o.store.SetProgress(ctx, o.jobID, p); err != nil {
		o.log.Warn("store progress", "err", err)
	}
}

func (o *storeObserver) stage() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last.Stage
}

func (o *storeObserver) Retrieved(ctx context.Context, docs []pipeline.RetrievedDoc) error {
	return o.store.SaveRetrieval(ctx, o.jobID, docs)
}

// Reranked stores the rerank stage's record where the store keeps them
// (pipeline.RerankStore), and the reranked order as the job's retrieval.
func (o *storeObserver) Reranked(ctx context.Context, rec pipeline.RerankRecord) error {
	if rs, ok := o.store.(pipeline.RerankStore); ok {
		if err := rs.SaveRerank(ctx, o.jobID, rec); err != nil {
			return err
		}
	}
	byID := make(map[string]pipeline.RetrievedDoc, len(rec.FirstStage))
	for _, d := range rec.FirstStage {
		byID[d.DocID] = d
	}
	order := rec.Order
	if rec.Kept > 0 && rec.Kept < len(order) {
		order = order[:rec.Kept]
	}
	docs := make([]pipeline.RetrievedDoc, 0, len(order))
	for i, id := range order {
		d := byID[id]
		d.Rank = i + 1
		docs = append(docs, d)
	}
	return o.store.SaveRetrieval(ctx, o.jobID, docs)
}

func (o *storeObserver) Nuggets(ctx context.Context, all []pipeline.Nugget) error {
	return o.store.SaveNuggets(ctx, o.jobID, all)
}

func (o *storeObserver) Candidates(ctx context.Context, cs []pipeline.Candidate) error {
	return o.store.SaveCandidates(ctx, o.jobID, cs)
}
