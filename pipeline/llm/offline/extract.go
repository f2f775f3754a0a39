package offline

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Parameters of extraction.
const (
	// A sentence qualifies when it states the answer (match ≥
	// extractAnswerMin) and uses at least extractQuestionMin of the
	// question's weighted terms, or when it uses extractOverlapMin of the
	// question's and answer's terms together.
	extractAnswerMin   = 0.7
	extractQuestionMin = 0.25
	extractOverlapMin  = 0.6
	// extractOverlapQuestionMin is the share of the question's own terms a
	// sentence without the answer must use besides (the answer's terms
	// alone, "15 years", say nothing of what the question is about).
	extractOverlapQuestionMin = 0.5
	// disagreeAnswer is the answer score of a sentence that gives a fact of
	// the answer's kind in place of the answer ("15,000 men" for "12,000
	// men") while using extractDisagreeQuestion of the question's terms:
	// sources can differ, and the report should still hear from them.
	disagreeAnswer        = 0.3
	disagreeQuestion      = 0.75
	disagreeQuestionTerms = 3
	// disagreeMaxConfidence caps the confidence in such a sentence below
	// the pipeline's default threshold: it may answer the question, but
	// it does not state what the nugget's source did.
	disagreeMaxConfidence   = 0.45
	extractLongChars        = 400
	extractLongFactor       = 0.8
	extractMinSentenceWords = 4
)

// extractCandidate is a passage sentence scored for a nugget.
type extractCandidate struct {
	support, sentence string
	score             float64
	long              bool
}

// extract finds the passage sentence that best answers the nugget and
// returns it with the engine's confidence in it (for NONE, the confidence
// that nothing answers).
//
// Each sentence (Analyzer.Sentences) gets:
//
//   - a, how well it states the nugget's answer (normalised: case,
//     punctuation, number formats, stemming; 1 for the answer's terms in a
//     row, 0.85 for all of them nearby, 0.6 for all its numbers, else
//     partial; a name counts only when written with its capital; 0.3 for a
//     fact of the answer's kind in its place when the sentence uses at
//     least 0.75 of the question's terms and three of them);
//   - q, the share of the question's terms it uses, weighted (the
//     request's own terms 0.6, others 1; template words left out), the
//     speaker and year it will be attributed to counting as used;
//   - r, the share of the title and problem statement terms it uses.
//
// It qualifies with a ≥ 0.7 and q ≥ 0.25; with a different fact of the
// answer's kind in its place (sources disagree; the confidence in such a
// sentence is capped at 0.45, below the pipeline's default threshold); or,
// for answers that are descriptions rather than facts (no date, amount,
// number or name), when it uses 0.6 of the question's and answer's terms
// together and 0.5 of the question's. A question ("...?") states no fact
// and never qualifies. Its confidence is 0.15 + 0.45a + 0.35q + 0.05r,
// times 0.8 beyond 400 characters; sentences beyond 400 characters are
// taken only when no shorter one qualifies. Length counts no further: a
// shorter sentence elsewhere that merely repeats the answer is no better
// than the one that states it in context (on the demo corpus, preferring
// the shorter one lost gold facts; see docs/pipeline.md).
//
// The best is made to stand alone (rewrite.go): a sentence that refers
// back ("This treaty ...", "It was signed ...") is joined with the one or
// two sentences before it that it needs, or passed over when they are not
// in the passage; linking words go (see cleanSentence); and the sentence
// is attributed to the document's author and year, quoted when it is the
// speaker's own account, a proposal, an opinion or a claim (see
// attribute). SUPPORT is the passage text it was made from, verbatim; a
// sentence that still refers to its source (prompts.SourceReference) or
// has fewer than four words is passed over. NONE when no sentence
// qualifies.
func (e *Engine) extract(in prompts.ExtractInput) (prompts.ExtractOutput, float64) {
	prof := e.profileOf(in.Request)
	wt := e.newWordTerms()
	passage := in.PassageText
	qTerms := distinct(e.questionTerms(in.Nugget.Question))
	askedOfTopic := strings.Contains(in.Nugget.Question, topicMarker)
	answer := normalize(in.Nugget.Answer, wt)
	aTerms := distinct(e.an.Terms(in.Nugget.Answer))
	kind, isFact := e.answerKind(in.Nugget.Answer, wt)
	concreteAnswer := isFact && kind != factName
	// A distinctive answer ("$55,258,701.19", "October 1, 1890") stated
	// word for word needs no question words beside it: it is the fact.
	distinctive := distinctiveAnswer(in.Nugget.Answer)

	qWeight := func(t string) float64 {
		if prof.weight[t] > 0 {
			return 0.6
		}
		return 1
	}
	qaTerms := distinct(append(append([]string(nil), qTerms...), aTerms...))

	src := sourceOf(in.DocAuthor, in.DocDate, in.DocTitle)
	// Every sentence taken is attributed to its speaker and year ("In
	// 1887, Grover Cleveland reported ..."): a question that names them
	// ("What did Cleveland say in 1887 about the surplus?") finds those
	// words in each sentence, though the passage does not repeat them.
	var byline []string
	for _, t := range e.an.Terms(src.byline()) {
		if slices.Contains(qTerms, t) {
			byline = append(byline, t)
		}
	}
	var cands []extractCandidate
	bestAny := 0.0
	spans := validSpans(e.an.Sentences(passage), passage)
	for i, sp := range spans {
		raw := strings.TrimSpace(passage[sp.Start:sp.End])
		if raw == "" || editorialNote(raw) || pipeline.HeadingAlone(raw) || strings.HasSuffix(raw, "?") || pointsAhead(raw) {
			continue // a question states no fact, nor does a heading or an announcement of what follows
		}
		terms := setOf(e.an.Terms(raw))
		asked := terms // the sentence as the report writes it, byline included
		if len(byline) > 0 {
			asked = maps.Clone(terms)
			for _, t := range byline {
				asked[t] = true
			}
		}
		q := weightedShare(qTerms, asked, qWeight)
		if askedOfTopic {
			// A question asked about a part of the request (see
			// topicQuestion) is answered by a sentence that speaks of the
			// request: its words are the request's, not the sentence's.
			q = max(q, weightedShare(prof.core, terms, func(string) float64 { return 1 })/topicCoreShare)
		}
		qa := weightedShare(qaTerms, asked, qWeight)
		a := answerMatch(normalize(raw, wt), answer)
		disagrees := false
		if a < extractAnswerMin && concreteAnswer && q >= disagreeQuestion && countIn(qTerms, asked) >= disagreeQuestionTerms &&
			e.hasFactOfKind(raw, kind, wt) {
			a, disagrees = disagreeAnswer, true
		}
		if kind == factName && isFact && a >= extractAnswerMin && !namedAsSuch(raw, in.Nugget.Answer) {
			a = 0 // "education" is not the name "Education"
		}
		r := weightedShare(prof.core, terms, func(string) float64 { return 1 })
		score := 0.15 + 0.45*a + 0.35*q + 0.05*r
		bestAny = max(bestAny, score)
		statesAnswer := a >= extractAnswerMin && (q >= extractQuestionMin || distinctive && a == 1)
		onTopic := !isFact && qa >= extractOverlapMin && q >= extractOverlapQuestionMin
		if !statesAnswer && !disagrees && !onTopic {
			continue
		}
		// The sentence with what it refers back to, if anything.
		start, end, text, ok := selfContained(passage, spans, i)
		if !ok {
			continue
		}
		if start == sp.Start {
			// A sentence that stands alone may be cut to the clause
			// stating the answer when it is a long series of clauses.
			text = e.trimClauses(text, answer, wt)
		}
		body := cleanSentence(text)
		if prompts.SourceReference(body) != "" || len(strings.Fields(body)) < extractMinSentenceWords {
			continue
		}
		chars := utf8.RuneCountInString(body)
		long := chars > extractLongChars
		if long {
			score *= extractLongFactor
		}
		if disagrees {
			score = math.Min(score, disagreeMaxConfidence)
		}
		kind := listNone
		st := classify(body)
		if start == sp.Start {
			// A counted item that "reported that" would not read as a
			// sentence (see attributeItem).
			dashed, lead := dashItem(passage, spans, i)
			switch counted := countedAt(passage, spans, i); {
			case recommendation(counted, dropOpeners(standAlone(strings.Join(strings.Fields(raw), " ")))):
				kind = listRecommendation
			case (counted || dashed) && !hasVerb(body):
				kind = listNominal
			}
			// An item of a list the speaker leads with a proposal ("I
			// propose: -A major study of automobile insurance.") is
			// proposed as its lead is, unless it is a clause of its own
			// ("-The Commission has built 12 new plants").
			if dashed && st == stanceFact && lead != "" && !hasVerb(body) && classify(lead+".") == stanceProposal {
				st = stanceProposal
			}
		}
		sentence := attributeItem(body, st, src, kind)
		cands = append(cands, extractCandidate{support: passage[start:end], sentence: sentence, score: clamp01(score), long: long})
	}
	if len(cands) == 0 {
		return prompts.ExtractOutput{}, 1 - clamp01(bestAny)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].long != cands[j].long {
			return !cands[i].long
		}
		return cands[i].score > cands[j].score
	})
	best := cands[0]
	return prompts.ExtractOutput{Found: true, Support: best.support, Sentence: best.sentence, Confidence: best.score}, best.score
}

// byline is what attribute writes of the source besides the sentence:
// its speaker (or title) and year; "" when it writes nothing.
func (s source) byline() string {
	switch {
	case s.who == "":
		return ""
	case s.year > 0:
		return s.who + " " + strconv.Itoa(s.year)
	}
	return s.who
}

// topicCoreShare is the share of the request's title and problem
// statement terms at which a sentence fully speaks of the request, for a
// question asked about a part of it.
const topicCoreShare = 0.25

// distinctiveAnswer reports whether an answer is specific enough to name
// its fact alone: a figure of five digits or more, or a date with a day
// and a year.
func distinctiveAnswer(a string) bool {
	digits := 0
	for _, r := range a {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits >= 5
}

// countIn counts the terms that the set has.
func countIn(terms []string, set map[string]bool) int {
	n := 0
	for _, t := range terms {
		if set[t] {
			n++
		}
	}
	return n
}

// namedAsSuch reports whether text writes the first word of a name as the
// name does, capital included: a name's words in lower case name nothing.
func namedAsSuch(text, name string) bool {
	first := ""
	for _, t := range tokenize(name) {
		if t.kind == tokWord && t.capitalised() {
			first = t.text
			break
		}
	}
	if first == "" {
		return true
	}
	for _, t := range tokenize(text) {
		if t.text == first || strings.TrimSuffix(strings.TrimSuffix(t.text, "'s"), "’s") == first {
			return true
		}
	}
	return false
}

// weightedShare is the weighted share of terms that the set has; 0 for no
// terms.
func weightedShare(terms []string, set map[string]bool, w func(string) float64) float64 {
	total, have := 0.0, 0.0
	for _, t := range terms {
		total += w(t)
		if set[t] {
			have += w(t)
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}

// hasFactOfKind reports whether text holds a fact of the given kind (years
// and dates count as one kind).
func (e *Engine) hasFactOfKind(text string, kind factKind, wt *wordTerms) bool {
	for _, f := range e.findFacts(text, tokenize(text), wt) {
		if sameKind(f.kind, kind) {
			return true
		}
	}
	return false
}

// cleanSentence makes a passage sentence stand alone: white space
// collapsed, a heading in capitals or an address's salutation run into it
// removed (see standAlone), a leading bullet or connective ("And", "But", "Also,",
// "Moreover,"...) dropped, the first letter upper-cased, and a final full
// stop added when it ends without one (a closing ':' ';' or ',' becomes a
// full stop).
func cleanSentence(s string) string {
	s = standAlone(strings.Join(strings.Fields(pipeline.DropTranscriptMarks(s)), " "))
	s = dropOpeners(strings.TrimLeft(s, "•*-–—# "))
	s = strings.TrimRight(s, ",;: ")
	if s == "" {
		return ""
	}
	return withFullStop(s)
}

// withFullStop ends s with a full stop unless it ends a sentence already,
// looking past closing quotes and brackets ("... the whole subject."" is
// ended; "... the whole subject" is not).
func withFullStop(s string) string {
	end := strings.TrimRightFunc(s, func(r rune) bool {
		return r == '"' || r == '”' || r == '’' || r == '\'' || r == ')' || r == ']'
	})
	if end == "" {
		return s
	}
	if last, _ := utf8.DecodeLastRuneInString(end); last != '.' && last != '!' && last != '?' {
		s += "."
	}
	return s
}
