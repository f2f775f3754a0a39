package pipeline_test

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func nug(id string, sources ...string) pipeline.Nugget {
	return pipeline.Nugget{ID: id, Question: "q" + id, Sources: sources, Popularity: 1}
}

func TestMergeParaphrasesMostConfidentFirst(t *testing.T) {
	ns := []pipeline.Nugget{nug("a", "d1"), nug("b", "d2"), nug("c", "d3"), nug("d", "d1"), nug("e", "d4")}
	pairs := []pipeline.PairJudgement{
		{A: 2, B: 3, Confidence: 0.7},
		{A: 0, B: 1, Confidence: 0.95},
		{A: 1, B: 4, Confidence: 0.9},
		{A: 0, B: 2, Confidence: 0.4}, // judged different: never merged
	}
	// Target 3: the two most confident merges happen (a+b, then b+e joins
	// a's group), leaving a, c, d.
	got := pipeline.MergeParaphrases(ns, pairs, 3)
	var ids []string
	for _, n := range got {
		ids = append(ids, n.ID)
	}
	if diff := cmp.Diff([]string{"a", "c", "d"}, ids); diff != "" {
		t.Fatalf("canonical nuggets (-want +got)\n%s", diff)
	}
	if got[0].Popularity != 3 || !cmp.Equal(got[0].Sources, []string{"d1", "d2", "d4"}) || !cmp.Equal(got[0].Paraphrases, []string{"b", "e"}) {
		t.Errorf("merged group = %+v", got[0])
	}
	// Without a target limit, every pair above 0.5 merges.
	all := pipeline.MergeParaphrases(ns, pairs, 1)
	if len(all) != 2 {
		t.Errorf("merging every confident pair left %d nuggets, want 2", len(all))
	}
	// Out-of-range pairs are ignored, not a panic.
	if n := len(pipeline.MergeParaphrases(ns, []pipeline.PairJudgement{{A: 9, B: -1, Confidence: 1}}, 1)); n != 5 {
		t.Errorf("bad pair changed the nuggets: %d", n)
	}
}

func TestRankNuggetsFusesQualityAndPopularity(t *testing.T) {
	ns := []pipeline.Nugget{
		{ID: "popular", QualityScore: 0.2, Popularity: 9},
		{ID: "good", QualityScore: 0.9, Popularity: 1},
		{ID: "both", QualityScore: 0.8, Popularity: 5},
		{ID: "neither", QualityScore: 0.1, Popularity: 1},
	}
	got := pipeline.RankNuggets(ns, 3)
	var ids []string
	for _, n := range got {
		ids = append(ids, n.ID)
	}
	// RRF: good = 1/61+1/63 = 0.032266 = popular (1/63+1/61), tie broken
	// by quality rank; both = 2/62 = 0.032258 comes third; neither is cut.
	if diff := cmp.Diff([]string{"good", "popular", "both"}, ids); diff != "" {
		t.Errorf("ranking (-want +got)\n%s", diff)
	}
	for i, n := range got {
		if n.Rank != i+1 {
			t.Errorf("%s has rank %d, want %d", n.ID, n.Rank, i+1)
		}
	}
}

func TestRankNuggetsBreaksPopularityTiesByQuality(t *testing.T) {
	// No paraphrases: the popularity ranking is a tie throughout and must
	// follow quality, not list order (which would fuse a to second place:
	// 1/64 + 1/61 against d's 1/62 + 1/64).
	ns := []pipeline.Nugget{
		{ID: "a", QualityScore: 0.5, Popularity: 1},
		{ID: "b", QualityScore: 0.9, Popularity: 1},
		{ID: "c", QualityScore: 0.7, Popularity: 1},
		{ID: "d", QualityScore: 0.8, Popularity: 1},
	}
	var ids []string
	for _, n := range pipeline.RankNuggets(ns, 0) {
		ids = append(ids, n.ID)
	}
	if diff := cmp.Diff([]string{"b", "d", "c", "a"}, ids); diff != "" {
		t.Errorf("ranking (-want +got)\n%s", diff)
	}
}

func TestLinearScoreAndTextFeatures(t *testing.T) {
	f := map[string]float64{pipeline.FeatureTask: 1, pipeline.FeatureVital: 1}
	if got := pipeline.LinearScore(f, pipeline.DefaultWeights); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("score = %v, want 0.30 + 0.20", got)
	}
	easy := pipeline.TextFeatures("Who won?", "Lincoln.")
	hard := pipeline.TextFeatures("Which constitutional interpretation of congressional appropriations authority did the administration articulate regarding extraterritorial infrastructure expenditures?", "An expansive interpretation.")
	if easy[pipeline.FeatureReadability] <= hard[pipeline.FeatureReadability] {
		t.Errorf("readability: easy %v should exceed hard %v", easy, hard)
	}
	if easy[pipeline.FeatureComplexity] >= hard[pipeline.FeatureComplexity] {
		t.Errorf("complexity: easy %v should be below hard %v", easy, hard)
	}
	if z := pipeline.TextFeatures("", ""); z[pipeline.FeatureReadability] != 0 {
		t.Errorf("empty text features = %v", z)
	}
}

func TestAssemble(t *testing.T) {
	ns := []pipeline.Nugget{{ID: "n2", Rank: 2}, {ID: "n1", Rank: 1}, {ID: "n3", Rank: 3}}
	cit := func(d string) pipeline.Citation { return pipeline.Citation{DocID: d, Start: 0, End: 5} }
	cs := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "Tariffs rose in 1890.", Confidence: 0.6, Citation: cit("a")},
		{NuggetID: "n1", Sentence: "The McKinley Tariff raised duties.", Confidence: 0.9, Citation: cit("b")},
		{NuggetID: "n2", Sentence: "the mckinley tariff RAISED duties", Confidence: 0.8, Citation: cit("c")}, // duplicate after normalising
		{NuggetID: "n2", Sentence: "Duties fell later.", Confidence: 0.5, Citation: cit("d"), Supported: pipeline.VerdictNo},
		{NuggetID: "n3", Sentence: strings.Repeat("Long sentence words. ", 10), Confidence: 0.9, Citation: cit("e")}, // too long
		{NuggetID: "n3", Sentence: "Short fact.", Confidence: 0.3, Citation: cit("f")},
	}
	norm := func(s string) string { return strings.ToLower(strings.Trim(s, ".")) }
	got := pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: 60, Key: norm})
	var texts []string
	for _, s := range got {
		texts = append(texts, s.NuggetID+":"+s.Text+"@"+s.Citation.DocID)
	}
	want := []string{"n1:The McKinley Tariff raised duties.@b", "n3:Short fact.@f"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}
	r := pipeline.Report{Sentences: got}
	if r.Length() > 60 {
		t.Errorf("report length %d over the limit", r.Length())
	}
	if len(pipeline.Assemble(nil, nil, pipeline.AssembleOptions{K: 1, Limit: 100})) != 0 {
		t.Error("no nuggets should give no sentences")
	}
}

// TestAssembleByScore: with a score, the candidates are chosen across
// nuggets in decreasing score — a later nugget's promising sentence
// before an earlier nugget's, and a nugget's second candidate before its
// most confident one — still one per nugget (K) and within the limit;
// the chosen sentences are written in their nuggets' order, and the
// check verification makes still binds.
func TestAssembleByScore(t *testing.T) {
	ns := []pipeline.Nugget{{ID: "n1", Rank: 1}, {ID: "n2", Rank: 2}, {ID: "n3", Rank: 3}}
	cit := func(d string) pipeline.Citation { return pipeline.Citation{DocID: d, End: 5} }
	yes := pipeline.VerdictYes
	cs := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "A first nugget, long and confident, but weak evidence.", Confidence: 0.9, Citation: cit("a"), Supported: yes, Covers: yes},
		{NuggetID: "n1", Sentence: "B first nugget, short.", Confidence: 0.5, Citation: cit("b"), Supported: yes, Covers: yes},
		{NuggetID: "n2", Sentence: "C second nugget, best evidence of all.", Confidence: 0.4, Citation: cit("c"), Supported: yes, Covers: yes},
		{NuggetID: "n2", Sentence: "D second nugget again.", Confidence: 0.3, Citation: cit("d"), Supported: yes, Covers: yes},
		{NuggetID: "n3", Sentence: "E third nugget, unchecked.", Confidence: 0.9, Citation: cit("e")},
	}
	score := map[string]float64{"A": 0.1, "B": 0.5, "C": 0.9, "D": 0.8, "E": 1}
	byScore := func(c pipeline.Candidate) float64 { return score[c.Sentence[:1]] }
	texts := func(ss []pipeline.Sentence) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.NuggetID+":"+s.Text[:1])
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		limit    int
		verified bool
		want     []string
	}{
		// E, C (D is n2's second), B: written n1, n2, n3.
		{"room for all", 1000, false, []string{"n1:B", "n2:C", "n3:E"}},
		// E and C fill 65 of 70 characters; neither B nor D fits.
		{"room for two", 70, false, []string{"n2:C", "n3:E"}},
		// E was never checked: a verified run leaves it out.
		{"verified", 1000, true, []string{"n1:B", "n2:C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: tc.limit, Verified: tc.verified, Score: byScore})
			if diff := cmp.Diff(tc.want, texts(got)); diff != "" {
				t.Errorf("sentences (-want +got)\n%s", diff)
			}
		})
	}
	// Without a score the same candidates give each nugget its most
	// confident sentence in rank order.
	got := pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: 1000})
	if diff := cmp.Diff([]string{"n1:A", "n2:C", "n3:E"}, texts(got)); diff != "" {
		t.Errorf("without a score (-want +got)\n%s", diff)
	}
}

// TestAssembleSpreadsOverDocuments: with SameDocument, each sentence
// already chosen from a document multiplies the scores of that
// document's other candidates by the factor, so a third sentence of one
// address gives way to another address's first when their scores are
// close, not when they are far apart; the limit and the other rules
// still bind, and a factor of 0 or 1 leaves the order by score.
func TestAssembleSpreadsOverDocuments(t *testing.T) {
	ns := []pipeline.Nugget{{ID: "n1", Rank: 1}, {ID: "n2", Rank: 2}, {ID: "n3", Rank: 3}, {ID: "n4", Rank: 4}}
	cit := func(d string, start int) pipeline.Citation {
		return pipeline.Citation{DocID: d, Start: start, End: start + 5}
	}
	cs := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "A one.", Citation: cit("x", 0)},
		{NuggetID: "n2", Sentence: "B two.", Citation: cit("x", 10)},
		{NuggetID: "n3", Sentence: "C three.", Citation: cit("x", 20)},
		{NuggetID: "n4", Sentence: "D four.", Citation: cit("y", 0)},
	}
	texts := func(ss []pipeline.Sentence) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Text[:1])
		}
		return strings.Join(out, "")
	}
	for _, tc := range []struct {
		name   string
		score  map[string]float64
		factor float64
		limit  int
		want   string
	}{
		// Room for three sentences. Without the factor, x's three best
		// fill it.
		{"by score", map[string]float64{"A": 1, "B": 0.9, "C": 0.8, "D": 0.7}, 0, 22, "ABC"},
		{"factor 1", map[string]float64{"A": 1, "B": 0.9, "C": 0.8, "D": 0.7}, 1, 22, "ABC"},
		// After A, B weighs 0.9 × 0.8 = 0.72 against D's 0.7: B; then C
		// weighs 0.8 × 0.64 = 0.512 against 0.7: D, y's first.
		{"close scores", map[string]float64{"A": 1, "B": 0.9, "C": 0.8, "D": 0.7}, 0.8, 22, "ABD"},
		// Far apart: D's 0.1 loses to C's 0.512.
		{"far apart", map[string]float64{"A": 1, "B": 0.9, "C": 0.8, "D": 0.1}, 0.8, 22, "ABC"},
		// Room for two: the limit still binds.
		{"limit", map[string]float64{"A": 1, "B": 0.9, "C": 0.8, "D": 0.7}, 0.8, 13, "AB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			score := func(c pipeline.Candidate) float64 { return tc.score[c.Sentence[:1]] }
			got := pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: tc.limit, Score: score, SameDocument: tc.factor})
			if g := texts(got); g != tc.want {
				t.Errorf("sentences %q, want %q", g, tc.want)
			}
		})
	}
}

// A sentence citing words an earlier sentence already cites (the same
// sentence with the next one joined to it) is a repetition: the nugget
// takes its next candidate.
func TestAssembleDropsOverlappingSpans(t *testing.T) {
	ns := []pipeline.Nugget{{ID: "n1", Rank: 1}, {ID: "n2", Rank: 2}, {ID: "n3", Rank: 3}}
	cs := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "The bank held the funds. It refused to pay.", Confidence: 0.9, Citation: pipeline.Citation{DocID: "a", Start: 100, End: 150}},
		{NuggetID: "n2", Sentence: "The bank held the funds longer than anticipated.", Confidence: 0.9, Citation: pipeline.Citation{DocID: "a", Start: 100, End: 124}},
		{NuggetID: "n2", Sentence: "Its charter ran out in 1836.", Confidence: 0.5, Citation: pipeline.Citation{DocID: "a", Start: 150, End: 180}},
		{NuggetID: "n3", Sentence: "The same words in another document.", Confidence: 0.9, Citation: pipeline.Citation{DocID: "b", Start: 100, End: 124}},
	}
	var got []string
	for _, s := range pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: 1000}) {
		got = append(got, s.NuggetID+":"+s.Text)
	}
	want := []string{"n1:The bank held the funds. It refused to pay.", "n2:Its charter ran out in 1836.", "n3:The same words in another document."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}
}

// TestAssembleFailsClosed: with verification on, a nugget whose checked
// candidates all failed gets no sentence, and no unchecked candidate
// (one verification did not reach) is taken in their place; without
// verification the same candidates give the next, unchecked one.
func TestAssembleFailsClosed(t *testing.T) {
	ns := []pipeline.Nugget{{ID: "n1", Rank: 1}, {ID: "n2", Rank: 2}}
	cit := func(d string) pipeline.Citation { return pipeline.Citation{DocID: d, End: 5} }
	yes, no := pipeline.VerdictYes, pipeline.VerdictNo
	cs := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "A one fails support.", Confidence: 0.9, Citation: cit("a"), Supported: no, Covers: yes},
		{NuggetID: "n1", Sentence: "B two fails coverage.", Confidence: 0.8, Citation: cit("b"), Supported: yes, Covers: no},
		{NuggetID: "n1", Sentence: "C three unverified.", Confidence: 0.7, Citation: cit("c")},
		{NuggetID: "n1", Sentence: "D four half checked.", Confidence: 0.6, Citation: cit("d"), Supported: yes},
		{NuggetID: "n2", Sentence: "E five passes.", Confidence: 0.5, Citation: cit("e"), Supported: yes, Covers: yes},
	}
	texts := func(ss []pipeline.Sentence) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.NuggetID+":"+s.Text)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		verified bool
		want     []string
	}{
		{"verified", true, []string{"n2:E five passes."}},
		{"not verified", false, []string{"n1:C three unverified.", "n2:E five passes."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pipeline.Assemble(ns, cs, pipeline.AssembleOptions{K: 1, Limit: 1000, Verified: tc.verified})
			if diff := cmp.Diff(tc.want, texts(got)); diff != "" {
				t.Errorf("sentences (-want +got)\n%s", diff)
			}
			for _, s := range got {
				if tc.verified && (s.Supported != yes || s.Covers != yes) {
					t.Errorf("verified report holds %q with verdicts %q/%q", s.Text, s.Supported, s.Covers)
				}
			}
		})
	}
}

func TestVerificationSummary(t *testing.T) {
	yes, no := pipeline.VerdictYes, pipeline.VerdictNo
	for _, tc := range []struct {
		name   string
		r      pipeline.Report
		want   pipeline.VerificationSummary
		wantTx string
	}{
		{
			name: "verified, all checked",
			r: pipeline.Report{Settings: pipeline.Settings{Verify: true}, DroppedUnsupported: 3, Sentences: []pipeline.Sentence{
				{NuggetID: "n1", Supported: yes, Covers: yes}, {NuggetID: "n2", Supported: yes, Covers: yes}}},
			want:   pipeline.VerificationSummary{Verified: true, Dropped: 3, Sentences: 2},
			wantTx: "3 candidate sentences dropped as unsupported by verification · 0 of 2 sentences unchecked",
		},
		{
			name: "verified, edited and quoted by hand",
			r: pipeline.Report{Settings: pipeline.Settings{Verify: true}, DroppedUnsupported: 1, Sentences: []pipeline.Sentence{
				{NuggetID: "n1"},                               // edited: verdicts cleared
				{NuggetID: "", Supported: yes},                 // quoted without a nugget: support is all there is to check
				{NuggetID: "n2", Supported: yes},               // coverage not checked
				{NuggetID: "n3", Supported: no, Covers: yes}}}, // swapped in, failed
			want:   pipeline.VerificationSummary{Verified: true, Dropped: 1, Sentences: 4, Unchecked: 2, Failed: 1},
			wantTx: "1 candidate sentence dropped as unsupported by verification · 2 of 4 sentences unchecked · 1 failed a check",
		},
		{
			name:   "not verified",
			r:      pipeline.Report{Sentences: make([]pipeline.Sentence, 12)},
			want:   pipeline.VerificationSummary{Sentences: 12, Unchecked: 12},
			wantTx: "12 of 12 sentences unchecked (verification was off)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.r.Verification()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("summary (-want +got)\n%s", diff)
			}
			if tx := got.Text(); tx != tc.wantTx {
				t.Errorf("text %q, want %q", tx, tc.wantTx)
			}
		})
	}
	d := pipeline.DraftSentence{Sentence: pipeline.Sentence{NuggetID: "n", Supported: yes, Covers: yes}, Recheck: true}
	if !d.Unchecked() {
		t.Error("a sentence marked for re-check must count as unchecked")
	}
	cands := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "a", Supported: no},
		{NuggetID: "n1", Sentence: "b", Covers: no},
		{NuggetID: "n1", Sentence: "c"},
		{NuggetID: "n1", Sentence: "", Supported: no},
		{NuggetID: "gone", Sentence: "d", Supported: no},
	}
	if got := pipeline.DroppedUnsupported([]pipeline.Nugget{{ID: "n1"}}, cands); got != 2 {
		t.Errorf("DroppedUnsupported = %d, want 2", got)
	}
}

func TestOutcomeOf(t *testing.T) {
	yes, no := pipeline.VerdictYes, pipeline.VerdictNo
	passed := pipeline.Candidate{Sentence: "p", Supported: yes, Covers: yes}
	failed := pipeline.Candidate{Sentence: "f", Supported: no, Covers: yes}
	unchecked := pipeline.Candidate{Sentence: "u"}
	for _, tc := range []struct {
		name      string
		sentences int
		cands     []pipeline.Candidate
		verified  bool
		want      pipeline.NuggetResult
	}{
		{"answered", 1, []pipeline.Candidate{passed}, true, pipeline.NuggetResult{Outcome: pipeline.OutcomeAnswered, Candidates: 1, Checked: 1}},
		{"no candidate", 0, []pipeline.Candidate{{Sentence: ""}}, true, pipeline.NuggetResult{Outcome: pipeline.OutcomeNoCandidate}},
		{"all checked failed", 0, []pipeline.Candidate{failed, failed, unchecked}, true,
			pipeline.NuggetResult{Outcome: pipeline.OutcomeNoSupported, Candidates: 3, Checked: 2, Failed: 2}},
		{"a passed one left out", 0, []pipeline.Candidate{failed, passed}, true,
			pipeline.NuggetResult{Outcome: pipeline.OutcomeLeftOut, Candidates: 2, Checked: 2, Failed: 1}},
		{"unverified, unchecked left out", 0, []pipeline.Candidate{unchecked}, false,
			pipeline.NuggetResult{Outcome: pipeline.OutcomeLeftOut, Candidates: 1}},
		{"verified, only unchecked", 0, []pipeline.Candidate{unchecked}, true,
			pipeline.NuggetResult{Outcome: pipeline.OutcomeNoSupported, Candidates: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, pipeline.OutcomeOf(tc.sentences, tc.cands, tc.verified)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestCitationOverlaps(t *testing.T) {
	a := pipeline.Citation{DocID: "d", Ordinal: 2, Start: 100, End: 150}
	for _, tc := range []struct {
		b    pipeline.Citation
		want bool
	}{
		{pipeline.Citation{DocID: "d", Ordinal: 2, Start: 120, End: 130}, true},  // inside
		{pipeline.Citation{DocID: "d", Ordinal: 3, Start: 140, End: 400}, true},  // across passages
		{pipeline.Citation{DocID: "d", Ordinal: 2, Start: 150, End: 180}, false}, // touching
		{pipeline.Citation{DocID: "e", Ordinal: 2, Start: 100, End: 150}, false}, // another document
	} {
		if got := a.Overlaps(tc.b); got != tc.want || tc.b.Overlaps(a) != tc.want {
			t.Errorf("%+v overlaps %+v = %v, want %v both ways", a, tc.b, got, tc.want)
		}
	}
}
