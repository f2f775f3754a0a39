package offline

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Word lists of the question profile (see questionProfile).
var (
	// valueWords make a question rest on values more than on facts.
	valueWords = setOf(strings.Fields(`should ought best better worse worst good bad right wrong fair unfair
		wise unwise deserve deserved justified moral believe believed opinion view views`))
	// presupposingWords take a judgement for granted ("Why did the policy
	// fail?" assumes it failed).
	presupposingWords = setOf(strings.Fields(`fail failed failure still really even most least only never always`))
	// harmWords speak of violence or danger; a question asking how to do
	// such a thing ("how to make a bomb") is harmful to answer, a question
	// about what happened ("Which attack ...?") much less so.
	harmWords = setOf(strings.Fields(`bomb bombs explosive explosives weapon weapons poison kill killing murder
		assassinate assassination torture suicide massacre genocide terror terrorist terrorism attack attacks`))
	// vagueWords stand for something the question does not name.
	vagueWords = setOf(strings.Fields(`it this that these those they them he she his her their its such
		thing things something matter situation`))
)

// questionProfile is the offline answer to the question-profile part of
// the nugget_quality prompt (prompts.QuestionProfile), read from the
// question's words and the kind of its answer, each score 0..5:
//
//   - ambiguous: 5 for a question of one content term (template words left
//     out), 2 fewer for each further term; plus 1 per word that stands for
//     something unnamed ("it", "this", "they", "such", "matter").
//   - incomplete: 4, less 2 when the question names a year or a number,
//     less 2 when it names a proper noun (a capitalised word after its
//     first), less 1 when it has four or more content terms.
//   - assumptive: 2 for a "why" question, plus 2 per presupposing word
//     ("fail", "still", "most", "only", "never").
//   - multifaceted: 1 per coordination ("and", "or", a comma) between its
//     words, plus 2 when it asks how or why or for effects and causes
//     (researchy), plus 1 when it asks for things in the plural ("What
//     measures ...").
//   - knowledge: 1 per word of ten letters or more, at most 3, plus 2 when
//     the answer is a concrete fact (a date, sum, percentage or quantity)
//     and 1 when it is a name.
//   - subjective: 2 per opinion word ("should", "best", "fair", "believe").
//   - reasoning: 4 for a researchy question, plus 1 for a coordination; 1
//     for any other question of more than one clause; else 0.
//   - harmful: 1 per word of violence or danger ("bomb", "kill",
//     "attack"), 4 more when the question asks how to do something ("how
//     to", "how can", "how do").
//   - decompositional: 2 for a researchy question, plus 2 per coordination.
//   - nonfactoid: 5 for a researchy question; 0 when the answer is a fact
//     (a date, sum, percentage, quantity or name); else 4 for an answer of
//     six words or more, 2 for one of three to five, 1 otherwise.
//
// The offline engine's questions are mostly factoid ("In what year ...",
// "Which treaty ..."), and their profiles say so; a model's questions vary
// more.
func (e *Engine) questionProfile(qa prompts.QA, researchy, answerIsFact, answerIsName bool) prompts.QuestionProfile {
	toks := tokenize(qa.Question)
	var words []string
	coord, numbers, proper, plurals, long := 0, 0, 0, 0, 0
	for i, t := range toks {
		switch t.kind {
		case tokNumber:
			numbers++
			continue
		case tokWord:
		default:
			if t.text == "," && i > 0 && i+1 < len(toks) {
				coord++
			}
			continue
		}
		w := t.lower()
		words = append(words, w)
		if w == "and" || w == "or" {
			coord++
		}
		if i > 0 && t.capitalised() {
			proper++
		}
		if len(w) >= 10 {
			long++
		}
	}
	for i := 0; i+1 < len(words); i++ {
		if (words[i] == "what" || words[i] == "which") && strings.HasSuffix(words[i+1], "s") && !strings.HasSuffix(words[i+1], "ss") {
			plurals++
		}
	}
	content := len(distinct(e.questionTerms(qa.Question)))
	count := func(list map[string]bool) int {
		n := 0
		for _, w := range words {
			if list[w] {
				n++
			}
		}
		return n
	}
	asksWhy, howTo := false, false
	for i, w := range words {
		if w == "why" {
			asksWhy = true
		}
		if w == "how" && i+1 < len(words) {
			switch words[i+1] {
			case "to", "can", "could", "do", "does", "would":
				howTo = true
			}
		}
	}
	clamp := func(s int) int { return max(0, min(prompts.MaxQualityScore, s)) }
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	var p prompts.QuestionProfile
	p.Ambiguous = clamp(5 - 2*max(0, content-1) + count(vagueWords))
	p.Incomplete = 4
	if numbers > 0 {
		p.Incomplete -= 2
	}
	if proper > 0 {
		p.Incomplete -= 2
	}
	if content >= 4 {
		p.Incomplete--
	}
	p.Incomplete = clamp(p.Incomplete)
	p.Assumptive = clamp(2*b2i(asksWhy) + 2*count(presupposingWords))
	p.Multifaceted = clamp(coord + 2*b2i(researchy) + min(plurals, 1))
	p.Knowledge = clamp(min(long, 3) + 2*b2i(answerIsFact && !answerIsName) + b2i(answerIsName))
	p.Subjective = clamp(2 * count(valueWords))
	switch {
	case researchy:
		p.Reasoning = clamp(4 + min(coord, 1))
	case coord > 0:
		p.Reasoning = 1
	}
	p.Harmful = clamp(count(harmWords) + 4*b2i(howTo && count(harmWords) > 0))
	p.Decompositional = clamp(2*b2i(researchy) + 2*coord)
	switch n := len(strings.Fields(qa.Answer)); {
	case researchy:
		p.Nonfactoid = 5
	case answerIsFact:
		p.Nonfactoid = 0
	case n >= 6:
		p.Nonfactoid = 4
	case n >= 3:
		p.Nonfactoid = 2
	default:
		p.Nonfactoid = 1
	}
	return p
}
