package offline

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Bounds of nugget questions, in words.
const (
	minQuestionWords = 4
	maxQuestionWords = 32
	// maxClauseQuestionWords bounds the words other than names of a
	// question made from a sentence's clause (see
	// readableClauseQuestion): of the longer ones, most read badly.
	maxClauseQuestionWords = 16
	// nuggetsPerSentence bounds the nuggets drawn from one summary sentence.
	nuggetsPerSentence = 2
	// keyphraseWords bounds the words of a template question's keyphrase.
	keyphraseWords = 9
	// wholeSentenceWords is the longest sentence whose question keeps all
	// of it up to the fact's clause (the context before it, where the
	// subject usually is).
	wholeSentenceWords = 28
)

// nuggets turns a summary into question-and-answer nuggets.
//
// Every fact span of every summary sentence (see findFacts: dates, sums of
// money, percentages, quantities, names) is a candidate answer, taken as
// the sentence writes it. Its question restates the clause holding it with
// the fact replaced by a wh-phrase of the fact's kind, in place (see
// clauseQuestion): "In 1890 Congress passed the McKinley Tariff." asks
// "Congress passed the McKinley Tariff in what year?", and "The tariff
// raised duties by 3 percent." asks "The tariff raised duties by what
// percentage?". A phrase holding the fact that opens the clause or is set
// off by commas moves to the end; a fact that is the clause's subject
// becomes its wh-word ("Which treaty ended the war?"); a clause too long
// for a question loses its parenthetical phrases. When the clause still
// makes no good question (too long or short, no verb, a pronoun such as
// "he", "it" or "we" that leans on context, the fact used as a modifier as
// in "the 1890 census", or coordinated with another name), a template
// question names the fact's kind and the sentence's best noun phrase
// instead ("What year is given for the tariff bill?", see keyphrase).
//
// Candidates are scored by the kind of fact (dates, sums and percentages
// first, then quantities and names) times 1 plus the request weight of the
// sentence's terms. Names made only of words such as "United States", and
// answers made only of the request's own terms that the request also
// writes as such (its subject, or a year its title names) are no news and
// are left out; "Department of Energy" for a request that speaks of "the
// new department" of an energy crisis is news. Sentences with fewer than two facts may also give a
// definition ("What is the broader task of preventing unemployment?") or
// the object their clause ends on ("... attributed to what?"), worth less
// than a fact (see phrases.go). Each sentence gives at most two nuggets
// with distinct answers (compared normalised); the most relevant sentences
// give first, one nugget per sentence per round, so the nuggets spread
// over the summary. At most in.Max (or prompts.DefaultMaxNuggets) nuggets,
// NONE when the summary gives none.
func (e *Engine) nuggets(in prompts.NuggetsInput) []prompts.QA {
	max := in.Max
	if max <= 0 {
		max = prompts.DefaultMaxNuggets
	}
	prof := e.profileOf(in.Request)
	wt := e.newWordTerms()
	summary := strings.Join(strings.Fields(in.Summary), " ")
	// The parts of the request, for the questions no clause of their
	// sentence asks well (see topicQuestion).
	facets := e.facets(prompts.FacetsInput{Request: in.Request})
	matcher := pipeline.NewFacetMatcher(facets, e.an.Terms)
	said := normalize(in.Request.Title+" . "+in.Request.ProblemStatement+" . "+in.Request.Background, wt)
	// noNews: an answer made only of the request's terms that the request
	// also writes as such ("1980" of "1973-1980", "Project Independence")
	// tells the requester nothing new; "Department of Energy" for "the new
	// department" of an energy request does.
	noNews := func(answer string) bool {
		return allIn(e.an.Terms(answer), prof.weight) && containsRun(said, normalize(answer, wt))
	}

	type candidate struct {
		qa    prompts.QA
		key   string
		score float64
	}
	type sentence struct {
		relevance float64
		cands     []candidate
	}
	var sents []sentence
	spans := e.an.Sentences(summary)
	cases := caseUseOf(summary, spans)
	for _, sp := range spans {
		if sp.Start < 0 || sp.End > len(summary) || sp.Start >= sp.End {
			continue
		}
		s := summary[sp.Start:sp.End]
		relevance := 0.0
		core := 0
		for _, t := range distinct(e.an.Terms(s)) {
			relevance += prof.weight[t]
			if prof.isCore(t) {
				core++
			}
		}
		toks := tokenize(s)
		st := sentence{relevance: relevance}
		// A sentence asks about a part of the request (topicQuestion)
		// only when it speaks of the request in two of its own terms: the
		// question's words then say what the sentence is about.
		topic := ""
		if core >= topicMinCoreTerms {
			topic = topicOf(matcher, facets, s)
		}
		facts := e.findFacts(s, toks, wt)
		for _, f := range facts {
			answer := answerText(s, f)
			key := strings.Join(normalize(answer, wt), " ")
			if key == "" {
				continue
			}
			if f.kind == factName && f.generic || noNews(answer) {
				continue // "United States", or what the request already says: no news
			}
			q := e.question(s, toks, f, prof, wt, topic, cases)
			if q == "" || !readableQuestion(q) {
				continue
			}
			score := factValue(f) * (1 + relevance)
			st.cands = append(st.cands, candidate{qa: prompts.QA{Question: q, Answer: answer}, key: key, score: score})
		}
		// Sentences with at most one fact may also give a definition or the
		// object their clause ends on.
		if len(st.cands) < nuggetsPerSentence {
			if qa, ok := e.copulaNugget(s, toks, wt); ok && readableQuestion(qa.Question) {
				qa.Question = cases.fix(qa.Question) // "What is climate change?"
				if key := strings.Join(normalize(qa.Answer, wt), " "); key != "" {
					st.cands = append(st.cands, candidate{qa: qa, key: key, score: copulaValue * (1 + relevance)})
				}
			}
		}
		if len(st.cands) < nuggetsPerSentence {
			if f, ok := e.objectFact(toks, facts, wt); ok {
				answer := answerText(s, f)
				key := strings.Join(normalize(answer, wt), " ")
				ls, ltoks := cases.lowerOpener(s, toks)
				if q := cases.fix(e.clauseQuestion(ls, ltoks, f, wt)); q != "" && readableClauseQuestion(q) && key != "" && !noNews(answer) {
					score := phraseValue * (1 + relevance)
					st.cands = append(st.cands, candidate{qa: prompts.QA{Question: q, Answer: answer}, key: key, score: score})
				}
			}
		}
		sort.SliceStable(st.cands, func(i, j int) bool { return st.cands[i].score > st.cands[j].score })
		sents = append(sents, st)
	}
	sort.SliceStable(sents, func(i, j int) bool { return sents[i].relevance > sents[j].relevance })

	var out []prompts.QA
	seen := map[string]bool{}
	taken := make([]int, len(sents))
	next := make([]int, len(sents))
	for round := 0; round < nuggetsPerSentence && len(out) < max; round++ {
		for i := range sents {
			if len(out) >= max {
				break
			}
			for next[i] < len(sents[i].cands) && taken[i] <= round {
				c := sents[i].cands[next[i]]
				next[i]++
				if seen[c.key] {
					continue
				}
				seen[c.key] = true
				taken[i]++
				out = append(out, c.qa)
				break
			}
		}
	}
	return out
}

// factValue is the prior worth of a kind of fact as a nugget answer.
func factValue(f fact) float64 {
	switch f.kind {
	case factMoney, factPercent:
		return 1
	case factDate:
		if f.day {
			return 1
		}
		return 0.95
	case factYear:
		return 0.9
	case factQuantity:
		if f.noun != "" {
			return 0.85
		}
		return 0.6
	}
	switch {
	case f.generic:
		return 0.2
	case f.person, f.head != "":
		return 0.8
	}
	return 0.6
}

// allIn reports whether every term of ts has a weight in w (and there is
// at least one).
func allIn(ts []string, w map[string]float64) bool {
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if w[t] == 0 {
			return false
		}
	}
	return true
}

// whPhrase is the question phrase that asks for a fact.
func whPhrase(f fact) string {
	switch f.kind {
	case factYear:
		if f.decade {
			return "what decade"
		}
		return "what year"
	case factDate:
		if f.day {
			return "what date"
		}
		return "what month"
	case factMoney:
		return "how much"
	case factPercent:
		return "what percentage"
	case factQuantity:
		if f.noun != "" {
			return "how many " + f.noun
		}
		return "what number"
	}
	switch {
	case f.head != "":
		return "which " + f.head
	case f.person:
		return "who"
	case f.place:
		return "where" // "troops landed in Cuba": where, not which country
	case f.sort != "":
		return "which " + f.sort
	}
	return "what"
}

// Word classes of question building.
var (
	coordinators  = map[string]bool{"and": true, "but": true, "or": true, "yet": true, "so": true, "nor": true}
	clauseOpeners = map[string]bool{
		"while": true, "whereas": true, "although": true, "though": true, "when": true, "because": true,
		"as": true, "whilst": true,
	}
	// discourseAdverbs link a sentence to the one before; a question goes
	// without them.
	discourseAdverbs = map[string]bool{
		"thus": true, "hence": true, "therefore": true, "moreover": true, "furthermore": true, "however": true,
		"also": true, "accordingly": true, "consequently": true, "indeed": true, "besides": true, "still": true,
		"nevertheless": true, "nonetheless": true, "again": true, "finally": true, "further": true, "meanwhile": true,
		"and": true, "but": true, "so": true, "yet": true,
	}
	relativeOpeners = map[string]bool{"which": true, "who": true, "whom": true, "whose": true, "where": true}
	conditionals    = map[string]bool{"if": true, "unless": true, "whether": true}
	dropBeforeFact  = map[string]bool{
		"the": true, "a": true, "an": true, "about": true, "nearly": true, "approximately": true, "almost": true,
		"roughly": true, "some": true, "around": true, "just": true,
	}
	determiners  = map[string]bool{"the": true, "a": true, "an": true, "this": true, "its": true, "our": true, "their": true, "his": true, "her": true}
	prepositions = map[string]bool{
		"in": true, "on": true, "at": true, "by": true, "since": true, "until": true, "till": true, "from": true,
		"during": true, "before": true, "after": true, "of": true, "to": true, "for": true, "through": true,
		"within": true, "into": true, "near": true, "across": true, "throughout": true, "over": true, "under": true,
	}
	// pronouns make a question lean on its context; possessives of the
	// first and third person become "the".
	pronouns = map[string]bool{
		"he": true, "she": true, "him": true, "her": true, "it": true, "they": true, "them": true,
		"this": true, "these": true, "those": true, "we": true, "us": true, "i": true, "me": true,
		"you": true, "hers": true, "ours": true, "theirs": true, "mine": true, "yours": true,
		"himself": true, "herself": true, "itself": true, "themselves": true, "ourselves": true,
	}
	possessives = map[string]bool{"our": true, "their": true, "its": true, "his": true, "my": true, "your": true}
	// phraseOpeners are the prepositions beyond prepositions after which a
	// keyphrase may open ("dependent upon foreign oil imports").
	phraseOpeners = map[string]bool{
		"upon": true, "with": true, "against": true, "among": true, "between": true, "toward": true,
		"towards": true, "without": true, "beyond": true, "along": true, "around": true, "via": true, "about": true,
	}
)

// question builds the question of a fact of sentence s (see nuggets); ""
// when neither the clause nor the template gives one. A question made
// from the clause has its words' case set by cases (see caseUse.fix).
func (e *Engine) question(s string, toks []token, f fact, prof profile, wt *wordTerms, topic string, cases caseUse) string {
	ls, ltoks := cases.lowerOpener(s, toks)
	if q := cases.fix(e.clauseQuestion(ls, ltoks, f, wt)); q != "" && readableClauseQuestion(q) {
		return q
	}
	return e.templateQuestion(s, toks, f, prof, wt, topic, cases)
}

// clauseBoundary reports whether token b ends a clause: a semicolon, colon,
// dash or bracket, or a comma before a conjunction or relative pronoun.
func clauseBoundary(toks []token, b int) bool {
	t := toks[b]
	if t.kind != tokSymbol {
		return false
	}
	switch t.text {
	case ";", ":", "—", "–", "(", ")", "[", "]":
		return true
	case "-":
		return b > 0 && b+1 < len(toks) && toks[b-1].end < t.start && t.end < toks[b+1].start
	case ",":
		if b+1 >= len(toks) {
			return false
		}
		w := toks[b+1].lower()
		switch {
		case coordinators[w]:
			// ", and the army ...": a new clause only when a subject
			// seems to follow; ", and only awaits ..." shares the
			// subject before it.
			return b+2 < len(toks) && subjectStart(toks[b+2])
		case clauseOpeners[w], relativeOpeners[w], conditionals[w]:
			return true
		}
	}
	return false
}

// subjectStart reports whether a token can open a clause's subject: a
// determiner or pronoun, a capitalised word or a number.
func subjectStart(t token) bool {
	switch t.kind {
	case tokNumber:
		return true
	case tokWord:
		l := t.lower()
		return t.capitalised() || determiners[l] || pronouns[l] || possessives[l] || l == "that" || l == "some" ||
			l == "many" || l == "most" || l == "all" || l == "each" || l == "every" || l == "no" || l == "such"
	}
	return currencySymbols[t.text]
}

// hardBoundary reports whether token b ends a clause for certain: a
// semicolon, colon, dash or bracket.
func hardBoundary(toks []token, b int) bool {
	return clauseBoundary(toks, b) && toks[b].text != ","
}

// clauseQuestion asks for f within its clause; "" when the clause does
// not make a good question.
func (e *Engine) clauseQuestion(s string, toks []token, f fact, wt *wordTerms) string {
	n := len(toks)
	words := countWords(toks)
	// The clause: back to the last boundary before the fact (only a hard
	// one in a short sentence, whose other clauses keep the subject and
	// context), on to the next boundary after it.
	cs, ce := 0, n
	for b := f.first - 1; b >= 0; b-- {
		if hardBoundary(toks, b) || words > wholeSentenceWords && clauseBoundary(toks, b) {
			cs = b + 1
			break
		}
	}
	for b := f.last + 1; b < n; b++ {
		if clauseBoundary(toks, b) || toks[b].text == "," && b+1 < n && coordinators[toks[b+1].lower()] {
			ce = b
			break
		}
	}
	// A sentence's closing punctuation is not part of the clause.
	for ce > f.last+1 && toks[ce-1].kind == tokSymbol && strings.Contains(".!?\"”’'", toks[ce-1].text) {
		ce--
	}
	// "Thus, ...", "And ...": linking words go.
	for cs < f.first && toks[cs].kind == tokWord && discourseAdverbs[toks[cs].lower()] {
		cs++
		if cs < f.first && toks[cs].text == "," {
			cs++
		}
	}
	// "I recommend that Congress appropriate ...": the speaker's framing
	// goes when a subject follows "that".
	if cs < f.first && (toks[cs].is("I") || toks[cs].is("we")) {
		for k := cs + 1; k < f.first && k <= cs+4; k++ {
			if toks[k].kind != tokWord {
				break
			}
			if toks[k].is("that") {
				if k+1 < f.first+1 && k+1 < n && subjectStart(toks[k+1]) && !pronouns[toks[k+1].lower()] {
					cs = k + 1
				}
				break
			}
		}
	}
	if cs < f.first {
		w := toks[cs].lower()
		switch {
		case conditionals[w]:
			return ""
		case relativeOpeners[w]:
			// "..., which raised duties by 3 percent": keep the clause the
			// relative pronoun refers to.
			prev := 0
			for b := cs - 2; b >= 0; b-- {
				if clauseBoundary(toks, b) {
					prev = b + 1
					break
				}
			}
			if prev < cs-1 {
				cs = prev
			}
		case clauseOpeners[w] || coordinators[w]:
			cs++
		}
	}
	// Words dropped before the fact ("the", "about") and a preposition
	// that the wh-phrase changes or takes with it.
	p := f.first - 1
	for p >= cs && toks[p].kind == tokWord && dropBeforeFact[toks[p].lower()] {
		p--
	}
	wh := whPhrase(f)
	prep := ""
	if p >= cs && toks[p].kind == tokWord && prepositions[toks[p].lower()] {
		prep = toks[p].lower()
		if f.kind == factDate && f.day && prep == "in" {
			prep = "on"
		}
		p--
	}
	if wh == "where" {
		if prep == "" {
			wh = "what" // no place preposition: a subject or object
		} else {
			prep = "" // "landed in Cuba": "landed where"
		}
	}
	// A fact used as a modifier ("the 1890 census", "the Department of
	// Labor index") cannot be replaced by a wh-phrase. A following word in
	// -ed or -ing is taken for a verb ("the McKinley Tariff raised").
	// "in the 1970's", "on the 10th of September" are time phrases whose
	// article goes with the fact.
	timePhrase := (f.kind == factYear || f.kind == factDate) && f.first >= 2 && timePrepositions[toks[f.first-2].lower()]
	if f.first > cs && determiners[toks[f.first-1].lower()] && f.last+1 < ce && !(f.kind == factDate && f.day) && !timePhrase {
		nt := toks[f.last+1]
		l := nt.lower()
		if nt.kind == tokWord && !nt.capitalised() && wt.content(nt) && !strings.HasSuffix(l, "ing") && !strings.HasSuffix(l, "ed") &&
			!numberWordsOrScale(l) {
			return ""
		}
	}
	// An appositive (", President Clinton,") is no place for a wh-phrase.
	if prep == "" && p >= cs && p == f.first-1 && toks[p].text == "," && f.last+1 < len(toks) && toks[f.last+1].text == "," {
		return ""
	}
	// A fact coordinated with another ("Puerto Rico and the Philippines
	// hold ...") or offered as another name (", or SALT") makes an awkward
	// wh-phrase.
	if f.last+2 < ce && (toks[f.last+1].is("and") || toks[f.last+1].is("or")) && subjectStart(toks[f.last+2]) ||
		f.first >= 2 && toks[f.first-1].is("or") && toks[f.first-2].text == "," {
		return ""
	}
	// A phrase holding the fact moves to the end of the question when it
	// opens the clause ("In 1890, Congress passed ...", "During the six
	// months prior to June 30, 1887, the surplus grew ...") or is set off
	// by commas after a preposition (", by its joint resolution of April
	// 20, 1898,"): movedFrom is its first token, -1 when there is none.
	afterFact := f.last + 1
	for afterFact < ce && toks[afterFact].text == "," && dateComma(toks, afterFact) {
		afterFact++
	}
	movedFrom := -1
	phraseEnds := afterFact >= ce || toks[afterFact].text == ","
	switch {
	case p < cs && prep != "":
		movedFrom = cs // the preposition and the fact alone
	case p >= cs && toks[cs].kind == tokWord && prepositions[toks[cs].lower()] && afterFact < ce && toks[afterFact].text == ",":
		movedFrom = cs
	case phraseEnds && p >= cs:
		for a := p; a > cs; a-- {
			if toks[a].text == "," && !dateComma(toks, a) {
				if a+1 < n && toks[a+1].kind == tokWord && prepositions[toks[a+1].lower()] {
					movedFrom = a + 1
				}
				break
			}
		}
	}
	// The question ends at the first comma after the fact, except after a
	// moved phrase: what follows is other news.
	if movedFrom < 0 {
		for b := f.last + 1; b < ce; b++ {
			if toks[b].text == "," && !dateComma(toks, b) {
				ce = b
				break
			}
		}
	}
	// A clause too long for a question loses its parenthetical phrases
	// (", under which the canal was made possible,"), longest first.
	removed := make([]bool, n)
	keep := min(p+1, f.first) // the fact with its preposition and article
	if p < cs {
		keep = cs
	}
	if countWords(toks[cs:ce]) > maxQuestionWords-2 {
		type segment struct{ open, close, words int }
		var segs []segment
		open := -1
		for b := cs; b < ce; b++ {
			if toks[b].text != "," || dateComma(toks, b) {
				continue
			}
			if open > cs && (b < keep || open > f.last) {
				segs = append(segs, segment{open, b, countWords(toks[open:b])})
			}
			open = b
		}
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].words > segs[j].words })
		total := countWords(toks[cs:ce])
		for _, sg := range segs {
			if total <= maxQuestionWords-2 {
				break
			}
			if removed[sg.open] || removed[sg.close] {
				continue // overlaps a segment already removed
			}
			for k := sg.open; k <= sg.close; k++ {
				removed[k] = true
			}
			total -= sg.words
		}
	}
	// join is the text of tokens a..b without the removed ones.
	join := func(a, b int) string {
		var sb strings.Builder
		prev := -1
		for k := a; k <= b && k < n; k++ {
			if removed[k] {
				continue
			}
			if prev >= 0 {
				if prev == k-1 {
					sb.WriteString(s[toks[prev].end:toks[k].start])
				} else {
					sb.WriteByte(' ')
				}
			}
			sb.WriteString(s[toks[k].start:toks[k].end])
			prev = k
		}
		return sb.String()
	}
	after := ""
	if afterFact < ce {
		after = s[toks[afterFact-1].end:toks[afterFact].start] + join(afterFact, ce-1)
	}
	// The question asks with the wh-phrase first where it can (see
	// frontQuestion): "In what year did Congress pass the McKinley
	// Tariff?"; otherwise in place, "The surplus in the Treasury will
	// swell to how much?", which readableQuestion then judges.
	var before, q string
	switch {
	case movedFrom >= 0:
		// The phrase held the fact: "In 1890, Congress passed ..." asks
		// "In what year did Congress pass ...?".
		if movedFrom > cs {
			before = join(cs, movedFrom-2) // up to the comma before the phrase
		}
		rest := strings.TrimLeft(after, " ,")
		phrase := ""
		if movedFrom <= p {
			phrase = join(movedFrom, p)
		}
		if prep != "" {
			phrase += " " + prep
		}
		before = strings.TrimSpace(before + " " + rest)
		if before == "" {
			return "" // the phrase is all there is
		}
		after = ""
		if q = frontQuestion(before, strings.TrimSpace(lowerFirstWord(strings.TrimSpace(phrase))+" "+wh), ""); q == "" {
			q = before + " " + lowerFirstWord(strings.TrimSpace(phrase)) + " " + wh // asked in place
		}
	case p < cs && f.place && f.first > cs:
		// "In Cuba, troops landed": "Where did troops land?"
		before = strings.TrimLeft(after, " ,")
		after = ""
		if q = frontQuestion(before, wh, ""); q == "" {
			q = before + " " + wh
		}
	case p < cs:
		// The fact is the clause's subject: "Which treaty ended the war?"
		q = wh + after
	default:
		if toks[cs].kind == tokWord && prepositions[toks[cs].lower()] && leadingTimePhrase(toks[cs:]) == 0 {
			// "To the results of the legislation upon what?": a phrase
			// with no clause to belong to (a time phrase opening one,
			// "In 1977 Congress created", is no such phrase).
			return ""
		}
		before = join(cs, p)
		if prep != "" {
			before += " " + prep
		}
		if q = frontQuestion(before, wh, after); q == "" {
			q = before + " " + wh + after
		}
	}
	if q == "" {
		return ""
	}
	q = finishQuestion(q, wt)
	if q == "" || !e.questionBodyOK(q, before+" "+after, wt) {
		return ""
	}
	return q
}

// lowerFirstWord lower-cases the first letter of s unless its first word
// looks like a name (capitalised after its first letter too, as "McKinley",
// or an abbreviation).
func lowerFirstWord(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return s
	}
	word := s
	if i := strings.IndexAny(s, " ,"); i >= 0 {
		word = s[:i]
	}
	for _, c := range word[size:] {
		if unicode.IsUpper(c) || c == '.' {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// bareWord removes a contraction's ending: "he's" is "he", "i'll" is "i".
func bareWord(w string) string {
	for _, end := range []string{"'s", "'ll", "'re", "'ve", "'d", "'m", "’s", "’ll", "’re", "’ve", "’d", "’m"} {
		if strings.HasSuffix(w, end) {
			return w[:len(w)-len(end)]
		}
	}
	return w
}

// auxiliaries and irregularPast are verbs that no suffix gives away.
var (
	auxiliaries = setOf(strings.Fields(`is was are were be been being has have had do does did will would shall
		should can could may might must`))
	irregularPast = setOf(strings.Fields(`made took gave came went began said held left sent built paid brought found
		became rose fell grew won lost met set put led kept spent sold bought told thought saw knew ran stood
		fought taught wrote drew struck bore broke chose drove flew forgot froze hid laid lay meant overcame rode
		rang sank shook shot shut spoke split spread stole swore swept swam tore threw understood undertook upheld
		withdrew withheld wound cost cut hit let quit read`))
)

// looksLikeVerb reports whether token i of a question looks like a verb:
// an auxiliary or modal, a word in -ed, a common irregular past, or a
// lower-case word in -s after a word that is no article, possessive,
// preposition or number ("the tariff raises", not "the rates").
func looksLikeVerb(toks []token, i int) bool {
	t := toks[i]
	if t.kind != tokWord {
		return false
	}
	l := t.lower()
	switch {
	case auxiliaries[l], irregularPast[l]:
		return true
	case t.capitalised():
		return false
	case strings.HasSuffix(l, "ed") && len(l) > 4:
		return true
	case strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && len(l) > 3 && i > 0:
		prev := toks[i-1]
		pl := prev.lower()
		// After an article, a possessive, a preposition, a number or an
		// adjective ("the late serious difficulties") it is a plural noun.
		return prev.kind == tokWord && !determiners[pl] && !possessives[pl] && !prepositions[pl] && !numberWordsOrScale(pl) &&
			!(!prev.capitalised() && adjectiveLike(pl))
	}
	return false
}

func numberWordsOrScale(w string) bool { return numberWords[w] != "" || scaleWords[w] }

// dateComma reports whether the comma at b is inside a date ("October 1,
// 1890", "October, 1890").
func dateComma(toks []token, b int) bool {
	if b+1 >= len(toks) || !isPlainYear(toks[b+1]) || b == 0 {
		return false
	}
	if isMonth(toks[b-1]) {
		return true
	}
	return b >= 2 && toks[b-1].kind == tokNumber && isMonth(toks[b-2])
}

// questionBodyOK checks a clause question: between minQuestionWords and
// maxQuestionWords words, no pronoun that leans on context ("he", "it",
// "we"; "that" or "such" opening it), a word that looks like a verb (see
// looksLikeVerb), and, besides the wh-phrase (body),
// two content terms of which one is a lower-case word that is no function
// word (the question says something happened, not just who was there).
func (e *Engine) questionBodyOK(q, body string, wt *wordTerms) bool {
	words := 0
	qt := tokenize(q)
	verb := false
	for i, t := range qt {
		if t.kind == tokSymbol {
			continue
		}
		words++
		l := bareWord(t.lower())
		if i == 0 && (l == "that" || l == "such") {
			return false
		}
		// "those of", "those who": the pronoun's referent follows it.
		if pronouns[l] && !((l == "those" || l == "these") && i+1 < len(qt) && (qt[i+1].is("of") || qt[i+1].is("for") || qt[i+1].is("who") || qt[i+1].is("which"))) {
			return false
		}
		verb = verb || looksLikeVerb(qt, i)
	}
	if !verb {
		return false // a noun phrase, not a question about what happened
	}
	if words < minQuestionWords || words > maxQuestionWords {
		return false
	}
	content, lower := 0, 0
	for _, t := range tokenize(body) {
		for _, term := range wt.of(t.text) {
			if !e.scaffold[term] {
				content++
			}
		}
		if t.kind == tokWord && !t.capitalised() && wt.phraseWord(t) {
			lower++
		}
	}
	return content >= 2 && lower >= 1
}

// countWords counts the tokens that are no symbols.
func countWords(toks []token) int {
	n := 0
	for _, t := range toks {
		if t.kind != tokSymbol {
			n++
		}
	}
	return n
}

// finishQuestion tidies a question: possessive pronouns of the speaker or
// a third party become "the", white space collapses, commas and closing
// punctuation at the ends go, unbalanced quotes are removed, the first
// letter is upper-cased and a question mark ends it.
func finishQuestion(q string, wt *wordTerms) string {
	toks := tokenize(q)
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if t.kind != tokWord {
			continue
		}
		l := t.lower()
		nextNoun := i+1 < len(toks) && toks[i+1].kind == tokWord && !toks[i+1].capitalised() && wt.content(toks[i+1])
		// "our exports", "its provisions", "these duties", and "That
		// treaty" opening the question: the definite article instead.
		if possessives[l] || (l == "this" || l == "these" || l == "those") && nextNoun || i == 0 && l == "that" && nextNoun {
			b.WriteString(q[last:t.start])
			b.WriteString("the")
			last = t.end
			// "our own armies": "the armies", not "the own armies".
			if possessives[l] && i+2 < len(toks) && toks[i+1].is("own") && toks[i+2].kind == tokWord && !toks[i+2].capitalised() &&
				wt.content(toks[i+2]) && !strings.HasSuffix(toks[i+2].lower(), "ed") && !auxiliaries[toks[i+2].lower()] {
				last = toks[i+1].end
			}
		}
	}
	b.WriteString(q[last:])
	q = strings.Join(strings.Fields(b.String()), " ")
	q = strings.ReplaceAll(q, " ,", ",")
	for _, quotes := range [][]string{{"\""}, {"“", "”"}} {
		count := 0
		for _, c := range quotes {
			count += strings.Count(q, c)
		}
		if count%2 == 1 {
			for _, c := range quotes {
				q = strings.ReplaceAll(q, c, "")
			}
		}
	}
	q = strings.Trim(q, " ,;:.!?")
	q = strings.Join(strings.Fields(q), " ")
	if q == "" {
		return ""
	}
	return upperFirst(q) + "?"
}

// templateQuestion asks for f with a template naming the fact's kind and
// the sentence's keyphrase; when that is vague (vaguePhrase), the
// sentence's subject or the phrase before the fact of two words or more,
// else the part of the request it serves (topicQuestion); "" when none
// reads on its own.
func (e *Engine) templateQuestion(s string, toks []token, f fact, prof profile, wt *wordTerms, topic string, cases caseUse) string {
	// The request's own subject is no vague reference: "the tariff" of a
	// report on a tariff.
	known := func(w string) bool {
		for _, t := range wt.of(trimPossessive(w)) {
			if prof.isCore(t) {
				return true
			}
		}
		return false
	}
	kp := keyphrase(s, toks, f, prof, wt)
	// A sentence whose best phrase is vague is not asked about a lone
	// word in its place ("How many years are given for History?").
	vagueBest := kp != "" && nounPhrase(kp, wt) && vaguePhrase(kp, known)
	named := func(p string) bool {
		return p != "" && nounPhrase(p, wt) && !vaguePhrase(p, known) && (!vagueBest || len(strings.Fields(p)) >= 2)
	}
	if !named(kp) {
		// The sentence's subject, when it is a plain noun phrase apart
		// from the fact: "the public debt" of "The public debt was
		// reduced by $9,000,000 in ...".
		if kp = subjectPhrase(s, toks, f); !named(kp) {
			if kp = factHeadPhrase(s, toks, f); !named(kp) {
				return topicQuestion(f, topic, known)
			}
		}
	}
	kp = lowerArticle(kp)
	var q string
	switch f.kind {
	case factYear:
		if f.decade {
			q = "What decade is given for %s?"
		} else {
			q = "What year is given for %s?"
		}
	case factDate:
		if f.day {
			q = "What date is given for %s?"
		} else {
			q = "What month is given for %s?"
		}
	case factMoney:
		q = "What amount of money is given for %s?"
	case factPercent:
		q = "What percentage is given for %s?"
	case factQuantity:
		if countsTimes(f.noun) {
			return "" // "How many times are given for tenement houses?"
		}
		if countable(f.noun) {
			return cases.fix(fmt.Sprintf("How many %s are given for %s?", f.noun, kp))
		}
		q = "What number is given for %s?"
	default:
		// A name with no clause to ask it in is asked about the part of
		// the request its sentence serves (a phrase of the sentence may
		// hold a verb no suffix shows: "the Philippines hold").
		return topicQuestion(f, topic, known)
	}
	// The phrase's words take the case the summary gives them inside a
	// sentence ("for fortification works", not "for Fortification works").
	return cases.fix(fmt.Sprintf(q, kp))
}

// lowerArticle lower-cases the article opening a phrase taken from a
// sentence's start ("The crime bill", "The START II treaty"), which
// stands inside a question ("What year is given for the crime bill?");
// "The Hague" keeps its capital.
func lowerArticle(phrase string) string {
	for _, a := range []string{"The ", "A ", "An "} {
		if rest, ok := strings.CutPrefix(phrase, a); ok && !strings.HasPrefix(rest, "Hague") {
			return strings.ToLower(a) + rest
		}
	}
	return phrase
}

// mentionQuestion asks for a name by what kind of name it is: "Which
// treaty is mentioned in the account of the war with Mexico?".
func mentionQuestion(f fact, topic, marker string) string {
	switch {
	case f.head != "":
		verb := " is"
		if pluralNoun(f.head) {
			verb = " are" // "Which islands are mentioned ...?"
		}
		return "Which " + f.head + verb + " mentioned" + marker + topic + "?"
	case f.person:
		return "Who is mentioned" + marker + topic + "?"
	case f.sort != "":
		return "Which " + f.sort + " is mentioned" + marker + topic + "?"
	case f.place:
		return "Which place is mentioned" + marker + topic + "?"
	}
	return "What name is mentioned" + marker + topic + "?"
}

// pluralNoun reports whether a head noun is plural: it ends in -s but not
// in -ss, -us or -is ("islands", "states"; not "address", "census",
// "crisis").
func pluralNoun(w string) bool {
	w = strings.ToLower(w)
	return len(w) > 3 && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// countable reports whether a quantity's unit can follow "How many": its
// last word is a plural noun ("troops", "new housing units", "men"); not
// "family" of "1 million family housing units" cut short, nor a
// participle ("eight representing the public").
func countable(noun string) bool {
	ws := strings.Fields(noun)
	if len(ws) == 0 {
		return false
	}
	last := strings.ToLower(ws[len(ws)-1])
	if spelledNumber(ws[0]) {
		return false // "forty-one projects": the count's own words
	}
	return pluralNoun(last) || irregularPlurals[last]
}

// spelledNumber reports whether a word is a number written out in words,
// hyphens joining its parts ("forty-one", "twelve").
func spelledNumber(w string) bool {
	for _, p := range strings.Split(strings.ToLower(w), "-") {
		if !smallNumbers[p] {
			return false
		}
	}
	return true
}

// countsTimes reports whether a quantity counts occurrences ("three
// times"): "How many times are given for ...?" asks nothing a reader can
// follow, whatever the phrase.
func countsTimes(noun string) bool {
	ws := strings.Fields(noun)
	return len(ws) > 0 && strings.EqualFold(ws[len(ws)-1], "times")
}

// irregularPlurals are plural nouns without the -s ending.
var irregularPlurals = setOf(strings.Fields(`men women children people persons feet teeth geese mice oxen cattle
	sheep deer swine fish personnel police aircraft alumni data criteria phenomena`))

// topicQuestion asks for a fact by its kind and the part of the request
// its sentence serves (topic: "the surplus that drove the debate", see
// topicOf): "What sum of money is given regarding the surplus that drove
// the debate?", "Which treaty is mentioned regarding the diplomacy that
// ended the war?". It reads on its own when nothing better does; ""
// without a topic, with one a reader cannot place (vaguePhrase; known
// tells the request's own words) or for a count of times.
func topicQuestion(f fact, topic string, known func(string) bool) string {
	if topic == "" || vaguePhrase(topic, known) {
		return ""
	}
	var what string
	switch f.kind {
	case factYear:
		what = "What year is given"
		if f.decade {
			what = "What decade is given"
		}
	case factDate:
		what = "What month is given"
		if f.day {
			what = "What date is given"
		}
	case factMoney:
		what = "What sum of money is given"
	case factPercent:
		what = "What percentage is given"
	case factQuantity:
		if countsTimes(f.noun) {
			return ""
		}
		what = "What number is given"
		if countable(f.noun) {
			what = "How many " + f.noun + " are given"
		}
	default:
		return mentionQuestion(f, topic, topicMarker)
	}
	return what + topicMarker + topic + "?"
}

// topicMinCoreTerms is how many of the request's subject terms a sentence
// must hold to have its facts asked about a part of the request.
const topicMinCoreTerms = 2

// topicMarker joins a topicQuestion's ask to the part of the request it
// names.
const topicMarker = " regarding "

// topicOf is the part of the request a sentence serves, as a noun phrase
// for topicQuestion: the heading of the request's facet the sentence
// matches best (see facets), or of its first facet, with an article where
// it needs one ("Surplus that drove the debate" → "the surplus that drove
// the debate"; "How and when Louisiana was acquired" and "Whether the
// United States joined" stay, lower-cased); "" when that heading holds a
// pronoun with nothing in it to stand for (pipeline.DanglingPronoun).
func topicOf(m *pipeline.FacetMatcher, facets []pipeline.Facet, sentence string) string {
	if m == nil || len(facets) == 0 {
		return ""
	}
	h := m.Assign(sentence, "")
	if h == "" || h == pipeline.OtherFacet {
		h = facets[0].Heading
	}
	h = strings.TrimRight(strings.TrimSpace(h), ".?!")
	if pipeline.DanglingPronoun(h) != "" {
		// "the amounts he asked for": a question naming it could not be
		// read without its sentence.
		return ""
	}
	first := reWord.FindString(h)
	w := strings.ToLower(first)
	if aboutWords[w] && strings.HasPrefix(strings.ToLower(h), w+" ") {
		// "About the bonds", "On federal taxes": the heading says what
		// the facet is about; the question asks regarding that ("the
		// bonds", "federal taxes"), not "regarding the about ...".
		rest := strings.TrimSpace(h[len(first):])
		if v := strings.ToLower(reWord.FindString(rest)); v == "" || isWh(v) || v == "whether" || v == "how" {
			return ""
		}
		return lowerOpening(rest)
	}
	if headlessOpening(h) {
		return ""
	}
	switch {
	case w == "":
		return ""
	case isWh(w) || w == "whether":
		return lowerFirstWord(h)
	case determiners[w] || possessives[w] || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s"):
		return lowerOpening(h)
	case writesCapitalised(facets, first):
		return "the " + h // a name: "the Seminole war", "the American attitude"
	}
	return "the " + lowerFirstWord(h)
}

// aboutWords open a facet heading that says what the facet is about
// ("About the bonds", "On federal taxes").
var aboutWords = map[string]bool{"about": true, "on": true, "concerning": true, "regarding": true}

// headlessOpening reports whether a facet heading opens with no noun for
// a question to ask "regarding": with a preposition or "such" ("Under
// Taft", "To whom Theodore Roosevelt wanted ...", "Such as American help
// for a Peruvian port") or with participles standing alone ("Conveyed and
// still due", "Ceded, approved and patented under the grants"), which
// made "regarding the under Taft" or "regarding the conveyed and still
// due". A participle before its noun ("Reduced duties") opens a noun
// phrase.
func headlessOpening(h string) bool {
	words := strings.Fields(strings.ToLower(h))
	if len(words) == 0 {
		return true
	}
	w0 := strings.TrimRight(words[0], ",;:")
	if w0 == "such" || prepositions[w0] || w0 == "among" || w0 == "between" || w0 == "against" || w0 == "upon" || w0 == "with" || w0 == "without" {
		return !strings.Contains(words[0], "-")
	}
	if !participle(w0) {
		return false
	}
	if strings.HasSuffix(words[0], ",") || len(words) == 1 {
		return true
	}
	switch words[1] {
	case "and", "or", "by", "under", "in", "at", "for", "to", "from", "since", "during":
		return true
	}
	return false
}

// writesCapitalised reports whether a facet's description writes the
// word with its capital inside a phrase, not as its first word: a name
// ("the Seminole war", "the American attitude to German reparations"),
// which a heading's capital at its start hides.
func writesCapitalised(facets []pipeline.Facet, word string) bool {
	if r, _ := utf8.DecodeRuneInString(word); !unicode.IsUpper(r) {
		return false
	}
	for _, f := range facets {
		for i, w := range strings.Fields(f.Description) {
			if i > 0 && strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) == word {
				return true
			}
		}
	}
	return false
}

// subjectPhrase is the subject of a sentence: the words before its first
// verb when they make a plain noun phrase (cleanSubject) that does not
// hold the fact, with a determiner of the speaker made "the" ("our
// exports" → "the exports"); "" otherwise.
func subjectPhrase(s string, toks []token, f fact) string {
	start := 0
	for start < len(toks) && toks[start].kind == tokWord && discourseAdverbs[toks[start].lower()] {
		start++
	}
	for i := start + 1; i < len(toks); i++ {
		if toks[i].kind == tokWord && !toks[i].capitalised() && looksLikeVerb(toks, i) {
			if f.first < i && f.last >= start || !cleanSubject(toks[start:i]) {
				return ""
			}
			kp := s[toks[start].start:toks[i-1].end]
			if possessives[toks[start].lower()] || toks[start].is("this") || toks[start].is("these") {
				kp = "the" + kp[len(toks[start].text):]
			}
			return lowerOpening(kp)
		}
	}
	return ""
}

// factHeadPhrase is the noun phrase a fact measures, written just before
// it: "a net surplus" of "a net surplus of 4.3 billion dollars", "the
// deficit" of "the deficit at $315,599.98"; "" when there is none. A
// determiner of the speaker becomes "the".
func factHeadPhrase(s string, toks []token, f fact) string {
	end := f.first - 1
	if end >= 0 && toks[end].kind == tokWord && (toks[end].is("of") || toks[end].is("at") || toks[end].is("to") || toks[end].is("about")) {
		end--
	}
	start := end
	for start >= 0 && end-start < 5 && toks[start].kind == tokWord && !looksLikeVerb(toks, start) &&
		!prepositions[toks[start].lower()] && !phraseOpeners[toks[start].lower()] && !danglingOpeners[toks[start].lower()] &&
		!pronouns[toks[start].lower()] {
		if determiners[toks[start].lower()] || possessives[toks[start].lower()] {
			break
		}
		start--
	}
	if start < 0 || toks[start].kind != tokWord || !(determiners[toks[start].lower()] || possessives[toks[start].lower()]) || start == end {
		return ""
	}
	kp := "the" + s[toks[start].end:toks[end].end]
	if toks[start].is("a") || toks[start].is("an") {
		kp = s[toks[start].start:toks[end].end]
	}
	return kp
}

// nounPhrase reports whether a keyphrase reads as a noun phrase a
// template question can name: no word in it is an auxiliary, a past
// tense, an adverb in -ly or a figure ("the tariff took effect", "the
// money directly", "January 1" are none; "the coast defenses of New York"
// is one), it does not end on a function word, and it has a content word
// beyond the generic ones and those of time ("the Federal Government",
// "the past year" name nothing).
func nounPhrase(kp string, wt *wordTerms) bool {
	toks := tokenize(kp)
	specific := false
	for i, t := range toks {
		l := t.lower()
		if t.kind == tokNumber || isMonth(t) {
			return false
		}
		if t.kind != tokWord {
			continue
		}
		if !t.capitalised() && (auxiliaries[l] || irregularBase[l] != "" || strings.HasSuffix(l, "ed") && len(l) > 4 ||
			strings.HasSuffix(l, "ly") && len(l) > 4) {
			return false
		}
		if i == len(toks)-1 && (danglingEnds[l] || prepositions[l] || phraseOpeners[l] || !wt.content(t) || !t.capitalised() && noHead(l)) {
			return false
		}
		if wt.content(t) && !genericCapitals[l] && !titleWords[l] && !timeWords[l] && !amountWords[l] {
			specific = true
		}
	}
	return specific
}

// noHead reports whether a word cannot end a noun phrase as its head: a
// determiner, a number word or an adjective that wants its noun ("an
// additional", "the next", "the wealthiest" of "the wealthiest 1
// percent").
func noHead(w string) bool {
	return headlessWords[w] || strings.HasSuffix(w, "iest") || superlatives[w]
}

var (
	headlessWords = setOf(strings.Fields(`next last first second third fourth fifth additional several similar small
		large great new old other same such few many much more most less least one two three four five six seven eight
		nine ten eleven twelve twenty hundred thousand million billion own whole various certain further former latter
		previous following entire only single average annual current`))
	superlatives = setOf(strings.Fields(`largest greatest highest lowest smallest biggest longest strongest richest
		poorest oldest newest best worst fastest latest youngest`))
	// amountWords name a quantity and nothing it is of: a phrase made
	// only of them ("the sum", "the total", "the value") names no
	// subject to ask about.
	amountWords = setOf(strings.Fields(`sum sums amount amounts total totals value values maximum minimum top
		figure figures aggregate balance`))
)

// timeWords name a stretch of time or address the hearers: a phrase made
// only of them ("the past year", "Madam Speaker") names no subject.
var timeWords = map[string]bool{
	"past": true, "present": true, "year": true, "years": true, "month": true, "months": true,
	"week": true, "weeks": true, "day": true, "days": true, "decade": true, "decades": true,
	"time": true, "alone": true, "madam": true, "speaker": true,
}

// keyphrase is the sentence's best noun phrase outside the fact, the
// topic a template question names. Phrases open after an article or a
// preposition (or with a capitalised word) and run over content words,
// continued by "of" and more content words ("the study of foreign tariff
// treatment"); pronouns, facts and punctuation end them, and a preceding
// article is kept. Content words score 0.3 plus their request weight,
// names and numbers 0.3 more, each word costs 0.05, and a phrase made
// only of the request's terms counts half; the best phrase with two content
// words or more, one of them no word of time ("the past year" names
// nothing, see timeWords), and at most keyphraseWords words wins, earlier
// ones on ties; one that would end inside a name ends before it ("the
// grain crop of the United" is "the grain crop"); "" when there is none.
func keyphrase(s string, toks []token, f fact, prof profile, wt *wordTerms) string {
	n := len(toks)
	score := make([]float64, n)
	content := make([]bool, n)
	for i, t := range toks {
		if i >= f.first && i <= f.last || pronouns[t.lower()] || possessives[t.lower()] {
			continue
		}
		switch t.kind {
		case tokNumber:
			score[i], content[i] = 0.6, true
		case tokWord:
			if !wt.phraseWord(t) || isShouted(t.text) && utf8.RuneCountInString(t.text) > 5 {
				continue // a heading's "STRATEGIC ARMS" is no phrase
			}
			content[i] = true
			best := 0.0
			for _, term := range wt.of(t.text) {
				best = max(best, prof.weight[term])
			}
			score[i] = 0.3 + best
			l := t.lower()
			if t.capitalised() && !sentenceStart(toks, i) && !genericCapitals[l] && !titleWords[l] {
				score[i] += 0.3
			}
		}
	}
	isArticle := func(k int) bool { return k >= 0 && (toks[k].is("the") || toks[k].is("a") || toks[k].is("an")) }
	for i := range toks {
		if content[i] && verbAfterNoun(toks, i) {
			content[i] = false // "History records the power ...": no phrase "History records"
		}
	}
	bestStart, bestEnd, bestScore := -1, -1, 0.0
	for i := 0; i < n; i++ {
		if !content[i] {
			continue
		}
		// "to" opens infinitives more often than noun phrases.
		opens := i == 0 || toks[i].capitalised() || isArticle(i-1) ||
			toks[i-1].kind == tokWord && (prepositions[toks[i-1].lower()] || phraseOpeners[toks[i-1].lower()]) && !toks[i-1].is("to")
		if !opens || (i > 0 && content[i-1]) || strings.HasSuffix(toks[i].lower(), "ing") && !isArticle(i-1) {
			continue
		}
		start := i
		if isArticle(i - 1) {
			start = i - 1
		}
		total, words, contentWords, news, untimed := 0.0, i-start, 0, 0, 0
		j := i
		for j < n && words < keyphraseWords {
			switch {
			case content[j]:
				total += score[j] - 0.05
				words++
				contentWords++
				if !allIn(wt.of(toks[j].text), prof.weight) {
					news++
				}
				if !timeWords[toks[j].lower()] {
					untimed++
				}
				// A phrase made only of the request's terms tells the
				// question apart from no other: it counts half.
				v := total
				if news == 0 {
					v /= 2
				}
				if contentWords >= 2 && untimed > 0 && v > bestScore+1e-9 {
					bestStart, bestEnd, bestScore = start, j, v
				}
				j++
				continue
			case toks[j].is("of") && j+1 < n:
				// "of" and an optional article continue the phrase when
				// content follows.
				k := j + 1
				if isArticle(k) {
					k++
				}
				if k < n && content[k] && words+(k-j) < keyphraseWords {
					words += k - j
					j = k
					continue
				}
			}
			break
		}
	}
	// A phrase that ends inside a name ("the grain crop of the United")
	// ends before the name instead: "the grain crop".
	for bestStart >= 0 && nameGoesOn(toks, bestEnd) {
		k := bestEnd
		for k > bestStart && (toks[k].capitalised() || isArticle(k) || toks[k].is("of") && toks[k+1].kind == tokWord) {
			k--
		}
		for k > bestStart && (isArticle(k) || toks[k].is("of")) {
			k--
		}
		if k <= bestStart || !content[k] {
			return ""
		}
		bestEnd = k
	}
	if bestStart < 0 {
		return ""
	}
	bestEnd = sharedHeadEnd(toks, content, bestEnd)
	return s[toks[bestStart].start:toks[bestEnd].end]
}

// sharedHeadEnd returns where a phrase that ends at toks[end] ends once
// it takes in the words that "and" or "or" joins to its last word when
// they end on the plural head both share: "the conduct of the Diplomatic
// | and Consular Services", "the various Federal trust | and
// interstate-commerce laws". Two or three content words must follow the
// conjunction, the last a plural in -s after which the phrase stops; the
// phrase's own last word is no plural ("the ships and the crews" and
// "France and Great Britain" stay as they are). content marks the words
// a phrase may hold (see keyphrase).
func sharedHeadEnd(toks []token, content []bool, end int) int {
	n := len(toks)
	last := toks[end].lower()
	if toks[end].kind != tokWord || strings.HasSuffix(last, "s") || end+3 >= n || !toks[end+1].is("and") && !toks[end+1].is("or") {
		return end
	}
	k := end + 2
	for k < n && k-end-1 <= 3 && content[k] && toks[k].kind == tokWord {
		k++
	}
	head := k - 1
	if words := head - end - 1; words < 2 || words > 3 || k < n && content[k] {
		return end
	}
	if h := toks[head].lower(); !strings.HasSuffix(h, "s") || strings.HasSuffix(h, "ss") {
		return end
	}
	return head
}

// verbAfterNoun reports whether word toks[i] in -s is the verb of the
// noun before it rather than a second noun of a phrase: the noun before
// it has no article or possessive before it and is no plural, and an
// article or possessive follows ("each level of government makes its
// proper contribution", "History records the power of ideas"; not "the
// tariff laws the Congress passed").
func verbAfterNoun(toks []token, i int) bool {
	l := toks[i].lower()
	if toks[i].kind != tokWord || toks[i].capitalised() || i == 0 || i+1 >= len(toks) ||
		!strings.HasSuffix(l, "s") || strings.HasSuffix(l, "ss") || strings.HasSuffix(l, "us") || strings.HasSuffix(l, "is") {
		return false
	}
	prev := toks[i-1]
	if prev.kind != tokWord || strings.HasSuffix(prev.lower(), "s") || !wordLike(prev.lower()) && !prev.capitalised() {
		return false
	}
	if i >= 2 && (determiners[toks[i-2].lower()] || possessives[toks[i-2].lower()] || quantifiers[toks[i-2].lower()]) {
		return false
	}
	next := toks[i+1].lower()
	return determiners[next] || possessives[next]
}

// nameGoesOn reports whether the capitalised word toks[j] is not the end
// of its name: another capitalised word follows ("the United | States"),
// or "of", an optional article and a capitalised word do ("the Navy | of
// the United States", "the Seat | of Government"). A phrase that ends
// there cuts the name in two.
func nameGoesOn(toks []token, j int) bool {
	if !toks[j].capitalised() || j+1 >= len(toks) {
		return false
	}
	k := j + 1
	if toks[k].is("of") {
		k++
		if k < len(toks) && (toks[k].is("the") || toks[k].is("a") || toks[k].is("an")) {
			k++
		}
	}
	return k < len(toks) && toks[k].kind == tokWord && toks[k].capitalised()
}
