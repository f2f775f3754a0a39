package pipeline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A problem statement may say what the report is not to cover: "Leave
// aside the fisheries and the fur seals.", "Leaving aside Iraq and
// Afghanistan, describe ...", "..., leaving aside the regulations cut",
// "Do not cover the tariff." Those words name what the report must not be
// about: they ask for no facet, and a sentence that speaks of them (and
// not of what is asked) is off the request. They stay in the retrieval
// query (Request.Query), where they lead to the request's documents.

// excludeMarker opens a clause that says what to leave out: at the start
// of a sentence or of a clause (after a comma, a semicolon or a colon, and
// an "and", "but" or "then"), so that "the lands set aside for the
// parks", "the order setting aside the reserves" or "the act excluding
// Chinese laborers" say what is asked; "do not cover" anywhere (group 1
// or 2 is the marker itself). "Other than" and "apart from" (group 3)
// narrow the phrase they follow anywhere: "immigration other than the
// exclusion of the Chinese", "relations with Spain apart from the Cuban
// insurrections"; but "apart from" after a verb of keeping or holding
// separates ("keeping the public money apart from all banks") and says
// what is asked (see separates).
var excludeMarker = regexp.MustCompile(`(?i)(?:^|[,;:]\s*(?:(?:and|but|then)\s+)?)((?:leave|leaving|set|setting|put|putting)\s+aside\b|excluding\b)|\b((?:do\s+not|don't|need\s+not)\s+(?:cover|include|describe|discuss|report\s+on)\b)|\b(other\s+than|apart\s+from)\b`)

// mayExclude finds the words a marker is made of anywhere, to pass by the
// statements that have none.
var mayExclude = regexp.MustCompile(`(?i)\baside\b|\bexcluding\b|\bnot\b|\bdon't\b|\bthan\b|\bapart\b|\belsewhere\b|\breports?\b|\bseparately\b`)

// coveredElsewhere is a sentence or a last clause (after a semicolon)
// that names what to leave out by saying that another report covers it:
// "the Koszta affair and the Vienna exposition are covered elsewhere",
// "The tariff is treated in another report." Group 1 is what it names.
var coveredElsewhere = regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are|will\s+be)\s+(?:covered|treated|dealt\s+with|handled|discussed|reported(?:\s+on)?)\s+(?:elsewhere|separately|(?:by|in)\s+(?:an?\s+)?(?:other|another|separate|different|later)\s+reports?)$`)

// splitCoveredElsewhere splits a sentence whose last clause (after a
// semicolon, or a comma and "but", "while", "since" ...) says that
// another report covers what it names (coveredElsewhere) into the
// sentence without that clause ("" when the clause is the whole
// sentence) and what it names ("" when there is no such clause).
func splitCoveredElsewhere(s string) (rest, what string) {
	body := strings.TrimRight(strings.TrimSpace(s), ".")
	// The clause starts after the last semicolon, or after a comma and a
	// conjunction that opens a clause of its own ("Give the dates, but
	// the Koszta affair is covered elsewhere").
	cut, start := -1, 0
	lower := strings.ToLower(body)
	for _, sep := range []string{";", ", but ", ", while ", ", though ", ", although ", ", since ", ", as "} {
		if i := strings.LastIndex(lower, sep); i >= 0 && i+len(sep) > start {
			cut, start = i, i+len(sep)
		}
	}
	m := coveredElsewhere.FindStringSubmatch(strings.TrimSpace(body[start:]))
	if m == nil {
		return s, ""
	}
	what = strings.TrimSpace(m[1])
	for _, conj := range []string{"and ", "but ", "while "} {
		if len(what) > len(conj) && strings.EqualFold(what[:len(conj)], conj) {
			what = strings.TrimSpace(what[len(conj):])
		}
	}
	for _, art := range []string{"The ", "A ", "An "} {
		if strings.HasPrefix(what, art) {
			what = strings.ToLower(art[:1]) + what[1:] // an article, not a name
		}
	}
	if cut < 0 {
		return "", what
	}
	return strings.TrimSpace(body[:cut]) + ".", what
}

// markerAt returns where the first marker in s starts and ends, or nil,
// and whether it narrows a phrase ("other than", "apart from"): such a
// clause ends at a colon too, where what is asked goes on ("immigration
// other than the exclusion of the Chinese: the numbers who arrived").
func markerAt(s string) (loc []int, phrase bool) {
	for _, m := range excludeMarker.FindAllStringSubmatchIndex(s, -1) {
		switch {
		case m[2] >= 0:
			return m[2:4], false
		case m[4] >= 0:
			return m[4:6], false
		case !separates(s[:m[6]], s[m[6]:m[7]]):
			return m[6:8], true
		}
	}
	return nil, false
}

// separates reports whether marker, an "apart from" after the text
// before, says that something is kept apart rather than left out: a verb
// of keeping or holding among the four words before it ("keeping the
// public money apart from all banks", "set the lands apart from").
func separates(before, marker string) bool {
	if !strings.EqualFold(strings.Fields(marker)[0], "apart") {
		return false
	}
	words := strings.Fields(before)
	for i := len(words) - 1; i >= 0 && i >= len(words)-4; i-- {
		if keepVerbs[strings.ToLower(strings.TrimFunc(words[i], notLetter))] {
			return true
		}
	}
	return false
}

// keepVerbs are the verbs that "apart from" can follow in the sense of
// being kept separate.
var keepVerbs = wordSet(`keep keeps keeping kept hold holds holding held set sets setting stand stands standing stood
	live lives living lived stay stays staying stayed separate separates separating separated`)

// Asked returns the request's problem statement without the clauses that
// say what to leave out (see Excluded).
func (r Request) Asked() string {
	asked, _ := SplitExclusions(r.ProblemStatement)
	return asked
}

// AskedTitle returns the request's title without a clause that says what
// to leave out ("Making the peace after the Second World War, apart from
// Germany and Japan, 1946-1948" asks for "Making the peace after the
// Second World War, 1946-1948"; SplitTitleExclusions).
func (r Request) AskedTitle() string {
	asked, _ := SplitTitleExclusions(r.Title)
	return asked
}

// Excluded returns what the request's title and problem statement say to
// leave out, one entry per clause, without the words that say so ("the
// fisheries and the fur seals").
func (r Request) Excluded() []string {
	_, fromTitle := SplitTitleExclusions(r.Title)
	_, excluded := SplitExclusions(r.ProblemStatement)
	return append(fromTitle, excluded...)
}

// SplitTitleExclusions splits a title into what it names and the clauses
// that say what to leave out, as SplitExclusions does a problem
// statement's. A title has no request verbs: a clause runs to a colon, to
// a comma before a digit (the period that closes most titles: "..., apart
// from the removal, 1791-1897") or to the title's end.
func SplitTitleExclusions(title string) (asked string, excluded []string) {
	if !mayExclude.MatchString(title) {
		return title, nil
	}
	s := title
	for {
		loc, _ := markerAt(s)
		if loc == nil {
			break
		}
		end := titleClauseEnd(s, loc[1])
		if what := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[loc[1]:end]), ".;,")); what != "" {
			excluded = append(excluded, what)
		}
		before := strings.TrimSpace(strings.TrimRightFunc(strings.TrimSpace(s[:loc[0]]), func(r rune) bool { return r == ',' || r == ';' }))
		after := strings.TrimSpace(s[end:])
		switch {
		case before == "":
			s = upperFirstRune(strings.TrimSpace(strings.TrimLeft(after, ",;: ")))
		case after == "":
			s = before
		case after[0] == ',' || after[0] == ':':
			s = before + after
		default:
			s = before + " " + after
		}
	}
	return s, excluded
}

// titleClauseEnd is where an exclusion clause of a title that starts at
// from ends (see SplitTitleExclusions).
func titleClauseEnd(s string, from int) int {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case ':':
			return i
		case ',':
			rest := strings.TrimLeft(s[i+1:], " ")
			if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
				return i
			}
		}
	}
	return len(s)
}

// SplitExclusions splits a problem statement into what it asks for and
// the clauses that say what to leave out. A sentence that opens with such
// a clause ("Leave aside X.") is left out whole, unless a request verb
// follows after a comma ("Leaving aside X, describe Y." keeps "describe
// Y."); a clause inside a sentence runs to the next comma before a
// request verb or to the sentence's end ("Using the messages, and leaving
// aside X, describe Y" keeps "Using the messages, describe Y").
func SplitExclusions(statement string) (asked string, excluded []string) {
	if !mayExclude.MatchString(statement) {
		return statement, nil
	}
	var kept []string
	for _, s := range statementSentences(statement) {
		if rest, what := splitCoveredElsewhere(s); what != "" {
			s = rest
			excluded = append(excluded, what)
		}
		for {
			loc, phrase := markerAt(s)
			if loc == nil {
				break
			}
			end := clauseEnd(s, loc[1], phrase)
			what := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[loc[1]:end]), ".;,"))
			if what != "" {
				excluded = append(excluded, what)
			}
			before := strings.TrimSpace(s[:loc[0]])
			before = strings.TrimSpace(strings.TrimRightFunc(before, func(r rune) bool { return r == ',' || r == ';' }))
			for _, conj := range []string{" and", " but", " while", " though"} {
				if strings.HasSuffix(strings.ToLower(before), conj) {
					before = strings.TrimSpace(before[:len(before)-len(conj)])
					before = strings.TrimRightFunc(before, func(r rune) bool { return r == ',' || r == ';' })
				}
			}
			after := strings.TrimSpace(strings.TrimLeft(s[end:], ",; "))
			if before == "" {
				// "Leave aside X, and give ...": the conjunction joined
				// what is now gone.
				for _, conj := range []string{"and ", "then ", "but "} {
					if len(after) > len(conj) && strings.EqualFold(after[:len(conj)], conj) {
						after = after[len(conj):]
					}
				}
			}
			switch {
			case before == "" || strings.EqualFold(before, "and") || strings.EqualFold(before, "but"):
				s = upperFirstRune(after)
			case after == "" || after == ".":
				s = before + "."
			case after[0] == ':':
				s = before + after
			default:
				s = before + ", " + after
			}
		}
		if s = strings.TrimSpace(s); s != "" && s != "." {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, " "), excluded
}

// clauseEnd is where an exclusion clause that starts at from ends: before
// the comma that precedes a request verb ("..., describe"), before a colon
// when the clause narrows a phrase (see markerAt), or at the sentence's
// end.
func clauseEnd(s string, from int, phrase bool) int {
	for i := from; i < len(s); i++ {
		if phrase && s[i] == ':' {
			return i
		}
		if s[i] != ',' && s[i] != ';' {
			continue
		}
		rest := strings.Fields(s[i+1:])
		for len(rest) > 0 && (strings.EqualFold(rest[0], "and") || strings.EqualFold(rest[0], "then") || strings.EqualFold(rest[0], "but")) {
			rest = rest[1:]
		}
		if len(rest) > 0 && askVerbs[strings.ToLower(strings.TrimFunc(rest[0], notLetter))] {
			return i
		}
	}
	return len(s)
}

// askVerbs open what a sentence of a problem statement asks for.
var askVerbs = wordSet(`describe cover include trace explain summarize summarise compare discuss list identify
	outline say state show assess examine analyze analyse detail document note review present provide find tell
	set recount relate give name report chart survey`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// statementSentences splits a problem statement into sentences: after a
// full stop, question or exclamation mark followed by a space and a
// capital letter, but not after an initial ("George W. Bush") or a short
// abbreviation ("St. Louis", "Mr. Hay").
func statementSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == ')') {
			j++
		}
		if j >= len(text) || text[j] != ' ' {
			continue
		}
		k := j
		for k < len(text) && text[k] == ' ' {
			k++
		}
		if k >= len(text) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(text[k:])
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			continue
		}
		if c == '.' {
			w := text[strings.LastIndexAny(text[:i], " (\"")+1 : i]
			if n := utf8.RuneCountInString(w); n == 1 || abbreviations[strings.ToLower(w)] {
				continue
			}
		}
		out = append(out, strings.TrimSpace(text[start:j]))
		start = j
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

var abbreviations = wordSet("mr mrs ms dr st gen col capt lt sen rep gov jr sr no vol nos u.s")

func upperFirstRune(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// eventTime matches a clause of a title that dates what it asks by an
// event rather than by years: "after the Cold War", "before the Civil
// War", "since the Second World War", "after September 11".
var eventTime = regexp.MustCompile(`\b(?:after|before|since|following)\s+(?:the\s+)?(?:(?:[A-Z][\w'-]*\s+)*[Ww]ars?|September\s+11(?:th)?)\b`)

// WithoutEventTime returns a title without its clauses that date it by
// an event (eventTime): "Refugees and the displaced after the Cold War,
// 1996-2021" asks about refugees, not about the Cold War, whose
// sentences would otherwise name the request's subject ("cold war" a
// phrase of it). The years the title names date the request. A war the
// request asks about as well ("soldiers and sailors during and after
// the Civil War") stays.
func WithoutEventTime(title string) string {
	var b strings.Builder
	last := 0
	for _, m := range eventTime.FindAllStringIndex(title, -1) {
		if strings.HasSuffix(strings.TrimSpace(title[:m[0]]), "during and") {
			continue
		}
		b.WriteString(strings.TrimRight(title[last:m[0]], " "))
		last = m[1]
	}
	b.WriteString(title[last:])
	return b.String()
}
