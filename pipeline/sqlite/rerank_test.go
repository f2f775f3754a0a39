package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestRerankRecordRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Rerank(ctx, j.ID); !errors.Is(err, pipeline.ErrNotFound) {
		t.Fatalf("rerank of a job without one: %v, want ErrNotFound", err)
	}
	rec := pipeline.RerankRecord{
		Method: "purecover",
		FirstStage: []pipeline.RetrievedDoc{
			{Rank: 1, DocID: "a", Title: "A", Score: 3.5, Ordinal: 2},
			{Rank: 2, DocID: "b", Title: "B", Score: 1.25, Ordinal: 0},
		},
		Order:    []string{"b", "a"},
		Selected: 1,
		Trace:    json.RawMessage(`{"k":5,"steps":[{"doc_id":"b","gain":0.4}]}`),
		Usage:    pipeline.Usage{Calls: 4, CacheHits: 1},
	}
	if err := db.SaveRerank(ctx, j.ID, rec); err != nil {
		t.Fatal(err)
	}
	got, err := db.Rerank(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// A re-run replaces the record.
	rec.Order, rec.Selected, rec.Trace = []string{"a", "b"}, 0, nil
	if err := db.SaveRerank(ctx, j.ID, rec); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Rerank(ctx, j.ID); err != nil || got.Selected != 0 || string(got.Trace) != "null" || got.Order[0] != "a" {
		t.Errorf("after replacing: %+v, %v", got, err)
	}
	rec.Trace = json.RawMessage(`{broken`)
	if err := db.SaveRerank(ctx, j.ID, rec); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("broken trace: %v, want ErrInvalid", err)
	}
}
