package crucible

import (
	"context"
	"math"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// topicality estimates how likely a report sentence is to be on the
// request's topic, for the choice of sentences (ChooseSentences): the
// sentence's promise (choiceScore) is multiplied by this estimate, so
// that of two sentences promising a fact the one a reader would find
// about the request goes first. It reads the topic from
// the best passages for the title alone, the request's shortest statement
// of its topic, by term lifts (how many times more often a term occurs
// among those passages than in the collection), over the terms of the
// text a sentence cites (not of its attribution: see topicTerms): a title
// term its passages favour ("Korea" of "Relations with Korea") weighs
// more than one they do not ("relations").
//
// The estimate is a logistic model over TopicFeatures and three of the
// choice's own features (topicInputs), fitted on candidates whose
// topicality a reader judged by meaning (testdata/eval/judged/candidates.jsonl,
// refitted with testdata/eval/fit_choice.py --judged).
type topicality struct {
	titleTerms []string           // the title's own terms, no request words or numbers
	titleLift  map[string]float64 // ln lift of the terms of the title's best passages
}

// TopicFeatures name the features of the topicality estimate a candidate
// has beside ChoiceFeatures; they are written after ChoiceFeatures in a
// Choice.
var TopicFeatures = []string{
	"title_share",     // share of the title's terms the sentence holds, each weighted by its lift among the title's best passages
	"title_lift",      // the largest ln lift among the title's best passages of a term the sentence holds
	"document_nugget", // 1 when the candidate answers a nugget drawn from a retrieved document's summary (DocumentNuggetPrefix), else 0
}

// topicInputs are the features the topic estimate reads, by name (of
// ChoiceFeatures or TopicFeatures), in the order of topicWeights.
var topicInputs = []string{"passage_rank", "anchors", "facet_words", "title_share", "title_lift", "document_nugget"}

// topicBias and topicWeights are the logistic model of the estimate over
// topicInputs. Fitted in session 52 on the 3,876 candidates of 108
// requests of nine used sets (offline-v78 / crucible-pipeline-v36) that a
// reader judged on topic or not by meaning
// (testdata/eval/judged/candidates.jsonl; 0.618 of them on topic by the
// reader, 0.783 by the topic lists), with fit_choice.py --judged: left
// one set out in turn, its area under the ROC curve against the reader
// is 0.805, where the estimate it replaces (fitted on the topic lists,
// over title_share, the largest lift among the request's best passages
// and passage_rank) has 0.747. In the pipeline over the 97 used sets the
// mean on-topic share by the topic lists rose from 0.8686 to 0.8714 with
// the gold facts level (4,006 → 4,001), and on 72 of their requests not
// fitted on a reader found the reports' sentences on topic 0.798 of the
// time against 0.789 (docs/pipeline.md, "The choice's topic estimate
// fitted on a reader's judgements"; its square and cube were measured
// and not kept).
var (
	topicBias    = -1.8113
	topicWeights = []float64{-7.2319, 0.1451, 0.6657, 2.3700, 0.2556, -0.3094}
)

// topicIndex is the place of each of topicInputs in a candidate's
// features (ChoiceFeatures, then TopicFeatures).
var topicIndex = func() []int {
	all := append(append([]string(nil), ChoiceFeatures...), TopicFeatures...)
	idx := make([]int, len(topicInputs))
	for i, name := range topicInputs {
		idx[i] = -1
		for j, f := range all {
			if f == name {
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			panic("crucible: topic input " + name + " is no feature")
		}
	}
	return idx
}()

// topicPassages is how many of the title's best passages its terms are
// weighed by, and liftMinCount in how many of a ranking's passages a term
// must occur to have a lift.
const (
	topicPassages = 100
	liftMinCount  = 3
)

// newTopicality reads the request's topic from the best passages for its
// title, searched here.
func newTopicality(ctx context.Context, req pipeline.Request, search pipeline.Searcher, terms func(string) []string, docFreq DocFreq) (*topicality, error) {
	if terms == nil || docFreq == nil {
		return nil, nil
	}
	t := &topicality{}
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

// features returns a candidate's TopicFeatures given the terms it is
// read by (topicTerms). Without a topic model the terms' features are 0.
func (t *topicality) features(c pipeline.Candidate, sentenceTerms map[string]bool) []float64 {
	document := 0.0
	if strings.HasPrefix(c.NuggetID, DocumentNuggetPrefix) {
		document = 1
	}
	if t == nil {
		return []float64{0, 0, document}
	}
	var titleLift float64
	for w := range sentenceTerms {
		titleLift = math.Max(titleLift, t.titleLift[w])
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
	return []float64{share, titleLift, document}
}

// topicEstimate is the estimate that a candidate with features x
// (ChoiceFeatures, then TopicFeatures) is on topic.
func topicEstimate(x []float64) float64 {
	z := topicBias
	for i, w := range topicWeights {
		z += w * x[topicIndex[i]]
	}
	return 1 / (1 + math.Exp(-z))
}
