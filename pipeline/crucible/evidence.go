package crucible

import (
	"context"
	"math"
	"unicode"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
)

// Shape of the evidence feature (see evidence).
const (
	// evidencePassages is how many of the request's best passages count
	// for the proximity part: rank 0 scores 1, rank evidencePassages 0.
	evidencePassages = 100
	// evidenceFullShare is the share of the request's terms at which a
	// sentence is fully on the request's subject.
	evidenceFullShare = 1.0 / 3
	// evidenceFullFigures is how many figures (numbers, dates, sums,
	// percentages) make a sentence fully concrete.
	evidenceFullFigures = 4
	// evidenceFiguresWeight is the weight of concreteness beside the
	// subject and proximity parts, which weigh 1.
	evidenceFiguresWeight = 0.4
	// outOfPeriodFactor scales the evidence of a source document dated
	// outside the periods the request names (or undated), as retrieval
	// scales its score (see preferPeriod).
	outOfPeriodFactor = 1.0 / periodBoost
)

// sentenceInfo is one sentence of a stored passage with its terms.
type sentenceInfo struct {
	terms   analysis.Set
	onTopic bool // speaks of the request's subject
	figures int
	rank    int // the passage's rank among the request's best passages; -1 beyond them
}

// evidence measures how strongly the request's own retrieval backs a
// nugget: over the sentences of the nugget's source documents that hold
// every term of its answer, the best of
//
//	(subject + 0.4 × concreteness + proximity) / 2.4
//
// where subject is the share of the request's title and problem statement
// terms the sentence uses, full at a third; concreteness the number of
// figures it states in digits (dates, sums, percentages, counts), full at
// four; and proximity 1 − r/100 for a sentence in the request's r-th best
// BM25 passage (r from 0; after the period preference, see preferPeriod),
// 0 outside the best 100. When the request names a period, a sentence of a
// document dated outside it counts a third. A nugget whose answer sits
// in a fact-dense sentence of a passage the request ranks first scores
// near 1; one whose answer its sources do not state (a model's paraphrase,
// or an answer with no content term) scores 0. It needs no model call, so
// it is the same with the offline engine and with an endpoint.
func (r *run) evidence(ctx context.Context, n pipeline.Nugget) (float64, error) {
	answer := r.termSet(n.Answer)
	if len(answer) == 0 || len(r.query) == 0 {
		return 0, nil
	}
	// Sentences off the request's subject back no nugget, unless the
	// nugget's own question speaks of it.
	onTopicQuestion := r.subject.covers(n.Question, false)
	best := 0.0
	for _, id := range n.Sources {
		sents, err := r.sentencesOf(ctx, id)
		if err != nil {
			return 0, err
		}
		for _, s := range sents {
			if !holdsAll(s.terms, answer) || !s.onTopic && !onTopicQuestion {
				continue
			}
			used := 0
			for _, t := range r.query {
				if s.terms.Has(t) {
					used++
				}
			}
			subject := math.Min(1, float64(used)/float64(len(r.query))/evidenceFullShare)
			concrete := math.Min(1, float64(s.figures)/evidenceFullFigures)
			proximity := 0.0
			if s.rank >= 0 {
				proximity = math.Max(0, 1-float64(s.rank)/evidencePassages)
			}
			v := (subject + evidenceFiguresWeight*concrete + proximity) / (2 + evidenceFiguresWeight)
			if r.h.PreferPeriod && r.inPeriod != nil && !r.inPeriod[id] {
				v *= outOfPeriodFactor
			}
			best = math.Max(best, v)
		}
	}
	return best, nil
}

// holdsAll reports whether set has every term of sub.
func holdsAll(set, sub analysis.Set) bool {
	for _, t := range sub {
		if !set.Has(t) {
			return false
		}
	}
	return true
}

// sentencesOf splits a document's passages into sentences (the engine's
// Sentences; a passage is one sentence without it), with their terms,
// figures and passage rank, once per run.
func (r *run) sentencesOf(ctx context.Context, id string) ([]sentenceInfo, error) {
	r.dmu.Lock()
	ss, ok := r.sentences[id]
	r.dmu.Unlock()
	if ok {
		return ss, nil
	}
	ps, err := r.passagesOf(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		rank, ok := r.passageRank[pipeline.PassageID(id, p.Ordinal)]
		if !ok {
			rank = -1
		}
		spans := []pipeline.Span{{Start: 0, End: len(p.Text)}}
		if r.e.Sentences != nil {
			spans = r.e.Sentences(p.Text)
		}
		for _, sp := range spans {
			if sp.Start < 0 || sp.End > len(p.Text) || sp.Start >= sp.End {
				continue
			}
			text := p.Text[sp.Start:sp.End]
			if r.e.TermSet != nil {
				// The list first: the subject reads it, and the set is
				// then made from it without a second analysis.
				r.e.Terms(text)
			}
			ss = append(ss, sentenceInfo{terms: r.termSet(text), onTopic: r.subject.covers(text, r.outOfPeriod(id)), figures: countFigures(text), rank: rank})
		}
	}
	r.dmu.Lock()
	r.sentences[id] = ss
	r.dmu.Unlock()
	return ss, nil
}

// countFigures counts the figures of a text: runs of digits, with the
// commas and points between digits ("1,000,000" and "3.5" count once).
// Dates, sums and percentages all state theirs in digits.
func countFigures(s string) int {
	n := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if !unicode.IsDigit(rs[i]) {
			continue
		}
		n++
		for i+1 < len(rs) && (unicode.IsDigit(rs[i+1]) ||
			(rs[i+1] == ',' || rs[i+1] == '.') && i+2 < len(rs) && unicode.IsDigit(rs[i+2])) {
			i++
		}
	}
	return n
}
