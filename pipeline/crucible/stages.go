package crucible

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// ideate summarises each of the top documents for the request and draws
// Q&A nuggets from each summary. Nuggets come out in document rank order.
// With the rule FacetNuggets, the best passages for each facet of the
// request (facetPassages) are summarised and drawn from too, after the
// documents.
func (r *run) ideate(ctx context.Context, ret []pipeline.RetrievedDoc) ([]pipeline.Nugget, error) {
	n := min(r.s.IdeationDocs, len(ret))
	var fps []pipeline.Hit
	if r.h.FacetNuggets {
		// A reranker's documents are the report's context: a facet's
		// passages come from them too.
		var err error
		if fps, err = r.facetPassages(ctx, r.rerankedContext(ret)); err != nil {
			return nil, err
		}
	}
	total := n + len(fps)
	r.enter(StageIdeate, total)
	drawn := make([][]pipeline.Nugget, total)
	var done counter
	err := pipeline.ForEach(ctx, total, r.s.Concurrency, func(ctx context.Context, i int) error {
		defer func() { r.tick(done.inc(), total) }()
		if i >= n {
			p := fps[i-n]
			d, err := r.document(ctx, p.DocID)
			if err != nil {
				return err
			}
			qas, err := r.drawNuggets(ctx, d, p.Text, facetNuggetsPerPassage)
			for j, qa := range qas {
				drawn[i] = append(drawn[i], pipeline.Nugget{
					ID: fmt.Sprintf("%s%d.%d", FacetNuggetPrefix, i-n+1, j+1), Question: qa.Question, Answer: qa.Answer,
					Sources: []string{d.ID}, Popularity: 1,
				})
			}
			return err
		}
		d, err := r.document(ctx, ret[i].DocID)
		if err != nil {
			return err
		}
		qas, err := r.drawNuggets(ctx, d, d.Text, r.s.NuggetsPerDoc)
		for j, qa := range qas {
			drawn[i] = append(drawn[i], pipeline.Nugget{
				ID: fmt.Sprintf("%s%d.%d", DocumentNuggetPrefix, ret[i].Rank, j+1), Question: qa.Question, Answer: qa.Answer,
				Sources: []string{d.ID}, Popularity: 1,
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var all []pipeline.Nugget
	for _, ns := range drawn {
		all = append(all, ns...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no nugget could be drawn from the top %d documents: %w", n, pipeline.ErrNotFound)
	}
	return all, nil
}

// rerankedContext is the set of the documents ideation draws on when a
// reranker chose them (the report's context, which facet nuggets and the
// fill keep to); nil without a reranker.
func (r *run) rerankedContext(docs []pipeline.RetrievedDoc) map[string]bool {
	if r.s.Reranker == "" {
		return nil
	}
	within := make(map[string]bool, len(docs))
	for _, d := range docs {
		within[d.DocID] = true
	}
	return within
}

// drawNuggets summarises text (a document's, or one passage of it) for
// the request and draws at most max nuggets from the summary: none when
// the summary finds nothing relevant or an answer cannot be read (a
// tolerated problem).
func (r *run) drawNuggets(ctx context.Context, d pipeline.Document, text string, max int) ([]prompts.QA, error) {
	sum, _, ok, err := complete(ctx, r, prompts.BuildSummarize(prompts.SummarizeInput{
		Request: r.info, DocID: d.ID, DocTitle: d.Title, DocText: text,
	}), prompts.ParseSummarize)
	if err != nil || !ok || !sum.Relevant {
		return nil, err
	}
	out, _, ok, err := complete(ctx, r, prompts.BuildNuggets(prompts.NuggetsInput{
		Request: r.info, DocID: d.ID, DocTitle: d.Title, Summary: sum.Summary, Max: max,
	}), prompts.ParseNuggets)
	if err != nil || !ok {
		return nil, err
	}
	return out.Nuggets[:min(len(out.Nuggets), max)], nil
}

// Facet nuggets (the rule FacetNuggets).
const (
	// FacetNuggetPrefix opens the ids of nuggets drawn from a facet's
	// passages ("f3.1"); DocumentNuggetPrefix those drawn from a
	// document's summary ("n3.1").
	FacetNuggetPrefix    = "f"
	DocumentNuggetPrefix = "n"
	// facetPassages is how many passages each facet's nuggets are drawn
	// from, and facetPassagePool how many of its best BM25 passages are
	// looked through for them.
	facetPassages    = 2
	facetPassagePool = 20
	// facetNuggetsPerPassage bounds the nuggets drawn from one passage.
	facetNuggetsPerPassage = 2
)

// facetPassages returns, for each facet of the request in turn, the
// facetPassages best passages for the facet (BM25 over the request's
// title with the facet's heading and description) that are among the
// request's best passages — the only ones a sentence on topic may cite
// (onTopic), of a document within (when within is not nil) — and not
// already chosen for an earlier facet; for a facet that names its
// speakers (pipeline.SpeakersNamed), the best of the facet's
// subjectPassages best passages that are theirs, when there are any. A
// problem statement that asks for eight things gets nuggets for each of
// them, not only for what the top documents say most about the request
// as a whole.
func (r *run) facetPassages(ctx context.Context, within map[string]bool) ([]pipeline.Hit, error) {
	facets, err := r.facets(ctx)
	if err != nil {
		return nil, err
	}
	authors, err := r.collectionAuthors(ctx)
	if err != nil {
		return nil, err
	}
	var out []pipeline.Hit
	seen := map[string]bool{}
	for _, f := range facets {
		q := strings.Join([]string{r.req.Title, f.Heading, f.Description}, "\n")
		if utf8.RuneCountInString(q) > pipeline.MaxQueryChars {
			q = string([]rune(q)[:pipeline.MaxQueryChars])
		}
		speakers := pipeline.SpeakersNamed(f.Heading+"\n"+f.Description, authors)
		k := facetPassagePool
		if len(speakers) > 0 {
			k = subjectPassages
		}
		res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: k})
		if err != nil {
			return nil, err
		}
		eligible := func(h pipeline.Hit) bool {
			id := pipeline.PassageID(h.DocID, h.Ordinal)
			return !seen[id] && r.bestPassages[id] && (within == nil || within[h.DocID])
		}
		hits := res.Hits
		if len(speakers) > 0 {
			// A facet that names its speakers ("the help Clinton sought
			// for family farmers") draws on their documents: speakers
			// seldom name themselves, so the facet's words rank other
			// speakers' passages as high. Without a passage of theirs
			// among the request's best, the facet's best passages do.
			var theirs []pipeline.Hit
			for _, h := range hits {
				if eligible(h) && slices.Contains(speakers, r.authorOf(ctx, h.DocID)) {
					theirs = append(theirs, h)
				}
			}
			if len(theirs) > 0 {
				hits = theirs
			} else {
				hits = hits[:min(len(hits), facetPassagePool)]
			}
		}
		taken := 0
		for _, h := range hits {
			if taken == facetPassages {
				break
			}
			if !eligible(h) {
				continue
			}
			seen[pipeline.PassageID(h.DocID, h.Ordinal)] = true
			taken++
			out = append(out, h)
		}
	}
	return out, nil
}

// termSet is the set of a text's content terms: shared through
// Engine.TermSet when the engine has one, so callers must not modify it.
func (r *run) termSet(text string) analysis.Set {
	if r.e.TermSet != nil {
		return r.e.TermSet(text)
	}
	return analysis.NewSet(r.e.Terms(text))
}

// jaccard is |a ∩ b| / |a ∪ b|, 0 when both are empty.
func jaccard(a, b analysis.Set) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// normAnswer folds an answer for equality: letters and digits only, lower
// case (so "1,000" equals "1000" and "U.S." equals "us").
func normAnswer(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// nearestPairs is the paraphrase prefilter with an embeddings endpoint
// (Engine.Embedder): each nugget's question and answer are embedded and
// paired with their pairsPerNugget nearest neighbours by cosine, most
// similar pairs first, no nugget in more than pairsPerNugget pairs. No
// threshold: the paraphrase prompt judges. nil, nil without an embedder,
// or when embedding failed (the run notes it and the lexical prefilter,
// candidatePairs, takes over).
func (r *run) nearestPairs(ctx context.Context, ns []pipeline.Nugget) ([]pipeline.PairJudgement, error) {
	if r.e.Embedder == nil || len(ns) < 2 {
		return nil, nil
	}
	texts := make([]string, len(ns))
	for i, n := range ns {
		texts[i] = n.Question + " " + n.Answer
	}
	vs, err := r.e.Embedder.Embed(ctx, texts)
	if err == nil && len(vs) != len(ns) {
		err = fmt.Errorf("%d embeddings for %d nuggets", len(vs), len(ns))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.problem("merge: embeddings failed (%v); the lexical prefilter chose the paraphrase pairs", err)
		return nil, nil
	}
	seen := map[[2]int]bool{}
	var all []scoredPair
	for i := range ns {
		near := make([]scoredPair, 0, len(ns)-1)
		for j := range ns {
			if j != i {
				near = append(near, scoredPair{min(i, j), max(i, j), rerank.Cosine(vs[i], vs[j])})
			}
		}
		sortStable(near, func(x, y scoredPair) bool { return x.sim > y.sim })
		for _, p := range near[:min(pairsPerNugget, len(near))] {
			if k := [2]int{p.a, p.b}; !seen[k] {
				seen[k] = true
				all = append(all, p)
			}
		}
	}
	return capPairs(all, len(ns)), nil
}

// scoredPair is a candidate paraphrase pair and its similarity.
type scoredPair struct {
	a, b int
	sim  float64
}

// capPairs takes the pairs most similar first, none of n nuggets in more
// than pairsPerNugget of them.
func capPairs(all []scoredPair, n int) []pipeline.PairJudgement {
	sortStable(all, func(x, y scoredPair) bool { return x.sim > y.sim })
	per := make([]int, n)
	out := []pipeline.PairJudgement{}
	for _, p := range all {
		if per[p.a] >= pairsPerNugget || per[p.b] >= pairsPerNugget {
			continue
		}
		per[p.a]++
		per[p.b]++
		out = append(out, pipeline.PairJudgement{A: p.a, B: p.b})
	}
	return out
}

// candidatePairs is the cheap prefilter of paraphrase merging: pairs of
// nuggets whose question and answer terms overlap enough (or whose answers
// are equal), at most pairsPerNugget per nugget, most similar first.
func (r *run) candidatePairs(ns []pipeline.Nugget) []pipeline.PairJudgement {
	sets := make([]analysis.Set, len(ns))
	answers := make([]string, len(ns))
	for i, n := range ns {
		sets[i] = r.termSet(n.Question + " " + n.Answer)
		answers[i] = normAnswer(n.Answer)
	}
	var all []scoredPair
	for i := range ns {
		for j := i + 1; j < len(ns); j++ {
			sim := jaccard(sets[i], sets[j])
			if answers[i] != "" && answers[i] == answers[j] {
				sim += 0.5
			}
			if sim >= pairMinJaccard {
				all = append(all, scoredPair{i, j, sim})
			}
		}
	}
	return capPairs(all, len(ns))
}

// yesConfidence turns a yes/no answer into P(yes): from log-probabilities
// when the response has them, else 1 or 0.
func yesConfidence(yes bool, resp pipeline.ModelResponse) float64 {
	if p, ok := prompts.YesProbability(resp); ok {
		return p
	}
	if yes {
		return 1
	}
	return 0
}

// merge asks the model about the plausible paraphrase pairs and merges the
// most confident first, down to the target number of nuggets.
func (r *run) merge(ctx context.Context, ns []pipeline.Nugget) ([]pipeline.Nugget, error) {
	pairs, err := r.nearestPairs(ctx, ns)
	if err != nil {
		return nil, err
	}
	if pairs == nil {
		pairs = r.candidatePairs(ns)
	}
	r.enter(StageMerge, len(pairs))
	var done counter
	err = pipeline.ForEach(ctx, len(pairs), r.s.Concurrency, func(ctx context.Context, i int) error {
		defer func() { r.tick(done.inc(), len(pairs)) }()
		a, b := ns[pairs[i].A], ns[pairs[i].B]
		out, resp, ok, err := complete(ctx, r, prompts.BuildParaphrase(prompts.ParaphraseInput{
			Request: r.info, A: prompts.QA{Question: a.Question, Answer: a.Answer}, B: prompts.QA{Question: b.Question, Answer: b.Answer},
		}), prompts.ParseParaphrase)
		if err != nil || !ok {
			return err
		}
		pairs[i].Confidence = yesConfidence(out.Same, resp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pipeline.MergeParaphrases(ns, pairs, r.s.TargetNuggets), nil
}

// rank scores each canonical nugget's quality features (the model's
// judgements, the text measures and the retrieval evidence), fuses quality with
// popularity, spreads the kept places over documents when the rule is on
// (see keepOrder), keeps the top nuggets and stores every nugget
// (merged-away paraphrases too, with popularity 0) for the nugget bank.
func (r *run) rank(ctx context.Context, canonical, raw []pipeline.Nugget) ([]pipeline.Nugget, error) {
	r.enter(StageRank, len(canonical))
	evidence := make([]float64, len(canonical))
	for i, n := range canonical {
		v, err := r.evidence(ctx, n)
		if err != nil {
			return nil, err
		}
		evidence[i] = v
	}
	var done counter
	err := pipeline.ForEach(ctx, len(canonical), r.s.Concurrency, func(ctx context.Context, i int) error {
		defer func() { r.tick(done.inc(), len(canonical)) }()
		n := &canonical[i]
		f := pipeline.TextFeatures(n.Question, n.Answer)
		out, _, ok, err := complete(ctx, r, prompts.BuildNuggetQuality(prompts.NuggetQualityInput{
			Request: r.info, Nugget: prompts.QA{Question: n.Question, Answer: n.Answer},
		}), prompts.ParseNuggetQuality)
		if err != nil {
			return err
		}
		if ok {
			scale := float64(prompts.MaxQualityScore)
			f[pipeline.FeatureTask] = float64(out.Task) / scale
			f[pipeline.FeatureBackground] = float64(out.Background) / scale
			f[pipeline.FeatureRole] = float64(out.Role) / scale
			f[pipeline.FeatureStyle] = float64(out.Style) / scale
			f[pipeline.FeatureScope] = float64(out.Scope) / scale
			f[pipeline.FeatureVital] = boolf(out.Vital)
			f[pipeline.FeatureResearchy] = boolf(out.Researchy)
			// The question's profile, when the answer gave it (an answer
			// of the seven judgements alone leaves these features unset:
			// a trained ranker reads them as 0, the bank shows "–").
			missing := map[string]bool{}
			for _, m := range out.Report.Missing {
				missing[m] = true
			}
			for name, v := range out.Question.Scores() {
				if !missing[name] {
					f[name] = float64(v) / scale
				}
			}
		}
		f[pipeline.FeatureEvidence] = evidence[i]
		n.Features = f
		if r.ranker != nil {
			n.QualityScore = r.ranker.Score(f)
		} else {
			n.QualityScore = pipeline.LinearScore(f, pipeline.DefaultWeights)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ranked := r.keepOrder(pipeline.RankNuggets(canonical, 0))
	kept := ranked[:min(len(ranked), r.s.KeepNuggets):min(len(ranked), r.s.KeepNuggets)]
	// With FacetNuggets, a facet's nuggets are kept beyond keep_nuggets
	// too: each thing the request asks for is scanned for, however its
	// nuggets rank against the documents'.
	extra := map[string]bool{}
	if r.h.FacetNuggets {
		for _, n := range ranked[len(kept):] {
			if strings.HasPrefix(n.ID, FacetNuggetPrefix) {
				kept = append(kept, n)
				extra[n.ID] = true
			}
		}
	}
	all := make([]pipeline.Nugget, 0, len(raw))
	for i, n := range ranked {
		if i >= r.s.KeepNuggets && !extra[n.ID] {
			n.Rank = 0
		}
		all = append(all, n)
	}
	inGroup := map[string]bool{}
	for _, n := range canonical {
		inGroup[n.ID] = true
	}
	for _, n := range raw {
		if !inGroup[n.ID] {
			n.Popularity = 0 // merged into a canonical nugget
			all = append(all, n)
		}
	}
	if err := r.obs.Nuggets(ctx, all); err != nil {
		return nil, err
	}
	r.bank = all
	return kept, nil
}

// keepOrder is the order nuggets are kept in: their rank, spread over
// their source documents when Heuristics.SpreadSources is on.
func (r *run) keepOrder(ranked []pipeline.Nugget) []pipeline.Nugget {
	if !r.h.SpreadSources {
		return ranked
	}
	return spreadOverDocuments(ranked, r.s.KeepNuggets)
}

// spreadOverDocuments reorders ranked nuggets so that the first keep of
// them draw on many documents: in rank order, a nugget whose first source
// already gave maxKeptPerDoc of the nuggets before it waits until the
// others have had their turn. Rank is renumbered from 1 in the new order.
func spreadOverDocuments(ranked []pipeline.Nugget, keep int) []pipeline.Nugget {
	out := make([]pipeline.Nugget, 0, len(ranked))
	var later []pipeline.Nugget
	per := map[string]int{}
	for _, n := range ranked {
		src := ""
		if len(n.Sources) > 0 {
			src = n.Sources[0]
		}
		if len(out) < keep && per[src] >= maxKeptPerDoc {
			later = append(later, n)
			continue
		}
		per[src]++
		out = append(out, n)
	}
	out = append(out[:min(len(out), keep)], append(later, out[min(len(out), keep):]...)...)
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// scanTarget is a passage to scan for a nugget, with its lexical promise.
type scanTarget struct {
	p     *pipeline.Passage
	title string
	score float64
	order int
}

// scanPool is every passage of the retrieved documents, in retrieval
// order, with an inverted index of their terms: built once per run, it
// scores the passages for a nugget by the nugget's few terms rather than
// by asking every passage about each of them.
type scanPool struct {
	targets []scanTarget // score 0; order from 1
	// postings lists, for each term, the targets whose passage holds it.
	postings map[string][]int32
}

// newScanPool reads the passages of the retrieved documents and their
// terms (passageTerms).
func (r *run) newScanPool(ctx context.Context, ret []pipeline.RetrievedDoc, passageTerms func(*pipeline.Passage) analysis.Set) (*scanPool, error) {
	pool := &scanPool{postings: map[string][]int32{}}
	for _, d := range ret {
		ps, err := r.passagesOf(ctx, d.DocID)
		if err != nil {
			return nil, err
		}
		for j := range ps {
			p := &ps[j]
			i := int32(len(pool.targets))
			pool.targets = append(pool.targets, scanTarget{p: p, title: d.Title, order: len(pool.targets) + 1})
			for _, t := range passageTerms(p) {
				pool.postings[t] = append(pool.postings[t], i)
			}
		}
	}
	return pool, nil
}

// scanOrder lists every passage of the retrieved documents for the
// nugget, most promising first by a cheap lexical prefilter (each question
// term shared scores 1, each answer term 2; passages of the nugget's own
// source documents that score at least scanPromiseMin gain
// ownSourceBonus), retrieval order breaking ties. The scan stage builds
// the pool once for all its nuggets.
func (r *run) scanOrder(ctx context.Context, n pipeline.Nugget, ret []pipeline.RetrievedDoc, passageTerms func(*pipeline.Passage) analysis.Set) ([]scanTarget, error) {
	pool, err := r.newScanPool(ctx, ret, passageTerms)
	if err != nil {
		return nil, err
	}
	return pool.order(r, n), nil
}

// order is scanOrder over the pool.
func (pool *scanPool) order(r *run, n pipeline.Nugget) []scanTarget {
	scores := make([]float64, len(pool.targets))
	for _, t := range r.termSet(n.Question) {
		for _, i := range pool.postings[t] {
			scores[i]++
		}
	}
	for _, t := range r.termSet(n.Answer) {
		for _, i := range pool.postings[t] {
			scores[i] += 2
		}
	}
	own := map[string]bool{}
	for _, id := range n.Sources {
		own[id] = true
	}
	// The passages that share a term, best first (a stable sort: ties in
	// retrieval order), then the others in retrieval order: the order a
	// stable sort of them all by score gives, since no score is below 0.
	var promising []int32
	for i, sc := range scores {
		if sc <= 0 {
			continue
		}
		if sc >= scanPromiseMin && own[pool.targets[i].p.DocID] {
			// The nugget's own source states it for certain: its
			// passages come first among equally promising ones.
			scores[i] += ownSourceBonus
		}
		promising = append(promising, int32(i))
	}
	slices.SortStableFunc(promising, func(a, b int32) int { return cmp.Compare(scores[b], scores[a]) })
	out := make([]scanTarget, 0, len(pool.targets))
	for _, i := range promising {
		t := pool.targets[i]
		t.score = scores[i]
		out = append(out, t)
	}
	for i, t := range pool.targets {
		if scores[i] <= 0 {
			out = append(out, t)
		}
	}
	return out
}

// passageTermSets returns the term sets of every passage of the retrieved
// documents, keyed by the passage (a pointer into the run's passages),
// analysing the documents in parallel.
func (r *run) passageTermSets(ctx context.Context, ret []pipeline.RetrievedDoc) (map[*pipeline.Passage]analysis.Set, error) {
	perDoc := make([][]analysis.Set, len(ret))
	err := pipeline.ForEach(ctx, len(ret), r.s.Concurrency, func(ctx context.Context, i int) error {
		ps, err := r.passagesOf(ctx, ret[i].DocID)
		if err != nil {
			return err
		}
		sets := make([]analysis.Set, len(ps))
		for j, p := range ps {
			sets[j] = r.termSet(p.Text)
		}
		perDoc[i] = sets
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[*pipeline.Passage]analysis.Set{}
	for i, d := range ret {
		ps, err := r.passagesOf(ctx, d.DocID)
		if err != nil {
			return nil, err
		}
		for j := range ps {
			out[&ps[j]] = perDoc[i][j]
		}
	}
	return out, nil
}

// scanReach is how many of a nugget's passages (in scanOrder) an
// early-stopping scan may read: the promising ones (prefilter score at
// least scanPromiseMin), at most the engine's ScanLimit when it sets one.
// A full scan reads them all.
func (r *run) scanReach(targets []scanTarget) int {
	if r.s.FullScan {
		return len(targets)
	}
	n := 0
	for n < len(targets) && targets[n].score >= scanPromiseMin {
		n++
	}
	if r.e.ScanLimit > 0 {
		n = min(n, r.e.ScanLimit)
	}
	if r.scanCap > 0 {
		n = min(n, r.scanCap)
	}
	return n
}

// statesAnswer reports whether a candidate states its nugget's answer:
// its support or sentence holds every content term of the answer (an
// answer without one is taken as stated). Only such candidates stop a
// nugget's scan; a sentence that gives another figure, or a paraphrase
// the terms do not show, lets the scan go on.
func (r *run) statesAnswer(n pipeline.Nugget, c pipeline.Candidate) bool {
	answer := r.termSet(n.Answer)
	if len(answer) == 0 {
		return true
	}
	return holdsAll(r.termSet(c.Support+"\n"+c.Sentence), answer)
}

// calibrate sets the run's stopping threshold from the confidences the
// engine gave the candidates of the first round that state their
// nuggets' answers: their median (scanQuantile). An engine whose
// confidences all sit high (a geometric-mean token likelihood rarely falls
// below 0.5) then stops only on its better half. With no such candidate
// there is no signal: nothing counts towards stopping (threshold above 1).
func calibrate(confidences []float64) float64 {
	if len(confidences) == 0 {
		return noThreshold
	}
	c := append([]float64(nil), confidences...)
	sort.Float64s(c)
	return c[int(math.Floor(scanQuantile*float64(len(c)-1)))]
}

// nuggetScan is one kept nugget's scan in progress.
type nuggetScan struct {
	n       pipeline.Nugget
	targets []scanTarget
	reach   int // passages it may read
	next    int // the next passage to read
	found   []pipeline.Candidate
}

// scan looks for supporting sentences for every kept nugget (DESIGN §5,
// step 5). A nugget reads its passages in scanOrder, scanBatch at a time.
// A full scan (Settings.FullScan) reads every passage of the report's
// documents. Otherwise the scan stops once ScanCandidates candidates
// state the nugget's answer with at least the threshold's confidence and
// may be assembled (mayAssemble: a sentence off the request's subject
// never reaches the report, so it does not end the search for one), or
// when the promising passages (scanReach) run out. The threshold is
// Settings.ConfidenceThreshold, or, at 0, calibrated after a first round
// in which every nugget reads one batch (see calibrate); the run records
// it in Settings.CalibratedThreshold.
func (r *run) scan(ctx context.Context, kept []pipeline.Nugget, ret []pipeline.RetrievedDoc) ([]pipeline.Candidate, error) {
	r.enter(StageScan, len(kept))
	// Every passage's terms, read before the nuggets fan out, in parallel
	// by document: each passage is analysed once per run (once per
	// process with Engine.TermSet), and every nugget then only looks up.
	termsOf, err := r.passageTermSets(ctx, ret)
	if err != nil {
		return nil, err
	}
	pool, err := r.newScanPool(ctx, ret, func(p *pipeline.Passage) analysis.Set { return termsOf[p] })
	if err != nil {
		return nil, err
	}
	scans := make([]*nuggetScan, len(kept))
	// Every nugget scans at once, its extractions taking turns for the
	// stage's Concurrency slots, the nugget with most passages left to
	// read first (see slots): it is the stage's critical path. Which
	// passages a nugget reads does not depend on the turns.
	calls := newSlots(r.s.Concurrency)
	// read reads a nugget's next batch of passages, its calls holding
	// their slots for its next batch (see holder).
	read := func(ctx context.Context, ns *nuggetScan, h *holder) error {
		left := ns.reach - ns.next
		batch := ns.targets[ns.next:min(ns.next+scanBatch, ns.reach)]
		ns.next += len(batch)
		h.keepAtMost(len(batch))
		found := make([]*pipeline.Candidate, len(batch))
		err := pipeline.ForEach(ctx, len(batch), scanBatch, func(ctx context.Context, j int) error {
			if err := h.acquire(ctx, left); err != nil {
				return err
			}
			defer h.release(left - len(batch))
			c, err := r.extract(ctx, ns.n, batch[j])
			found[j] = c
			return err
		})
		for _, c := range found {
			if c != nil {
				ns.found = append(ns.found, *c)
			}
		}
		return err
	}
	// The first round: every nugget reads its first batch.
	err = pipeline.ForEach(ctx, len(kept), len(kept), func(ctx context.Context, i int) error {
		targets := pool.order(r, kept[i])
		ns := &nuggetScan{n: kept[i], targets: targets}
		ns.reach = r.scanReach(targets)
		scans[i] = ns
		h := calls.holder()
		defer h.done()
		return read(ctx, ns, h)
	})
	if err != nil {
		return nil, err
	}
	threshold := r.s.ConfidenceThreshold
	if threshold <= 0 {
		var conf []float64
		for _, ns := range scans {
			for _, c := range ns.found {
				if r.statesAnswer(ns.n, c) {
					conf = append(conf, c.Confidence)
				}
			}
		}
		threshold = calibrate(conf)
		if threshold <= 1 {
			r.s.CalibratedThreshold = threshold
		}
	}
	stop := func(ns *nuggetScan) bool {
		if ns.next >= ns.reach {
			return true
		}
		if r.s.FullScan {
			return false
		}
		confident := 0
		for _, c := range ns.found {
			if c.Confidence >= threshold && r.statesAnswer(ns.n, c) && r.mayAssemble(c) {
				confident++
			}
		}
		return confident >= r.s.ScanCandidates
	}
	var done counter
	err = pipeline.ForEach(ctx, len(kept), len(kept), func(ctx context.Context, i int) error {
		defer func() { r.tick(done.inc(), len(kept)) }()
		ns := scans[i]
		h := calls.holder()
		defer h.done()
		for !stop(ns) {
			if err := read(ctx, ns, h); err != nil {
				return err
			}
		}
		r.addScanned(ns.next, len(ns.targets))
		return nil
	})
	if err != nil {
		return nil, err
	}
	var all []pipeline.Candidate
	for _, ns := range scans {
		all = append(all, ns.found...)
	}
	return all, nil
}

// extract asks for a supporting sentence in one passage; nil when the
// passage has none or the support cannot be located in it.
func (r *run) extract(ctx context.Context, n pipeline.Nugget, t scanTarget) (*pipeline.Candidate, error) {
	d, err := r.document(ctx, t.p.DocID)
	if err != nil {
		return nil, err
	}
	author, _, err := r.attributedAuthor(ctx, d)
	if err != nil {
		return nil, err
	}
	out, resp, ok, err := complete(ctx, r, prompts.BuildExtract(prompts.ExtractInput{
		Request: r.info, Nugget: prompts.QA{Question: n.Question, Answer: n.Answer},
		DocID: t.p.DocID, DocTitle: t.title, DocAuthor: author, DocDate: d.Metadata["date"], PassageText: t.p.Text,
	}), prompts.ParseExtract)
	if err != nil || !ok || !out.Found {
		return nil, err
	}
	start, end, located := prompts.LocateSupport(t.p.Text, out.Support)
	if !located {
		// A model may quote loosely; the sentence itself may be verbatim.
		start, end, located = prompts.LocateSupport(t.p.Text, out.Sentence)
	}
	if !located {
		r.problem("extract: support for nugget %s not found in passage %s", n.ID, t.p.ID())
		return nil, nil
	}
	conf := out.Confidence
	if l, ok := prompts.SentenceLikelihood(resp); ok {
		conf = l
	}
	return &pipeline.Candidate{
		NuggetID: n.ID, Sentence: out.Sentence, Support: t.p.Text[start:end],
		Citation:   pipeline.Citation{DocID: t.p.DocID, Ordinal: t.p.Ordinal, Start: t.p.Start + start, End: t.p.Start + end},
		Confidence: conf,
	}, nil
}

// verify runs the support and coverage checks on each kept nugget's
// candidates in confidence order: first the k+verifyExtra most confident;
// then, while fewer than k of a nugget's checked candidates passed both
// checks, as many more as it lacks, up to k+verifyMaxExtra checked in
// all. A nugget whose best candidates fail is not lost while a later one
// holds, and the calls stay bounded. Rounds run one after the other;
// within a round every nugget's candidates are checked concurrently.
func (r *run) verify(ctx context.Context, kept []pipeline.Nugget, cands []pipeline.Candidate) ([]pipeline.Candidate, error) {
	byNugget := map[string][]int{}
	for i, c := range cands {
		if c.Sentence != "" {
			byNugget[c.NuggetID] = append(byNugget[c.NuggetID], i)
		}
	}
	nuggets := map[string]pipeline.Nugget{}
	for _, n := range kept {
		nuggets[n.ID] = n
	}
	k := r.s.SentencesPerNugget
	checked := map[string]int{} // candidates checked so far, per nugget
	var todo []int
	for _, n := range kept {
		idx := byNugget[n.ID]
		sortStable(idx, func(a, b int) bool { return cands[a].Confidence > cands[b].Confidence })
		first := min(len(idx), k+verifyExtra)
		todo = append(todo, idx[:first]...)
		checked[n.ID] = first
	}
	r.enter(StageVerify, len(todo))
	var done counter
	total := len(todo)
	for len(todo) > 0 {
		round := todo
		err := pipeline.ForEach(ctx, len(round), r.s.Concurrency, func(ctx context.Context, j int) error {
			defer func() { r.tick(done.inc(), total) }()
			return r.check(ctx, &cands[round[j]], nuggets[cands[round[j]].NuggetID])
		})
		if err != nil {
			return cands, err
		}
		todo = nil
		for _, n := range kept {
			idx := byNugget[n.ID]
			passed := 0
			for _, i := range idx[:checked[n.ID]] {
				if cands[i].Eligible(true) {
					passed++
				}
			}
			more := min(k-passed, len(idx)-checked[n.ID], k+verifyMaxExtra-checked[n.ID])
			if more <= 0 {
				continue
			}
			todo = append(todo, idx[checked[n.ID]:checked[n.ID]+more]...)
			checked[n.ID] += more
		}
		total += len(todo)
	}
	return cands, nil
}

// check runs the support and coverage checks on one candidate of nugget
// n and records the verdicts; an unreadable answer leaves its verdict
// unchecked (a tolerated problem).
func (r *run) check(ctx context.Context, c *pipeline.Candidate, n pipeline.Nugget) error {
	ps, err := r.passagesOf(ctx, c.Citation.DocID)
	if err != nil {
		return err
	}
	passage := ""
	if c.Citation.Ordinal < len(ps) {
		passage = ps[c.Citation.Ordinal].Text
	}
	d, err := r.document(ctx, c.Citation.DocID)
	if err != nil {
		return err
	}
	sup, resp, ok, err := complete(ctx, r, prompts.BuildVerifySupport(supportInput(d, c.Sentence, c.Support, passage)),
		prompts.ParseVerifySupport)
	if err != nil {
		return err
	}
	if ok {
		c.Supported = verdict(yesConfidence(sup.Yes, resp))
	}
	cov, resp, ok, err := complete(ctx, r, prompts.BuildVerifyCoverage(prompts.VerifyCoverageInput{
		Nugget: prompts.QA{Question: n.Question, Answer: n.Answer}, Sentence: c.Sentence,
	}), prompts.ParseVerifyCoverage)
	if err != nil {
		return err
	}
	if ok {
		c.Covers = verdict(yesConfidence(cov.Yes, resp))
	}
	return nil
}

// supportInput asks whether support, in passage of document d, supports
// sentence; the document's title, author and date back its attribution.
func supportInput(d pipeline.Document, sentence, support, passage string) prompts.VerifySupportInput {
	author, _ := pipeline.DocumentAuthor(d.Metadata)
	return prompts.VerifySupportInput{
		Sentence: sentence, SupportText: support, PassageText: passage,
		DocTitle: d.Title, DocAuthor: author, DocDate: d.Metadata["date"],
	}
}

func verdict(pYes float64) pipeline.Verdict {
	if pYes >= 0.5 {
		return pipeline.VerdictYes
	}
	return pipeline.VerdictNo
}

// counter counts finished items across goroutines.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}
