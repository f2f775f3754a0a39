package crucible

import (
	"context"
	"slices"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// The quality prompt's question profile reaches the nugget's features
// under the ranker's names, scaled to 0–1; an answer without the profile
// leaves them unset (shown "–" in the bank, read as 0 by a trained
// ranker) and keeps the seven judgements.
func TestQuestionProfileFeatures(t *testing.T) {
	for _, name := range prompts.QuestionFields() {
		if !slices.Contains(pipeline.RankerFeatures, name) {
			t.Errorf("question profile field %q is no ranker feature", name)
		}
	}
	if n := len(pipeline.RankerFeatures); n != 20 {
		t.Errorf("%d ranker features, want the paper's 19 and the evidence", n)
	}

	run := func(m *scripted) ([]pipeline.Nugget, pipeline.Report) {
		t.Helper()
		rec := &recorder{}
		rep, err := newEngine(testCorpus(), m).Generate(context.Background(), testRequest, pipeline.DefaultSettings(), rec)
		if err != nil {
			t.Fatal(err)
		}
		var canonical []pipeline.Nugget
		for _, n := range rec.nuggets {
			if n.Popularity > 0 {
				canonical = append(canonical, n)
			}
		}
		if len(canonical) == 0 {
			t.Fatal("no canonical nugget")
		}
		return canonical, rep
	}

	ns, _ := run(&scripted{nuggets: testNuggets(), profile: prompts.QuestionProfile{Multifaceted: 3, Nonfactoid: 5, Harmful: 9}})
	for _, n := range ns {
		want := map[string]float64{pipeline.FeatureMultifaceted: 0.6, pipeline.FeatureNonfactoid: 1, pipeline.FeatureHarmful: 1, pipeline.FeatureAmbiguous: 0}
		for name, v := range want {
			if got, ok := n.Features[name]; !ok || got != v {
				t.Errorf("nugget %s: %s = %v (present %v), want %v", n.ID, name, got, ok, v)
			}
		}
	}

	ns, _ = run(&scripted{nuggets: testNuggets(), profile: prompts.QuestionProfile{Multifaceted: 3}, sevenLines: true})
	for _, n := range ns {
		for _, name := range prompts.QuestionFields() {
			if v, ok := n.Features[name]; ok {
				t.Errorf("nugget %s: %s = %v from an answer without the profile, want unset", n.ID, name, v)
			}
		}
		if n.Features[pipeline.FeatureTask] != 0.8 {
			t.Errorf("nugget %s: task %v, want 0.8 from the seven judgements", n.ID, n.Features[pipeline.FeatureTask])
		}
	}
}
