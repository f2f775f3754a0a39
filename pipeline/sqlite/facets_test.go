package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

var storedFacets = []pipeline.Facet{
	{Heading: "Tariff laws", Description: "The main features and dates of each tariff law"},
	{Heading: "Reciprocity <arrangements>", Description: ""},
}

// facetedReport saves a report grouped under storedFacets, one sentence
// under each and one under pipeline.OtherFacet.
func facetedReport(t *testing.T, db *sqlite.DB) (int64, pipeline.Report) {
	t.Helper()
	ctx := context.Background()
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	rep := pipeline.Report{
		Request: j.Request, RunID: "crucible-offline-engine", Engine: "offline engine", Settings: j.Settings,
		Facets: storedFacets,
		Sentences: []pipeline.Sentence{
			{Text: "The tariff of 1890 raised duties.", Citation: pipeline.Citation{DocID: "d1", End: 10}, NuggetID: "n1", Confidence: 0.9, Facet: "Tariff laws"},
			{Text: "Reciprocity came with Brazil.", Citation: pipeline.Citation{DocID: "d2", End: 10}, NuggetID: "n2", Confidence: 0.8, Facet: "Reciprocity <arrangements>"},
			{Text: "The Navy grew.", Citation: pipeline.Citation{DocID: "d3", End: 10}, NuggetID: "n3", Confidence: 0.7, Facet: pipeline.OtherFacet},
		},
	}
	id, err := db.SaveReport(ctx, j.ID, rep)
	if err != nil {
		t.Fatal(err)
	}
	return id, rep
}

func TestReportFacetsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	id, rep := facetedReport(t, db)
	got, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Facets, got.Facets); diff != "" {
		t.Errorf("facets (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(rep.Sentences, got.Sentences); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}

	// Versions keep each sentence's facet; the report's facets stay.
	d := pipeline.NewDraft(got)
	moved, _, err := d.Move(2, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, d); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "alan", Change: "moved sentence 3 up"}, moved); err != nil {
		t.Fatal(err)
	}
	v, err := db.CurrentVersion(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var facets []string
	for _, s := range v.Sentences {
		facets = append(facets, s.Facet)
	}
	if diff := cmp.Diff([]string{"Tariff laws", pipeline.OtherFacet, "Reciprocity <arrangements>"}, facets); diff != "" {
		t.Errorf("version facets (-want +got)\n%s", diff)
	}
	got, err = db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Facets, got.Facets); diff != "" || got.Sentences[1].Facet != pipeline.OtherFacet {
		t.Errorf("report read as its newest version: facets %+v, sentences %+v", got.Facets, got.Sentences)
	}

	// A report made without facets reads as none.
	j, _, _ := db.CreateJob(ctx, newJob())
	plainID, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: j.Request, Settings: j.Settings,
		Sentences: []pipeline.Sentence{{Text: "One.", Citation: pipeline.Citation{DocID: "d1", End: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := db.Report(ctx, plainID)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Facets != nil || plain.Sentences[0].Facet != "" {
		t.Errorf("report without facets: facets %+v, sentence facet %q", plain.Facets, plain.Sentences[0].Facet)
	}
}

// TestReportsBeforeFacets: reports and versions stored before migration
// 0012 read as not grouped.
func TestReportsBeforeFacets(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id, rep := facetedReport(t, db)
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "crucible", Change: "generated"}, pipeline.NewDraft(rep)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// Make the database as it was before migration 0012.
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE report_sentences DROP COLUMN facet`,
		`ALTER TABLE report_version_sentences DROP COLUMN facet`,
		`ALTER TABLE reports DROP COLUMN facets`,
		`DELETE FROM schema_migrations WHERE name = '0012_report_facets.sql'`} {
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
	if got.Facets != nil || len(got.Sentences) != 3 {
		t.Fatalf("old report: facets %+v, %d sentences", got.Facets, len(got.Sentences))
	}
	for _, s := range got.Sentences {
		if s.Facet != "" {
			t.Errorf("old sentence %q reads with the facet %q", s.Text, s.Facet)
		}
	}
}
