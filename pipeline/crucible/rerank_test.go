package crucible

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// pickReranker is a set-selection reranker that chooses the given
// documents, in order, and keeps the rest in first-stage order.
type pickReranker struct{ chosen []string }

func (p pickReranker) Name() string { return "pick" }

func (p pickReranker) Rerank(_ context.Context, in rerank.Input) (rerank.Result, error) {
	idx := map[string]int{}
	for i, c := range in.Candidates {
		idx[c.ID] = i
	}
	var sel []int
	for _, id := range p.chosen {
		sel = append(sel, idx[id])
	}
	ranking, err := rerank.SelectionRun(in.Candidates, sel)
	return rerank.Result{Method: "pick", Ranking: ranking, Selected: len(sel), Trace: map[string]any{"chosen": p.chosen}}, err
}

// strayReranker returns a document that was not retrieved.
type strayReranker struct{}

func (strayReranker) Name() string { return "stray" }

func (strayReranker) Rerank(_ context.Context, in rerank.Input) (rerank.Result, error) {
	return rerank.Result{Method: "stray", Ranking: append([]rerank.Candidate{{ID: "nowhere"}}, in.Candidates...)}, nil
}

// rerankRecorder also keeps the rerank record.
type rerankRecorder struct {
	recorder
	rec *pipeline.RerankRecord
}

func (r *rerankRecorder) Reranked(_ context.Context, rec pipeline.RerankRecord) error {
	r.rec = &rec
	return nil
}

func TestRerankStageChosenSetIsTheContext(t *testing.T) {
	c := testCorpus()
	m := &scripted{nuggets: testNuggets()}
	e := newEngine(c, m)
	e.NewReranker = func(string, pipeline.Model) (rerank.Reranker, error) {
		return pickReranker{chosen: []string{"d3"}}, nil
	}
	s := pipeline.DefaultSettings()
	s.Reranker = "pick"
	rec := &rerankRecorder{}
	if _, err := e.Generate(context.Background(), testRequest, s, rec); err != nil {
		t.Fatal(err)
	}
	if rec.rec == nil || rec.rec.Method != "pick" || rec.rec.Selected != 1 || rec.rec.Order[0] != "d3" || len(rec.rec.FirstStage) != 3 {
		t.Fatalf("rerank record %+v", rec.rec)
	}
	var trace map[string][]string
	if err := json.Unmarshal(rec.rec.Trace, &trace); err != nil || trace["chosen"][0] != "d3" {
		t.Errorf("trace %s (%v)", rec.rec.Trace, err)
	}
	for _, n := range rec.nuggets {
		if len(n.Sources) != 1 || n.Sources[0] != "d3" {
			t.Errorf("nugget %s from %v: nuggets must come from the chosen set {d3} alone", n.ID, n.Sources)
		}
	}
}

func TestRerankStageFallsBackWhenTheSetGivesNoNugget(t *testing.T) {
	c := testCorpus()
	nuggets := testNuggets()
	delete(nuggets, "d3") // the chosen document gives no nugget
	m := &scripted{nuggets: nuggets}
	e := newEngine(c, m)
	e.NewReranker = func(string, pipeline.Model) (rerank.Reranker, error) {
		return pickReranker{chosen: []string{"d3"}}, nil
	}
	s := pipeline.DefaultSettings()
	s.Reranker = "pick"
	rec := &rerankRecorder{}
	rep, err := e.Generate(context.Background(), testRequest, s, rec)
	if err != nil {
		t.Fatalf("a chosen set without nuggets failed the report: %v", err)
	}
	if len(rep.Sentences) == 0 {
		t.Error("empty report after falling back to the reranked ranking")
	}
}

func TestRerankStageErrors(t *testing.T) {
	c := testCorpus()
	s := pipeline.DefaultSettings()
	s.Reranker = "pick"
	e := newEngine(c, &scripted{nuggets: testNuggets()})
	if _, err := e.Generate(context.Background(), testRequest, s, nil); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("reranker without a factory: %v, want ErrInvalid", err)
	}
	e.NewReranker = func(string, pipeline.Model) (rerank.Reranker, error) { return strayReranker{}, nil }
	_, err := e.Generate(context.Background(), testRequest, s, nil)
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageRerank {
		t.Errorf("a reranker returning a bad ranking: %v, want a rerank StageError", err)
	}
}

// inputReranker keeps the input it was given and keeps the order.
type inputReranker struct{ in *rerank.Input }

func (inputReranker) Name() string { return "input" }

func (r inputReranker) Rerank(_ context.Context, in rerank.Input) (rerank.Result, error) {
	*r.in = in
	return rerank.Result{Method: "input", Ranking: in.Candidates}, nil
}

// Rerankers read each document's opening, as the papers show them, unless
// the rule BestPassage gives them its best passage for the request.
func TestRerankStageShowsDocumentsOrBestPassages(t *testing.T) {
	for _, tt := range []struct {
		name     string
		defaults pipeline.Heuristics
		passages bool
	}{
		{"model default: the document", pipeline.Heuristics{}, false},
		{"best passage", pipeline.Heuristics{BestPassage: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var in rerank.Input
			e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
			e.Defaults = tt.defaults
			e.NewReranker = func(string, pipeline.Model) (rerank.Reranker, error) { return inputReranker{&in}, nil }
			s := pipeline.DefaultSettings()
			s.Reranker = "input"
			if _, err := e.Generate(context.Background(), testRequest, s, nil); err != nil {
				t.Fatal(err)
			}
			if len(in.Candidates) == 0 || in.Docs == nil {
				t.Fatalf("reranker input %+v", in)
			}
			if !tt.passages {
				if in.Passages != nil {
					t.Errorf("passages given %v; the reranker must read the documents", in.Passages)
				}
				return
			}
			for _, c := range in.Candidates {
				if in.Passages[c.ID] == "" {
					t.Errorf("no best passage for %s", c.ID)
				}
			}
		})
	}
}

// wantingReranker wants more candidates than the report retrieves and
// reverses them.
type wantingReranker struct {
	want int
	seen *[]string
}

func (wantingReranker) Name() string           { return "wanting" }
func (w wantingReranker) WantsCandidates() int { return w.want }

func (w wantingReranker) Rerank(_ context.Context, in rerank.Input) (rerank.Result, error) {
	var out []rerank.Candidate
	for i := len(in.Candidates) - 1; i >= 0; i-- {
		*w.seen = append(*w.seen, in.Candidates[i].ID)
		out = append(out, in.Candidates[i])
	}
	return rerank.Result{Method: "wanting", Ranking: out}, nil
}

// A reranker that reads more candidates than the report retrieves (as
// CoRank reads 200) gets them; the report keeps as many as it retrieved,
// the reranker's best, and the record says how many.
func TestRerankStageGivesAWantingRerankerMoreCandidates(t *testing.T) {
	var seen []string
	e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
	e.NewReranker = func(string, pipeline.Model) (rerank.Reranker, error) {
		return wantingReranker{want: 3, seen: &seen}, nil
	}
	s := pipeline.DefaultSettings()
	s.Retrieve, s.IdeationDocs, s.Reranker = 2, 2, "wanting"
	rec := &rerankRecorder{}
	if _, err := e.Generate(context.Background(), testRequest, s, rec); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("the reranker saw %v; want the 2 retrieved and the next best", seen)
	}
	if rec.rec == nil || len(rec.rec.FirstStage) != 3 || rec.rec.Kept != 2 || len(rec.rec.Order) != 3 {
		t.Fatalf("rerank record %+v; want 3 candidates, 2 kept", rec.rec)
	}
	for _, n := range rec.nuggets {
		for _, src := range n.Sources {
			if src != seen[0] && src != seen[1] {
				t.Errorf("nugget %s from %s, outside the two kept (%v)", n.ID, src, seen[:2])
			}
		}
	}
}
