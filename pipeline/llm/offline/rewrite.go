package offline

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// The rules that make an extracted sentence stand on its own in a report
// (docs/pipeline.md, "Self-contained sentences"). A report sentence is read
// away from its passage, so:
//
//   - linking words that tie it to the sentence before ("But",
//     "Accordingly,", "Moreover,") go (see dropOpeners);
//   - a sentence that refers back ("This treaty ...", "Such a vessel ...",
//     "It was signed ...") is joined with the sentence it refers to, or not
//     used (see referBack and selfContained);
//   - who said it and when comes from the document's metadata, and what is
//     the speaker's own word (first person), a proposal, an opinion or a
//     claim is quoted and attributed as such rather than stated as fact
//     (see classify and attribute).

// maxJoinedChars bounds a sentence joined with the sentences it refers
// back to; a longer one is not used.
const maxJoinedChars = 520

// maxJoined is how many earlier sentences a sentence may be joined with.
const maxJoined = 2

// discourseOpeners open a sentence by linking it to the one before; the
// report sentence goes without them. Adverbs need their comma ("Still, ..."
// is an opener, "Still more ..." is not).
var discourseOpeners = []string{
	"And ", "But ", "Yet ", "Or ", "Nor ", "So, ", "Also, ", "Also ", "Moreover, ", "Moreover ", "Furthermore, ",
	"However, ", "In addition, ", "Besides, ", "Indeed, ", "Nevertheless, ", "Nonetheless, ", "Still, ",
	"Thus, ", "Thus ", "Hence, ", "Therefore, ", "Accordingly, ", "Accordingly ", "Consequently, ", "Again, ",
	"Further, ", "Finally, ", "Lastly, ", "Meanwhile, ", "In the meantime, ", "At the same time, ",
	"On the other hand, ", "On the contrary, ", "In short, ", "In fact, ", "Of course, ", "Then, ", "Now, ",
	"First, ", "Second, ", "Third, ", "Secondly, ", "Thirdly, ", "Likewise, ", "Similarly, ", "Instead, ",
	"As a result, ", "As a result ", "For this reason, ", "For this reason ", "To this end, ", "In this connection, ",
	"In this regard, ", "In the first place, ", "In the second place, ", "In addition ", "In fact ",
	"So ", "And, ", "But, ", "Therefore ", "Indeed ", "By the way, ",
	// Further list counters and the spoken links of the later addresses
	// ("Fourth, the balancing of the budget ...", "Well, I am glad to
	// report ...", "Too, in Afghanistan, ..."), and the links to an
	// example or a contrast given before.
	"Fourth, ", "Fifth, ", "Sixth, ", "Seventh, ", "Eighth, ", "Ninth, ", "Tenth, ", "Next, ",
	"Well, ", "Look, ", "Yes, ", "Too, ", "You know, ", "Now then, ", "After all, ", "In other words, ",
	"For example, ", "For instance, ", "By contrast, ", "In contrast, ", "By the same token, ",
	// "In addition thereto" is "also" (McKinley, 1898); "In addition"
	// alone before it is no opener (leadsPhrase).
	"In addition thereto, ", "In addition thereto ",
}

// dropOpeners removes the discourse openers at the start of s, repeatedly
// ("And yet, ..."), and upper-cases the first letter of what remains.
func dropOpeners(s string) string {
	for changed := true; changed; {
		changed = false
		for _, o := range discourseOpeners {
			if len(s) > len(o)+1 && strings.EqualFold(s[:len(o)], o) && !leadsPhrase(o, s[len(o):]) {
				s = strings.TrimLeft(s[len(o):], " ,")
				changed = true
			}
		}
	}
	return upperFirst(s)
}

// phraseLeads are the openers that, without their comma, may lead a
// phrase instead, with the word that then follows them: "As a result of
// the efforts ..., negotiations ...", "In addition to the tariff, ...",
// "Thus far only about 13 billion dollars ... has been declared".
var phraseLeads = map[string]string{"As a result ": "of", "In addition ": "to", "Thus ": "far"}

// soLinks are the words after which "So" without its comma links a
// sentence to the one before ("So tonight I propose ...", "So I ask
// Congress ...", "So we have ..."); before others it leads a phrase the
// sentence needs ("So many ships ...", "So long as ...").
var soLinks = setOf(strings.Fields(`i we you tonight today let let's now here here's our my this
	i've i'm i'll we've we're we'll you've you're`))

// leadsPhrase reports whether opener o, followed by rest, leads a phrase
// that the sentence needs rather than linking it to the one before.
func leadsPhrase(o, rest string) bool {
	if o == "So " {
		return !soLinks[strings.ToLower(strings.ReplaceAll(reWord.FindString(rest), "’", "'"))]
	}
	next, ok := phraseLeads[o]
	w := reWord.FindString(rest)
	// "In addition thereto ...": the opener is the whole phrase
	// (discourseOpeners), not "In addition" with "thereto" left over.
	return ok && (strings.EqualFold(w, next) || next == "to" && strings.EqualFold(w, "thereto"))
}

// deicticNouns are the nouns a demonstrative points at the speaker's own
// situation with ("this year", "this Nation", "these times"): the
// attribution says whose and when, so they need no earlier sentence.
var deicticNouns = setOf(strings.Fields(`year years country nation nations government congress session sessions
	day days morning evening afternoon night week weeks month months century decade generation time times
	administration house chamber occasion moment hour address message republic union people land continent
	capital floor hemisphere era age period summer winter spring autumn fall`))

// expletiveVerbs follow an "It" that points at a clause after it ("It is
// estimated that ...", "It was decided to ...") rather than at something
// said before.
var expletiveVerbs = setOf(strings.Fields(`is was has had will would may might can could should must seems seemed
	appears appeared remains remained becomes became`))

var (
	// reWord is a word (letters, digits, apostrophes and inner hyphens).
	reWord = regexp.MustCompile(`[\pL\pN]+(?:['’-][\pL\pN]+)*`)
	// reInnerBack finds words early in a sentence that point back:
	// "such a", "the same", "the said", "the former", "the latter", "the
	// above", "the foregoing", "that same".
	reInnerBack = regexp.MustCompile(`(?i)\b(?:such\s+(?:a|an)|the\s+(?:same|said|former|latter|above|aforesaid|aforementioned|foregoing)|(?:that|this|those|these)\s+same)\b`)
)

// innerBackWords is how many words from the start of a sentence may hold
// a demonstrative that points back ("In view of these facts, ...").
const innerBackWords = 10

// referBack reports whether a sentence leans on what came before it: it
// opens with a pronoun or demonstrative ("It", "They", "This", "Such",
// "These measures"; not an "It" that points ahead, as in "It is estimated
// that", nor "this year", "this Nation"), or holds "such a", "the same",
// "the said", "the former" or "the latter", or a demonstrative with a noun
// that is not the speaker's situation in its first words ("In view of
// these facts").
func referBack(s string) bool {
	words := reWord.FindAllString(s, innerBackWords+2)
	if len(words) == 0 {
		return false
	}
	first := strings.ToLower(words[0])
	next, third := "", ""
	if len(words) > 1 {
		next = strings.ToLower(words[1])
	}
	if len(words) > 2 {
		third = strings.ToLower(words[2])
	}
	switch pronounOf(first) {
	case "such", "they", "them", "he", "she", "him", "its", "their", "his", "her", "hers", "theirs", "thereupon",
		"therein", "thereby", "thereof", "whereupon", "then":
		// "Then" without its comma (which dropOpeners takes) is the time
		// of what was said before: "Then our territory consisted of ...".
		return true
	case "it":
		if first != "it" {
			return false
		}
		if !pointsAheadIt(reWord.FindAllString(s, itClauseWords)) {
			return true
		}
		// An "It" that points ahead ("It is estimated that the receipts
		// derived from this source ...") leaves the rest of the sentence
		// to the checks below.
	case "that", "those":
		// "That country", "those measures" point away from the speaker,
		// at what was said before, and so do "that of" and "those of"
		// standing for a noun said before ("That of the Revolutionary
		// War period was paid by 1835"); "those who", "those of us" point
		// ahead or at the audience.
		switch {
		case next == "who" || next == "which":
		case next == "of" && (third == "us" || third == "you"):
		default:
			return true
		}
	case "this", "these":
		if !demonstrativeOfSituation(words[1:]) {
			return true
		}
	case "the":
		// "The other ...", "The remainder was ...", "The result was
		// ...": the part or the outcome of something named before.
		switch next {
		case "others", "remainder", "rest", "result", "latter", "former":
			return third != "of"
		case "other":
			return third != "day" && third != "side" && third != "hand"
		}
	case "both":
		// "Both are ...", "Both Provinces were formed ...": the two named
		// before; "Both on the Atlantic and Pacific coasts" names them.
		if !containsWord(words[1:], "and") {
			return true
		}
	}
	if prepositions[first] && (next == "that" || next == "such") {
		return true // "In that remote region", "In such cases"
	}
	if reOpensBack.MatchString(s) {
		return true // "By doing so, we can cut the deficit in half", "Since then the growth of Japan ..."
	}
	if speakerLeansBack(first, words) {
		return true // "We honor their contributions, ...", "I told him ..."
	}
	if leadClauseOpeners[first] && leansBackSubject(s, words[1:]) {
		return true // "If it fail here, ...", "If that defense fails, ..."
	}
	if (prepositions[first] || phraseOpeners[first] || timeOpening(s)) && leadPronoun(s) {
		return true // "For the past 7 months, she has done it all ...", "Last May, he commanded ..."
	}
	if (prepositions[first] || phraseOpeners[first] || leadClauseOpeners[first] || timeOpening(s)) && leadDemonstrative(s) {
		return true // "Because when credit is available again, that young family can ..."
	}
	if thatNounBack(s) {
		return true // "My America 2000 strategy will help us reach that goal."
	}
	if theyBeforeAntecedent(reWord.FindAllString(s, theyWords)) {
		return true // "The most important of them is ...", "In this message I will not enumerate them"
	}
	if endsOnDemonstrative(s) {
		return true // "I did not actually hear George Washington say that."
	}
	if loc := reInnerBack.FindStringIndex(s); loc != nil && len(reWord.FindAllString(s[:loc[0]], -1)) < innerBackWords {
		return true
	}
	for i := 1; i < len(words) && i < innerBackWords; i++ {
		switch strings.ToLower(words[i]) {
		case "this", "these", "those":
			if i+1 < len(words) && pointsAtRelative(words[i+1]) {
				continue // "those who till the soil": the clause after says who
			}
			if !demonstrativeOfSituation(words[i+1:]) {
				return true
			}
		}
	}
	return false
}

// endsOnDemonstrative reports whether a sentence ends on a demonstrative
// standing alone ("... say that.", "We need more of this."): what it
// stands for was said before, unless a clause of the sentence itself may
// say it ("Our first obligation is to the most vulnerable -- infants,
// poor mothers -- and my proposed budget recognizes this.").
func endsOnDemonstrative(s string) bool {
	words := reWord.FindAllString(s, -1)
	if len(words) < 2 {
		return false
	}
	switch strings.ToLower(words[len(words)-1]) {
	case "this", "that", "these", "those":
		rest := strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
		if !strings.HasSuffix(strings.ToLower(rest), strings.ToLower(words[len(words)-1])) {
			return false
		}
		for _, sep := range []string{";", " -- ", "—", ", and ", ", but ", ", so ", " and ", " but "} {
			if strings.Contains(rest, sep) {
				return false
			}
		}
		return true
	}
	return false
}

// pointsAtRelative reports whether w, after a demonstrative, opens the
// relative clause that says what it stands for ("those who", "those
// whose", "these which").
func pointsAtRelative(w string) bool {
	switch strings.ToLower(w) {
	case "who", "whom", "whose", "which":
		return true
	}
	return false
}

// itClauseWords is how many of a sentence's first words pointsAheadIt
// reads: the "to" of "for ... to" may come late.
const itClauseWords = 40

// leadPronounWords bounds the opening phrase leadPronoun looks past.
const leadPronounWords = 8

// leadPronoun reports whether the subject after a sentence's opening
// phrase and its comma is a pronoun of the third person, which names
// someone or something said before ("For the past 7 months, she has
// done it all while her husband ..."; "In 1890, they raised the
// duties"); an "it" that points ahead ("In 1890, it was estimated
// that ...") does not.
func leadPronoun(s string) bool {
	comma := strings.IndexByte(s, ',')
	if comma < 0 || len(reWord.FindAllString(s[:comma], -1)) > leadPronounWords {
		return false
	}
	words := reWord.FindAllString(s[comma+1:], itClauseWords)
	if len(words) == 0 {
		return false
	}
	switch first := strings.ToLower(words[0]); pronounOf(first) {
	case "he", "she", "they", "him", "her", "them", "his", "their", "its":
		return true
	case "it":
		return first == "it" && !pointsAheadIt(words)
	}
	return false
}

// timeOpening reports whether a sentence opens with a phrase of time and
// its comma, as a preposition's phrase would: "Last May,", "Two days
// later,", "Five years ago,", "This week,". What follows the comma is
// then the main clause's subject (see leadPronoun).
func timeOpening(s string) bool {
	comma := strings.IndexByte(s, ',')
	if comma < 0 {
		return false
	}
	words := reWord.FindAllString(s[:comma], -1)
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	switch strings.ToLower(words[len(words)-1]) {
	case "ago", "later", "earlier":
		return true
	}
	switch strings.ToLower(words[0]) {
	case "last", "next", "this", "yesterday", "today", "tonight", "recently":
		return len(words) <= 3
	}
	return false
}

// leadDemonstrative reports whether the main clause after a sentence's
// opening phrase or clause and its comma opens with "that" or "those"
// standing for something said before or before its noun ("Because when
// credit is available again, that young family can finally buy a new
// home"; "In 1890, those duties were raised"); "those who" points
// ahead. Unlike leadPronoun it holds after a clause too: a "he" there is
// most often the clause's subject ("When the President signed the bill,
// he said ..."), a "that" with its noun is not.
func leadDemonstrative(s string) bool {
	comma := strings.IndexByte(s, ',')
	if comma < 0 || len(reWord.FindAllString(s[:comma], -1)) > leadPronounWords {
		return false
	}
	words := reWord.FindAllString(s[comma+1:], 2)
	if len(words) < 2 {
		return false
	}
	switch strings.ToLower(words[0]) {
	case "that":
		return !pointsAtRelative(words[1])
	case "those":
		return !pointsAtRelative(words[1]) && !prepositions[strings.ToLower(words[1])]
	}
	return false
}

// reOpensBack finds a sentence opened by a phrase that stands for what was
// said or done before: "By doing so", "In so doing", "Since then", "Until
// then", "After that,", "In response,", "In addition thereto", "Pursuant
// thereto".
var reOpensBack = regexp.MustCompile(`^(?i:(?:by|in) (?:doing so|so doing)|doing so|since then|until then|by then|` +
	`(?:after|before) that,|in response,|in return,|in turn,|` +
	`(?:in addition|pursuant|prior|subsequent|previous|in reply|in answer|in response|according|contrary) thereto\b)`)

// speakerPronounWords is how many words after an opening "I", "We" or
// "You" speakerLeansBack reads.
const speakerPronounWords = 4

// speakerLeansBack reports whether a sentence opened by the speaker or
// the audience ("I", "We", "You") names a third person by a pronoun in its
// first words ("We honor their contributions", "I told him", "I hear
// about them"): nothing before it in the sentence can be what the pronoun
// stands for, so it stands for something said before.
func speakerLeansBack(first string, words []string) bool {
	if pronounOf(first) != "we" && pronounOf(first) != "i" && pronounOf(first) != "you" {
		return false
	}
	for _, w := range words[1:min(len(words), speakerPronounWords+1)] {
		switch strings.ToLower(w) {
		case "their", "them", "its", "his", "her", "him", "they", "he", "she":
			return true
		}
	}
	return false
}

// leadClauseOpeners open a dependent clause that may lead a sentence ("If
// it fail here, ...", "Until it is built, ...", "When they ...").
var leadClauseOpeners = setOf(strings.Fields(`if when whenever until unless because although though while since once
	after before where`))

// leansBackSubject reports whether the subject of a clause opened by one of
// leadClauseOpeners (words are the words after the opener) names something
// said before: a subject pronoun of the third person ("If they must,
// ..."), a possessive the main clause cannot name (see below), an "it"
// that does not point ahead ("If it fail here" but not "When it is
// considered that ..."), or "that" or "those" standing for a thing or
// before its noun ("If that can be settled", "If that defense fails";
// right after the opener it is no relative pronoun; "those who" and "that
// which" point ahead). "This" and "these" are left to the
// check of a sentence's first words (referBack).
func leansBackSubject(s string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch first := strings.ToLower(words[0]); pronounOf(first) {
	case "he", "she", "they":
		return true
	case "his", "her", "their", "its":
		// A possessive may name what the main clause names next ("Since
		// their founding, the colleges have grown"); it cannot when the
		// main clause opens with the speaker, the audience or a pronoun
		// ("Since its passage, my administration has ...", "When their
		// recommendations are delivered, you and I will ...").
		comma := strings.IndexByte(s, ',')
		if comma < 0 {
			return false
		}
		next := strings.ToLower(reWord.FindString(s[comma+1:]))
		return personWords[next] || pronouns[next] || possessives[next]
	case "it":
		return first == "it" && !pointsAheadIt(words)
	case "that", "those":
		return len(words) > 1 && !pointsAtRelative(words[1])
	}
	return false
}

// thatNounBack reports whether a sentence ends on "that" as a
// demonstrative with its noun, which names something said before ("My
// America 2000 strategy will help us reach that goal."). A "that" before
// a verb opens a relative clause ("a policy that works."), and one before
// a clause is a conjunction ("said that the duties ..."). A "that" with
// its noun inside a sentence ("in that respect", "with that nation") is
// left alone: the join or drop it would ask for cost 35 facts over the 60
// used sets (docs/pipeline.md, session 32).
func thatNounBack(s string) bool {
	toks := tokenize(s)
	var words []token
	for _, t := range toks {
		if t.kind == tokWord {
			words = append(words, t)
		}
	}
	for i := 1; i+1 < len(words); i++ {
		if words[i].text != "that" {
			continue
		}
		noun := words[i+1]
		l := noun.lower()
		if noun.capitalised() || pronouns[l] || determiners[l] || quantifiers[l] || auxiliaries[l] || modalVerbs[l] ||
			prepositions[l] || phraseOpeners[l] || strings.HasSuffix(l, "ly") || !wordLike(l) {
			continue
		}
		if i+2 == len(words) && !strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ed") && !strings.HasSuffix(l, "ing") {
			return true
		}
	}
	return false
}

// theyWords is how many of a sentence's first words theyBeforeAntecedent
// reads.
const theyWords = 14

// theyBeforeAntecedent reports whether "they" or "them" comes in a
// sentence's first words (words) before any word it could stand for: a
// plural ("the duties ... them"), a collective or indefinite noun
// ("Congress ... they", "any American ... they"), or two things joined by
// "and" or "both". With none before it ("The most important of them is
// the organization of the militia", "In this message I will not enumerate
// them", "My plan will save them more than $2,000") the pronoun stands
// for what was said before. "Their" is left alone: it often names what
// comes after it ("Lest their people learn ..., the communists have
// walled off their world").
func theyBeforeAntecedent(words []string) bool {
	for _, w := range words {
		l := strings.ToLower(w)
		switch pronounOf(l) {
		case "they", "them":
			return true
		}
		if theyAntecedents[l] || pluralLike(l) {
			return false
		}
	}
	return false
}

// theyAntecedents are words "they" or "them" may stand for that do not
// look plural: irregular plurals, collective and indefinite nouns, and
// the words that join two things.
var theyAntecedents = setOf(strings.Fields(`men women children people cattle police folk folks data personnel
	congress government legislature administration senate house court committee board commission army navy
	enemy union party company family parent public nation country state everyone anyone someone somebody
	anybody everybody nobody no-one one any every each either neither and both`))

// pluralLike reports whether a lower-case word looks like a plural noun:
// four letters or more ending in "s", but not in "ss", "us", "is" or
// "ous", no possessive "'s", and none of the common words that end so
// ("always", "perhaps", "towards").
func pluralLike(l string) bool {
	if len(l) < 4 || !strings.HasSuffix(l, "s") || strings.HasSuffix(l, "'s") || strings.HasSuffix(l, "’s") {
		return false
	}
	for _, end := range []string{"ss", "us", "is", "ous"} {
		if strings.HasSuffix(l, end) {
			return false
		}
	}
	return !notPlurals[l]
}

// notPlurals end in "s" but name no plural thing.
var notPlurals = setOf(strings.Fields(`always perhaps sometimes besides towards afterwards upwards downwards
	forwards backwards whereas does ours yours hers theirs news`))

// pronounOf returns a word without the contraction that may end it
// ("they're", "he'd", "she's" → "they", "he", "she"), so that the
// pronoun is found either way.
func pronounOf(w string) string {
	for _, c := range []string{"'re", "'ve", "'d", "'s", "'ll", "’re", "’ve", "’d", "’s", "’ll"} {
		if b, ok := strings.CutSuffix(w, c); ok && b != "" {
			return b
		}
	}
	return w
}

// containsWord reports whether words hold w, in any case.
func containsWord(words []string, w string) bool {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// pointsAheadIt reports whether a sentence's opening "It" (words are the
// sentence's first words) points at a clause after it rather than at
// something said before: "It is estimated that ...", "It was decided to
// ...", "It has been heretofore known to Congress that ...", "It must add
// to your concern to be informed that ...". A "that" followed by a verb
// opens a relative clause, not the clause "It" stands for ("It is the
// first exposition of its kind that has ever been held"); "It" with a
// verb of its own ("It has undertaken this year to administer relief",
// "It will strengthen our efforts to ban ...") is something named before.
func pointsAheadIt(words []string) bool {
	if len(words) < 2 {
		return false
	}
	verb := strings.ToLower(words[1])
	if !expletiveVerbs[verb] {
		return false
	}
	i := 2
	for i < len(words) && itAdverb(strings.ToLower(words[i])) {
		i++
	}
	next := ""
	if i < len(words) {
		next = strings.ToLower(words[i])
	}
	thatOnly := false // only a "that" clause shows that "It" points ahead
	switch {
	case (verb == "has" || verb == "had") && next != "been":
		return false // "It has undertaken ...": a perfect of its own
	case modalVerbs[verb] && !copulaAfterModal[next]:
		thatOnly = true // "It will strengthen ...", unless "It must add ... that"
	case modalVerbs[verb] && next == "have" && !(i+1 < len(words) && strings.EqualFold(words[i+1], "been")):
		thatOnly = true // "It would have a singular purpose: to ...": a verb of its own, not "It would have been"
	}
	rest := words[2:min(len(words), 10)]
	for k, w := range rest {
		switch strings.ToLower(w) {
		case "that":
			if k+1 < len(rest) && relativeAfterThat[strings.ToLower(rest[k+1])] {
				continue // "... of its kind that has ever been held"
			}
			if thatOnly && k == i-1 {
				continue // right after the verb, its object's: "It will reduce that danger"
			}
			return true
		case "whether":
			if !thatOnly {
				return true
			}
		case "to":
			// "to report that", "to build": an infinitive the "It"
			// stands for; "a protection to the wage earners", "due to
			// Congress": a preposition before its noun.
			if !thatOnly && !(k+1 < len(rest) && nounOpener(rest[k+1])) {
				return true
			}
		case "for":
			// "It is important for the Congress to act", "It has been
			// found necessary for the protection of our commerce to
			// maintain ...": the "for" opens the clause only with its
			// "to" after it.
			if !thatOnly && containsWord(words[2+k+1:], "to") {
				return true
			}
		}
	}
	return false
}

// nounOpener reports whether a word after "to" opens a noun phrase rather
// than an infinitive: an article, a determiner, a possessive, a number or
// a capitalised name.
func nounOpener(w string) bool {
	l := strings.ToLower(w)
	return determiners[l] || possessives[l] || numberWord(l) || quantifiers[l] || startsUpper(w)
}

// quantifiers open a noun phrase as determiners do.
var quantifiers = setOf(strings.Fields(`these those that every each all any some such no both many several`))

// itAdverb reports whether a word between "It" and its verb's next part
// is an adverb ("It has already ...", "It is now well ascertained",
// "It would materially add ...").
func itAdverb(w string) bool {
	switch w {
	case "also", "now", "already", "not", "never", "ever", "still", "thus", "therefore", "then", "further",
		"long", "just", "often", "always", "heretofore", "hitherto", "indeed", "quite", "well", "no", "doubt":
		return true
	}
	return strings.HasSuffix(w, "ly") && len(w) > 4
}

var (
	// modalVerbs are the verbs of expletiveVerbs that take another verb.
	modalVerbs = setOf(strings.Fields(`will would may might can could should must`))
	// copulaAfterModal are the verbs after a modal with which "It" may
	// still point ahead ("It will be necessary to ...", "It may seem that").
	copulaAfterModal = setOf(strings.Fields(`be have seem appear become remain`))
	// relativeAfterThat are the words after which a "that" is a relative
	// pronoun with its verb ("a policy that can help").
	relativeAfterThat = setOf(strings.Fields(`has have had is are was were can could will would may might shall should must does did`))
)

// demonstrativeOfSituation reports whether the words after a demonstrative
// name the speaker's situation ("year", "great Nation", "Congress"): the
// next word is one of deicticNouns, or the one after an adjective of
// situationAdjectives is.
func demonstrativeOfSituation(after []string) bool {
	switch {
	case len(after) == 0:
		return false
	case deicticNouns[strings.ToLower(after[0])]:
		return true
	case len(after) > 1 && situationAdjectives[strings.ToLower(after[0])]:
		return deicticNouns[strings.ToLower(after[1])]
	}
	return false
}

// situationAdjectives may stand between a demonstrative and a noun of the
// speaker's situation ("this great Nation", "this present session").
var situationAdjectives = setOf(strings.Fields(`great present coming past last next new whole critical historic
	troubled fiscal current same entire free mighty`))

// rePointsAhead finds a sentence that announces what follows instead of
// saying it: "Two features of the new tariff act call for special
// reference.", "The results are as follows:", "I submit the following
// recommendations.", "In the present section I shall indicate the
// Federal outlays ...", "I shall discuss in detail the new concepts ..."
// ("the following year" is a time, not an announcement.)
var (
	rePointsAhead = regexp.MustCompile(`(?i)\b(?:as follows|calls? for special|deserves? special|call special attention)\b|:\s*$|` +
		`\b(?:I|we) (?:shall|will|now) (?:now |first |briefly |later )?(?:indicate|discuss|outline|describe|review|summarize|set forth|turn to|take up)\b|` +
		`\bin (?:the|this) (?:present |next |following )?section\b`)
	reTheFollowing = regexp.MustCompile(`(?i)\bthe following\s+([a-z]+)`)
	followingTimes = setOf(strings.Fields(`year years day days month months week weeks session spring summer autumn fall
		winter morning evening night decade century term`))
)

// pointsAheadWords are the words rePointsAhead and reTheFollowing need, in
// lower case: a sentence holding none of them (nor a colon, for `:\s*$`)
// matches neither, and most sentences hold none. The expressions, slow on
// long sentences, then need not run.
var pointsAheadWords = [][]byte{[]byte("follow"), []byte("special"), []byte("section"),
	[]byte("i shall "), []byte("we shall "), []byte("i will "), []byte("we will "), []byte("i now "), []byte("we now ")}

// mayPointAhead reports whether s may match rePointsAhead or
// reTheFollowing: it holds a colon or one of pointsAheadWords, in any case.
// The two letters outside ASCII that (?i) matches with ASCII ones ("ſ" for
// s, the Kelvin sign for k) leave the answer to the expressions.
func mayPointAhead(s string) bool {
	if strings.ContainsAny(s, ":ſ\u212a") {
		return true
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	for _, w := range pointsAheadWords {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

// pointsAhead reports whether a sentence announces what follows it rather
// than saying anything itself.
func pointsAhead(s string) bool {
	s = strings.TrimSpace(s)
	if !mayPointAhead(s) {
		return false
	}
	if rePointsAhead.MatchString(s) {
		return true
	}
	for _, m := range reTheFollowing.FindAllStringSubmatch(s, -1) {
		if !followingTimes[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}

// stance is how a sentence holds what it says.
type stance int

const (
	// stanceFact reports something in the third person, as a fact.
	stanceFact stance = iota
	// stanceSpeaker is the speaker's own account, in the first or second
	// person ("I have appointed ...", "We were told ...").
	stanceSpeaker
	// stanceProposal recommends, proposes or asks for something ("I
	// recommend ...", "Congress should ...", a proposed text that "shall").
	stanceProposal
	// stanceOpinion states a belief, a hope or a judgement ("I believe
	// ...", "it is doubtful", "a most deplorable incident").
	stanceOpinion
	// stanceReported tells what others claimed or predicted ("It was
	// predicted that ...", "its advocates insisted ...").
	stanceReported
)

var (
	// Word lists of classify, matched on lower-case words.
	personWords   = setOf(strings.Fields(`i me my mine myself we our ours ourselves you your yours yourself yourselves`))
	proposalWords = setOf(strings.Fields(`recommend recommends recommended recommending recommendation recommendations
		propose proposes proposing suggest suggests suggesting urge urges urging request requests requesting
		ask asking invite invites invited`))
	normativeWords = setOf(strings.Fields(`should ought must shall`))
	opinionWords   = setOf(strings.Fields(`believe believes believed think thinks trust hope hopes hoped
		feel feels doubt doubtful convinced conviction opinion judgment judgement confident regret regrets
		fear fears deplore undoubtedly doubtless perhaps probably
		deplorable discreditable abominable hideous shameful disgraceful lamentable outrageous intolerable
		reprehensible iniquitous infamous atrocious unjust unwise`))
	reportedWords = setOf(strings.Fields(`claimed claim claims alleged allege alleges predicted prophesied promised
		assured insisted contended argued asserted rumored rumoured charged`))
	// romanNumeralBefore are the words after which "I" is a numeral
	// ("World War I", "Title I").
	romanNumeralBefore = setOf(strings.Fields(`war title part section chapter article phase class act volume book grade`))
)

// classify tells how a sentence holds what it says (see stance). A
// proposal outranks an opinion, which outranks the speaker's own account
// and a claim of others.
func classify(s string) stance {
	locs := reWord.FindAllStringIndex(s, -1)
	words := make([]string, len(locs))
	// clauseOpens[k]: a comma, semicolon or colon stands before word k.
	clauseOpens := make([]bool, len(locs))
	for k, l := range locs {
		words[k] = s[l[0]:l[1]]
		clauseOpens[k] = k > 0 && strings.ContainsAny(s[locs[k-1][1]:l[0]], ",;:")
	}
	if exhortation(words) {
		return stanceProposal
	}
	person, proposal, normative, opinion, reported, mentioned, speaks := false, false, false, false, false, false, false
	for i, w := range words {
		l := strings.ToLower(w)
		// A pronoun's contraction is the pronoun: "we've", "I'm",
		// "you're".
		bare := bareWord(w)
		pronoun := strings.ToLower(bare)
		if p, sp := dashedSpeaker(w); p {
			// "Berlin-our stand", "Russia-we're pursuing": a dash the
			// text wrote as a hyphen joins the pronoun to the word before.
			person, speaks = true, speaks || sp
		}
		switch {
		case pronoun == "i":
			// "I" in capitals is the speaker, except as a numeral ("World
			// War I", "Title I"; not "of the war I am constrained to").
			if bare == "I" && !(i > 0 && romanNumeralBefore[strings.ToLower(words[i-1])] && startsUpper(words[i-1])) {
				person, speaks = true, true
			}
		case pronoun == "we" || (l == "me" || l == "us") && i > 0 && strings.ToLower(words[i-1]) == "by":
			// "we", and the agent of a passive: "as recommended by me".
			person, speaks = true, true
		case l == "us":
			// "US" in capitals is the United States.
			if w != "US" {
				person = true
			}
		case personWords[pronoun]:
			person = true
		case l == "need" && speakerBefore(words, i) && !(i+1 < len(words) && strings.EqualFold(words[i+1], "not")) &&
			speakerOpensClause(words, clauseOpens, i):
			// "We need to continue price supports ...", "We need a
			// system of prepaid medical insurance": the speaker's call;
			// "We need not fear" is none, nor a relative clause ("the
			// measures we need to take", "the energy we need").
			proposal = true
		case (l == "let" && i+1 < len(words) && strings.EqualFold(words[i+1], "us") || l == "let's" || l == "let’s") && clauseOpens[i]:
			// "As we move toward the celebration ..., let us press
			// vigorously on": the call opens a clause of its own.
			proposal = true
		case (l == "advocate" || l == "favor" || l == "favour") && speakerBefore(words, i):
			// "I advocate the immediate admission of New Mexico and
			// Arizona as States", "We favor ...": the speaker's own
			// proposal; "advocates of free trade" is none.
			proposal = true
		case l == "call" && i+1 < len(words) && (strings.EqualFold(words[i+1], "on") || strings.EqualFold(words[i+1], "upon")) &&
			speakerBefore(words, i):
			// "I call on Congress to pass ...", "Tonight, I call upon
			// parents to ...".
			proposal = true
		case proposalWords[l]:
			if mentionsProposal(words, i) {
				mentioned = true
			} else {
				proposal = true
			}
		case normativeWords[l]:
			if !instrumentContent(words, i) && !(i == 0 && l == "should") && !mustHaveBeen(words, i) &&
				!conditionalModal(words, clauseOpens, i) && !futureShall(words, i) && !judgedSubjunctive(words, i) {
				// Not a law's or a treaty's terms ("The act provides that
				// the militia shall ..."), nor a condition ("Should the
				// war be continued, ...", "if the war should continue",
				// "until Congress shall provide"), nor the speaker's
				// future ("We shall continue to ...").
				normative = true
			}
		case opinionWords[l]:
			if !heldViews[l] || heldBySpeaker(words, i) {
				// Not the "Tobacco Trust", "public opinion", "the
				// conviction of a Senator" or "the HOPE scholarship".
				opinion = true
			}
		case reportedWords[l]:
			if !claimNoun(words, i) {
				reported = true
			}
		}
	}
	switch {
	case proposal || normative || mentioned && speaks:
		// The speaker's own proposal made before ("In my last message I
		// recommended ...") is still his proposal.
		return stanceProposal
	case opinion:
		return stanceOpinion
	case reported:
		return stanceReported
	case person:
		return stanceSpeaker
	}
	return stanceFact
}

// heldViews are the words of opinionWords that as often name a thing as
// a view the speaker holds: a trust, a conviction in court, public
// opinion, a message of hope, the fear of war. They count only as
// heldBySpeaker tells.
var heldViews = setOf(strings.Fields(`trust opinion conviction judgment judgement hope hopes fear fears doubt regret`))

// heldBySpeaker reports whether the view word at i is the speaker's: within
// heldReach words after "I" or "we" ("I trust", "we fear", "I do not
// doubt"; not "I would again express a most decided opinion", whose "I"
// stands seven words before), after "my" or "our" with at most one word
// between ("in my opinion", "our earnest hope"), after "no" or "without"
// ("no doubt"), or before "that" ("the conviction that"). A word in
// capitals is a name ("the HOPE scholarship").
func heldBySpeaker(words []string, i int) bool {
	if w := words[i]; len(w) > 1 && strings.ToUpper(w) == w {
		return false
	}
	for k := i - 1; k >= 0 && k >= i-heldReach; k-- {
		switch l := strings.ToLower(words[k]); {
		case words[k] == "I" || l == "we":
			return true
		case (l == "my" || l == "our") && i-k <= 2:
			return true
		case (l == "no" || l == "without") && k == i-1 && strings.HasPrefix(strings.ToLower(words[i]), "doubt"):
			return true // "no doubt", "without doubt": the speaker's judgement
		}
	}
	return i+1 < len(words) && strings.ToLower(words[i+1]) == "that"
}

// heldReach is how many words before a view word the "I" or "we" who
// holds it may be.
const heldReach = 5

// speakerOpensClause reports whether the "I" or "we" before the word at
// i (see speakerBefore) opens its clause: it is the sentence's first
// word, or follows a comma, semicolon or colon, or a word that opens a
// clause ("and we need ...", "Today we need ...", "I believe that we
// need ..."). After a noun it opens a relative clause instead ("the
// measures we need to take").
func speakerOpensClause(words []string, clauseOpens []bool, i int) bool {
	k := i - 1
	for k >= 0 {
		if l := strings.ToLower(words[k]); l == "i" || l == "we" {
			break
		}
		k--
	}
	if k <= 0 || clauseOpens[k] {
		return true
	}
	return clauseLeads[strings.ToLower(words[k-1])]
}

// clauseLeads are the words after which a pronoun opens a clause. A
// clause of condition or time ("if we need ...", "when we need ...")
// is none: it asks for nothing.
var clauseLeads = setOf(strings.Fields(`that and but or so now today tonight also yet then therefore
	thus here still`))

// speakerBefore reports whether the word at i follows "I" or "we", an
// adverb or two aside ("I confidently trust").
func speakerBefore(words []string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		switch l := strings.ToLower(words[k]); {
		case l == "i" || l == "we":
			return true
		case !strings.HasSuffix(l, "ly") && l != "also" && l != "still" && l != "all":
			return false
		}
	}
	return false
}

// claimNoun reports whether "claim", "claims" or "charged" at i names a
// thing, not what someone asserted: a claim for damages ("the claims of
// two citizens", "a claims convention"), an officer "charged with" a
// duty. Asserting takes "that" or "to" after it ("claimed that prices
// would fall", "claims to be"); the past forms are always verbs.
func claimNoun(words []string, i int) bool {
	l := strings.ToLower(words[i])
	if l != "claim" && l != "claims" && l != "charged" {
		return false
	}
	if i+1 >= len(words) {
		return true
	}
	next := strings.ToLower(words[i+1])
	return next != "that" && next != "to"
}

// instrumentWords are the verbs and nouns by which a law, treaty or order
// states its terms in a that-clause ("provides that", "it was stipulated
// that", "an act declaring that", "the requirement ... that").
var instrumentWords = setOf(strings.Fields(`provide provides provided providing stipulate stipulates stipulated
	stipulating declare declares declared declaring agreed enact enacts enacted ordain ordains ordained
	decree decrees decreed prescribe prescribes prescribed requirement requirements provision provisions
	stipulation stipulations`))

// mustHaveBeen reports whether the modal at i infers, or says what ought
// to have happened, rather than calls for something: "must have been",
// "must have passed", "the debt should have been reduced by $518,361,806.28",
// "ought to have been paid"; or tells what will have happened by then
// ("After Congress shall have declared war"). "We must have a space
// station" calls for one.
func mustHaveBeen(words []string, i int) bool {
	l := strings.ToLower(words[i])
	if l != "must" && l != "should" && l != "ought" && l != "shall" {
		return false
	}
	j := i + 1
	if l == "ought" && j < len(words) && strings.ToLower(words[j]) == "to" {
		j++
	}
	if j+1 >= len(words) || strings.ToLower(words[j]) != "have" {
		return false
	}
	next := strings.ToLower(strings.TrimRight(words[j+1], ",;:."))
	return next == "been" || strings.HasSuffix(next, "ed")
}

// dashedSpeaker reports whether a word joined by hyphens holds the
// speaker or the audience after its first part ("Berlin-our",
// "expenditures-I", "they-not we-will" gives "we-will"), as a text that
// wrote its dashes as hyphens joins them; speaks is set for "I" and "we".
// A word with a digit ("I-95") holds none.
func dashedSpeaker(w string) (person, speaks bool) {
	if !strings.Contains(w, "-") || strings.ContainsAny(w, "0123456789") {
		return false, false
	}
	parts := strings.Split(w, "-")
	for k, part := range parts {
		bare := bareWord(part)
		pronoun := strings.ToLower(bare)
		switch {
		case k == 0 && pronoun != "we" && bare != "I":
			// "my-" opens a compound of its own ("self-government" has
			// no pronoun; "we-will" does).
		case bare == "I" || pronoun == "we":
			return true, true
		case personWords[pronoun] && pronoun != "i":
			person = true
		}
	}
	return person, false
}

// whenOfTime are the words before a "when" that names the time for what
// the speaker proposes ("The time has come when the Government should
// ...").
var whenOfTime = setOf(strings.Fields("come time day moment hour now"))

// conditionalModal reports whether "should" or "shall" at i is in a
// condition or a clause of time, which ask for nothing: "In case prizes
// should be made of American vessels, ...", "if the war should
// continue", "until legislation shall otherwise provide", "as soon as the
// Congress shall provide"; or "should" in an open question ("to decide
// whether a removal should be made", not the speaker's "I submit whether
// revenues should not be increased"). The clause's opening word (if,
// unless, lest, in case, whether; for "shall" also until, till, after,
// before, when, whenever, as soon as; for "should" also until, till, after
// and a "when" that is no time for a proposal, whenOfTime) stands before
// the modal in its clause (no comma, semicolon or colon between:
// clauseOpens), within conditionReach words.
func conditionalModal(words []string, clauseOpens []bool, i int) bool {
	modal := strings.ToLower(words[i])
	if modal != "should" && modal != "shall" || shallHaveTo(words, i) {
		return false
	}
	for j := i - 1; j >= 0 && i-j <= conditionReach; j-- {
		w := strings.ToLower(words[j])
		if clauseOpens[j+1] {
			return false
		}
		switch {
		case w == "if" || w == "unless" || w == "lest":
			return true
		case w == "case" && j > 0 && strings.ToLower(words[j-1]) == "in":
			return true
		case w == "whether" && modal == "should":
			// "I submit whether ...", "we ask whether ...": the speaker
			// puts the question as a proposal.
			return !(j >= 2 && speakerBefore(words, j-1))
		case modal == "shall" && timeConjunctions[w]:
			return true
		case modal == "should" && (w == "until" || w == "till" || w == "after"):
			// "until the Congress should enact a suitable government": a
			// future in the past, as in a report of what was arranged.
			return true
		case modal == "should" && w == "when" && !(j > 0 && whenOfTime[strings.ToLower(words[j-1])]):
			// "authorized, when he should receive satisfactory
			// information"; "The time has come when ... should" proposes.
			return true
		case modal == "shall" && w == "soon" && j > 0 && strings.ToLower(words[j-1]) == "as":
			return true
		}
	}
	return false
}

// judgements are the adjectives of "It is ... that ..." that judge what
// the clause after them says happens, whose "should" is no call to act:
// "It is discreditable to us as a people that there should be difficulty
// in convicting murderers", "It is strange that any one should doubt".
var judgements = setOf(strings.Fields(`discreditable deplorable lamentable regrettable unfortunate strange
	remarkable surprising singular shameful disgraceful intolerable monstrous absurd fortunate gratifying
	natural extraordinary curious`))

// judgedSubjunctive reports whether the modal at i is the "should" of a
// clause a judgement introduces: "it" and a form of "be" open the
// sentence, a judgements adjective follows within judgementReach words,
// and "that" stands between it and the modal.
func judgedSubjunctive(words []string, i int) bool {
	if strings.ToLower(words[i]) != "should" || i < 4 {
		return false
	}
	if strings.ToLower(words[0]) != "it" {
		return false
	}
	switch strings.ToLower(words[1]) {
	case "is", "was", "seems", "seemed", "would", "were":
	default:
		return false
	}
	adj := -1
	for k := 2; k < i && k <= 1+judgementReach; k++ {
		if judgements[strings.ToLower(words[k])] {
			adj = k
			break
		}
	}
	if adj < 0 {
		return false
	}
	for k := adj + 1; k < i; k++ {
		if strings.ToLower(words[k]) == "that" {
			return true
		}
	}
	return false
}

// judgementReach is how many words after "It is" a judgement may stand
// ("It would indeed be most unfortunate that ...").
const judgementReach = 5

// shallHaveTo reports whether the modal at i is "shall" of "shall have
// to", a necessity wherever it stands ("If we expect to maintain a steady
// economy we shall have to maintain price and rent control").
func shallHaveTo(words []string, i int) bool {
	return strings.ToLower(words[i]) == "shall" && i+2 < len(words) &&
		strings.ToLower(words[i+1]) == "have" && strings.ToLower(words[i+2]) == "to"
}

// timeConjunctions open a clause of time, in which an old "shall" is a
// future: "until the issue of our negotiations shall be known".
var timeConjunctions = setOf(strings.Fields(`until till after before when whenever whensoever`))

// futureShall reports whether "shall" at i is the speaker's own future,
// as "will" is: "We shall continue to give our wholehearted support",
// "I shall promptly submit it", "nor shall I return to slavery any
// person". "We shall have to maintain price control" still calls for it.
func futureShall(words []string, i int) bool {
	if strings.ToLower(words[i]) != "shall" || shallHaveTo(words, i) {
		return false
	}
	if i+1 < len(words) {
		if next := strings.ToLower(words[i+1]); next == "i" || next == "we" {
			// "nor shall I", "shall we": inverted after "nor" only; "Shall
			// we ...?" asks.
			return i > 0 && strings.ToLower(words[i-1]) == "nor"
		}
	}
	return speakerBefore(words, i)
}

// conditionReach is how many words before a "should" its condition's
// opening word may be.
const conditionReach = 10

// instrumentFillers may stand between such a verb and its "that" ("declares
// in substance that").
var instrumentFillers = setOf(strings.Fields(`in effect substance expressly also further substantially`))

// instrumentContent reports whether the modal at i of a sentence's words
// ("shall", "should") is in the terms of a law, treaty or order the
// sentence reports: its nearest "that" before it follows one of
// instrumentWords ("The act of May 12, 1820 provides that the system of
// tactics ... shall be extended to the militia"). Such a modal is the
// instrument's, not the speaker's call; "To provide by amendment that
// ... shall" and "require that ... should" stay proposals.
func instrumentContent(words []string, i int) bool {
	for j := i - 1; j > 0 && i-j <= instrumentReach; j-- {
		if strings.ToLower(words[j]) != "that" {
			continue
		}
		for k := j - 1; k >= 0 && j-k <= instrumentGap; k-- {
			w := strings.ToLower(words[k])
			// Between the verb and its "that": fillers ("declares in
			// substance that"), or an agent ("it was declared by the
			// French Government that").
			between := j-k-1 <= 3 && allFillers(words[k+1:j]) || k+2 < j && strings.EqualFold(words[k+1], "by")
			if !between {
				continue
			}
			if instrumentWords[w] {
				return k == 0 || strings.ToLower(words[k-1]) != "to" // "to provide that" proposes
			}
			if (proposalWords[w] || w == "proposed" || w == "suggested") && mentionsProposal(words, k) {
				return true // "It has been proposed that ... should": another's proposal
			}
		}
		return false
	}
	return false
}

// instrumentReach is how many words before a modal its "that" may be,
// instrumentGap how many before the "that" its verb.
const (
	instrumentReach = 30
	instrumentGap   = 7
)

// allFillers reports whether every word of ws is one of instrumentFillers.
func allFillers(ws []string) bool {
	for _, w := range ws {
		if !instrumentFillers[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// mentionsProposal reports whether the proposal word at i of a
// sentence's words tells of a proposal made before, not one the sentence
// makes: a past form that no present "be" makes passive ("the Swiss
// Government invited the powers ...", "The Secretary of the Navy has
// recommended ...", "was recommended by the commission"; not "It is
// recommended that ...", "will be recommended"), a present form of the
// third person ("The Secretary recommends ..."), or a request named as a
// thing ("at the request of this Government", "his recommendation").
// Such a sentence reports what others proposed, unless it proposes
// something too or the proposal was the speaker's ("In my last message I
// recommended ...": see classify).
func mentionsProposal(words []string, i int) bool {
	l := strings.ToLower(words[i])
	prev, k := "", i-1
	for ; k >= 0; k-- {
		if prev = strings.ToLower(words[k]); !itAdverb(prev) {
			break // "is therefore recommended": the "be" before the adverbs
		}
	}
	switch {
	case strings.HasSuffix(l, "ed"):
		if prev == "be" {
			// "will be recommended" is the speaker's; "are to be
			// invited" tells of another's plan.
			return k == 0 || !modalVerbs[strings.ToLower(words[k-1])]
		}
		return !presentBe[prev]
	case strings.HasSuffix(l, "ing"):
		// "bills proposing to grant ...": what the bills propose; the
		// word before is a plural noun in lower case (words[k] == prev),
		// not "are", "us" or a name.
		if k >= 0 && words[k] == prev && strings.HasSuffix(prev, "s") && !auxiliaries[prev] &&
			!pronouns[prev] && !prepositions[prev] && !itAdverb(prev) {
			return true
		}
		// "The people of Porto Rico are not asking for charity": others
		// asking, after their "be"; the speaker's own is "I am asking",
		// "we are urging", "I'm again recommending".
		if k >= 0 && (presentBe[prev] || prev == "was" || prev == "were" || prev == "not") {
			return !speakerProgressive(words, k)
		}
		return false
	case thirdPersonProposals[l]:
		// "The Secretary also recommends that ...", "The Governor of
		// Hawaii recommends legislation ...": a third person's proposal
		// (the speaker says "I recommend").
		return true
	case l == "request" || l == "requests" || l == "recommendation" || l == "recommendations":
		// "My recommendations ... were submitted" recalls the speaker's
		// own. An adjective may stand between ("at the urgent request of
		// that government").
		if k > 0 && requestAdjective(words[k]) {
			prev = strings.ToLower(words[k-1])
		}
		return (determiners[prev] || possessives[prev] || prev == "that" || prev == "these" || prev == "those") &&
			prev != "my" && prev != "our"
	}
	return false
}

// speakerProgressive reports whether the "be" (or "not") at k, before a
// proposal word in -ing, is the speaker's: "I", "we" or their
// contraction up to two words before it ("I am asking", "we are not
// proposing", "I'm urging").
func speakerProgressive(words []string, k int) bool {
	for j := k; j >= 0 && j >= k-2; j-- {
		switch l := strings.ToLower(bareWord(words[j])); l {
		case "i", "we":
			return true
		}
	}
	return false
}

// requestAdjective reports whether w may qualify a request named as a
// thing ("the urgent request", "the formal request"): a word in lower case
// that is no function word, verb form or number.
func requestAdjective(w string) bool {
	l := strings.ToLower(w)
	if w != l || determiners[l] || possessives[l] || prepositions[l] || auxiliaries[l] || modalVerbs[l] ||
		pronouns[l] || proposalWords[l] || numberWord(l) || l == "that" || l == "these" || l == "those" {
		return false
	}
	return !strings.HasSuffix(l, "ed") && !strings.HasSuffix(l, "ing") && !strings.HasSuffix(l, "s")
}

// thirdPersonProposals are the present forms of proposalWords that only a
// third person takes ("requests" is left out: it is as often a noun).
var thirdPersonProposals = setOf(strings.Fields(`recommends proposes suggests urges invites`))

// presentBe are the forms of "be" that make a past participle after them
// a present passive: the speaker's own proposal ("It is recommended that
// ..."); "be" does after a modal (mentionsProposal).
var presentBe = setOf(strings.Fields(`is are being am`))

// exhortation reports whether a sentence (its words) calls on its
// hearers to act, as a proposal does: "Let us fund new technologies
// ...", "Let's ...", "Let all Americans affirm ...", "Let this be our
// national goal", "The time has come to ..." (timeToAct). "Let me ..." is
// the speaker's own account ("Let me be clear: ...").
func exhortation(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch strings.ToLower(words[0]) {
	case "let's", "let’s":
		return true
	case "let":
		return len(words) > 1 && strings.ToLower(words[1]) != "me"
	}
	return timeToAct(words) || imperative(words)
}

// timeToAct reports whether a sentence opens by saying the time has come
// to act ("The time has come to resume ...", "It's time to put strict
// limits on ...", "Now is the time to start ..."), a call for what
// follows.
func timeToAct(words []string) bool {
	lower := make([]string, 0, 5)
	for _, w := range words[:min(len(words), 5)] {
		lower = append(lower, strings.ReplaceAll(strings.ToLower(w), "’", "'"))
	}
	opening := strings.Join(lower, " ")
	for _, p := range []string{"the time has come", "the time is come", "it is time to", "it is time for", "it is high time",
		"it's time to", "it's time for", "it's high time", "now is the time", "this is the time to"} {
		if strings.HasPrefix(opening+" ", p+" ") {
			return true
		}
	}
	return false
}

// imperativeVerbs are verbs that open a sentence as a command to its
// hearers ("Send me a bill ...", "Give them the resources ...", "Extend
// the tuition tax credit ...") when an object follows them at once (see
// imperative). Not "allow" or "permit" ("Allow me to call your
// attention ..." is the speaker's own), nor "look", "think", "consider",
// "imagine" or "tell", which open an argument as often ("Tell it to the
// small businesses burdened by ...").
var imperativeVerbs = setOf(strings.Fields(`send give pass make extend reduce get put keep take bring
	join enact adopt approve repeal raise cut restore protect strengthen expand fund finish build invest
	provide grant end stop create double increase lower remember help support show stand pay fix renew
	require abolish establish encourage honor`))

// objectOpeners open the object right after an imperative verb: a
// pronoun, a determiner or a possessive, or a number ("Make 1980 a year
// of energy conservation"). A noun or an adjective there makes the verb
// as likely a noun or an adjective itself ("Support for freedom
// fighters is ...", "Lower interest rates have ...", "Close wartime
// cooperation ..."), which is not asked.
var objectOpeners = setOf(strings.Fields(`me us them him her it a an the this that these those every all any each
	no our your their some more`))

// imperative reports whether a sentence (its words) opens with a command:
// an imperativeVerbs verb, capitalised as a sentence's first word, then
// an objectOpeners word or a number. "Send me a bill that bans insider
// trading" is what the speaker proposed, not what he reported.
func imperative(words []string) bool {
	if len(words) < 3 {
		return false
	}
	w := words[0]
	if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) || !imperativeVerbs[strings.ToLower(w)] {
		return false
	}
	next := words[1]
	if r, _ := utf8.DecodeRuneInString(next); unicode.IsDigit(r) {
		return true
	}
	return objectOpeners[strings.ToLower(next)]
}

// reportingVerbs words the attribution of each stance.
var reportingVerbs = map[stance]string{
	stanceFact:     "reported",
	stanceSpeaker:  "reported",
	stanceProposal: "proposed",
	stanceOpinion:  "argued",
	stanceReported: "said",
}

// attributionWords are the words attribute adds besides the document's
// author, date and title; verifySupport counts them as supported.
const attributionWords = "in reported proposed argued said according to that"

// source is who a document's words are attributed to: its author, or its
// title when it names none, and the year of its date.
type source struct {
	who   string // "Theodore Roosevelt", or “Title” in quotes; "" when unknown
	year  int    // 0 when unknown
	named bool   // who is an author, not a title
}

// sourceOf reads the attribution of a document from the extract input's
// author, date and title.
func sourceOf(author, date, title string) source {
	src := source{}
	if y, ok := pipeline.DocumentYear(map[string]string{"date": date}); ok {
		src.year = y
	}
	author = strings.Join(strings.Fields(author), " ")
	title = strings.Join(strings.Fields(title), " ")
	switch {
	case author != "":
		src.who, src.named = author, true
	case title != "":
		src.who = "“" + strings.Trim(title, "\"“”") + "”"
	}
	return src
}

// attribute writes a sentence of a document as a report sentence that
// says whose it is and when. A report of fact in the third person becomes
// "In 1903, Theodore Roosevelt reported that the treaty ..."; the
// speaker's own account, a proposal, an opinion or a claim is quoted
// with a verb that says which: "In 1909, William H Taft reported: “I have
// appointed ...”", "... proposed: “I recommend ...”", "... argued: “I
// believe ...”", "... said: “It was predicted ...”". A document with no
// author is named by its title ("According to “Title” (2019), ..."); with
// neither the sentence is returned as it is.
func attribute(body string, st stance, src source) string {
	return attributeItem(body, st, src, listNone)
}

// listItemKind is how a sentence stands in a list (see attributeItem).
type listItemKind int

const (
	listNone           listItemKind = iota // no list item, or one that reads as a sentence
	listRecommendation                     // a "That ..." item of a list of recommendations (recommendation)
	listNominal                            // a counted item without a verb of its own (counted)
)

// attributeItem is attribute for a sentence that may be an item of a
// list: a recommendation is what the speaker proposed ("In 1877, Rutherford
// B Hayes proposed that section 1258 ... be repealed."), a counted item
// without a verb is quoted, never reported "that" it.
func attributeItem(body string, st stance, src source, kind listItemKind) string {
	body = strings.TrimSpace(body)
	if src.who == "" || body == "" {
		return body
	}
	when := ""
	if src.year > 0 {
		when = "In " + strconv.Itoa(src.year) + ", "
	}
	switch kind {
	case listRecommendation:
		if src.named {
			return when + src.who + " proposed " + lowerOpening(body)
		}
		st = stanceProposal
	case listNominal:
		if st == stanceFact {
			st = stanceSpeaker // quoted: "reported: “The passage of ...”"
		}
	}
	if st == stanceFact && canFollowThat(body) {
		if !src.named {
			if src.year > 0 {
				return "According to " + src.who + " (" + strconv.Itoa(src.year) + "), " + lowerOpening(body)
			}
			return "According to " + src.who + ", " + lowerOpening(body)
		}
		return when + src.who + " reported that " + lowerOpening(body)
	}
	return when + src.who + " " + reportingVerbs[st] + ": “" + innerQuotes(body) + "”"
}

// canFollowThat reports whether a sentence reads well after "reported
// that": it opens with a common word lowerOpening lower-cases, or with a
// word the sentence writes with its capital again further on (a name).
// Otherwise
// ("Assuming, somewhat arbitrarily, ...", "Fifty years ago ...", and a
// sentence opened by "That") it is quoted instead.
func canFollowThat(s string) bool {
	w := reWord.FindString(s)
	if w == "" || !strings.HasPrefix(s, w) || w == "That" {
		return false // "reported that that it is the duty ..." reads badly
	}
	if c := strings.Index(s, ": "); c >= 0 && len(reWord.FindAllString(s[:c], -1)) <= colonLeadWords && startsUpper(s[c+2:]) {
		return false // "Another thing: Let's ...", "In 1980: The findings ...": quoted as said
	}
	if openingWords[strings.ToLower(w)] {
		return true
	}
	// A name keeps its capital wherever it is written ("Congress passed
	// ... and Congress ..."; the same name again, "Social Security ...
	// Social Security"); a word capitalised only for opening the
	// sentence does not, and one written again only inside a longer name
	// proves nothing ("Solar energy funding has been quadrupled, ... and
	// a Solar Energy and Energy Conservation Bank ...").
	words := reWord.FindAllString(s, -1)
	next := func(i int) string {
		if i+1 < len(words) {
			return words[i+1]
		}
		return ""
	}
	for i := 1; i < len(words); i++ {
		if words[i] == w && (!startsUpper(next(i)) || next(i) == next(0)) {
			return true
		}
	}
	return false
}

// colonLeadWords is how many words before a colon make a lead ("In
// 1980:") that reads badly after "reported that" when a sentence of its
// own follows the colon.
const colonLeadWords = 5

// lowerOpening lower-cases the first word of a sentence when it is a
// common word that is capitalised only for opening the sentence ("The",
// "In", "During"), so the sentence can follow "reported that"; names keep
// their capital.
func lowerOpening(s string) string {
	w := reWord.FindString(s)
	if w == "" || !strings.HasPrefix(s, w) || !openingWords[strings.ToLower(w)] {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

// openingWords are common words that open sentences.
var openingWords = setOf(strings.Fields(`the a an in on at by for from during since after before under of to with
	eleven twelve fifteen twenty thirty forty fifty sixty seventy eighty ninety hundred
	within without there it this that these those such its their all most many some every each no one two
	three four five six seven eight nine ten several both while although though when whenever as if because
	until among between over through last next nearly about more less only even not never almost over
	under upon into against throughout following despite notwithstanding besides beyond once another other
	any few much half approximately roughly some since`))

// innerQuotes turns the double quotes of a quoted sentence into single
// ones, so the sentence can be quoted.
func innerQuotes(s string) string {
	return strings.NewReplacer("“", "‘", "”", "’", `"`, "'").Replace(s)
}

// selfContained finds the text a report sentence made from sentence i of
// a passage (spans are its sentences) must quote: the sentence itself
// when it stands alone, else joined with the sentences before it that it
// refers back to, at most maxJoined of them and maxJoinedChars in all
// (a sentence that needs none may be longer). It
// returns the byte span in the passage and the cleaned text (white space
// collapsed, a heading or salutation and the first sentence's linking
// words removed); ok is false when the sentence still refers back to
// something outside that span (its passage's first sentence, or too far
// back).
func selfContained(passage string, spans []pipeline.Span, i int) (start, end int, text string, ok bool) {
	if listItem(passage, spans, i) {
		return 0, 0, "", false
	}
	from := i
	for {
		raw := strings.Join(strings.Fields(pipeline.DropTranscriptMarks(passage[spans[from].Start:spans[from].End])), " ")
		head := dropOpeners(standAlone(raw))
		// A sentence that is only a transcript's mark or a heading
		// ("(Applause.)") is not what the sentence after it refers to:
		// the join goes on back past it. A recommendation that opens
		// with "That" refers to nothing before it.
		if head != "" && (!referBack(head) || recommendation(countedAt(passage, spans, from), head)) {
			break
		}
		if from == 0 || i-from >= maxJoined {
			return 0, 0, "", false
		}
		from--
	}
	start, end = spans[from].Start, spans[i].End
	parts := make([]string, 0, i-from+1)
	for k := from; k <= i; k++ {
		p := strings.Join(strings.Fields(passage[spans[k].Start:spans[k].End]), " ")
		if k == from {
			p = dropOpeners(standAlone(p))
		}
		parts = append(parts, p)
	}
	text = strings.Join(parts, " ")
	if from < i && utf8.RuneCountInString(text) > maxJoinedChars || infinitiveFragment(text) {
		return 0, 0, "", false
	}
	return start, end, text, true
}

// listItem reports whether sentence i of a passage is an item of a list
// of phrases, each a sentence of its own ("Third. For the election of
// Senators ... by the people"; "Fourth. For the limitation to a period of
// years of the terms of Federal judges."): it opens with a preposition and
// has no verb, and it is counted ("Fourth.", "3.") or opens with the
// preposition that opens the sentence before it. Without the lead that
// says what the items are, it is no statement (after "reported that" it
// is not even a sentence).
func listItem(passage string, spans []pipeline.Span, i int) bool {
	raw := strings.Join(strings.Fields(passage[spans[i].Start:spans[i].End]), " ")
	s := dropOpeners(standAlone(raw))
	first := strings.ToLower(reWord.FindString(s))
	if first == "" || first == "to" || !prepositions[first] && first != "upon" || hasVerb(s) {
		// An infinitive item ("To provide by amendment that ...") quoted
		// as the speaker's proposal still reads as one; infinitiveFragment
		// turns away the short ones.
		return false
	}
	if reCounted.MatchString(raw) {
		return true
	}
	if i == 0 {
		return false
	}
	prev := strings.Join(strings.Fields(passage[spans[i-1].Start:spans[i-1].End]), " ")
	if reCounted.MatchString(prev) && len(reWord.FindAllString(prev, 3)) <= 1 {
		return true // "Fourth." standing alone before the item
	}
	p := dropOpeners(standAlone(prev))
	return strings.ToLower(reWord.FindString(p)) == first && !hasVerb(p)
}

// recommendation reports whether a sentence (head: without its list
// counter and openers) is one item of a list of recommendations or
// resolutions that lost its lead ("I recommend — First. That provision be
// made for ..."): it opens with "That", and its verb is a bare "be"
// ("That section 1258 ... be repealed") or, when it is counted (see
// countedAt), no form of "be", "have" or "do" nor a modal comes first
// ("Second. That Congress sanction the scheme ..."; not "Second. That it
// is the duty of the United States to demand ..."). Its "That" is no
// reference back, and the item reads as what the speaker proposed
// ("proposed that section 1258 ... be repealed").
func recommendation(counted bool, head string) bool {
	words := reWord.FindAllString(head, recommendationWords)
	if len(words) < 3 || words[0] != "That" {
		return false
	}
	for _, w := range words[1:] {
		switch l := strings.ToLower(w); {
		case l == "be":
			return true
		case auxiliaries[l] || modals[l]:
			// "That country is ...", "That policy will be ...", and a
			// resolution's finding ("Second. That it is the duty of the
			// United States to demand ...") proposes nothing.
			return false
		}
	}
	return counted // "Second. That Congress sanction the scheme ..."
}

// recommendationWords bounds the words recommendation reads for the
// item's verb.
const recommendationWords = 30

// modals are the modal verbs before a "be" that is no subjunctive.
var modals = map[string]bool{
	"will": true, "shall": true, "should": true, "would": true, "may": true, "might": true,
	"must": true, "can": true, "could": true, "cannot": true, "to": true, "not": true,
}

// countedAt reports whether sentence i of a passage is a counted item of
// a list: it opens with a list counter ("6. The passage ...") or follows
// one standing alone ("Second." — the segmenter ends a sentence after a
// counting word).
func countedAt(passage string, spans []pipeline.Span, i int) bool {
	if reCounted.MatchString(strings.TrimSpace(passage[spans[i].Start:spans[i].End])) {
		return true
	}
	if i == 0 {
		return false
	}
	prev := strings.TrimSpace(passage[spans[i-1].Start:spans[i-1].End])
	return reCounted.MatchString(prev) && len(reWord.FindAllString(prev, 3)) <= 1
}

// dashItem reports whether sentence i of a passage is an item of a list
// written as sentences opened by a dash ("I propose: -New powers for the
// Federal Trade Commission ... -A major study of automobile insurance.")
// and returns the list's lead when the passage holds it: what the
// sentence that opens the list says before its colon ("I propose").
// validSpans has moved the span past its dash; the dash stands after
// white space (a heading run in by a full stop and a dash, "Rural
// electrification.-It is proposed", is no list).
func dashItem(passage string, spans []pipeline.Span, i int) (item bool, lead string) {
	opensWithDash := func(k int) bool {
		before := strings.TrimRightFunc(passage[:spans[k].Start], unicode.IsSpace)
		r, n := utf8.DecodeLastRuneInString(before)
		if n == 0 || !strings.ContainsRune("-–—", r) {
			return false
		}
		prev, _ := utf8.DecodeLastRuneInString(before[:len(before)-n])
		return len(before) == n || unicode.IsSpace(prev)
	}
	if !opensWithDash(i) {
		return false, ""
	}
	for k := i - 1; k >= 0; k-- {
		if opensWithDash(k) {
			continue
		}
		text := passage[spans[k].Start:spans[k].End]
		for _, sep := range []string{": -", ":-", ": –", ": —", ":—"} {
			if at := strings.LastIndex(text, sep); at > 0 {
				return true, strings.TrimSpace(text[:at])
			}
		}
		break
	}
	return true, ""
}

// reCounted finds a list counter opening a sentence: "3.", "IV.",
// "Fourth.", "(b)".
var reCounted = regexp.MustCompile(`^\(?(\d{1,2}|[IVX]{1,4}|[a-h]|First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth)[.)]`)

// infinitiveFragment reports whether s is an item of a list that lost its
// lead: an infinitive with no clause of its own ("To extend and strengthen
// rent control.", left of "Sixth, to extend ..."). "To provide care,
// we will ..." and "To err is human." have one, and so has "To point the
// way to break up that log-jam our Trade Agreements Act was passed": any
// verb in a tense counts, not only the main clause's (hasVerb).
func infinitiveFragment(s string) bool {
	words := reWord.FindAllString(s, 3)
	if len(words) < 2 || !strings.EqualFold(words[0], "to") || startsUpper(words[1]) || strings.ContainsAny(s, ",;:") {
		return false
	}
	_, rest, _ := strings.Cut(s, words[1])
	toks := tokenize(rest)
	for i, t := range toks {
		if t.kind != tokWord {
			continue
		}
		l := t.lower()
		if auxiliaries[l] || irregularPast[l] ||
			strings.HasSuffix(l, "ed") && len(l) > 4 && !(i > 0 && (determiners[toks[i-1].lower()] || possessives[toks[i-1].lower()])) {
			return false // a verb of a clause, main or not ("... our Trade Agreements Act was passed")
		}
	}
	return true
}

// hasVerb reports whether a clause surely has a verb: an auxiliary or
// modal, a common irregular past, or a word in -ed that does not follow
// an article or a possessive (there it is an adjective: "the united
// strength", "its revised terms"). A word in -s is no proof, as plural
// nouns end so too ("our Hemispheric relations"): a clause whose only
// verb is in -s ("The tax provides ...") counts as verbless, which only
// keeps its sentence whole. Only the main clause counts: no verb after a
// word that opens a dependent clause ("which", "when"), nor a participle
// with its agent ("in the revenue yielded by them, which ... has swollen").
func hasVerb(clause string) bool {
	toks := tokenize(clause)
	for i, t := range toks {
		if t.kind == tokWord && dependentOpeners[t.lower()] {
			return false // what follows belongs to a dependent clause
		}
		if t.kind != tokWord || t.capitalised() && !auxiliaries[t.lower()] {
			continue
		}
		l := t.lower()
		switch {
		case auxiliaries[l], irregularPast[l]:
			return true
		case strings.HasSuffix(l, "ed") && len(l) > 4:
			if i > 0 && (determiners[toks[i-1].lower()] || possessives[toks[i-1].lower()]) ||
				i+1 < len(toks) && toks[i+1].lower() == "by" {
				continue // an adjective, or a participle with its agent ("yielded by them")
			}
			return true
		}
	}
	return false
}

// seriesItem reports whether parts[i] of a sentence split at its
// semicolons is an item of a series that another part opens with the same
// preposition ("... will cover a wide field including ...; in rural
// electrification; in improving existing road systems ...; in the
// elimination of grade crossings"): a participle in it ("highways designed
// to handle") is no verb of its own, and it needs the clause that opens the
// series.
func seriesItem(parts []string, i int) bool {
	if i == 0 {
		return false
	}
	first := func(p string) string { return strings.ToLower(reWord.FindString(p)) }
	w := first(parts[i])
	if !prepositions[w] {
		return false
	}
	for j, p := range parts {
		if j != i && first(p) == w {
			return true
		}
	}
	return false
}

// dependentOpeners open a dependent clause: a verb after one is not the
// main clause's ("the staying of warlike preparations when Haiti and the
// Dominican Republic were on the verge of hostilities" has none, nor has
// "whenever the active spirit of enmity to our institutions is abated").
var dependentOpeners = setOf(strings.Fields(`which who whom whose that when whenever where wherever while if because
	although though since unless until whereas lest`))

// validSpans returns the sentence spans of text that lie within it and
// are not empty, each without the dash that opens a list item ("-I shall
// recommend ...": index.Sentences starts an item's sentence there).
func validSpans(spans []pipeline.Span, text string) []pipeline.Span {
	out := spans[:0:0]
	for _, sp := range spans {
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			continue
		}
		if item := strings.TrimLeft(text[sp.Start:sp.End], "-–—"); len(item) < sp.End-sp.Start {
			item = strings.TrimLeftFunc(item, unicode.IsSpace)
			if item == "" {
				continue
			}
			sp.Start = sp.End - len(item)
		}
		out = append(out, sp)
	}
	return out
}

// listSentenceChars is the length beyond which a sentence made of clauses
// joined by semicolons is cut to the clause stating the answer (see
// trimClauses): a list of a year's achievements is no report sentence.
const listSentenceChars = 400

// trimClauses cuts a sentence longer than listSentenceChars that is a
// series of clauses joined by semicolons to the clause stating the answer
// (answerMatch ≥ extractAnswerMin), when that clause stands alone: six
// words or more, a verb of its own main clause (an item of a list of noun
// phrases, "the united strength of the Atlantic Community", is no
// sentence), no opening that leans on the clause before it ("and",
// "which") and no reference back. A clause with no verb takes the clauses
// before it back to the nearest one that has a verb and stands alone
// ("The report exhibits in one table the funds appropriated ...; in a
// second, the works projected by the Board of Engineers ..."). Otherwise,
// or when that would be the whole sentence, the sentence is returned as
// it is. The clauses are a verbatim part of the sentence, so the cited
// span still holds them.
func (e *Engine) trimClauses(s string, answer []string, wt *wordTerms) string {
	if utf8.RuneCountInString(s) <= listSentenceChars || len(answer) == 0 {
		return s
	}
	parts := strings.Split(s, "; ")
	if len(parts) < 2 {
		return s
	}
	bi, bestMatch := -1, 0.0
	for i, p := range parts {
		if m := answerMatch(normalize(p, wt), answer); m > bestMatch {
			bi, bestMatch = i, m
		}
	}
	if bestMatch < extractAnswerMin {
		return s
	}
	// The clause stating the answer, or, when it has no verb of its own
	// (an item of a list, "in a second, the works projected by the Board
	// of Engineers ..."), it and the clauses back to the nearest one that
	// has ("The report exhibits in one table ...; in a second, ...").
	for first := bi; first >= 0; first-- {
		c := dropOpeners(strings.TrimSpace(strings.Join(parts[first:bi+1], "; ")))
		words := reWord.FindAllString(c, -1)
		if len(words) < 6 || coordinators[strings.ToLower(words[0])] || relativeOpeners[strings.ToLower(words[0])] || referBack(c) {
			if first == bi {
				return s
			}
			continue
		}
		if !hasVerb(parts[first]) || seriesItem(parts, first) {
			continue
		}
		if first == 0 && bi == len(parts)-1 {
			return s // the whole sentence
		}
		return withFullStop(upperFirst(strings.TrimRight(c, ",;: ")))
	}
	return s
}
