package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func testRanker(engine string, w float64) pipeline.RankerModel {
	return pipeline.RankerModel{
		Engine: engine, Features: []string{pipeline.FeatureTask, pipeline.FeatureEvidence},
		Mean: []float64{0.5, 0.2}, Std: []float64{0.1, 0.3}, Weights: []float64{w, -w}, Bias: -1,
		TrainedOn: "sotu-nuggets.jsonl (20 requests)", Examples: 900, Positives: 40,
		CV: &pipeline.RankerCV{Requests: 20, Accuracy: 0.8, BalancedAccuracy: 0.7, K: 20, TopK: 3, BaselineTopK: 2},
	}
}

func TestRankersStoreActivateAndList(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)

	if m, err := db.ActiveRanker(ctx, "offline engine"); err != nil || m != nil {
		t.Fatalf("no ranker yet: got %v, %v", m, err)
	}
	a, err := db.SaveRanker(ctx, testRanker("offline engine", 1), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.SaveRanker(ctx, testRanker("offline engine", 2), false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.SaveRanker(ctx, testRanker("gpt-x", 3), true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.ActiveRanker(ctx, "offline engine")
	if err != nil || got == nil || got.ID != a || got.Weights[0] != 1 || got.CV == nil || got.CV.TopK != 3 {
		t.Fatalf("active offline ranker: %+v, %v (want id %d)", got, err, a)
	}
	// Activating b deactivates a, not the other engine's.
	if err := db.SetRankerActive(ctx, b, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ActiveRanker(ctx, "offline engine"); got == nil || got.ID != b {
		t.Errorf("after activating %d: active %+v", b, got)
	}
	if got, _ := db.ActiveRanker(ctx, "gpt-x"); got == nil || got.ID != other {
		t.Errorf("the other engine's ranker changed: %+v", got)
	}
	all, err := db.Rankers(ctx)
	if err != nil || len(all) != 3 || all[0].ID != other || all[2].ID != a || all[2].Active || !all[1].Active {
		t.Errorf("list: %+v, %v", all, err)
	}
	// Stopping it leaves the engine on the default weights.
	if err := db.SetRankerActive(ctx, b, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ActiveRanker(ctx, "offline engine"); got != nil {
		t.Errorf("after stopping: active %+v", got)
	}
	if m, err := db.Ranker(ctx, a); err != nil || m.TrainedOn != "sotu-nuggets.jsonl (20 requests)" {
		t.Errorf("ranker %d: %+v, %v", a, m, err)
	}
}

func TestRankersRejectBadInput(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	bad := testRanker("offline engine", 1)
	bad.Std[0] = 0
	if _, err := db.SaveRanker(ctx, bad, true); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("zero deviation: %v", err)
	}
	if _, err := db.SaveRanker(ctx, testRanker("", 1), true); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("no engine: %v", err)
	}
	if all, _ := db.Rankers(ctx); len(all) != 0 {
		t.Errorf("a rejected model was stored: %+v", all)
	}
	if err := db.SetRankerActive(ctx, 99, true); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := db.Ranker(ctx, 99); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}
