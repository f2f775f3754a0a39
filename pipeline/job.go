package pipeline

import (
	"context"
	"encoding/json"
	"time"
)

// JobState is where a job is in its life.
type JobState string

// Job states. A job is queued, then running, then ends done, failed,
// cancelled or stopped. A running job found at start-up was interrupted
// and goes back to queued (it resumes; cached model calls make that
// cheap). A job stopped at one of its caps (Caps) keeps what it made and
// may be resumed with a higher cap, which queues it again.
const (
	JobQueued    JobState = "queued"
	JobRunning   JobState = "running"
	JobDone      JobState = "done"
	JobFailed    JobState = "failed"
	JobCancelled JobState = "cancelled"
	JobStopped   JobState = "stopped"
)

// JobStates lists every state, in a job's order.
func JobStates() []JobState {
	return []JobState{JobQueued, JobRunning, JobDone, JobFailed, JobCancelled, JobStopped}
}

// Finished reports whether the state is final (a stopped job stays
// stopped unless someone resumes it).
func (s JobState) Finished() bool {
	return s == JobDone || s == JobFailed || s == JobCancelled || s == JobStopped
}

// Progress is what a running job reports.
type Progress struct {
	Stage string
	Done  int
	Total int
	Usage Usage
}

// Job is a persisted report request and its run.
type Job struct {
	ID       int64
	State    JobState
	Request  Request
	Settings Settings
	Engine   string
	Progress Progress
	// Error and ErrorStage say why and where a failed job stopped.
	Error      string
	ErrorStage string
	// CancelRequested is set when a user asked to cancel a running job.
	CancelRequested bool
	// Caps are the job's caps in force (the server's, or lower ones the
	// job asked for); zero when none bounds it.
	Caps Caps
	// Stopped says which cap stopped the job, and in which stage, when
	// its state is JobStopped.
	Stopped  *CapError
	ReportID int64 // 0 until the report is stored
	// SubmittedBy names the account that submitted the job ("local" in
	// local mode); empty for jobs from before it was recorded and jobs
	// started outside the portal.
	SubmittedBy string
	CreatedAt   time.Time
	StartedAt   time.Time
	FinishedAt  time.Time
}

// RetrievedDoc is a document of the first-stage ranking of a job.
type RetrievedDoc struct {
	Rank    int
	DocID   string
	Title   string
	Score   float64
	Ordinal int // best passage
}

// RerankRecord is what a job's rerank stage produced: the first-stage
// ranking, the reranked order and the method's trace.
type RerankRecord struct {
	Method string
	// FirstStage is the retrieval before reranking, in first-stage order.
	FirstStage []RetrievedDoc
	// Order lists every candidate's document id in the reranked order.
	Order []string
	// Selected is, for set-selection methods, how many leading documents
	// of Order are the chosen set (0 for ranking methods).
	Selected int
	// Trace is the method's trace as JSON (pipeline/rerank.DecodeTrace
	// reads it back).
	Trace json.RawMessage
	// Usage counts the stage's model calls.
	Usage Usage
	// Kept is how many leading documents of Order the report goes on with:
	// a reranker that reads more candidates than a report retrieves
	// (CoRank's 200) chooses among them, and the report keeps as many as
	// it retrieved. 0: all of them.
	Kept int `json:",omitempty"`
}

// RerankStore keeps the rerank stage's record of a job. It is separate
// from JobStore because only jobs with a reranker have one.
type RerankStore interface {
	SaveRerank(ctx context.Context, jobID int64, r RerankRecord) error
	// Rerank returns a job's record, or ErrNotFound when the job did not
	// rerank.
	Rerank(ctx context.Context, jobID int64) (RerankRecord, error)
}

// JobStore persists jobs and everything a job produces.
type JobStore interface {
	// CreateJob stores a queued job. When an unfinished job with the same
	// request, settings and engine exists, it returns that one and
	// existing=true instead of queueing a duplicate.
	CreateJob(ctx context.Context, j Job) (job Job, existing bool, err error)
	// Job returns a job, or ErrNotFound.
	Job(ctx context.Context, id int64) (Job, error)
	// Jobs lists the most recent jobs, newest first.
	Jobs(ctx context.Context, limit int) ([]Job, error)
	// ClaimJob moves the oldest queued job to running and returns it, or
	// ErrNotFound when none is queued.
	ClaimJob(ctx context.Context) (Job, error)
	// SetProgress records a running job's progress.
	SetProgress(ctx context.Context, id int64, p Progress) error
	// FinishJob ends a job in state, with an error message for failures.
	FinishJob(ctx context.Context, id int64, state JobState, errStage, errMsg string) error
	// RequestCancel marks a job for cancellation; a queued job is
	// cancelled at once. A finished job gives ErrConflict.
	RequestCancel(ctx context.Context, id int64) (Job, error)
	// RequeueInterrupted moves running jobs back to queued (at start-up).
	RequeueInterrupted(ctx context.Context) (int, error)

	// SaveRetrieval, SaveNuggets and SaveCandidates store a stage's
	// artefacts, replacing what the job stored before for that stage.
	SaveRetrieval(ctx context.Context, jobID int64, docs []RetrievedDoc) error
	SaveNuggets(ctx context.Context, jobID int64, all []Nugget) error
	SaveCandidates(ctx context.Context, jobID int64, cs []Candidate) error
	// SaveReport stores the report of a job and links it to the job.
	SaveReport(ctx context.Context, jobID int64, r Report) (int64, error)

	Retrieval(ctx context.Context, jobID int64) ([]RetrievedDoc, error)
	Nuggets(ctx context.Context, jobID int64) ([]Nugget, error)
	Candidates(ctx context.Context, jobID int64) ([]Candidate, error)
	// Report returns a stored report with its sentences and nuggets.
	Report(ctx context.Context, id int64) (Report, error)
}

// CapStore is an optional JobStore extension for jobs stopped at a cap.
// The SQLite store implements it.
type CapStore interface {
	// StopJob ends a running job in JobStopped, recording the cap that
	// stopped it (its message is the job's Error, its stage ErrorStage).
	StopJob(ctx context.Context, id int64, cap CapError) error
	// ResumeJob queues a stopped job again under caps, clearing its
	// stop: ErrConflict unless the job is stopped, ErrNotFound for an
	// unknown job.
	ResumeJob(ctx context.Context, id int64, caps Caps) (Job, error)
}

// AuditEntry is one line of the audit log: who did what to what, and
// when. Deletions are recorded there (docs/accounts.md).
type AuditEntry struct {
	ID      int64
	At      time.Time
	Actor   string
	Action  string // "delete-report"
	Subject string // "job 12, report 7"
	Detail  string // what was deleted, in words
}

// ActionDeleteReport is the audit action of a report deletion.
const ActionDeleteReport = "delete-report"

// actorKey keys the acting account's name in a context.
type actorKey struct{}

// WithActor returns ctx naming the account acting, for what the stores
// record (a job's SubmittedBy).
func WithActor(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, actorKey{}, name)
}

// ActorFrom names the account acting in ctx; "" when none is named.
func ActorFrom(ctx context.Context) string {
	name, _ := ctx.Value(actorKey{}).(string)
	return name
}
