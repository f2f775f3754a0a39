package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// tariffFeatures are features as the store keeps them.
var tariffFeatures = rerank.DocFeatures{
	Title:    "The McKinley Tariff and federal revenue",
	Category: []string{"Economy", "Trade policy", "Tariffs"},
	Headings: []string{"Import duties", "Revenue from sugar"},
	Keywords: []string{"tariff", "import duties", "sugar", "revenue"},
	Queries:  []string{"mckinley tariff import duties 1890", "sugar revenue tariff act"},
}

func TestFeaturesRoundTripAndInvalidation(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{
		ingestDoc("a", "Tariff", "duties", "rose"),
		ingestDoc("b", "Navy", "ships", "launched"),
		ingestDoc("c", "Silver", "coinage"),
	}); err != nil {
		t.Fatal(err)
	}
	const ns = "offline-v2/corank-features-v1/20000"
	ids := []string{"a", "b", "c"}

	// Nothing is stored yet: every document is missing.
	missing, err := db.MissingFeatures(ctx, ns, ids)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ids, missing); diff != "" {
		t.Errorf("missing before any Put (-want +got)\n%s", diff)
	}

	docA, err := db.Document(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	docB, err := db.Document(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	recs := []rerank.FeatureRecord{
		{DocID: "a", Hash: rerank.FeatureHash(docA), Features: tariffFeatures},
		{DocID: "b", Hash: rerank.FeatureHash(docB), Features: rerank.DocFeatures{Title: "Navy", Keywords: []string{"ships"}}},
	}
	if err := db.PutFeatures(ctx, ns, recs); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetFeatures(ctx, ns, []string{"a", "b", "c", "unknown"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]rerank.FeatureRecord{"a": recs[0], "b": recs[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetFeatures (-want +got)\n%s", diff)
	}

	// Another namespace sees nothing.
	other, err := db.GetFeatures(ctx, "openai-model/corank-features-v1/20000", ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(other) != 0 {
		t.Errorf("another namespace holds %v, want nothing", other)
	}

	missing, err = db.MissingFeatures(ctx, ns, ids)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c"}, missing); diff != "" {
		t.Errorf("missing after Put (-want +got)\n%s", diff)
	}

	// Re-ingesting b with the same title and text keeps its features;
	// re-ingesting a with another text invalidates them.
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{
		ingestDoc("a", "Tariff", "duties", "fell"),
		ingestDoc("b", "Navy", "ships", "launched"),
	}); err != nil {
		t.Fatal(err)
	}
	missing, err = db.MissingFeatures(ctx, ns, []string{"c", "b", "a", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c", "a"}, missing); diff != "" {
		t.Errorf("missing after re-ingest (-want +got)\n%s", diff)
	}

	// Put replaces a stored record.
	newA, err := db.Document(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	replaced := rerank.FeatureRecord{DocID: "a", Hash: rerank.FeatureHash(newA), Features: rerank.DocFeatures{Title: "Duties fell"}}
	if err := db.PutFeatures(ctx, ns, []rerank.FeatureRecord{replaced}); err != nil {
		t.Fatal(err)
	}
	got, err = db.GetFeatures(ctx, ns, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]rerank.FeatureRecord{"a": replaced}, got); diff != "" {
		t.Errorf("after replacing a (-want +got)\n%s", diff)
	}
}

func TestFeaturesErrors(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("a", "A", "x")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"missing of an unknown document", func() error {
			_, err := db.MissingFeatures(ctx, "ns", []string{"a", "nope"})
			return err
		}, pipeline.ErrNotFound},
		{"get with an empty namespace", func() error {
			_, err := db.GetFeatures(ctx, " ", []string{"a"})
			return err
		}, pipeline.ErrInvalid},
		{"put with an empty namespace", func() error {
			return db.PutFeatures(ctx, "", []rerank.FeatureRecord{{DocID: "a", Hash: "h"}})
		}, pipeline.ErrInvalid},
		{"put without a document id", func() error {
			return db.PutFeatures(ctx, "ns", []rerank.FeatureRecord{{DocID: "a", Hash: "h"}, {Hash: "h"}})
		}, pipeline.ErrInvalid},
		{"put without a hash", func() error {
			return db.PutFeatures(ctx, "ns", []rerank.FeatureRecord{{DocID: "a"}})
		}, pipeline.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, tt.want) {
				t.Errorf("error %v, want one wrapping %v", err, tt.want)
			}
		})
	}
	// A rejected batch stores nothing, not even its valid records.
	got, err := db.GetFeatures(ctx, "ns", []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a rejected batch stored %v", got)
	}
}

func TestDocumentIDs(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{
		ingestDoc("z", "Z", "x"), ingestDoc("m", "M", "y"), ingestDoc("a", "A", "z"),
	}); err != nil {
		t.Fatal(err)
	}
	// Re-ingesting z moves it to the end of the ingest order.
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("z", "Z", "w")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"all", 0, []string{"m", "a", "z"}},
		{"negative is all", -3, []string{"m", "a", "z"}},
		{"first two", 2, []string{"m", "a"}},
		{"more than stored", 10, []string{"m", "a", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.DocumentIDs(ctx, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DocumentIDs(%d) (-want +got)\n%s", tt.limit, diff)
			}
		})
	}
}
