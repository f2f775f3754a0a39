package crucible

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// TestSentenceScore: the choice of sentences favours, other things being
// equal, a better-ranked cited passage, a passage other nuggets' candidates
// cite too, the problem statement's words, an earlier turn, the
// shorter sentence, figures in what the sentence says (not in its
// attribution's year), and the words of one of the request's facets.
func TestSentenceScore(t *testing.T) {
	r := &run{e: &Engine{Terms: words},
		req:     pipeline.Request{Title: "Canal tolls", ProblemStatement: "Describe the tolls charged on the Panama canal and the treaty with Britain."},
		subject: &subject{terms: words, anchors: map[string]bool{"canal": true, "tolls": true}},
		passageRank: map[string]int{
			pipeline.PassageID("a", 0): 0, pipeline.PassageID("b", 0): 90, pipeline.PassageID("c", 0): 5,
		},
		facetList: []pipeline.Facet{
			{Heading: "Tolls charged", Description: "the tolls charged on the canal"},
			{Heading: "Arbitration of the tolls", Description: "the arbitration the treaty provided for the tolls dispute"},
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
	score := r.sentenceScore(context.Background(), pipeline.NewFacetMatcher(r.facetList, words), turns, cands)
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
		{"figures", pipeline.Candidate{NuggetID: "n1", Sentence: "The ships paid $1,250,000 in 1913, 40 percent more.", Citation: at("a")},
			pipeline.Candidate{NuggetID: "n1", Sentence: "The ships paid what was asked in that year, and more.", Citation: at("a")}},
		{"a facet's words", pipeline.Candidate{NuggetID: "n1", Sentence: "The ships paid what the arbitration asked in that year.", Citation: at("a")},
			pipeline.Candidate{NuggetID: "n1", Sentence: "The ships paid what the governments asked in that year.", Citation: at("a")}},
	} {
		if b, w := score(tc.better), score(tc.worse); b <= w {
			t.Errorf("%s: %.4f is not above %.4f", tc.name, b, w)
		}
	}
	// The feature counts the figures of what a document says, up to four:
	// the year the attribution gives is the metadata's, not a fact.
	features := r.choiceFeatures(context.Background(), pipeline.NewFacetMatcher(r.facetList, words), turns, cands)
	figures, facetWords := featureIndex(t, "figures"), featureIndex(t, "facet_words")
	for _, tc := range []struct {
		sentence string
		want     float64
	}{
		{"In 1913, Wilson reported that the ships paid $1,250,000 in tolls.", 1},
		{"In 1913, Wilson reported: \u201cThe tolls were fair.\u201d", 0},
		{"The canal opened in 1914 and took 5,000 ships, 12 a day, in 1915 and 1916.", 4},
	} {
		if got := features(pipeline.Candidate{NuggetID: "n1", Sentence: tc.sentence, Citation: at("a")})[figures]; got != tc.want {
			t.Errorf("figures of %q = %v, want %v", tc.sentence, got, tc.want)
		}
	}
	// The facet words are those of the facet the sentence shares most
	// with, a word two facets share counting 1/2, its attribution aside.
	for _, tc := range []struct {
		sentence string
		want     float64
	}{
		{"In 1913, Wilson reported that the arbitration of the dispute was refused.", 2},
		{"In 1913, Wilson reported that the tolls were charged.", 1.5},
		{"In 1913, Wilson reported that the tolls were fair.", 0.5},
		{"In 1913, Wilson reported that the ships sailed.", 0},
	} {
		if got := features(pipeline.Candidate{NuggetID: "n1", Sentence: tc.sentence, Citation: at("a")})[facetWords]; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("facet words of %q = %v, want %v", tc.sentence, got, tc.want)
		}
	}
}

// TestDocumentNuggetsWeighedForTopic: the topic estimate knows a
// document nugget's candidate (document_nugget), which a reader finds on
// topic less often than a facet nugget's or the fill's; the score
// assembly uses is the one the --choices file records.
func TestDocumentNuggetsWeighedForTopic(t *testing.T) {
	r := &run{e: &Engine{Terms: words},
		req:         pipeline.Request{Title: "Canal tolls", ProblemStatement: "Describe the tolls charged on the Panama canal."},
		subject:     &subject{terms: words, anchors: map[string]bool{"canal": true, "tolls": true}},
		passageRank: map[string]int{pipeline.PassageID("a", 0): 0},
	}
	const sentence = "The ships paid $1,250,000 in canal tolls in 1913."
	at := pipeline.Citation{DocID: "a"}
	doc := pipeline.Candidate{NuggetID: DocumentNuggetPrefix + "1.1", Sentence: sentence, Citation: at}
	facet := pipeline.Candidate{NuggetID: FacetNuggetPrefix + "1.1", Sentence: sentence, Citation: at}
	fill := pipeline.Candidate{NuggetID: FillNuggetPrefix + "1", Sentence: sentence, Citation: at}
	turns := []pipeline.Nugget{{ID: doc.NuggetID, Rank: 1}, {ID: facet.NuggetID, Rank: 1}}
	score := r.sentenceScore(context.Background(), pipeline.NewFacetMatcher(nil, words), turns, []pipeline.Candidate{doc, facet, fill})
	features := r.choiceFeatures(context.Background(), pipeline.NewFacetMatcher(nil, words), turns, []pipeline.Candidate{doc, facet, fill})
	kind := len(ChoiceFeatures) + slices.Index(TopicFeatures, "document_nugget")
	for _, tc := range []struct {
		c    pipeline.Candidate
		want float64
	}{{doc, 1}, {facet, 0}, {fill, 0}} {
		x := features(tc.c)
		if x[kind] != tc.want {
			t.Errorf("%s: document_nugget %v, want %v", tc.c.NuggetID, x[kind], tc.want)
		}
		if got, want := score(tc.c), choiceScore(tc.c, x); got != want {
			t.Errorf("%s's score %v, want the model's %v", tc.c.NuggetID, got, want)
		}
	}
	// The same features but the kind: the document nugget's estimate is
	// the lower.
	x := features(doc)
	other := append([]float64(nil), x...)
	other[kind] = 0
	if topicEstimate(x) >= topicEstimate(other) {
		t.Errorf("a document nugget's on-topic estimate %.3f, not below %.3f for another kind", topicEstimate(x), topicEstimate(other))
	}
}

// featureIndex is the place of a feature in ChoiceFeatures.
func featureIndex(t *testing.T, name string) int {
	t.Helper()
	for i, f := range ChoiceFeatures {
		if f == name {
			return i
		}
	}
	t.Fatalf("ChoiceFeatures has no %q", name)
	return -1
}

// TestChoiceScoreWeighsTopicAndLength: the choice's score is the fact
// estimate times the on-topic estimate (not its square root), per the
// sentence's length to the power lengthPower: a sentence twice as long
// must promise 2^0.75 times as much, and one half as likely on topic
// scores half.
func TestChoiceScoreWeighsTopicAndLength(t *testing.T) {
	x := make([]float64, len(ChoiceFeatures)+len(TopicFeatures))
	short := pipeline.Candidate{Sentence: strings.Repeat("a", 99)}
	long := pipeline.Candidate{Sentence: strings.Repeat("a", 199)}
	if got, want := choiceScore(short, x)/choiceScore(long, x), math.Pow(2, lengthPower); math.Abs(got-want) > 1e-9 {
		t.Errorf("a sentence half as long scores %.4f times as much, want %.4f", got, want)
	}
	// Two feature vectors whose on-topic estimates differ: the scores
	// differ by the estimates' ratio.
	onTopic := append([]float64(nil), x...)
	onTopic[len(ChoiceFeatures)] = 1 // the title's terms all held
	ratio := topicEstimate(onTopic) / topicEstimate(x)
	if ratio < 2 {
		t.Fatalf("test set-up: on-topic estimates %.2f apart, want a wider gap", ratio)
	}
	if got := choiceScore(short, onTopic) / choiceScore(short, x); math.Abs(got-ratio) > 1e-9 {
		t.Errorf("the on-topic estimate %.4f times as high gives a score %.4f times as high", ratio, got)
	}
}

// TestTopicality: lifts are read from a ranking's best passages against
// the collection; the topic estimate weighs the title's terms by their
// lift among the title's passages and raises the estimate of a sentence
// that names what the title is about.
func TestTopicality(t *testing.T) {
	ctx := context.Background()
	// A collection of 1,000 passages; "korea" is in 10 of them, "treaty"
	// in 100, "relations" in 400.
	docFreq := func(_ context.Context, ts []string) (int, map[string]int, error) {
		df := map[string]int{"korea": 10, "treaty": 100, "relations": 400, "the": 1000, "with": 1000}
		out := map[string]int{}
		for _, t := range ts {
			out[t] = df[t]
		}
		return 1000, out, nil
	}
	best := []string{"the treaty with korea", "korea and the treaty", "relations with korea", "the treaty"}
	l, err := lifts(ctx, best, words, docFreq)
	if err != nil {
		t.Fatal(err)
	}
	// korea: in 3 of 4 passages against 1% of the collection, lift 75;
	// treaty: 3 of 4 against 10%, lift 7.5; "relations" (1 passage) and
	// "the" (lift 0.75) have none.
	if math.Abs(l["korea"]-math.Log(75)) > 1e-9 || math.Abs(l["treaty"]-math.Log(7.5)) > 1e-9 {
		t.Errorf("lifts %v", l)
	}
	if _, ok := l["relations"]; ok {
		t.Errorf("a term in fewer than %d passages has a lift: %v", liftMinCount, l)
	}
	if _, ok := l["the"]; ok {
		t.Errorf("a term no more frequent than in the collection has a lift: %v", l)
	}
	search := passageSearcher{hits: []pipeline.Hit{{Text: "relations with korea"}, {Text: "korea"}, {Text: "korea treaty"}, {Text: "the treaty with korea"}}}
	top, err := newTopicality(ctx, pipeline.Request{Title: "Relations with Korea"}, search, words, docFreq)
	if err != nil {
		t.Fatal(err)
	}
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range words(s) {
			m[w] = true
		}
		return m
	}
	// x is a candidate's whole feature vector with these topic features,
	// the cited passage at the given rank feature.
	x := func(topic []float64, rank float64) []float64 {
		v := make([]float64, len(ChoiceFeatures), len(ChoiceFeatures)+len(TopicFeatures))
		v[0] = rank
		return append(v, topic...)
	}
	fill := pipeline.Candidate{NuggetID: FillNuggetPrefix + "1"}
	naming, other := top.features(fill, set("the envoy to korea")), top.features(fill, set("the envoy to peru"))
	if !(naming[0] > 0.9 && other[0] < 0.1) {
		t.Errorf("title share: %v for a sentence naming korea, %v for one that does not", naming, other)
	}
	// korea is in all four of the title's passages against 1% of the
	// collection: lift 100.
	if math.Abs(naming[1]-math.Log(100)) > 1e-9 || other[1] != 0 {
		t.Errorf("title lift: %v for a sentence naming korea (want ln 100), %v for one that does not", naming[1], other[1])
	}
	if topicEstimate(x(naming, 0)) <= topicEstimate(x(other, 0)) {
		t.Errorf("estimate %.3f for the sentence naming the topic, %.3f for the other", topicEstimate(x(naming, 0)), topicEstimate(x(other, 0)))
	}
	if topicEstimate(x(naming, 0)) <= topicEstimate(x(naming, 1)) {
		t.Error("a worse-ranked passage should lower the estimate")
	}
	var none *topicality
	if f := none.features(fill, set("korea")); len(f) != len(TopicFeatures) || f[0] != 0 || f[1] != 0 {
		t.Errorf("features without a topic model = %v", f)
	}
}

// nuggetFacets files each kept nugget under the facet its best candidate
// speaks of, as the facets' turns do, for the --choices file; a request
// of one facet files none.
func TestNuggetFacets(t *testing.T) {
	facets := []pipeline.Facet{{Heading: "The tariff", Description: "duties on imports"}, {Heading: "The treaty", Description: "the Treaty of Ghent"}}
	kept := []pipeline.Nugget{{ID: "n1"}, {ID: "n2"}, {ID: "n3"}}
	about := map[string]string{"n1": "The McKinley tariff raised duties on imports.", "n2": "Madison signed the Treaty of Ghent."}
	got := nuggetFacets(pipeline.NewFacetMatcher(facets, words), kept, about, nil)
	want := map[string]string{"n1": "The tariff", "n2": "The treaty", "n3": pipeline.OtherFacet}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nuggetFacets (-want +got)\n%s", diff)
	}
	if got := nuggetFacets(pipeline.NewFacetMatcher(facets[:1], words), kept, about, nil); got != nil {
		t.Errorf("one facet: %v, want none", got)
	}
}
