package sqlite_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// storedReport saves a job with two kept nuggets and one below the cut,
// and its two-sentence report; it returns the report id.
func storedReport(t *testing.T, db *sqlite.DB) (int64, pipeline.Report) {
	t.Helper()
	ctx := context.Background()
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	nuggets := []pipeline.Nugget{
		{ID: "n1.1", Question: "Who raised tariffs?", Answer: "Congress", Sources: []string{"d1"}, Popularity: 2,
			Paraphrases: []string{"n2.1"}, Features: map[string]float64{"task": 0.5}, QualityScore: 0.7, Rank: 1},
		{ID: "n2.2", Question: "When?", Answer: "1890", Sources: []string{"d2"}, Popularity: 1, Rank: 2},
		{ID: "n3.1", Question: "Cut?", Answer: "no", Popularity: 1, Rank: 0},
	}
	if err := db.SaveNuggets(ctx, j.ID, nuggets); err != nil {
		t.Fatal(err)
	}
	rep := pipeline.Report{
		Request: newJob().Request, RunID: "crucible-offline-engine", Engine: "offline engine", Settings: pipeline.DefaultSettings(),
		Sentences: []pipeline.Sentence{
			{Text: "Congress raised tariffs.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 24}, NuggetID: "n1.1", Confidence: 0.9, Supported: pipeline.VerdictYes},
			{Text: "It did so in 1890.", Citation: pipeline.Citation{DocID: "d2", Ordinal: 1, Start: 30, End: 48}, NuggetID: "n2.2", Confidence: 0.6},
		},
	}
	id, err := db.SaveReport(ctx, j.ID, rep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return id, got
}

func TestVersionsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	id, rep := storedReport(t, db)

	if _, err := db.CurrentVersion(ctx, id); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("current version of a report never edited: err %v, want ErrNotFound", err)
	}
	first := pipeline.NewDraft(rep)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	v1, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated", At: at}, first)
	if err != nil {
		t.Fatal(err)
	}
	if want := (pipeline.VersionInfo{Report: id, Number: 1, Author: "crucible", Change: "generated", At: at}); v1 != want {
		t.Errorf("saved version 1 = %+v, want %+v", v1, want)
	}
	edited, _, err := first.EditText(1, "In 1890 it did so.")
	if err != nil {
		t.Fatal(err)
	}
	edited, _, err = edited.Pin("n2.2", true)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "alan", Change: "edited sentence 2", At: at.Add(time.Hour)}, edited)
	if err != nil || v2.Number != 2 {
		t.Fatalf("save version 2: %+v %v", v2, err)
	}

	cur, err := db.CurrentVersion(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(edited, cur.Draft, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("current draft (-want +got)\n%s", diff)
	}
	if cur.Number != 2 || cur.Author != "alan" || !cur.Sentences[1].Recheck || !cur.Nuggets[0].Pinned || cur.Nuggets[0].ID != "n2.2" {
		t.Errorf("current version = %+v", cur.VersionInfo)
	}
	old, err := db.ReportVersion(ctx, id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, old.Draft, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("version 1 draft (-want +got)\n%s", diff)
	}
	if _, err := db.ReportVersion(ctx, id, 3); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("version 3: err %v, want ErrNotFound", err)
	}
	infos, err := db.ReportVersions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]pipeline.VersionInfo{v2, v1}, infos); diff != "" {
		t.Errorf("versions, newest first (-want +got)\n%s", diff)
	}

	// The report reads as its newest version: what exports use.
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sentences[1].Text != "In 1890 it did so." || got.Nuggets[0].ID != "n2.2" || len(got.Nuggets) != 2 {
		t.Errorf("report after edits: sentences %+v, nuggets %+v", got.Sentences, got.Nuggets)
	}
}

func TestSaveVersionConflicts(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	id, rep := storedReport(t, db)
	d := pipeline.NewDraft(rep)
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, d); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "grace", Change: "edited sentence 3"}, d); err != nil {
		t.Fatal(err)
	}

	// A change made from version 1 after version 2 was saved is refused.
	_, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "alan", Change: "deleted sentence 1"}, d)
	var stale *pipeline.StaleVersionError
	if !errors.As(err, &stale) || !errors.Is(err, pipeline.ErrConflict) {
		t.Fatalf("stale save: err %v, want a StaleVersionError", err)
	}
	const wantMsg = "this report changed since you opened it: version 2 by grace, 'edited sentence 3'; reload the report and make your change again"
	if err.Error() != wantMsg {
		t.Errorf("message %q, want %q", err.Error(), wantMsg)
	}
	if infos, _ := db.ReportVersions(ctx, id); len(infos) != 2 {
		t.Errorf("a refused save stored something: %d versions", len(infos))
	}
	if _, err := db.SaveVersion(ctx, 999, 0, pipeline.VersionInfo{}, d); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("save for no report: err %v, want ErrNotFound", err)
	}

	// Two writers from the same base: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.SaveVersion(ctx, id, 2, pipeline.VersionInfo{Author: "w", Change: "race"}, d)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.As(err, &stale):
			t.Errorf("a losing writer got %v, want a StaleVersionError", err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent writers from version 2 succeeded, want 1", won)
	}
}

func TestStatusAndReviews(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	id, rep := storedReport(t, db)
	d := pipeline.NewDraft(rep)
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, d); err != nil {
		t.Fatal(err)
	}
	st, err := db.Status(ctx, id)
	if err != nil || st.Status != pipeline.StatusDraft {
		t.Fatalf("initial status %+v %v, want draft", st, err)
	}
	if _, err := db.SetStatus(ctx, id, 1, pipeline.StatusRecord{Status: pipeline.StatusApproved, By: "grace"}); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("approve a draft: err %v, want ErrConflict", err)
	}
	if _, err := db.SetStatus(ctx, id, 0, pipeline.StatusRecord{Status: pipeline.StatusInReview, By: "alan"}); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("submit from a stale version: err %v, want ErrConflict", err)
	}
	if _, err := db.SetStatus(ctx, id, 1, pipeline.StatusRecord{Status: pipeline.StatusInReview, By: "alan"}); err != nil {
		t.Fatal(err)
	}
	confirmed := pipeline.OpenCitations{Unreviewed: 4, Unsupported: 1}
	rec, err := db.SetStatus(ctx, id, 1, pipeline.StatusRecord{Status: pipeline.StatusApproved, By: "grace", Confirmed: confirmed})
	if err != nil || rec.Version != 1 {
		t.Fatalf("approve: %+v %v", rec, err)
	}
	if got, _ := db.Status(ctx, id); got.Status != pipeline.StatusApproved || got.By != "grace" || got.At.IsZero() || got.Version != 1 || got.Confirmed != confirmed {
		t.Errorf("status after approval = %+v", got)
	}
	// Every change is recorded, newest first, the confirmation with it.
	changes, err := db.StatusChanges(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range changes {
		texts = append(texts, c.Text())
	}
	want := []string{"approved with 4 unreviewed and 1 not supported citations, confirmed by grace", "submitted for review by alan"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("status changes (-want +got)\n%s", diff)
	}
	// An approved report refuses new versions.
	if _, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "alan", Change: "x"}, d); !errors.Is(err, pipeline.ErrConflict) {
		t.Errorf("edit an approved report: err %v, want ErrConflict", err)
	}

	key := d.Sentences[0].Key()
	for _, r := range []pipeline.Review{
		{Report: id, Key: key, Verdict: pipeline.ReviewPartly, Comment: "only the year", Reviewer: "grace", Version: 1},
		{Report: id, Key: key, Verdict: pipeline.ReviewSupported, Comment: "<b>fine</b>", Reviewer: "ada", Version: 1},
	} {
		if err := db.SaveReview(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveReview(ctx, pipeline.Review{Report: id, Key: key, Verdict: "maybe"}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("unknown verdict: err %v, want ErrInvalid", err)
	}
	if err := db.SaveReview(ctx, pipeline.Review{Report: 999, Key: key, Verdict: pipeline.ReviewSupported}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("review of no report: err %v, want ErrNotFound", err)
	}
	reviews, err := db.Reviews(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got := reviews[key]
	if len(reviews) != 1 || got.Verdict != pipeline.ReviewSupported || got.Reviewer != "ada" || got.Comment != "<b>fine</b>" || got.At.IsZero() {
		t.Errorf("reviews = %+v, want ada's newer verdict only", reviews)
	}
}
