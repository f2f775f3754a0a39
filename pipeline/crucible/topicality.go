package crucible

import (
	"context"
	"math"

	"github.com/crucible-portal/crucible/pipeline"
)

// topicality estimates how likely a report sentence is to be on the
// request's topic, for the choice of sentences (ChooseSentences): the
// sentence's promise (choiceScore) is multiplied by this estimate, so
// that of two sentences promising a fact the one that
// names what the request is about goes first. It reads the topic from two
// relevance models, term lifts (how many times more often a term occurs
// among a ranking's best passages than in the collection), over the terms
// of the text a sentence cites (not of its attribution: see topicTerms):
//
//   - of the request's best passages (those the subject is read from);
//   - of the best passages for the title alone, the request's shortest
//     statement of its topic, which weigh the title's own terms: a title
//     term its passages favour ("Korea" of "Relations with Korea") weighs
//     more than one they do not ("relations").
//
// The estimate is a logistic model over three features (TopicFeatures),
// fitted on the sotu evaluation sets' topic terms (a sentence holding one
// counted on topic) with testdata/eval/fit_choice.py --topics.
type topicality struct {
	lift       map[string]float64 // ln lift of the terms of the request's best passages
	titleTerms []string           // the title's own terms, no request words or numbers
	titleLift  map[string]float64 // ln lift of the terms of the title's best passages
}

// TopicFeatures name the features of the topicality estimate, in the
// order of topicWeights; they are written after ChoiceFeatures in a
// Choice.
var TopicFeatures = []string{
	"title_share", // share of the title's terms the sentence holds, each weighted by its lift among the title's best passages
	"max_lift",    // the largest ln lift among the request's best passages of a term the sentence holds
}

// topicBias and topicWeights are the logistic model of the estimate,
// over TopicFeatures and the cited passage's rank (ChoiceFeatures'
// passage_rank). Fitted on sotu … sotu17 (4,017 candidates of the
// offline engine, a candidate counted on topic when it holds one of its
// request's topic terms) with fit_choice.py --topics; left one set out in
// turn, the choice found 659 gold facts against 655 without the
// estimate, and the mean share of on-topic sentences rose from 0.833 to
// 0.849, on 15 of the 17 sets (docs/pipeline.md, "Choosing sentences on
// topic").
var (
	topicBias    = -2.5488
	topicWeights = []float64{3.6477, 0.9602, -4.0149}
)

// topicPassages is how many of the title's best passages its terms are
// weighed by, and liftMinCount in how many of a ranking's passages a term
// must occur to have a lift.
const (
	topicPassages = 100
	liftMinCount  = 3
)

// newTopicality reads the request's topic from its best passages (texts)
// and from the best passages for its title, searched here.
func newTopicality(ctx context.Context, req pipeline.Request, best []string, search pipeline.Searcher, terms func(string) []string, docFreq DocFreq) (*topicality, error) {
	if terms == nil || docFreq == nil {
		return nil, nil
	}
	t := &topicality{}
	var err error
	if t.lift, err = lifts(ctx, best, terms, docFreq); err != nil {
		return nil, err
	}
	// The title without what it leaves aside ("..., apart from Germany
	// and Japan, 1946-1948").
	title := req.AskedTitle()
	if search != nil && title != "" {
		res, err := search.Search(ctx, pipeline.SearchRequest{Query: title, K: topicPassages})
		if err != nil {
			return nil, err
		}
		titleBest := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			titleBest[i] = h.Text
		}
		if t.titleLift, err = lifts(ctx, titleBest, terms, docFreq); err != nil {
			return nil, err
		}
	}
	meta := map[string]bool{}
	for _, w := range terms(pipeline.RequestWords) {
		meta[w] = true
	}
	seen := map[string]bool{}
	for _, w := range terms(title) {
		if !meta[w] && !hasDigit(w) && !seen[w] {
			seen[w] = true
			t.titleTerms = append(t.titleTerms, w)
		}
	}
	return t, nil
}

// lifts returns the natural log of each term's lift among passages (the
// share of them holding it over the share of the collection's passages
// holding it), for the terms in liftMinCount of them at least whose lift
// is above 1.
func lifts(ctx context.Context, passages []string, terms func(string) []string, docFreq DocFreq) (map[string]float64, error) {
	count := map[string]int{}
	for _, p := range passages {
		seen := map[string]bool{}
		for _, t := range terms(p) {
			if !seen[t] {
				seen[t] = true
				count[t]++
			}
		}
	}
	var asked []string
	for t, c := range count {
		if c >= liftMinCount {
			asked = append(asked, t)
		}
	}
	out := map[string]float64{}
	if len(asked) == 0 {
		return out, nil
	}
	units, df, err := docFreq(ctx, asked)
	if err != nil {
		return nil, err
	}
	if units == 0 {
		return out, nil
	}
	for _, t := range asked {
		share := math.Max(float64(df[t]), 1) / float64(units)
		if l := float64(count[t]) / float64(len(passages)) / share; l > 1 {
			out[t] = math.Log(l)
		}
	}
	return out, nil
}

// features returns the sentence's TopicFeatures given its terms.
func (t *topicality) features(sentenceTerms map[string]bool) []float64 {
	if t == nil {
		return make([]float64, len(TopicFeatures))
	}
	var maxLift float64
	for w := range sentenceTerms {
		maxLift = math.Max(maxLift, t.lift[w])
	}
	var held, all float64
	for _, w := range t.titleTerms {
		weight := t.titleLift[w] + 0.1 // a title term no passage favours still counts a little
		all += weight
		if sentenceTerms[w] {
			held += weight
		}
	}
	share := 0.0
	if all > 0 {
		share = held / all
	}
	return []float64{share, maxLift}
}

// topicEstimate is the estimate that a sentence with topic features x,
// citing a passage of the given rank feature (passage_rank), is on topic.
func topicEstimate(x []float64, rank float64) float64 {
	z := topicBias + topicWeights[len(topicWeights)-1]*rank
	for i, v := range x {
		z += topicWeights[i] * v
	}
	return 1 / (1 + math.Exp(-z))
}
