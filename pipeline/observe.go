package pipeline

import (
	"context"
	"sync/atomic"
	"time"
)

// This file holds what the pipeline and its adapters tell an operator's
// metrics (pipeline/metrics implements the observers with Prometheus
// collectors; docs/operations.md lists the metrics). The domain knows
// nothing of how observations are kept: each consumer takes the small
// observer interface it reports to, and a nil observer reports nothing.
//
// Observers are called on hot paths (every model call, every search) and
// from many goroutines: implementations must be safe for concurrent use
// and quick. Every string they are given comes from code (engine ids,
// task kinds, stage names, states), never from users, so metric labels
// made of them stay few.

// ModelCall is one call of a model through the cache (llm.Cached), as an
// operator counts it.
type ModelCall struct {
	// Engine names the engine that answered ("offline", "openai").
	Engine string
	// Task is the request's task kind.
	Task Task
	// Stage is the pipeline stage the call was made in (StageFrom); ""
	// for calls made outside a report job (authoring, evaluation).
	Stage string
	// Cached is set when the answer was replayed from the cache.
	Cached bool
	// Err is why the call failed; nil when it was answered.
	Err error
	// Retries counts the attempts the endpoint client repeated (NoteRetry).
	Retries int
	// PromptTokens and CompletionTokens are the answer's token counts
	// (those of the original call for a cache hit).
	PromptTokens     int
	CompletionTokens int
	// Elapsed is how long the call took, the cache's lookup included.
	Elapsed time.Duration
}

// ModelObserver hears every model call llm.Cached answers or fails.
type ModelObserver interface {
	ModelCall(c ModelCall)
}

// JobObserver hears how report jobs run (jobs.Runner). Engine is the job's
// engine id.
type JobObserver interface {
	// JobStarted is called when a worker starts a job.
	JobStarted(engine string)
	// StageDone is called when a job's stage has ended and the next one
	// begun, or the job finished after it; elapsed is the stage's wall
	// time. A stage a job failed in or was stopped in is not reported.
	StageDone(engine, stage string, elapsed time.Duration)
	// JobEnded is called once for every JobStarted: state is the job's
	// final state, or JobQueued when a shutdown interrupted it (it resumes
	// at the next start); elapsed is the run's wall time.
	JobEnded(engine string, state JobState, elapsed time.Duration)
}

// IngestCounts is what one ingest stored: documents added, replaced and
// found unchanged, records skipped as bad, passages written.
type IngestCounts struct {
	Added     int
	Replaced  int
	Unchanged int
	Skipped   int
	Passages  int
}

// IngestObserver hears about ingests into the serving collection.
type IngestObserver interface {
	// UploadReceived is called when an administrator's corpus upload is
	// queued, with its number of files and bytes.
	UploadReceived(files int, bytes int64)
	// Ingested is called when an ingest ends: source says which
	// ("upload", "seed"), state how it ended ("done", "failed"), counts
	// what it stored in this process (a resumed upload counts the rest).
	Ingested(source, state string, counts IngestCounts)
}

// stageKey keys a run's *StageNote in a context.
type stageKey struct{}

// StageNote holds the stage a report run is in, for the observers of the
// calls the run makes: the job runner updates it as the run moves on, the
// model cache reads it. Safe for concurrent use.
type StageNote struct{ stage atomic.Pointer[string] }

// Set records the stage the run has entered.
func (n *StageNote) Set(stage string) { n.stage.Store(&stage) }

// Stage is the stage last Set; "" before any.
func (n *StageNote) Stage() string {
	if s := n.stage.Load(); s != nil {
		return *s
	}
	return ""
}

// WithStageNote returns ctx carrying n, which StageFrom reads.
func WithStageNote(ctx context.Context, n *StageNote) context.Context {
	return context.WithValue(ctx, stageKey{}, n)
}

// StageFrom is the stage of the run ctx belongs to; "" outside one.
func StageFrom(ctx context.Context) string {
	if n, _ := ctx.Value(stageKey{}).(*StageNote); n != nil {
		return n.Stage()
	}
	return ""
}

// callKey keys a call's *CallNotes in a context.
type callKey struct{}

// CallNotes gathers what the layers beneath a model call learn about it
// that its answer does not carry: how many attempts the endpoint client
// repeated, even when the call failed in the end. Safe for concurrent use.
type CallNotes struct{ retries atomic.Int64 }

// WithCallNotes returns ctx carrying new notes for one call.
func WithCallNotes(ctx context.Context) (context.Context, *CallNotes) {
	n := &CallNotes{}
	return context.WithValue(ctx, callKey{}, n), n
}

// NoteRetry records, in the notes ctx carries (if any), that the call is
// being retried.
func NoteRetry(ctx context.Context) {
	if n, _ := ctx.Value(callKey{}).(*CallNotes); n != nil {
		n.retries.Add(1)
	}
}

// Retries is how many retries were noted.
func (n *CallNotes) Retries() int { return int(n.retries.Load()) }
