package views

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// Names of the live values of a job page. Each is the data-field attribute
// of the element showing the value and a key of JobStatus.Text, so
// static/assets/job.js can update the page from the event stream without
// knowing what the values mean.
const (
	jobFieldState            = "state"
	jobFieldStage            = "stage"
	jobFieldStageOverview    = "stage_overview"
	jobFieldProgress         = "progress"
	jobFieldCalls            = "calls"
	jobFieldCacheHits        = "cache_hits"
	jobFieldPromptTokens     = "prompt_tokens"
	jobFieldCompletionTokens = "completion_tokens"
	jobFieldElapsed          = "elapsed"
	jobFieldRemaining        = "remaining"
)

// StageEstimate is the estimated time left in a running job's current
// stage. Known is false until there is something to estimate from.
type StageEstimate struct {
	Remaining time.Duration
	Known     bool
}

// JobStatus is a job's progress as its page shows it. The job's event
// stream sends it as JSON; Text holds the display strings by live-value
// name (see the jobField constants), the other fields the raw values.
type JobStatus struct {
	ID              int64             `json:"id"`
	State           pipeline.JobState `json:"state"`
	Finished        bool              `json:"finished"`
	CancelRequested bool              `json:"cancel_requested"`
	Stage           string            `json:"stage"`
	// StageNumber is the current stage's place among the run's Stages
	// (from 1); 0 when it has none (queued, finished, not started).
	StageNumber      int   `json:"stage_number"`
	Stages           int   `json:"stages"`
	Done             int   `json:"done"`
	Total            int   `json:"total"`
	Calls            int   `json:"calls"`
	CacheHits        int   `json:"cache_hits"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	ElapsedSeconds   int64 `json:"elapsed_seconds"`
	// RemainingSeconds estimates the time left in the current stage; nil
	// when there is no estimate.
	RemainingSeconds *int64 `json:"remaining_seconds,omitempty"`
	// ReportURL links to the report once the job is done.
	ReportURL string            `json:"report_url,omitempty"`
	Text      map[string]string `json:"text"`
}

// NewJobStatus describes job j at time now, with est the estimate of the
// time left in its current stage.
//
// Elapsed time runs from StartedAt to now, or to FinishedAt once the job
// has finished. The remaining time covers the current stage only: the job
// reports progress per stage, and later stages' sizes are not known yet.
func NewJobStatus(j pipeline.Job, now time.Time, est StageEstimate) JobStatus {
	p := j.Progress
	st := JobStatus{
		ID:               j.ID,
		State:            j.State,
		Finished:         j.State.Finished(),
		CancelRequested:  j.CancelRequested,
		Stage:            p.Stage,
		Done:             p.Done,
		Total:            p.Total,
		Calls:            p.Usage.Calls,
		CacheHits:        p.Usage.CacheHits,
		PromptTokens:     p.Usage.PromptTokens,
		CompletionTokens: p.Usage.CompletionTokens,
	}
	if j.State == pipeline.JobDone && j.ReportID > 0 {
		st.ReportURL = ReportURL(j.ReportID)
	}
	stages := JobStages(j.Settings)
	st.Stages = len(stages)
	if j.State == pipeline.JobRunning {
		st.StageNumber = slices.Index(stages, p.Stage) + 1
	}
	elapsed, elapsedText := jobElapsed(j, now)
	st.ElapsedSeconds = int64(elapsed / time.Second)
	remainingText := "—"
	switch {
	case j.State == pipeline.JobQueued:
		remainingText = "waiting to start"
	case j.State != pipeline.JobRunning:
	case p.Total > 0 && p.Done >= p.Total:
		remainingText = "this stage, almost done"
	case est.Known:
		secs := int64(est.Remaining / time.Second)
		st.RemainingSeconds = &secs
		remainingText = "this stage, " + formatEstimate(est.Remaining)
	default:
		remainingText = "this stage, estimating…"
	}
	st.Text = map[string]string{
		jobFieldState:            jobStateLabel(j),
		jobFieldStage:            stageLabel(p.Stage),
		jobFieldStageOverview:    stageOverview(j, stages),
		jobFieldProgress:         progressText(p),
		jobFieldCalls:            formatCount(p.Usage.Calls),
		jobFieldCacheHits:        formatCount(p.Usage.CacheHits),
		jobFieldPromptTokens:     formatCount(p.Usage.PromptTokens),
		jobFieldCompletionTokens: formatCount(p.Usage.CompletionTokens),
		jobFieldElapsed:          elapsedText,
		jobFieldRemaining:        remainingText,
	}
	return st
}

// jobElapsed is how long the job has run (or ran) and how the page says so.
func jobElapsed(j pipeline.Job, now time.Time) (time.Duration, string) {
	if j.StartedAt.IsZero() {
		if j.State.Finished() {
			return 0, "did not start"
		}
		return 0, "not started"
	}
	end := now
	if j.State.Finished() && !j.FinishedAt.IsZero() {
		end = j.FinishedAt
	}
	d := max(end.Sub(j.StartedAt), 0)
	return d, formatDuration(d)
}

// jobStateLabel names a job's state for people.
func jobStateLabel(j pipeline.Job) string {
	switch j.State {
	case pipeline.JobQueued:
		if j.CancelRequested {
			return "Cancelling"
		}
		return "Queued"
	case pipeline.JobRunning:
		if j.CancelRequested {
			return "Cancelling"
		}
		return "Running"
	case pipeline.JobDone:
		return "Done"
	case pipeline.JobFailed:
		return "Failed"
	case pipeline.JobCancelled:
		return "Cancelled"
	case pipeline.JobStopped:
		return "Stopped at a cap"
	}
	return string(j.State)
}

// stageLabels describe the pipeline's stages (pipeline/crucible's stage
// names) on the job page.
var stageLabels = map[string]string{
	"retrieve": "Retrieving documents",
	"rerank":   "Reranking documents",
	"ideate":   "Drafting nuggets",
	"merge":    "Merging paraphrases",
	"rank":     "Ranking nuggets",
	"scan":     "Scanning passages",
	"verify":   "Verifying sentences",
	"assemble": "Assembling the report",
	"group":    "Grouping sentences under the request's facets",
}

// JobStages lists the stages a run with settings s goes through, in
// order, by pipeline/crucible's stage names: rerank only with a reranker,
// verify only when verifying. (TestJobStagesAsRun in web compares it with
// the stages a job reports as it runs.)
func JobStages(s pipeline.Settings) []string {
	stages := make([]string, 0, 9)
	stages = append(stages, "retrieve")
	if s.Reranker != "" {
		stages = append(stages, "rerank")
	}
	stages = append(stages, "ideate", "merge", "rank", "scan")
	if s.Verify {
		stages = append(stages, "verify")
	}
	return append(stages, "assemble", "group")
}

// stageOverview places a job among its run's stages: "stage 4 of 7:
// rank" while it runs, "7 stages, not started" while it waits, "all 7
// stages done" once done, and where a failed or cancelled job stopped.
// A stage the run does not list (a failure before it started) gives the
// count alone.
func stageOverview(j pipeline.Job, stages []string) string {
	n := strconv.Itoa(len(stages))
	at := func(stage string) string {
		if i := slices.Index(stages, stage); i >= 0 {
			return "stage " + strconv.Itoa(i+1) + " of " + n + ": " + stage
		}
		return ""
	}
	switch j.State {
	case pipeline.JobQueued:
		return n + " stages, not started"
	case pipeline.JobRunning:
		if s := at(j.Progress.Stage); s != "" {
			return s
		}
		return n + " stages, starting"
	case pipeline.JobDone:
		return "all " + n + " stages done"
	case pipeline.JobFailed:
		if s := at(j.ErrorStage); s != "" {
			return "failed at " + s
		}
		return "failed before stage 1 of " + n
	case pipeline.JobCancelled:
		if s := at(j.Progress.Stage); s != "" {
			return "cancelled at " + s
		}
		return "cancelled before stage 1 of " + n
	case pipeline.JobStopped:
		if s := at(j.ErrorStage); s != "" {
			return "stopped at " + s
		}
		return "stopped before stage 1 of " + n
	}
	return ""
}

// stageLabel describes a stage; unknown stages keep their name and no
// stage yet reads "—".
func stageLabel(stage string) string {
	if stage == "" {
		return "—"
	}
	if l, ok := stageLabels[stage]; ok {
		return l
	}
	return stage
}

// progressText is the stage's progress in words: "3 of 10".
func progressText(p pipeline.Progress) string {
	if p.Total <= 0 {
		return "—"
	}
	return formatCount(p.Done) + " of " + formatCount(p.Total)
}

// JobPage is the view model of a job's progress page.
type JobPage struct {
	Site   Site
	Job    pipeline.Job
	Status JobStatus
	Engine EngineLabel
	// Existing is set when the user's submission matched this job, which
	// was already queued or running.
	Existing bool
	// Notice tells the user about an action that could not be done.
	Notice string
	// ScriptURL is job.js, which keeps the page's numbers live.
	ScriptURL string
	// Prices are the job's engine's, for its usage in money (none: not
	// shown).
	Prices pipeline.Prices
	// CanResume is set when the portal resumes stopped jobs (with higher
	// caps); ServerCaps are the portal's caps, the most a job may have.
	CanResume  bool
	ServerCaps pipeline.Caps
	// ResumeValues and ResumeErrors are the resume form's values and,
	// after a refused resume, what was wrong, by field.
	ResumeValues map[string]string
	ResumeErrors map[string]string
	// Notes are what the run that made the job's report had to tell its
	// readers (pipeline.Report.Problems), shown beside the link to it.
	Notes []pipeline.RunNote
}

// cost is the job's usage in money, "" without prices.
func (p JobPage) cost() string { return jobCost(p.Job.Progress.Usage, p.Prices) }

// stagesText lists the run's stages in words: "retrieve, ideate, merge,
// rank, scan, assemble and group".
func (p JobPage) stagesText() string {
	stages := JobStages(p.Job.Settings)
	if len(stages) < 2 {
		return strings.Join(stages, "")
	}
	return strings.Join(stages[:len(stages)-1], ", ") + " and " + stages[len(stages)-1]
}

// live reports whether the page follows the job as it runs: until the job
// finishes.
func (p JobPage) live() bool {
	return !p.Job.State.Finished()
}

// eventsURL is the job's event stream, "" once the job has finished.
func (p JobPage) eventsURL() string {
	if !p.live() {
		return ""
	}
	return JobEventsURL(p.Job.ID)
}

// canCancel reports whether the page offers the cancel button: while the
// job is unfinished and no cancellation is pending.
func (p JobPage) canCancel() bool {
	return p.live() && !p.Job.CancelRequested
}

// progressMax and progressValue are the <progress> element's attributes;
// the bar is indeterminate (no value) while the stage has no total.
func (s JobStatus) progressMax() string {
	return strconv.Itoa(max(s.Total, 1))
}

func (s JobStatus) progressValue() string {
	return strconv.Itoa(min(max(s.Done, 0), max(s.Total, 1)))
}

// jobTitle is what pages call a job: its request's title, or its number.
func jobTitle(j pipeline.Job) string {
	if j.Request.Title != "" {
		return j.Request.Title
	}
	return "Job " + strconv.FormatInt(j.ID, 10)
}

// JobsPage is the view model of the list of recent jobs.
type JobsPage struct {
	Site Site
	Jobs []JobRow
	// Matching is how many jobs the filter kept (Jobs shows at most
	// Limit of them).
	Matching int
	// Limit is how many jobs the list shows at most.
	Limit  int
	Filter JobFilter
	// Statuses is set when rows carry their report's review status.
	Statuses bool
	// Deleted is the job just deleted, for the notice; 0 for none.
	Deleted int64
}

// JobRow is one job of the list.
type JobRow struct {
	Job    pipeline.Job
	Status JobStatus
	Engine EngineLabel
	// ReportStatus is the report's review status; "" when the job made no
	// report or statuses are not known.
	ReportStatus pipeline.ReportStatus
	// Notes are the notes of the run that made the report (see
	// JobPage.Notes); the list marks a report that has any.
	Notes []pipeline.RunNote
}

// notesMark is the list's marker for a report with run notes ("1 note
// from the run"); "" for none.
func (r JobRow) notesMark() string {
	if len(r.Notes) == 0 {
		return ""
	}
	return plural(len(r.Notes), "1 note", strconv.Itoa(len(r.Notes))+" notes") + " from the run"
}

// notesTitle is the marker's tooltip: the notes' texts, one per line.
func (r JobRow) notesTitle() string {
	texts := make([]string, len(r.Notes))
	for i, n := range r.Notes {
		texts[i] = n.Text
		if n.Stage != "" {
			texts[i] = n.Stage + ": " + n.Text
		}
	}
	return strings.Join(texts, "\n")
}

// Query parameters of the job list.
const (
	ParamJobQuery  = "q"
	ParamJobState  = "state"
	ParamJobStatus = "status"
	ParamJobSort   = "sort"
)

// Orders of the job list.
const (
	SortNewest = ""
	SortOldest = "oldest"
	SortTitle  = "title"
)

// JobFilter is what the job list is narrowed to and ordered by.
type JobFilter struct {
	// Query must appear in the request's title, problem statement or id
	// (any case); "" keeps every job.
	Query string
	// State and Status keep the jobs in that state and the reports in that
	// review status; "" keeps all.
	State  pipeline.JobState
	Status pipeline.ReportStatus
	// Sort is SortNewest, SortOldest or SortTitle.
	Sort string
}

// Active reports whether the filter narrows or reorders the list.
func (f JobFilter) Active() bool {
	return f.Query != "" || f.State != "" || f.Status != "" || f.Sort != SortNewest
}

// Keeps reports whether a row passes the filter.
func (f JobFilter) Keeps(r JobRow) bool {
	if f.State != "" && r.Job.State != f.State {
		return false
	}
	if f.Status != "" && r.ReportStatus != f.Status {
		return false
	}
	if f.Query != "" {
		q := strings.ToLower(f.Query)
		in := strings.ToLower(r.Job.Request.Title + "\n" + r.Job.Request.ProblemStatement + "\n" + r.Job.Request.ID)
		if !strings.Contains(in, q) {
			return false
		}
	}
	return true
}

// Order sorts rows (given newest first) as the filter says.
func (f JobFilter) Order(rows []JobRow) {
	switch f.Sort {
	case SortOldest:
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Job.ID < rows[j].Job.ID })
	case SortTitle:
		sort.SliceStable(rows, func(i, j int) bool {
			return strings.ToLower(jobTitle(rows[i].Job)) < strings.ToLower(jobTitle(rows[j].Job))
		})
	}
}

// jobStates and reportStatuses are the filter's choices.
var (
	jobStates      = pipeline.JobStates()
	reportStatuses = []pipeline.ReportStatus{pipeline.StatusDraft, pipeline.StatusInReview, pipeline.StatusApproved}
)

// thresholdWords words the scan's confidence threshold: a fixed one, or
// the one the run set from its own confidences.
func thresholdWords(s pipeline.Settings) string {
	switch {
	case s.ConfidenceThreshold > 0:
		return strconv.FormatFloat(s.ConfidenceThreshold, 'g', -1, 64)
	case s.CalibratedThreshold > 0:
		return "calibrated: " + strconv.FormatFloat(s.CalibratedThreshold, 'f', 3, 64)
	}
	return "calibrated from the run's confidences"
}

// yesNo words a flag.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// settingRow is one row of a settings table.
type settingRow struct {
	Label string
	Value string
}

// settingRows lists settings with the new-report form's labels.
func settingRows(s pipeline.Settings) []settingRow {
	rows := []settingRow{
		{Label: fieldLabel(FieldRetrieve), Value: strconv.Itoa(s.Retrieve)},
		{Label: fieldLabel(FieldIdeationDocs), Value: strconv.Itoa(s.IdeationDocs)},
		{Label: fieldLabel(FieldNuggetsPerDoc), Value: strconv.Itoa(s.NuggetsPerDoc)},
		{Label: fieldLabel(FieldTargetNuggets), Value: strconv.Itoa(s.TargetNuggets)},
		{Label: fieldLabel(FieldKeepNuggets), Value: strconv.Itoa(s.KeepNuggets)},
		{Label: fieldLabel(FieldScanCandidates), Value: strconv.Itoa(s.ScanCandidates)},
		{Label: fieldLabel(FieldConfidenceThreshold), Value: thresholdWords(s)},
		{Label: fieldLabel(FieldSentencesPerNugget), Value: strconv.Itoa(s.SentencesPerNugget)},
		{Label: fieldLabel(FieldConcurrency), Value: strconv.Itoa(s.Concurrency)},
		{Label: fieldLabel(FieldVerify), Value: yesNo(s.Verify)},
		{Label: fieldLabel(FieldFullScan), Value: yesNo(s.FullScan)},
	}
	for _, f := range ruleFields {
		v := SwitchValue(f.Setting(s))
		if v == "" {
			v = "the engine's default"
		}
		rows = append(rows, settingRow{Label: f.Label, Value: v})
	}
	return rows
}
