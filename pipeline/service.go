package pipeline

import "context"

// EngineInfo describes an engine a report can be made with.
type EngineInfo struct {
	ID      string // "offline" or "openai"
	Label   string // shown in the UI and exports: "offline engine", a model name
	Offline bool
	// Defaults are the engine's rules where a request's settings leave
	// them to it (Settings.Heuristics).
	Defaults Heuristics
	// Prices are what the engine's endpoint charges for tokens (set by
	// the operator); zero when not known, and for the offline engine.
	Prices Prices
}

// ReportService queues and controls report jobs. The web pages and the
// CLI use it; reading jobs and reports goes through JobStore.
type ReportService interface {
	// Engines lists the engines available, the default first.
	Engines() []EngineInfo
	// Submit validates and queues a report job. Submitting a request that
	// is already queued or running with the same settings and engine
	// returns that job with existing=true. Bad input gives FieldErrors.
	Submit(ctx context.Context, req Request, s Settings, engine string) (job Job, existing bool, err error)
	// Cancel stops a queued or running job (ErrConflict when finished).
	Cancel(ctx context.Context, id int64) (Job, error)
}
