package offline

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// This file answers the tasks of the model-driven rerankers
// (pipeline/rerank) by lexical methods, in the tasks' canonical answer
// formats (rerank.FormatX), so the rerankers read them with the parsers
// they use for a model's answers. The engine sees what a model would: the
// request and each document's title and text as the reranker cut it to
// its budget; and, when its Analyzer offers them (CollectionStats), the
// collection's term statistics, as a model knows which words are rare.
//
// Every judgement rests on BM25 (k1 1.2, b 0.75) of a weighted query over
// the shown text (title and text). A query term's weight is its request
// weight (the profile: title terms 1.5, problem statement terms 1, meta
// words 0.3 and common words 0.6 of that) times its inverse document
// frequency, idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)). N, df and the
// average length come from the collection when it offers statistics;
// otherwise, for a task that shows several documents, from the shown
// documents as the collection, and for one that shows a single document
// idf is 1 and lengths are not normalised. The match of a document to a
// query is its BM25 score over the most a text could score on the
// query's keyTerms (4) most informative terms, at most 1 (see match):
//
//	bm25  = Σ_t w(t)·idf(t)·tf(k1+1)/(tf + k1·(1 − b + b·len/avglen))
//	match = min(1, bm25 / Σ_{the 4 terms of largest w·idf} w(t)·idf(t)·(k1+1))
//
// A term mentioned once in a text of average length counts 1/2.2 = 0.45 of
// its most, twice 0.62, three times 0.71.
//
//   - rerank_subquestions: the problem statement's sub-topics (see
//     rerankSubTopics): its sentences and ';' clauses, each enumeration
//     ("about import duties, prices and federal revenue") expanded into one
//     question per item, chosen greedily so each adds request terms the
//     others lack. When the request has fewer sub-topics than asked for,
//     the heaviest clause is cut in two where its weight is shared most
//     evenly (splitClause: "The director of the comedy Big Stone Gap?",
//     "Is based in what New York city?"), so that the questions are the
//     request's distinct parts, not the request and a piece of it again;
//     keyphrase questions fill in after that.
//   - rerank_rate: the request concatenated with the sub-question is the
//     query (each question term, template words left out, adds its word
//     weight to the term's request weight, as a repeated word does); the
//     rating is how many of ratingThresholds (0.3, 0.4, …, 0.7) the
//     document's match reaches.
//   - rerank_pointwise: p(yes) = sigmoid(relevantSlope·(match − 0.5)) for
//     the request's query: even odds at the rating-3 threshold, and p
//     rises with BM25 (up to the match's cap of 1).
//   - rerank_requirements: the request itself, weight 5, then its
//     keyphrases (rerankKeyphrases) heaviest first by the idf-weighted
//     request weight of their terms, weighted 1–5 in proportion (see
//     weightedRequirements).
//   - rerank_support: p(yes) as for pointwise, of half the match to the
//     requirement's own terms and half the match to the request (see
//     supportMatch).
//   - rerank_listwise and rerank_setwise: BM25 of the request's query over
//     the shown documents; listwise orders the window by it (ties keep the
//     given order), setwise names the best (ties: the first shown).
//   - rerank_setr: the sub-topics as requirements (at most
//     setrRequirements), each met by the documents whose rating for it
//     would be 3 or more, best first (at most setrDocsPerNeed); the final
//     selection is a greedy cover of the request's terms, the most
//     relevant document first and then those that bring the terms the
//     chosen ones lack (see setrAnswer).
//
// Where the request asks for log-probabilities (pointwise, support), the
// answer's token carries the engine's p as yesNoLogprobs writes it.

// Parameters of the reranking answers.
const (
	// rerankK1 and rerankB are BM25's parameters in every reranking
	// answer: the textbook values (the engine's listwise answer used them
	// before), which saturate a repeated term more slowly and normalise
	// length more than the first stage's k1 0.9, b 0.4
	// (index.DefaultOptions). With the request's profile weights and the
	// collection's idf they order BM25's top 100 passages better than the
	// first stage does on both benchmarks (pointwise on the offline engine:
	// nDCG@10 0.837 against 0.835 on SummHay news, 0.803 against 0.791 on
	// HotpotQA), and k1 1.5–2, b 0.6–0.9 do about as well: they were not
	// tuned.
	rerankK1 = 1.2
	rerankB  = 0.75
	// keyTerms is how many of a query's most informative terms a perfect
	// match holds (see match). It and ratingThresholds were chosen
	// together on SummHay news (LANCER's sum over BM25's top 100; 3, 4, 6
	// or every term, thresholds starting at 0.05–0.3 in steps of
	// 0.05–0.15) and confirmed on HotpotQA.
	keyTerms = 4
	// relevantSlope is how fast a yes/no judgement's p rises with the
	// match around the rating-3 threshold.
	relevantSlope = 10
	// maxEnumItemWords bounds one item of an enumeration.
	maxEnumItemWords = 6
	// setrRequirements bounds the requirements of a SetR answer, and
	// setrDocsPerNeed the documents listed for each.
	setrRequirements = 5
	setrDocsPerNeed  = 5
	// setrMeets is the rating at which a document meets a requirement.
	setrMeets = 3
	// setrRelevance weighs a document's relevance against the request
	// weight it adds to the selection (see setrAnswer).
	setrRelevance = 0.5
	// requirementShare is the share of a requirement's own terms in a support
	// judgement; the request's terms have the rest.
	requirementShare = 0.5
	// requestRequirementWeight is the weight of the request itself among
	// the requirements: the largest.
	requestRequirementWeight = 5
)

// ratingThresholds map a match to a rating: the count reached (see
// keyTerms for how they were chosen). The rating-3 threshold is where a
// yes/no judgement is even odds.
var ratingThresholds = []float64{0.3, 0.4, 0.5, 0.6, 0.7}

// keyphraseTemplate frames a keyphrase as a question; its words are left
// out when questions are matched.
const keyphraseTemplate = "What is known about "

// rerankTask names the task of a reranking input.
func rerankTask(input any) (pipeline.Task, bool) {
	switch input.(type) {
	case rerank.SubQuestionsInput:
		return rerank.TaskSubQuestions, true
	case rerank.RateInput:
		return rerank.TaskRate, true
	case rerank.PointwiseInput:
		return rerank.TaskPointwise, true
	case rerank.ListwiseInput:
		return rerank.TaskListwise, true
	case rerank.SetwiseInput:
		return rerank.TaskSetwise, true
	case rerank.SetRInput:
		return rerank.TaskSetR, true
	case rerank.RequirementsInput:
		return rerank.TaskRequirements, true
	case rerank.SupportInput:
		return rerank.TaskSupport, true
	}
	return "", false
}

// rerankAnswer answers a reranking input: the answer text and, for the
// yes/no tasks, its log-probabilities.
func (e *Engine) rerankAnswer(ctx context.Context, input any) (string, []pipeline.TokenLogprob, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	switch in := input.(type) {
	case rerank.SubQuestionsInput:
		n := min(max(in.N, 1), rerank.MaxSubQuestions)
		return rerank.FormatSubQuestions(rerank.SubQuestionsOutput{Questions: e.rerankSubTopics(in.Request, n, n)}), nil, nil
	case rerank.RateInput:
		return rerank.FormatRate(rerank.RateOutput{Rating: ratingOfMatch(e.rateMatch(in.Request, in.Question, in.Doc))}), nil, nil
	case rerank.PointwiseInput:
		q := e.requestQuery(e.profileOf(in.Request))
		d := e.promptDocCounts(in.Doc)
		p := yesOfMatch(e.oneDocStats(q.terms).match(q, d))
		return rerank.FormatPointwise(rerank.PointwiseOutput{Relevant: p >= 0.5}), yesNoLogprobs(p), nil
	case rerank.ListwiseInput:
		scores := e.shownBM25(in.Request, in.Docs)
		order := make([]int, len(in.Docs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return descendingFloat(scores[a], scores[b]) })
		return rerank.FormatListwise(order), nil, nil
	case rerank.SetwiseInput:
		scores := e.shownBM25(in.Request, in.Docs)
		best := 0
		for i, s := range scores {
			if s > scores[best] {
				best = i
			}
		}
		return rerank.FormatSetwise(rerank.SetwiseOutput{Choice: best}), nil, nil
	case rerank.SetRInput:
		return rerank.FormatSetR(e.setrAnswer(in)), nil, nil
	case rerank.RequirementsInput:
		m := min(max(in.Max, 1), rerank.MaxRequirements)
		return rerank.FormatRequirements(rerank.RequirementsOutput{Requirements: e.weightedRequirements(in.Request, m)}), nil, nil
	case rerank.SupportInput:
		p := yesOfMatch(e.supportMatch(in.Request, in.Requirement, in.Doc))
		return rerank.FormatSupport(rerank.SupportOutput{Yes: p >= 0.5}), yesNoLogprobs(p), nil
	}
	return "", nil, pipeline.Invalidf("offline engine: unknown input type %T", input)
}

// descendingFloat orders a before b when a is larger.
func descendingFloat(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// termCounts are the term counts of a shown text and its length in terms.
type termCounts struct {
	tf     map[string]int
	length int
}

// promptDocCounts are the term counts of a shown document, title included
// (as the index counts a passage).
func (e *Engine) promptDocCounts(d rerank.PromptDoc) termCounts {
	c := termCounts{tf: map[string]int{}}
	for _, t := range e.an.Terms(d.Title + "\n" + d.Text) {
		c.tf[t]++
		c.length++
	}
	return c
}

// rerankQuery is a weighted query: its distinct terms in order of first
// use and their weights before idf.
type rerankQuery struct {
	terms  []string
	weight map[string]float64
}

// add adds w to the weight of t.
func (q *rerankQuery) add(t string, w float64) {
	if q.weight == nil {
		q.weight = map[string]float64{}
	}
	if _, ok := q.weight[t]; !ok {
		q.terms = append(q.terms, t)
	}
	q.weight[t] += w
}

// requestQuery is the query of the request's title and problem statement
// terms with their profile weights, as the first stage searches them.
func (e *Engine) requestQuery(prof profile) rerankQuery {
	var q rerankQuery
	for _, t := range prof.core {
		q.add(t, prof.weight[t])
	}
	return q
}

// bm25Stats are what BM25 reads besides a text's own counts.
type bm25Stats struct {
	// idf maps a term to its inverse document frequency; a term missing
	// from it counts 1.
	idf map[string]float64
	// avgLength is the mean length of the collection's units; 0 leaves
	// lengths unnormalised.
	avgLength float64
}

// collectionStats are the collection's statistics for terms, with ok
// false when the analyzer offers none.
func (e *Engine) collectionStats(terms []string) (bm25Stats, bool) {
	if e.stats == nil {
		return bm25Stats{}, false
	}
	ts, ok := e.stats.TermStats(distinct(terms))
	if !ok || ts.Units <= 0 {
		return bm25Stats{}, false
	}
	st := bm25Stats{idf: make(map[string]float64, len(terms)), avgLength: ts.AvgLength}
	for _, t := range terms {
		st.idf[t] = idf(ts.Units, ts.DocFreq[t])
	}
	return st, true
}

// oneDocStats are the statistics for a task that shows one document: the
// collection's, else none (idf 1, no length normalisation).
func (e *Engine) oneDocStats(terms []string) bm25Stats {
	st, _ := e.collectionStats(terms)
	return st
}

// shownStats are the statistics for a task that shows several documents:
// the collection's, else the shown documents' as the collection.
func (e *Engine) shownStats(terms []string, docs []termCounts) bm25Stats {
	if st, ok := e.collectionStats(terms); ok {
		return st
	}
	st := bm25Stats{idf: make(map[string]float64, len(terms))}
	if len(docs) == 0 {
		return st
	}
	total := 0
	for _, d := range docs {
		total += d.length
	}
	st.avgLength = math.Max(1, float64(total)/float64(len(docs)))
	for _, t := range terms {
		df := 0
		for _, d := range docs {
			if d.tf[t] > 0 {
				df++
			}
		}
		st.idf[t] = idf(len(docs), df)
	}
	return st
}

// idfOf is the idf of t, 1 when st has none for it.
func (st bm25Stats) idfOf(t string) float64 {
	if v, ok := st.idf[t]; ok {
		return v
	}
	return 1
}

// saturation is BM25's term-frequency factor tf(k1+1)/(tf + k1·norm) for
// a text of length terms.
func (st bm25Stats) saturation(tf, length int) float64 {
	if tf <= 0 {
		return 0
	}
	norm := 1.0
	if st.avgLength > 0 {
		norm = 1 - rerankB + rerankB*float64(length)/st.avgLength
	}
	return float64(tf) * (rerankK1 + 1) / (float64(tf) + rerankK1*norm)
}

// score is BM25 of q over d.
func (st bm25Stats) score(q rerankQuery, d termCounts) float64 {
	s := 0.0
	for _, t := range q.terms {
		s += q.weight[t] * st.idfOf(t) * st.saturation(d.tf[t], d.length)
	}
	return s
}

// match is BM25 of q over d divided by the most a text could score on
// the keyTerms terms of q of largest w·idf (each held without bound,
// w·idf·(k1+1)), at most 1; 0 for a query without terms. A text need not
// hold every word of a long question to answer it: holding its few most
// informative words well is what it takes, and so a match means the same
// for a request of four words and one of twenty.
func (st bm25Stats) match(q rerankQuery, d termCounts) float64 {
	tops := make([]float64, 0, len(q.terms))
	for _, t := range q.terms {
		tops = append(tops, q.weight[t]*st.idfOf(t)*(rerankK1+1))
	}
	slices.SortFunc(tops, descendingFloat)
	top := 0.0
	for _, v := range tops[:min(keyTerms, len(tops))] {
		top += v
	}
	if top == 0 {
		return 0
	}
	return math.Min(1, st.score(q, d)/top)
}

// rateMatch is a document's match to the request concatenated with a
// question (a sub-question or a requirement): each of the question's
// terms (template and scaffold words left out) adds its word weight
// (metaScale) to the term's request weight.
func (e *Engine) rateMatch(r prompts.RequestInfo, question string, d rerank.PromptDoc) float64 {
	q := e.requestQuery(e.profileOf(r))
	for _, t := range distinct(e.rerankQuestionTerms(question)) {
		q.add(t, e.metaScale(t))
	}
	return e.oneDocStats(q.terms).match(q, e.promptDocCounts(d))
}

// supportMatch is how well a document gives a requirement of the request:
// requirementShare of its match to the requirement's own terms (template and
// scaffold words left out, weighted by metaScale) and the rest of its
// match to the request. A requirement without terms leaves the request's
// match alone.
func (e *Engine) supportMatch(r prompts.RequestInfo, requirement string, d rerank.PromptDoc) float64 {
	rq := e.requestQuery(e.profileOf(r))
	var need rerankQuery
	for _, t := range distinct(e.rerankQuestionTerms(requirement)) {
		need.add(t, e.metaScale(t))
	}
	st := e.oneDocStats(append(slices.Clone(rq.terms), need.terms...))
	counts := e.promptDocCounts(d)
	m := st.match(rq, counts)
	if len(need.terms) == 0 {
		return m
	}
	return requirementShare*st.match(need, counts) + (1-requirementShare)*m
}

// rerankQuestionTerms are a question's terms without the words of the
// engine's own question templates.
func (e *Engine) rerankQuestionTerms(q string) []string {
	template := setOf(e.an.Terms(keyphraseTemplate))
	var out []string
	for _, t := range e.questionTerms(q) {
		if !template[t] {
			out = append(out, t)
		}
	}
	return out
}

// ratingOfMatch maps a match to 0..5: the thresholds it reaches.
func ratingOfMatch(s float64) int {
	r := 0
	for _, th := range ratingThresholds {
		if s >= th {
			r++
		}
	}
	return r
}

// yesOfMatch maps a match to the probability of a yes judgement: even
// odds at the rating-3 threshold.
func yesOfMatch(s float64) float64 {
	return clampProb(sigmoid(relevantSlope * (s - ratingThresholds[setrMeets-1])))
}

// shownBM25 scores the shown documents by BM25 of the request's query
// (shownStats: the collection's statistics, else the shown documents').
func (e *Engine) shownBM25(r prompts.RequestInfo, docs []rerank.PromptDoc) []float64 {
	q := e.requestQuery(e.profileOf(r))
	counts := make([]termCounts, len(docs))
	for i, d := range docs {
		counts[i] = e.promptDocCounts(d)
	}
	st := e.shownStats(q.terms, counts)
	scores := make([]float64, len(docs))
	for i, c := range counts {
		scores[i] = st.score(q, c)
	}
	return scores
}

// setrAnswer answers SetR's task: requirements, the documents meeting
// each, and a selection.
//
// The requirements are the request's sub-topics (rerankSubTopics, at most
// setrRequirements); a document meets one when its rating for it would be
// setrMeets or more (rateMatch), and the documents meeting it are listed
// best first, at most setrDocsPerNeed.
//
// The selection covers the request's terms (title and problem
// statement), each weighted by its request weight times idf (shownStats):
// the words that name the subject weigh most, and meta words such as
// "discussed" little. Its documents are chosen one at a time, each time
// the one of largest
//
//	setrRelevance·bm25(d)/bm25(best shown) + (1 − setrRelevance)·new(d)
//
// where new(d) is the weight of the request terms d holds and no chosen
// document does, over the weight of them all (ties: the earlier
// document), until the chosen documents hold every request term that some
// shown document holds. A document holding no request term is never
// chosen. So the most relevant document comes first, and after it the
// documents that bring what the chosen ones lack, the more relevant first
// among those adding as much. When no shown document holds a request term
// the selection is empty (ParseSetR then rejects the answer, and the
// reranker keeps the first-stage order).
func (e *Engine) setrAnswer(in rerank.SetRInput) rerank.SetROutput {
	var out rerank.SetROutput
	needs := e.rerankSubTopics(in.Request, setrRequirements, 2)
	for _, need := range needs {
		type scored struct {
			doc int
			s   float64
		}
		var found []scored
		for d, doc := range in.Docs {
			if s := e.rateMatch(in.Request, need, doc); ratingOfMatch(s) >= setrMeets {
				found = append(found, scored{d, s})
			}
		}
		slices.SortStableFunc(found, func(a, b scored) int { return descendingFloat(a.s, b.s) })
		req := rerank.SetRRequirement{Text: need}
		for _, f := range found[:min(len(found), setrDocsPerNeed)] {
			req.Docs = append(req.Docs, f.doc)
		}
		out.Requirements = append(out.Requirements, req)
	}
	out.Selection.Order = e.setrSelection(in.Request, in.Docs)
	return out
}

// setrSelection is the selection of setrAnswer, as positions of docs.
func (e *Engine) setrSelection(r prompts.RequestInfo, docs []rerank.PromptDoc) []int {
	prof := e.profileOf(r)
	q := e.requestQuery(prof)
	counts := make([]termCounts, len(docs))
	for i, d := range docs {
		counts[i] = e.promptDocCounts(d)
	}
	st := e.shownStats(q.terms, counts)
	rel := make([]float64, len(docs))
	top := 0.0
	for i, c := range counts {
		rel[i] = st.score(q, c)
		top = math.Max(top, rel[i])
	}
	if top == 0 {
		return nil
	}
	// The request terms some shown document holds, and their weights.
	var subject []string
	weight := map[string]float64{}
	total := 0.0
	for _, t := range q.terms {
		for _, c := range counts {
			if c.tf[t] > 0 {
				subject = append(subject, t)
				weight[t] = q.weight[t] * st.idfOf(t)
				total += weight[t]
				break
			}
		}
	}
	held := map[string]bool{}
	chosen := make([]bool, len(docs))
	var order []int
	for len(held) < len(subject) {
		best, bestValue := -1, 0.0
		for i, c := range counts {
			if chosen[i] || rel[i] == 0 {
				continue
			}
			gain := 0.0
			for _, t := range subject {
				if !held[t] && c.tf[t] > 0 {
					gain += weight[t]
				}
			}
			v := setrRelevance*rel[i]/top + (1-setrRelevance)*gain/total
			if best < 0 || v > bestValue {
				best, bestValue = i, v
			}
		}
		if best < 0 {
			break
		}
		chosen[best] = true
		order = append(order, best)
		for _, t := range subject {
			if counts[best].tf[t] > 0 {
				held[t] = true
			}
		}
	}
	return order
}

// weightedRequirements returns up to m requirements weighted 1..5: first
// the request itself (its problem statement, or its title when that is
// blank) with weight requestRequirementWeight, then its keyphrases
// (rerankKeyphrases) as questions ("What is known about federal
// revenue?"), heaviest first: a keyphrase's raw weight is the sum over its
// distinct subject terms (no meta or common words) of the term's request
// weight times idf (the collection's when it offers statistics, else 1),
// the heaviest maps to 5 and the others in proportion, 1 + round(4·x/max);
// a keyphrase whose subject terms all belong to a heavier one taken
// ("harbour" after "harbour plans") is passed over.
func (e *Engine) weightedRequirements(r prompts.RequestInfo, m int) []rerank.Requirement {
	prof := e.profileOf(r)
	whole := flattenSpace(r.ProblemStatement)
	if whole == "" {
		whole = flattenSpace(r.Title)
	}
	if whole == "" {
		return nil
	}
	out := []rerank.Requirement{{Text: whole, Weight: requestRequirementWeight}}
	st := e.oneDocStats(prof.core)
	type facet struct {
		text string
		core []string
		raw  float64
	}
	var all []facet
	for _, kp := range e.rerankKeyphrases(r, prof, e.newWordTerms()) {
		f := facet{text: keyphraseTemplate + kp + "?"}
		for _, t := range distinct(e.an.Terms(kp)) {
			if prof.isCore(t) {
				f.core = append(f.core, t)
				f.raw += prof.weight[t] * st.idfOf(t)
			}
		}
		if f.raw > 0 {
			all = append(all, f)
		}
	}
	slices.SortStableFunc(all, func(a, b facet) int { return descendingFloat(a.raw, b.raw) })
	var facets []facet
	for _, f := range all {
		if len(facets) == m-1 {
			break
		}
		within := false
		for _, g := range facets {
			if !slices.ContainsFunc(f.core, func(t string) bool { return !slices.Contains(g.core, t) }) {
				within = true
				break
			}
		}
		if !within {
			facets = append(facets, f)
		}
	}
	for _, f := range facets {
		out = append(out, rerank.Requirement{Text: f.text, Weight: 1 + int(math.Round(4*f.raw/facets[0].raw))})
	}
	return out
}

// clauseWhWords open a question clause.
var clauseWhWords = setOf(strings.Fields("what which who whom whose how why when where whether"))

// itemAnchorWords end the walk back to the first item of an enumeration: the
// item starts after them ("about import duties, prices and revenue").
var itemAnchorWords = setOf(strings.Fields(`about regarding concerning including like between among against toward towards
	with without as such is are was were be been being did does do has have had will would can could should may might
	what which who whom whose how why when where whether describe discuss explain identify list compare assess evaluate
	analyze analyse summarize summarise outline examine explore find provide give show`))

// rerankSubTopics returns up to n sub-topics of the request as questions (or
// statements, as the request words them), in request order.
//
// The problem statement (the title when it is blank) is cut into its
// sentences and ';' clauses. A clause holding an enumeration, items
// separated by commas and a final "and" or "or" ("what did the tariff
// change about import duties, prices and federal revenue?"), or two items
// joined by one, gives one question per item: the words before the first
// item, then the item ("what did the tariff change about prices?"). The
// first item starts after the nearest preposition, auxiliary, wh-word or
// request verb ("about", "did", "describe") and has at most six words, as
// have the items between commas. Other clauses stand as they are.
//
// From these, up to n are chosen greedily: each time the one adding the
// most request-term weight (title and problem statement terms that are no
// meta or common words, see profile) not yet held by those chosen, the
// earlier on ties, while any adds some. When fewer than least are found,
// the heaviest chosen clause that is no enumeration item (by the
// idf-weighted request weight of its subject terms) is cut in two by
// splitClause, when it can be. When still fewer than least are found,
// keyphrase questions ("What is known about federal revenue?") fill in
// (see rerankKeyphrases), skipping a keyphrase a chosen enumeration item ends
// with or whose core terms are those of a question already there. A
// request without any content word gives its title and problem statement.
//
// Two capitalised words joined by "and" or "or", the second standing
// alone, are a name or a title ("the film Kiss and Tell"), not an
// enumeration.
func (e *Engine) rerankSubTopics(r prompts.RequestInfo, n, least int) []string {
	prof := e.profileOf(r)
	wt := e.newWordTerms()
	text := strings.TrimSpace(r.ProblemStatement)
	if text == "" {
		text = strings.TrimSpace(r.Title)
	}
	var pool []string
	item := map[int]bool{} // pool entries that are enumeration items
	for _, sp := range e.an.Sentences(text) {
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			continue
		}
		for _, clause := range strings.Split(text[sp.Start:sp.End], ";") {
			clause = strings.Join(strings.Fields(clause), " ")
			if clause == "" {
				continue
			}
			if items := enumerationItemQuestions(clause, wt); len(items) > 0 {
				for _, q := range items {
					item[len(pool)] = true
					pool = append(pool, q)
				}
			} else {
				pool = append(pool, clause)
			}
		}
	}
	if len(pool) == 0 && text != "" {
		pool = append(pool, strings.Join(strings.Fields(text), " "))
	}
	coreTerms := func(q string) []string {
		var ts []string
		for _, t := range distinct(e.an.Terms(q)) {
			if prof.isCore(t) {
				ts = append(ts, t)
			}
		}
		return ts
	}
	chosen := make([]bool, len(pool))
	held := map[string]bool{}
	count := 0
	for count < n {
		best, bestGain := -1, 0.0
		for i, q := range pool {
			if chosen[i] {
				continue
			}
			gain := 0.0
			for _, t := range coreTerms(q) {
				if !held[t] {
					gain += prof.weight[t]
				}
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		chosen[best] = true
		count++
		for _, t := range coreTerms(pool[best]) {
			held[t] = true
		}
	}
	var out, items []string
	for i, q := range pool {
		if chosen[i] {
			out = append(out, upperFirst(q))
			if item[i] {
				items = append(items, q)
			}
		}
	}
	if len(out) < least {
		out = e.splitWidest(out, prof, item, chosen, pool)
	}
	asked := func(kp string) bool {
		for _, q := range items {
			if strings.HasSuffix(strings.ToLower(strings.TrimRight(q, "?.! ")), strings.ToLower(kp)) {
				return true
			}
		}
		return false
	}
	termSets := map[string]bool{}
	for _, q := range out {
		termSets[strings.Join(coreTerms(q), " ")] = true
	}
	for _, kp := range e.rerankKeyphrases(r, prof, wt) {
		if len(out) >= least {
			break
		}
		key := strings.Join(coreTerms(kp), " ")
		if !asked(kp) && !termSets[key] {
			termSets[key] = true
			out = append(out, keyphraseTemplate+kp+"?")
		}
	}
	if len(out) == 0 {
		if t := strings.Join(strings.Fields(r.Title+" "+r.ProblemStatement), " "); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// clauseCutWords open the second part of a split clause (splitClause):
// prepositions, wh-words, auxiliaries and conjunctions.
var clauseCutWords = func() map[string]bool {
	m := setOf(strings.Fields("and or but that as with without about against between among"))
	for _, set := range []map[string]bool{prepositions, clauseWhWords, auxiliaries} {
		for w := range set {
			m[w] = true
		}
	}
	return m
}()

// splitWidest replaces the heaviest clause of out that is not an
// enumeration item by its two halves (splitClause), when it can be
// split; out, chosen and item index as in rerankSubTopics.
func (e *Engine) splitWidest(out []string, prof profile, item map[int]bool, chosen []bool, pool []string) []string {
	st := e.oneDocStats(prof.core)
	weight := func(t string) float64 {
		if !prof.isCore(t) {
			return 0
		}
		return prof.weight[t] * st.idfOf(t)
	}
	best, bestWeight := -1, 0.0
	k := 0
	for i, q := range pool {
		if !chosen[i] {
			continue
		}
		if !item[i] {
			w := 0.0
			for _, t := range distinct(e.an.Terms(q)) {
				w += weight(t)
			}
			if w > bestWeight {
				best, bestWeight = k, w
			}
		}
		k++
	}
	if best < 0 {
		return out
	}
	first, second, ok := e.splitClause(out[best], weight)
	if !ok {
		return out
	}
	return slices.Concat(out[:best], []string{first, second}, out[best+1:])
}

// splitClause cuts a clause in two at the word boundary that shares its
// weight (the sum of weight over each part's distinct terms) most evenly,
// that is, where the lighter part is heaviest (the earlier cut on ties).
// A cut falls before a preposition, a wh-word, an auxiliary or a
// conjunction ("in", "who", "is", "and"; see clauseCutWords) or after a
// comma, never before the clause's first word, and both parts must weigh
// something. "The director of the comedy Big Stone Gap is based in what
// New York city?" gives "The director of the comedy Big Stone Gap?" and
// "Is based in what New York city?". A clause ending in '?' keeps it on
// both parts. ok is false when no cut qualifies.
func (e *Engine) splitClause(clause string, weight func(string) float64) (first, second string, ok bool) {
	toks := tokenize(clause)
	partWeight := func(text string) float64 {
		w := 0.0
		for _, t := range distinct(e.an.Terms(text)) {
			w += weight(t)
		}
		return w
	}
	ending := ""
	if strings.HasSuffix(clause, "?") {
		ending = "?"
	}
	bestCut, bestMin := -1, 0.0
	seenWord := false
	for c, t := range toks {
		if t.kind == tokSymbol {
			continue
		}
		if !seenWord {
			seenWord = true
			continue
		}
		if !clauseCutWords[t.lower()] && (c == 0 || toks[c-1].text != ",") {
			continue
		}
		left, right := partWeight(clause[:t.start]), partWeight(clause[t.start:])
		if m := math.Min(left, right); m > 0 && m > bestMin {
			bestCut, bestMin = t.start, m
		}
	}
	if bestCut < 0 {
		return "", "", false
	}
	first = strings.TrimRight(strings.TrimSpace(clause[:bestCut]), " ,;:?.!")
	second = strings.TrimRight(strings.TrimSpace(clause[bestCut:]), " ,;:?.!")
	if first == "" || second == "" {
		return "", "", false
	}
	return upperFirst(first) + ending, upperFirst(second) + ending, true
}

// enumerationItemQuestions expands the first enumeration of a clause into one
// question per item (see rerankSubTopics); nil when the clause has none.
func enumerationItemQuestions(clause string, wt *wordTerms) []string {
	toks := tokenize(clause)
	ending := ""
	if strings.HasSuffix(clause, "?") {
		ending = "?"
	}
	words := func(from, to int) int { // word tokens in toks[from:to]
		c := 0
		for _, t := range toks[from:to] {
			if t.kind != tokSymbol {
				c++
			}
		}
		return c
	}
	hasContent := func(from, to int) bool {
		for _, t := range toks[from:to] {
			if t.kind == tokNumber || wt.content(t) {
				return true
			}
		}
		return false
	}
	isEnd := func(t token) bool {
		return t.kind == tokSymbol && strings.ContainsAny(t.text, ",;:.?!()")
	}
	for c, t := range toks {
		if t.kind != tokWord || !(t.is("and") || t.is("or")) || c == 0 || c == len(toks)-1 {
			continue
		}
		// The last item runs from the conjunction to the clause's next
		// punctuation.
		endR := c + 1
		for endR < len(toks) && !isEnd(toks[endR]) {
			endR++
		}
		if endR == c+1 || !hasContent(c+1, endR) {
			continue
		}
		type span struct{ from, to int }
		items := []span{{c + 1, endR}}
		j := c // exclusive end of the item being collected
		if toks[j-1].text == "," {
			j-- // an Oxford comma
		}
		ok := true
		for {
			i := j
			for i > 0 && toks[i-1].kind != tokSymbol && !itemAnchorWords[toks[i-1].lower()] && !prepositions[toks[i-1].lower()] {
				i--
			}
			if i == j || !hasContent(i, j) {
				ok = false
				break
			}
			if i > 0 && toks[i-1].text == "," {
				// An item between commas: a long one means the commas
				// separate clauses, not items.
				if words(i, j) > maxEnumItemWords {
					ok = false
					break
				}
				items = append(items, span{i, j})
				j = i - 1
				continue
			}
			// The first item: its last maxEnumItemWords words at most. An
			// item the walk ended at a wh-word for is a clause ("at what
			// cost"): the wh-word and a preposition before it belong to
			// it.
			for words(i, j) > maxEnumItemWords {
				i++
			}
			if i > 0 && clauseWhWords[toks[i-1].lower()] {
				i--
				if i > 0 && prepositions[toks[i-1].lower()] {
					i--
				}
			}
			if !hasContent(i, j) {
				ok = false
				break
			}
			items = append(items, span{i, j})
			break
		}
		if !ok || len(items) < 2 {
			continue
		}
		// Two capitalised words joined by the conjunction, the second
		// standing alone, are a name or a title ("the film Kiss and
		// Tell", "Romeo and Juliet"), not a list.
		if last := items[0]; len(items) == 2 && words(last.from, last.to) == 1 &&
			toks[last.from].capitalised() && toks[c-1].capitalised() {
			continue
		}
		first := items[len(items)-1].from
		head := ""
		if first > 0 {
			head = strings.TrimRight(clause[:toks[first].start], " ,;:")
		}
		var out []string
		for k := len(items) - 1; k >= 0; k-- {
			it := items[k]
			q := strings.TrimSpace(head + " " + clause[toks[it.from].start:toks[it.to-1].end])
			out = append(out, q+ending)
		}
		return out
	}
	return nil
}

// rerankKeyphrases returns the runs of content words (no prepositions, request
// verbs or meta words) of the problem statement and title, distinct,
// those holding a core term outside the title first (they name aspects
// rather than the subject), then by descendingFloat profile weight, then in
// request order. Only runs holding a core term (see profile) count.
func (e *Engine) rerankKeyphrases(r prompts.RequestInfo, prof profile, wt *wordTerms) []string {
	title := setOf(e.an.Terms(r.Title))
	type phrase struct {
		text   string
		weight float64
		aspect bool
		order  int
	}
	var phrases []phrase
	seen := map[string]bool{}
	phraseWord := func(t token) bool {
		if !wt.phraseWord(t) || itemAnchorWords[t.lower()] || prepositions[t.lower()] {
			return false
		}
		for _, term := range wt.of(t.text) {
			if e.meta[term] {
				return false
			}
		}
		return true
	}
	for _, text := range []string{r.ProblemStatement, r.Title} {
		toks := tokenize(text)
		for i := 0; i < len(toks); {
			if !phraseWord(toks[i]) {
				i++
				continue
			}
			j := i
			for j < len(toks) && phraseWord(toks[j]) {
				j++
			}
			kp := text[toks[i].start:toks[j-1].end]
			p := phrase{text: kp, order: len(phrases)}
			core := false
			for _, t := range distinct(e.an.Terms(kp)) {
				p.weight += prof.weight[t]
				core = core || prof.isCore(t)
				p.aspect = p.aspect || (prof.isCore(t) && !title[t])
			}
			if key := strings.ToLower(kp); core && !seen[key] {
				seen[key] = true
				phrases = append(phrases, p)
			}
			i = j
		}
	}
	slices.SortStableFunc(phrases, func(a, b phrase) int {
		if a.aspect != b.aspect {
			if a.aspect {
				return -1
			}
			return 1
		}
		return descendingFloat(a.weight, b.weight)
	})
	out := make([]string, len(phrases))
	for i, p := range phrases {
		out[i] = p.text
	}
	return out
}
