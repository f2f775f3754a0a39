package offline

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file finds the concrete facts of a sentence (dates, sums of money,
// percentages, quantities and names) that nuggets ask about, and matches
// answers against text.

// factKind is the kind of a fact span.
type factKind uint8

const (
	factYear     factKind = iota // "1890", "1890s"
	factDate                     // "December 7, 1941", "7 December 1941", "the 10th of September", "December 1941"
	factMoney                    // "$1.2 billion", "300,000 dollars"
	factPercent                  // "3 percent", "12%", "4 per cent"
	factQuantity                 // "12,000 men", "two million acres", "1,500"
	factName                     // "McKinley Tariff", "Treaty of Ghent", "George Washington"
	// factPhrase is no fact of findFacts but the object of a preposition
	// that ends a clause ("had a marked effect on prices"), which nuggets
	// ask about when a sentence has few facts.
	factPhrase
)

// fact is a fact span of a sentence.
type fact struct {
	kind        factKind
	first, last int // token indexes, inclusive
	start, end  int // byte span of the answer in the sentence
	// noun is a quantity's unit ("men"), "" for a bare number.
	noun string
	// head is the noun a question about a name asks with ("treaty" for
	// "Treaty of Ghent"), "" when the name has none.
	head string
	// sort is the kind of name a question asks with when it has no head
	// and names no person: "country" for "Mexico", "government" for
	// "Government of Ecuador", "State" for "Texas". Unlike a head, it
	// changes only the question's wording, not how much the fact is worth
	// asking (factScore).
	sort string
	// person and place tell a name that reads as a person's (asked with
	// "who") or as a location after "in", "at", "from"... ("where").
	person, place bool
	// day marks a date with a day, decade a year such as "1890s".
	day, decade bool
	// generic marks a name made only of words capitalised in government
	// prose anyway and titles ("United States", "Federal Government",
	// "Mr. Speaker").
	generic bool
}

// concrete reports whether the fact is a date, an amount or a number: the
// facts most useful to a report.
func (f fact) concrete() bool { return f.kind != factName && f.kind != factPhrase }

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

var weekdays = map[string]bool{
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
}

var scaleWords = map[string]bool{
	"hundred": true, "thousand": true, "million": true, "billion": true, "trillion": true,
	"hundreds": true, "thousands": true, "millions": true, "billions": true, "trillions": true,
}

var currencyWords = map[string]bool{
	"dollar": true, "dollars": true, "cents": true, "euro": true, "euros": true, "pounds": true,
	"francs": true, "yen": true, "marks": true, "rubles": true, "pesos": true,
}

var currencySymbols = map[string]bool{"$": true, "£": true, "€": true, "¥": true}

// numberWords maps spelled-out numbers to digits. "one" is left out: it is
// far more often a pronoun ("one of the") than a count.
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
	"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
	"eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000", "million": "1000000",
	"billion": "1000000000", "dozen": "12",
}

// quantityModifiers come between a number and the noun it counts ("12,000
// more seamen").
// uncountedWords follow a number without being what it counts ("1860
// various declarations": a year, not "How many various ...?").
var uncountedWords = map[string]bool{"various": true, "several": true, "certain": true, "sundry": true, "numerous": true, "such": true, "same": true}

var quantityModifiers = map[string]bool{
	"more": true, "additional": true, "new": true, "other": true, "extra": true, "fewer": true, "less": true,
	"separate": true, "different": true, "distinct": true, "full": true, "whole": true,
}

// timePrepositions come before a year ("in 1890").
var timePrepositions = map[string]bool{
	"in": true, "since": true, "until": true, "till": true, "by": true, "from": true, "during": true,
	"before": true, "after": true, "of": true, "year": true, "to": true, "through": true, "on": true,
}

// placePrepositions come before a location ("troops landed in Cuba").
var placePrepositions = map[string]bool{
	"in": true, "at": true, "from": true, "near": true, "across": true, "throughout": true, "within": true, "into": true,
}

// nameConnectors may join the capitalised words of one name ("Treaty of
// Ghent", "Bank of the United States", "Ludwig van Beethoven").
var nameConnectors = map[string]bool{
	"of": true, "the": true, "for": true, "de": true, "del": true, "la": true, "le": true,
	"von": true, "van": true, "der": true, "da": true, "du": true, "&": true,
}

// titleWords open a person's name ("President Lincoln", "Secretary Hay").
var titleWords = map[string]bool{
	"president": true, "secretary": true, "senator": true, "governor": true, "general": true, "admiral": true,
	"captain": true, "colonel": true, "major": true, "lieutenant": true, "judge": true, "justice": true,
	"mr": true, "mr.": true, "mrs": true, "mrs.": true, "ms": true, "ms.": true, "dr": true, "dr.": true,
	"king": true, "queen": true, "emperor": true, "prince": true, "princess": true, "sir": true, "lord": true,
	"minister": true, "ambassador": true, "chancellor": true, "chairman": true, "commissioner": true,
	"representative": true, "speaker": true, "pope": true, "premier": true, "prime": true, "vice": true,
}

// genericCapitals are words that government prose capitalises without
// naming anything in particular. Alone they are no name; a name made only
// of them is generic.
var genericCapitals = map[string]bool{
	"government": true, "nation": true, "nations": true, "congress": true, "senate": true, "house": true,
	"state": true, "states": true, "union": true, "republic": true, "constitution": true, "treasury": true,
	"army": true, "navy": true, "executive": true, "president": true, "secretary": true, "department": true,
	"administration": true, "people": true, "country": true, "federal": true, "national": true,
	"territory": true, "territories": true, "legislature": true, "court": true, "commission": true,
	"committee": true, "bureau": true, "office": true, "act": true, "law": true, "bill": true, "treaty": true,
	"general": true, "chief": true, "representatives": true, "representative": true, "members": true,
	"member": true, "annual": true, "message": true, "session": true, "god": true, "providence": true,
	"fellow": true, "citizens": true, "united": true, "american": true, "americans": true, "america": true,
	"british": true, "english": true, "french": true, "german": true, "spanish": true, "mexican": true,
	"indian": true, "indians": true, "european": true, "chinese": true, "japanese": true, "russian": true,
	"soviet": true, "african": true, "christian": true, "christmas": true, "federalist": true,
	"democratic": true, "republican": true, "democrats": true, "republicans": true, "mr": true, "mr.": true,
	"i": true, "ok": true, "okay": true, "thank": true, "thanks": true, "applause": true, "laughter": true,
	"north": true, "south": true, "east": true, "west": true, "northern": true, "southern": true,
	"eastern": true, "western": true, "service": true, "public": true, "world": true, "internal": true,
	"revenue": true, "postal": true, "navy's": true, "army's": true, "nation's": true, "government's": true,
}

// abbreviatedTitles are titles written with a point ("Mr. Mizner").
var abbreviatedTitles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true, "gen": true,
	"col": true, "gov": true, "sen": true, "rep": true, "lt": true, "capt": true, "prof": true,
}

// firstNames are common given names: a capitalised run opening with one is
// taken for a person's name ("Who ...?").
var firstNames = setOf(strings.Fields(`aaron abraham adam albert alexander alfred alice allen andrew ann anna anne
	anthony arthur barack benjamin bill calvin carl carol catherine charles chester christopher daniel david
	donald dwight edward edwin elizabeth ellen emily frances francis frank franklin frederick george gerald
	grover harry helen henry herbert hillary howard hugh isaac jack james jane janet jefferson jimmy joe john
	johnson joseph kamala karl laura lawrence leonard lyndon margaret maria mark martha martin mary michael
	millard nancy nelson nicholas patrick paul peter philip rachel ralph richard robert ronald rose ruth samuel
	sarah stephen susan theodore thomas ulysses walter warren william woodrow zachary`))

// demonyms are capitalised adjectives of origin; a name holding one is not
// a person's.
var demonyms = map[string]bool{
	"american": true, "british": true, "english": true, "french": true, "german": true, "spanish": true,
	"mexican": true, "indian": true, "european": true, "chinese": true, "japanese": true, "russian": true,
	"soviet": true, "african": true, "canadian": true, "cuban": true, "italian": true, "austrian": true,
	"irish": true, "korean": true, "iraqi": true, "iranian": true, "israeli": true, "arab": true,
	"confederate": true, "atlantic": true, "pacific": true,
}

// headNouns map the word that says what kind of thing a name is to the
// noun a question asks with ("Which treaty ...?").
var headNouns = map[string]string{
	"act": "act", "bill": "bill", "law": "law", "tariff": "tariff", "treaty": "treaty", "convention": "convention",
	"agreement": "agreement", "accord": "accord", "accords": "agreement", "doctrine": "doctrine", "plan": "plan",
	"program": "program", "programme": "programme", "amendment": "amendment", "code": "code", "compromise": "compromise",
	"department": "department", "bureau": "bureau", "agency": "agency", "administration": "administration",
	"commission": "commission", "committee": "committee", "council": "council", "board": "board", "court": "court",
	"bank": "bank", "reserve": "institution", "company": "company", "corporation": "corporation", "party": "party",
	"army": "army", "navy": "navy", "corps": "corps", "fleet": "fleet", "river": "river", "canal": "canal",
	"lake": "lake", "island": "island", "islands": "islands", "mountains": "mountains", "ocean": "ocean",
	"sea": "sea", "bay": "bay", "gulf": "gulf", "city": "city", "county": "county", "territory": "territory",
	"republic": "country", "kingdom": "country", "empire": "empire", "states": "country", "nations": "organization",
	"university": "university", "college": "college", "war": "war", "battle": "battle", "exposition": "exposition",
	"exhibition": "exhibition", "conference": "conference", "declaration": "declaration",
	"proclamation": "proclamation", "association": "association", "union": "union", "organization": "organization",
	"organisation": "organisation", "alliance": "alliance", "pact": "pact", "fund": "fund", "service": "service",
	"system": "system", "authority": "authority", "institute": "institute", "foundation": "foundation",
	"initiative": "initiative", "policy": "policy", "project": "project", "mission": "mission", "office": "office",
	"ministry": "ministry", "railroad": "railroad", "railway": "railway", "harbor": "harbor", "harbour": "harbour",
	"district": "district", "province": "province", "state": "state", "revolution": "revolution", "crisis": "crisis",
	"depression": "depression", "deal": "program", "corporations": "corporations", "trust": "trust", "strait": "strait",
	"purchase": "purchase", "line": "line", "guard": "service", "force": "force", "forces": "forces",
}

// isMonth reports whether a word token names a month.
func isMonth(t token) bool {
	return t.kind == tokWord && t.capitalised() && months[strings.TrimSuffix(t.lower(), ".")]
}

// numberValue reads a number token or spelled-out number as an integer
// part ("1,000" is 1000, "3.5" is 3, "7th" is 7); ok is false for other
// tokens.
func numberValue(t token) (int, bool) {
	switch t.kind {
	case tokNumber:
		s := strings.TrimRightFunc(strings.ReplaceAll(t.text, ",", ""), unicode.IsLetter)
		if i := strings.IndexByte(s, '.'); i >= 0 {
			s = s[:i]
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	case tokWord:
		if d, ok := numberWords[t.lower()]; ok {
			n, _ := strconv.Atoi(d)
			return n, true
		}
	}
	return 0, false
}

// isPlainYear reports whether a number token is written like a year: four
// digits from 1000 to 2100, with no separators.
func isPlainYear(t token) bool {
	if t.kind != tokNumber || len(t.text) != 4 {
		return false
	}
	n, err := strconv.Atoi(t.text)
	return err == nil && n >= 1000 && n <= 2100
}

// isDecade reports whether a number token is a decade such as "1890s" or
// "1970's".
func isDecade(t token) bool {
	if t.kind != tokNumber || len(t.text) < 5 {
		return false
	}
	rest := t.text[4:]
	return (rest == "s" || rest == "'s" || rest == "’s") && isPlainYear(token{text: t.text[:4], kind: tokNumber})
}

// isOrdinal reports whether a number token is an ordinal ("19th", and
// the older "2d", "93d").
func isOrdinal(t token) bool {
	if t.kind != tokNumber {
		return false
	}
	l := strings.ToLower(t.text)
	return strings.HasSuffix(l, "th") || strings.HasSuffix(l, "st") || strings.HasSuffix(l, "nd") || strings.HasSuffix(l, "rd") ||
		strings.HasSuffix(l, "2d") || strings.HasSuffix(l, "3d")
}

// sentenceStart reports whether token i opens the sentence or a quotation
// or follows a colon, where any word is capitalised.
func sentenceStart(toks []token, i int) bool {
	if i == 0 {
		return true
	}
	p := toks[i-1]
	if p.kind != tokSymbol {
		return false
	}
	switch p.text {
	case ":", "\"", "“", "‘", "'", "(", "[", "—", "–", "-", ".", "!", "?", ";", "•", "*":
		return true
	}
	return false
}

// findFacts returns the fact spans of a sentence, in text order. Each
// token belongs to at most one fact; money, percentages and dates are
// claimed first, then years, quantities and names.
func (e *Engine) findFacts(text string, toks []token, wt *wordTerms) []fact {
	n := len(toks)
	claimed := make([]bool, n)
	var facts []fact
	claim := func(f fact) {
		for k := f.first; k <= f.last; k++ {
			claimed[k] = true
		}
		f.start, f.end = toks[f.first].start, toks[f.last].end
		facts = append(facts, f)
	}
	free := func(k int) bool { return k >= 0 && k < n && !claimed[k] }
	word := func(k int) string {
		if k < 0 || k >= n {
			return ""
		}
		return toks[k].lower()
	}
	// scaleEnd extends a number at k over following scale words.
	scaleEnd := func(k int) int {
		for k+1 < n && free(k+1) && scaleWords[word(k+1)] {
			k++
		}
		return k
	}

	// Money: "$1.2 billion", "300,000 dollars", "two million dollars".
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		if currencySymbols[toks[i].text] && free(i+1) && i+1 < n && toks[i+1].kind == tokNumber && toks[i+1].start == toks[i].end {
			claim(fact{kind: factMoney, first: i, last: scaleEnd(i + 1)})
			continue
		}
		if _, ok := numberValue(toks[i]); ok && !isOrdinal(toks[i]) && !isDecade(toks[i]) {
			end := scaleEnd(i)
			k := end + 1
			if word(k) == "of" && scaleWords[word(end)] { // "millions of dollars"
				k++
			}
			if free(k) && currencyWords[word(k)] {
				claim(fact{kind: factMoney, first: i, last: k})
			}
		}
	}
	// Percentages: "3 percent", "3 per cent", "12%", "3 percentage points".
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		if _, ok := numberValue(toks[i]); !ok || isOrdinal(toks[i]) || isDecade(toks[i]) {
			continue
		}
		k := i + 1
		switch {
		case k < n && toks[k].text == "%":
			claim(fact{kind: factPercent, first: i, last: k})
		case word(k) == "percent" || word(k) == "percentum":
			claim(fact{kind: factPercent, first: i, last: k})
		case word(k) == "per" && (word(k+1) == "cent" || word(k+1) == "centum"):
			claim(fact{kind: factPercent, first: i, last: k + 1})
		case word(k) == "percentage" && word(k+1) == "points":
			claim(fact{kind: factPercent, first: i, last: k + 1})
		}
	}
	// Dates: "December 7, 1941", "December 7", "December 1941", "7 December 1941".
	for i := 0; i < n; i++ {
		if !free(i) || !isMonth(toks[i]) {
			continue
		}
		if free(i+1) && i+1 < n && toks[i+1].kind == tokNumber && !isDecade(toks[i+1]) {
			if d, _ := numberValue(toks[i+1]); d >= 1 && d <= 31 && !isPlainYear(toks[i+1]) {
				last := i + 1
				k := i + 2
				if k < n && toks[k].text == "," {
					k++
				}
				if free(k) && k < n && isPlainYear(toks[k]) {
					last = k
				}
				claim(fact{kind: factDate, first: i, last: last, day: true})
				continue
			}
			if isPlainYear(toks[i+1]) {
				claim(fact{kind: factDate, first: i, last: i + 1})
				continue
			}
		}
		// "October, 1889".
		if i+2 < n && toks[i+1].text == "," && free(i+2) && isPlainYear(toks[i+2]) {
			claim(fact{kind: factDate, first: i, last: i + 2})
			continue
		}
		// "the 10th of September", "the 4th of December, 1888".
		if i > 1 && word(i-1) == "of" && free(i-2) && toks[i-2].kind == tokNumber {
			if d, _ := numberValue(toks[i-2]); d >= 1 && d <= 31 && !isPlainYear(toks[i-2]) {
				last := i
				k := i + 1
				if k < n && toks[k].text == "," {
					k++
				}
				if free(k) && k < n && isPlainYear(toks[k]) {
					last = k
				}
				claim(fact{kind: factDate, first: i - 2, last: last, day: true})
				continue
			}
		}
		if i > 0 && free(i-1) && toks[i-1].kind == tokNumber {
			if d, _ := numberValue(toks[i-1]); d >= 1 && d <= 31 && !isPlainYear(toks[i-1]) {
				last := i
				if free(i+1) && i+1 < n && isPlainYear(toks[i+1]) {
					last = i + 1
				}
				claim(fact{kind: factDate, first: i - 1, last: last, day: true})
			}
		}
	}
	// Years: "1890", "the 1890s". A four-digit number followed by a noun
	// ("2000 troops") is a quantity unless a time word comes before it.
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		if isDecade(toks[i]) {
			claim(fact{kind: factYear, first: i, last: i, decade: true})
			continue
		}
		if !isPlainYear(toks[i]) {
			continue
		}
		next := i + 1
		nounAfter := next < n && toks[next].kind == tokWord && !toks[next].capitalised() && wt.content(toks[next]) && !scaleWords[word(next)] &&
			!uncountedWords[word(next)]
		// "between 1823 and 1860 various declarations": the second year of a
		// pair is a year too.
		paired := i >= 2 && isPlainYear(toks[i-2]) && (word(i-1) == "and" || word(i-1) == "to" || word(i-1) == "or")
		if nounAfter && !paired && !timePrepositions[word(i-1)] && !determiners[word(i-1)] { // "the 1890 census" is a year
			continue
		}
		if next < n && (scaleWords[word(next)] || toks[next].text == "%") {
			continue
		}
		claim(fact{kind: factYear, first: i, last: i})
	}
	// Quantities: "12,000 men", "two million acres", "1,500".
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		t := toks[i]
		if _, ok := numberValue(t); !ok || isOrdinal(t) || isDecade(t) {
			continue
		}
		if i+1 < n && toks[i+1].start == t.end && (toks[i+1].text == "(" || toks[i+1].text == "-") {
			continue // "401(k)": a name, not a count
		}
		first := i
		k := i
		// "forty five", "two hundred and fifty": spelled-out numbers run on.
		for t.kind == tokWord && k+1 < n && free(k+1) {
			if numberWords[word(k+1)] != "" {
				k++
			} else if word(k+1) == "and" && k+2 < n && free(k+2) && numberWords[word(k+2)] != "" && scaleWords[word(k)] {
				k += 2
			} else {
				break
			}
		}
		k = scaleEnd(k)
		if word(k+1) == "of" && scaleWords[word(k)] && k+2 < n && free(k+2) { // "thousands of men"
			k++
		}
		nounAt := k + 1
		if free(nounAt) && nounAt < n && toks[nounAt].kind == tokWord && !toks[nounAt].capitalised() &&
			wt.phraseWord(toks[nounAt]) && !months[word(nounAt)] {
			last := nounAt
			// "12,000 more seamen": the counted noun follows the modifier.
			if quantityModifiers[word(nounAt)] && free(nounAt+1) && nounAt+1 < n && toks[nounAt+1].kind == tokWord &&
				!toks[nounAt+1].capitalised() && wt.phraseWord(toks[nounAt+1]) {
				last = nounAt + 1
				claim(fact{kind: factQuantity, first: first, last: last, noun: text[toks[nounAt].start:toks[last].end]})
				i = last
				continue
			}
			// A second word when the first reads as an adjective and the
			// second as a plural noun: "12,000 regular troops".
			if free(nounAt+1) && nounAt+1 < n && toks[nounAt+1].kind == tokWord && !toks[nounAt+1].capitalised() &&
				wt.phraseWord(toks[nounAt+1]) && strings.HasSuffix(word(nounAt+1), "s") && !strings.HasSuffix(word(nounAt), "s") {
				last = nounAt + 1
			}
			modifier := quantityModifiers[word(nounAt)] || countAdjectives[word(nounAt)] || adjectiveLike(word(nounAt))
			if last == nounAt && modifier {
				// "1,000 new Border Patrol agents", "ten small war
				// steamers", "250 toxic waste sites": the counted noun is
				// the plural a few words on. Without one a modifier is no
				// unit ("four new", "How many toxic ...?"): the figure is
				// taken as a bare number below.
				if end := countedPlural(toks, nounAt+1, free, wt); end > 0 {
					claim(fact{kind: factQuantity, first: first, last: end, noun: text[toks[nounAt].start:toks[end].end]})
					i = end
					continue
				}
			}
			if last > nounAt || !modifier {
				claim(fact{kind: factQuantity, first: first, last: last, noun: text[toks[nounAt].start:toks[last].end]})
				i = last
				continue
			}
		}
		// A bare number is a fact only when it is a real figure.
		if t.kind == tokNumber && (strings.ContainsAny(t.text, ",.") || len(t.text) >= 3 || k > i) {
			claim(fact{kind: factQuantity, first: first, last: k})
			i = k
		}
	}
	// Names: runs of capitalised words, joined by connectors.
	for i := 0; i < n; i++ {
		if !free(i) || !toks[i].capitalised() {
			continue
		}
		last := i
		k := i + 1
		for k < n && free(k) {
			t := toks[k]
			if t.capitalised() && !isMonth(t) {
				last = k
				k++
				continue
			}
			// "Franklin D. Roosevelt", "Mr. Mizner": the point of an initial
			// or a title's abbreviation.
			if t.text == "." && t.start == toks[k-1].end && k+1 < n && free(k+1) && toks[k+1].capitalised() &&
				(utf8.RuneCountInString(toks[k-1].text) == 1 || abbreviatedTitles[toks[k-1].lower()]) {
				k++
				continue
			}
			// Up to two connectors followed by a capitalised word.
			c := k
			for c < n && c-k < 2 && free(c) && nameConnectors[toks[c].lower()] && (toks[c].kind == tokWord && !toks[c].capitalised() || toks[c].text == "&") {
				c++
			}
			if c > k && c < n && free(c) && toks[c].capitalised() && !isMonth(toks[c]) {
				k = c
				continue
			}
			break
		}
		next := last + 1
		first := i
		// Leading stop words and conjunctions ("The", "In", "Our",
		// "Whereas") are not part of the name.
		for first <= last && (!wt.phraseWord(toks[first]) || toks[first].kind != tokWord || clauseOpeners[toks[first].lower()] ||
			discourseAdverbs[toks[first].lower()] || conditionals[toks[first].lower()]) {
			first++
		}
		// So are trailing ones ("RAILWAYS We" of a heading run into a
		// sentence).
		for last >= first && (!wt.content(toks[last]) || toks[last].kind != tokWord) {
			last--
		}
		if first > last {
			i = next - 1
			continue
		}
		// A sentence's first word is capitalised anyway: "Yesterday
		// President Lincoln", "Later Congress" are no names from there.
		atStart := sentenceStart(toks, i) && first == i
		if atStart && first < last && (titleWords[toks[first+1].lower()] || e.common[firstTerm(wt, toks[first])] ||
			functionWords[toks[first].lower()] || discourseAdverbs[toks[first].lower()] || strings.HasSuffix(toks[first].lower(), "ly")) {
			first++
			atStart = false
		}
		f, ok := e.nameFact(toks, first, last, atStart, wt)
		if ok {
			claim(f)
		}
		i = next - 1
	}
	// "the 10th of September last": the date takes "last" or "next".
	for i := range facts {
		f := &facts[i]
		if f.kind == factDate && f.last+1 < n && !claimed[f.last+1] && (word(f.last+1) == "last" || word(f.last+1) == "next") {
			f.last++
			f.end = toks[f.last].end
			claimed[f.last] = true
		}
	}
	sortFacts(facts)
	return facts
}

// nameFact classifies the name toks[first..last]; ok is false when it is
// no useful name (a single capitalised word opening the sentence, a month,
// a title alone, a generic word).
func (e *Engine) nameFact(toks []token, first, last int, atStart bool, wt *wordTerms) (fact, bool) {
	f := fact{kind: factName, first: first, last: last}
	var words []string
	hasConnector := false
	// ofAt is how many words precede the name's first connecting word
	// ("of" in "Supreme Court of the United States": 2), -1 when it has
	// none.
	ofAt := -1
	initial := false
	for k := first; k <= last; k++ {
		w := strings.TrimSuffix(strings.TrimSuffix(toks[k].lower(), "'s"), "’s")
		switch {
		case toks[k].text == ".":
			if utf8.RuneCountInString(toks[k-1].text) == 1 {
				initial = true
			}
		case toks[k].kind != tokWord || (!toks[k].capitalised() && nameConnectors[w]):
			hasConnector = true
			if toks[k].kind == tokWord && ofAt < 0 {
				ofAt = len(words)
			}
		default:
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return f, false
	}
	if len(words) == 1 {
		w := words[0]
		if singular := strings.TrimSuffix(w, "s"); genericCapitals[singular] {
			return f, false // "Houses", "Governments"
		}
		_, isHead := headNouns[w]
		if atStart || strings.HasSuffix(w, "ing") || months[w] || weekdays[w] || titleWords[w] || genericCapitals[w] || demonyms[w] || isHead ||
			utf8.RuneCountInString(w) < 2 {
			return f, false
		}
		// "State-administered": a compound adjective.
		if i := strings.IndexAny(toks[first].text, "-"); i >= 0 && i+1 < len(toks[first].text) {
			if r, _ := utf8.DecodeRuneInString(toks[first].text[i+1:]); unicode.IsLower(r) {
				return f, false
			}
		}
		// "a Presidential message", "the Dominican tariff": a capitalised
		// adjective, not a name.
		if first > 0 && determiners[toks[first-1].lower()] && last+1 < len(toks) &&
			toks[last+1].kind == tokWord && !toks[last+1].capitalised() && wt.content(toks[last+1]) {
			return f, false
		}
	}
	generic := true
	for _, w := range words {
		if !genericCapitals[w] && !demonyms[w] && !titleWords[w] && !abbreviatedTitles[w] {
			generic = false
		}
	}
	f.generic = generic
	lastWord := words[len(words)-1]
	// The head of a name with a connecting word is the word before it
	// ("Treaty of Ghent", "Bureau of Trade Relations of the Department of
	// State", "Supreme Court of the United States": not "States"); a name
	// such as "Secretaries of War" or "One-fourth of the States" has none
	// the questions know. Without one, it is the last word ("Panama
	// Canal").
	if ofAt > 0 {
		f.head = headNouns[words[ofAt-1]]
	}
	if f.head == "" && titleWords[words[0]] && len(words) > 1 {
		f.person = true // "President Lincoln", "Secretary of State"
	} else if h, ok := headNouns[lastWord]; ok && f.head == "" && ofAt < 0 && len(words) > 1 {
		f.head = h
	}
	if f.head == "" && !f.person && len(words) >= 2 && len(words) <= 4 && !hasConnector && !generic {
		// A person's name: a common first name or an initial ("Franklin D.
		// Roosevelt", "John Hay").
		f.person = firstNames[words[0]] || initial
		for _, w := range words {
			if demonyms[w] || genericCapitals[w] {
				f.person = false
			}
		}
	}
	if f.head == "" && !f.person {
		f.sort = nameSort(words, ofAt)
	}
	if f.head == "" && !f.person {
		before := first - 1
		if before > 0 && toks[before].is("the") {
			before-- // "in the Philippines"
		}
		f.place = before >= 0 && placePrepositions[toks[before].lower()]
	}
	return f, true
}

// nameSort is the kind of name (fact.sort) of a name's words (lower
// case, connecting words left out; ofAt as in nameFact): a country or a
// State of the Union by its name, a government by its head word
// ("Government of Ecuador", "Swiss Government"); "" otherwise.
func nameSort(words []string, ofAt int) string {
	name := strings.Join(words, " ")
	switch {
	case ofAt > 0 && words[ofAt-1] == "government", ofAt < 0 && len(words) > 1 && words[len(words)-1] == "government":
		return "government"
	case countries[name]:
		return "country"
	case unionStates[name]:
		return "State"
	}
	return ""
}

// countries are names of countries, as the addresses write them from
// 1790 on (lower case, connecting words such as "of" left out).
var countries = setOf([]string{
	"afghanistan", "albania", "algeria", "angola", "argentina", "armenia", "australia", "austria", "austria-hungary",
	"bangladesh", "belgium", "bolivia", "bosnia", "brazil", "bulgaria", "burma", "cambodia", "canada", "chile", "chili",
	"china", "colombia", "costa rica", "croatia", "cuba", "czechoslovakia", "denmark", "ecuador", "egypt",
	"el salvador", "england", "ethiopia", "finland", "france", "germany", "great britain", "greece", "guatemala",
	"haiti", "hayti", "honduras", "hungary", "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy",
	"japan", "kenya", "korea", "north korea", "south korea", "kuwait", "laos", "lebanon", "liberia",
	"libya", "mexico", "morocco", "netherlands", "new zealand", "nicaragua", "nigeria", "norway", "pakistan",
	"panama", "paraguay", "persia", "peru", "poland", "portugal", "prussia", "romania", "roumania", "russia",
	"santo domingo", "saudi arabia", "serbia", "siam", "somalia", "south africa", "soviet union", "spain",
	"sudan", "sweden", "switzerland", "syria", "taiwan", "thailand", "turkey", "uganda", "ukraine", "united kingdom",
	"uruguay", "venezuela", "vietnam", "viet-nam", "yugoslavia", "zimbabwe",
})

// unionStates are the States of the Union by name (lower case), but
// Washington and New York, more often the President, the capital or the
// city.
var unionStates = setOf([]string{
	"alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida",
	"georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine",
	"maryland", "massachusetts", "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska",
	"nevada", "new hampshire", "new jersey", "new mexico", "north carolina", "north dakota", "ohio",
	"oklahoma", "oregon", "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas",
	"utah", "vermont", "virginia", "west virginia", "wisconsin", "wyoming",
})

// firstTerm is the first index term of a word, "" for a stop word.
func firstTerm(wt *wordTerms, t token) string {
	if ts := wt.of(t.text); len(ts) > 0 {
		return ts[0]
	}
	return ""
}

// sortFacts orders facts by position.
func sortFacts(fs []fact) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].start < fs[j-1].start; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// answerText is the answer a fact gives: its text in the sentence, without
// a possessive ending.
func answerText(text string, f fact) string {
	s := text[f.start:f.end]
	if f.kind == factName {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
	}
	return strings.TrimSpace(s)
}

// normalize turns text into the comparison form of answers: the analyzer's
// terms of its words (lower case, stemmed, stop words out), numbers
// without thousands separators, spelled-out numbers as digits, "%" and "per
// cent" as the term of "percent", currency signs and words left out.
func normalize(text string, wt *wordTerms) []string {
	toks := tokenize(text)
	var out []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tokNumber:
			out = append(out, strings.ToLower(strings.ReplaceAll(t.text, ",", "")))
		case tokSymbol:
			if t.text == "%" {
				out = append(out, wt.of("percent")...)
			}
		case tokWord:
			l := t.lower()
			switch {
			case numberWords[l] != "" && !scaleWords[l]:
				out = append(out, numberWords[l])
			case l == "per" && i+1 < len(toks) && (toks[i+1].is("cent") || toks[i+1].is("centum")):
				out = append(out, wt.of("percent")...)
				i++
			case l == "percentum":
				out = append(out, wt.of("percent")...)
			case currencyWords[l] && (l == "dollar" || l == "dollars"):
			default:
				out = append(out, wt.of(t.text)...)
			}
		}
	}
	return out
}

// answerMatch scores how well text (normalised) states the answer
// (normalised): 1 when it holds the answer's terms in a row; 0.85 when it
// holds all of them in another order (close together when the answer has
// a number: "7 December 1941" for "December 7, 1941", but not "each year
// ... $15" for "15 years"); 0.6 when it holds all the answer's numbers but
// not the rest; else half the share of its terms held.
func answerMatch(text, answer []string) float64 {
	if len(answer) == 0 || len(text) == 0 {
		return 0
	}
	if containsRun(text, answer) {
		return 1
	}
	have := setOf(text)
	held, numbers, numbersHeld := 0, 0, 0
	for _, a := range answer {
		isNum := a != "" && unicode.IsDigit(rune(a[0]))
		if isNum {
			numbers++
		}
		if have[a] {
			held++
			if isNum {
				numbersHeld++
			}
		}
	}
	switch {
	case held == len(answer) && (numbers == 0 || withinWindow(text, answer, len(answer)+1)):
		return 0.85
	case numbers > 0 && numbersHeld == numbers:
		return 0.6
	}
	return 0.5 * float64(held) / float64(len(answer))
}

// withinWindow reports whether some run of size elements of text holds
// every element of want.
func withinWindow(text, want []string, size int) bool {
	for i := 0; i < len(text); i++ {
		end := min(len(text), i+size)
		all := true
		for _, w := range want {
			found := false
			for _, t := range text[i:end] {
				if t == w {
					found = true
					break
				}
			}
			if !found {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// containsRun reports whether run occurs in s as consecutive elements.
func containsRun(s, run []string) bool {
	for i := 0; i+len(run) <= len(s); i++ {
		ok := true
		for j := range run {
			if s[i+j] != run[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// answerKind guesses the kind of fact an answer is, from the answer
// alone: the kind of the fact that covers most of it, or factName for
// anything else.
func (e *Engine) answerKind(answer string, wt *wordTerms) (factKind, bool) {
	toks := tokenize(answer)
	facts := e.findFactsLoose(answer, toks, wt)
	best, bestLen := fact{}, 0
	for _, f := range facts {
		if l := f.end - f.start; l > bestLen {
			best, bestLen = f, l
		}
	}
	if bestLen == 0 || bestLen*2 < len(strings.TrimSpace(answer)) {
		return factName, false
	}
	return best.kind, true
}

// findFactsLoose finds facts in a short text that is not a sentence (an
// answer), where a single capitalised word opening it may be a name.
func (e *Engine) findFactsLoose(text string, toks []token, wt *wordTerms) []fact {
	// A leading placeholder keeps the first word from counting as a
	// sentence opening.
	shifted := make([]token, 0, len(toks)+1)
	shifted = append(shifted, token{text: "x", kind: tokWord, start: 0, end: 0})
	shifted = append(shifted, toks...)
	facts := e.findFacts(text, shifted, wt)
	for i := range facts {
		facts[i].first--
		facts[i].last--
	}
	return facts
}

// adjectiveSuffixes end words that read as adjectives rather than as the
// unit a number counts ("categorical", "toxic", "federal", "various",
// "additional", "productive").
var adjectiveSuffixes = []string{"ic", "al", "ous", "ful", "ive", "able", "ible", "ary"}

// countAdjectives are adjectives that come between a number and what it
// counts without an adjective's ending ("ten small war steamers", "two
// great divisions of the Cherokee Nation").
var countAdjectives = setOf(strings.Fields(`great small large big important principal last first main chief
	major minor old young good leading`))

// countedPlural returns the index of the plural noun that ends the counted
// phrase opening at toks[j] after a number and a modifier: within
// countedWords words, each a word of the sentence not yet claimed
// (capitalised or a content word), the first plural ("agents" of "Border
// Patrol agents", "States" of "American States"); 0 when there is none.
func countedPlural(toks []token, j int, free func(int) bool, wt *wordTerms) int {
	for k := j; k < len(toks) && k < j+countedWords; k++ {
		t := toks[k]
		if !free(k) || t.kind != tokWord || !(t.capitalised() || wt.phraseWord(t)) {
			return 0
		}
		l := t.lower()
		if len(l) > 3 && strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us") && !strings.HasSuffix(l, "is") {
			return k
		}
	}
	return 0
}

// countedWords bounds the words between a number's modifier and the
// plural it counts (see countedPlural).
const countedWords = 3

// adjectiveLike reports whether a lower-case word after a number reads as
// an adjective: a hyphenated compound that is not plural ("fourth-class",
// "able-bodied") or a word with an adjective's ending.
func adjectiveLike(w string) bool {
	if strings.Contains(w, "-") {
		return !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "ous")
	}
	for _, suf := range adjectiveSuffixes {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}
