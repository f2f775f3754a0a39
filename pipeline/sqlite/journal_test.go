package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// A document stored already exactly as given is not written again, and a
// batch that writes nothing is not journalled.
func TestReplaceDocumentsLeavesUnchangedDocuments(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	a, b := ingestDoc("a", "A", "one", "two"), ingestDoc("b", "B", "three")
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a, b}); err != nil {
		t.Fatal(err)
	}
	first, err := db.Document(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pipeline.ReplaceResult{Unchanged: []string{"a", "b"}}, res); diff != "" {
		t.Errorf("same batch again (-want +got)\n%s", diff)
	}
	again, _ := db.Document(ctx, "a")
	if !again.IngestedAt.Equal(first.IngestedAt) {
		t.Errorf("an unchanged document was rewritten: ingested %v, then %v", first.IngestedAt, again.IngestedAt)
	}
	if n, _ := db.LatestBatch(ctx); n != 1 {
		t.Errorf("latest batch = %d after a batch that wrote nothing, want 1", n)
	}

	// Any difference is a change: metadata, source, title, passages.
	changed := []pipeline.IngestDocument{a, a, a, a}
	changed[0].Doc.Metadata = map[string]string{"year": "1791"}
	changed[1].Doc.Source = "other.jsonl:1"
	changed[2].Doc.Title = "A2"
	changed[3].Passages = []pipeline.Passage{{DocID: "a", Ordinal: 0, Start: 0, End: 7, Text: "one two"}}
	for i, c := range changed {
		res, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{c})
		if err != nil {
			t.Fatal(err)
		}
		if res.Replaced != 1 || len(res.Unchanged) != 0 || res.Batch != int64(i+2) {
			t.Errorf("change %d: %+v, want one replaced as batch %d", i, res, i+2)
		}
	}
}

// BatchesAfter merges the batches an index lacks: the current version of
// every document they wrote, and the version the index still holds.
func TestBatchesAfterMergesWhatTheIndexLacks(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	store := func(docs ...pipeline.IngestDocument) int64 {
		t.Helper()
		res, err := db.ReplaceDocuments(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		return res.Batch
	}
	store(ingestDoc("a", "A", "a1"), ingestDoc("b", "B", "b1"))                   // 1: the index has it
	store(ingestDoc("a", "A", "a2", "a2b"))                                       // 2: replaces a1
	store(ingestDoc("c", "C", "c1"))                                              // 3: inserts c
	if n := store(ingestDoc("a", "A", "a3"), ingestDoc("c", "C", "c2")); n != 4 { // 4: a2 and c1 again
		t.Fatalf("batch = %d, want 4", n)
	}

	got, err := db.BatchesAfter(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := pipeline.IndexBatch{
		Seq: 4,
		Docs: []pipeline.IngestDocument{
			{Doc: pipeline.Document{ID: "a", Title: "A"}, Passages: []pipeline.Passage{{DocID: "a", End: 2, Text: "a3"}}},
			{Doc: pipeline.Document{ID: "c", Title: "C"}, Passages: []pipeline.Passage{{DocID: "c", End: 2, Text: "c2"}}},
		},
		// The index holding batch 1 has a1 and no c.
		Previous: []pipeline.IngestDocument{
			{Doc: pipeline.Document{ID: "a", Title: "A"}, Passages: []pipeline.Passage{{DocID: "a", End: 2, Text: "a1"}}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BatchesAfter(1) (-want +got)\n%s", diff)
	}
	if got, err := db.BatchesAfter(ctx, 4); err != nil || len(got.Docs) != 0 || got.Seq != 4 {
		t.Errorf("BatchesAfter(latest) = %+v, %v; want nothing to do", got, err)
	}

	// Once batches 1-2 are trimmed, an index holding only batch 1 cannot
	// be caught up: the journal says so.
	if err := db.TrimBatches(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BatchesAfter(ctx, 1); !errors.Is(err, pipeline.ErrJournalGap) {
		t.Errorf("BatchesAfter over a trimmed batch: err = %v, want ErrJournalGap", err)
	}
	if got, err := db.BatchesAfter(ctx, 2); err != nil || got.Seq != 4 || len(got.Docs) != 2 {
		t.Errorf("BatchesAfter(2) after the trim = %+v, %v", got, err)
	}
	if n, _ := db.LatestBatch(ctx); n != 4 {
		t.Errorf("latest batch after the trim = %d, want 4", n)
	}
}
