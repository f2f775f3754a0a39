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
	"github.com/crucible-portal/crucible/pipeline/llm"
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
	// Limits are the server's caps (serve --max-calls, --max-tokens,
	// --max-time): every job runs under them, or under lower caps it
	// asks for (SubmitCapped). Zero: no cap.
	Limits pipeline.Caps

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

// Submit implements pipeline.ReportService: the job runs under the
// server's caps (Limits).
func (r *Runner) Submit(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.Job, bool, error) {
	return r.SubmitCapped(ctx, req, s, engine, pipeline.Caps{})
}

// JobCaps returns the server's caps (Limits), the most a job may ask for.
func (r *Runner) JobCaps() pipeline.Caps { return r.Limits }

// SubmitCapped is Submit with the job's own caps: each one set must not
// be above the server's (FieldErrors max_calls, max_tokens, max_time
// otherwise); the ones it leaves at 0 are the server's.
func (r *Runner) SubmitCapped(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string, caps pipeline.Caps) (pipeline.Job, bool, error) {
	r.init()
	fe := r.check(req, s, &engine)
	var capErr pipeline.FieldErrors
	if errors.As(caps.Check(r.Limits), &capErr) {
		for k, v := range capErr {
			fe[k] = v
		}
	}
	if len(fe) > 0 {
		return pipeline.Job{}, false, fe
	}
	if req.ID == "" {
		// Exports and evaluations name a report by its request id.
		req.ID = req.GeneratedID()
	}
	job, existing, err := r.Store.CreateJob(ctx, pipeline.Job{Request: req, Settings: s, Engine: engine,
		SubmittedBy: pipeline.ActorFrom(ctx), Caps: caps.Within(r.Limits)})
	if err != nil {
		return job, false, err
	}
	r.wakeUp()
	return job, existing, nil
}

// wakeUp tells an idle worker a job is queued.
func (r *Runner) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// check validates a request, its settings and the engine named (the
// default engine when empty, which it fills in).
func (r *Runner) check(req pipeline.Request, s pipeline.Settings, engine *string) pipeline.FieldErrors {
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
	fe2 := r.checkEngine(s, engine)
	for k, v := range fe2 {
		fe[k] = v
	}
	return fe
}

// checkEngine checks the engine named (filling in the default) and the
// reranker the settings name.
func (r *Runner) checkEngine(s pipeline.Settings, enginePtr *string) pipeline.FieldErrors {
	fe := pipeline.FieldErrors{}
	engine := *enginePtr
	defer func() { *enginePtr = engine }()
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
	return fe
}

// Estimate says what a job of req with settings s would cost on the
// engine named (the default when empty), stage by stage, without a model
// call (crucible.Engine.Estimate): a dry run. Bad input gives
// FieldErrors, as Submit does.
func (r *Runner) Estimate(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.CostEstimate, error) {
	r.init()
	if fe := r.check(req, s, &engine); len(fe) > 0 {
		return pipeline.CostEstimate{}, fe
	}
	eng, _ := r.engine(engine)
	return eng.Pipeline.Estimate(ctx, req, s)
}

// Resume queues a job stopped at a cap again under caps, which must let
// it past the cap that stopped it (a higher one, or none where the server
// sets none) and stay within the server's (FieldErrors otherwise). The
// run starts over; the model cache answers the calls it made before for
// nothing. A job that is not stopped gives ErrConflict.
func (r *Runner) Resume(ctx context.Context, id int64, caps pipeline.Caps) (pipeline.Job, error) {
	r.init()
	cs, ok := r.Store.(pipeline.CapStore)
	if !ok {
		return pipeline.Job{}, fmt.Errorf("resume job %d: the store keeps no caps: %w", id, pipeline.ErrConflict)
	}
	job, err := r.Store.Job(ctx, id)
	if err != nil {
		return job, err
	}
	if job.State != pipeline.JobStopped || job.Stopped == nil {
		return job, fmt.Errorf("job %d is %s, not stopped at a cap: %w", id, job.State, pipeline.ErrConflict)
	}
	if err := caps.Check(r.Limits); err != nil {
		return job, err
	}
	in := caps.Within(r.Limits)
	if stop := job.Stopped; !in.Raises(stop.Cap, stop.Limit) {
		name := pipeline.CapField(stop.Cap)
		msg := fmt.Sprintf("must be above %s, the cap the job stopped at", pipeline.CapText(stop.Cap, stop.Limit))
		if r.Limits.Limit(stop.Cap) > 0 && r.Limits.Limit(stop.Cap) <= stop.Limit {
			msg = fmt.Sprintf("cannot be raised here: the job stopped at the server's cap of %s, which an administrator sets (serve --%s)",
				pipeline.CapText(stop.Cap, stop.Limit), strings.ReplaceAll(name, "_", "-"))
		}
		return job, pipeline.FieldErrors{name: msg}
	}
	job, err = cs.ResumeJob(ctx, id, in)
	if err != nil {
		return job, err
	}
	r.wakeUp()
	return job, nil
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
			cmu.Lock()
			byUser := userCancelled
			cmu.Unlock()
			switch {
			case byUser:
				// Cancelled while the endpoint was being checked (it may
				// never answer): that is the user's cancel, not a failure.
				finish(pipeline.JobCancelled, "start", "cancelled by a user")
				return
			case ctx.Err() != nil:
				return // shutting down: resume later
			}
			finish(pipeline.JobFailed, "start", err.Error())
			return
		}
	}
	obs := &storeObserver{store: r.Store, jobID: job.ID, ctx: jobCtx, log: log,
		note: &pipeline.StageNote{}, observer: r.Observer, engine: job.Engine}
	// The job's caps: its calls and tokens counted in front of the model
	// (and its cache), its wall time by the run's context.
	budget := pipeline.NewBudget(job.Caps)
	pl := *eng.Pipeline
	pl.Model = llm.Capped{Next: pl.Model, Budget: budget}
	runCtx := jobCtx
	if job.Caps.Time > 0 {
		var stopRun context.CancelFunc
		runCtx, stopRun = context.WithTimeoutCause(jobCtx, job.Caps.Time,
			&pipeline.CapError{Cap: pipeline.CapTime, Limit: int64(job.Caps.Time)})
		defer stopRun()
	}
	// The model calls of the run learn its stage from the context.
	rep, err := pl.Generate(pipeline.WithStageNote(runCtx, obs.note), job.Request, job.Settings, obs)
	obs.flush(budget.Used())
	cmu.Lock()
	byUser := userCancelled
	cmu.Unlock()
	capped := reachedCap(err, budget, runCtx)
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
	case capped != nil:
		if capped.Stage == "" {
			capped.Stage = obs.stage()
		}
		ended = pipeline.JobStopped
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer fcancel()
		if cs, ok := r.Store.(pipeline.CapStore); ok {
			if err := cs.StopJob(fctx, job.ID, *capped); err != nil {
				log.Error("stop job", "err", err)
			}
		} else if err := r.Store.FinishJob(fctx, job.ID, pipeline.JobFailed, capped.Stage, capped.Error()); err != nil {
			log.Error("finish job", "err", err)
		}
		log.Info("job stopped at a cap", "cap", capped.Cap, "limit", capped.Limit, "stage", capped.Stage,
			"elapsed", time.Since(start).Round(time.Millisecond))
	default:
		stage := obs.stage()
		var se *crucible.StageError
		if errors.As(err, &se) {
			stage = se.Stage
		}
		finish(pipeline.JobFailed, stage, err.Error())
	}
}

// reachedCap returns the cap that stopped a run, nil when none did: the
// budget's calls or tokens, or the wall time that ended runCtx.
func reachedCap(err error, b *pipeline.Budget, runCtx context.Context) *pipeline.CapError {
	if err == nil {
		return nil
	}
	if c := b.Reached(); c != nil {
		cp := *c
		return &cp
	}
	var ce *pipeline.CapError
	if errors.As(context.Cause(runCtx), &ce) {
		cp := *ce
		return &cp
	}
	return nil
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

// flush writes the last progress seen with the run's usage up to its last
// call (used: the progress reported last may not count the calls after
// it, such as those in flight when a cap stopped the run).
func (o *storeObserver) flush(used pipeline.Usage) {
	o.mu.Lock()
	p := o.last
	if used.Calls > p.Usage.Calls {
		p.Usage = used
	}
	o.last = p
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
