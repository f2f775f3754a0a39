package sqlite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// A report keeps its latest scorecard; a new one replaces it; it goes
// with its report; stopped jobs keep their caps and stop, and resume.
func TestScorecardsAndStoppedJobs(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, err := db.CreateJob(ctx, pipeline.Job{Request: pipeline.Request{ID: "r", Title: "T", ProblemStatement: "P?", Limit: 500},
		Settings: pipeline.DefaultSettings(), Engine: "openai", Caps: pipeline.Caps{Calls: 200, Time: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Caps != (pipeline.Caps{Calls: 200, Time: time.Minute}) {
		t.Errorf("caps %+v", j.Caps)
	}
	if _, err := db.ClaimJob(ctx); err != nil {
		t.Fatal(err)
	}
	stop := pipeline.CapError{Cap: pipeline.CapCalls, Limit: 200, Stage: "scan"}
	if err := db.StopJob(ctx, j.ID, stop); err != nil {
		t.Fatal(err)
	}
	got, err := db.Job(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != pipeline.JobStopped || got.Stopped == nil || *got.Stopped != stop || got.Error != stop.Error() || got.ErrorStage != "scan" {
		t.Errorf("stopped job %s %+v %q at %q", got.State, got.Stopped, got.Error, got.ErrorStage)
	}
	counts, err := db.JobCounts(ctx)
	if err != nil || counts[pipeline.JobStopped] != 1 || counts[pipeline.JobFailed] != 0 {
		t.Errorf("counts %v (%v), want one stopped", counts, err)
	}
	if err := db.FinishJob(ctx, j.ID, pipeline.JobStopped, "scan", "x"); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("FinishJob(stopped): %v, want ErrInvalid", err)
	}
	resumed, err := db.ResumeJob(ctx, j.ID, pipeline.Caps{Calls: 400})
	if err != nil {
		t.Fatal(err)
	}
	if resumed.State != pipeline.JobQueued || resumed.Stopped != nil || resumed.Error != "" || resumed.Caps != (pipeline.Caps{Calls: 400}) {
		t.Errorf("resumed job %+v", resumed)
	}
	if _, err := db.ResumeJob(ctx, j.ID, pipeline.Caps{Calls: 800}); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("resume a queued job: %v, want ErrConflict", err)
	}

	if _, err := db.Scorecard(ctx, 1); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("no scorecard yet: %v", err)
	}
	if err := db.SaveScorecard(ctx, 99, pipeline.Scorecard{}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("scorecard of no report: %v", err)
	}
	id, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: j.Request, Settings: j.Settings})
	if err != nil {
		t.Fatal(err)
	}
	first := pipeline.Scorecard{Version: 1, ComputedAt: time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC),
		Judge: pipeline.JudgeInfo{Name: "offline", Offline: true}, Independence: pipeline.Independent, CitationSupport: 0.5}
	second := first
	second.Version, second.OnTopic = 2, 0.8
	for _, sc := range []pipeline.Scorecard{first, second} {
		if err := db.SaveScorecard(ctx, id, sc); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := db.Scorecard(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(second, sc); diff != "" {
		t.Errorf("scorecard (-want +got)\n%s", diff)
	}
}
