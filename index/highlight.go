package index

import (
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
func (ix *Index) matches(text string, set map[string]bool) []pipeline.Span {
	if len(set) == 0 {
		return nil
	}
	var out []pipeline.Span
	for _, t := range ix.analyzer.Analyze([]byte(text)) {
		if set[string(t.Term)] {
			out = append(out, pipeline.Span{Start: t.Start, End: t.End})
		}
	}
	return out
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
