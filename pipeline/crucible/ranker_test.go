package crucible

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// The rank stage scores nuggets with the engine's trained ranker when it
// has one, asks for it by the engine's name, and the report records which.
func TestRankStageUsesTheTrainedRanker(t *testing.T) {
	// A ranker that prefers short, readable nuggets: the reverse of what
	// the scripted judgements and DefaultWeights order.
	m := &pipeline.RankerModel{ID: 7, Engine: "scripted model", Features: []string{pipeline.FeatureReadability},
		Mean: []float64{0}, Std: []float64{1}, Weights: []float64{5}}
	var asked string
	e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
	e.Ranker = func(_ context.Context, engine string) (*pipeline.RankerModel, error) {
		asked = engine
		return m, nil
	}
	rec := &recorder{}
	rep, err := e.Generate(context.Background(), testRequest, pipeline.DefaultSettings(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if asked != "scripted model" || rep.Settings.Ranker != 7 {
		t.Errorf("asked for the ranker of %q; report records ranker %d, want 7", asked, rep.Settings.Ranker)
	}
	for _, n := range rec.nuggets {
		if len(n.Features) == 0 {
			continue
		}
		if want := m.Score(n.Features); math.Abs(n.QualityScore-want) > 1e-9 {
			t.Errorf("%q: quality score %.3f, want the trained ranker's %.3f (default weights give %.3f)",
				n.Question, n.QualityScore, want, pipeline.LinearScore(n.Features, pipeline.DefaultWeights))
		}
	}

	// Without one the default weights rank, and the report says 0 even
	// if the request asked for another.
	e.Ranker = func(context.Context, string) (*pipeline.RankerModel, error) { return nil, nil }
	s := pipeline.DefaultSettings()
	s.Ranker = 99
	rec = &recorder{}
	rep, err = e.Generate(context.Background(), testRequest, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Settings.Ranker != 0 {
		t.Errorf("report records ranker %d without one", rep.Settings.Ranker)
	}
	for _, n := range rec.nuggets {
		if len(n.Features) > 0 && math.Abs(n.QualityScore-pipeline.LinearScore(n.Features, pipeline.DefaultWeights)) > 1e-9 {
			t.Errorf("%q: not scored by the default weights", n.Question)
		}
	}
}

func TestRankerLoadFailureNamesTheStage(t *testing.T) {
	e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
	boom := errors.New("disk on fire")
	e.Ranker = func(context.Context, string) (*pipeline.RankerModel, error) { return nil, boom }
	_, err := e.Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageRank || !errors.Is(err, boom) {
		t.Errorf("err = %v, want a rank StageError wrapping the store's error", err)
	}
}
