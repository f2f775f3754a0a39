package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// TestReportProblemsRoundTrip: what a run had to tell a report's readers
// (Report.Problems) is stored with the report and read back, also once
// the report has versions; a report without problems reads as none.
func TestReportProblemsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	problems := []string{
		"subject: only 4 of the request's 100 best passages speak of its subject",
		`assemble: none of the 9 candidate sentences cites one of the request's 100 best passages; the report is empty`,
	}
	id, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: j.Request, Settings: j.Settings, Problems: problems})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(problems, got.Problems); diff != "" {
		t.Errorf("problems (-want +got)\n%s", diff)
	}
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, pipeline.NewDraft(got)); err != nil {
		t.Fatal(err)
	}
	if got, err = db.Report(ctx, id); err != nil || !cmp.Equal(problems, got.Problems) {
		t.Errorf("report read as its newest version: problems %q (%v)", got.Problems, err)
	}
	// The problems alone, as the job list and the job page read them.
	if got, err := db.ReportProblems(ctx, id); err != nil || !cmp.Equal(problems, got) {
		t.Errorf("ReportProblems(%d) = %q, %v; want %q", id, got, err, problems)
	}

	j2, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	plainID, err := db.SaveReport(ctx, j2.ID, pipeline.Report{Request: j2.Request, Settings: j2.Settings})
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := db.Report(ctx, plainID); err != nil || plain.Problems != nil {
		t.Errorf("report without problems: %q (%v)", plain.Problems, err)
	}
	if got, err := db.ReportProblems(ctx, plainID); err != nil || got != nil {
		t.Errorf("ReportProblems of a report without problems = %q, %v; want nil", got, err)
	}
	if _, err := db.ReportProblems(ctx, plainID+100); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ReportProblems of an unknown report: %v, want ErrNotFound", err)
	}
}

// TestReportProblemsUnreadable: problems that are no JSON array give an
// error naming the report, not an empty list.
func TestReportProblemsUnreadable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: j.Request, Settings: j.Settings, Problems: []string{"subject: few"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `UPDATE reports SET problems = '{broken' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("problems of report %d", id)
	if got, err := db.ReportProblems(ctx, id); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReportProblems of unreadable problems = %q, %v; want an error %q", got, err, want)
	}
}
