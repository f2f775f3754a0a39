package offline

import (
	"math"
	"strings"
	"unicode"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Coefficients of the paraphrase model: p(same) = sigmoid(z) with
// z = paraBias + paraQuestion·q + paraAnswer·a + paraKind·k (see paraphrase).
const (
	paraBias     = -5.0
	paraQuestion = 7.0
	paraAnswer   = 3.5
	paraKind     = 0.5
	// paraSameAsk and paraOtherAsk are added when both questions ask for
	// the same kind of thing ("what year", "how much", "who"...) or for
	// different kinds: a year and a sum are never the same information.
	paraSameAsk  = 0.5
	paraOtherAsk = -3.0
	// requestTermWeight is the weight, in the question overlap, of terms
	// the request itself uses: every nugget of a report shares them, so
	// they say little about whether two nuggets ask the same thing.
	requestTermWeight = 0.5
	// simHashShare is the share of the question similarity taken from the
	// SimHash distance (the rest is the weighted Jaccard).
	simHashShare = 0.2
)

// paraphrase returns the probability that two nuggets ask for the same
// information, p = sigmoid(−5 + 7q + 3.5a + 0.5k + t), where
//
//   - q is the question similarity: 0.8 × the weighted Jaccard of the two
//     questions' terms (the engine's template words such as "year" left
//     out; terms of the request weigh half, since every nugget shares
//     them) + 0.2 × the SimHash similarity, 1 − Hamming/32 floored at 0;
//   - a is the answer agreement: 1 for the same normalised answer (case,
//     punctuation, "1,000" = "1000", "three" = "3", "%" = "percent",
//     stemming), 0.9 × the containment score when one answer holds the
//     other ("1890" and "in 1890"), else the partial overlap;
//   - k is +1 when both answers are facts of the same kind (a date or year,
//     an amount, a percentage, a quantity), −1 when they are of different
//     kinds, 0 when either is not a recognisable fact;
//   - t is +0.5 when both questions ask for the same kind of thing (see
//     askType: a time, an amount, a percentage, a count, a person, a
//     place, "which treaty", a thing), −3 when they ask for different
//     kinds, 0 when either has no wh-word.
//
// The coefficients put identical nuggets near 0.99, a reworded question
// with the same answer near 0.9, closely worded questions with different
// answers (sources that disagree) a little above 0.5 and different facts
// on the same subject below 0.1. The answer is yes when p ≥ 0.5.
func (e *Engine) paraphrase(in prompts.ParaphraseInput) float64 {
	prof := e.profileOf(in.Request)
	wt := e.newWordTerms()
	qa := e.questionTerms(in.A.Question)
	qb := e.questionTerms(in.B.Question)
	if len(qa) == 0 || len(qb) == 0 {
		return clampProb(0)
	}
	weight := func(t string) float64 {
		if prof.weight[t] > 0 {
			return requestTermWeight
		}
		return 1
	}
	q := (1-simHashShare)*weightedJaccard(qa, qb, weight) + simHashShare*simHashSimilarity(qa, qb)
	na, nb := normalize(in.A.Answer, wt), normalize(in.B.Answer, wt)
	a := 0.0
	switch {
	case len(na) == 0 || len(nb) == 0:
	case strings.Join(na, " ") == strings.Join(nb, " "):
		a = 1
	default:
		a = 0.9 * math.Max(answerMatch(na, nb), answerMatch(nb, na))
	}
	k := 0.0
	ka, okA := e.answerKind(in.A.Answer, wt)
	kb, okB := e.answerKind(in.B.Answer, wt)
	if okA && okB {
		if sameKind(ka, kb) {
			k = 1
		} else {
			k = -1
		}
	}
	t := 0.0
	ta, tb := askType(in.A.Question), askType(in.B.Question)
	switch {
	case ta == "" || tb == "":
	case ta == tb:
		t = paraSameAsk
	default:
		t = paraOtherAsk
	}
	// Two facts of the same kind that disagree ("August 28, 1894" and
	// "July 24, 1897" for "What date is given in the account of the tariff
	// laws?") answer two questions, however alike their words: a nugget
	// asks one thing, and its answers agree.
	if okA && okB && sameKind(ka, kb) && a < disagreeingAnswers {
		return clampProb(0)
	}
	return clampProb(sigmoid(paraBias + paraQuestion*q + paraAnswer*a + paraKind*k + t))
}

// disagreeingAnswers is the answer match (times 0.9) below which two facts
// of one kind are different facts.
const disagreeingAnswers = 0.45

// askType names what a question asks for from its wh-phrase: "time",
// "amount", "percent", "count", "person", "place", "which <noun>" or
// "thing"; "" when it has no wh-word.
func askType(question string) string {
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	})
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch w {
		case "when":
			return "time"
		case "who", "whom", "whose":
			return "person"
		case "where":
			return "place"
		case "how":
			switch next {
			case "much":
				return "amount"
			case "many":
				return "count"
			case "long":
				return "time"
			}
		case "which":
			if next != "" {
				return "which " + next
			}
		case "what":
			switch next {
			case "year", "date", "month", "decade", "day", "time":
				return "time"
			case "percentage", "percent", "share", "proportion", "rate":
				return "percent"
			case "amount", "sum", "cost", "price":
				return "amount"
			case "number":
				return "count"
			case "place", "country", "city", "state":
				return "place"
			}
			return "thing"
		}
	}
	return ""
}

// questionTerms are the terms of a question without the engine's template
// words.
func (e *Engine) questionTerms(q string) []string {
	var out []string
	for _, t := range e.an.Terms(q) {
		if !e.scaffold[t] {
			out = append(out, t)
		}
	}
	return out
}

// weightedJaccard is Σ w over the shared distinct terms / Σ w over all.
func weightedJaccard(a, b []string, w func(string) float64) float64 {
	da, db := distinct(a), distinct(b)
	sa := setOf(da)
	inter, union := 0.0, 0.0
	for _, t := range da {
		union += w(t)
	}
	for _, t := range db {
		if sa[t] {
			inter += w(t)
		} else {
			union += w(t)
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// simHashSimilarity maps the Hamming distance of two SimHashes to [0, 1]:
// 1 for equal hashes, 0 at 32 bits apart (unrelated texts) or more.
func simHashSimilarity(a, b []string) float64 {
	return math.Max(0, 1-float64(Hamming(SimHash(a), SimHash(b)))/32)
}

// sameKind reports whether two answer kinds ask the same kind of thing;
// years and dates are one kind.
func sameKind(a, b factKind) bool {
	time := func(k factKind) bool { return k == factYear || k == factDate }
	if time(a) && time(b) {
		return true
	}
	return a == b
}
