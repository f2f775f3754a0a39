package pipeline

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Speakers a facet names. A problem statement often asks for what one
// speaker said or did ("the help Clinton sought for family farmers",
// "Reagan's aim in enforcing child support"), and the facet read from it
// keeps the name. Speakers seldom name themselves, so the facet's words
// find other speakers' passages as readily as the named one's; the facet
// is then only about the documents of the speakers it names (their
// authors, AuthorLister).

// reNameRun finds a run of capitalised words, as authorName does, and
// the word after it.
var reNameRun = regexp.MustCompile(`(` + authorName + `)(?:\s+([\p{L}]+))?`)

// SpeakersNamed returns the collection's authors (authors, as
// AuthorLister gives them) that text names as speakers, sorted: a name
// written in the possessive ("Reagan's aim"), before a verb in the past
// ("the help Clinton sought", "the squeeze Carter described", "bodies
// Eisenhower and Lyndon Johnson proposed") or an auxiliary ("Obama did
// not want", "George W. Bush would host") or after "by" or "under"
// ("reported by Madison", "created under Eisenhower"). A name in a range
// of speakers ("from Kennedy to Obama") names a period, not a speaker;
// a name as a place or a thing ("at Washington", "the Monroe Doctrine",
// "Grant of land") names no speaker. A capitalised word before a name
// that opens the line or names something else ("Help Clinton sought",
// "with Mexico Coolidge reported") is read apart from it. A name that fits several authors ("Johnson",
// "Roosevelt") names each of them.
func SpeakersNamed(text string, authors map[string]Period) []string {
	if len(authors) == 0 {
		return nil
	}
	inRange := AuthorPeriods(text, authors)
	named := map[string]bool{}
	offset := 0
	for _, line := range strings.Split(text, "\n") {
		lineStart := offset
		offset += len(line) + 1
		type run struct {
			authors []string
			speaks  bool
			joins   bool // followed by "and" or "or": shares the next run's verb
		}
		var runs []run
		for _, m := range reNameRun.FindAllStringSubmatchIndex(line, -1) {
			start, end := m[2], m[3]
			if within(lineStart+start, lineStart+end, inRange) {
				continue
			}
			name := line[start:end]
			possessive := strings.HasSuffix(name, "'s") || strings.HasSuffix(name, "’s")
			if i := possessiveWord(name); i >= 0 && !possessive {
				// "Reagan's Strategic Defense Initiative": the name ends
				// at the possessive.
				name, possessive = name[:i], true
			}
			found := authorsNamed(name, authors)
			for rest := name; len(found) == 0; {
				// A capitalised word before the name opens the line
				// ("Help Clinton sought") or names something else ("the
				// difference with Mexico Coolidge reported"): the name
				// is read without it.
				var ok bool
				if _, rest, ok = strings.Cut(rest, " "); !ok {
					break
				}
				found = authorsNamed(rest, authors)
			}
			if len(found) == 0 {
				continue
			}
			next := ""
			if m[4] >= 0 {
				next = line[m[4]:m[5]]
			}
			before := lastWord(line[:start])
			runs = append(runs, run{
				authors: found,
				speaks:  possessive || pastVerb(next) || auxiliaries[next] || before == "by" || before == "under",
				joins:   next == "and" || next == "or",
			})
		}
		for i := len(runs) - 2; i >= 0; i-- {
			if runs[i].joins && runs[i+1].speaks && !runs[i].speaks {
				runs[i].speaks = true
			}
		}
		for _, r := range runs {
			if r.speaks {
				for _, a := range r.authors {
					named[a] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(named))
}

// within reports whether [start, end) lies inside one of the mentions.
func within(start, end int, ms []PeriodMention) bool {
	for _, m := range ms {
		if start >= m.Start && end <= m.End {
			return true
		}
	}
	return false
}

// possessiveWord returns where the first word of a run of names that
// ends in "'s" ends, before that suffix, or -1.
func possessiveWord(name string) int {
	for _, suf := range []string{"'s ", "’s "} {
		if i := strings.Index(name, suf); i >= 0 {
			return i
		}
	}
	return -1
}

// lastWord is the last word of s in lower case ("" when none).
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[len(f)-1], ",;:"))
}

// pastVerb reports whether a word after a name reads as the name's verb
// in the past: a lower-case word in "-ed" or a common irregular past.
func pastVerb(w string) bool {
	if w == "" || strings.ToLower(w) != w {
		return false
	}
	if strings.HasSuffix(w, "ed") && len(w) > 3 {
		return true
	}
	return irregularPasts[w]
}

// auxiliaries are the auxiliary verbs a facet writes after a speaker's
// name before the verb of what he did or meant to do ("the city where
// George W. Bush would host", "weapons Obama did not want", "the course
// Jackson had recommended"). Not "was" or "were": "Washington was
// chosen" names a place.
var auxiliaries = map[string]bool{
	"would": true, "will": true, "could": true, "should": true, "might": true,
	"had": true, "has": true, "did": true, "does": true,
}

// irregularPasts are irregular past tenses a facet writes after a
// speaker's name.
var irregularPasts = map[string]bool{
	"said": true, "saw": true, "sought": true, "gave": true, "made": true, "took": true,
	"set": true, "won": true, "began": true, "told": true, "put": true, "spoke": true,
	"wrote": true, "sent": true, "kept": true, "led": true, "brought": true, "found": true,
	"held": true, "laid": true, "meant": true, "paid": true, "stood": true, "thought": true,
	"chose": true, "drew": true, "got": true, "knew": true, "swore": true, "went": true,
	"came": true, "became": true, "struck": true, "undertook": true, "withdrew": true,
	"foresaw": true, "forbade": true, "broke": true, "spent": true, "cut": true, "left": true,
	"fought": true, "bought": true, "sold": true, "built": true, "taught": true,
}

// ResolveSpeaker writes the speaker a request names into its facets where
// they stand for him by a pronoun: a facet cut from "What did Clinton
// propose on welfare? The law his plan built on, the measures he
// proposed against parents ..." reads "Measures he proposed against
// parents", and a reader of the report sees only the heading. When the
// request's text (its title and problem statement) names exactly one of
// the collection's authors (authors, AuthorLister) — by one surname,
// however often — "he", "him" and "his" in a facet's heading and
// description become that name as the request writes it at its shortest
// ("Measures Clinton proposed against parents"), unless the heading
// would grow past MaxFacetHeadingWords (its description is still
// resolved). When it names several, a facet's pronoun stands for the
// author named last before the facet's text in the same sentence of the
// request ("Clinton's figure for unpaid support, the law his welfare
// plan built on": Clinton; see antecedent), and is left as it is when
// no name comes before it there. A name within a range of them ("from
// Kennedy to Obama") is no antecedent, and a facet that names someone
// itself ("Lincoln's Gettysburg Address and his ...") is left as it is.
// A description that opens with "His", whose heading the facets wrote
// without it, gets the name in both ("Taft's criticism of the antitrust
// law itself"; see ownerHeading). The facets are returned as a new
// slice.
func ResolveSpeaker(facets []Facet, request string, authors map[string]Period) []Facet {
	sole := soleAuthorName(request, authors)
	out := append([]Facet(nil), facets...)
	var ranges []PeriodMention
	var names []writtenName
	if sole == "" {
		ranges, names = AuthorPeriods(request, authors), namesWrittenAt(request, authors)
	}
	for i, f := range out {
		name := sole
		if name == "" {
			name = antecedent(f, request, names, ranges)
		}
		if name == "" {
			continue
		}
		if h := resolvePronouns(f.Heading, name); h != f.Heading && len(strings.Fields(h)) <= MaxFacetHeadingWords && len(SpeakersNamedAny(f.Heading, authors)) == 0 {
			out[i].Heading = h
		} else if h, ok := ownerHeading(f, name); ok && len(SpeakersNamedAny(f.Heading, authors)) == 0 {
			out[i].Heading = h
		}
		if len(SpeakersNamedAny(f.Description, authors)) == 0 {
			out[i].Description = resolvePronouns(f.Description, name)
			if rest, ok := strings.CutPrefix(out[i].Description, "His "); ok {
				out[i].Description = name + "'s " + rest
			}
		}
	}
	return out
}

// ownerHeading returns the heading of a facet whose description opens
// with "His" with the owner named ("His criticism of the antitrust law
// itself" headed "Criticism of the antitrust law itself" becomes "Taft's
// criticism of the antitrust law itself"), the words after the name as
// the description writes them; false when the description does not
// open so, the heading is not its words after "His", or the heading
// would grow past MaxFacetHeadingWords.
func ownerHeading(f Facet, name string) (string, bool) {
	rest, ok := strings.CutPrefix(f.Description, "His ")
	if !ok || f.Heading == "" || len(rest) < len(f.Heading) || !strings.EqualFold(rest[:len(f.Heading)], f.Heading) {
		return "", false
	}
	h := name + "'s " + rest[:len(f.Heading)]
	if len(strings.Fields(h)) > MaxFacetHeadingWords {
		return "", false
	}
	return h, true
}

// antecedent returns the name a facet's pronoun stands for in a request
// that names several authors (names, as namesWrittenAt finds them in
// request; ranges, its ranges of authors): the last name written before
// the facet's text in the same sentence, outside the ranges. "" when the
// facet's description holds no pronoun, is not found in the request, or
// no name comes before it in its sentence.
func antecedent(f Facet, request string, names []writtenName, ranges []PeriodMention) string {
	loc := rePronoun.FindStringIndex(f.Description)
	if strings.HasPrefix(f.Description, "His ") || strings.HasPrefix(f.Description, "He ") {
		loc = []int{0, strings.IndexByte(f.Description, ' ')}
	}
	if loc == nil || len(names) == 0 {
		return ""
	}
	lower := strings.ToLower(request)
	at := strings.Index(lower, strings.ToLower(f.Description))
	if at < 0 {
		// A description the facets shortened: the words up to the
		// pronoun and the two after it, when that is three words or more.
		words := strings.Fields(f.Description)
		upTo := len(strings.Fields(f.Description[:loc[1]]))
		if len(words) < 3 {
			return ""
		}
		at = strings.Index(lower, strings.ToLower(strings.Join(words[:min(len(words), max(3, upTo+2))], " ")))
		if at < 0 {
			return ""
		}
	}
	start := sentenceStart(request, at)
	name := ""
	for _, n := range names {
		if n.start >= start && n.end <= at && !within(n.start, n.end, ranges) {
			name = n.name
		}
	}
	return name
}

// sentenceStart returns where the sentence of text holding position at
// begins: after the last full stop, question or exclamation mark followed
// by a space before at (not a capital's full stop, "George W. Bush"), or
// the last line break; 0 at the start.
func sentenceStart(text string, at int) int {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	for i := at - 2; i >= start; i-- {
		if text[i+1] != ' ' {
			continue
		}
		switch c := text[i]; {
		case c == '?' || c == '!':
			return i + 2
		case c == '.' && i > 0 && !unicode.IsUpper(rune(text[i-1])):
			return i + 2
		}
	}
	return start
}

// rePronoun finds the third-person pronouns of one man that
// ResolveSpeaker resolves.
var rePronoun = regexp.MustCompile(`\b(?:he|him|his)\b`)

// resolvePronouns writes name for "he" and "him" and name's for "his".
func resolvePronouns(text, name string) string {
	return rePronoun.ReplaceAllStringFunc(text, func(p string) string {
		if p == "his" {
			return name + "'s"
		}
		return name
	})
}

// soleAuthorName returns how text writes the one author of the
// collection it names, at its shortest ("Clinton" of "Bill Clinton ...
// Clinton's"); "" when it names none, more than one (by surname), or a
// range of them.
func soleAuthorName(text string, authors map[string]Period) string {
	if len(authors) == 0 || len(AuthorPeriods(text, authors)) > 0 {
		return ""
	}
	shortest, surname := "", ""
	for _, written := range namesWritten(text, authors) {
		words := nameWords(written)
		last := words[len(words)-1]
		if surname != "" && last != surname {
			return ""
		}
		surname = last
		if shortest == "" || len(written) < len(shortest) {
			shortest = written
		}
	}
	return shortest
}

// SpeakersNamedAny returns the collection's authors text names at all,
// as speakers or not (a name as SpeakersNamed reads it, whatever stands
// around it), sorted.
func SpeakersNamedAny(text string, authors map[string]Period) []string {
	seen := map[string]bool{}
	for _, written := range namesWritten(text, authors) {
		for _, a := range authorsNamed(written, authors) {
			seen[a] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// namesWritten returns the names of the collection's authors as text
// writes them, possessive ending removed, in order: each run of
// capitalised words that fits an author, the first word of a line left
// out when the rest fits alone ("Help Clinton").
func namesWritten(text string, authors map[string]Period) []string {
	var out []string
	for _, n := range namesWrittenAt(text, authors) {
		out = append(out, n.name)
	}
	return out
}

// writtenName is a name namesWrittenAt found and where text holds it.
type writtenName struct {
	name       string
	start, end int
}

// namesWrittenAt is namesWritten with where each name stands in text.
func namesWrittenAt(text string, authors map[string]Period) []writtenName {
	if len(authors) == 0 {
		return nil
	}
	var out []writtenName
	offset := 0
	for _, line := range strings.Split(text, "\n") {
		lineStart := offset
		offset += len(line) + 1
		for _, m := range reNameRun.FindAllStringSubmatchIndex(line, -1) {
			start := m[2]
			name := line[start:m[3]]
			if i := possessiveWord(name); i >= 0 {
				name = name[:i]
			}
			name = strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s")
			if len(authorsNamed(name, authors)) == 0 {
				first, rest, ok := strings.Cut(name, " ")
				if !ok || len(authorsNamed(rest, authors)) == 0 {
					continue
				}
				name, start = rest, start+len(first)+1
			}
			out = append(out, writtenName{name: name, start: lineStart + start, end: lineStart + start + len(name)})
		}
	}
	return out
}

// ResolveThey writes into a facet's heading the speakers its "they"
// stands for, when the request names them in the same sentence before
// the facet as the subject of a verb: "the discoveries Presidents cited,
// the research budgets they proposed" gives the facet "Research budgets
// they proposed" the heading "Research budgets Presidents proposed". Only
// a "they" before a verb of saying, proposing or reporting
// (theySpeechVerbs) is read so, and only a capitalised plural
// ("Presidents", "Governors") written alone, not the last word of a name
// ("the United States would"), before a verb in the past or an
// auxiliary is taken for it; the nearest such one before the facet
// wins. Where the sentence has none, the documents it says something of
// stand for it ("what the messages from Jackson to Kennedy said ...:
// which failures they reported" gives "Which failures the messages
// reported"; see sourcesSubject). Headings only, and meant to be
// applied once the report's sentences are grouped (RenameFacets): a
// facet's words steer its nuggets and passages, and the speakers' word
// would steer them too. The facets are returned as a new slice.
func ResolveThey(facets []Facet, request string) []Facet {
	out := append([]Facet(nil), facets...)
	lower := strings.ToLower(request)
	for i, f := range out {
		words := strings.Fields(f.Heading)
		at := -1
		for k := 0; k+1 < len(words); k++ {
			if words[k] == "they" && theySpeechVerbs[words[k+1]] {
				at = k
				break
			}
		}
		if at < 0 {
			continue
		}
		pos := strings.Index(lower, strings.ToLower(f.Description))
		if pos < 0 || f.Description == "" {
			pos = strings.Index(lower, strings.ToLower(strings.Join(words[max(0, at-1):at+2], " ")))
		}
		if pos < 0 {
			continue
		}
		before := request[sentenceStart(request, pos):pos]
		name := pluralSubject(before)
		if name == "" && objectRelative(words, at) {
			name = sourcesSubject(before)
		}
		if name == "" {
			continue
		}
		words[at] = name
		out[i].Heading = strings.Join(words, " ")
	}
	return out
}

// reCapitalPlural finds a capitalised plural, the word before it and the
// word after it.
var reCapitalPlural = regexp.MustCompile(`(?:(\S+)\s+)?\b(\p{Lu}\p{Ll}+s)\s+(\p{Ll}+)`)

// pluralSubject returns the last capitalised plural in text that is the
// subject of a verb in the past or an auxiliary ("the estimates the
// Presidents cited" gives "Presidents"), not the last word of a name
// ("the United States would"); "" when none.
func pluralSubject(text string) string {
	name := ""
	for _, m := range reCapitalPlural.FindAllStringSubmatch(text, -1) {
		before, plural, verb := m[1], m[2], m[3]
		if before != "" && unicode.IsUpper([]rune(before)[0]) && !strings.ContainsAny(before, ",;:") && !pluralOpeners[strings.ToLower(before)] {
			continue // "United States", "Great Lakes"; not "The Presidents"
		}
		if pastVerb(verb) || auxiliaries[verb] {
			name = plural
		}
	}
	return name
}

// objectRelative reports whether the "they" at words[at] opens a
// relative clause on the noun before it whose verb has no particle after
// it ("Discoveries they reported", "Growth forecasts they cited"): the
// noun is what "they" said, so "they" are the speakers or their
// documents. After a word that opens a clause ("when they took effect",
// "what they reported") "they" may be the heading's own noun, and a verb
// with its particle ("Lands they gave up") is no saying.
func objectRelative(words []string, at int) bool {
	if at == 0 || at+1 >= len(words) {
		return false
	}
	if clauseWords[strings.ToLower(words[at-1])] || strings.ContainsAny(words[at-1], ",;:") {
		return false
	}
	return at+2 >= len(words) || !particles[strings.ToLower(words[at+2])]
}

// clauseWords open a clause or a phrase before a "they"; particles
// follow a verb to make another one ("gave up", "set out").
var (
	clauseWords = map[string]bool{
		"when": true, "where": true, "how": true, "what": true, "whom": true, "which": true, "why": true,
		"whether": true, "if": true, "as": true, "because": true, "while": true, "after": true, "before": true,
		"until": true, "since": true, "that": true, "who": true, "and": true, "or": true, "but": true,
		"of": true, "for": true, "to": true, "in": true, "on": true, "with": true, "by": true, "from": true,
	}
	particles = map[string]bool{"up": true, "down": true, "away": true, "back": true, "out": true, "off": true, "over": true}
)

// reSources finds the documents a request asks about, named as what
// said something ("what the annual messages from Jackson to Kennedy said
// ..."): "the", up to four words, and "messages", "addresses" or
// "speeches".
var reSources = regexp.MustCompile(`(?i)\bthe\s+(?:[\p{L}-]+\s+){0,4}?(messages|addresses|speeches)\b`)

// sourcesSubject returns the documents text names last by reSources, as
// "the" and their kind ("the messages"), for a "they" that stands for
// them when no capitalised plural does ("which failures they reported"
// after "what the messages from Jackson to Kennedy said"); "" when none.
func sourcesSubject(text string) string {
	m := reSources.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return ""
	}
	return "the " + strings.ToLower(m[len(m)-1][1])
}

// pluralOpeners are capitalised words that may open a sentence before a
// plural subject ("The Presidents said ...").
var pluralOpeners = map[string]bool{
	"the": true, "these": true, "those": true, "both": true, "all": true, "two": true, "three": true,
	"many": true, "most": true, "some": true, "several": true, "other": true, "later": true, "earlier": true,
	"which": true, "what": true, "how": true, "whether": true, "when": true, "where": true, "why": true,
}

// theySpeechVerbs are the verbs after which a facet's "they" stands for
// the speakers of the collection ("the remedies they proposed", "the
// figures they gave").
var theySpeechVerbs = map[string]bool{
	"proposed": true, "reported": true, "cited": true, "named": true, "gave": true, "drew": true,
	"offered": true, "promised": true, "announced": true, "credited": true, "recalled": true,
	"described": true, "said": true, "quoted": true, "honored": true, "asked": true, "urged": true,
	"counted": true, "computed": true, "claimed": true, "condemned": true, "blamed": true, "set": true,
	"hailed": true, "mentioned": true, "made": true, "took": true, "marked": true, "told": true,
	"celebrated": true, "mourned": true, "revoked": true, "wanted": true, "called": true,
	"recommended": true, "demanded": true, "threatened": true, "enlisted": true, "tied": true,
	"saw": true, "held": true, "used": true, "expected": true, "feared": true, "hoped": true,
	"justified": true, "explained": true, "defended": true, "argued": true, "judged": true, "viewed": true,
	"answered": true, "stated": true, "estimated": true, "predicted": true, "praised": true,
	"criticized": true, "criticised": true, "opposed": true, "favored": true, "favoured": true,
	"rejected": true, "vetoed": true, "signed": true,
}

// RenameFacets gives a report's facets the headings of renamed (the same
// facets in the same order, headings changed, as ResolveThey returns
// them) and moves the sentences grouped under an old heading to its new
// one. Facets and sentences are returned as new slices; renamed of
// another length leaves both as they are.
func RenameFacets(facets, renamed []Facet, sentences []Sentence) ([]Facet, []Sentence) {
	if len(renamed) != len(facets) {
		return facets, sentences
	}
	to := map[string]string{}
	for i, f := range facets {
		if f.Heading != renamed[i].Heading {
			to[f.Heading] = renamed[i].Heading
		}
	}
	if len(to) == 0 {
		return facets, sentences
	}
	out := append([]Sentence(nil), sentences...)
	for i, s := range out {
		if h, ok := to[s.Facet]; ok {
			out[i].Facet = h
		}
	}
	return append([]Facet(nil), renamed...), out
}
