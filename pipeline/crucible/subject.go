package crucible

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// Shape of a request's subject (see subject).
const (
	// subjectPassages is how many of the request's best passages show
	// which of its terms its subject is written in.
	subjectPassages = 100
	// anchorMaxShare is the largest share of the collection's passages an
	// anchor may occur in: "tariff" (2.6% of the demo corpus's passages)
	// may, "program" (6.7%) and "war" (16%) may not.
	anchorMaxShare = 0.05
	// anchorMinLift is how many times more often an anchor occurs in the
	// request's best passages than in the collection, and anchorMinCount
	// in how many of them at least.
	anchorMinLift  = 5
	anchorMinCount = 3
	// titleAnchorMinLift is the lift that makes an anchor of a name the
	// title writes (a capitalised word, not its first: "Mexico" of
	// "Relations with Mexico from Coolidge to George W. Bush,
	// 1927-2008"). A request of many parts draws its best passages on
	// each part, and a name the collection speaks of in many eras
	// ("Mexico", 4.4% of the demo corpus's passages, in 13 of that
	// request's 100 best: lift 2.95) is diluted among them; without it
	// the report held three sentences. Set before it was measured, at
	// twice the lift of a term the best passages merely favour
	// (secondWordMinLift); docs/pipeline.md, "A name the title writes".
	titleAnchorMinLift = 2
	// phraseMinCount is in how many of the request's best passages two of
	// its terms that it writes together must occur together to be a
	// phrase of its subject ("social security", "civil rights"), and
	// phraseMaxShare the largest share of the collection's passages at
	// least one of them occurs in ("United States", "foreign policy",
	// "world war", each of two words in more than a tenth of the passages,
	// name no subject by this rule; commonPhrases may still take such a
	// pair).
	phraseMinCount = 3
	phraseMaxShare = 0.10
	// fallbackAnchors is how many of the request's rarest terms anchor its
	// subject when none qualifies by the rules above.
	fallbackAnchors = 2
	// titledMaxShare and titledMinLift bound a title term that holds the
	// sentences of the title's period to the subject (see titled).
	titledMaxShare = 0.20
	titledMinLift  = 4
	// secondWordMinLift is how many times more often than in the
	// collection a request term must occur among the request's best
	// passages (in three of them at least) to be the second word beside
	// an anchor in an assembled sentence (see speaks): "banks" of "the
	// rescue of the banks" is, "plan" of "the recovery plan" is not.
	// Chosen on the tuning set (sotu: 1.5 and 0 put 0.954 of the
	// sentences on its topic lists, 1.5 one gold fact more; 2 and 3
	// 0.904 and 0.900); docs/pipeline.md has the four sets' figures.
	secondWordMinLift = 1.5
	// strongAnchorLift is the lift at which an anchor the title does not
	// write is strong enough to speak of the subject with a second word
	// of the request (see speaks): twice an anchor's own bound. Measured
	// on the six sotu sets (docs/pipeline.md, "Strong anchors"): 7, 10,
	// 14, 20 and title anchors alone gave 203, 204, 203, 199 and 193 gold
	// facts; 10 and up put more sentences on topic on every set.
	strongAnchorLift = 2 * anchorMinLift
	// dependentRatio is how many times more of the collection's passages
	// hold the general part of a compound the title writes than its
	// specific part (see dependentTerms). Set before it was measured; on
	// sotu … sotu35 it took 5 gold facts more and 3 thousandths more
	// sentences on topic (docs/pipeline.md, "The general part of a
	// compound").
	dependentRatio = 3
)

// subject is what a report request is about, read from its title and
// what its problem statement asks (not the clauses that say what to leave
// aside: pipeline.Request.Asked) and from what its best passages share
// (docs/pipeline.md, "On topic"). A text speaks of the subject when it
// holds
//
//   - an anchor: a request term that is rare in the collection (in at most
//     5% of its passages) and at least five times as frequent among the
//     request's 100 best BM25 passages, in three of them at least:
//     "tariff", "emancipation", "Panama"; not "later", "date", the name
//     of a president the request names as a speaker ("Taft"), or
//     "program"; a name the title writes needs a lift of two only
//     (titleAnchorMinLift), and does not stop the fallback below;
//   - a phrase: two request terms the request writes together and its best
//     passages do too, in three of them at least, one of them in at most a
//     tenth of the collection's passages, written together ("social
//     security", "civil rights", "cold war"; not "United States",
//     "foreign policy" or "world war"); or
//   - an acronym the request writes in capitals, written as such ("AIDS",
//     "NATO"; "aid" does not count for "AIDS"). When the title names its
//     subject by acronyms alone ("HIV/AIDS in presidential addresses";
//     not "Arms control from the test ban treaty to SDI"), only they do:
//     "emergency relief" and "research funding", the words of its
//     problem statement, are as often about anything else.
//
// The words requests use to say what they want ("describe", "trace", "the
// annual messages", pipeline.RequestWords), numbers and years (a period,
// not a subject) are no subject terms. Without collection statistics, the
// terms in three of the best passages are anchors. When no term but a
// name of the title is an anchor by these rules (a collection about the
// request's subject uses its words everywhere), the two rarest request
// terms in three of the best passages are anchors too. A request none
// of whose terms occurs in its best passages has an empty subject, of
// which every text speaks.
type subject struct {
	terms    func(string) []string
	anchors  map[string]bool
	phrases  map[[2]string]bool
	acronyms map[string]bool
	// named: the title names the subject by acronyms ("HIV/AIDS in
	// presidential addresses"); only they then speak of it.
	named bool
	// titled are the title's own terms that are too common in the
	// collection to anchor the subject anywhere (in up to a fifth of its
	// passages) but four times as frequent among the request's best
	// passages, not part of one of its phrases: in the sentences of
	// documents dated in the period the title names they are a second
	// word beside an anchor ("war" of "The First World War and the peace,
	// 1915-1923"; not "first", "world" or "end"; see speaks).
	titled map[string]bool
	// words are the request's own terms (no request words, numbers or
	// years) that its best passages favour (secondWordMinLift): a second
	// word of the request beside an anchor (see speaks).
	words map[string]bool
	// namedAfter maps an anchor the request writes only after one and the
	// same capitalised word to that word's term ("korea" → "north" for a
	// request on North Korea): after another capitalised word ("South
	// Korea") the anchor names something else (see otherNames).
	namedAfter map[string]string
	// strong are the anchors that speak of the subject with a second word
	// of the request beside them: those the title writes, and the others
	// at least strongAnchorLift times as frequent among the best passages
	// as in the collection ("Chickasaw" of a request on the public lands;
	// not "troops" of one on Bosnia, nor "later" or "gave" of a problem
	// statement's wording). Empty when no anchor is strong; every anchor
	// then is.
	strong map[string]bool
	// leftOut and leftOutPairs are what the request says to leave out
	// (pipeline.Request.Excluded), read as the names it writes there
	// ("Hawaii", "Bosnia") and the pairs of adjacent terms ("fur seals",
	// "food stamp"), the words of what it asks aside (a pair may hold one
	// of them: "public lands" beside an asked "public domain", not a pair
	// it asks): cited text that holds one speaks of what the report is
	// not to cover (leavesOut).
	leftOut      map[string]bool
	leftOutPairs map[[2]string]bool
	// askedPairs are the pairs of adjacent terms of what the request asks
	// ("high commission"): a text that holds one speaks of what is asked,
	// whatever else it names in passing.
	askedPairs map[[2]string]bool
}

// DocFreq returns the number of units (passages) of the collection and,
// for each term asked about, how many of them hold it; a term missing from
// the map is held by none.
type DocFreq func(ctx context.Context, terms []string) (units int, df map[string]int, err error)

// PairFreq returns, for each pair of terms asked about, how many of the
// collection's units (passages) hold both.
type PairFreq func(ctx context.Context, pairs [][2]string) (map[[2]string]int, error)

// newSubject reads the subject of a request from its text and its best
// passages (their texts, best first). The names of speakers (the authors
// of the documents those passages come from) are who spoke, not what the
// report is about: a request "from Obama to Biden" on voting is not about
// Biden, and a sentence on a law "Joe Biden originally wrote" is not on
// its subject. Their terms count as request words (the attribution names
// the speaker anyway).
func newSubject(ctx context.Context, req pipeline.Request, best []string, terms func(string) []string, docFreq DocFreq, pairFreq PairFreq, speakers ...string) (*subject, error) {
	if terms == nil {
		return nil, nil // no analyzer: no subject to hold sentences to
	}
	s := &subject{terms: terms, anchors: map[string]bool{}, phrases: map[[2]string]bool{}, acronyms: map[string]bool{},
		titled: map[string]bool{}, words: map[string]bool{}, strong: map[string]bool{}}
	meta := map[string]bool{}
	for _, t := range terms(pipeline.RequestWords) {
		meta[t] = true
	}
	for _, sp := range speakers {
		for _, t := range terms(sp) {
			meta[t] = true
		}
	}
	// Acronyms are matched as written; their lower-case terms ("aid" of
	// "AIDS") name the subject only where the request also writes them
	// in lower case.
	acronymTerms := map[string]bool{}
	lowerTerms := map[string]bool{}
	// The subject is what the request asks: a term it writes only in a
	// clause that says what to leave aside ("leave aside the size of the
	// deficits themselves, the line-item veto ...") names what the report
	// is not about, and "aside" nothing at all.
	title := pipeline.WithoutEventTime(req.AskedTitle())
	text := title + "\n" + req.Asked()
	// A place the title names only by its adjective ("the Korean War")
	// is named by its name too (pipeline.Request.TitlePlaces): the
	// documents write "Korea".
	titlePlaces := req.TitlePlaces()
	if len(titlePlaces) > 0 {
		text += "\n" + strings.Join(titlePlaces, "\n")
	}
	s.leftOut, s.leftOutPairs, s.askedPairs = leftOut(req, text, terms, meta)
	// A pair the title writes names the whole subject, of which what the
	// request leaves aside is a part ("the slave trade" of a request that
	// leaves aside "the British detentions of American ships" in it): it
	// says nothing of whether a text speaks of the part asked or of the
	// part left aside.
	for _, part := range splitParts(title) {
		ts := terms(part)
		for i := 0; i+1 < len(ts); i++ {
			delete(s.askedPairs, [2]string{ts[i], ts[i+1]})
		}
	}
	// The title names its subject by acronyms when they are all it names:
	// its other words are request words ("in presidential addresses").
	titleWords := 0
	for _, w := range strings.FieldsFunc(title, notWordRune) {
		switch {
		case isAcronym(w):
			s.named = true
		case len(terms(w)) > 0 && !meta[terms(w)[0]] && !hasDigit(w):
			titleWords++
		}
	}
	s.named = s.named && titleWords == 0
	for _, w := range strings.FieldsFunc(text, notWordRune) {
		if isAcronym(w) {
			s.acronyms[w] = true
			for _, t := range terms(w) {
				acronymTerms[t] = true
			}
			continue
		}
		for _, t := range terms(w) {
			lowerTerms[t] = true
		}
	}
	// A term the request writes only inside a hyphenated compound
	// ("lend-lease") names the subject with its partner, as a phrase, not
	// alone ("leasing" of coal lands is not lend-lease).
	alone := map[string]bool{}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, notWordRune)
		if strings.ContainsAny(w, "-‐‑–") {
			continue
		}
		for _, t := range terms(w) {
			alone[t] = true
		}
	}
	usable := func(t string) bool {
		return !meta[t] && !hasDigit(t) && !(acronymTerms[t] && !lowerTerms[t])
	}
	// The request's terms, and the pairs it writes together (within a
	// line or sentence: the title and each sentence of the problem
	// statement).
	var cands []string
	seen := map[string]bool{}
	pairs := map[[2]string]bool{}
	for _, part := range splitParts(text) {
		ts := terms(part)
		for i, t := range ts {
			if !usable(t) {
				continue
			}
			if !seen[t] {
				seen[t] = true
				cands = append(cands, t)
			}
			if i+1 < len(ts) && usable(ts[i+1]) && ts[i+1] != t {
				pairs[[2]string{t, ts[i+1]}] = true
			}
		}
	}
	// How many of the best passages hold each term and pair.
	best = best[:min(len(best), subjectPassages)]
	count := map[string]int{}
	pairCount := map[[2]string]int{}
	for _, p := range best {
		ts := terms(p)
		held := map[string]bool{}
		heldPair := map[[2]string]bool{}
		for i, t := range ts {
			held[t] = true
			if i+1 < len(ts) {
				heldPair[[2]string{t, ts[i+1]}] = true
			}
		}
		for _, t := range cands {
			if held[t] {
				count[t]++
			}
		}
		for p := range pairs {
			if heldPair[p] {
				pairCount[p]++
			}
		}
	}
	if docFreq == nil {
		for _, t := range cands {
			if count[t] >= anchorMinCount {
				s.words[t] = true
				if alone[t] {
					s.anchors[t] = true
				}
			}
		}
		for p := range pairs {
			if pairCount[p] >= phraseMinCount {
				s.phrases[p] = true
			}
		}
		return s, nil
	}
	units, df, err := docFreq(ctx, cands)
	if err != nil {
		return nil, err
	}
	rare := func(t string) bool { return units > 0 && float64(df[t])/float64(units) <= phraseMaxShare }
	var common [][2]string
	for p := range pairs {
		switch {
		case pairCount[p] < phraseMinCount:
		case rare(p[0]) || rare(p[1]):
			s.phrases[p] = true
		default:
			common = append(common, p)
		}
	}
	if err := s.commonPhrases(ctx, common, pairCount, len(best), units, pairFreq); err != nil {
		return nil, err
	}
	if err := s.specificAskedPairs(ctx, units, pairFreq); err != nil {
		return nil, err
	}
	// The names the title writes (see titleAnchorMinLift), and how many
	// anchors hold by the common bound.
	inTitle := map[string]bool{}
	for i, w := range strings.FieldsFunc(title, notWordRune) {
		if r, _ := utf8.DecodeRuneInString(w); i > 0 && unicode.IsUpper(r) && !isAcronym(w) {
			for _, t := range terms(w) {
				inTitle[t] = true
			}
		}
	}
	// A place the title names by its adjective is a name it writes.
	for _, p := range titlePlaces {
		for _, t := range terms(p) {
			inTitle[t] = true
		}
	}
	strict := 0
	for _, t := range cands {
		if units == 0 || len(best) == 0 {
			continue
		}
		share := float64(df[t]) / float64(units)
		if l := float64(count[t]) / float64(len(best)) / math.Max(share, 1/float64(units)); count[t] >= anchorMinCount && l >= secondWordMinLift {
			s.words[t] = true
		}
		if share > anchorMaxShare || count[t] < anchorMinCount || !alone[t] {
			continue
		}
		minLift := float64(anchorMinLift)
		if inTitle[t] {
			minLift = titleAnchorMinLift
		}
		if lift := float64(count[t]) / float64(len(best)) / math.Max(share, 1/float64(units)); lift >= minLift {
			s.anchors[t] = true
			if lift >= anchorMinLift {
				strict++
			}
			if lift >= strongAnchorLift {
				s.strong[t] = true
			}
		}
	}
	for _, t := range terms(title + "\n" + strings.Join(titlePlaces, "\n")) {
		if s.anchors[t] {
			s.strong[t] = true
		}
	}
	// The general part of a compound the title writes speaks of the
	// subject only beside another anchor (see dependentTerms).
	for t := range dependentTerms(title, terms, s.anchors, df) {
		delete(s.strong, t)
	}
	s.namedAfter = namedAfter(text, terms, s.anchors)
	inPhrase := map[string]bool{}
	for p := range s.phrases {
		inPhrase[p[0]], inPhrase[p[1]] = true, true
	}
	for _, t := range terms(title) {
		if !usable(t) || !alone[t] || inPhrase[t] || s.anchors[t] || units == 0 || len(best) == 0 || count[t] < anchorMinCount {
			continue
		}
		share := float64(df[t]) / float64(units)
		lift := float64(count[t]) / float64(len(best)) / math.Max(share, 1/float64(units))
		if share <= titledMaxShare && lift >= titledMinLift {
			s.titled[t] = true
		}
	}
	if strict == 0 && units > 0 {
		// A collection about the request's subject (a news haystack on
		// one car) holds its words everywhere: its rarest terms that the
		// best passages use name the subject there.
		var used []string
		for _, t := range cands {
			if count[t] >= anchorMinCount && alone[t] {
				used = append(used, t)
			}
		}
		sort.SliceStable(used, func(i, j int) bool { return df[used[i]] < df[used[j]] })
		for _, t := range used[:min(len(used), fallbackAnchors)] {
			s.anchors[t] = true
		}
		// Nor do the best passages favour any word there: each term
		// they use is a second word.
		for _, t := range used {
			s.words[t] = true
		}
	}
	return s, nil
}

// commonPhrases adds to the subject the pairs of common words the request
// writes together ("public works", each word in more than a tenth of the
// collection's passages) whose two words the request's best passages hold
// together as an anchor would be held: in at most anchorMaxShare of the
// collection's passages both words occur, and the best passages write the
// pair anchorMinLift times as often as that (a count of passages holding
// both words anywhere, so the pair's own lift is if anything higher).
// "United States" stays out: more than a quarter of the demo corpus's
// passages hold both words.
func (s *subject) commonPhrases(ctx context.Context, pairs [][2]string, pairCount map[[2]string]int, best, units int, pairFreq PairFreq) error {
	if pairFreq == nil || len(pairs) == 0 || best == 0 || units == 0 {
		return nil
	}
	both, err := pairFreq(ctx, pairs)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		share := float64(both[p]) / float64(units)
		lift := float64(pairCount[p]) / float64(best) / math.Max(share, 1/float64(units))
		if share <= anchorMaxShare && lift >= anchorMinLift {
			s.phrases[p] = true
		}
	}
	return nil
}

// specificAskedPairs keeps of the pairs the request asks (askedPairs)
// those whose two words at most anchorMaxShare of the collection's
// passages hold together: only they say that a text speaks of what is
// asked, whatever it names that the request leaves out. "United States"
// (both words in more than a quarter of the demo corpus's passages) says
// nothing of the sort, and let a sentence on the Koszta affair into a
// report on relations with Austria that says the affair is covered
// elsewhere. Without collection statistics every pair is kept.
func (s *subject) specificAskedPairs(ctx context.Context, units int, pairFreq PairFreq) error {
	if pairFreq == nil || units == 0 || len(s.askedPairs) == 0 || len(s.leftOut) == 0 && len(s.leftOutPairs) == 0 {
		return nil
	}
	pairs := make([][2]string, 0, len(s.askedPairs))
	for p := range s.askedPairs {
		pairs = append(pairs, p)
	}
	both, err := pairFreq(ctx, pairs)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if float64(both[p])/float64(units) > anchorMaxShare {
			delete(s.askedPairs, p)
		}
	}
	return nil
}

// leftOut reads what a request says to leave out (see subject.leftOut);
// asked is the text of what it asks, whose words never count.
func leftOut(req pipeline.Request, asked string, terms func(string) []string, meta map[string]bool) (names map[string]bool, pairs, askedPairs map[[2]string]bool) {
	excluded := req.Excluded()
	if len(excluded) == 0 {
		return nil, nil, nil
	}
	in := map[string]bool{}
	askedPairs = map[[2]string]bool{}
	for _, part := range splitParts(asked) {
		for _, piece := range strings.FieldsFunc(part, func(r rune) bool { return r == ',' }) {
			ts := terms(piece)
			for i, t := range ts {
				in[t] = true
				if i+1 < len(ts) && !meta[t] && !meta[ts[i+1]] && !hasDigit(t) && !hasDigit(ts[i+1]) && t != ts[i+1] {
					askedPairs[[2]string{t, ts[i+1]}] = true
				}
			}
		}
	}
	// A name left out is none of the words of what is asked; a pair
	// left out may hold one of them ("the sale of the public lands" left
	// out of a request on "the public domain"), not two.
	paired := func(t string) bool { return !meta[t] && !hasDigit(t) && utf8.RuneCountInString(t) > 1 }
	usable := func(t string) bool { return !in[t] && paired(t) }
	names, pairs = map[string]bool{}, map[[2]string]bool{}
	for _, clause := range excluded {
		for _, w := range strings.FieldsFunc(clause, notWordRune) {
			if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
				continue
			}
			for _, t := range terms(w) {
				if usable(t) {
					names[t] = true
				}
			}
		}
		for _, part := range strings.FieldsFunc(clause, func(r rune) bool { return r == ',' || r == ';' }) {
			ts := terms(part)
			for i := 0; i+1 < len(ts); i++ {
				a, b := ts[i], ts[i+1]
				if paired(a) && paired(b) && a != b && (usable(a) || usable(b)) && !askedPairs[[2]string{a, b}] {
					pairs[[2]string{a, b}] = true
				}
			}
		}
	}
	return names, pairs, askedPairs
}

// leavesOut reports whether a text speaks of what the request says to
// leave out: it holds one of the names written there, or two adjacent
// terms written together there, and no two adjacent terms of what the
// request asks (a text on the joint High Commission the request asks for
// that lists the fur seals among its questions speaks of what is asked).
func (s *subject) leavesOut(text string) bool {
	if s == nil || len(s.leftOut) == 0 && len(s.leftOutPairs) == 0 {
		return false
	}
	ts := s.terms(text)
	out := false
	for i, t := range ts {
		if i+1 < len(ts) && s.askedPairs[[2]string{t, ts[i+1]}] {
			return false
		}
		if s.leftOut[t] || i+1 < len(ts) && s.leftOutPairs[[2]string{t, ts[i+1]}] {
			out = true
		}
	}
	return out
}

// splitParts splits a request's text into its lines and sentences, the
// spans within which two adjacent terms make a phrase.
func splitParts(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '.' || r == ';' || r == ':' || r == '?' })
}

// covers reports whether text speaks of the subject. With anchorsOnly a
// phrase does not count: a document from outside the period a request
// names must name the subject outright (a sentence about World War II
// in a report on the First World War says "world war" too).
func (s *subject) covers(text string, anchorsOnly bool) bool {
	if s.empty() {
		return true
	}
	if len(s.acronyms) > 0 {
		for _, w := range strings.FieldsFunc(text, notWordRune) {
			if s.acronyms[w] {
				return true
			}
		}
	}
	if s.named {
		return false
	}
	ts := s.terms(text)
	for i, t := range ts {
		if s.anchors[t] || !anchorsOnly && i+1 < len(ts) && s.phrases[[2]string{t, ts[i+1]}] {
			return true
		}
	}
	return false
}

// names lists the words of a request that name its subject, as the
// request writes them (lower case but for acronyms), in its order, each
// once: its acronyms and the words whose terms anchor the subject or make
// one of its phrases. An empty report's problem shows them, so that the
// requester sees what a sentence had to speak of.
func (s *subject) names(req pipeline.Request) []string {
	if s.empty() {
		return nil
	}
	inPhrase := map[string]bool{}
	for p := range s.phrases {
		inPhrase[p[0]], inPhrase[p[1]] = true, true
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(req.AskedTitle()+"\n"+req.Asked(), notWordRune) {
		name := ""
		switch {
		case s.acronyms[w]:
			name = w
		case !s.named:
			for _, t := range s.terms(w) {
				if s.anchors[t] || inPhrase[t] {
					name = strings.ToLower(w)
				}
			}
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// quotedWords writes words quoted and separated by commas: "tariff",
// "reciprocity".
func quotedWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}

// empty reports whether the subject has no term at all (a request made
// only of request words and numbers): every text then speaks of it.
func (s *subject) empty() bool {
	return s == nil || len(s.anchors)+len(s.phrases)+len(s.acronyms) == 0
}

// isAcronym reports whether a word is an acronym: two to six letters, all
// capitals ("AIDS", "NATO", "HIV"), digits allowed after the first.
func isAcronym(w string) bool {
	letters := 0
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			letters++
		case unicode.IsDigit(r) && i > 0:
		default:
			return false
		}
	}
	return letters >= 2 && len(w) <= 6
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// speaks reports whether text speaks of the subject as an assembled
// report sentence must: by an acronym or (but with anchorsOnly) a phrase,
// as covers does, but by an anchor only with a second word of the request
// beside it — another anchor, or, beside a strong anchor (see strong),
// another term of the request its best passages favour (see words) or
// with inScope one of the title's terms (see titled) — and with
// anchorsOnly only beside a second anchor. A lone anchor is as often
// about something else: "reform" of "school reform" in "democratic
// reform across the broader Middle East", "tribes" of "the Creek tribes"
// in a message on the Five Civilized Tribes; and a weak one with a word
// of the request too: "troops" and "force" of a request on Bosnia in
// Van Buren's account of General Gaines's force in Florida.
func (s *subject) speaks(text string, anchorsOnly, inScope bool) bool {
	if s.empty() {
		return true
	}
	if len(s.acronyms) > 0 {
		for _, w := range strings.FieldsFunc(text, notWordRune) {
			if s.acronyms[w] {
				return true
			}
		}
	}
	if s.named {
		return false
	}
	ts := s.terms(text)
	anchors, others := map[string]bool{}, map[string]bool{}
	other := s.otherNames(text)
	for i, t := range ts {
		if !anchorsOnly && i+1 < len(ts) && s.phrases[[2]string{t, ts[i+1]}] {
			return true
		}
		switch {
		case s.anchors[t] && !other[t]:
			anchors[t] = true
		case s.anchors[t]:
			// Another name ("South Korea"): neither anchor nor word.
		case s.words[t] || inScope && s.titled[t]:
			others[t] = true
		}
	}
	if anchorsOnly {
		return len(anchors) >= 2
	}
	if len(anchors) >= 2 {
		return true
	}
	for a := range anchors { // the one anchor, if any
		return len(others) >= 1 && (len(s.strong) == 0 || s.strong[a])
	}
	return false
}

// namedAfter finds the anchors that are names — the request writes them
// capitalised each time — written each time after one and the same
// capitalised word ("North Korea", "Puerto Rico", "Muscle Shoals"), and
// maps them to that word's term (see subject.namedAfter). A capitalised
// word across a comma or a bracket is no part of the name.
func namedAfter(text string, terms func(string) []string, anchors map[string]bool) map[string]string {
	before := map[string]string{} // anchor → the term before it, "" when it is no such name
	for _, part := range splitParts(text) {
		eachNamePair(part, terms, func(prev, t string, capital bool) {
			if !anchors[t] {
				return
			}
			if p, ok := before[t]; !capital || ok && p != prev {
				before[t] = ""
				return
			}
			before[t] = prev
		})
	}
	out := map[string]string{}
	for t, p := range before {
		if p != "" {
			out[t] = p
		}
	}
	return out
}

// eachNamePair calls fn for each word of text with a term: the term,
// the term of the capitalised word right before it within a phrase (""
// when that word is in lower case, has no term, or there is none), and
// whether the word itself is capitalised.
func eachNamePair(text string, terms func(string) []string, fn func(prev, t string, capital bool)) {
	for _, phrase := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(",()[]\"“”—–", r) }) {
		prev := ""
		for _, w := range strings.FieldsFunc(phrase, notWordRune) {
			r, _ := utf8.DecodeRuneInString(w)
			ts := terms(w)
			for _, t := range ts {
				fn(prev, t, unicode.IsUpper(r))
			}
			prev = ""
			if unicode.IsUpper(r) && len(ts) == 1 && !honorifics[strings.ToLower(w)] {
				prev = ts[0]
			}
		}
	}
}

// honorifics stand before a person's name without being part of it
// ("President Gore", "General Jackson").
var honorifics = map[string]bool{"president": true, "vice": true, "mr": true, "mrs": true, "secretary": true,
	"general": true, "senator": true, "governor": true, "king": true, "queen": true, "emperor": true, "chairman": true,
	"minister": true, "prime": true, "admiral": true, "commodore": true, "captain": true, "colonel": true, "judge": true,
	"justice": true, "dr": true, "sir": true, "lord": true, "ambassador": true, "chief": true}

// otherNames returns the anchors that text writes only after a
// capitalised word other than the one the request writes them after
// ("South Korea" in a report on North Korea): there they name something
// else.
func (s *subject) otherNames(text string) map[string]bool {
	if len(s.namedAfter) == 0 {
		return nil
	}
	other, same := map[string]bool{}, map[string]bool{}
	for _, part := range splitParts(text) {
		eachNamePair(part, s.terms, func(prev, t string, _ bool) {
			want, ok := s.namedAfter[t]
			switch {
			case !ok:
			case prev != "" && prev != want:
				other[t] = true
			default:
				same[t] = true
			}
		})
	}
	for t := range same {
		delete(other, t)
	}
	return other
}

// dependentTerms are the title's anchors that it writes each time
// directly beside a far rarer anchor (in at most a third as many of the
// collection's passages, dependentRatio), as the general part of a
// compound: "relief" of "Drought and drought relief", "lands" of "the
// Government's mineral lands", "Empire" of "the Ottoman Empire",
// "weapons" of "banning chemical weapons". Alone they speak of something
// else (relief programs for the victims of domestic violence, the sales
// of the public lands, the Chinese Empire), so they are no strong
// anchor: a sentence holding one speaks of the subject only beside
// another anchor. Words apart by punctuation or a stop word ("Denmark,
// Naples", "health of mothers") are not a compound, and a term the title
// also writes without such a partner keeps its strength.
func dependentTerms(title string, terms func(string) []string, anchors map[string]bool, df map[string]int) map[string]bool {
	// The title's words in order, each with its term ("" for a stop word
	// or a word of several terms), and whether punctuation precedes or
	// follows it.
	type word struct {
		term        string
		opens, ends bool
	}
	var ws []word
	for _, f := range strings.Fields(title) {
		core := strings.TrimFunc(f, notWordRune)
		w := word{opens: core == "" || !strings.HasPrefix(f, core), ends: core == "" || !strings.HasSuffix(f, core)}
		if ts := terms(core); len(ts) == 1 {
			w.term = ts[0]
		}
		ws = append(ws, w)
	}
	beside := map[string]bool{} // written beside a far rarer anchor at least once
	alone := map[string]bool{}  // written once at least without one
	for i, w := range ws {
		t := w.term
		if !anchors[t] {
			continue
		}
		rarer := func(j int) bool {
			if j < 0 || j >= len(ws) || ws[min(i, j)].ends || ws[max(i, j)].opens {
				return false
			}
			u := ws[j].term
			return u != "" && u != t && anchors[u] && df[u]*dependentRatio <= df[t]
		}
		if rarer(i-1) || rarer(i+1) {
			beside[t] = true
		} else {
			alone[t] = true
		}
	}
	out := map[string]bool{}
	for t := range beside {
		if !alone[t] {
			out[t] = true
		}
	}
	return out
}
