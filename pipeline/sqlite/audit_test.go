package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

func TestDeleteJob(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	// CreateJob stores whoever the job says submitted it; the runner
	// takes the name from the context.
	j2, _, err := db.CreateJob(ctx, pipeline.Job{Request: pipeline.Request{ID: "r2", Title: "Other", Limit: 100},
		Settings: pipeline.DefaultSettings(), Engine: "offline engine", SubmittedBy: "alan"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Job(ctx, j2.ID); got.SubmittedBy != "alan" {
		t.Errorf("submitted by %q, want alan", got.SubmittedBy)
	}
	entry := pipeline.AuditEntry{Actor: "ada", Action: pipeline.ActionDeleteReport, Subject: "job 1", Detail: "Tariffs"}
	// A queued job is not deleted: it must be cancelled first.
	if _, err := db.DeleteJob(ctx, j.ID, entry); !errors.Is(err, sqlite.ErrJobUnfinished) || !errors.Is(err, pipeline.ErrConflict) {
		t.Fatalf("deleting a queued job: %v", err)
	}
	if _, err := db.Job(ctx, j.ID); err != nil {
		t.Fatalf("the refused deletion removed the job: %v", err)
	}
	claimed, err := db.ClaimJob(ctx)
	if err != nil || claimed.ID != j.ID {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	r := pipeline.Report{Request: j.Request, RunID: "x", Engine: "offline engine", Settings: j.Settings,
		Sentences: []pipeline.Sentence{{Text: "Lincoln did it.", Citation: pipeline.Citation{DocID: "d1", End: 5}, NuggetID: "n1"}}}
	rid, err := db.SaveReport(ctx, j.ID, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, rid, 0, pipeline.VersionInfo{Author: "alan", Change: "first"}, pipeline.NewDraft(r)); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, j.ID, pipeline.JobDone, "", ""); err != nil {
		t.Fatal(err)
	}
	got, err := db.DeleteJob(ctx, j.ID, entry)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == 0 || got.At.IsZero() {
		t.Errorf("audit entry = %+v, want an id and a time", got)
	}
	if _, err := db.Job(ctx, j.ID); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("job after deletion: %v", err)
	}
	if _, err := db.Report(ctx, rid); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("report after deletion: %v", err)
	}
	if vs, err := db.ReportVersions(ctx, rid); err == nil && len(vs) > 0 {
		t.Errorf("%d versions left after deletion", len(vs))
	}
	// The other job is untouched.
	if _, err := db.Job(ctx, j2.ID); err != nil {
		t.Errorf("the other job: %v", err)
	}
	log, err := db.AuditLog(ctx, 0)
	if err != nil || len(log) != 1 || log[0].Actor != "ada" || log[0].Detail != "Tariffs" || log[0].Action != pipeline.ActionDeleteReport {
		t.Errorf("audit log = %+v, %v", log, err)
	}
	if _, err := db.DeleteJob(ctx, j.ID, entry); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("deleting it again: %v", err)
	}
	if log, _ := db.AuditLog(ctx, 0); len(log) != 1 {
		t.Errorf("a failed deletion was logged: %+v", log)
	}
}
