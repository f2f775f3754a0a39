package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// TestJobWithReranker runs a job whose settings name a set-selection
// reranker: the stage's record is stored, the job's retrieval holds the
// reranked order, and nuggets come from the chosen set alone.
func TestJobWithReranker(t *testing.T) {
	w := newWorld(t)
	eng := w.engine(w.cached(offline.New(analyzer{w.ix})))
	// The offline engine's rules, as served: its rerankers read each
	// document's best passage.
	eng.Pipeline.Defaults = crucible.OfflineHeuristics
	eng.Pipeline.NewReranker = func(method string, model pipeline.Model) (rerank.Reranker, error) {
		return rerank.New(method, model, rerank.Options{CoverK: 2})
	}
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{eng}, Rerankers: []string{rerank.MethodPureCover, rerank.MethodLANCER},
		Poll: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	s := pipeline.DefaultSettings()
	s.Reranker = "setr"
	var fe pipeline.FieldErrors
	if _, _, err := r.Submit(ctx, request, s, ""); !errors.As(err, &fe) || fe["reranker"] == "" {
		t.Fatalf("unavailable reranker: %v, want a reranker field error", err)
	}
	s.Reranker = rerank.MethodPureCover
	// The job records who submitted it, named in the context.
	job, _, err := r.Submit(pipeline.WithActor(ctx, "alan"), request, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if job.SubmittedBy != "alan" {
		t.Errorf("job submitted by %q, want alan", job.SubmittedBy)
	}
	j := waitFor(t, w.db, job.ID, finished)
	if j.State != pipeline.JobDone {
		t.Fatalf("job ended %s (%s: %s)", j.State, j.ErrorStage, j.Error)
	}
	rec, err := w.db.Rerank(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Method != rerank.MethodPureCover || len(rec.FirstStage) == 0 || len(rec.Order) != len(rec.FirstStage) || len(rec.Trace) < 10 {
		t.Fatalf("rerank record %+v", rec)
	}
	if rec.Selected < 1 || rec.Selected > 2 {
		t.Fatalf("PureCover with K = 2 selected %d documents", rec.Selected)
	}
	if _, err := rerank.DecodeTrace(rec.Method, rec.Trace); err != nil {
		t.Errorf("stored trace does not decode: %v", err)
	}
	ret, err := w.db.Retrieval(ctx, job.ID)
	if err != nil || len(ret) != len(rec.Order) {
		t.Fatalf("retrieval %d docs, %v", len(ret), err)
	}
	chosen := map[string]bool{}
	for i, d := range ret {
		if d.DocID != rec.Order[i] || d.Rank != i+1 {
			t.Fatalf("retrieval[%d] = %s rank %d, want the reranked order %v", i, d.DocID, d.Rank, rec.Order)
		}
		if i < rec.Selected {
			chosen[d.DocID] = true
		}
	}
	ns, err := w.db.Nuggets(ctx, job.ID)
	if err != nil || len(ns) == 0 {
		t.Fatalf("nuggets: %d, %v", len(ns), err)
	}
	for _, n := range ns {
		for _, src := range n.Sources {
			if !chosen[src] {
				t.Errorf("nugget %s drawn from %s, outside the chosen set %v", n.ID, src, chosen)
			}
		}
	}
}
