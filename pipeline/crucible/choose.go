package crucible

import (
	"context"
	"math"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// ChoiceFeatures name the features of a candidate sentence that the
// choice of sentences weighs (pipeline.Heuristics.ChooseSentences), in
// the order of Choice.Features and choiceWeights.
var ChoiceFeatures = []string{
	"passage_rank",  // rank of the cited passage among the request's best (from 0), at most 200, over 200
	"shared",        // kept nuggets with a candidate in the same passage
	"problem_words", // distinct terms of the problem statement the sentence holds
	"turn",          // the nugget's place in the facets' turns (from 0), over the kept nuggets
	"quality",       // the nugget's quality score
	"anchors",       // distinct anchors of the subject the sentence holds, at most 4
	"title_words",   // distinct terms of the title the sentence holds, at most 4
	"length",        // characters, over 300
	"figures",       // figures (sums, counts, dates) in what the sentence says, its attribution aside, at most 4
	"facet_words",   // how much of the wording of the facet it shares most with the sentence holds, its attribution aside (pipeline.FacetMatcher.Affinity), at most 4
}

// choiceBias and choiceWeights are the logistic model that estimates how
// likely a candidate sentence is to state one of the facts a reader of
// the report wants. First fitted on the 13 sotu evaluation sets with
// testdata/eval/fit_choice.py (left one set out in turn, 486 gold facts
// against 457 for each nugget's most confident candidate in rank order;
// docs/pipeline.md, "Choosing sentences"). In session 30 the figures
// feature was added and the weights refitted on the 55 used sets (sotu …
// sotu55, 23,310 candidates, a candidate a hit when it holds a gold
// answer), all but two: the bias and the nugget quality's weight stay as
// first fitted. The refit turned quality's weight negative (-0.14) and
// raised the bias (-1.14), and those two alone cost summhay-news 4 and 2
// of its 104 claims (the full refit 11), while the rest of the refit
// holds there (105). In the pipeline, 2,226 → 2,259 gold facts and 0.865
// → 0.870 on topic over the 55 sets (docs/pipeline.md, "Figures in the
// choice"). In session 36 the facet words joined with a weight of their
// own, the others as they were: a full refit on the 71 used sets found
// more gold facts there (2,853 against 2,829) but cost summhay-news 19
// of its 107 claims (7 with the facet words left at 0 for requests of
// one facet), and the facet words beside the other weights as they were
// none, once they are 0 for a request of one facet (12 otherwise: its
// requests have one facet, whose words the problem statement's already
// count); 0.45 was the best of
// 0.3, 0.45, 0.6 and 0.8 in fit_choice.py's replay, 2,777 → 2,829 gold
// facts and 0.860 → 0.864 on topic in the pipeline (docs/pipeline.md,
// "The facets' own words in the choice").
var (
	choiceBias    = -1.6223
	choiceWeights = []float64{-4.4454, 0.1145, 0.1308, -0.8706, 0.3442, 0.2111, 0.0782, -0.3416, 0.0883, 0.45}
)

// sameDocumentFactor is what the choice multiplies a candidate's score
// by for each sentence already chosen from its document
// (pipeline.AssembleOptions.SameDocument): the gold sets spread a
// request's facts over several addresses, and a reader expects a survey
// of the addresses rather than one address quoted at length. Chosen in
// fit_choice.py's left-one-set-out replay over sotu … sotu29 (1,077 gold
// facts without it; 0.9, 0.8, 0.7 and 0.5 gave 1,090, 1,096, 1,096 and
// 1,087, the mean on-topic share equal but at 0.5); in the pipeline,
// 1,180 → 1,191 facts on those sets (docs/pipeline.md, "A survey of the
// addresses").
const sameDocumentFactor = 0.8

// Choice is one candidate assembly was offered when it chose sentences
// by their promise: its features (ChoiceFeatures, then TopicFeatures) and
// score.
type Choice struct {
	Candidate pipeline.Candidate
	Features  []float64
	Score     float64
	// Facet is the heading of the facet the candidate's nugget takes its
	// turns under ("" when the request has fewer than two facets).
	Facet string
}

// ChoiceObserver is an optional Observer extension that receives the
// candidates assembly chose from and their scores, when it chose by
// them: what testdata/eval/fit_choice.py refits the model on.
type ChoiceObserver interface {
	Choices(ctx context.Context, request string, cs []Choice) error
}

// sentenceScore returns assembly's score of a candidate when the run
// chooses sentences across nuggets: the model's estimate that it states
// a wanted fact times the estimate that it is on topic, per its length
// in characters to the power lengthPower (choiceScore), so that a short
// sentence with the same promise goes first and a long one must promise
// more for the room it takes. turns are the kept nuggets in the order
// the facets give them turns; cands the candidates assembly is offered.
func (r *run) sentenceScore(ctx context.Context, facets *pipeline.FacetMatcher, turns []pipeline.Nugget, cands []pipeline.Candidate) func(pipeline.Candidate) float64 {
	features := r.choiceFeatures(ctx, facets, turns, cands)
	return func(c pipeline.Candidate) float64 {
		return choiceScore(c, features(c))
	}
}

// lengthPower is the power of a candidate's length the choice divides
// its promise by: a sentence twice as long must promise 1.68 times as
// much. With the on-topic estimate as a factor of its own (not its
// square root), it was chosen on sotu … sotu39 over the square root of
// both (1,598 gold facts, mean on-topic share 0.866): 0.75 gave 1,623
// and 0.873, the length itself 1,614 and 0.867; with the estimate's
// square root 0.75 gave 1,604 and 0.857, with its power 1.5 1,613 and
// 0.881 (docs/pipeline.md, "Length and topic in the choice").
const lengthPower = 0.75

// choiceScore is the score of a candidate with features x
// (ChoiceFeatures, then TopicFeatures): the estimate that it states a
// wanted fact times the estimate that it is on topic (topicality), per
// its length to the power lengthPower.
func choiceScore(c pipeline.Candidate, x []float64) float64 {
	z := choiceBias
	for i, w := range choiceWeights {
		z += w * x[i]
	}
	fact := 1 / (1 + math.Exp(-z))
	onTopic := topicEstimate(x)
	return fact * onTopic / math.Pow(float64(utf8.RuneCountInString(c.Sentence))+1, lengthPower)
}

// choiceFeatures returns the features (ChoiceFeatures) of a candidate
// among cands, the candidates assembly is offered; facets are the
// request's, with the speakers they name (facetMatcher).
func (r *run) choiceFeatures(ctx context.Context, facets *pipeline.FacetMatcher, turns []pipeline.Nugget, cands []pipeline.Candidate) func(pipeline.Candidate) []float64 {
	place := make(map[string]int, len(turns))
	quality := make(map[string]float64, len(turns))
	for i, n := range turns {
		place[n.ID] = i
		quality[n.ID] = n.QualityScore
	}
	nuggetsIn := map[string]map[string]bool{} // passage → nuggets citing it
	author := map[string]string{}             // document → its author
	for _, c := range cands {
		if _, ok := author[c.Citation.DocID]; !ok {
			author[c.Citation.DocID] = r.authorOf(ctx, c.Citation.DocID)
		}
		p := c.Citation.PassageID()
		if nuggetsIn[p] == nil {
			nuggetsIn[p] = map[string]bool{}
		}
		nuggetsIn[p][c.NuggetID] = true
	}
	termSet := func(text string) map[string]bool {
		m := map[string]bool{}
		for _, t := range r.e.Terms(text) {
			m[t] = true
		}
		return m
	}
	title, problem := termSet(r.req.AskedTitle()), termSet(r.req.ProblemStatement)
	kept := float64(max(len(turns), 1))
	return func(c pipeline.Candidate) []float64 {
		turn, ok := place[c.NuggetID]
		if !ok {
			// A nugget drawn after the kept ones (the fill's): it takes
			// its turn after theirs and has no quality score (0).
			turn = len(turns)
		}
		var anchors, inTitle, inProblem float64
		sentence := termSet(c.Sentence)
		_, body := pipeline.SplitAttribution(c.Sentence)
		for t := range sentence {
			if r.subject != nil && r.subject.anchors[t] {
				anchors++
			}
			if title[t] {
				inTitle++
			}
			if problem[t] {
				inProblem++
			}
		}
		rank := 200.0
		if pr, ok := r.passageRank[c.Citation.PassageID()]; ok {
			rank = math.Min(float64(pr), 200)
		}
		return append([]float64{
			rank / 200,
			float64(len(nuggetsIn[c.Citation.PassageID()])),
			inProblem,
			float64(turn) / kept,
			quality[c.NuggetID],
			math.Min(anchors, 4),
			math.Min(inTitle, 4),
			float64(utf8.RuneCountInString(c.Sentence)) / 300,
			math.Min(float64(countFigures(body)), 4),
			math.Min(facets.Affinity(body, author[c.Citation.DocID]), 4),
		}, r.topic.features(c, topicTerms(c, sentence, termSet))...)
	}
}

// topicTerms are the terms the topic estimate reads a candidate by: those
// of the text it cites, not of its attribution, which names a speaker and
// a year ("In 1952, Harry S Truman reported"), not a topic — a request
// "from Truman to Reagan" would otherwise find every Truman sentence on
// its topic.
func topicTerms(c pipeline.Candidate, sentence map[string]bool, termSet func(string) map[string]bool) map[string]bool {
	if c.Support == "" {
		return sentence
	}
	return termSet(c.Support)
}

// observeChoices gives a ChoiceObserver the candidates assembly chose
// from, their features and scores, and their nuggets' facets (by nugget
// id).
func (r *run) observeChoices(ctx context.Context, facets *pipeline.FacetMatcher, turns []pipeline.Nugget, cands []pipeline.Candidate, facet map[string]string) error {
	o, ok := r.obs.(ChoiceObserver)
	if !ok {
		return nil
	}
	features := r.choiceFeatures(ctx, facets, turns, cands)
	cs := make([]Choice, len(cands))
	for i, c := range cands {
		x := features(c)
		cs[i] = Choice{Candidate: c, Features: x, Score: choiceScore(c, x), Facet: facet[c.NuggetID]}
	}
	return o.Choices(ctx, r.req.ID, cs)
}
