package crucible

import (
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// TestSentenceScore: the choice of sentences favours, other things being
// equal, a better-ranked cited passage, a passage other nuggets' candidates
// cite too, the problem statement's words, an earlier turn, and the
// shorter sentence.
func TestSentenceScore(t *testing.T) {
	r := &run{e: &Engine{Terms: words},
		req:     pipeline.Request{Title: "Canal tolls", ProblemStatement: "Describe the tolls charged on the Panama canal and the treaty with Britain."},
		subject: &subject{terms: words, anchors: map[string]bool{"canal": true, "tolls": true}},
		passageRank: map[string]int{
			pipeline.PassageID("a", 0): 0, pipeline.PassageID("b", 0): 90, pipeline.PassageID("c", 0): 5,
		}}
	turns := []pipeline.Nugget{{ID: "n1", Rank: 1}, {ID: "n2", Rank: 2}, {ID: "n3", Rank: 3}, {ID: "n4", Rank: 4}}
	at := func(doc string) pipeline.Citation { return pipeline.Citation{DocID: doc} }
	const plain = "The ships paid what was asked of them in that year."
	top := pipeline.Candidate{NuggetID: "n1", Sentence: plain, Citation: at("a")}
	cands := []pipeline.Candidate{
		top,
		{NuggetID: "n1", Sentence: plain, Citation: at("b")},
		{NuggetID: "n2", Sentence: "Other words.", Citation: at("c")},
		{NuggetID: "n3", Sentence: "More words.", Citation: at("c")},
	}
	score := r.sentenceScore(turns, cands)
	for _, tc := range []struct {
		name          string
		better, worse pipeline.Candidate
	}{
		{"a better-ranked passage", top, pipeline.Candidate{NuggetID: "n1", Sentence: plain, Citation: at("b")}},
		{"a passage other nuggets cite", pipeline.Candidate{NuggetID: "n1", Sentence: plain, Citation: at("c")},
			pipeline.Candidate{NuggetID: "n1", Sentence: plain, Citation: at("d")}},
		{"the problem statement's words", pipeline.Candidate{NuggetID: "n1", Sentence: "The ships paid the tolls of the treaty in that year.", Citation: at("a")}, top},
		{"an earlier turn", top, pipeline.Candidate{NuggetID: "n4", Sentence: plain, Citation: at("a")}},
		{"a shorter sentence", top, pipeline.Candidate{NuggetID: "n1", Sentence: plain + " " + plain, Citation: at("a")}},
	} {
		if b, w := score(tc.better), score(tc.worse); b <= w {
			t.Errorf("%s: %.4f is not above %.4f", tc.name, b, w)
		}
	}
}
