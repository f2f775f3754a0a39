package index

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// fragmentChars is the target length of a search-result fragment.
const fragmentChars = 240

// maxFragments is how many fragments a hit shows at most.
const maxFragments = 2

// Mark returns the whole text split into parts, with every token whose
// analysed term is one of the query's terms marked as a match.
func (ix *Index) Mark(text, query string) pipeline.Fragment {
	terms, _ := ix.QueryTerms(query)
	set := make(map[string]bool, len(terms))
	for _, t := range terms {
		set[t] = true
	}
	return ix.markRange(text, ix.matches(text, set), 0, len(text))
}

// matches returns the byte spans of tokens of text whose term is in set.
//
// Only the words that can match are analysed. The analysis never changes
// a word's first letters: lower-casing aside, the Porter stemmer rewrites
// at most the word's last letters (a stem without its last two letters
// starts every word stemmed to it: "mobility" → "mobl", "valency" →
// "valenc"), and the possessive and stop filters drop tokens. And tokens
// never span ASCII white space. So the runs of text between white space
// that hold, case aside, the start of some term are the only ones
// analysed, each alone, which gives their tokens exactly as analysing the
// whole text does. A term that is not ASCII, or a text holding one of the
// two letters Unicode lower-cases to ASCII (U+0130, U+212A), is matched
// by analysing all of it.
func (ix *Index) matches(text string, set map[string]bool) []pipeline.Span {
	if len(set) == 0 {
		return nil
	}
	var prefixes []string
	for t := range set {
		p := t[:max(1, len(t)-2)]
		if !isASCII(p) || t == "" {
			return ix.matchesAll(text, set)
		}
		prefixes = append(prefixes, p)
	}
	if strings.Contains(text, "\u0130") || strings.Contains(text, "\u212a") {
		return ix.matchesAll(text, set)
	}
	lower := asciiLower(text)
	var runs []pipeline.Span // the white-space-delimited runs to analyse
	for _, p := range prefixes {
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], p)
			if i < 0 {
				break
			}
			i += from
			start, end := i, i+len(p)
			for start > 0 && !asciiSpace(lower[start-1]) {
				start--
			}
			for end < len(lower) && !asciiSpace(lower[end]) {
				end++
			}
			runs = append(runs, pipeline.Span{Start: start, End: end})
			from = end
		}
	}
	if len(runs) == 0 {
		return nil
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Start < runs[j].Start })
	var out []pipeline.Span
	last := -1
	for _, r := range runs {
		if r.Start < last {
			continue // the same run, found by another term
		}
		last = r.End
		for _, t := range ix.analyzer.Analyze([]byte(text[r.Start:r.End])) {
			if set[string(t.Term)] {
				out = append(out, pipeline.Span{Start: r.Start + t.Start, End: r.Start + t.End})
			}
		}
	}
	return out
}

// matchesAll is matches by analysing the whole text.
func (ix *Index) matchesAll(text string, set map[string]bool) []pipeline.Span {
	var out []pipeline.Span
	for _, t := range ix.analyzer.Analyze([]byte(text)) {
		if set[string(t.Term)] {
			out = append(out, pipeline.Span{Start: t.Start, End: t.End})
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// asciiLower lower-cases the ASCII letters of s, leaving every other byte
// (and so every offset) as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// markRange splits text[from:to] into parts, marking the spans inside it.
func (ix *Index) markRange(text string, spans []pipeline.Span, from, to int) pipeline.Fragment {
	var f pipeline.Fragment
	pos := from
	for _, s := range spans {
		if s.Start < pos || s.End > to {
			continue
		}
		if s.Start > pos {
			f = append(f, pipeline.FragmentPart{Text: text[pos:s.Start]})
		}
		f = append(f, pipeline.FragmentPart{Text: text[s.Start:s.End], Match: true})
		pos = s.End
	}
	if pos < to {
		f = append(f, pipeline.FragmentPart{Text: text[pos:to]})
	}
	return f
}

// fragments picks up to maxFragments windows of text with the most
// distinct matched terms and marks the matches in them. A passage with no
// match yields its opening as one unmarked fragment.
func (ix *Index) fragments(text string, set map[string]bool) []pipeline.Fragment {
	spans := ix.matches(text, set)
	if len(spans) == 0 {
		end := snapEnd(text, fragmentChars)
		f := pipeline.Fragment{{Text: text[:end]}}
		if end < len(text) {
			f = append(f, pipeline.FragmentPart{Text: " …"})
		}
		return []pipeline.Fragment{f}
	}
	type window struct{ start, end, score int }
	var chosen []window
	used := make([]bool, len(spans))
	for len(chosen) < maxFragments {
		best := window{score: -1}
		for i, s := range spans {
			if used[i] {
				continue
			}
			// A window starting a little before match i.
			ws := snapStart(text, s.Start-fragmentChars/6)
			we := snapEnd(text, ws+fragmentChars)
			distinct := map[string]bool{}
			count := 0
			for j := i; j < len(spans) && spans[j].End <= we; j++ {
				if used[j] {
					continue
				}
				distinct[text[spans[j].Start:spans[j].End]] = true
				count++
			}
			score := len(distinct)*16 + count
			if score > best.score {
				best = window{ws, we, score}
			}
		}
		if best.score < 0 {
			break
		}
		overlaps := false
		for _, c := range chosen {
			if best.start < c.end && c.start < best.end {
				overlaps = true
			}
		}
		for i, s := range spans {
			if s.Start >= best.start && s.End <= best.end {
				used[i] = true
			}
		}
		if !overlaps {
			chosen = append(chosen, best)
		}
	}
	// Show fragments in text order.
	if len(chosen) == 2 && chosen[1].start < chosen[0].start {
		chosen[0], chosen[1] = chosen[1], chosen[0]
	}
	out := make([]pipeline.Fragment, 0, len(chosen))
	for _, w := range chosen {
		f := ix.markRange(text, spans, w.start, w.end)
		if w.start > 0 {
			f = append(pipeline.Fragment{{Text: "… "}}, f...)
		}
		if w.end < len(text) {
			f = append(f, pipeline.FragmentPart{Text: " …"})
		}
		out = append(out, f)
	}
	return out
}

// snapStart moves i back to the start of a word (never below 0), on a
// rune boundary.
func snapStart(text string, i int) int {
	if i <= 0 {
		return 0
	}
	if i >= len(text) {
		return len(text)
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	// Walk back to whitespace, but not further than 30 bytes.
	for k := 0; i > 0 && k < 30; k++ {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// snapEnd moves i forward to the end of a word (never past len(text)), on
// a rune boundary.
func snapEnd(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if i < 0 {
		return 0
	}
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	for k := 0; i < len(text) && k < 30; k++ {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// SentenceKey is a sentence's comparison key for de-duplication: its index
// terms (stop words removed, stemmed), in order, joined by spaces. Two
// sentences that differ only in case, punctuation, stop words or
// inflection get the same key.
func (ix *Index) SentenceKey(s string) string {
	terms, _ := ix.terms(s)
	return terms
}

// Terms returns the index terms of text (stop words removed, stemmed), in
// order: the analysis the index and BM25 apply.
func (ix *Index) Terms(text string) []string {
	ts := ix.analyzer.Analyze([]byte(text))
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}
