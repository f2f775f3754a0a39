package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// citingOf lists "report/sentence title text doc [start-end]" of the
// sentences that cite the document, span first, and the total.
func citingOf(t *testing.T, db *sqlite.DB, docID string, span pipeline.Span, limit int) ([]string, int) {
	t.Helper()
	got, err := db.CitingSentences(context.Background(), docID, span, limit)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range got.Sentences {
		out = append(out, fmt.Sprintf("%d/%d %s %q %s [%d-%d]", s.ReportID, s.Number, s.ReportTitle, s.Text, s.Citation.DocID,
			s.Citation.Start, s.Citation.End))
	}
	return out, got.Total
}

// A document page lists the sentences that cite the document from each
// report's newest version (the generated text for a report never
// edited), the sentences citing a given span first, then the newest
// reports.
func TestCitingSentences(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	// Report 1, as generated: sentence 1 cites d1 (bytes 0-24), sentence 2 d2.
	first, rep := storedReport(t, db)

	// Report 2, never edited: sentences 1 and 3 cite d1.
	job := newJob()
	job.Request.ID, job.Request.Title = "r2", "Duties <b>&</b> \"quotas\""
	j, _, err := db.CreateJob(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: job.Request, Settings: pipeline.DefaultSettings(),
		Sentences: []pipeline.Sentence{
			{Text: "Duties rose.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 1, Start: 30, End: 60}},
			{Text: "Elsewhere.", Citation: pipeline.Citation{DocID: "d3", Ordinal: 0, Start: 0, End: 9}},
			{Text: "Congress raised them.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 24}},
		}})
	if err != nil {
		t.Fatal(err)
	}

	got, total := citingOf(t, db, "d1", pipeline.Span{}, 10)
	want := []string{
		fmt.Sprintf(`%d/1 Duties <b>&</b> "quotas" "Duties rose." d1 [30-60]`, second),
		fmt.Sprintf(`%d/3 Duties <b>&</b> "quotas" "Congress raised them." d1 [0-24]`, second),
		fmt.Sprintf(`%d/1 Tariffs "Congress raised tariffs." d1 [0-24]`, first),
	}
	if diff := cmp.Diff(want, got); diff != "" || total != 3 {
		t.Errorf("d1 cited by (-want +got), total %d\n%s", total, diff)
	}

	// The span first: the same bytes, then overlapping ones.
	got, _ = citingOf(t, db, "d1", pipeline.Span{Start: 0, End: 24}, 10)
	if want := []string{want[1], want[2], want[0]}; !cmp.Equal(want, got) {
		t.Errorf("d1 cited, span 0-24 first:\n%s", cmp.Diff(want, got))
	}
	got, _ = citingOf(t, db, "d1", pipeline.Span{Start: 40, End: 50}, 10)
	if got[0] != want[0] {
		t.Errorf("d1 cited, span 40-50 first: %q first, want %q", got[0], want[0])
	}

	// A limit keeps the first, and the total counts them all.
	got, total = citingOf(t, db, "d1", pipeline.Span{Start: 0, End: 24}, 1)
	if len(got) != 1 || got[0] != want[1] || total != 3 {
		t.Errorf("d1 cited, limit 1: %q, total %d; want %q of 3", got, total, want[1])
	}

	// Report 1 edited: version 2 puts a new sentence first and drops the
	// one citing d1; the older version's sentences are not listed.
	d := pipeline.NewDraft(rep)
	if _, err := db.SaveVersion(ctx, first, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, d); err != nil {
		t.Fatal(err)
	}
	d, _, err = d.Delete(0)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err = d.Insert(0, pipeline.DraftSentence{Sentence: pipeline.Sentence{Text: "Quoted by hand.",
		Citation: pipeline.Citation{DocID: "d2", Ordinal: 0, Start: 0, End: 15}}}, "quoted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, first, 1, pipeline.VersionInfo{Author: "alan", Change: "edited"}, d); err != nil {
		t.Fatal(err)
	}
	got, total = citingOf(t, db, "d1", pipeline.Span{}, 10)
	if want := want[:2]; !cmp.Equal(want, got) || total != 2 {
		t.Errorf("d1 cited after the edit, total %d:\n%s", total, cmp.Diff(want, got))
	}
	got, _ = citingOf(t, db, "d2", pipeline.Span{}, 10)
	want = []string{fmt.Sprintf(`%d/1 Tariffs "Quoted by hand." d2 [0-15]`, first), fmt.Sprintf(`%d/2 Tariffs "It did so in 1890." d2 [30-48]`, first)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("d2 cited after the edit (-want +got)\n%s", diff)
	}

	// A document nobody cites.
	if got, total := citingOf(t, db, "d9", pipeline.Span{}, 10); len(got) != 0 || total != 0 {
		t.Errorf("d9 cited by %q, total %d; want none", got, total)
	}
}
