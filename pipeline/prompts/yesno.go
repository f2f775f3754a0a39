package prompts

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/crucible-portal/crucible/pipeline"
)

// yesNoMaxTokens bounds the answer of the yes/no tasks: one word is asked
// for, the rest is room for a model that adds punctuation or a few words.
const yesNoMaxTokens = 16

// writeYesNoFormat ends a yes/no prompt's instructions: the format and both
// possible answers, so the example does not lean either way.
func writeYesNoFormat(b *strings.Builder, yesMeans string) {
	b.WriteString("Output format: one word, yes if " + yesMeans + " and no otherwise. That is, either\n\n")
	b.WriteString(formatYesNo(true))
	b.WriteString("\n\nor\n\n")
	b.WriteString(formatYesNo(false))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
}

// formatYesNo writes the canonical yes/no answer.
func formatYesNo(yes bool) string {
	if yes {
		return "yes"
	}
	return "no"
}

var reAnswerLabel = regexp.MustCompile(`(?i)\b(?:final\s+)?(?:answer|verdict|decision|judgement|judgment)\b\s*(?:\*\*|__)?\s*(?:is\s*)?[:：=]?\s*(?:\*\*|__|["'“])?\s*(yes|no)\b`)

// parseYesNo reads a yes/no answer. In order of trust:
//  1. a JSON object: the first boolean, or string reading yes or no, in
//     key order;
//  2. the first word, when it is yes or no ("Yes.", "**No**, because ...");
//  3. the last "answer: yes" style label ("Answer: no", "The final answer
//     is **yes**");
//  4. the last line that is only yes or no;
//  5. yes or no as the only one of the two words in the answer;
//  6. an answer that is only "true" or "false".
//
// Anything else, including prose that uses both words without a label, is
// a *ParseError.
func parseYesNo(task pipeline.Task, text string) (bool, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return false, parseErrorf(task, text, "the answer is empty")
	}
	if js := firstJSON(clean); strings.HasPrefix(js, "{") {
		var obj map[string]any
		if err := json.NewDecoder(strings.NewReader(js)).Decode(&obj); err == nil {
			for _, k := range sortedKeys(obj) {
				switch v := obj[k].(type) {
				case bool:
					return v, nil
				case string:
					if yes, ok := yesNoWord(v); ok {
						return yes, nil
					}
				}
			}
		}
	}
	words := lowerWords(clean)
	if len(words) > 0 && (words[0] == "yes" || words[0] == "no") {
		return words[0] == "yes", nil
	}
	if m := reAnswerLabel.FindAllStringSubmatch(clean, -1); len(m) > 0 {
		return strings.EqualFold(m[len(m)-1][1], "yes"), nil
	}
	lines := strings.Split(clean, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		t, _ := stripLineMarkup(lines[i])
		if yes, ok := yesNoWord(t); ok && len(lowerWords(t)) == 1 {
			return yes, nil
		}
	}
	var hasYes, hasNo bool
	for _, w := range words {
		hasYes = hasYes || w == "yes"
		hasNo = hasNo || w == "no"
	}
	switch {
	case hasYes && !hasNo:
		return true, nil
	case hasNo && !hasYes:
		return false, nil
	case hasYes && hasNo:
		return false, parseErrorf(task, text, "the answer says both yes and no without marking either as the answer")
	}
	if len(words) == 1 && (words[0] == "true" || words[0] == "false") {
		return words[0] == "true", nil
	}
	return false, parseErrorf(task, text, "no yes or no in the answer")
}

// yesNoWord reads the first word of s as yes or no ("Yes.", "**no**",
// "TRUE", "y").
func yesNoWord(s string) (yes, ok bool) {
	w := lowerWords(s)
	if len(w) == 0 {
		return false, false
	}
	switch w[0] {
	case "yes", "y", "true":
		return true, true
	case "no", "n", "false":
		return false, true
	}
	return false, false
}

// lowerWords splits s into lower-case runs of letters.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
}

// YesProbability turns the token log-probabilities of a yes/no answer into
// the probability that the answer is yes.
//
// It reads the first answer token: the first token after any </think>
// section that is not blank, punctuation, markdown or an "Answer" label;
// when neither that token nor its alternatives is yes or no, the first
// token that is. At that position it adds up the probabilities of the
// distinct tokens (the generated one and its top alternatives) that read
// "yes" and those that read "no", ignoring case, surrounding whitespace,
// punctuation and the "Ġ"/"▁" word markers of some tokenizers. With both
// seen, p = P(yes) / (P(yes) + P(no)); with only yes seen, p = P(yes);
// with only no seen, p = 1 - P(no) (the unseen rest counts against the side
// that was seen).
//
// ok is false when the response has no log-probabilities or no yes/no
// token; callers then fall back to the parsed answer as 1 or 0.
func YesProbability(resp pipeline.ModelResponse) (p float64, ok bool) {
	toks := resp.TokenLogprobs
	start := 0
	for i, t := range toks {
		if strings.Contains(strings.ToLower(t.Token), "</think") {
			start = i + 1
		}
	}
	first := -1
	for i := start; i < len(toks); i++ {
		switch normToken(toks[i].Token) {
		case "", "answer", "final":
			continue
		}
		first = i
		break
	}
	if first < 0 {
		return 0, false
	}
	if p, ok := yesAt(toks[first]); ok {
		return p, true
	}
	for i := first + 1; i < len(toks); i++ {
		if n := normToken(toks[i].Token); n == "yes" || n == "no" {
			return yesAt(toks[i])
		}
	}
	return 0, false
}

// normToken reduces a token to the word it spells, lower-cased.
func normToken(tok string) string {
	t := strings.TrimSpace(tok)
	t = strings.TrimLeft(t, "Ġ▁")
	t = strings.TrimFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) })
	return strings.ToLower(t)
}

// yesAt computes the yes probability at one token position.
func yesAt(t pipeline.TokenLogprob) (float64, bool) {
	seen := make(map[string]bool, len(t.Top)+1)
	var pYes, pNo float64
	add := func(tok string, lp float64) {
		if seen[tok] || math.IsNaN(lp) {
			return
		}
		seen[tok] = true
		switch normToken(tok) {
		case "yes":
			pYes += math.Exp(math.Min(lp, 0))
		case "no":
			pNo += math.Exp(math.Min(lp, 0))
		}
	}
	add(t.Token, t.Logprob)
	for _, alt := range t.Top {
		add(alt.Token, alt.Logprob)
	}
	var p float64
	switch {
	case pYes > 0 && pNo > 0:
		p = pYes / (pYes + pNo)
	case pYes > 0:
		p = pYes
	case pNo > 0:
		p = 1 - pNo
	default:
		return 0, false
	}
	return math.Max(0, math.Min(1, p)), true
}
