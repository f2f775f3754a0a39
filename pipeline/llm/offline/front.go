package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// Questions are asked as a reader would ask them: the wh-phrase first
// ("In what year did Congress pass the McKinley Tariff?"), not left where
// the answer stood in the source sentence ("Congress passed the McKinley
// Tariff in what year?"). frontQuestion moves it.

// irregularBase maps the common irregular past forms to their base form,
// and the regular ones pastBase would get wrong ("added").
var irregularBase = map[string]string{
	"added": "add", "made": "make", "took": "take", "gave": "give", "came": "come", "went": "go", "began": "begin", "said": "say",
	"held": "hold", "left": "leave", "sent": "send", "built": "build", "paid": "pay", "brought": "bring",
	"found": "find", "became": "become", "rose": "rise", "fell": "fall", "grew": "grow", "won": "win", "lost": "lose",
	"met": "meet", "led": "lead", "kept": "keep", "spent": "spend", "sold": "sell", "bought": "buy", "told": "tell",
	"thought": "think", "saw": "see", "knew": "know", "ran": "run", "stood": "stand", "fought": "fight",
	"taught": "teach", "wrote": "write", "drew": "draw", "struck": "strike", "bore": "bear", "broke": "break",
	"chose": "choose", "drove": "drive", "flew": "fly", "froze": "freeze", "hid": "hide", "laid": "lay",
	"meant": "mean", "overcame": "overcome", "rode": "ride", "rang": "ring", "sank": "sink", "shook": "shake",
	"spoke": "speak", "stole": "steal", "swore": "swear", "swept": "sweep", "tore": "tear", "threw": "throw",
	"understood": "understand", "undertook": "undertake", "upheld": "uphold", "withdrew": "withdraw",
	"withheld": "withhold", "sought": "seek", "dealt": "deal", "felt": "feel", "forgave": "forgive",
	"forbade": "forbid", "arose": "arise", "sprang": "spring", "wove": "weave", "wound": "wind", "lent": "lend",
	"fed": "feed", "fled": "flee", "bound": "bind", "heard": "hear",
}

// pastBase is the base form of a regular past tense ("passed" → "pass",
// "appropriated" → "appropriate", "carried" → "carry", "stopped" →
// "stop"); false when the word is no past tense in -ed.
func pastBase(w string) (string, bool) {
	if b, ok := irregularBase[w]; ok {
		return b, true
	}
	if !strings.HasSuffix(w, "ed") || len(w) < 5 || notPast[w] {
		return "", false
	}
	stem := w[:len(w)-2]
	n := len(stem)
	// before is the letter before the stem's last one, or 0.
	before := byte(0)
	if n >= 2 {
		before = stem[n-2]
	}
	switch {
	case strings.HasSuffix(w, "ied"):
		return w[:len(w)-3] + "y", true
	case strings.HasSuffix(w, "eed"):
		return w[:len(w)-1], true // "agreed"
	case n >= 2 && stem[n-1] == stem[n-2] && !strings.ContainsRune("lsfz", rune(stem[n-1])) && !isVowel(stem[n-1]):
		return stem[:n-1], true // "stopped", "admitted"
	case strings.HasSuffix(stem, "at") || strings.HasSuffix(stem, "ut") ||
		(strings.HasSuffix(stem, "ir") || strings.HasSuffix(stem, "ur")) && n >= 3 && strings.IndexByte("aeo", stem[n-3]) < 0:
		return stem + "e", true // "appropriated", "contributed", "required", "secured"; not "repaired", "poured"
	case n >= 2 && strings.ContainsRune("cgsvz", rune(stem[n-1])) && isVowel(stem[n-2]):
		return stem + "e", true // "raised", "reduced", "approved", "charged"
	case strings.HasSuffix(stem, "rg") || strings.HasSuffix(stem, "rc") || strings.HasSuffix(stem, "nc") || strings.HasSuffix(stem, "rs") ||
		strings.HasSuffix(stem, "ps") || strings.HasSuffix(stem, "ns") || strings.HasSuffix(stem, "ng") && n >= 4 && stem[n-3] != 'i':
		return stem + "e", true // "emerged", "forced", "advanced", "nursed", "collapsed", "licensed", "changed"
	case strings.HasSuffix(stem, "v") || strings.HasSuffix(stem, "th") || strings.HasSuffix(stem, "dg") || strings.HasSuffix(stem, "ven"):
		return stem + "e", true // "involved", "served", "breathed", "judged", "convened": no English verb ends so
	case n >= 3 && strings.ContainsRune("bdklm", rune(stem[n-1])) && isVowel(before) && !isVowel(stem[n-3]) && stem[n-1] != 'l' && (stem[n-1] != 'd' || before == 'u' || before == 'i'):
		return stem + "e", true // "described", "concluded", "decided", "invoked", "assumed"; not "avoided", "claimed"
	case n >= 3 && stem[n-1] == 'l' && (before == 'i' || before == 'u') && !isVowel(stem[n-3]):
		return stem + "e", true // "compiled", "ruled", "scheduled"; not "failed"
	case n >= 3 && stem[n-1] == 'l' && strings.IndexByte("bptdgkcfz", before) >= 0:
		return stem + "e", true // "enabled", "settled", "handled"
	case n >= 3 && strings.HasSuffix(stem, "in") && !isVowel(stem[n-3]):
		return stem + "e", true // "destined", "determined", "combined"; not "obtained", "joined"
	}
	return stem, true
}

// notPast are words in -ed that are no past tense.
var notPast = setOf(strings.Fields(`hundred kindred sacred naked wicked rugged ragged crooked hatred beloved`))

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// leadingTimePhrase is the number of tokens of a time phrase that opens a
// clause ("In 1977", "On July 4, 1902,", "In the spring of 1846"): a
// preposition of time up to the first year, at most six tokens, with the
// comma after it; 0 when the clause opens otherwise.
func leadingTimePhrase(toks []token) int {
	if len(toks) < 3 || toks[0].kind != tokWord || !timePrepositions[toks[0].lower()] {
		return 0
	}
	for i := 1; i < len(toks) && i <= 6; i++ {
		if toks[i].kind == tokSymbol && toks[i].text != "," {
			return 0
		}
		if isPlainYear(toks[i]) {
			end := i + 1
			if end < len(toks) && toks[end].text == "," {
				end++
			}
			return end
		}
	}
	return 0
}

// presentBase is the base form of a present tense in -s ("raises" →
// "raise", "passes" → "pass", "carries" → "carry").
func presentBase(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	}
	return strings.TrimSuffix(w, "s")
}

// wordLike reports whether w is a plain lower-case word (letters only).
func wordLike(w string) bool {
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return w != ""
}

// maxSubjectWords bounds the subject a fronted question moves its verb
// around; a longer one is probably not a subject. maxAfterWords bounds
// what a question keeps after its wh-phrase.
const (
	maxSubjectWords = 12
	maxAfterWords   = 8
)

// cleanSubject reports whether toks read as the plain subject of a clause:
// one to maxSubjectWords words, opening with an article, a determiner, a
// name, a number or a plain noun (no pronoun, participle or adverb), with
// no verb, punctuation or clause word in them
// ("the public debt", "Congress", "the Secretary of the Navy"; not "Had
// Congress", "Recited in the last message", "the gross amount of postage
// which accrued").
func cleanSubject(toks []token) bool {
	if len(toks) == 0 || countWords(toks) > maxSubjectWords {
		return false
	}
	first := toks[0]
	fl := first.lower()
	if !(first.kind == tokNumber || first.kind == tokWord && (first.capitalised() || determiners[fl] || wordLike(fl))) ||
		prepositions[fl] || phraseOpeners[fl] || danglingOpeners[fl] || isWh(fl) || pronouns[fl] ||
		strings.HasSuffix(fl, "ed") || strings.HasSuffix(fl, "ing") || strings.HasSuffix(fl, "ly") {
		return false
	}
	for i, t := range toks {
		l := t.lower()
		switch {
		case t.kind == tokSymbol && t.text != "'" && t.text != "’" && t.text != "-" && t.text != "." && t.text != "&":
			return false
		case t.kind != tokWord:
		case auxiliaries[l] || relativeOpeners[l] || subordinators[l]:
			return false
		case !t.capitalised() && (irregularBase[l] != "" || strings.HasSuffix(l, "ed") && len(l) > 4):
			return false
		case i == len(toks)-1 && (danglingEnds[l] || prepositions[l]):
			return false
		}
	}
	return true
}

// simpleRest reports whether what follows a question's verb holds no
// second clause: no comma or semicolon, no relative pronoun or
// subordinating word.
func simpleRest(rest string) bool {
	if strings.Contains(rest, ", ") || strings.ContainsAny(rest, ";:") {
		return false // a comma between digits ("17,000,000") is no clause break
	}
	for _, w := range reWord.FindAllString(rest, -1) {
		l := strings.ToLower(w)
		if relativeOpeners[l] || l == "that" || l == "while" || l == "whereas" || l == "because" || l == "although" {
			return false
		}
	}
	return true
}

// frontQuestion asks the question whose wh-phrase (wh, with its
// preposition: "in what year", "how much", "which treaty") ends the
// clause body (before it) and is followed by after, with the wh-phrase
// first: an auxiliary moves before the subject ("The treaty was signed
// on what date?" → "On what date was the treaty signed?"), a verb in the
// past or present takes "did" or "does" ("Congress passed the tariff in
// what year?" → "In what year did Congress pass the tariff?"). It returns
// "" when the body has no verb after a plain subject (no comma, at most
// twelve words, opening as a subject does).
func frontQuestion(body, wh, after string) string {
	toks := tokenize(body)
	// A time phrase opening the clause goes to the end: "In 1977
	// Congress created what?" asks "What did Congress create in 1977?".
	if pp := leadingTimePhrase(toks); pp > 0 && pp < len(toks) {
		q := frontQuestion(strings.TrimLeft(body[toks[pp].start:], " ,"), wh, after)
		if q == "" {
			return ""
		}
		return q + " " + lowerFirstWord(strings.TrimRight(body[toks[0].start:toks[pp-1].end], " ,"))
	}
	// A preposition the clause ends on goes with the wh-phrase: "... has
	// been increased to what number?" asks "To what number has ...".
	if n := len(toks); n > 1 && toks[n-1].kind == tokWord && (prepositions[toks[n-1].lower()] || phraseOpeners[toks[n-1].lower()]) {
		wh = toks[n-1].lower() + " " + wh
		body = strings.TrimSpace(body[:toks[n-1].start])
		toks = toks[:n-1]
	}
	// The verb: the first auxiliary or past tense. A present tense in -s
	// is too easily a plural noun ("offices", "Surveys") to move around.
	verb := -1
	for i, t := range toks {
		l := t.lower()
		if t.kind == tokWord && !t.capitalised() && (auxiliaries[l] || irregularBase[l] != "" || strings.HasSuffix(l, "ed") && len(l) > 4) {
			verb = i
			break
		}
	}
	if verb < 0 && len(toks) > 1 && (determiners[toks[0].lower()] || toks[0].capitalised()) {
		// A present tense in -s right after a subject that opens with a
		// determiner or a name ("The Secretary of the Navy asks for").
		for i := 1; i < len(toks); i++ {
			l := toks[i].lower()
			if toks[i].kind == tokWord && !toks[i].capitalised() && len(l) > 3 && strings.HasSuffix(l, "s") &&
				!strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us") && !strings.HasSuffix(l, "is") &&
				looksLikeVerb(toks, i) {
				if pluralAfterModifier(toks, i) {
					// A plural subject ("Recent threats targeting community
					// centers ...") takes no verb in -s.
					break
				}
				verb = i
				break
			}
			if toks[i].kind != tokWord || !(toks[i].capitalised() || determiners[l] || l == "of" || wordLike(l)) {
				break
			}
		}
	}
	if verb < 0 {
		// The wh-phrase may end the subject, the verb following it: "The
		// estimates for what year are $17,000,000 less" asks "For what
		// year are the estimates $17,000,000 less?".
		return frontSubjectQuestion(body, toks, wh, after)
	}
	if verb == 0 {
		return ""
	}
	subject := strings.TrimSpace(body[:toks[verb].start])
	rest := strings.TrimSpace(body[toks[verb].end:])
	if !cleanSubject(toks[:verb]) || !simpleRest(rest) {
		return ""
	}
	subject = lowerOpening(subject)
	v := toks[verb].text
	lv := strings.ToLower(v)
	if !auxiliaries[lv] && finiteVerbIn(toks[verb+1:]) {
		// "the commissioners appointed under the treaty met at
		// Philadelphia": the word in -ed modifies the subject, and the
		// clause's verb comes later.
		return ""
	}
	if passiveParticiple(toks, verb) {
		// "The commission appointed by the President": no "did the
		// commission appoint by the President".
		return ""
	}
	var aux, main string
	switch {
	case auxiliaries[lv]:
		aux, main = lv, ""
	case strings.HasSuffix(lv, "s"):
		if rest == "" && (wh == "where" || wh == "when") {
			// "Where does the charge d'affaire?" of "the charge
			// d'affaires in London": a word in -s that ends the clause
			// before a place is more likely a plural noun than a verb.
			return ""
		}
		aux, main = "does", presentBase(lv)
	default:
		base, ok := pastBase(lv)
		if !ok {
			return ""
		}
		aux, main = "did", base
	}
	parts := []string{upperFirst(whomAfterPreposition(wh)), aux, subject}
	if main != "" {
		parts = append(parts, main)
	}
	if rest != "" {
		parts = append(parts, rest)
	}
	q := strings.Join(parts, " ")
	// What follows the wh-phrase continues the question ("... pay France
	// for Louisiana?"), unless it is another clause ("... and were there
	// awaiting ..."), which the question leaves out.
	if a := strings.TrimSpace(after); a != "" {
		w := strings.ToLower(reWord.FindString(a))
		if !coordinators[w] && !danglingOpeners[w] && simpleRest(a) && len(strings.Fields(a)) <= maxAfterWords {
			q += " " + a
		}
	}
	return q
}

// pluralAfterModifier reports whether the word in -s at toks[i] is a
// plural noun by the word before it, which modifies it: a quantifier or
// "other" ("nearly all other countries", "some questions"), a word in
// -ing ("becoming lobbyists"), or an adjective opening the clause in
// capitals ("Special ministers", "Recent threats", "Adequate
// accommodations"). "What does the claims of all other country?" and
// "For what does a lifetime ban on becoming lobbyist?" made no question.
func pluralAfterModifier(toks []token, i int) bool {
	if i == 0 || toks[i-1].kind != tokWord {
		return false
	}
	prev := toks[i-1].lower()
	switch {
	case quantifiers[prev] || prev == "other" || prev == "various" || prev == "certain" || prev == "few":
		return true
	case strings.HasSuffix(prev, "ing") && len(prev) > 5:
		return true
	case i == 1 && (adjectiveLike(prev) || strings.HasSuffix(prev, "ent") || strings.HasSuffix(prev, "ate")):
		return true
	}
	return false
}

// passiveParticiple reports whether the word in -ed at toks[i] is a
// participle with its agent after it ("appointed by the President"): a
// question cannot ask "did the commission appoint by the President".
// Words of change keep "by" for their amount ("increased by 10 per
// cent").
func passiveParticiple(toks []token, i int) bool {
	l := toks[i].lower()
	return strings.HasSuffix(l, "ed") && !byAmount[l] && i+1 < len(toks) && toks[i+1].lower() == "by"
}

// byAmount are verbs of change whose "by" gives the amount.
var byAmount = setOf(strings.Fields(`increased decreased reduced raised lowered augmented diminished exceeded
	lessened multiplied advanced declined dropped gained`))

// finiteOnly are verb forms that are finite whatever precedes them: the
// auxiliaries but "be", "been" and "being", and simple pasts that are no
// participle ("went", not "made").
var finiteOnly = setOf(strings.Fields(`is was are were has have had will would shall should can could may might must
	took gave came went began became rose fell grew knew ran saw wrote drew broke chose drove flew froze rode rang
	sank shook spoke stole swore swam tore threw withdrew overcame undertook met`))

// finiteVerbIn reports whether toks hold a lower-case finite verb form
// (finiteOnly): a second verb after the one a question moves.
func finiteVerbIn(toks []token) bool {
	for _, t := range toks {
		if t.kind == tokWord && !t.capitalised() && finiteOnly[t.lower()] {
			return true
		}
	}
	return false
}

// frontSubjectQuestion fronts a wh-phrase that ends the subject (body,
// whose preposition frontQuestion moved into wh) when after opens with
// the verb: an auxiliary or a past tense.
func frontSubjectQuestion(body string, toks []token, wh, after string) string {
	if f := strings.Fields(wh); len(toks) == 0 || len(f) < 2 || !prepositions[f[0]] && !phraseOpeners[f[0]] {
		// No preposition moved: the wh-phrase is (part of) the subject
		// ("The successful [which conference] held in Geneva").
		return ""
	}
	subject := strings.TrimSpace(body)
	if !cleanSubject(toks) {
		return ""
	}
	at := tokenize(after)
	if len(at) < 2 || at[0].kind != tokWord || at[0].capitalised() {
		return ""
	}
	v := at[0].lower()
	rest := strings.TrimSpace(after[at[0].end:])
	if !simpleRest(rest) {
		return ""
	}
	if !auxiliaries[v] && finiteVerbIn(at[1:]) {
		return "" // a participle, the clause's verb later (see frontQuestion)
	}
	parts := []string{upperFirst(whomAfterPreposition(wh))}
	switch {
	case auxiliaries[v]:
		parts = append(parts, v, lowerOpening(subject))
	default:
		base, ok := pastBase(v)
		if !ok {
			return ""
		}
		parts = append(parts, "did", lowerOpening(subject), base)
	}
	if w := strings.ToLower(reWord.FindString(rest)); rest != "" && !coordinators[w] && !danglingOpeners[w] {
		parts = append(parts, rest)
	}
	return strings.Join(parts, " ")
}

// whomAfterPreposition writes "who" after a preposition as "whom" ("By
// whom was the treaty signed?").
func whomAfterPreposition(wh string) string {
	if f := strings.Fields(wh); len(f) == 2 && f[1] == "who" && (prepositions[f[0]] || phraseOpeners[f[0]]) {
		return f[0] + " whom"
	}
	return wh
}

// Readability of questions (see readableQuestion).
var (
	// whOpeners open a well-formed question.
	whOpeners = setOf(strings.Fields(`what which who whom whose when where why how in on at by for from to during
		since until under with of into over against between after before through is are was were do does did has
		have had can could will would should may might`))
	// danglingOpeners open a fragment rather than a question.
	danglingOpeners = setOf(strings.Fields(`and but or nor yet so except although though because while whereas if
		unless that than as`))
)

// readableQuestion reports whether a question reads on its own: it
// opens with a wh-word, a preposition or an auxiliary, or it is a whole
// clause that asks in place (see echoQuestion), has a wh-word or opens
// with an auxiliary,
// holds no wh-word inside a dependent clause ("..., since which board
// would make?"), its brackets and quotation marks are balanced, it is not
// the template "... named in connection with ...", and it has between
// minQuestionWords and maxQuestionWords words.
func readableQuestion(q string) bool {
	q = strings.TrimSpace(q)
	if !strings.HasSuffix(q, "?") || strings.Contains(strings.ToLower(q), "named in connection with") {
		return false
	}
	words := reWord.FindAllString(q, -1)
	if len(words) < minQuestionWords || len(words) > maxQuestionWords {
		return false
	}
	r, _ := utf8.DecodeRuneInString(q)
	if !unicode.IsUpper(r) {
		return false
	}
	first := strings.ToLower(words[0])
	if danglingOpeners[first] || first == "except" {
		return false
	}
	if !whOpeners[first] && !echoQuestion(q) {
		return false
	}
	// A preposition must lead a wh-phrase: "In what year", "To how much".
	if prepositions[first] && !isWh(strings.ToLower(words[1])) {
		return false
	}
	// A wh-word inside a clause that a subordinator opens ("since which",
	// "that what") leaves the question dangling; a second wh-word or a
	// relative clause makes it hard to follow, and so does a full stop
	// inside it.
	whs := 0
	for i := 0; i < len(words); i++ {
		l := strings.ToLower(words[i])
		if isWh(l) || l == "that" && i > 0 {
			whs++
		}
		if i > 0 && isWh(l) && danglingOpeners[strings.ToLower(words[i-1])] {
			return false
		}
	}
	if whs > 1 || strings.Contains(strings.TrimSuffix(q, "?"), ". ") {
		return false
	}
	// "Of how much ...", "Of whom ...": a preposition that reads badly in
	// front.
	if first == "of" {
		return false
	}
	// A question does not end on a word that needs more after it
	// ("... of the Mississippi and?", "... a place called?").
	if last := strings.ToLower(words[len(words)-1]); danglingEnds[last] {
		return false
	}
	return strings.Count(q, "(") == strings.Count(q, ")") && strings.Count(q, "“") == strings.Count(q, "”") &&
		strings.Count(q, `"`)%2 == 0
}

// readableClauseQuestion reports whether a question made from a
// sentence's own clause (clauseQuestion) is readable (readableQuestion)
// and kept nothing of the clause that the making broke (brokenClause).
// Template questions need not pass the second test: their words are the
// template's and a noun phrase's, or a heading's.
func readableClauseQuestion(q string) bool {
	words := reWord.FindAllString(q, -1)
	// A long clause is more often a broken one; names do not count
	// towards its length ("the Republic of Panama").
	plain := 0
	for i, w := range words {
		if i == 0 || !startsUpper(w) {
			plain++
		}
	}
	// "... to some 6 1/?": a fraction cut in two.
	cutFraction := strings.HasSuffix(q, "/?")
	return readableQuestion(q) && !cutFraction && plain <= maxClauseQuestionWords && !brokenClause(words)
}

// brokenClause reports whether a question's words keep what moving the
// wh-phrase, or cutting the answer out, broke in its source sentence:
//
//   - a subjunctive "be" left as its verb, with no modal or "to" before
//     it ("From which department be the weather service separated?",
//     of "I recommend that the weather service be separated from ...");
//   - a number left before "or" or "and" whose other half was the answer
//     ("How many years does the practice march of the last two or have
//     been invaluable ...?");
//   - a second verb in the past after "did" or "does" and the verb it
//     asks with, where no relative word opens a clause of its own ("To
//     how many acres did the public land dispose of during the year
//     amounted?");
//   - an article right after the wh-phrase ("With what the diplomatic
//     relations have been resumed?");
//   - an auxiliary as its first word, its subject cut ("Will appear from
//     the accompanying copy ... of what?"), or a form of "be" or "do" as
//     its last ("How much of the public moneys were?");
//   - a "What" or "Who" asking for the subject with no verb after it
//     ("What having some claim to the country ...?", "What with
//     disabilities has also reached an all-time low?", "What number
//     Americans have been lifted off food stamps?");
//   - "the last", "the past" or "the next" at its end, whose number was
//     the answer ("How many years has the number of free-delivery offices
//     been nearly doubled in the last?");
//   - a second finite verb after "did" or "does" ("... did the quantity
//     of public land dispose of ... was 4,221,342 acres?"), or no subject
//     after "did" ("Until what date did not present for payment?");
//   - "the own" of "our own" with no noun after it, or a capitalised
//     article inside it, a heading run into its sentence ("What is
//     Disaster Assistance A modern community?").
func brokenClause(words []string) bool {
	if len(words) == 0 {
		return false
	}
	first := strings.ToLower(words[0])
	if auxiliaries[first] {
		return true // "Will appear from ... of what?": its subject was cut
	}
	if len(words) > 1 && (first == "what" || first == "who") {
		// The wh-word as subject needs its verb next: "What having some
		// claim ...", "What with disabilities has ...", "Who having by
		// the late President ...", "What is for the independence ...".
		next := strings.ToLower(words[1])
		if finiteAuxiliary[next] && len(words) > 2 {
			if n2 := strings.ToLower(words[2]); prepositions[n2] || phraseOpeners[n2] || subordinators[n2] {
				return true
			}
		} else if prepositions[next] || phraseOpeners[next] || subordinators[next] || next == "there" ||
			strings.HasSuffix(next, "ing") {
			return true
		}
	}
	if len(words) > 2 && first == "what" && strings.EqualFold(words[1], "number") {
		// "What number Americans have been lifted off food stamps?": the
		// number's noun is left after the wh-phrase, which wants its
		// verb next.
		if n := strings.ToLower(words[2]); !auxiliaries[n] && !pastForm(n) && !irregularPast[n] {
			return true
		}
	}
	switch last := strings.ToLower(words[len(words)-1]); {
	case finiteBe[last] || last == "do" || last == "does" || last == "did":
		// "How much of the public moneys were?" ("... should the
		// policies have?" keeps "have" as its verb).
		return true
	case (last == "last" || last == "past" || last == "next") && len(words) > 1 && strings.EqualFold(words[len(words)-2], "the"):
		return true // "... been nearly doubled in the last?": its number was the answer
	}
	modal := false
	do := -1
	for i, w := range words {
		l := strings.ToLower(w)
		if do >= 0 && i > do+1 && (finiteAuxiliary[l] || modalVerbs[l] || l == "having") {
			// A second finite verb after "did": "On what date did the
			// quantity of public land dispose of ... was 4,221,342 acres?".
			return true
		}
		if l == "own" && i > 0 && strings.EqualFold(words[i-1], "the") {
			return true // "the own" of "our own" with no noun after it
		}
		if i > 0 && articles[l] && w != l && !(i+1 < len(words) && startsUpper(words[i+1])) {
			// "What is Disaster Assistance A modern community?": a
			// heading ran into the sentence ("The Hague" is a name).
			return true
		}
		if (l == "did" || l == "does" || l == "do") && i+1 < len(words) {
			// "Until what date did not present ...?", "Where did Instead
			// of getting drag ...?": no subject after the auxiliary.
			if n := strings.ToLower(words[i+1]); n == "not" || n == "instead" || n == "well" || prepositions[n] || phraseOpeners[n] {
				return true
			}
		}
		switch {
		case modalVerbs[l] || l == "to" || l == "shall" || l == "let" || l == "not":
			modal = true
		case l == "be" && !modal:
			return true
		case (l == "or" || l == "and") && i > 0 && i+1 < len(words) && numberWord(strings.ToLower(words[i-1])) &&
			!numberWord(strings.ToLower(words[i+1])) && !countOthers[strings.ToLower(words[i+1])]:
			return true
		case l == "did" || l == "does" || l == "do":
			if do < 0 {
				do = i
			}
		case relativeWords[l]:
			do = -1 // a clause of its own follows
		case do >= 0 && i > do+2 && pastForm(l) && !participleAfter(words, i):
			return true
		}
	}
	// The wh-phrase is followed by its auxiliary and subject, or is the
	// subject: never by an article.
	for i, w := range words {
		l := strings.ToLower(w)
		if !isWh(l) {
			continue
		}
		next := i + 1
		if l == "how" && next < len(words) {
			next++ // "how many", "how much"
		}
		if next < len(words) && articles[strings.ToLower(words[next])] {
			return true
		}
		break
	}
	return false
}

// pastForm reports whether a word looks like a verb in the past: it ends
// in -ed, but not as "exceed" or "hundred" do.
func pastForm(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && !notPast[w]
}

// participleAfter reports whether the word at i is a participle rather
// than a finite verb: after a form of "be" or "have", or after an
// article or a possessive (an adjective: "the united strength").
func participleAfter(words []string, i int) bool {
	p := strings.ToLower(words[i-1])
	return finiteAuxiliary[p] || p == "been" || p == "being" || p == "having" || determiners[p] || possessives[p]
}

// numberWord reports whether w is a number written in figures or words.
func numberWord(w string) bool {
	if w != "" && unicode.IsDigit(rune(w[0])) {
		return true
	}
	return smallNumbers[w]
}

var (
	// finiteBe are the forms of "be" that can carry a clause.
	finiteBe = setOf(strings.Fields(`is are was were`))
	// finiteAuxiliary are the forms of "be" and "have" that can carry a
	// clause.
	finiteAuxiliary = setOf(strings.Fields(`is are was were has have had`))
	// relativeWords open a clause of its own inside a question.
	relativeWords = setOf(strings.Fields(`that which who whom whose when where while after before because since until`))
	// countOthers may follow "or" or "and" after a number ("one or more",
	// "two and a half").
	countOthers = setOf(strings.Fields(`a more less fewer so thereabouts upward upwards`))
	// smallNumbers are the numbers written in words that a count may
	// hold.
	smallNumbers = setOf(strings.Fields(`one two three four five six seven eight nine ten eleven twelve thirteen fourteen
		fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
		million billion`))
)

// subordinators open a dependent clause; none belongs in a plain subject.
var subordinators = setOf(strings.Fields(`although though because while whereas if unless that than whether since`))

// danglingEnds are words a question cannot end on (prepositions, and the
// participles that work as ones: "... negotiations involving?").
var danglingEnds = setOf(strings.Fields(`and or but nor the a an of to in on at by for from with that which who whom
	whose this these those its their his her our my your called named compose composed such than as into upon
	between among without against toward towards along via about within over under
	involving including regarding concerning following according excluding respecting`))

// echoQuestion reports whether q is a whole clause that asks in place,
// as "Congress passed the McKinley Tariff in what year?" does: it opens
// with a subject (a capitalised word, an article or a determiner, no
// preposition) and has a verb before its wh-word. What it asks is clear
// without its source sentence, though it reads less well than a question
// with the wh-phrase first, which the engine writes when it can.
func echoQuestion(q string) bool {
	toks := tokenize(q)
	if len(toks) == 0 || toks[0].kind != tokWord {
		return false
	}
	first := toks[0].lower()
	if prepositions[first] || phraseOpeners[first] || !(toks[0].capitalised() || determiners[first]) || isWh(first) {
		return false
	}
	for i := 1; i < len(toks); i++ {
		if isWh(toks[i].lower()) {
			return false // no verb before the wh-word
		}
		if looksLikeVerb(toks, i) {
			// A plain subject before the verb, and no second clause
			// after it.
			rest := q[toks[i].end:]
			if wh := strings.Index(strings.ToLower(rest), " wh"); wh >= 0 {
				rest = rest[:wh]
			}
			return cleanSubject(toks[:i]) && simpleRest(rest)
		}
	}
	return false
}

func isWh(w string) bool {
	switch w {
	case "what", "which", "who", "whom", "whose", "when", "where", "why", "how":
		return true
	}
	return false
}

// caseUse records how a summary writes its words inside its sentences,
// by lower-cased word: caseCapital when some sentence writes it
// capitalised after its first word and not before another capitalised
// word ("the Congress passed", not "New York"), caseLower
// when one writes it in lower case. A sentence's first word says
// nothing: it is capitalised anyway.
type caseUse map[string]uint8

const (
	caseCapital uint8 = 1 << iota
	caseLower
)

// caseUseOf records the case of the words of summary's sentences (spans),
// each sentence's first word left out, and so is a word after a colon, a
// quotation mark or a bracket, which may open a sentence of its own.
func caseUseOf(summary string, spans []pipeline.Span) caseUse {
	use := caseUse{}
	for _, sp := range spans {
		if sp.Start < 0 || sp.End > len(summary) || sp.Start >= sp.End {
			continue
		}
		opens := true
		toks := tokenize(summary[sp.Start:sp.End])
		for k, t := range toks {
			if t.kind != tokWord {
				if t.kind == tokSymbol && strings.Contains(":;“\"‘([—", t.text) {
					opens = true
				}
				continue
			}
			if !opens {
				switch r, _ := utf8.DecodeRuneInString(t.text); {
				case unicode.IsUpper(r) && t.text != strings.ToUpper(t.text):
					// Before another capitalised word it is part of a
					// longer name ("New York"), which says nothing of
					// "New legislation".
					if k+1 >= len(toks) || !toks[k+1].capitalised() {
						use[t.lower()] |= caseCapital
					}
				case unicode.IsLower(r):
					use[t.lower()] |= caseLower
				}
			}
			opens = false
		}
	}
	return use
}

// fix sets the case of a question made from a sentence's clause: the
// sentence's capitalised first word, moved inside the question ("With
// which country have Negotiations for a treaty been concluded?"), is
// lower-cased when the summary writes it in lower case and never
// capitalised inside a sentence ("negotiations"); a word the summary
// writes capitalised inside a sentence ("Congress", "Federal") stays, as
// do a word before another capitalised word ("President Diaz") and one
// the summary only ever opens a sentence with, which may be a name
// ("Chrysler") or not ("Everyone"). The question's own first word and
// words in capitals stay; a nil caseUse changes nothing.
func (use caseUse) fix(q string) string {
	if use == nil || q == "" {
		return q
	}
	toks := tokenize(q)
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if i == 0 || !t.capitalised() || t.text == strings.ToUpper(t.text) || i+1 < len(toks) && toks[i+1].capitalised() {
			continue // a name's run of capitals ("President Diaz") stays
		}
		if use.lowerable(t.lower(), nameGoesOn(toks, i)) {
			b.WriteString(q[last:t.start])
			b.WriteString(t.lower())
			last = t.end
		}
	}
	b.WriteString(q[last:])
	return b.String()
}

// lowerable reports whether a capitalised word w (lower-cased) that
// opens a sentence may be written in lower case inside a question: the
// summary never writes it capitalised inside a sentence, and it either
// writes it in lower case or the word has the ending of a common noun or
// an adverb ("Legislation", "Enforcement", "Closely"), which names seldom
// have, unless government prose capitalises it ("Constitution") or it
// opens a longer name (beforeName: "Organization of American States").
func (use caseUse) lowerable(w string, beforeName bool) bool {
	u := use[w]
	if u&caseCapital != 0 {
		return false
	}
	if u&caseLower != 0 {
		return true
	}
	if beforeName || genericCapitals[w] || titleWords[w] {
		return false // "Constitution", "Administration" keep their capital
	}
	for _, end := range commonNounEndings {
		if strings.HasSuffix(w, end) && len(w) >= len(end)+4 {
			return true
		}
	}
	return strings.HasSuffix(w, "ly") && len(w) >= 7
}

// commonNounEndings are endings of abstract nouns (see lowerable).
var commonNounEndings = []string{"tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism"}

// lowerOpener returns sentence s and its tokens with its first word in
// lower case when the summary writes that word in lower case and never
// capitalised inside a sentence (see caseUse.fix): a question made from
// the clause then takes "Adequate accommodations" for the common words
// they are, not for a name that may open a subject. s and toks are
// returned as they are otherwise; the spans do not change.
func (use caseUse) lowerOpener(s string, toks []token) (string, []token) {
	for k, t := range toks {
		if t.kind == tokSymbol {
			continue
		}
		if t.kind != tokWord || !t.capitalised() || t.text == strings.ToUpper(t.text) || k+1 < len(toks) && toks[k+1].capitalised() {
			return s, toks
		}
		if !use.lowerable(t.lower(), nameGoesOn(toks, k)) {
			return s, toks
		}
		r, size := utf8.DecodeRuneInString(t.text)
		lo := string(unicode.ToLower(r))
		if len(lo) != size {
			return s, toks
		}
		ls := s[:t.start] + lo + s[t.start+size:]
		out := append([]token(nil), toks...)
		out[k].text = ls[t.start:t.end]
		return ls, out
	}
	return s, toks
}
