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
// its budget.
//
//   - rerank_subquestions and rerank_requirements: the problem statement's
//     sub-topics (see rerankSubTopics): its sentences and ';' clauses, each
//     enumeration ("about import duties, prices and federal revenue")
//     expanded into one question per item, chosen greedily so each adds
//     request terms the others lack; keyphrase questions fill in when the
//     request has fewer sub-topics than asked for. Requirements are
//     weighted 1–5 by the request weight of the terms they hold, each term
//     shared among the requirements that use it (a term every requirement
//     repeats says little about any one of them).
//   - rerank_rate: the match of a document to a sub-question read with its
//     request, s = 0.75·m(question terms) + 0.25·m(request terms), where
//     m is the weighted share of the terms the document holds, each held
//     term counting tf/(tf + 0.5) (one mention 0.67, two 0.8, three
//     0.86); the rating is how many of the thresholds 0.15, 0.3, 0.45, 0.6
//     and 0.75 s reaches (every term mentioned once gives 4, twice 5).
//   - rerank_pointwise: p(yes) = sigmoid(10·(m(request terms) − 0.45)):
//     even odds at the match that rates 3.
//   - rerank_support: p(yes) = sigmoid(10·(s − 0.45)) with s the rating's
//     match for the requirement.
//   - rerank_listwise and rerank_setwise: BM25 of the request's terms over
//     the shown documents as the collection (k1 = 1.2, b = 0.75, idf over
//     the window or set); listwise orders the window by it (ties keep the
//     given order), setwise names the best (ties: the first shown).
//   - rerank_setr: the sub-topics as requirements (at most
//     setrRequirements); a document meets a requirement when its match
//     would rate 3 or more, listed best first (at most setrDocsPerNeed);
//     the final selection is a greedy cover: the document meeting the most
//     requirements not yet covered (ties: the better total match, then the
//     earlier document) until every requirement some document meets is
//     covered. When no document meets any, the best BM25 document is
//     selected, and none when no document holds any request term.
//
// Where the request asks for log-probabilities (pointwise, support), the
// answer's token carries the engine's p as yesNoLogprobs writes it.

// Parameters of the reranking answers.
const (
	// matchTFHalf is the term frequency at which a held term counts half
	// (tf/(tf + matchTFHalf)).
	matchTFHalf = 0.5
	// rateQuestionShare weighs the sub-question's terms against the
	// request's in a rating.
	rateQuestionShare = 0.75
	// relevantMatch is the match at which a yes/no judgement is even odds
	// (a rating of 3), and relevantSlope how fast p rises around it.
	relevantMatch = 0.45
	relevantSlope = 10
	// listBM25K1 and listBM25B are BM25's parameters over the shown
	// documents.
	listBM25K1 = 1.2
	listBM25B  = 0.75
	// maxEnumItemWords bounds one item of an enumeration.
	maxEnumItemWords = 6
	// setrRequirements bounds the requirements of a SetR answer, and
	// setrDocsPerNeed the documents listed for each.
	setrRequirements = 5
	setrDocsPerNeed  = 5
	// setrMeets is the rating at which a document meets a requirement.
	setrMeets = 3
)

// ratingThresholds map a match s to a rating: the count reached.
var ratingThresholds = []float64{0.15, 0.3, 0.45, 0.6, 0.75}

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
		p := yesOfMatch(e.requestMatch(e.profileOf(in.Request), e.promptDocCounts(in.Doc)))
		return rerank.FormatPointwise(rerank.PointwiseOutput{Relevant: p >= 0.5}), yesNoLogprobs(p), nil
	case rerank.ListwiseInput:
		scores := e.setBM25(in.Request, in.Docs)
		order := make([]int, len(in.Docs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return descendingFloat(scores[a], scores[b]) })
		return rerank.FormatListwise(order), nil, nil
	case rerank.SetwiseInput:
		scores := e.setBM25(in.Request, in.Docs)
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
		p := yesOfMatch(e.rateMatch(in.Request, in.Requirement, in.Doc))
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

// promptDocCounts are the term counts of a shown document, title included.
func (e *Engine) promptDocCounts(d rerank.PromptDoc) map[string]int {
	counts := map[string]int{}
	for _, t := range e.an.Terms(d.Title + "\n" + d.Text) {
		counts[t]++
	}
	return counts
}

// weightedMatch is the weighted share of terms a document holds, each held term
// counting tf/(tf + matchTFHalf); 0 for no terms.
func weightedMatch(terms []string, weight func(string) float64, counts map[string]int) float64 {
	total, have := 0.0, 0.0
	for _, t := range distinct(terms) {
		w := weight(t)
		total += w
		if tf := float64(counts[t]); tf > 0 {
			have += w * tf / (tf + matchTFHalf)
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}

// requestMatch is weightedMatch over the request's title and problem statement
// terms with their profile weights.
func (e *Engine) requestMatch(prof profile, counts map[string]int) float64 {
	return weightedMatch(prof.core, func(t string) float64 { return prof.weight[t] }, counts)
}

// rateMatch is a document's match to a question read with its request:
// 0.75 of the question's match (template words left out, meta and common
// words weighed down) and 0.25 of the request's. A question without terms
// leaves the request's match alone.
func (e *Engine) rateMatch(r prompts.RequestInfo, question string, d rerank.PromptDoc) float64 {
	prof := e.profileOf(r)
	counts := e.promptDocCounts(d)
	rm := e.requestMatch(prof, counts)
	q := e.rerankQuestionTerms(question)
	if len(q) == 0 {
		return rm
	}
	return rateQuestionShare*weightedMatch(q, e.metaScale, counts) + (1-rateQuestionShare)*rm
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

// yesOfMatch maps a match to the probability of a yes judgement.
func yesOfMatch(s float64) float64 {
	return clampProb(sigmoid(relevantSlope * (s - relevantMatch)))
}

// setBM25 scores the shown documents by BM25 of the request's title and
// problem statement terms (profile weights), with the shown documents as
// the collection.
func (e *Engine) setBM25(r prompts.RequestInfo, docs []rerank.PromptDoc) []float64 {
	prof := e.profileOf(r)
	counts := make([]map[string]int, len(docs))
	lengths := make([]int, len(docs))
	df := map[string]int{}
	total := 0
	for i, d := range docs {
		counts[i] = e.promptDocCounts(d)
		for t, c := range counts[i] {
			lengths[i] += c
			df[t]++
		}
		total += lengths[i]
	}
	scores := make([]float64, len(docs))
	if len(docs) == 0 {
		return scores
	}
	avg := math.Max(1, float64(total)/float64(len(docs)))
	for i := range docs {
		norm := 1 - listBM25B + listBM25B*float64(lengths[i])/avg
		for _, t := range prof.core {
			tf := float64(counts[i][t])
			if tf == 0 {
				continue
			}
			scores[i] += prof.weight[t] * idf(len(docs), df[t]) * tf * (listBM25K1 + 1) / (tf + listBM25K1*norm)
		}
	}
	return scores
}

// setrAnswer answers SetR's task: requirements, the documents meeting each, and
// a greedy cover.
func (e *Engine) setrAnswer(in rerank.SetRInput) rerank.SetROutput {
	var out rerank.SetROutput
	needs := e.rerankSubTopics(in.Request, setrRequirements, 2)
	meets := make([][]bool, len(in.Docs)) // [doc][requirement]
	strength := make([]float64, len(in.Docs))
	for d := range in.Docs {
		meets[d] = make([]bool, len(needs))
	}
	for k, need := range needs {
		type scored struct {
			doc int
			s   float64
		}
		var found []scored
		for d, doc := range in.Docs {
			if s := e.rateMatch(in.Request, need, doc); ratingOfMatch(s) >= setrMeets {
				found = append(found, scored{d, s})
				meets[d][k] = true
				strength[d] += s
			}
		}
		slices.SortStableFunc(found, func(a, b scored) int { return descendingFloat(a.s, b.s) })
		req := rerank.SetRRequirement{Text: need}
		for _, f := range found[:min(len(found), setrDocsPerNeed)] {
			req.Docs = append(req.Docs, f.doc)
		}
		out.Requirements = append(out.Requirements, req)
	}
	covered := make([]bool, len(needs))
	taken := make([]bool, len(in.Docs))
	for {
		best, bestGain := -1, 0
		for d := range in.Docs {
			if taken[d] {
				continue
			}
			gain := 0
			for k, m := range meets[d] {
				if m && !covered[k] {
					gain++
				}
			}
			if gain > bestGain || (gain == bestGain && gain > 0 && strength[d] > strength[best]) {
				best, bestGain = d, gain
			}
		}
		if best < 0 {
			break
		}
		taken[best] = true
		out.Selection.Order = append(out.Selection.Order, best)
		for k, m := range meets[best] {
			covered[k] = covered[k] || m
		}
	}
	if len(out.Selection.Order) == 0 {
		scores := e.setBM25(in.Request, in.Docs)
		best := -1
		for d, s := range scores {
			if s > 0 && (best < 0 || s > scores[best]) {
				best = d
			}
		}
		if best >= 0 {
			out.Selection.Order = []int{best}
		}
	}
	return out
}

// weightedRequirements returns up to m sub-topics weighted 1..5: a requirement's
// raw weight is the sum over its distinct title and problem statement
// terms (meta and common words excepted) of the term's profile weight
// divided by the number of requirements holding the term; the largest raw
// weight maps to 5 and the others in proportion, 1 + round(4·x/max).
func (e *Engine) weightedRequirements(r prompts.RequestInfo, m int) []rerank.Requirement {
	prof := e.profileOf(r)
	needs := e.rerankSubTopics(r, m, min(2, m))
	terms := make([][]string, len(needs))
	holders := map[string]int{}
	for k, n := range needs {
		for _, t := range distinct(e.rerankQuestionTerms(n)) {
			if prof.isCore(t) {
				terms[k] = append(terms[k], t)
				holders[t]++
			}
		}
	}
	raw := make([]float64, len(needs))
	top := 0.0
	for k := range needs {
		for _, t := range terms[k] {
			raw[k] += prof.weight[t] / float64(holders[t])
		}
		top = math.Max(top, raw[k])
	}
	out := make([]rerank.Requirement, len(needs))
	for k, n := range needs {
		w := rerank.DefaultRequirementWeight
		if top > 0 {
			w = 1 + int(math.Round(4*raw[k]/top))
		}
		out[k] = rerank.Requirement{Text: n, Weight: w}
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
// keyphrase questions ("What is known about federal revenue?") fill in
// (see rerankKeyphrases), skipping a keyphrase a chosen enumeration item ends
// with or whose core terms are those of a question already there. A
// request without any content word gives its title and problem statement.
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
