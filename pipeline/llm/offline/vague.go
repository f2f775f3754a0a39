package offline

import "strings"

// vaguePhrase reports whether a phrase a template question would name
// ("What year is given for <phrase>?", "Which country is mentioned
// regarding <phrase>?") leaves a reader of the question alone unable to
// tell what it is about, though it reads as a noun phrase:
//
//   - it ends on, or holds as a possessive, "the" and one noun that
//     points back to something its sentence named before ("the
//     stipulations of the treaty", "the replacement of the governor",
//     "the alliance's origins"); nouns whose referent every reader of an
//     address knows ("the country", "the world", "the blind") do not,
//     nor those the request itself speaks of (known: "the tariff" in a
//     report on a tariff), which a reader of the nugget bank has before
//     him;
//   - it is "the" and a word that orders or times its noun and nothing
//     else ("the current rate", "the third election"), or its head is a
//     stretch of time with no "of" after it ("the four fiscal years",
//     "the coming weeks");
//   - it ends on a participle or verb left of a clause cut short after a
//     plain noun or a pronoun ("the reforms requested", "the troops sent
//     and needed", "a country torn", "the attacks they condemned");
//   - it is a person ("President Clinton", "the First Lady", "Ronald
//     Reagan"), for whom a figure "is given" means nothing;
//   - it opens on a noun that lives only in a fixed phrase ("behalf of
//     the United States", "present arid").
func vaguePhrase(phrase string, known func(word string) bool) bool {
	toks := tokenize(strings.TrimSpace(phrase))
	var words []token
	for _, t := range toks {
		if t.kind == tokWord {
			words = append(words, t)
		}
	}
	n := len(words)
	if n == 0 {
		return true
	}
	lower := func(i int) string { return strings.ToLower(trimPossessive(words[i].text)) }
	// "the W" at the end, or "the W's" anywhere.
	for i := 0; i+1 < n; i++ {
		if !words[i].is("the") {
			continue
		}
		w := words[i+1]
		possessive := trimPossessive(w.text) != w.text
		if !(i+2 == n || possessive) {
			continue
		}
		if pointsBack(w) && (known == nil || !known(w.text)) {
			return true
		}
	}
	first := 0
	if words[0].is("the") || words[0].is("a") || words[0].is("an") {
		first = 1
	}
	if first == 1 && n == 3 && !words[1].capitalised() && !words[2].capitalised() && orderWords[lower(1)] {
		return true // "the current rate", "the third election"
	}
	hasOf := false
	for i := range words {
		if words[i].is("of") {
			hasOf = true
		}
	}
	if !hasOf && n > first && timeHeads[lower(n-1)] && !words[n-1].capitalised() {
		return true // "the four fiscal years", "the coming weeks"
	}
	// A participle or verb at the end after a plain noun or a pronoun: a
	// relative clause cut short. Participles joined by "and" or "or"
	// count as one ("sent and needed").
	if n >= 2 && participle(lower(n-1)) && !words[n-1].capitalised() {
		k := n - 2
		for k >= 1 && (words[k].is("and") || words[k].is("or")) && participle(lower(k-1)) {
			k -= 2
		}
		if k >= 0 && k >= first {
			before := words[k]
			if pronouns[before.lower()] || !before.capitalised() && !prepositions[before.lower()] &&
				!determiners[before.lower()] && !possessives[before.lower()] && !(k == 0 && first == 0) && !adjectiveNouns[before.lower()] {
				return true
			}
		}
	}
	// A person.
	if n-first >= 2 && words[first].capitalised() {
		all := true
		for i := first; i < n; i++ {
			all = all && words[i].capitalised()
		}
		l := lower(first)
		if all && (titleWords[l] && l != "general" && l != "major" || l == "first" && words[first+1].is("lady") ||
			firstNames[l] && n-first <= 3 && !placeHeads[lower(n-1)]) {
			return true
		}
	}
	return first == 0 && fixedPhraseNouns[lower(0)]
}

// trimPossessive takes "'s" or "’s" off a word.
func trimPossessive(w string) string {
	return strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
}

// pointsBack reports whether "the" and the word w alone point back to
// something named earlier: a common noun ("the treaty", "the Bureau"),
// not one whose referent every reader knows ("the country", "the
// blind") nor a name ("the Hague", "the Philippines").
func pointsBack(w token) bool {
	l := strings.ToLower(trimPossessive(w.text))
	if knownReferents[l] || adjectiveNouns[l] || timeWords[l] {
		return false
	}
	if w.capitalised() {
		return pointingCapitals[l]
	}
	return true
}

// participle reports whether a lower-case word is a past participle or a
// plain verb that a cut relative clause leaves at a phrase's end.
func participle(w string) bool {
	return strings.HasSuffix(w, "ed") && len(w) > 4 && !edNouns[w] || irregularParticiples[w]
}

var (
	// knownReferents are nouns whose referent a reader of a national
	// address knows without being told: "the country", "the world".
	knownReferents = setOf(strings.Fields(`country nation world people government union constitution president
		congress senate house army navy public economy continent earth moon capital treasury flag republic states
		territories future past globe hemisphere mississippi`))
	// adjectiveNouns are adjectives used as nouns for a class of people:
	// "the blind", "the aged".
	adjectiveNouns = setOf(strings.Fields(`blind deaf poor sick aged elderly young needy unemployed disabled homeless
		rich wealthy dead wounded insane old`))
	// pointingCapitals are capitalised common nouns that, after "the"
	// alone, point back to a body or an act named before.
	pointingCapitals = setOf(strings.Fields(`committee bureau department commission board office court conference
		convention treaty act bill law secretary administration agency council service division company
		corporation institute institution society association alliance agreement plan program project`))
	// orderWords order or time a noun without saying which it is.
	orderWords = setOf(strings.Fields(`current present coming next last first second third fourth fifth former
		latter same other said following previous recent statutory existing proposed`))
	// timeHeads are heads of phrases that name a stretch of time.
	timeHeads = setOf(strings.Fields(`years year months month weeks week days day decades decade hours space period
		periods times`))
	// irregularParticiples are past participles without the -ed ending.
	irregularParticiples = setOf(strings.Fields(`made sent given taken held paid won built done torn sold bought
		brought sought told found spent lost kept left met begun known shown drawn grown chosen written spoken
		broken thrown worn sworn borne`))
	// edNouns end in -ed but are no participles.
	edNouns = setOf(strings.Fields(`hundred kindred seed seeds breed creed steed shed bed`))
	// placeHeads end the name of a place or a work named after a person
	// ("James River", "Jefferson Memorial").
	placeHeads = setOf(strings.Fields(`river memorial bridge canal county city fort hall university college
		island islands bay lake mountain mountains valley dam park building library school hospital act plan
		doctrine treaty award tariff`))
	// fixedPhraseNouns live only in a fixed phrase ("on behalf of", "in
	// lieu of"): a phrase they open is the rest of a phrase cut short.
	fixedPhraseNouns = setOf(strings.Fields(`behalf lieu spite regard respect present account view terms virtue
		dint`))
)
