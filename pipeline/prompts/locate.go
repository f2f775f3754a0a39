package prompts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of LocateSupport's word matching.
const (
	// SupportWindowShare is the share of the support's words (counted with
	// repeats, in any order) that a window of the passage as many words
	// long must hold for the window to be taken.
	SupportWindowShare = 0.8
	// SupportRunShare is the share of the support's words that the longest
	// run of words found in the same order in the passage must cover.
	SupportRunShare = 0.5
	// SupportRunMinWords is the fewest words that longest run may have.
	SupportRunMinWords = 5
	// maxRunCells bounds the work of the longest-run search (support words
	// times passage words); beyond it that step is skipped.
	maxRunCells = 4_000_000
)

// LocateSupport finds the support text a model cited in the passage and
// returns its byte offsets, so that passage[start:end] is the cited span.
// It tries, in order:
//
//  1. the support as given, then without wrapping quotes, markdown and
//     leading or trailing ellipses;
//  2. the same ignoring case, runs of whitespace, typographic quotes and
//     dashes, soft hyphens and zero-width characters;
//  3. the window of the passage, as many words long as the support, that
//     holds the most of the support's words (in any order); it is taken
//     when it holds at least SupportWindowShare of them, and the span runs
//     from its first to its last matching word, grown at either end over
//     adjacent words the support has and the window lacks;
//  4. the longest run of words that the support and the passage share in
//     the same order, when it is at least SupportRunMinWords words long
//     and covers at least SupportRunShare of the support's words.
//
// Words are runs of letters, digits and marks, lower-cased; each Chinese
// or Japanese character is a word of its own. ok is false when the support
// is blank or no step finds it (a paraphrase rather than a quotation).
func LocateSupport(passage, support string) (start, end int, ok bool) {
	s := strings.TrimSpace(strings.ToValidUTF8(support, "\uFFFD"))
	if s == "" || passage == "" {
		return 0, 0, false
	}
	if i := indexWhole(passage, s); i >= 0 {
		return i, i + len(s), true
	}
	s = trimEllipses(cleanQuoted(s))
	if s == "" {
		return 0, 0, false
	}
	if i := indexWhole(passage, s); i >= 0 {
		return i, i + len(s), true
	}
	if start, end, ok := foldedIndex(passage, s); ok {
		return start, end, true
	}
	pw := splitWords(passage)
	sw := splitWords(s)
	if len(pw) == 0 || len(sw) == 0 {
		return 0, 0, false
	}
	if start, end, ok := bestWindow(pw, sw); ok {
		return start, end, true
	}
	return longestRun(pw, sw)
}

// indexWhole is strings.Index that only accepts a match beginning and
// ending at character boundaries of s (which matters when s holds invalid
// UTF-8).
func indexWhole(s, sub string) int {
	for off := 0; off <= len(s); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(sub)
		if utf8.RuneStart(s[i]) && (end == len(s) || utf8.RuneStart(s[end])) {
			return i
		}
		off = i + 1
	}
	return -1
}

// trimEllipses removes ellipses ("...", "…", "[...]") at either end.
func trimEllipses(s string) string {
	for {
		prev := s
		for _, e := range []string{"[...]", "[…]", "(...)", "...", "…"} {
			s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, e), e))
		}
		if s == prev {
			return s
		}
	}
}

// foldRune maps a rune to its folded form for step 2; 0 drops it.
func foldRune(r rune) rune {
	switch r {
	case '\u00AD', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF':
		return 0
	case '‘', '’', '‚', '‛', '′', '`', '´':
		return '\''
	case '“', '”', '„', '‟', '″', '«', '»':
		return '"'
	case '‐', '‑', '‒', '–', '—', '―', '−':
		return '-'
	}
	return unicode.ToLower(r)
}

// folded is a text folded for step 2, with the source span of every byte.
type folded struct {
	text     string
	from, to []int // source byte span of the rune that produced text[i]
}

// fold folds s: runes through foldRune, every run of whitespace to one
// space, the ends trimmed. Invalid bytes are dropped.
func fold(s string) folded {
	var f folded
	var b strings.Builder
	emit := func(r rune, from, to int) {
		n := utf8.RuneLen(r)
		b.WriteRune(r)
		for k := 0; k < n; k++ {
			f.from = append(f.from, from)
			f.to = append(f.to, to)
		}
	}
	space := -1 // source start of a pending whitespace run
	spaceEnd := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if space < 0 {
				space = i
			}
			spaceEnd = i + size
			i += size
			continue
		}
		if space >= 0 && b.Len() > 0 {
			emit(' ', space, spaceEnd)
		}
		space = -1
		if r == utf8.RuneError && size == 1 {
			i++ // an invalid byte matches nothing and is skipped like a soft hyphen
			continue
		}
		if fr := foldRune(r); fr != 0 {
			if r == '…' {
				for k := 0; k < 3; k++ {
					emit('.', i, i+size)
				}
			} else {
				emit(fr, i, i+size)
			}
		}
		i += size
	}
	f.text = b.String()
	return f
}

// foldedIndex is step 2 of LocateSupport.
func foldedIndex(passage, support string) (int, int, bool) {
	p := fold(passage)
	s := fold(support).text
	if s == "" {
		return 0, 0, false
	}
	i := strings.Index(p.text, s)
	if i < 0 {
		return 0, 0, false
	}
	return p.from[i], p.to[i+len(s)-1], true
}

// word is a word of a text and its byte span there.
type word struct {
	text       string
	start, end int
}

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isSoloRune reports whether r is a word on its own (scripts written
// without spaces between words).
func isSoloRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// splitWords splits s into lower-cased words with their byte spans.
func splitWords(s string) []word {
	var words []word
	start := -1
	var b strings.Builder
	flush := func(end int) {
		if start >= 0 {
			words = append(words, word{text: b.String(), start: start, end: end})
			b.Reset()
			start = -1
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, !isWordRune(r):
			flush(i)
		case isSoloRune(r):
			flush(i)
			words = append(words, word{text: string(r), start: i, end: i + size})
		default:
			if start < 0 {
				start = i
			}
			b.WriteRune(unicode.ToLower(r))
		}
		i += size
	}
	flush(len(s))
	return words
}

// bestWindow is step 3 of LocateSupport.
func bestWindow(pw, sw []word) (int, int, bool) {
	need := make(map[string]int, len(sw))
	for _, w := range sw {
		need[w.text]++
	}
	size := min(len(sw), len(pw))
	have := make(map[string]int, size)
	matched, best, bestAt := 0, -1, 0
	for i, w := range pw {
		if have[w.text] < need[w.text] {
			matched++
		}
		have[w.text]++
		if i >= size {
			old := pw[i-size].text
			have[old]--
			if have[old] < need[old] {
				matched--
			}
		}
		if i >= size-1 && matched > best {
			best, bestAt = matched, i-size+1
		}
	}
	// At least SupportWindowShare of the support's words, rounded up.
	if float64(best) < SupportWindowShare*float64(len(sw))-1e-9 {
		return 0, 0, false
	}
	// Count what the best window uses, then let it grow at either end over
	// words the support still needs: a support that skipped a word of the
	// passage is one word shorter than the span it quotes.
	left := make(map[string]int, len(need))
	for w, n := range need {
		left[w] = n
	}
	first, last := -1, -1
	for i := bestAt; i < bestAt+size; i++ {
		if left[pw[i].text] > 0 {
			left[pw[i].text]--
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	for last+1 < len(pw) && left[pw[last+1].text] > 0 {
		last++
		left[pw[last].text]--
	}
	for first > 0 && left[pw[first-1].text] > 0 {
		first--
		left[pw[first].text]--
	}
	return pw[first].start, pw[last].end, true
}

// longestRun is step 4 of LocateSupport: the longest common run of words,
// by dynamic programming over one row at a time.
func longestRun(pw, sw []word) (int, int, bool) {
	if len(pw)*len(sw) > maxRunCells || len(pw) > maxRunCells || len(sw) > maxRunCells {
		return 0, 0, false
	}
	prev := make([]int, len(sw)+1)
	cur := make([]int, len(sw)+1)
	bestLen, bestEnd := 0, 0 // bestEnd: index in pw after the run
	for i := range pw {
		for j := range sw {
			if pw[i].text == sw[j].text {
				cur[j+1] = prev[j] + 1
				if cur[j+1] > bestLen {
					bestLen, bestEnd = cur[j+1], i+1
				}
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	if bestLen < SupportRunMinWords || float64(bestLen) < SupportRunShare*float64(len(sw)) {
		return 0, 0, false
	}
	return pw[bestEnd-bestLen].start, pw[bestEnd-1].end, true
}
