package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

func newJob() pipeline.Job {
	return pipeline.Job{
		Request:  pipeline.Request{ID: "r1", Title: "Tariffs", ProblemStatement: "How did tariffs change?", Limit: 1000},
		Settings: pipeline.DefaultSettings(),
		Engine:   "offline engine",
	}
}

func TestJobLifecycle(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, existing, err := db.CreateJob(ctx, newJob())
	if err != nil || existing {
		t.Fatalf("create: %v existing=%v", err, existing)
	}
	if j.ID == 0 || j.State != pipeline.JobQueued || j.Request.Title != "Tariffs" || j.CreatedAt.IsZero() {
		t.Fatalf("created job = %+v", j)
	}
	// Submitting the same request twice returns the unfinished job.
	again, existing, err := db.CreateJob(ctx, newJob())
	if err != nil || !existing || again.ID != j.ID {
		t.Errorf("duplicate submission: id %d existing %v err %v", again.ID, existing, err)
	}
	// Another engine is another job.
	other := newJob()
	other.Engine = "gpt"
	o, existing, _ := db.CreateJob(ctx, other)
	if existing || o.ID == j.ID {
		t.Errorf("different engine reused job %d", o.ID)
	}

	claimed, err := db.ClaimJob(ctx)
	if err != nil || claimed.ID != j.ID || claimed.State != pipeline.JobRunning || claimed.StartedAt.IsZero() {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	p := pipeline.Progress{Stage: "scan", Done: 3, Total: 10, Usage: pipeline.Usage{Calls: 5, CacheHits: 2, PromptTokens: 100, CompletionTokens: 10}}
	if err := db.SetProgress(ctx, j.ID, p); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Job(ctx, j.ID)
	if diff := cmp.Diff(p, got.Progress); diff != "" {
		t.Errorf("progress (-want +got)\n%s", diff)
	}

	// A restart requeues the running job.
	if n, err := db.RequeueInterrupted(ctx); err != nil || n != 1 {
		t.Errorf("requeue: %d %v", n, err)
	}
	claimed, _ = db.ClaimJob(ctx)
	if claimed.ID != j.ID {
		t.Errorf("requeued job not claimed first: %d", claimed.ID)
	}
	if err := db.FinishJob(ctx, j.ID, pipeline.JobFailed, "scan", "model endpoint down"); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Job(ctx, j.ID)
	if got.State != pipeline.JobFailed || got.ErrorStage != "scan" || got.Error != "model endpoint down" || got.FinishedAt.IsZero() {
		t.Errorf("finished job = %+v", got)
	}
	if _, err := db.RequestCancel(ctx, j.ID); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("cancel a finished job: err = %v, want ErrConflict", err)
	}
	// Cancelling a queued job ends it at once.
	c, err := db.RequestCancel(ctx, o.ID)
	if err != nil || c.State != pipeline.JobCancelled || !c.CancelRequested {
		t.Errorf("cancel queued: %+v %v", c, err)
	}
	if _, err := db.ClaimJob(ctx); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("claim with nothing queued: err = %v", err)
	}
	if _, err := db.Job(ctx, 999); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("missing job: err = %v", err)
	}
	if err := db.FinishJob(ctx, j.ID, pipeline.JobRunning, "", ""); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("finish in a non-final state: err = %v", err)
	}
	jobs, err := db.Jobs(ctx, 10)
	if err != nil || len(jobs) != 2 || jobs[0].ID != o.ID {
		t.Errorf("jobs newest first: %v %v", jobs, err)
	}
}

func TestCancelRunningJobSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, _ := db.CreateJob(ctx, newJob())
	db.ClaimJob(ctx)
	c, err := db.RequestCancel(ctx, j.ID)
	if err != nil || c.State != pipeline.JobRunning || !c.CancelRequested {
		t.Fatalf("cancel running: %+v %v", c, err)
	}
	db.RequeueInterrupted(ctx)
	got, _ := db.Job(ctx, j.ID)
	if got.State != pipeline.JobCancelled {
		t.Errorf("a job cancelled while running was resumed after restart: %s", got.State)
	}
}

func TestArtefactsAndReport(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, _ := db.CreateJob(ctx, newJob())
	ret := []pipeline.RetrievedDoc{{Rank: 1, DocID: "a", Title: "A", Score: 3.5, Ordinal: 2}, {Rank: 2, DocID: "b", Score: 1}}
	if err := db.SaveRetrieval(ctx, j.ID, ret); err != nil {
		t.Fatal(err)
	}
	ns := []pipeline.Nugget{
		{ID: "n1", Question: "Who?", Answer: "Lincoln", Sources: []string{"a"}, Paraphrases: []string{"n3"}, Popularity: 2,
			Features: map[string]float64{"task": 0.8}, QualityScore: 0.5, Rank: 1},
		{ID: "n2", Question: "When?", Answer: "1862", Sources: []string{"b"}, Popularity: 1, Rank: 0},
	}
	if err := db.SaveNuggets(ctx, j.ID, ns); err != nil {
		t.Fatal(err)
	}
	cs := []pipeline.Candidate{{NuggetID: "n1", Sentence: "Lincoln did it.", Support: "Lincoln", Citation: pipeline.Citation{DocID: "a", Ordinal: 2, Start: 10, End: 17},
		Confidence: 0.9, Supported: pipeline.VerdictYes}}
	if err := db.SaveCandidates(ctx, j.ID, cs); err != nil {
		t.Fatal(err)
	}
	// Saving again replaces.
	if err := db.SaveRetrieval(ctx, j.ID, ret[:1]); err != nil {
		t.Fatal(err)
	}
	gotRet, _ := db.Retrieval(ctx, j.ID)
	if diff := cmp.Diff(ret[:1], gotRet); diff != "" {
		t.Errorf("retrieval (-want +got)\n%s", diff)
	}
	gotNs, _ := db.Nuggets(ctx, j.ID)
	if diff := cmp.Diff(ns, gotNs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("nuggets (-want +got)\n%s", diff)
	}
	gotCs, _ := db.Candidates(ctx, j.ID)
	if diff := cmp.Diff(cs, gotCs); diff != "" {
		t.Errorf("candidates (-want +got)\n%s", diff)
	}

	r := pipeline.Report{Request: j.Request, RunID: "crucible-offline", Engine: "offline engine", Settings: j.Settings,
		Sentences:          []pipeline.Sentence{{Text: "Lincoln did it.", Citation: cs[0].Citation, NuggetID: "n1", Confidence: 0.9, Supported: pipeline.VerdictYes}},
		DroppedUnsupported: 3}
	id, err := db.SaveReport(ctx, j.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Sentences, got.Sentences); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}
	if got.DroppedUnsupported != 3 {
		t.Errorf("dropped as unsupported: %d, want 3", got.DroppedUnsupported)
	}
	if len(got.Nuggets) != 1 || got.Nuggets[0].ID != "n1" || got.Request.Title != "Tariffs" || got.CreatedAt.IsZero() {
		t.Errorf("report = %+v", got)
	}
	if got, err := db.ReportJob(ctx, id); err != nil || got != j.ID {
		t.Errorf("ReportJob = %d, %v; want %d", got, err, j.ID)
	}
	if _, err := db.ReportJob(ctx, id+100); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ReportJob of a missing report: err = %v", err)
	}
	job, _ := db.Job(ctx, j.ID)
	if job.ReportID != id {
		t.Errorf("job report id = %d, want %d", job.ReportID, id)
	}
	if _, err := db.Report(ctx, id+100); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("missing report: err = %v", err)
	}
	// NaN features are refused with a clear error, not stored or a panic.
	bad := []pipeline.Nugget{{ID: "x", Features: map[string]float64{"task": math.NaN()}}}
	if err := db.SaveNuggets(ctx, j.ID, bad); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("NaN feature: err = %v", err)
	}
	if gotNs, _ := db.Nuggets(ctx, j.ID); len(gotNs) != 2 {
		t.Errorf("a refused save lost the stored nuggets: %d left", len(gotNs))
	}
}

// TestDroppedUnsupportedBackfill: migration 0010 gives the reports stored
// before it the number of their job's candidates of kept nuggets that
// failed a check.
func TestDroppedUnsupportedBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	j, _, _ := db.CreateJob(ctx, newJob())
	if err := db.SaveNuggets(ctx, j.ID, []pipeline.Nugget{{ID: "n1", Rank: 1, Popularity: 1}, {ID: "n2", Popularity: 1}}); err != nil {
		t.Fatal(err)
	}
	cit := pipeline.Citation{DocID: "a", End: 4}
	no, yes := pipeline.VerdictNo, pipeline.VerdictYes
	if err := db.SaveCandidates(ctx, j.ID, []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "Fails support.", Citation: cit, Supported: no, Covers: yes},
		{NuggetID: "n1", Sentence: "Fails coverage.", Citation: cit, Supported: yes, Covers: no},
		{NuggetID: "n1", Sentence: "Passes.", Citation: cit, Supported: yes, Covers: yes},
		{NuggetID: "n1", Sentence: "Never checked.", Citation: cit},
		{NuggetID: "n2", Sentence: "Below the cut.", Citation: cit, Supported: no},
	}); err != nil {
		t.Fatal(err)
	}
	id, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: j.Request, Settings: j.Settings})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	// Make the database as it was before migration 0010.
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE reports DROP COLUMN dropped_unsupported`,
		`DELETE FROM schema_migrations WHERE name = '0010_report_dropped_unsupported.sql'`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.DroppedUnsupported != 2 {
		t.Errorf("backfilled dropped as unsupported: %d, want 2", got.DroppedUnsupported)
	}
}
