package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// JobReader reads report jobs.
type JobReader interface {
	// Job returns a job, or an error wrapping pipeline.ErrNotFound.
	Job(ctx context.Context, id int64) (pipeline.Job, error)
	// Jobs lists the most recent jobs, newest first.
	Jobs(ctx context.Context, limit int) ([]pipeline.Job, error)
}

// JobControl names engines and cancels report jobs.
type JobControl interface {
	EngineLister
	// Cancel stops a queued or running job; a finished job gives an error
	// wrapping pipeline.ErrConflict, an unknown one pipeline.ErrNotFound.
	Cancel(ctx context.Context, id int64) (pipeline.Job, error)
}

// Defaults of the Jobs handler's tunables.
const (
	// JobListLimit is how many jobs the job list shows.
	JobListLimit = 50
	// JobListScan is how many recent jobs the list filters.
	JobListScan = 1000
	// DefaultPollInterval is how often an event stream reads its job.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultStreamLimit is how long one event stream lasts at most; the
	// browser's EventSource then reconnects by itself.
	DefaultStreamLimit = 10 * time.Minute
)

// Jobs serves the job list, job pages, cancellation and the job event
// streams. Its zero tunables take the defaults above.
type Jobs struct {
	Site    views.Site
	Store   JobReader
	Control JobControl
	// ScriptURL is the URL of job.js, which keeps job pages live.
	ScriptURL string
	// PollInterval is how often an event stream reads its job.
	PollInterval time.Duration
	// StreamLimit bounds how long one event stream lasts.
	StreamLimit time.Duration
	// Stop, when closed, ends every event stream (at shutdown, so the
	// server need not wait for them). Optional.
	Stop <-chan struct{}
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Statuses reads reports' review statuses for the list. Optional:
	// without it the list shows no status column.
	Statuses interface {
		Status(ctx context.Context, reportID int64) (pipeline.StatusRecord, error)
	}
	// Notes reads what the run that made a report had to tell its readers
	// (pipeline.Report.Problems), for the list's marker and the job page.
	// Optional: when nil, neither shows notes.
	Notes interface {
		ReportProblems(ctx context.Context, reportID int64) ([]string, error)
	}

	clock stageClock
}

// List renders the most recent jobs.
func (h *Jobs) List(c echo.Context) error {
	ctx := c.Request().Context()
	f := views.JobFilter{
		Query:  strings.TrimSpace(c.QueryParam(views.ParamJobQuery)),
		State:  pipeline.JobState(c.QueryParam(views.ParamJobState)),
		Status: pipeline.ReportStatus(c.QueryParam(views.ParamJobStatus)),
		Sort:   c.QueryParam(views.ParamJobSort),
	}
	jobs, err := h.Store.Jobs(ctx, JobListScan)
	if err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	engines := h.Control.Engines()
	now := h.now()
	rows := make([]views.JobRow, 0, len(jobs))
	for _, j := range jobs {
		row := views.JobRow{
			Job:    j,
			Status: views.NewJobStatus(j, now, views.StageEstimate{}),
			Engine: views.EngineLabelFor(engines, j.Engine),
		}
		if j.ReportID > 0 && h.Statuses != nil {
			st, err := h.Statuses.Status(ctx, j.ReportID)
			if err != nil {
				return fmt.Errorf("status of report %d: %w", j.ReportID, err)
			}
			row.ReportStatus = st.Status
			if row.ReportStatus == "" {
				row.ReportStatus = pipeline.StatusDraft
			}
		}
		if row.Notes, err = h.runNotes(ctx, j); err != nil {
			return err
		}
		if f.Keeps(row) {
			rows = append(rows, row)
		}
	}
	f.Order(rows)
	shown := rows[:min(len(rows), JobListLimit)]
	var deleted int64
	if d, err := strconv.ParseInt(c.QueryParam(views.ParamDeleted), 10, 64); err == nil && d > 0 {
		deleted = d
	}
	return Render(c, http.StatusOK, views.Jobs(views.JobsPage{
		Site:     h.Site.WithActive(views.NavReports),
		Jobs:     shown,
		Matching: len(rows),
		Limit:    JobListLimit,
		Filter:   f,
		Statuses: h.Statuses != nil,
		Deleted:  deleted,
	}))
}

// Show renders the progress page of the job whose id is in the path. The
// "existing" parameter adds the notice that the user's submission matched
// this job.
func (h *Jobs) Show(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.loadJob(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	vm := h.page(j)
	if vm.Notes, err = h.runNotes(ctx, j); err != nil {
		return err
	}
	vm.Existing = parseFlag(c.QueryParam(views.ParamExisting)) && !j.State.Finished()
	return Render(c, http.StatusOK, views.Job(vm))
}

// Cancel stops the job whose id is in the path and answers 303 See Other
// back to its page. A job that has already finished cannot be cancelled:
// its page is shown with 409 Conflict and a notice saying so.
func (h *Jobs) Cancel(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := parseID(c.Param("id"), "job")
	if err != nil {
		return err
	}
	_, err = h.Control.Cancel(ctx, id)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		return fmt.Errorf("no job has the id %d: %w", id, pipeline.ErrNotFound)
	case errors.Is(err, pipeline.ErrConflict):
		j, lerr := h.Store.Job(ctx, id)
		if lerr != nil {
			return fmt.Errorf("cancel job %d: %w (then loading it: %w)", id, err, lerr)
		}
		vm := h.page(j)
		vm.Notice = "This job has already finished, so it can no longer be cancelled."
		return Render(c, http.StatusConflict, views.Job(vm))
	case err != nil:
		return fmt.Errorf("cancel job %d: %w", id, err)
	}
	return c.Redirect(http.StatusSeeOther, views.JobURL(id))
}

// Rerun submits a failed or cancelled job's request again with its
// settings and engine, and answers 303 to the new job's page (or to the
// job already running it). A job still queued or running, or one that
// made a report, is a 409: it has nothing to run again.
func (h *Jobs) Rerun(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.loadJob(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	sub, ok := h.Control.(ReportSubmitter)
	if !ok {
		return fmt.Errorf("run job %d again: this portal cannot start reports: %w", j.ID, pipeline.ErrNotFound)
	}
	if j.State != pipeline.JobFailed && j.State != pipeline.JobCancelled {
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("Job %d is %s: only a failed or cancelled job is run again. Use “Edit and resubmit” to start a new one from it.", j.ID, j.State))
	}
	job, existing, err := sub.Submit(pipeline.WithActor(ctx, actorName(ctx)), j.Request, j.Settings, j.Engine)
	if err != nil {
		return fmt.Errorf("run job %d again: %w", j.ID, err)
	}
	if existing {
		return c.Redirect(http.StatusSeeOther, views.ExistingJobURL(job.ID))
	}
	return c.Redirect(http.StatusSeeOther, views.JobURL(job.ID))
}

// Resume queues the stopped job whose id is in the path again under the
// caps the form gives (views.FieldMaxCalls, FieldMaxTokens, FieldMaxTime)
// and answers 303 to its page. Caps that do not parse, do not let the job
// past the cap that stopped it or exceed the portal's re-render the page
// with 422 and a message next to each; a job that is not stopped gets its
// page with 409 and a notice.
func (h *Jobs) Resume(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.loadJob(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	cs, ok := h.Control.(CapService)
	if !ok {
		return fmt.Errorf("resume job %d: this portal does not resume jobs: %w", j.ID, pipeline.ErrNotFound)
	}
	form, err := readForm(c)
	if err != nil {
		return err
	}
	values, errs := map[string]string{}, pipeline.FieldErrors{}
	caps := parseCaps(form, values, errs)
	refuse := func(status int, errs map[string]string) error {
		vm := h.page(j)
		vm.ResumeValues, vm.ResumeErrors = values, errs
		return Render(c, status, views.Job(vm))
	}
	if len(errs) > 0 {
		return refuse(http.StatusUnprocessableEntity, errs)
	}
	_, err = cs.Resume(pipeline.WithActor(ctx, actorName(ctx)), j.ID, caps)
	var fe pipeline.FieldErrors
	switch {
	case errors.As(err, &fe):
		return refuse(http.StatusUnprocessableEntity, fe)
	case errors.Is(err, pipeline.ErrConflict):
		vm := h.page(j)
		vm.Notice = "Only a job stopped at a cap can be resumed; this one is " + string(j.State) + "."
		return Render(c, http.StatusConflict, views.Job(vm))
	case err != nil:
		return fmt.Errorf("resume job %d: %w", j.ID, err)
	}
	return c.Redirect(http.StatusSeeOther, views.JobURL(j.ID))
}

// loadJob reads the job whose id is raw.
func (h *Jobs) loadJob(ctx context.Context, raw string) (pipeline.Job, error) {
	id, err := parseID(raw, "job")
	if err != nil {
		return pipeline.Job{}, err
	}
	j, err := h.Store.Job(ctx, id)
	if errors.Is(err, pipeline.ErrNotFound) {
		return pipeline.Job{}, fmt.Errorf("no job has the id %d: %w", id, pipeline.ErrNotFound)
	}
	if err != nil {
		return pipeline.Job{}, fmt.Errorf("load job %d: %w", id, err)
	}
	return j, nil
}

// runNotes are the notes of the run that made a job's report; none for a
// job without a report or when the handler reads no notes. A report
// deleted since the job was listed has none either.
func (h *Jobs) runNotes(ctx context.Context, j pipeline.Job) ([]pipeline.RunNote, error) {
	if j.ReportID <= 0 || h.Notes == nil {
		return nil, nil
	}
	problems, err := h.Notes.ReportProblems(ctx, j.ReportID)
	if errors.Is(err, pipeline.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("notes of report %d: %w", j.ReportID, err)
	}
	return pipeline.RunNotesOf(problems), nil
}

// page is the view model of a job's page.
func (h *Jobs) page(j pipeline.Job) views.JobPage {
	vm := views.JobPage{
		Site:      h.Site.WithActive(views.NavReports),
		Job:       j,
		Status:    h.status(j),
		Engine:    views.EngineLabelFor(h.Control.Engines(), j.Engine),
		ScriptURL: h.ScriptURL,
		Prices:    h.prices(j),
	}
	if cs, ok := h.Control.(CapService); ok {
		vm.CanResume, vm.ServerCaps = true, cs.JobCaps()
		vm.ResumeValues = views.ResumeValues(j, vm.ServerCaps)
	}
	return vm
}

// prices are what the job's engine charges for tokens.
func (h *Jobs) prices(j pipeline.Job) pipeline.Prices {
	return engineInfo(h.Control.Engines(), j.Engine).Prices
}

// status describes a job now, with its stage's remaining time estimated
// and its usage in money when its engine's prices are known.
func (h *Jobs) status(j pipeline.Job) views.JobStatus {
	now := h.now()
	return views.NewJobStatus(j, now, h.clock.observe(j, now)).WithPrices(h.prices(j))
}

func (h *Jobs) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// stageClock estimates the time left in running jobs' current stages.
//
// A job reports only its current stage's items done and total, not when
// the stage began, so the clock watches: the first time it sees a job in a
// stage it notes the time and the items done, and from then on estimates
//
//	remaining = (now − noted time) / (done − noted done) × (total − done)
//
// that is, the stage's average time per item since it was first seen,
// times the items left. When the stage was first seen at its start this is
// the elapsed-in-stage / done × (total − done) estimate. There is no
// estimate until an item has been done since the stage was first seen.
// Observations come from job pages and event streams; a job that is
// neither watched nor running is forgotten.
type stageClock struct {
	mu   sync.Mutex
	seen map[int64]stageMark
}

// stageMark is when a job was first seen in its current stage.
type stageMark struct {
	stage string
	total int
	since time.Time
	done  int
	// last is the most recent observation, for forgetting idle jobs.
	last time.Time
}

// stageMarkTTL is how long the clock remembers a job nobody looks at.
const stageMarkTTL = 30 * time.Minute

// observe records the job's progress at now and returns the estimate.
func (c *stageClock) observe(j pipeline.Job, now time.Time) views.StageEstimate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if j.State != pipeline.JobRunning {
		delete(c.seen, j.ID)
		return views.StageEstimate{}
	}
	if c.seen == nil {
		c.seen = map[int64]stageMark{}
	}
	p := j.Progress
	m, ok := c.seen[j.ID]
	if !ok || m.stage != p.Stage || m.total != p.Total || p.Done < m.done || now.Before(m.since) {
		m = stageMark{stage: p.Stage, total: p.Total, since: now, done: p.Done}
	}
	m.last = now
	c.seen[j.ID] = m
	c.forget(now)

	progressed := p.Done - m.done
	left := p.Total - p.Done
	if progressed <= 0 || left < 0 {
		return views.StageEstimate{}
	}
	perItem := now.Sub(m.since) / time.Duration(progressed)
	return views.StageEstimate{Remaining: perItem * time.Duration(left), Known: true}
}

// forget drops the jobs not observed for stageMarkTTL. The caller holds mu.
func (c *stageClock) forget(now time.Time) {
	for id, m := range c.seen {
		if now.Sub(m.last) > stageMarkTTL {
			delete(c.seen, id)
		}
	}
}
