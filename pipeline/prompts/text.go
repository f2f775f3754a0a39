package prompts

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the text clean-up every parser shares.

func isSpace(r rune) bool { return unicode.IsSpace(r) }

// flatten collapses every run of whitespace (newlines included) to one
// space and trims the ends.
func flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

// cleanAnswer prepares a raw answer for parsing: invalid UTF-8 becomes
// U+FFFD, line ends become "\n", a reasoning model's <think> section is
// dropped, code-fence lines (``` or ~~~, with or without a language) are
// removed while their content is kept, and the ends are trimmed.
func cleanAnswer(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = stripThinking(s)
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

var reThinkClose = regexp.MustCompile(`(?i)</think(?:ing)?>`)
var reThinkOpen = regexp.MustCompile(`(?i)^\s*<think(?:ing)?>`)

// stripThinking drops everything up to the last closing </think> tag (some
// servers strip the opening tag but keep the closing one), or just a
// leading opening tag when the section was never closed.
func stripThinking(s string) string {
	if locs := reThinkClose.FindAllStringIndex(s, -1); len(locs) > 0 {
		return s[locs[len(locs)-1][1]:]
	}
	if loc := reThinkOpen.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// stripLineMarkup removes the markdown that opens a line: a heading or
// quote marker, one bullet ("- ", "* ", "+ ", "• ") and one number ("1.",
// "2)", "(3)", "[4]", "**5.**"), in that order. It reports whether a bullet or number
// was removed, which marks the line as a list entry.
func stripLineMarkup(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") {
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	}
	if strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(strings.TrimLeft(t, ">"))
	}
	listed := false
	for _, b := range []string{"- ", "* ", "+ ", "• ", "· ", "– ", "— "} {
		if strings.HasPrefix(t, b) {
			t = strings.TrimSpace(t[len(b):])
			listed = true
			break
		}
	}
	if rest, ok := cutNumberMarker(t); ok {
		t = rest
		listed = true
	} else if rest, ok := cutBoldNumber(t); ok {
		t = rest
		listed = true
	}
	return t, listed
}

// cutBoldNumber removes a list number written in bold, either alone
// ("**1.** Q: x" gives "Q: x") or with the label ("**1. Q:** x" gives
// "**Q:** x").
func cutBoldNumber(t string) (string, bool) {
	for _, w := range []string{"**", "__"} {
		inner, ok := strings.CutPrefix(t, w)
		if !ok {
			continue
		}
		j := 0
		for j < len(inner) && j < 4 && inner[j] >= '0' && inner[j] <= '9' {
			j++
		}
		if j == 0 || j > 3 || j >= len(inner) || (inner[j] != '.' && inner[j] != ')') {
			return t, false
		}
		after := inner[j+1:]
		if rest, ok := strings.CutPrefix(after, w); ok {
			return strings.TrimSpace(rest), true
		}
		if strings.HasPrefix(after, " ") {
			return w + strings.TrimSpace(after), true
		}
		return t, false
	}
	return t, false
}

// cutNumberMarker removes a list number of one to three digits written as
// "1.", "1)", "1:", "(1)" or "[1]" and followed by a space or the end.
func cutNumberMarker(t string) (string, bool) {
	open := byte(0)
	i := 0
	if i < len(t) && (t[i] == '(' || t[i] == '[') {
		open = t[i]
		i++
	}
	j := i
	for j < len(t) && j-i < 4 && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j == i || j-i > 3 || j >= len(t) {
		return t, false
	}
	switch {
	case open == '(' && t[j] == ')', open == '[' && t[j] == ']':
	case open == 0 && (t[j] == '.' || t[j] == ')' || t[j] == ':'):
	default:
		return t, false
	}
	j++
	if j < len(t) && t[j] != ' ' && t[j] != '\t' {
		return t, false
	}
	return strings.TrimSpace(t[j:]), true
}

// unwrapMarkup removes markdown emphasis or code quotes that wrap the whole
// of s ("**x**", "__x__", "`x`"), repeatedly, so the result is stable.
func unwrapMarkup(s string) string {
	s = strings.TrimSpace(s)
	for {
		prev := s
		for _, w := range []string{"**", "__", "`"} {
			if len(s) >= 2*len(w)+1 && strings.HasPrefix(s, w) && strings.HasSuffix(s, w) {
				s = strings.TrimSpace(s[len(w) : len(s)-len(w)])
			}
		}
		if s == prev {
			return s
		}
	}
}

// quotePairs are the opening and closing quotes unwrapQuotes removes.
var quotePairs = [][2]string{{`"`, `"`}, {"“", "”"}, {"„", "“"}, {"«", "»"}, {"「", "」"}}

// unwrapQuotes removes double quotes that wrap the whole of s, repeatedly,
// when the quoted text holds no other quote of the same kind (so `"a" and
// "b"` is left alone).
func unwrapQuotes(s string) string {
	s = strings.TrimSpace(s)
	for {
		prev := s
		for _, q := range quotePairs {
			if len(s) < len(q[0])+len(q[1])+1 || !strings.HasPrefix(s, q[0]) || !strings.HasSuffix(s, q[1]) {
				continue
			}
			inner := s[len(q[0]) : len(s)-len(q[1])]
			if strings.Contains(inner, q[0]) || strings.Contains(inner, q[1]) {
				continue
			}
			s = strings.TrimSpace(inner)
		}
		if s == prev {
			return s
		}
	}
}

// cleanValue is the value clean-up shared by every text field: flatten,
// then unwrap markdown.
func cleanValue(s string) string { return unwrapMarkup(flatten(s)) }

var reThinkTag = regexp.MustCompile(`(?i)</?think(?:ing)?>`)

// formatValue prepares a text field for a canonical answer: valid UTF-8,
// no <think> tags (a parser would drop the text before them), then
// cleanValue.
func formatValue(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for reThinkTag.MatchString(s) {
		s = reThinkTag.ReplaceAllString(s, " ")
	}
	return cleanValue(s)
}

var reKeyAside = regexp.MustCompile(`\([^)]*\)|\[[^\]]*\]`)

// normalizeKey lowercases a field label and folds its spelling variants:
// asides in brackets ("Task (0-5)") go, '_' and '-' become spaces, markdown
// goes, runs of spaces collapse and a trailing "score" is dropped.
func normalizeKey(k string) string {
	k = strings.ToLower(reKeyAside.ReplaceAllString(k, " "))
	k = strings.NewReplacer("_", " ", "-", " ", "*", " ", "`", " ", "\"", " ").Replace(k)
	k = flatten(k)
	k = strings.TrimSuffix(k, " score")
	return k
}

// cutLabel splits "Label: value" (also "**Label:** value", "**Label**:
// value", "Label = value" when allowEquals) when match accepts the
// normalised label. It returns the name match gives and the trimmed value.
func cutLabel(line string, allowEquals bool, match func(key string) (string, bool)) (name, value string, ok bool) {
	t := line
	opener := ""
	for _, w := range []string{"**", "__"} {
		if strings.HasPrefix(t, w) {
			opener, t = w, t[len(w):]
			break
		}
	}
	sep, sepLen := -1, 0
	for i, r := range t {
		if r == ':' || r == '：' || (allowEquals && r == '=') {
			sep, sepLen = i, utf8.RuneLen(r)
			break
		}
		if i > 48 {
			break
		}
	}
	if sep < 0 {
		return "", "", false
	}
	name, ok = match(normalizeKey(t[:sep]))
	if !ok {
		return "", "", false
	}
	rest := t[sep+sepLen:]
	if opener != "" && strings.HasPrefix(rest, opener) {
		rest = rest[len(opener):]
	}
	return name, strings.TrimSpace(rest), true
}

var reNoneRest = regexp.MustCompile(`^(?:\s*[.:;,!()\[\]–—-]|\s*$)`)

// isNoneMarker reports whether s says "nothing here": "NONE" (any case,
// wrapped in markdown or quotes, trailing punctuation), "N/A", or an
// upper-case NONE followed by punctuation and an explanation ("NONE. The
// passage is about ..."). "None of the ..." is an ordinary sentence.
func isNoneMarker(s string) bool {
	t := unwrapQuotes(unwrapMarkup(flatten(s)))
	bare := strings.TrimRight(t, ".!;: ")
	bare = unwrapQuotes(unwrapMarkup(bare))
	if strings.EqualFold(bare, "none") || strings.EqualFold(bare, "n/a") {
		return true
	}
	if rest, ok := strings.CutPrefix(t, "NONE"); ok {
		return reNoneRest.MatchString(rest)
	}
	if rest, ok := strings.CutPrefix(t, "**NONE**"); ok {
		return reNoneRest.MatchString(rest)
	}
	return false
}

// firstJSON returns the text from the first line that opens a JSON array
// or object, or "" when no line does.
func firstJSON(s string) string {
	off := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			return strings.TrimSpace(s[off:])
		}
		off += len(line)
	}
	return ""
}
