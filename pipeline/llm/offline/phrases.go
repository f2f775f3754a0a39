package offline

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// This file finds nuggets in sentences that state no date, amount or name:
// what a definition says ("The chief question is that of the currency")
// and the object a clause ends on ("had a marked effect on prices").

// Worth of the phrase nuggets relative to facts (see factValue).
const (
	copulaValue = 0.5
	phraseValue = 0.4
	// maxPhraseWords bounds a phrase answer.
	maxPhraseWords    = 8
	maxObjectWords    = 4
	minSubjectContent = 2
)

var copulas = map[string]bool{"is": true, "was": true, "are": true, "were": true}

// objectPrepositions introduce the objects asked about with "<prep> what".
var objectPrepositions = map[string]bool{
	"on": true, "upon": true, "against": true, "toward": true, "towards": true, "into": true,
	"among": true, "with": true, "for": true, "from": true, "to": true,
}

// badSubjectOpeners open a subject that points elsewhere ("That is ...",
// "There are ...").
var badSubjectOpeners = map[string]bool{"that": true, "there": true, "such": true, "what": true, "here": true, "it": true}

// copulaNugget reads "<subject> is <noun phrase>" at the start of a
// sentence: the question asks "What is <subject>?", the answer is the noun
// phrase. The subject must open with a determiner or a capitalised word,
// hold at least two content words and no pronoun or punctuation; the
// complement must open with "the", "a", "an", "that of" or "those of" (a
// noun phrase, not an adjective or participle) and run to the next
// punctuation in at most eight words.
func (e *Engine) copulaNugget(s string, toks []token, wt *wordTerms) (prompts.QA, bool) {
	start := 0
	for start < len(toks) && toks[start].kind == tokWord && discourseAdverbs[toks[start].lower()] {
		start++
		if start < len(toks) && toks[start].text == "," {
			start++
		}
	}
	c := -1
	for i := start; i < len(toks); i++ {
		if toks[i].kind == tokSymbol {
			return prompts.QA{}, false
		}
		if copulas[toks[i].lower()] {
			c = i
			break
		}
	}
	if c < 0 || c-start < 2 {
		return prompts.QA{}, false
	}
	first := toks[start]
	if badSubjectOpeners[first.lower()] || !subjectStart(first) || pronouns[first.lower()] {
		return prompts.QA{}, false
	}
	content := 0
	for _, t := range toks[start:c] {
		if pronouns[t.lower()] {
			return prompts.QA{}, false
		}
		if wt.content(t) {
			content++
		}
	}
	if content < minSubjectContent {
		return prompts.QA{}, false
	}
	k := c + 1
	if k+1 < len(toks) && (toks[k].is("that") || toks[k].is("those")) && toks[k+1].is("of") {
		k += 2
	} else if k >= len(toks) || !(toks[k].is("the") || toks[k].is("a") || toks[k].is("an")) {
		return prompts.QA{}, false
	}
	end := k
	for end < len(toks) && toks[end].kind != tokSymbol {
		end++
	}
	words, contentWords := end-k, 0
	for _, t := range toks[k:end] {
		if wt.content(t) {
			contentWords++
		}
		if pronouns[t.lower()] {
			return prompts.QA{}, false
		}
	}
	if words == 0 || words > maxPhraseWords || contentWords == 0 {
		return prompts.QA{}, false
	}
	subject := s[first.start:toks[c-1].end]
	if l := first.lower(); determiners[l] || functionWords[l] || !wt.content(first) {
		subject = l + subject[len(first.text):] // "The", "Another": not a name
	}
	q := finishQuestion("What "+toks[c].lower()+" "+subject, wt)
	a := strings.TrimSpace(s[toks[k].start:toks[end-1].end])
	if q == "" || a == "" {
		return prompts.QA{}, false
	}
	return prompts.QA{Question: q, Answer: a}, true
}

// objectFact finds the object of a preposition that ends a clause ("...
// had a marked effect on prices;"): up to four content words after the
// preposition and any article, none of them part of a fact and not all of
// them common words, with punctuation or the end of the sentence after
// them. The last such object
// of the sentence is taken (a clause's end carries its news).
func (e *Engine) objectFact(toks []token, facts []fact, wt *wordTerms) (fact, bool) {
	inFact := make([]bool, len(toks))
	for _, f := range facts {
		for k := f.first; k <= f.last && k < len(toks); k++ {
			inFact[k] = true
		}
	}
	var found fact
	ok := false
	for p := 0; p < len(toks); p++ {
		if toks[p].kind != tokWord || !objectPrepositions[toks[p].lower()] {
			continue
		}
		k := p + 1
		for k < len(toks) && toks[k].kind == tokWord && (toks[k].is("the") || toks[k].is("a") || toks[k].is("an")) {
			k++
		}
		if toks[p].is("to") && k == p+1 && k < len(toks) && !toks[k].capitalised() {
			continue // "to control inflation": an infinitive
		}
		first := k
		for k < len(toks) && k-first < maxObjectWords && !inFact[k] && wt.phraseWord(toks[k]) && !pronouns[toks[k].lower()] {
			k++
		}
		if k == first || strings.HasSuffix(toks[first].lower(), "ing") {
			continue
		}
		news := false
		for _, t := range toks[first:k] {
			if !e.common[firstTerm(wt, t)] {
				news = true
			}
		}
		if !news {
			continue // "for the people": too common to be an answer
		}
		if k < len(toks) && toks[k].kind != tokSymbol {
			continue // the phrase runs on: not the end of a clause
		}
		found, ok = fact{kind: factPhrase, first: first, last: k - 1, start: toks[first].start, end: toks[k-1].end}, true
	}
	return found, ok
}
