package pipeline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DanglingPronoun returns the first pronoun of a short phrase — a facet's
// heading, a question's topic — that has nothing in the phrase to stand
// for: "he" in "Amounts he asked for", "it" in "Treaty made with it",
// "its" in "Fall of its ruler". Cut from its request, such a phrase no
// longer says who or what it speaks of, so a question that quotes it
// cannot be read alone (issue 11: a nugget's question is understood
// without its source). "" when every pronoun has something before it it
// may stand for:
//
//   - "he", "him", "his", "she" and "her" a name ("Industry Hoover cited
//     when he asked", "Kennedy's view of the alliance and his proposals");
//   - "its" and "their" a name, the noun of a pair ("Commercial treaties
//     and their renewal", "Bank's conduct as its charter ran out"), a
//     relative clause's noun ("States that changed their pharmacy laws"),
//     or the set phrase "of its kind";
//   - "it", "they" and "them" a name ("Panama Canal treaties as Carter
//     presented them").
//
// The rules are kept simple, so a phrase they let pass may still dangle
// and one they stop may not; a stopped phrase only costs its question the
// more specific topic.
func DanglingPronoun(phrase string) string {
	words := strings.Fields(phrase)
	for i, raw := range words {
		w := strings.ToLower(strings.TrimFunc(raw, nonWordRune))
		kind, ok := pronounKinds[w]
		if !ok {
			continue
		}
		if namedBefore(words[:i]) {
			continue
		}
		if kind == possessivePronoun && heldBefore(words, i) {
			continue
		}
		return w
	}
	return ""
}

// pronoun kinds: a person's, a possessive of a thing or a group, and a
// thing's or a group's subject or object.
const (
	personPronoun = iota
	possessivePronoun
	thingPronoun
)

var pronounKinds = map[string]int{
	"he": personPronoun, "him": personPronoun, "his": personPronoun, "she": personPronoun, "her": personPronoun,
	"its": possessivePronoun, "their": possessivePronoun,
	"it": thingPronoun, "they": thingPronoun, "them": thingPronoun,
}

// namedBefore reports whether words name someone or something: a
// capitalised word after the first (which a heading capitalises anyway),
// or a possessive with its apostrophe anywhere ("Kennedy's").
func namedBefore(words []string) bool {
	for i, w := range words {
		w = strings.TrimFunc(w, nonWordRune)
		lower := strings.ToLower(w)
		if _, pronoun := pronounKinds[lower]; pronoun {
			continue
		}
		if (strings.HasSuffix(lower, "'s") || strings.HasSuffix(lower, "’s")) && !contractions[strings.NewReplacer("’", "'").Replace(lower)] {
			return true
		}
		if r, _ := utf8.DecodeRuneInString(w); i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// heldBefore reports whether the possessive at words[i] follows what it
// may belong to: the first noun of a pair ("treaties and their renewal",
// "conduct as its charter"), a relative pronoun one or two words before
// it ("those who escaped their taxes"), or "of its kind".
func heldBefore(words []string, i int) bool {
	prev := func(k int) string {
		if i-k < 0 {
			return ""
		}
		return strings.ToLower(strings.TrimFunc(words[i-k], nonWordRune))
	}
	if i >= 2 && pairWords[prev(1)] && prev(2) != "" {
		return true // the noun before the pair word; not a number ("after 1894 and their revival")
	}
	if relativePronouns[prev(1)] || relativePronouns[prev(2)] {
		return true
	}
	return i+1 < len(words) && strings.EqualFold(strings.TrimFunc(words[i+1], nonWordRune), "kind")
}

// pairWords join a possessive to the noun before it; relativePronouns
// open a clause on the noun before them.
var (
	pairWords        = map[string]bool{"and": true, "or": true, "with": true, "as": true}
	relativePronouns = map[string]bool{"that": true, "who": true, "which": true}
	// contractions end in "'s" and own nothing.
	contractions = map[string]bool{"it's": true, "that's": true, "what's": true, "there's": true,
		"here's": true, "let's": true, "who's": true, "he's": true, "she's": true}
)

// nonWordRune is what DanglingPronoun trims from a word: anything but a
// letter or an apostrophe.
func nonWordRune(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }
