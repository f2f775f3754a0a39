package index

// Passage segmentation: documents are cut into sentences and sentences are
// packed into passages of at most pipeline.MaxPassageChars characters.
//
// The splitter is rule-based. github.com/neurosnap/sentences (Punkt) was
// tried first, but it keeps "signed in 1794. The next" and "[done.] Then"
// together, ignores paragraph breaks and splits "etc. and", all common in the
// State of the Union corpus.

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// Segment splits a document's text into passages of at most maxChars
// characters (runes), cut at sentence boundaries (see Sentences). Passages
// pack consecutive whole sentences greedily: a passage grows by the next
// sentence while text[Start:End] stays within maxChars runes. A sentence
// longer than maxChars is cut at word boundaries into passages of its own,
// and a word longer than maxChars is cut hard at a character boundary.
// maxChars < 1 means pipeline.MaxPassageChars.
//
// The returned spans are byte offsets [Start,End) into text, in order and
// non-overlapping; together they cover every non-space character of text
// exactly once, and no span starts or ends with white space. Empty or
// all-space text yields no spans. Invalid UTF-8 bytes count as one non-space
// character each (as utf8.DecodeRuneInString reads them); spans never cut a
// valid multi-byte character.
func Segment(text string, maxChars int) []pipeline.Span {
	if maxChars < 1 {
		maxChars = pipeline.MaxPassageChars
	}
	var out, units []pipeline.Span
	for _, s := range Sentences(text) {
		// A span of at most maxChars bytes has at most maxChars runes.
		if s.End-s.Start <= maxChars || utf8.RuneCountInString(text[s.Start:s.End]) <= maxChars {
			units = append(units, s)
			continue
		}
		out = segPack(text, units, maxChars, out)
		units = units[:0]
		out = segPack(text, segWords(text, s, maxChars), maxChars, out)
	}
	return segPack(text, units, maxChars, out)
}

// segPack appends to out the greedy packing of units (ordered spans of at
// most maxChars runes each): a passage takes the next unit while its whole
// extent, white space between units included, stays within maxChars.
func segPack(text string, units []pipeline.Span, maxChars int, out []pipeline.Span) []pipeline.Span {
	if len(units) == 0 {
		return out
	}
	cur := units[0]
	n := -1 // cur's runes, counted once its bytes could exceed maxChars
	for _, u := range units[1:] {
		if u.End-cur.Start <= maxChars { // no more runes than bytes
			cur.End = u.End
			n = -1
			continue
		}
		if n < 0 {
			n = utf8.RuneCountInString(text[cur.Start:cur.End])
		}
		add := utf8.RuneCountInString(text[cur.End:u.End])
		if n+add <= maxChars {
			cur.End = u.End
			n += add
			continue
		}
		out = append(out, cur)
		cur = u
		n = -1
	}
	return append(out, cur)
}

// segWords returns the words (maximal runs of non-space characters) of
// text[s.Start:s.End], each word longer than maxChars runes cut into pieces
// of maxChars runes.
func segWords(text string, s pipeline.Span, maxChars int) []pipeline.Span {
	var words []pipeline.Span
	i := s.Start
	for i < s.End {
		i = segSkip(text[:s.End], i, true)
		if i >= s.End {
			break
		}
		start, n := i, 0
		for i < s.End {
			r, size := segDecode(text, i)
			if unicode.IsSpace(r) {
				break
			}
			if n == maxChars {
				words = append(words, pipeline.Span{Start: start, End: i})
				start, n = i, 0
			}
			i += size
			n++
		}
		words = append(words, pipeline.Span{Start: start, End: i})
	}
	return words
}

// Sentences returns the sentence spans of text as byte offsets, with the
// invariants of Segment (no span starts or ends with white space; together
// they cover every non-space character once).
//
// A sentence ends after a word ending in ".", "?", "!" or "…" (closing quotes
// and brackets after the mark stay with the sentence) when the next word
// starts with an upper-case letter, a digit, a symbol or an uncased letter,
// or with a dash directly before an upper-case letter or digit (a list
// item: "... scarcity. -I shall recommend ..."); never before a lower-case
// word ("etc. and", "Why?" he asked). It ends after
// "。", "！" and "？" even without a following space, after a sentence
// run into the next without one ("our planet.I have", segJoinedCuts), and
// at a paragraph break:
// a blank line, or a line break before a list item or table row or after a
// "#" heading. Other line breaks are read as spaces, so hard-wrapped text
// stays whole. After a period, these words do not end a sentence:
//   - titles before a name: Mr., Mrs., Dr., St., Gen., Gov., Sen., ...;
//   - "No.", "Art.", "p.", "vol.", "Jan." ... "Dec." and similar before a number;
//   - "vs.", "v.", "cf.", "viz.", "e.g." and "i.e.";
//   - initials ("John F. Kennedy") and dotted acronyms ("U.S.", "U.S.A.",
//     "D.C.", "p.m."), unless the next word is a common sentence opener
//     ("The", "We", "It", "But", "In", ... see segStarters) and not another
//     initial. So "the U.S. Army" and "U.S. Senate" stay whole while "trade
//     with the U.S. We" splits. The cost: a sentence ending in "U.S." before
//     a name ("... for the U.S. Congress then acted.") stays joined to the
//     next; in the State of the Union corpus "U.S." before a capital is far
//     more often part of a name than a sentence end.
//
// Numbers end sentences ("in 1794. The"), except a list number opening a
// sentence or following a colon: "as follows: 1. The army. 2. The navy."
// keeps each number with its item. Decimals ("3.5", "$1.2") have no space
// after the point and are never candidates.
func Sentences(text string) []pipeline.Span {
	var spans []pipeline.Span
	sentStart := -1  // start of the open sentence, -1 when none
	prevStart := 0   // start of the previous word (after any in-word cut)
	prevEnd := 0     // end of the previous word
	heading := false // the current line starts with a "#" heading
	// listStart: the previous word opens a sentence or follows a colon, where
	// a list number ("2.") starts an item rather than ending a sentence.
	listStart := false
	// Every CJK terminator's UTF-8 encoding starts with 0xE3 or 0xEF: a
	// text with neither byte needs no look inside its words.
	cjk := strings.IndexByte(text, 0xE3) >= 0 || strings.IndexByte(text, 0xEF) >= 0
	// A text that runs a sentence into the next without a space
	// ("... from our planet.I have also imposed ...") is cut there too.
	joined := segHasJoined(text)
	i := 0
	for i < len(text) {
		gapStart := i
		i = segSkip(text, i, true)
		if i >= len(text) {
			break
		}
		ws := i
		i = segSkip(text, i, false)
		word := text[ws:i]
		gap := text[gapStart:ws]

		breaks := segCountBreaks(gap)
		newline := sentStart < 0 || breaks > 0
		if sentStart < 0 {
			sentStart = ws
		} else if segParagraphBreak(breaks, heading, word) ||
			!(listStart && segEnumerator(text[prevStart:prevEnd])) &&
				segEndsSentence(text[prevStart:prevEnd], word) {
			spans = append(spans, pipeline.Span{Start: sentStart, End: prevEnd})
			sentStart = ws
		}
		if newline {
			heading = word[0] == '#'
		}

		// sentStart == ws holds for the first word, so prevEnd-1 is valid.
		listStart = sentStart == ws || text[prevEnd-1] == ':'
		prevStart = ws
		// Cut inside the word after CJK full stops, which need no space,
		// and where a sentence runs into the next without one.
		if !cjk && !joined {
			prevEnd = i
			continue
		}
		var cuts []int
		if cjk {
			cuts = segCJKCuts(word)
		}
		if joined {
			if more := segJoinedCuts(word); len(more) > 0 {
				cuts = append(cuts, more...)
				slices.Sort(cuts)
				cuts = slices.Compact(cuts)
			}
		}
		for _, cut := range cuts {
			spans = append(spans, pipeline.Span{Start: sentStart, End: ws + cut})
			sentStart = ws + cut
			prevStart = ws + cut
		}
		prevEnd = i
	}
	if sentStart >= 0 {
		spans = append(spans, pipeline.Span{Start: sentStart, End: prevEnd})
	}
	return spans
}

// segDecode decodes the character at byte i of text; an invalid byte is one
// character of width 1.
func segDecode(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// segSkip returns the first index at or after i whose character is not white
// space (space true) or is white space (space false), or len(text).
func segSkip(text string, i int, space bool) int {
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if segASCIISpace[c] != space {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) != space {
			return i
		}
		i += size
	}
	return i
}

// segASCIIEnd marks the ASCII characters a word that ends a sentence may
// end in: terminal punctuation and closing marks.
var segASCIIEnd = [utf8.RuneSelf]bool{'.': true, '?': true, '!': true, '"': true, '\'': true, ')': true, ']': true, '}': true}

// segASCIISpace marks the ASCII characters unicode.IsSpace accepts.
var segASCIISpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// segCountBreaks counts the line breaks in gap: "\n", "\r" not followed by
// "\n", and the paragraph separator U+2029 (which counts as two, a blank line).
func segCountBreaks(gap string) int {
	if gap == " " {
		return 0 // fast path: the usual single space
	}
	n := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case '\n':
			n++
		case '\r':
			if i+1 == len(gap) || gap[i+1] != '\n' {
				n++
			}
		}
	}
	return n + 2*strings.Count(gap, "\u2029")
}

// segParagraphBreak reports whether white space holding breaks line breaks
// (see segCountBreaks) before word ends a paragraph: a blank line, or a line
// break after a heading line or before a list item or table row.
func segParagraphBreak(breaks int, heading bool, word string) bool {
	switch breaks {
	case 0:
		return false
	case 1:
		return heading || segBlockMarker(word)
	default:
		return true
	}
}

// segBlockMarker reports whether word, first on its line, starts a Markdown
// block: a heading, bullet, quote, table row or numbered item ("1." "12)").
func segBlockMarker(word string) bool {
	switch word {
	case "-", "*", "+", "•", "◦", "▪", "‣", "–", "—", ">":
		return true
	}
	if word[0] == '#' || word[0] == '|' {
		return true
	}
	last := word[len(word)-1]
	digits := word[:len(word)-1]
	if (last != '.' && last != ')') || len(digits) == 0 || len(digits) > 3 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// segEnumerator reports whether word is a list number: one to three digits
// or a Roman numeral of I, V and X, followed by "." or ")" ("2.", "IV.", "12)").
func segEnumerator(word string) bool {
	n := len(word) - 1
	if n < 1 || (word[n] != '.' && word[n] != ')') {
		return false
	}
	digits, roman := 0, 0
	for i := 0; i < n; i++ {
		switch c := word[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == 'I' || c == 'V' || c == 'X':
			roman++
		default:
			return false
		}
	}
	return digits == n && n <= 3 || roman == n && n <= 6
}

// segCJKCuts returns the byte offsets inside word (never 0 or len(word))
// after a CJK sentence terminator and any closing marks that follow it.
func segCJKCuts(word string) []int {
	// Every terminator's UTF-8 encoding starts with 0xE3 or 0xEF.
	if strings.IndexByte(word, 0xE3) < 0 && strings.IndexByte(word, 0xEF) < 0 {
		return nil
	}
	var cuts []int
	for i := 0; i < len(word); {
		r, size := segDecode(word, i)
		i += size
		if !segCJKTerminal(r) {
			continue
		}
		for i < len(word) {
			r, size := segDecode(word, i)
			if !segCJKTerminal(r) && !segCloser(r) && r != '!' && r != '?' {
				break
			}
			i += size
		}
		if i < len(word) {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// segHasJoined reports whether text holds a sentence mark between a
// lower-case and an upper-case ASCII letter ("planet.I", "forms.Each"):
// a sentence run into the next without a space, which segJoinedCuts
// finds inside words. Most texts hold none and skip that look.
func segHasJoined(text string) bool {
	for _, mark := range []byte{'.', '?', '!'} {
		for i := 0; ; {
			j := strings.IndexByte(text[i:], mark)
			if j < 0 {
				break
			}
			i += j + 1
			if i >= 2 && i < len(text) && segLowerASCII(text[i-2]) && text[i] >= 'A' && text[i] <= 'Z' {
				return true
			}
		}
	}
	return false
}

// segJoinedCuts returns the byte offsets inside word (never 0 or
// len(word)) where a sentence run into the next without a space ends:
// after ".", "?" or "!" (and any closing quote or bracket) that follows
// two lower-case ASCII letters and precedes an upper-case ASCII letter
// opening a word of letters ("planet.I", "forms.Each", "free?\"We",
// "collapsing.One-third"), where segEndsSentence would end a sentence
// had a space been written. Titles ("Gov.Brown"), initials and acronyms
// ("D.C.Today", "U.S.A"), decimals and domain names ("example.com") are
// no cuts.
func segJoinedCuts(word string) []int {
	var cuts []int
	start := 0
	for i := 2; i < len(word)-1; i++ {
		c := word[i]
		if c != '.' && c != '?' && c != '!' || !segLowerASCII(word[i-1]) || !segLowerASCII(word[i-2]) {
			continue
		}
		j := i + 1
		for j < len(word) && (word[j] == '"' || word[j] == '\'' || word[j] == ')') {
			j++
		}
		if j >= len(word) || word[j] < 'A' || word[j] > 'Z' {
			continue
		}
		k := j + 1
		for k < len(word) && (segLowerASCII(word[k]) || word[k] == '\'' || word[k] == '-') {
			k++
		}
		if k < len(word) && !strings.ContainsRune(",;:.?!\")'", rune(word[k])) {
			continue // "planet.IBM-made": no word of letters follows
		}
		if !segEndsSentence(word[start:j], word[j:]) {
			continue
		}
		cuts = append(cuts, j)
		start = j
	}
	return cuts
}

// segLowerASCII reports whether c is a lower-case ASCII letter.
func segLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// segCJKTerminal reports whether r ends a sentence in Chinese or Japanese.
func segCJKTerminal(r rune) bool {
	return r == '。' || r == '｡' || r == '！' || r == '？'
}

// segCloser reports whether r is a closing quote or bracket, which stays with
// the sentence its terminal punctuation ends.
func segCloser(r rune) bool {
	return strings.ContainsRune("\"')]}”’»›」』）】〕〉》〗〙〛］｝＂＇", r)
}

// segOpener reports whether r opens a quotation or bracket (or a Spanish
// question or exclamation).
func segOpener(r rune) bool {
	return strings.ContainsRune("\"'([{“‘„‚«‹¿¡「『（【〔〈《〖〘〚［｛＂＇", r)
}

// segEndsSentence reports whether a sentence ends between word and next,
// two consecutive words separated by white space without a paragraph break.
func segEndsSentence(word, next string) bool {
	if c := word[len(word)-1]; c < utf8.RuneSelf && !segASCIIEnd[c] {
		// Fast path: most words end in a letter, digit or comma. A page
		// reference before a word that opens sentences ("The", "I")
		// ends a printed edition's running head left in the text ("...
		// vol. 9, p.6667 The Naval Militia ...").
		return c >= '0' && c <= '9' && segPageRef(word) && segStarter(next)
	}
	t := strings.TrimRightFunc(word, segCloser)
	if t == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	switch {
	case segCJKTerminal(r):
		return true
	case r == '?' || r == '!' || r == '‽':
		return segMayStart(next)
	case r == '.' || r == '…':
		if !segMayStart(next) {
			return false
		}
	default:
		return false
	}
	if r == '…' || strings.HasSuffix(t, "..") {
		return true // an ellipsis before a capital ends the sentence
	}
	core := strings.TrimLeftFunc(strings.TrimRight(t, "."), segOpener)
	if core == "" {
		return true
	}
	lower := strings.ToLower(core)
	// A title joined to the word before by a hyphen is still a title:
	// "the Great Lakes-St. Lawrence River Basin".
	title := core
	if i := strings.LastIndexAny(core, "-–—/"); i >= 0 {
		_, size := utf8.DecodeRuneInString(core[i:])
		title = core[i+size:]
	}
	titleFirst, _ := utf8.DecodeRuneInString(title)
	first, _ := utf8.DecodeRuneInString(core)
	switch {
	case segNever[lower]:
		return false
	case segInitial(core) || segAcronym(core):
		return segStarter(next)
	case segTitles[lower] && unicode.IsUpper(first), title != core && segTitles[strings.ToLower(title)] && unicode.IsUpper(titleFirst):
		return false
	case segBeforeNumber[lower] && segStartsWithDigit(next):
		return false
	}
	return true
}

// segPageRef reports whether word is a page reference: "p." or "pp."
// and digits, with "-" or "–" between two numbers ("p.6667", "pp.12-14").
func segPageRef(word string) bool {
	rest, ok := strings.CutPrefix(word, "p.")
	if !ok {
		if rest, ok = strings.CutPrefix(word, "pp."); !ok {
			return false
		}
	}
	if rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	for _, r := range rest {
		if (r < '0' || r > '9') && r != '-' && r != '–' {
			return false
		}
	}
	return true
}

// segMayStart reports whether next can open a sentence: after any opening
// quotes or brackets it starts with an upper-case or uncased letter, a digit
// or a symbol ("$5"), not a lower-case letter or punctuation — but a dash
// that opens a list item ("-I shall recommend", "—To raise") may.
func segMayStart(next string) bool {
	s := strings.TrimLeftFunc(next, segOpener)
	if s == "" {
		return true
	}
	if item := strings.TrimLeft(s, "-–—"); len(item) < len(s) {
		r, _ := utf8.DecodeRuneInString(item)
		return unicode.IsUpper(r) || unicode.IsDigit(r)
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsLower(r):
		return false
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsSymbol(r):
		return true
	}
	return false
}

// segStartsWithDigit reports whether next starts with a digit, after any
// opening marks or a "#" ("No. #5").
func segStartsWithDigit(next string) bool {
	s := strings.TrimLeft(strings.TrimLeftFunc(next, segOpener), "#")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// segInitial reports whether core is a single upper-case letter ("F" of
// "John F. Kennedy").
func segInitial(core string) bool {
	r, size := utf8.DecodeRuneInString(core)
	return size == len(core) && unicode.IsUpper(r)
}

// segAcronym reports whether core is a dotted acronym whose parts are one or
// two letters: "U.S", "U.S.A", "D.C", "p.m", "Ph.D".
func segAcronym(core string) bool {
	if !strings.Contains(core, ".") {
		return false
	}
	for part := range strings.SplitSeq(core, ".") {
		n := 0
		for _, r := range part {
			if !unicode.IsLetter(r) {
				return false
			}
			n++
		}
		if n < 1 || n > 2 {
			return false
		}
	}
	return true
}

// segStarter reports whether next, stripped of opening marks and of what
// follows its leading letters ("It's" → "It"), is a common sentence opener.
func segStarter(next string) bool {
	s := strings.TrimLeftFunc(next, segOpener)
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		return segStarters[s]
	}
	if end == 1 && s[end] == '.' {
		return false // another initial: "W. A. Richards"
	}
	return segStarters[s[:end]]
}

func segSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// segTitles are abbreviations (lower case, matched when capitalised) that
// precede a name, so a period after them never ends a sentence.
var segTitles = segSet(
	"mr", "mrs", "ms", "messrs", "mmes", "mme", "mlle", "dr", "drs", "prof",
	"st", "ste", "mt", "ft", "gen", "gens", "lt", "col", "maj", "capt", "cpt",
	"sgt", "cpl", "pvt", "adm", "cmdr", "comdr", "brig", "gov", "sen", "rep",
	"reps", "hon", "hons", "rev", "pres", "supt", "atty", "insp", "rt", "fr",
)

// segBeforeNumber are abbreviations (lower case) that do not end a sentence
// when a number follows: "No. 5", "Jan. 15", "p. 12", "lbs. 37,000".
var segBeforeNumber = segSet(
	"no", "nos", "art", "arts", "sec", "secs", "sect", "ch", "chap", "vol",
	"vols", "fig", "figs", "p", "pp", "para", "op", "approx", "ca", "ext",
	"lb", "lbs", "oz",
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
	"nov", "dec",
)

// segNever are abbreviations (lower case) that practically never end a
// sentence.
var segNever = segSet("vs", "v", "cf", "viz", "e.g", "i.e")

// segStarters are words that commonly open an English sentence and rarely
// continue a name: after an initial or a dotted acronym ("U.S.") they signal
// a sentence break.
var segStarters = segSet(
	"A", "After", "All", "Also", "Although", "An", "And", "As", "At",
	"Because", "Before", "But", "By", "During", "Each", "Every", "For",
	"From", "Further", "Furthermore", "He", "Her", "Here", "His", "How",
	"However", "I", "If", "In", "Indeed", "It", "Its", "Last", "Let", "Many",
	"Moreover", "Most", "My", "No", "Nor", "Not", "Now", "On", "One", "Or",
	"Our", "She", "Since", "So", "Some", "Such", "That", "The", "Their",
	"Then", "There", "Therefore", "These", "They", "This", "Those", "Though",
	"Thus", "To", "Today", "Tonight", "Under", "Unless", "Until", "We",
	"What", "When", "Where", "Whether", "Which", "While", "Who", "Why",
	"With", "Yet", "You", "Your",
)
