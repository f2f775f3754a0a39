package offline

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// The facets task, offline: the things a problem statement asks for are
// read from its own sentences, and each gets a heading in its own words.
//
//   - A sentence with a colon asks for the list after it; what comes
//     before is the frame ("Summarize the course of the War of 1812 as
//     told in the annual messages: ..."), except clauses before a ", then"
//     that ask for something themselves.
//   - The first sentence frames the request when later sentences ask for
//     something ("Report on the tariff question from 1887 through 1909.
//     Cover the surplus that drove the debate, ..."); otherwise it is an
//     ask itself.
//   - Other sentences are asks: what follows their request verb ("Cover",
//     "Include", "Describe", ...) is split at commas and semicolons into
//     noun phrases ("the surplus that drove the debate, the main features
//     and dates of each tariff law, ..."), a piece that does not open a
//     phrase of its own ("bank troubles" after "the deficits", "Harrison
//     and Cleveland" after "under Arthur") joining the one before; a lone
//     phrase is split before "and the ..." ("the war's scale and the
//     number of people freed").
//   - Asks that name only kinds of detail ("Give the dates, figures and
//     places the messages state") apply to every facet and are dropped.
//
// Before the asks are split, what the statement says to leave aside
// (pipeline.SplitExclusions) and frames that say where to look ("as the
// addresses of 1946-1962 report it", "Set out, from the addresses of
// ...", "For the years 1942-1945, ...") are dropped; a "Give" or "Name"
// sentence that lists kinds of detail is no ask.
//
// A heading is the ask without parentheses, request verbs, leading
// articles and references to the sources ("as told in the annual
// messages"), cut to at most pipeline.MaxFacetHeadingWords words before a
// preposition, conjunction or relative word where it reads whole, a
// trailing phrase about "it" or "them" dropped, the first letter
// capitalised. The description is the ask in full. At most
// pipeline.MaxFacets asks are kept, in order; with none, the title is the
// one facet.

// requestVerbs open the asks of a problem statement.
var requestVerbs = setOf(strings.Fields(`cover covering include including describe describing explain explaining
	discussing give name report trace
	summarize summarise compare discuss list identify outline say state show assess examine analyze analyse detail
	document note review present provide find tell set recount relate chart survey`))

// detailWords name kinds of detail rather than a subject: an ask made only
// of them ("the figures, dates and places the messages give") applies to
// every facet.
const detailWords = "figures figure dates date names name places place sums sum numbers number amounts amount " +
	"people persons person laws law acts act programs program program's treaties treaty agencies agency institutions " +
	"institution bodies body years year ratios ratio milestones milestone missions mission events event " +
	"countries country phrases phrase key commanders commander generals general officers officer tribes tribe " +
	"targets target statistics statistic concrete specific exact main particular important relevant " +
	"messages message addresses address speeches speech give given state stated cite cited mention mentioned " +
	"single singled out report reported name named list listed provide provided source sources quote quotes " +
	"president presidents congress along each every all also use uses used quote quotes quoted"

// openers start a noun phrase of its own in a list of asks.
var openers = setOf(strings.Fields(`the a an its his her their our this these those each every any all how what when
	where why whether who which whose`))

// possessives dropped at the start of a heading ("its founding" reads
// "Founding"): they refer to the request's subject.
var leadingDrops = setOf(strings.Fields(`the a an its his her their our and or also then but as well main key
	concrete specific exact precise`))

// cutWords may start the part of a long heading that is cut off.
var cutWords = setOf(strings.Fields(`and or but that which who whom whose where when while to for from with without within under
	behind in on at by as after before during between through against about over since until of including among across beyond throughout despite
	reported made set given taken held passed named cited created voted proposed established adopted enacted
	meant intended designed calculated`))

// articles start a phrase a long heading may be cut before, as a last
// resort.
var articles = setOf(strings.Fields("the a an"))

// badEnds cannot end a heading; nor can a participle that wants its
// preposition ("claims of foreigners arising").
var badEnds = setOf(strings.Fields(`the a an and or but of to for from with in on at by as its his her their our this
	that which who whom whose these those made set given reported named taken held passed cited stated
	mentioned own created voted proposed established adopted enacted each every he she they we
	arising resulting relating pertaining belonging owing according connected associated related attached
	devoted dedicated based meant intended designed calculated`))

// referringWords end a phrase that points back at the request's subject
// ("the reciprocity arrangements made under them"), which a heading
// cannot show.
var referringWords = setOf(strings.Fields(`it them they this these those him her`))

// tailStarts begin the trailing phrase dropped with a referring word.
var tailStarts = setOf(strings.Fields(`that which who whom whose made set given taken held passed reported negotiated
	named cited under behind of in for to with by from on against about after before during`))

// leadingFrame is an opening phrase that says where to look, not what:
// "Using the annual messages, ...".
var leadingFrame = regexp.MustCompile(`(?i)^(?:(?:using|drawing on|based on|from|according to|with reference to)\b[^,]{0,120}|(?:for|in|over|during|across)\s+the\s+(?:years|period|decades?|era)\b[^,]{0,60}),\s*`)

// Frames set off by commas after the request verb say where to look as
// well: "Describe, as the addresses of 1946-1962 report it, the cost
// ...", "Set out, from the addresses of 2007-2011, how many ...". They
// are dropped before the asks are split, or each would be an ask.
var (
	verbFrame = regexp.MustCompile(`(?i)^(\pL+(?:\s+(?:out|forth))?)\s*,\s*(?:using|drawing on|based on|from|according to|with reference to)\b[^,]{0,120},\s*`)
	asSources = regexp.MustCompile(`(?i),?\s*\bas\s+(?:the\s+|his\s+|their\s+|\pL+'s\s+(?:and\s+\pL+'s\s+)?)?(?:annual\s+)?(?:messages|message|addresses|address|speeches)\b[^,;]{0,60}?\s(?:report|reports|present|presents|describe|describes|tell|tells|give|gives|show|shows|record|records|relate|relates)\s+(?:it|them)\b\s*,?`)
)

// sourceRefs say where the facts are to be found ("as told in the annual
// messages of 1812-1815", "the messages give", "as reported").
var sourceRefs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\s*\b(?:as\s+(?:told|reported|described|given|set\s+out|stated|presented)\s+)?(?:in|through|from|by)\s+(?:the\s+|his\s+|their\s+|its\s+|(?:\pL+\.?\s+){0,2}\pL+'s\s+)?(?:annual\s+|state\s+of\s+the\s+union\s+)?(?:messages|message|addresses|address|speeches)\b(?:\s+(?:of|from)\s+[^,;]*)?`),
	regexp.MustCompile(`(?i)\s*\b(?:that\s+)?the\s+(?:annual\s+)?(?:messages|addresses|speeches|documents|sources)\s+(?:give|gives|state|states|cite|cites|mention|mentions|report|reports|name|names|single\s+out|describe|describes|use|uses|quote|quotes)\b`),
	// "how the annual messages of Pierce and Buchanan treated ...": the
	// heading is what they treated.
	regexp.MustCompile(`(?i)^how\s+(?:the\s+)?(?:annual\s+)?(?:messages|addresses|speeches)\b[^,;]{0,60}?\s(?:treated|described|reported|presented|handled|told|followed|diagnosed|explained|discussed|recorded)\s+`),
	regexp.MustCompile(`(?i)\s*\bas\s+(?:reported|stated|given|described)\b`),
}

// howDidSources is a question on how the sources treated something
// ("How did the addresses describe the automobile industry ...?"): the
// heading is that something.
var howDidSources = regexp.MustCompile(`(?i)^how\s+did\s+(?:the\s+)?(?:annual\s+)?(?:messages|addresses|speeches)\b[^,;]{0,60}?\s(?:treat|describe|report|present|handle|tell|follow|explain|discuss|record)\s+`)

// whatSourcesSaid asks what the sources said about something ("what
// Cleveland's annual messages of 1885-1888 said about the Indian
// population", "what later Presidents said about the years after an
// armistice"): the heading is that something, when it is more than a
// bare noun ("what the later Presidents said of the country" stays). Not
// "what the Presidents said caused them", which asks what was said.
var whatSourcesSaid = regexp.MustCompile(`(?i)^what\s+(?:the\s+)?(?:later\s+|earlier\s+)?(?:(?:\pL+\.?\s+){0,3}\pL+'s\s+(?:and\s+(?:\pL+\.?\s+){0,3}\pL+'s\s+)?)?(?:annual\s+)?(?:messages|addresses|speeches|presidents)\b[^,;:]{0,60}?\s(?:said|say|says|reported|told|wrote|stated)\s+(?:about|of|on|regarding|concerning)\s+`)

var parenthetical = regexp.MustCompile(`\s*\([^()]*\)`)

// Questions that ask whether the sources speak of something ("Are store
// closures in malls discussed?", "Is there a discussion on the plan?")
// are headed by that something.
var (
	askedWhether = regexp.MustCompile(`(?i)^(?:is|are)\s+there\s+(?:a|any)\s+(?:discussion|mention|description|explanation|account)\s+(?:of|on|about)\s+(.+?)\??$`)
	askedIfTold  = regexp.MustCompile(`(?i)^(?:is|are)\s+(.+?)\s+(?:being\s+)?` + toldWords + `\??$`)
	toldAsked    = regexp.MustCompile(`(?i)^(.+?)\s+` + toldWords + `\?$`)
)

const toldWords = `(?:discussed|mentioned|covered|explained|addressed|explored|talked\s+about|detailed|described|reported)`

// facets answers the facets task from the request's own words.
func (e *Engine) facets(in prompts.FacetsInput) []pipeline.Facet {
	generic := setOf(e.an.Terms(detailWords + " " + metaWords))
	var asks []string
	// What the statement says to leave out is no facet
	// (pipeline.SplitExclusions).
	asked, _ := pipeline.SplitExclusions(in.Request.ProblemStatement)
	statement := strings.Join(strings.Fields(asked), " ")
	var sentences []string
	for _, sp := range e.an.Sentences(statement) {
		if s := strings.TrimSpace(statement[sp.Start:sp.End]); s != "" {
			sentences = append(sentences, s)
		}
	}
	var framing []string // asks of a first sentence that may only frame
	for i, s := range sentences {
		found, framed := sentenceAsks(s)
		var kept []string
		for _, a := range found {
			if !e.onlyDetail(a, generic) {
				kept = append(kept, a)
			}
		}
		if i == 0 && !framed {
			framing = kept
			continue
		}
		asks = append(asks, kept...)
	}
	if len(asks) == 0 {
		asks = framing
	}
	var out []pipeline.Facet
	seen := map[string]bool{}
	for _, a := range asks {
		h := headingOf(a)
		if h == "" || seen[strings.ToLower(h)] {
			continue
		}
		seen[strings.ToLower(h)] = true
		out = append(out, pipeline.Facet{Heading: h, Description: describeAsk(a)})
		if len(out) == pipeline.MaxFacets {
			break
		}
	}
	if len(out) == 0 {
		title := strings.Join(strings.Fields(in.Request.Title), " ")
		h := headingOf(title)
		if h == "" {
			h = "Findings"
		}
		out = append(out, pipeline.Facet{Heading: h, Description: strings.TrimSpace(title + " " + statement)})
	}
	return out
}

// onlyDetail reports whether an ask names only kinds of detail.
func (e *Engine) onlyDetail(ask string, generic map[string]bool) bool {
	for _, t := range e.an.Terms(parenthetical.ReplaceAllString(ask, "")) {
		if !generic[t] {
			return false
		}
	}
	return true
}

// sentenceAsks splits a sentence of a problem statement into its asks.
// framed is set when the sentence is plainly a list of asks (it has a
// colon, or opens with "Cover" or "Include"), so that it is no mere frame
// of the request.
func sentenceAsks(s string) (asks []string, framed bool) {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!;"))
	s = leadingFrame.ReplaceAllString(s, "")
	s = asSources.ReplaceAllString(s, " ")
	s = verbFrame.ReplaceAllString(s, "$1 ")
	s = dropQuestionFrames(s)
	if i := topLevelIndex(s, ':'); i >= 0 {
		clauses := splitClauses(s[:i])
		for _, c := range clauses[:len(clauses)-1] {
			asks = append(asks, listAsks(stripVerb(c))...)
		}
		return append(asks, listAsks(s[i+1:])...), true
	}
	verb := firstWord(s)
	if detailListVerbs[verb] && bareList(stripVerb(s)) {
		// "Give the laws, causes, figures, people and companies named":
		// a list of kinds of detail, whatever the kinds.
		return nil, false
	}
	for _, a := range listAsks(stripVerb(s)) {
		// "Name the tribes, places and sums the messages give": details
		// every facet should give, not a facet.
		if detailVerbs[verb] && sourceRefs[1].MatchString(a) {
			continue
		}
		asks = append(asks, a)
	}
	return asks, verb == "cover" || verb == "include"
}

// bareList reports whether s lists three things or more, each a word or
// two ("the laws, causes, figures, people and companies named"), with
// nothing longer among them.
func bareList(s string) bool {
	s = strings.TrimRight(strings.TrimSpace(s), ".")
	var items []string
	for _, piece := range topLevelSplit(s) {
		for _, item := range strings.Split(" "+strings.TrimSpace(piece)+" ", " and ") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
	}
	if len(items) < 3 {
		return false
	}
	for _, item := range items {
		words := strings.Fields(item)
		if len(words) > 0 && articles[strings.ToLower(words[0])] {
			words = words[1:]
		}
		if len(words) > 2 {
			return false
		}
	}
	return true
}

// dropQuestionFrames drops the pieces before a question's wh-word that
// only say where or when to look: "In Truman's long message of January
// 1946, and as he looked back in 1953, how fast were ..." asks "how fast
// were ...".
func dropQuestionFrames(s string) string {
	pieces := topLevelSplit(s)
	offset := 0
	for i, p := range pieces {
		w := firstWord(p)
		if w == "and" {
			w = secondWord(p)
		}
		switch {
		case whWords[w] && i > 0:
			return strings.TrimSpace(s[offset:])
		case !questionFramers[w]:
			return s
		}
		offset += len(p) + 1
	}
	return s
}

// questionFramers open the pieces dropQuestionFrames drops.
var questionFramers = setOf(strings.Fields("in as during from over across since after before when"))

// detailListVerbs ask for kinds of detail when a bare list follows
// ("Give the laws, causes and companies named"); "Include" and "List"
// ask for things ("Include the treaties, the awards and the claims").
var detailListVerbs = setOf(strings.Fields("give name cite state"))

// detailVerbs ask for details ("Give the dates ...", "Name the laws ...").
var detailVerbs = setOf(strings.Fields("give name list include cite state"))

// splitClauses splits the frame before a colon at ", then" and "; ".
func splitClauses(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ";") {
		for {
			i := strings.Index(strings.ToLower(part), ", then ")
			if i < 0 {
				break
			}
			out = append(out, part[:i])
			part = part[i+len(", then "):]
		}
		out = append(out, part)
	}
	return out
}

// topLevelIndex is the byte index of the first c outside parentheses, or
// -1.
func topLevelIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case c:
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// topLevelSplit splits s at commas and semicolons outside parentheses.
func topLevelSplit(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',', ';':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// firstWord is the first word of s in lower case, without punctuation.
func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.TrimFunc(f[0], func(r rune) bool { return !unicode.IsLetter(r) }))
}

// stripVerb removes a leading conjunction and request verb ("and name",
// "Cover also", "Report on") from an ask.
func stripVerb(s string) string {
	words := strings.Fields(s)
	i := 0
	for i < len(words) && (strings.EqualFold(words[i], "and") || strings.EqualFold(words[i], "or") || strings.EqualFold(words[i], "then")) {
		i++
	}
	if i < len(words) && requestVerbs[strings.ToLower(words[i])] {
		i++
		// "Cover also", "Report on", "Set out", "Set forth".
		for i < len(words) && verbParticles[plainWord(words[i])] {
			i++
		}
	}
	return strings.Join(words[i:], " ")
}

// verbParticles follow a request verb as part of it.
var verbParticles = setOf(strings.Fields("also on in out forth"))

// listAsks splits the asks of a list: "the surplus that drove the debate,
// the main features and dates of each tariff law, and the machinery Taft
// set up".
func listAsks(s string) []string {
	type item struct {
		text string
		open bool // the last piece was a word or two: a bare piece joins it
		// inf: the piece ends on an infinitive with no object ("the plans
		// to store"): a bare piece with no conjunction continues it
		// ("market, finance or reduce the crop").
		inf bool
	}
	var items []item
	for _, piece := range topLevelSplit(s) {
		p := strings.TrimSpace(piece)
		conj := false
		for _, c := range []string{"and ", "or ", "as well as ", "and also ", "then "} {
			if len(p) > len(c) && strings.EqualFold(p[:len(c)], c) {
				p, conj = strings.TrimSpace(p[len(c):]), true
			}
		}
		if p == "" {
			continue
		}
		verbLed := requestVerbs[firstWord(p)] && conj
		if verbLed {
			p = stripVerb(p)
		}
		n := len(strings.Fields(p))
		switch {
		case len(items) == 0 || verbLed || opensPhrase(p):
			items = append(items, item{text: p, open: n <= 2 || endsOnBareObject(p), inf: endsOnInfinitive(p)})
		case isNameList(p) && capitalised(lastWord(items[len(items)-1].text)) || items[len(items)-1].open ||
			capitalised(p) && relativeAwaitsVerb(items[len(items)-1].text) ||
			numberGoesOn(items[len(items)-1].text, p) || items[len(items)-1].inf && !conj ||
			!conj && leadingPreps[firstWord(p)] && !whWords[secondWord(p)]:
			// "the industry, from the loan guarantees of 1980, through
			// the cars of 2000, to the rescue of 2009": a piece that
			// opens on a preposition goes on with the phrase before it.
			last := &items[len(items)-1]
			sep := ", "
			if conj {
				sep = ", and "
			}
			last.text += sep + p
			last.open = n <= 1 && (last.open || last.inf)
			last.inf = false
		default:
			items = append(items, item{text: p, open: n <= 2})
		}
	}
	var out []string
	for _, it := range items {
		out = append(out, it.text)
	}
	if len(out) == 1 {
		out = splitAndPhrases(out[0])
	}
	return out
}

// relativeAwaitsVerb reports whether a piece ends inside a relative
// clause whose subject is a list of names cut at its first comma: "the
// duties and restrictions that Great Britain" of "the duties ... that
// Great Britain, France and the German states laid on American cotton".
// A piece opened by a name that follows goes on with it.
func relativeAwaitsVerb(p string) bool {
	words := strings.Fields(p)
	for i := len(words) - 1; i >= 0; i-- {
		switch w := plainWord(words[i]); {
		case relativePronouns[w]:
			return i < len(words)-1
		case !capitalised(words[i]) || strings.HasSuffix(words[i], ","):
			return false
		}
	}
	return false
}

// numberGoesOn reports whether a piece opened by a number continues a
// date or a list of years the piece before ends on: "the declaration of
// January 1, 1942", "the jobs he reported in 2013, 2015 and 2016".
func numberGoesOn(prev, p string) bool {
	last := strings.TrimRight(lastWord(prev), ".")
	r, _ := utf8.DecodeRuneInString(p)
	l, _ := utf8.DecodeLastRuneInString(last)
	return unicode.IsDigit(r) && unicode.IsDigit(l)
}

// relativePronouns open a relative clause.
var relativePronouns = setOf(strings.Fields("that which whom whose"))

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// endsOnBareObject reports whether a piece ends on a preposition and one
// bare word ("the figures on deficits"), which the bare pieces after it
// continue ("relief, unemployment and national income").
func endsOnBareObject(p string) bool {
	f := strings.Fields(p)
	n := len(f)
	return n >= 3 && !strings.HasSuffix(f[n-1], ",") && (plainWord(f[n-2]) == "on" || plainWord(f[n-2]) == "about" || plainWord(f[n-2]) == "for")
}

// endsOnInfinitive reports whether a piece ends on "to" and a verb with
// no object ("the plans to store"), which the bare verbs after it
// continue ("market, finance or reduce the crop").
func endsOnInfinitive(p string) bool {
	f := strings.Fields(p)
	n := len(f)
	return n >= 3 && plainWord(f[n-2]) == "to" && f[n-1] == strings.ToLower(f[n-1]) && !strings.HasSuffix(f[n-1], ",") &&
		!articles[plainWord(f[n-1])] && !referringWords[plainWord(f[n-1])]
}

// dropRelativeTail drops a relative clause that ends a cut heading on a
// word pointing back ("the insect pests that attacked it" → "the insect
// pests"), when two words or more are left: cut from what followed, the
// pointer names nothing. Other trailing phrases stay ("the treaty made
// with it" says more than "the treaty").
func dropRelativeTail(words []string) []string {
	n := len(words)
	if n < 3 || !referringWords[plainWord(words[n-1])] || whWords[plainWord(words[0])] {
		return words
	}
	for k := max(2, n-5); k < n-1; k++ {
		// Not after a preposition ("the occasions on which Presidents
		// asked it": "the occasions" alone says nothing).
		if (relativePronouns[plainWord(words[k])] || plainWord(words[k]) == "who") && !headingPreps[plainWord(words[k-1])] {
			return words[:k]
		}
	}
	return words
}

// opensPhrase reports whether a list piece opens a noun phrase of its
// own: an article, a possessive or a wh-word first, or a name in the
// possessive ("Jackson's challenge", "George W. Bush's reform").
func opensPhrase(p string) bool {
	words := strings.Fields(p)
	if len(words) == 0 {
		return false
	}
	if openers[strings.ToLower(words[0])] {
		return true
	}
	for i, w := range words {
		if i >= 4 || !capitalised(w) {
			return false
		}
		if strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
			return true
		}
	}
	return false
}

// secondWord is the second word of s in lower case, without punctuation.
func secondWord(s string) string {
	if f := strings.Fields(s); len(f) > 1 {
		return plainWord(f[1])
	}
	return ""
}

// leadingPreps open a piece of a list that continues the phrase before
// it.
var leadingPreps = setOf(strings.Fields("from through to until till into via with without under after before during since"))

// isNameList reports whether a piece only continues a list of names
// ("Eisenhower and Johnson").
func isNameList(p string) bool {
	for _, w := range strings.Fields(p) {
		if !capitalised(w) && w != "and" && w != "or" {
			return false
		}
	}
	return true
}

func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// splitAndPhrases splits a lone ask before each "and" that opens a phrase
// of its own: "the war's scale as reported and the number of people
// freed".
func splitAndPhrases(s string) []string {
	words := strings.Fields(s)
	var out []string
	start, depth := 0, 0
	for i, w := range words {
		depth += strings.Count(w, "(") - strings.Count(w, ")")
		if depth == 0 && w == "and" && i > start && i+1 < len(words) && opensPhrase(strings.Join(words[i+1:], " ")) &&
			!strings.EqualFold(words[i+1], "how") && !strings.EqualFold(words[i+1], "when") {
			out = append(out, strings.Join(words[start:i], " "))
			start = i + 1
		}
	}
	return append(out, strings.Join(words[start:], " "))
}

// describeAsk is a facet's description: the ask in full, one line.
func describeAsk(a string) string {
	a = strings.Join(strings.Fields(a), " ")
	// "What the annual messages from John Quincy Adams to Fillmore said
	// about the duties ... that Great Britain, France and the German
	// states laid on American cotton": the frame goes as it goes from
	// the heading (headingOf), or its words (the speakers, "messages")
	// would match the facet to every sentence.
	return upperFirst(dropSourcesFrame(a))
}

// dropSourcesFrame drops the frame of an ask that asks what the sources
// said about something (whatSourcesSaid: "what Cleveland's annual
// messages of 1885-1888 said about the Indian population ..."), when
// what it asks about has minCutHeadingWords words or more besides an
// article.
func dropSourcesFrame(s string) string {
	loc := whatSourcesSaid.FindStringIndex(s)
	if loc == nil {
		return s
	}
	rest := strings.Fields(s[loc[1]:])
	if len(rest) > 0 && articles[plainWord(rest[0])] {
		rest = rest[1:]
	}
	if len(rest) >= minCutHeadingWords {
		return s[loc[1]:]
	}
	return s
}

// plainWord is a word in lower case without surrounding punctuation.
func plainWord(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// headingOf writes the heading of an ask (see the file comment); "" when
// nothing of it is left.
func headingOf(ask string) string {
	s := strings.TrimSpace(parenthetical.ReplaceAllString(ask, ""))
	for _, re := range []*regexp.Regexp{askedWhether, askedIfTold, toldAsked} {
		if m := re.FindStringSubmatch(s); m != nil {
			s = m[1]
			break
		}
	}
	s = dropSourcesFrame(howDidSources.ReplaceAllString(s, ""))
	for _, re := range sourceRefs {
		s = re.ReplaceAllString(s, "")
	}
	words := strings.Fields(s)
	for len(words) > 0 && (requestVerbs[plainWord(words[0])] || plainWord(words[0]) == "and" || plainWord(words[0]) == "also") {
		words = words[1:]
	}
	for len(words) > 0 && leadingDrops[plainWord(words[0])] {
		words = words[1:]
	}
	words = firstSentence(words)
	n := len(words)
	words = dropReferringTail(words)
	if len(words) > pipeline.MaxFacetHeadingWords {
		words = dropSpeakerFrame(words)
	}
	if len(words) > pipeline.MaxFacetHeadingWords {
		cut := trimCut(cutHeading(words))
		// A cut that leaves a bare noun ("Ground" of "the ground on which
		// Nicaragua declared the company's contract forfeited") says less
		// than the ask in headline style, without its articles.
		if len(cut) < minCutHeadingWords {
			short := dropInnerArticles(words)
			if len(short) > pipeline.MaxFacetHeadingWords {
				short = trimCut(cutHeading(short))
			}
			if len(short) > len(cut) {
				cut = short
			}
		}
		words = completeCut(words, cut)
	}
	if len(words) < n {
		// What was cut leaves no dangling word, nor a pointer back at
		// its end ("the insect pests that attacked it and the
		// Government's response" → "Insect pests").
		words = trimCut(dropRelativeTail(words))
	}
	h := strings.TrimRight(strings.Join(words, " "), ",;:. ")
	return upperFirst(h)
}

// dropSpeakerFrame drops a speaker and a verb of saying inside a long
// heading where a clause with its own subject follows them: "the danger
// Truman said a full employment program must avert" → "the danger a full
// employment program must avert", "what he said the national bank had
// become" → "what the national bank had become", "the Indians whose lands
// he said should not be leased" → "the Indians whose lands should not be
// leased". They stay at the heading's start ("Truman said ..." is the ask
// itself), before a preposition ("what Jackson expected from ..."), and
// where the noun before them is the subject of what follows: "the firms
// he said were bringing jobs back" would state as fact what he said.
func dropSpeakerFrame(words []string) []string {
	for i := 2; i+2 < len(words); i++ {
		// "Cleveland said in 1896 the laws had proved ineffective": the
		// year goes with the speaker.
		after := i + 1
		if plainWord(words[after]) == "in" && after+2 < len(words) && isYear(plainWord(words[after+1])) {
			after += 2
		}
		next := plainWord(words[after])
		if !sayingVerbs[plainWord(words[i])] || headingPreps[next] || strings.ContainsAny(words[i-1], ",;:") {
			continue
		}
		start := i
		switch {
		case subjectWords[plainWord(words[i-1])]:
			start = i - 1
		case capitalised(words[i-1]):
			for start = i - 1; start > 1 && capitalised(words[start-1]) && !strings.ContainsAny(words[start-1], ",;:"); start-- {
			}
			if start > 1 && plainWord(words[start-1]) == "the" {
				start-- // "the Presidents said"
			}
		default:
			continue
		}
		// A verb right after: its subject is the noun before the speaker,
		// unless a wh-word stands between them.
		if looksFinite(next) || next == "would" || next == "will" {
			if !slices.ContainsFunc(words[:start], func(w string) bool { return whWords[plainWord(w)] }) {
				continue
			}
		}
		end := after
		if plainWord(words[end]) == "that" {
			end++
		}
		return append(append([]string{}, words[:start]...), words[end:]...)
	}
	return words
}

// isYear reports whether w is a year of four digits.
func isYear(w string) bool {
	if len(w) != 4 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// sayingVerbs report what a speaker said; a clause follows them.
var sayingVerbs = setOf(strings.Fields("said says argued claimed warned insisted"))

// verbsWanting are forms of "be", modals and "not": a heading that is
// no question cannot end on one ("the trust under which the public domain
// was"), and a participle after one ends a passive ("was held"). Forms of
// "have" can end a heading ("the government the people should have").
var verbsWanting = setOf(strings.Fields("is are was were be been being will would shall should can could may might must not"))

// minCutHeadingWords is the fewest words a cut heading should keep; a
// shorter one is written in headline style instead when that fits.
const minCutHeadingWords = 2

// firstSentence keeps the words of a heading's first sentence: an ask
// that runs on past a full stop ("... the 1980s and 1990s. Give the
// treaties") ends there. A capitalised word or one of two letters before
// the stop ("Mr.", "U.S.", "St.") ends none.
func firstSentence(words []string) []string {
	for i, w := range words[:max(len(words)-1, 0)] {
		if strings.HasSuffix(w, ".") && capitalised(words[i+1]) && len(strings.TrimRight(w, ".")) > 2 && !capitalised(w) {
			return words[:i+1]
		}
	}
	return words
}

// dropInnerArticles drops the articles after a heading's first word, as
// headlines do ("Ground on which Nicaragua declared the company's contract
// forfeited" → "... declared company's contract forfeited").
func dropInnerArticles(words []string) []string {
	out := words[:1:1]
	for i, w := range words[1:] {
		// "the duties that Great Britain, France and the German states
		// laid" → "Duties Great Britain, France and German states laid":
		// a relative "that" before the name that is its clause's subject.
		relative := plainWord(w) == "that" && i+2 < len(words) && capitalised(words[i+2]) &&
			words[i] == strings.ToLower(words[i]) && !strings.ContainsAny(words[i], ",;:")
		if (!articles[plainWord(w)] || w != strings.ToLower(w)) && !relative {
			out = append(out, w)
		}
	}
	return out
}

// dropReferringTail drops a trailing phrase that ends on a word pointing
// back ("made under them", "that ended it") when two words or more are
// left.
func dropReferringTail(words []string) []string {
	n := len(words)
	// "What came of it" asks about the subject; without "of it" it asks
	// nothing.
	if n < 3 || !referringWords[plainWord(words[n-1])] || whWords[plainWord(words[0])] {
		return words
	}
	for k := max(2, n-5); k < n-1; k++ {
		if tailStarts[plainWord(words[k])] {
			return words[:k]
		}
	}
	return words
}

// cutHeading cuts a long heading to at most MaxFacetHeadingWords words:
// before the last cut word (or after the last comma) within the limit
// where what is left does not end on a word that needs more and no list
// of names is split; else at the limit.
func cutHeading(words []string) []string {
	for p := pipeline.MaxFacetHeadingWords; p >= 2; p-- {
		if weakConjunct(words[:p]) {
			continue
		}
		prev, next := words[p-1], words[p]
		comma := strings.HasSuffix(prev, ",")
		if !cutWords[plainWord(next)] && !comma {
			continue
		}
		if danglingEnd(words[:p]) {
			continue
		}
		// "the price of tin plate": the noun needs what follows.
		if plainWord(next) == "of" && relationalNouns[plainWord(prev)] {
			continue
		}
		// "under Arthur, Harrison and Cleveland": a list of names is whole.
		if capitalised(prev) && (comma || plainWord(next) == "and") && p+1 < len(words) &&
			(capitalised(next) || capitalised(words[p+1])) {
			continue
		}
		return words[:p]
	}
	for p := pipeline.MaxFacetHeadingWords; p >= 3; p-- {
		if articles[plainWord(words[p])] {
			return words[:p] // "Whether the United States joined"
		}
	}
	return words[:pipeline.MaxFacetHeadingWords]
}

// completeCut returns a cut heading (cut, of the ask's words) or, when
// the cut left a phrase or clause unfinished (cutUnfinished), the ask in
// headline style if that fits (dropInnerArticles: "How Andrew Johnson
// and Grant judged tenure-of-office laws"), else the cut backed off to an
// earlier cut point of three words or more that finishes what it says
// ("Laboratory Congress had provided and the bureau Taft" → "Laboratory
// Congress had provided"; an infinitive cut from its preposition is
// only written in headline style, see infinitiveCut); a clause opened by "how" whose object is
// what it asks about gives way to the object's heading ("How
// Harrison and McKinley described the inferiority of the merchant
// marine" → "Inferiority of the merchant marine"); the cut itself when
// none works.
func completeCut(words, cut []string) []string {
	if len(cut) >= len(words) {
		return cut
	}
	unfinished := cutUnfinished(words, len(cut))
	if !unfinished && !infinitiveCut(words, len(cut)) {
		return cut
	}
	if short := dropInnerArticles(words); len(short) <= pipeline.MaxFacetHeadingWords {
		return short
	}
	if !unfinished {
		return cut // an infinitive without its preposition still says what it asks
	}
	// "How Harrison and McKinley described the inferiority of the merchant
	// marine": what they described is the heading.
	if plainWord(words[0]) == "how" {
		for v := 2; v < min(len(words)-1, 7); v++ {
			w := plainWord(words[v])
			if (looksFinite(w) || clauseVerbs[w]) && articles[plainWord(words[v+1])] {
				if obj := headingOf(strings.Join(words[v+1:], " ")); obj != "" {
					return strings.Fields(obj)
				}
				break
			}
		}
	}
	for p := len(cut) - 1; p >= 3; p-- {
		if !cutWords[plainWord(words[p])] && !strings.HasSuffix(words[p-1], ",") {
			continue
		}
		if back := trimCut(words[:p]); len(back) >= 3 && !weakConjunct(back) && !cutUnfinished(words, len(back)) {
			return back
		}
	}
	return cut
}

// cutUnfinished reports whether the first n of an ask's words leave what
// they say unfinished: a noun cut from its "of" (needsOf: "the
// inferiority" of the merchant marine, "the killing" of Austrian
// subjects); a clause opened by
// "how", "why", "when", "where" or "whether" cut after its verb, before
// the object ("How Andrew Johnson and Grant judged" the laws); a name
// cut from the verb that follows it ("the bureau Taft" proposed, "no
// American President" could do); a noun cut from the relative clause
// that says which ("the person" who led it).
func cutUnfinished(words []string, n int) bool {
	if n <= 0 || n >= len(words) {
		return false
	}
	last, next := words[n-1], plainWord(words[n])
	lastPlain := plainWord(last)
	lower := last == strings.ToLower(last)
	switch {
	case next == "of" && lower && needsOf(lastPlain):
		return true
	case articles[next] && (looksFinite(lastPlain) || clauseVerbs[lastPlain]) && openClauseWords[plainWord(words[0])]:
		return true
	case lower && looksFinite(lastPlain) && !verbsWanting[lastPlain] && relativeOpened(words[:n-1]) && objectFollows(words, n):
		// "the conflict for which Roosevelt wanted" the Neutrality Act
		// amended, "the dates from which the Porte refused" to recognize
		// naturalization: a relative clause cut after its verb, before
		// its object.
		return true
	case capitalised(last) && (looksFinite(next) || verbsWanting[next]) && !strings.ContainsAny(last, ",;:"):
		return true
	case (next == "who" || next == "whom") && lower && n >= 2 && articles[plainWord(words[n-2])]:
		return true
	case headingPreps[next] && lower && prepVerbs[lastPlain] && n >= 2 && plainWord(words[n-2]) == "to":
		// "the legislation the Presidents proposed to deal" with
		// threatened interruptions: the verb says nothing without it.
		return true
	}
	return false
}

// relativeOpened reports whether words hold a relative word ("which",
// "whom", "whose") after their first.
func relativeOpened(words []string) bool {
	for _, w := range words[min(1, len(words)):] {
		switch plainWord(w) {
		case "which", "whom", "whose":
			return true
		}
	}
	return false
}

// objectFollows reports whether the word after the first n of an ask's
// words opens the object a verb before it wants: an article, or "to"
// before a verb ("refused to recognize"), not a preposition's phrase
// ("raided after the orders").
func objectFollows(words []string, n int) bool {
	next := plainWord(words[n])
	if articles[next] {
		return true
	}
	if next != "to" || n+1 >= len(words) {
		return false
	}
	after := words[n+1]
	return after == strings.ToLower(after) && !articles[plainWord(after)] && !headingPreps[plainWord(after)]
}

// prepVerbs say nothing without the preposition that follows them ("to
// deal with", "to provide for", "to account for").
var prepVerbs = setOf(strings.Fields(`deal provide account look refer respond apply relate belong depend rely insist
	cope dispose compensate care call`))

// needsOf reports whether a noun says little without its "of" phrase:
// the relational nouns, "view", and nouns of an act or a change
// ("killing", "growth"); "programs" of the New Deal, "costs" of the
// elderly, "publicity" of corporate affairs stand alone.
func needsOf(w string) bool {
	if relationalNouns[w] || w == "view" || w == "views" {
		return true
	}
	for _, suffix := range []string{"ness", "ing", "th"} {
		if strings.HasSuffix(w, suffix) && len(w) > len(suffix)+2 {
			return true
		}
	}
	return false
}

// infinitiveCut reports whether the first n of an ask's words end on an
// infinitive cut from its preposition ("the sums appropriated from the
// Treasury to pay" for the service): the ask in headline style is better
// when it fits ("Sums appropriated from Treasury to pay for service"),
// but the cut says what it asks well enough to stand when it does not
// ("What he asked Congress to do" about anarchistic speech).
func infinitiveCut(words []string, n int) bool {
	if n < 3 || n >= len(words) {
		return false
	}
	last := words[n-1]
	return plainWord(words[n-2]) == "to" && last == strings.ToLower(last) && headingPreps[plainWord(words[n])] && !headingPreps[plainWord(last)]
}

// openClauseWords open a heading that is a clause whose verb wants an
// object ("How Grant judged the laws"); "what" and "which" are the
// object themselves.
var openClauseWords = setOf(strings.Fields("how why when where whether"))

// trimCut drops what a cut heading leaves hanging at its end: a relative
// clause that lost its verb ("Date of the act under which the Board" →
// "Date of the act"), a speaker and a verb that wanted a clause after
// them ("Danger Truman said" → "Danger"), and dangling words
// (danglingEnd).
func trimCut(words []string) []string {
	for {
		n := len(words)
		words = trimCutOnce(words)
		if len(words) == n {
			return words
		}
	}
}

func trimCutOnce(words []string) []string {
	if i := openRelative(words); i > 0 {
		words = words[:i]
	}
	// "What Clinton said" is whole: the wh-word is the verb's object.
	if n := len(words); n > 2 && clauseVerbs[plainWord(words[n-1])] && !whWords[plainWord(words[0])] {
		if subjectWords[plainWord(words[n-2])] {
			words = words[:n-2]
		} else if capitalised(words[n-2]) {
			words = words[:n-2]
			for len(words) > 1 && capitalised(words[len(words)-1]) {
				words = words[:len(words)-1] // the rest of a speaker's name ("George W. Bush")
			}
		}
	}
	for len(words) > 1 && danglingEnd(words) {
		words = words[:len(words)-1]
	}
	return words
}

// openRelative returns where a relative clause that has no verb left
// starts (its relative word, or the preposition before it), or 0.
func openRelative(words []string) int {
	for i := len(words) - 1; i >= 1; i-- {
		// "the arrangement for crossing the frontier that Arthur": a
		// clause that names its subject and lost its verb.
		if plainWord(words[i]) == "that" && i+1 < len(words) && !slices.ContainsFunc(words[i+1:], func(w string) bool {
			return !capitalised(w) && !articles[plainWord(w)]
		}) {
			return i
		}
		switch plainWord(words[i]) {
		case "which", "whose", "whom":
			for _, w := range words[i+1:] {
				if looksFinite(plainWord(w)) {
					return 0
				}
			}
			if i > 1 && headingPreps[plainWord(words[i-1])] {
				return i - 1
			}
			return i
		}
	}
	return 0
}

// looksFinite reports whether a word looks like a verb that completes a
// clause: a past form ("sent", "adopted") or a modal or form of "be".
func looksFinite(w string) bool {
	return strings.HasSuffix(w, "ed") || pastForms[w]
}

// danglingEnd reports whether a heading cannot end on its last word
// (badEnds), a preposition after a past verb ("the act Biden asked
// for") and a participle after its subject ("the bureau it created",
// "the law Congress passed") aside.
func danglingEnd(words []string) bool {
	n := len(words)
	last := plainWord(words[n-1])
	if n >= 2 {
		prev := plainWord(words[n-2])
		// "the act Biden asked for", "the canal it agreed to take over".
		if headingPreps[last] && (looksFinite(prev) && !verbsWanting[prev] || n >= 3 && plainWord(words[n-3]) == "to") {
			return false
		}
		// "the trust under which the public domain was held".
		if participles[last] && (subjectWords[prev] || capitalised(words[n-2]) || verbsWanting[prev]) {
			return false
		}
		// "the powers the founders established or intended": a second
		// verb of the clause.
		if participles[last] && (prev == "or" || prev == "and") && n >= 3 && looksFinite(plainWord(words[n-3])) {
			return false
		}
	}
	// "the trust under which the public domain was": the clause lost its
	// verb ("How large the surplus was" is whole).
	if verbsWanting[last] && !whWords[plainWord(words[0])] {
		return true
	}
	return badEnds[last] || headingPreps[last]
}

// headingPreps may not end a heading but after a verb.
var headingPreps = setOf(strings.Fields(`of to for from with in on at by as under into onto along among amongst over about
	after before during between through against until since upon within without toward towards across behind beyond
	around near per via`))

// participles in badEnds that a subject before them makes a finite verb.
var participles = setOf(strings.Fields(`made set given reported named taken held passed cited stated mentioned created
	voted proposed established adopted enacted connected associated related attached devoted dedicated based
	meant intended designed calculated`))

// whWords open a heading that is a question's clause ("What Clinton said").
var whWords = setOf(strings.Fields("what how why when where whether who whom whose which"))

// subjectWords are pronouns that can be a clause's subject.
var subjectWords = setOf(strings.Fields("he she it they we i"))

// clauseVerbs want a clause after them: a heading cut after one says
// nothing.
var clauseVerbs = setOf(strings.Fields(`said says thought believed argued claimed hoped feared warned insisted
	predicted estimated expected declared`))

// pastForms are irregular past forms and the forms of "be" and modals.
var pastForms = setOf(strings.Fields(`was were is are be been had has have did does do made set sent spent paid
	said told took taken gave given held kept left lost won fought brought bought sought thought taught built
	found began begun ran struck led meant put cut shut hit let met read sold stood understood wrote written
	drew drawn grew grown knew known saw seen rose risen fell fallen became come came went gone chose chosen
	can could will would shall should may might must`))

// relationalNouns say little without their "of" phrase.
var relationalNouns = setOf(strings.Fields(`price prices number numbers end state part parts rest size amount amounts
	share value level levels rate rates use effect effects impact start beginning removal kind kinds type types`))

// weakConjunct reports whether a cut heading ends on a conjunct of one
// word that lost the words saying what it is: "... to its recharter and
// the removal" (of the public deposits), "proposals on juries, violence"
// (against civil rights workers).
func weakConjunct(words []string) bool {
	for i := len(words) - 1; i >= 0; i-- {
		if w := plainWord(words[i]); w == "and" || w == "or" {
			rest := words[i+1:]
			return len(rest) == 2 && articles[plainWord(rest[0])]
		}
		if strings.HasSuffix(words[i], ",") {
			return len(words)-i-1 == 1
		}
	}
	return false
}
