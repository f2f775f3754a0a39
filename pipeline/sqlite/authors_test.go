package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/google/go-cmp/cmp"
)

func TestAuthorYearsFollowIngests(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	dated := func(id, author, date string) pipeline.IngestDocument {
		d := ingestDoc(id, id, "text of "+id)
		d.Doc.Metadata = map[string]string{"author": author, "date": date}
		return d
	}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{
		dated("a", "Grover Cleveland", "1885-12-08"),
		dated("b", "Grover Cleveland", "1896"),
		dated("c", "Benjamin Harrison", "1889"),
		dated("d", "Nobody Dated", ""),
	}); err != nil {
		t.Fatal(err)
	}
	got, err := db.AuthorYears(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pipeline.Period{"Grover Cleveland": {From: 1885, To: 1896}, "Benjamin Harrison": {From: 1889, To: 1889}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("AuthorYears (-want +got)\n%s", diff)
	}
	got["Grover Cleveland"] = pipeline.Period{} // the caller's copy
	// Another handle's batch is seen (as another process would write).
	other, err := sqlite.Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ReplaceDocuments(ctx, []pipeline.IngestDocument{dated("b", "Grover Cleveland", "1893"), dated("e", "William Mc Kinley", "1897")}); err != nil {
		t.Fatal(err)
	}
	got, err = db.AuthorYears(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]pipeline.Period{"Grover Cleveland": {From: 1885, To: 1893}, "Benjamin Harrison": {From: 1889, To: 1889}, "William Mc Kinley": {From: 1897, To: 1897}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after another handle's batch (-want +got)\n%s", diff)
	}
	// A closed database says what failed.
	db.Close()
	if _, err := db.AuthorYears(ctx); err == nil || !strings.Contains(err.Error(), "author years") {
		t.Errorf("closed database: %v, want an author years error", err)
	}
}
