package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// testAnalyzer stands in for the index's English analyzer: lower-case
// words (numbers keep their inner commas and points, as the index's
// tokenizer does), a short stop list, possessives dropped and naive suffix
// stripping. Sentences end at '.', '!' or '?' before white space and a
// capital, digit or quote, except after a title abbreviation or an
// initial.
type testAnalyzer struct{}

var testStopWords = setOf(strings.Fields(`a an and are as at be been being but by did do does for from had has have
	he her him his how i if in into is it its me my no not of on or our she so than that the their them then there
	these they this those to us was we were what when where which who whom why will with would you your`))

func (testAnalyzer) Terms(text string) []string {
	var out []string
	for _, w := range testWords(text) {
		w = strings.ToLower(w)
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" || testStopWords[w] {
			continue
		}
		out = append(out, testStem(w))
	}
	return out
}

// testWords splits text into runs of letters, digits and apostrophes, a
// comma or point between digits staying inside the run.
func testWords(text string) []string {
	var words []string
	start := -1
	for i, r := range text {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
		if !inWord && (r == ',' || r == '.') && start >= 0 && i > 0 && text[i-1] >= '0' && text[i-1] <= '9' &&
			i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
			inWord = true
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			words = append(words, strings.Trim(text[start:i], "'’"))
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, strings.Trim(text[start:], "'’"))
	}
	return words
}

func testStem(w string) string {
	if w[0] >= '0' && w[0] <= '9' {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

var testAbbreviations = setOf([]string{"mr", "mrs", "ms", "dr", "st", "gen", "no"})

func (testAnalyzer) Sentences(text string) []pipeline.Span {
	var spans []pipeline.Span
	start := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if start < 0 {
			if !unicode.IsSpace(r) {
				start = i
			}
			i += size
			continue
		}
		end := i + size
		if (r == '.' || r == '!' || r == '?') && sentenceBreakAfter(text, start, i, end) {
			// Closing quotes belong to the sentence.
			for end < len(text) && strings.ContainsRune("\"”’)", rune(text[end])) {
				end++
			}
			spans = append(spans, pipeline.Span{Start: start, End: end})
			start = -1
			i = end
			continue
		}
		i += size
	}
	if start >= 0 {
		end := len(strings.TrimRightFunc(text, unicode.IsSpace))
		if end > start {
			spans = append(spans, pipeline.Span{Start: start, End: end})
		}
	}
	return spans
}

// sentenceBreakAfter reports whether the mark at text[i:end] ends the
// sentence that began at start.
func sentenceBreakAfter(text string, start, i, end int) bool {
	j := end
	for j < len(text) && strings.ContainsRune("\"”’)", rune(text[j])) {
		j++
	}
	if j == len(text) {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(text[j:]); !unicode.IsSpace(r) {
		return false
	}
	for j < len(text) && (text[j] == ' ' || text[j] == '\n' || text[j] == '\t') {
		j++
	}
	if j == len(text) {
		return true
	}
	next, size := utf8.DecodeRuneInString(text[j:])
	if strings.ContainsRune("-–—", next) && j+size < len(text) {
		// A list item opened by a dash ("I propose: -New powers ... -A
		// major study ..."), as index.Sentences reads it.
		next, _ = utf8.DecodeRuneInString(text[j+size:])
	}
	if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("\"“'[", next) {
		return false
	}
	if text[i] != '.' {
		return true
	}
	// A number counting a list item keeps its item ("5. The repeal
	// ..."), a counting word does not ("Second." ends a sentence), as
	// with the index's segmenter.
	if c := text[start:end]; reCounted.FindString(c) == c && unicode.IsDigit(rune(c[0])) {
		return false
	}
	// The word before the point: an abbreviation or an initial keeps the
	// sentence open.
	k := i
	for k > start && unicode.IsLetter(rune(text[k-1])) {
		k--
	}
	w := strings.ToLower(text[k:i])
	return !testAbbreviations[w] && utf8.RuneCountInString(w) != 1
}
