package pipeline_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestAnalystLabels(t *testing.T) {
	f := func(v float64) map[string]float64 { return map[string]float64{"vital": v} }
	n := func(id string, rank int, v float64) pipeline.Nugget {
		return pipeline.Nugget{ID: id, Question: "Q " + id + "?", Answer: "A " + id, Rank: rank, Features: f(v)}
	}
	generated := []pipeline.Nugget{
		n("pinned", 1, 0.1), n("reviewed", 2, 0.2), n("removed", 3, 0.3), n("untouched", 4, 0.4),
		n("edited", 5, 0.5), n("below", 0, 0.6), n("merged", 0, 0), n("removed-reviewed", 6, 0.7),
	}
	generated[6].Features = nil // merged into another: not scored
	bank := func(g pipeline.Nugget, pinned bool) pipeline.DraftNugget {
		return pipeline.DraftNugget{Nugget: g, Pinned: pinned}
	}
	edited := generated[4]
	edited.Answer = "a different answer"
	added := pipeline.Nugget{ID: "added", Question: "New?", Answer: "Yes"}
	cur := pipeline.Draft{
		Nuggets: []pipeline.DraftNugget{bank(generated[0], true), bank(generated[1], false), bank(generated[3], false),
			bank(edited, true), bank(added, true), bank(generated[5], true)},
		Sentences: []pipeline.DraftSentence{
			{Sentence: pipeline.Sentence{Text: "S1.", NuggetID: "reviewed"}},
			{Sentence: pipeline.Sentence{Text: "S2.", NuggetID: "untouched"}},
			{Sentence: pipeline.Sentence{Text: "S3.", NuggetID: "removed-reviewed"}},
		},
	}
	reviews := map[string]pipeline.Review{
		pipeline.SentenceKey(cur.Sentences[0].Sentence): {Verdict: pipeline.ReviewSupported},
		pipeline.SentenceKey(cur.Sentences[1].Sentence): {Verdict: pipeline.ReviewUnsupported},
		pipeline.SentenceKey(cur.Sentences[2].Sentence): {Verdict: pipeline.ReviewSupported},
	}
	got := pipeline.AnalystLabels("report-7", generated, cur, reviews)
	want := []pipeline.LabelledNugget{
		{Group: "report-7", Features: f(0.1), Positive: true},  // pinned
		{Group: "report-7", Features: f(0.2), Positive: true},  // its sentence reviewed supported
		{Group: "report-7", Features: f(0.3), Positive: false}, // removed
		{Group: "report-7", Features: f(0.6), Positive: true},  // below the cut, brought in and pinned
		{Group: "report-7", Features: f(0.7), Positive: false}, // removed, though its sentence was supported
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	var kept []pipeline.Nugget
	for _, g := range generated {
		if g.Rank > 0 {
			kept = append(kept, g)
		}
	}
	if got := pipeline.AnalystLabels("r", generated, pipeline.NewDraft(pipeline.Report{Nuggets: kept}), nil); len(got) != 0 {
		t.Errorf("an untouched report gives labels: %+v", got)
	}
}
