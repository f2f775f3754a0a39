package views

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestFormatDurations(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"duration zero", formatDuration(0), "0 s"},
		{"duration negative", formatDuration(-time.Second), "0 s"},
		{"duration seconds", formatDuration(59*time.Second + 400*time.Millisecond), "59 s"},
		{"duration rounds up to a minute", formatDuration(59*time.Second + 600*time.Millisecond), "1 min"},
		{"duration minutes and seconds", formatDuration(3*time.Minute + 5*time.Second), "3 min 5 s"},
		{"duration hours", formatDuration(2*time.Hour + 7*time.Minute + 10*time.Second), "2 h 7 min"},
		{"duration whole hours", formatDuration(time.Hour + 20*time.Second), "1 h"},
		{"estimate tiny", formatEstimate(4 * time.Second), "a few seconds"},
		{"estimate seconds", formatEstimate(42 * time.Second), "about 40 s"},
		{"estimate near a minute", formatEstimate(58 * time.Second), "about 1 min"},
		{"estimate minutes", formatEstimate(2*time.Minute + 40*time.Second), "about 3 min"},
		{"estimate hours", formatEstimate(time.Hour + 7*time.Minute), "about 1 h 5 min"},
		{"percent", formatPercent(0.876), "88%"},
		{"percent clamped high", formatPercent(1.7), "100%"},
		{"percent clamped low", formatPercent(-0.2), "0%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestEngineLabelFor(t *testing.T) {
	engines := []pipeline.EngineInfo{
		{ID: "offline", Label: "offline engine", Offline: true},
		{ID: "openai", Label: "Llama-3.3-70B"},
		{ID: "lexical", Label: "Lexical baseline", Offline: true},
	}
	tests := []struct {
		name     string
		engine   string
		want     EngineLabel
		wantText string
	}{
		{name: "by id", engine: "openai", want: EngineLabel{Name: "Llama-3.3-70B"}, wantText: "Llama-3.3-70B"},
		{name: "by label", engine: "offline engine", want: EngineLabel{Name: "offline engine", Offline: true}, wantText: "offline engine"},
		{name: "offline label added", engine: "lexical", want: EngineLabel{Name: "Lexical baseline", Offline: true},
			wantText: "Lexical baseline (offline engine)"},
		{name: "unknown model", engine: "gpt-4o", want: EngineLabel{Name: "gpt-4o"}, wantText: "gpt-4o"},
		{name: "unknown offline", engine: "Offline engine v0", want: EngineLabel{Name: "Offline engine v0", Offline: true},
			wantText: "Offline engine v0"},
		{name: "empty", engine: "", want: EngineLabel{}, wantText: "unknown engine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EngineLabelFor(engines, tt.engine)
			if got != tt.want {
				t.Errorf("EngineLabelFor(%q) = %+v, want %+v", tt.engine, got, tt.want)
			}
			if got.Text() != tt.wantText {
				t.Errorf("Text() = %q, want %q", got.Text(), tt.wantText)
			}
		})
	}
}

func TestNewJobStatusJSON(t *testing.T) {
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	j := pipeline.Job{
		ID: 3, State: pipeline.JobRunning, StartedAt: now.Add(-75 * time.Second),
		Progress: pipeline.Progress{Stage: "merge", Done: 4, Total: 16, Usage: pipeline.Usage{
			Calls: 1500, CacheHits: 20, PromptTokens: 123456, CompletionTokens: 7890,
		}},
	}
	st := NewJobStatus(j, now, StageEstimate{Remaining: 80 * time.Second, Known: true})
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": 3.0, "state": "running", "finished": false, "cancel_requested": false, "stage": "merge",
		"stage_number": 3.0, "stages": 7.0,
		"done": 4.0, "total": 16.0, "calls": 1500.0, "cache_hits": 20.0, "prompt_tokens": 123456.0, "completion_tokens": 7890.0,
		"elapsed_seconds": 75.0, "remaining_seconds": 80.0,
		"text": map[string]any{
			"state": "Running", "stage": "Merging paraphrases", "progress": "4 of 16", "calls": "1,500", "cache_hits": "20",
			"prompt_tokens": "123,456", "completion_tokens": "7,890", "elapsed": "1 min 15 s", "remaining": "this stage, about 1 min",
			"stage_overview": "stage 3 of 7: merge",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status JSON (-want +got):\n%s", diff)
	}
}

func TestNewJobStatusRemaining(t *testing.T) {
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	known := StageEstimate{Remaining: 10 * time.Minute, Known: true}
	tests := []struct {
		name string
		job  pipeline.Job
		est  StageEstimate
		want string
	}{
		{name: "queued", job: pipeline.Job{State: pipeline.JobQueued}, est: known, want: "waiting to start"},
		{name: "running, no estimate", job: pipeline.Job{State: pipeline.JobRunning, Progress: pipeline.Progress{Done: 1, Total: 5}},
			want: "this stage, estimating…"},
		{name: "running, estimate", job: pipeline.Job{State: pipeline.JobRunning, Progress: pipeline.Progress{Done: 1, Total: 5}},
			est: known, want: "this stage, about 10 min"},
		{name: "stage complete", job: pipeline.Job{State: pipeline.JobRunning, Progress: pipeline.Progress{Done: 5, Total: 5}},
			est: known, want: "this stage, almost done"},
		{name: "finished", job: pipeline.Job{State: pipeline.JobDone}, est: known, want: "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewJobStatus(tt.job, now, tt.est)
			if got := st.Text[jobFieldRemaining]; got != tt.want {
				t.Errorf("remaining = %q, want %q", got, tt.want)
			}
			if (st.RemainingSeconds != nil) != (tt.want == "this stage, about 10 min") {
				t.Errorf("remaining_seconds = %v for %q", st.RemainingSeconds, tt.want)
			}
		})
	}
}

func TestReportFormErrorList(t *testing.T) {
	f := ReportForm{Errors: map[string]string{
		"concurrency": "is 0; it must be between 1 and 256",
		"zeta":        "is odd",
		"title":       "is required",
		"alpha":       "is odd too.",
		"retrieve":    "is 0; it must be between 1 and 1000",
	}}
	want := []fieldError{
		{Name: "title", Message: "Title is required.", Shown: true},
		{Name: "retrieve", Message: "Documents retrieved (N) is 0; it must be between 1 and 1000.", Shown: true},
		{Name: "concurrency", Message: "Model calls at once is 0; it must be between 1 and 256.", Shown: true},
		{Name: "alpha", Message: "alpha is odd too."},
		{Name: "zeta", Message: "zeta is odd."},
	}
	if diff := cmp.Diff(want, f.errorList()); diff != "" {
		t.Errorf("errorList (-want +got):\n%s", diff)
	}
}

func TestSettingRowsNameTheRules(t *testing.T) {
	on := true
	s := pipeline.DefaultSettings()
	s.SpreadSources = &on
	got := map[string]string{}
	for _, r := range settingRows(s) {
		got[r.Label] = r.Value
	}
	want := map[string]string{
		"Confidence threshold":                   "calibrated from the run's confidences",
		"Prefer the request's period":            "the engine's default",
		"Score documents by their best passages": "the engine's default",
		"Spread nuggets over documents":          "on",
	}
	for label, v := range want {
		if got[label] != v {
			t.Errorf("%s = %q, want %q", label, got[label], v)
		}
	}
	s.CalibratedThreshold = 0.6123
	if v := thresholdWords(s); v != "calibrated: 0.612" {
		t.Errorf("a run's calibrated threshold reads %q", v)
	}
	s.ConfidenceThreshold = 0.5
	if v := thresholdWords(s); v != "0.5" {
		t.Errorf("a fixed threshold reads %q", v)
	}
}

func TestJobFilterKeepsReviewStatus(t *testing.T) {
	row := JobRow{Job: pipeline.Job{ID: 1, State: pipeline.JobDone, Request: pipeline.Request{Title: "Tariffs", ID: "sotu-01"}},
		ReportStatus: pipeline.StatusInReview}
	for _, tt := range []struct {
		f    JobFilter
		want bool
	}{
		{JobFilter{}, true},
		{JobFilter{Status: pipeline.StatusInReview}, true},
		{JobFilter{Status: pipeline.StatusApproved}, false},
		{JobFilter{Query: "SOTU-01"}, true},
		{JobFilter{State: pipeline.JobFailed}, false},
	} {
		if got := tt.f.Keeps(row); got != tt.want {
			t.Errorf("%+v keeps %v, want %v", tt.f, got, tt.want)
		}
	}
}

func TestJobStages(t *testing.T) {
	verify := pipeline.DefaultSettings()
	verify.Verify = true
	rerank := pipeline.DefaultSettings()
	rerank.Reranker = "lancer"
	both := verify
	both.Reranker = "setr"
	tests := []struct {
		name string
		s    pipeline.Settings
		want []string
	}{
		{"default", pipeline.DefaultSettings(), []string{"retrieve", "ideate", "merge", "rank", "scan", "assemble", "group"}},
		{"verify", verify, []string{"retrieve", "ideate", "merge", "rank", "scan", "verify", "assemble", "group"}},
		{"rerank", rerank, []string{"retrieve", "rerank", "ideate", "merge", "rank", "scan", "assemble", "group"}},
		{"both", both, []string{"retrieve", "rerank", "ideate", "merge", "rank", "scan", "verify", "assemble", "group"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, JobStages(tt.s)); diff != "" {
				t.Errorf("stages (-want +got):\n%s", diff)
			}
			for _, st := range tt.want {
				if stageLabel(st) == st {
					t.Errorf("stage %q has no label on the job page", st)
				}
			}
		})
	}
}

func TestStageOverview(t *testing.T) {
	verify := pipeline.DefaultSettings()
	verify.Verify = true
	job := func(state pipeline.JobState, stage string) pipeline.Job {
		return pipeline.Job{State: state, Settings: pipeline.DefaultSettings(), Progress: pipeline.Progress{Stage: stage}}
	}
	failed := func(stage string) pipeline.Job {
		j := job(pipeline.JobFailed, stage)
		j.ErrorStage = stage
		return j
	}
	withVerify := job(pipeline.JobRunning, "verify")
	withVerify.Settings = verify
	tests := []struct {
		name string
		job  pipeline.Job
		want string
	}{
		{"queued", job(pipeline.JobQueued, ""), "7 stages, not started"},
		{"first stage", job(pipeline.JobRunning, "retrieve"), "stage 1 of 7: retrieve"},
		{"rank", job(pipeline.JobRunning, "rank"), "stage 4 of 7: rank"},
		{"last stage", job(pipeline.JobRunning, "group"), "stage 7 of 7: group"},
		{"verifying", withVerify, "stage 6 of 8: verify"},
		{"running, no stage yet", job(pipeline.JobRunning, ""), "7 stages, starting"},
		{"done", job(pipeline.JobDone, "group"), "all 7 stages done"},
		{"failed in a stage", failed("scan"), "failed at stage 5 of 7: scan"},
		{"failed at the start", failed("start"), "failed before stage 1 of 7"},
		{"cancelled in a stage", job(pipeline.JobCancelled, "merge"), "cancelled at stage 3 of 7: merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stageOverview(tt.job, JobStages(tt.job.Settings)); got != tt.want {
				t.Errorf("overview %q, want %q", got, tt.want)
			}
		})
	}
}
