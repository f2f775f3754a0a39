package judge

import (
	"slices"
	"strings"
	"unicode"
)

// This file holds the lexical analysis of the offline judge. It is
// deliberately small and self-contained (the index's analyzer lives in a
// package this one may not import): normalisation, content words and a
// light suffix stripper.

// normTokens splits s into normalised tokens: lower case; runs of letters
// and digits (with combining marks) are tokens; everything else separates
// them. Two things stay inside a number: a digit group separator (a comma,
// no-break space, thin space or narrow no-break space followed by exactly
// three digits, so "1,000", and 1 000 written with a no-break space, read
// "1000" while "1,5" is two tokens) is dropped, and a decimal point between
// digits is kept ("3.5").
func normTokens(s string) []string {
	rs := []rune(strings.ToLower(s))
	var toks []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, string(cur))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (unicode.Is(unicode.Mn, r) && len(cur) > 0):
			cur = append(cur, r)
		case isGroupSeparator(rs, i):
			// "1,000": the separator is dropped and the number goes on.
		case r == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return toks
}

// isGroupSeparator reports whether rs[i] separates digit groups: a comma
// or a no-break, thin or narrow no-break space with a digit before it and
// exactly three digits after it.
func isGroupSeparator(rs []rune, i int) bool {
	switch rs[i] {
	case ',', '\u00a0', '\u2009', '\u202f':
	default:
		return false
	}
	if i == 0 || !unicode.IsDigit(rs[i-1]) {
		return false
	}
	for k := i + 1; k <= i+3; k++ {
		if k >= len(rs) || !unicode.IsDigit(rs[k]) {
			return false
		}
	}
	return i+4 >= len(rs) || !unicode.IsDigit(rs[i+4])
}

// normPhrase is the normalised form of s for phrase matching: its tokens
// joined by single spaces, with a space at each end so that a match with
// strings.Contains falls on token boundaries.
func normPhrase(s string) string {
	toks := normTokens(s)
	if len(toks) == 0 {
		return ""
	}
	return " " + strings.Join(toks, " ") + " "
}

// containsPhrase reports whether the normalised answer occurs in the
// normalised text on token boundaries. An answer with no tokens is never
// found.
func containsPhrase(text, answer string) bool {
	a := normPhrase(answer)
	return a != "" && strings.Contains(normPhrase(text), a)
}

// terms are the distinct content words of a text, stemmed, with the
// numbers among them marked.
type terms struct {
	set     map[string]bool
	order   []string // first-occurrence order, for deterministic output
	numbers []string // distinct tokens holding a digit, unstemmed
}

// contentTerms analyses s: normalised tokens, stopwords and one-letter
// words dropped, the rest stemmed. Tokens with a digit are kept whole and
// also listed as numbers.
func contentTerms(s string) terms {
	t := terms{set: map[string]bool{}}
	for _, tok := range normTokens(s) {
		if stopwords[tok] {
			continue
		}
		if hasDigit(tok) {
			if !t.set[tok] {
				t.numbers = append(t.numbers, tok)
			}
		} else {
			if len([]rune(tok)) < 2 {
				continue
			}
			tok = stem(tok)
		}
		if !t.set[tok] {
			t.set[tok] = true
			t.order = append(t.order, tok)
		}
	}
	return t
}

// with returns the union of t and u (t's terms first); neither changes.
func (t terms) with(u terms) terms {
	out := terms{set: make(map[string]bool, len(t.set)+len(u.set))}
	for _, x := range []terms{t, u} {
		for _, w := range x.order {
			if !out.set[w] {
				out.set[w] = true
				out.order = append(out.order, w)
			}
		}
		for _, n := range x.numbers {
			if !slices.Contains(out.numbers, n) {
				out.numbers = append(out.numbers, n)
			}
		}
	}
	return out
}

// share is the fraction of a's terms that b holds: 0 when a has none.
func share(a, b terms) float64 {
	if len(a.order) == 0 {
		return 0
	}
	n := 0
	for _, w := range a.order {
		if b.set[w] {
			n++
		}
	}
	return float64(n) / float64(len(a.order))
}

// missingNumbers lists a's numbers that b does not hold.
func missingNumbers(a, b terms) []string {
	var out []string
	for _, n := range a.numbers {
		if !b.set[n] {
			out = append(out, n)
		}
	}
	return out
}

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// stem strips the commonest English inflections so that "adjusts",
// "adjusted" and "adjusting" meet, and so do "companies" and "company".
// It is a conflation key, not a linguistic stem: the same function is
// applied to both sides of every comparison. Rules, first match wins:
//
//	-ies → -y ("companies" → "company"), -sses → -ss, -ss kept, -us and
//	-is kept ("status", "analysis"), -es after x, z, ch or sh dropped
//	("taxes" → "tax"), other -s dropped;
//	then -ing, -ed dropped when at least three letters with a vowel remain
//	("adjusting" → "adjust", "shipped" → "ship" after undoubling);
//	then -ly dropped when five letters remain;
//	finally a trailing -e dropped ("provide", "provided" → "provid").
//
// Words of three letters or fewer are left alone.
func stem(w string) string {
	r := []rune(w)
	if len(r) <= 3 {
		return w
	}
	has := func(suf string) bool { return strings.HasSuffix(w, suf) }
	switch {
	case has("ies") && len(r) > 4:
		r = append(r[:len(r)-3], 'y')
	case has("sses"):
		r = r[:len(r)-2]
	case has("ss"), has("us"), has("is"):
	case has("xes"), has("zes"), has("ches"), has("shes"):
		r = r[:len(r)-2]
	case has("s"):
		r = r[:len(r)-1]
	}
	w = string(r)
	switch {
	case strings.HasSuffix(w, "ing") && stemOK(r[:len(r)-3]):
		r = undouble(r[:len(r)-3])
	case strings.HasSuffix(w, "ed") && stemOK(r[:len(r)-2]):
		r = undouble(r[:len(r)-2])
	case strings.HasSuffix(w, "ly") && len(r)-2 >= 5:
		r = r[:len(r)-2]
	}
	if len(r) > 3 && r[len(r)-1] == 'e' {
		r = r[:len(r)-1]
	}
	return string(r)
}

// stemOK reports whether a stem left by removing -ing or -ed is a word
// part: three letters or more, with a vowel (so "sing" and "red" stay).
func stemOK(r []rune) bool {
	if len(r) < 3 {
		return false
	}
	for _, c := range r {
		if strings.ContainsRune("aeiouy", c) {
			return true
		}
	}
	return false
}

// undouble turns a doubled final consonant into one ("shipp" → "ship"),
// except l, s and z ("install", "pass", "buzz").
func undouble(r []rune) []rune {
	n := len(r)
	if n >= 2 && r[n-1] == r[n-2] && !strings.ContainsRune("aeioulsz", r[n-1]) && unicode.IsLetter(r[n-1]) {
		return r[:n-1]
	}
	return r
}

// stopwords are English function words and the commonest verbs, which say
// little about what a sentence states.
var stopwords = func() map[string]bool {
	const list = `a about above after again against all almost also although always am among an and another any are
around as at be became because become been before being below between both but by can could did do does doing done
down during each either else even ever every few for from further had has have having he her here hers herself him
himself his how however i if in into is it its itself just least less like made make many may me might more most
much must my myself neither no nor not now of off often on once one only onto or other others our ours ourselves out
over own per quite rather really same several shall she should since so some such than that the their theirs them
themselves then there these they this those though through thus to too toward towards under until up upon us very
was we were what whatever when where whether which while who whom whose why will with within without would yet you
your yours yourself s t d ll m re ve said says say also whereas amid via`
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}()
