package offline

import (
	"math"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Parameters of the verification tasks.
const (
	// supportShare is the share of the sentence's terms the passage must
	// hold for support.
	supportShare = 0.8
	// missingNumberShare caps the share when a number of the sentence is
	// missing from the passage: a sentence that adds a figure is not
	// supported, whatever else it shares.
	missingNumberShare = 0.75
)

// verifySupport returns the probability that the passage supports the
// sentence. s is the share of the sentence's distinct terms found in the
// passage (or, with no passage, in the cited support), with numbers
// counting double and the share capped at 0.75 when any number of the
// sentence is missing from the passage. The document's title, author and
// date count as held too, with the words of an attribution ("In 1903,
// Theodore Roosevelt reported that ..."): the document supports who said
// it and when. The sentence is supported when
// s ≥ 0.8; p maps s piecewise linearly so that p ≥ 0.5 exactly then:
// p = 0.5·s/0.8 below 0.8 and 0.5 + 0.49·(s − 0.8)/0.2 from there (a full
// match gives 0.99). A sentence without terms is not supported (p = 0.05).
func (e *Engine) verifySupport(in prompts.VerifySupportInput) float64 {
	wt := e.newWordTerms()
	source := in.PassageText
	if strings.TrimSpace(source) == "" {
		source = in.SupportText
	}
	sent := distinct(e.an.Terms(in.Sentence))
	if len(sent) == 0 {
		return 0.05
	}
	have := setOf(e.an.Terms(source))
	// Who said it and when: the document's title, author and date support
	// the attribution of a sentence (see attribute), with the words it adds.
	byline := in.DocTitle + " " + in.DocAuthor + " " + in.DocDate
	if strings.TrimSpace(byline) != "" {
		bt := e.an.Terms(byline + " " + attributionWords)
		for i, t := range bt {
			have[t] = true
			// A name the metadata writes apart may be written joined
			// ("Mc Kinley", McKinley).
			if i+1 < len(bt) {
				for _, j := range e.an.Terms(t + bt[i+1]) {
					have[j] = true
				}
			}
		}
		source += " " + byline
	}
	// Numbers are compared in normalised form ("1,000" = "1000").
	numbers := map[string]bool{}
	for _, t := range normalize(source, wt) {
		numbers[t] = true
	}
	total, held := 0.0, 0.0
	missingNumber := false
	for _, t := range sent {
		w := 1.0
		isNum := isNumberTerm(t)
		if isNum {
			w = 2
		}
		total += w
		switch {
		case have[t]:
			held += w
		case isNum && numbers[strings.ReplaceAll(t, ",", "")]:
			held += w
		case isNum:
			missingNumber = true
		}
	}
	s := held / total
	if missingNumber {
		s = math.Min(s, missingNumberShare)
	}
	if s < supportShare {
		return clampProb(0.5 * s / supportShare)
	}
	return clampProb(0.5 + 0.49*(s-supportShare)/(1-supportShare))
}

// isNumberTerm reports whether a term starts with a digit.
func isNumberTerm(t string) bool { return t != "" && t[0] >= '0' && t[0] <= '9' }

// Coefficients of the coverage model: p = sigmoid(covBias + covAnswer·a +
// covQuestion·q + covBoth·a·q).
const (
	covBias     = -4.0
	covAnswer   = 3.0
	covQuestion = 5.0
	covBoth     = 2.0
	// coverDisagreeAnswer is a for a sentence that gives a different fact
	// of the answer's kind while using 0.6 of the question's terms: it
	// answers the question, though not as the nugget's source did.
	coverDisagreeAnswer   = 0.5
	coverDisagreeQuestion = 0.6
)

// verifyCoverage returns the probability that the sentence answers the
// nugget's question, p = sigmoid(−4 + 3a + 5q + 2aq), where a is how well
// the sentence states the nugget's answer (as in extraction: 1 for the
// normalised answer in a row, 0.85 for all its terms nearby, 0.6 for its
// numbers, 0.5 for a different fact of the same kind when q ≥ 0.6, partial
// otherwise; a name only counts written with its capital) and q the
// share of the question's terms (template words left out) it uses. The
// answer alone does not make coverage (a = 1, q = 0 gives 0.27: the same
// year can belong to another event); the answer with a fifth of the
// question's terms does (0.6), and so do nearly all of the question's
// terms without the answer (q = 0.9: 0.62).
func (e *Engine) verifyCoverage(in prompts.VerifyCoverageInput) float64 {
	wt := e.newWordTerms()
	sentTerms := setOf(e.an.Terms(in.Sentence))
	qTerms := distinct(e.questionTerms(in.Nugget.Question))
	q := weightedShare(qTerms, sentTerms, func(string) float64 { return 1 })
	a := answerMatch(normalize(in.Sentence, wt), normalize(in.Nugget.Answer, wt))
	kind, isFact := e.answerKind(in.Nugget.Answer, wt)
	switch {
	case isFact && kind != factName && a < extractAnswerMin && q >= coverDisagreeQuestion && e.hasFactOfKind(in.Sentence, kind, wt):
		a = coverDisagreeAnswer
	case isFact && kind == factName && !namedAsSuch(in.Sentence, in.Nugget.Answer):
		a = 0
	}
	return clampProb(sigmoid(covBias + covAnswer*a + covQuestion*q + covBoth*a*q))
}
