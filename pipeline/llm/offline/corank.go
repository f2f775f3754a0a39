package offline

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// This file answers CoRank's feature task (rerank.TaskCoRankFeatures) from
// the document text the prompt shows, by lexical rules, in the task's
// canonical format (rerank.FormatFeatures). Nothing is random and nothing
// depends on map order.
//
// Words are the surface tokens of the text (tokenize); a word counts when
// the analyzer gives it a term and it is neither a function word
// ("upon", "shall") nor a pronoun nor a number. Its weight is
//
//	w(t) = (1 + ln tf(t)) · rarity(t)
//
// where tf is the term's count in the text and rarity the engine's prior
// for how much a word says without collection statistics: 1, or 0.6 for
// the most frequent English words (commonWords), or 0.3 for words that
// ask rather than name (metaWords), halved for a term written at least
// half the time as a participle or adverb ("established", "fully"). Spelled
// numbers ("one", "thousand") are not counted. The rules, each documented
// on its function:
//
//   - keywords (featureKeywords): the terms and the two-word phrases that
//     occur at least twice, by weight;
//   - units and segments (featureUnits, featureSegments): paragraphs, or
//     runs of three sentences, cut into 3 to 8 segments where the
//     vocabulary changes most;
//   - headings (featureHeadings): the lines that look like headings, else
//     one line per segment taken from its first sentence that uses its key
//     terms;
//   - topical title (featureTitle) and category path (featureCategory);
//   - pseudo-queries (featureQueries): the key words of the most central
//     sentences.

// Parameters of the feature answer.
const (
	// inflectedFactor lowers the rarity of a term written at least half
	// the time as a participle or adverb (inflected).
	inflectedFactor = 0.5
	// phraseBoost raises a two-word phrase against single words: a phrase
	// seen twice says more than a word seen twice.
	phraseBoost = 1.5
	// absorbedShare: a word whose occurrences lie this much or more inside
	// one phrase that is a keyword is left to the phrase.
	absorbedShare = 0.8
	// capitalShare: a keyword is written capitalised when this share of
	// its occurrences not opening a sentence are capitalised.
	capitalShare = 0.8
	// unitSentences is how many sentences make a unit when the text has
	// no paragraphs.
	unitSentences = 3
	// segmentChars is the text length per segment: a text of n characters
	// gets round(n / segmentChars) segments, within 3..8.
	segmentChars = 2500
	// featureHeadingWords bounds a heading made from a sentence, and
	// featureTitleWords a topical title made from one.
	featureHeadingWords = 12
	featureTitleWords   = 12
	// minClauseWords is the shortest clause sentenceSpan prefers.
	minClauseWords = 3
	// maxHeadingLine bounds a line that looks like a heading, in runes.
	maxHeadingLine = 80
	// queryTerms is how many key words make a pseudo-query; queryOverlap
	// the Jaccard overlap of key terms at which a sentence repeats an
	// earlier query and is passed over.
	queryTerms   = 4
	queryOverlap = 0.5
)

// featureWord is one counted word of the text.
type featureWord struct {
	term    string
	surface string // the word as written
	tok     int    // index into the sentence's tokens
	opening bool   // the first word of its sentence
}

// featureSentence is one sentence of the text with its counted words.
type featureSentence struct {
	text  string
	start int // byte offset in the text
	toks  []token
	words []featureWord
	unit  int
}

// featureDoc is the analysed text of a feature request.
type featureDoc struct {
	sents []featureSentence
	units int
	// weight is w(t) of every counted term, rarity its rarity.
	weight map[string]float64
	rarity map[string]float64
	// inflected counts a term's occurrences as a participle or adverb
	// (inflected).
	inflected map[string]int
	tf        map[string]int
	first     map[string]int // position of a term's first occurrence
}

// keyword is a keyword candidate: a term or a two-word phrase.
type keyword struct {
	key    string   // the term, or "term1 term2"
	terms  []string // its terms
	text   string   // as written in the answer
	weight float64
	first  int // position of its first occurrence
	count  int
	units  map[int]bool // units it occurs in
}

// coRankFeatures answers rerank.TaskCoRankFeatures.
func (e *Engine) coRankFeatures(in rerank.FeaturesInput) rerank.DocFeatures {
	text := strings.ToValidUTF8(in.Doc.Text, "\uFFFD")
	fd := e.analyseFeatures(text)
	kws := e.featureKeywords(fd)
	segs := featureSegments(fd)
	f := rerank.DocFeatures{
		Headings: e.featureHeadings(text, fd, segs),
		Queries:  featureQueries(fd, kws),
	}
	for _, k := range kws {
		f.Keywords = append(f.Keywords, k.text)
	}
	f.Title = e.featureTitle(flattenSpace(in.Doc.Title), text, fd, kws)
	f.Category = featureCategory(kws)
	return f
}

// analyseFeatures splits text into sentences and counts its words. Units
// are paragraphs (text between blank lines) when there are at least two,
// else runs of unitSentences sentences.
func (e *Engine) analyseFeatures(text string) featureDoc {
	wt := e.newWordTerms()
	fd := featureDoc{weight: map[string]float64{}, rarity: map[string]float64{}, inflected: map[string]int{}, tf: map[string]int{}, first: map[string]int{}}
	paras := paragraphStarts(text)
	pos := 0
	for _, sp := range e.an.Sentences(text) {
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			continue
		}
		s := featureSentence{text: text[sp.Start:sp.End], start: sp.Start}
		s.toks = tokenize(s.text)
		opening := true
		for i, t := range s.toks {
			if t.kind != tokWord {
				if t.kind == tokNumber {
					opening = false
				}
				continue
			}
			ts := wt.of(t.text)
			if len(ts) == 0 || !wt.phraseWord(t) || pronouns[t.lower()] || !hasLetter(ts[0]) ||
				t.lower() == "one" || numberWordsOrScale(t.lower()) {
				opening = false
				continue
			}
			s.words = append(s.words, featureWord{term: ts[0], surface: t.text, tok: i, opening: opening})
			if inflected(t) {
				fd.inflected[ts[0]]++
			}
			opening = false
			fd.tf[ts[0]]++
			if _, ok := fd.first[ts[0]]; !ok {
				fd.first[ts[0]] = pos
			}
			pos++
		}
		fd.sents = append(fd.sents, s)
	}
	if len(paras) >= 2 {
		for i := range fd.sents {
			u, _ := slices.BinarySearch(paras, fd.sents[i].start+1)
			fd.sents[i].unit = max(u-1, 0)
		}
		fd.units = len(paras)
	} else {
		for i := range fd.sents {
			fd.sents[i].unit = i / unitSentences
		}
		fd.units = (len(fd.sents) + unitSentences - 1) / unitSentences
	}
	for t, n := range fd.tf {
		fd.rarity[t] = e.metaScale(t)
		if fd.inflected[t]*2 >= n {
			fd.rarity[t] *= inflectedFactor
		}
		fd.weight[t] = (1 + math.Log(float64(n))) * fd.rarity[t]
	}
	return fd
}

var reBlankLine = regexp.MustCompile(`\n[ \t]*\n\s*`)

// paragraphStarts returns the byte offsets at which paragraphs start: 0
// and the end of every run of blank lines.
func paragraphStarts(text string) []int {
	starts := []int{0}
	for _, loc := range reBlankLine.FindAllStringIndex(text, -1) {
		if loc[1] < len(text) {
			starts = append(starts, loc[1])
		}
	}
	return starts
}

// flattenSpace collapses every run of white space to one space and trims.
func flattenSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// inflected reports whether a word is written as a participle or an
// adverb ("established", "carrying", "fully"), in lower case: such words
// describe rather than name what a document is about.
func inflected(t token) bool {
	if t.capitalised() {
		return false
	}
	l := t.lower()
	return utf8.RuneCountInString(l) > 4 && (strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "ly") || strings.HasSuffix(l, "ing"))
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

// featureKeywords ranks the keyword candidates and returns at most
// rerank.MaxKeywords of them, best first.
//
// Candidates are the counted terms, weighted w(t), and the phrases of two
// adjacent counted words in one sentence (no punctuation between) that
// occur at least twice and are not both common or meta words, weighted
// (1 + ln count) · (rarity₁ + rarity₂)/2 · phraseBoost. A term whose
// occurrences lie at least absorbedShare inside one such phrase is left
// to the phrase ("united" to "united states"). Ties go to the earlier
// first occurrence. A keyword is written as its most frequent spelling,
// lower-cased unless it is capitalised in at least capitalShare of its
// occurrences that do not open a sentence (names: "Congress",
// "Great Britain"); then as its most frequent capitalised spelling
// ("McKinley").
func (e *Engine) featureKeywords(fd featureDoc) []keyword {
	type spelling struct {
		forms     map[string]int // lower-cased spelling → count
		capForms  map[string]int // capitalised spelling → count (not opening a sentence)
		capital   int            // capitalised occurrences not opening a sentence
		inner     int            // occurrences not opening a sentence
		order     []string       // lower-cased spellings in order of first use
		capsOrder []string       // capitalised spellings in order of first use
	}
	spell := map[string]*spelling{}
	note := func(key, surface string, opening bool) {
		s := spell[key]
		if s == nil {
			s = &spelling{forms: map[string]int{}, capForms: map[string]int{}}
			spell[key] = s
		}
		surface = flattenSpace(surface)
		l := strings.ToLower(surface)
		if s.forms[l] == 0 {
			s.order = append(s.order, l)
		}
		s.forms[l]++
		if !opening {
			s.inner++
			if r, _ := utf8.DecodeRuneInString(surface); unicode.IsUpper(r) {
				s.capital++
				if s.capForms[surface] == 0 {
					s.capsOrder = append(s.capsOrder, surface)
				}
				s.capForms[surface]++
			}
		}
	}
	cands := map[string]*keyword{}
	add := func(key string, terms []string, pos, unit int) *keyword {
		k := cands[key]
		if k == nil {
			k = &keyword{key: key, terms: terms, first: pos, units: map[int]bool{}}
			cands[key] = k
		}
		k.count++
		k.units[unit] = true
		return k
	}
	pos := 0
	for _, s := range fd.sents {
		for i, w := range s.words {
			add(w.term, []string{w.term}, pos, s.unit)
			note(w.term, w.surface, w.opening)
			if i > 0 && s.words[i-1].tok == w.tok-1 {
				prev := s.words[i-1]
				key := prev.term + " " + w.term
				add(key, []string{prev.term, w.term}, pos, s.unit)
				note(key, s.text[s.toks[prev.tok].start:s.toks[w.tok].end], prev.opening)
			}
			pos++
		}
	}
	// Phrases that qualify, and the terms they absorb.
	inPhrase := map[string]int{} // term → its largest count inside one phrase
	var list []*keyword
	for _, k := range cands {
		if len(k.terms) == 2 {
			if k.count < 2 || (e.metaScale(k.terms[0]) < 1 && e.metaScale(k.terms[1]) < 1) {
				continue
			}
			k.weight = (1 + math.Log(float64(k.count))) * (e.metaScale(k.terms[0]) + e.metaScale(k.terms[1])) / 2 * phraseBoost
			for _, t := range k.terms {
				inPhrase[t] = max(inPhrase[t], k.count)
			}
		} else {
			k.weight = fd.weight[k.key]
		}
		list = append(list, k)
	}
	kept := list[:0]
	for _, k := range list {
		if len(k.terms) == 1 && float64(inPhrase[k.key]) >= absorbedShare*float64(k.count) {
			continue
		}
		kept = append(kept, k)
	}
	slices.SortFunc(kept, func(a, b *keyword) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		if a.first != b.first {
			return a.first - b.first
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]keyword, 0, rerank.MaxKeywords)
	for _, k := range kept[:min(len(kept), rerank.MaxKeywords)] {
		s := spell[k.key]
		best := s.order[0]
		for _, f := range s.order {
			if s.forms[f] > s.forms[best] {
				best = f
			}
		}
		k.text = best
		if s.inner > 0 && float64(s.capital) >= capitalShare*float64(s.inner) {
			best = s.capsOrder[0]
			for _, f := range s.capsOrder {
				if s.capForms[f] > s.capForms[best] {
					best = f
				}
			}
			k.text = best
		}
		out = append(out, *k)
	}
	return out
}

// featureSegments cuts the units into segments where the vocabulary
// changes most (a simple form of TextTiling) and returns each segment's
// first unit, in order. The text gets k = round(characters /
// segmentChars) segments, within rerank.MinHeadings..MaxHeadings and at
// most one per unit. Each gap between units u and u+1 is scored by the
// cosine similarity of the term counts of units u−1..u and u+1..u+2; the
// k − 1 gaps of lowest similarity become boundaries (ties: the earlier
// gap), skipping a gap that would leave a segment shorter than half the
// mean segment length (at least one unit).
func featureSegments(fd featureDoc) []int {
	if fd.units == 0 {
		return nil
	}
	chars := 0
	counts := make([]map[string]int, fd.units)
	for i := range counts {
		counts[i] = map[string]int{}
	}
	for _, s := range fd.sents {
		chars += utf8.RuneCountInString(s.text)
		for _, w := range s.words {
			counts[s.unit][w.term]++
		}
	}
	k := int(math.Round(float64(chars) / segmentChars))
	k = min(max(k, rerank.MinHeadings), rerank.MaxHeadings, fd.units)
	if k <= 1 {
		return []int{0}
	}
	window := func(lo, hi int) map[string]int {
		m := map[string]int{}
		for u := max(lo, 0); u <= min(hi, fd.units-1); u++ {
			for t, n := range counts[u] {
				m[t] += n
			}
		}
		return m
	}
	type gap struct {
		after int // the gap lies after this unit
		sim   float64
	}
	gaps := make([]gap, 0, fd.units-1)
	for u := 0; u+1 < fd.units; u++ {
		gaps = append(gaps, gap{after: u, sim: cosineCounts(window(u-1, u), window(u+1, u+2))})
	}
	slices.SortStableFunc(gaps, func(a, b gap) int { return cmp.Compare(a.sim, b.sim) })
	minLen := max(1, fd.units/(2*k))
	bounds := []int{0, fd.units} // segment starts, plus the end
	for _, g := range gaps {
		if len(bounds) == k+1 {
			break
		}
		start := g.after + 1
		i, _ := slices.BinarySearch(bounds, start)
		if start-bounds[i-1] < minLen || bounds[i]-start < minLen {
			continue
		}
		bounds = slices.Insert(bounds, i, start)
	}
	return bounds[:len(bounds)-1]
}

// cosineCounts is the cosine similarity of two term count vectors; 0 when
// either is empty.
func cosineCounts(a, b map[string]int) float64 {
	var dot, na, nb float64
	for t, x := range a {
		na += float64(x * x)
		dot += float64(x * b[t])
	}
	for _, y := range b {
		nb += float64(y * y)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

var (
	reMarkdownHeading = regexp.MustCompile(`^#{1,6}\s+`)
	reEnumeration     = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,2})*|[IVXLC]{1,6})[.)]?\s+`)
)

// featureHeadings returns the document's section headings, at most
// rerank.MaxHeadings.
//
// When at least rerank.MinHeadings lines look like headings
// (headingLine), those are the headings, picked evenly across the
// document when there are more than MaxHeadings. Otherwise each segment
// (featureSegments) gives one: its first sentence that holds at least two
// of the segment's five heaviest terms (by tf · rarity within the
// segment; else its first sentence), cut by sentenceSpan to the clause
// that holds the most of those terms, at most featureHeadingWords words.
func (e *Engine) featureHeadings(text string, fd featureDoc, segs []int) []string {
	var lines []string
	seen := map[string]bool{}
	all := strings.Split(text, "\n")
	next := make([]string, len(all)) // the next non-blank line after each
	for i := len(all) - 2; i >= 0; i-- {
		next[i] = next[i+1]
		if strings.TrimSpace(all[i+1]) != "" {
			next[i] = all[i+1]
		}
	}
	for i, l := range all {
		if h, ok := e.headingLine(l, next[i]); ok && !seen[strings.ToLower(h)] {
			seen[strings.ToLower(h)] = true
			lines = append(lines, h)
		}
	}
	if len(lines) >= rerank.MinHeadings {
		if len(lines) <= rerank.MaxHeadings {
			return lines
		}
		out := make([]string, rerank.MaxHeadings)
		for i := range out {
			out[i] = lines[int(math.Round(float64(i)*float64(len(lines)-1)/float64(rerank.MaxHeadings-1)))]
		}
		return out
	}
	var out []string
	for k, first := range segs {
		last := fd.units
		if k+1 < len(segs) {
			last = segs[k+1]
		}
		var in []featureSentence
		tf := map[string]int{}
		for _, s := range fd.sents {
			if s.unit >= first && s.unit < last {
				in = append(in, s)
				for _, w := range s.words {
					tf[w.term]++
				}
			}
		}
		top := topTerms(tf, fd, 5)
		best := -1
		for i, s := range in {
			if heldTerms(s, top) >= 2 {
				best = i
				break
			}
		}
		if best < 0 && len(in) > 0 {
			best = 0
		}
		if best < 0 {
			continue
		}
		if h := sentenceSpan(in[best], top, featureHeadingWords); h != "" && !seen[strings.ToLower(h)] {
			seen[strings.ToLower(h)] = true
			out = append(out, h)
		}
	}
	return out
}

// headingLine reports whether a line looks like a heading and returns it
// cleaned: a markdown heading ("## Trade"), or a line of at most
// maxHeadingLine characters and featureHeadingWords words that starts with a
// capital letter or a section number ("2. Trade", "IV. Trade"), does not
// end like a sentence or a clause ('.', ',', ';'), holds a counted word,
// and is followed by a longer line of text.
func (e *Engine) headingLine(line, next string) (string, bool) {
	t := strings.TrimSpace(line)
	markdown := reMarkdownHeading.MatchString(t)
	t = strings.TrimSpace(reMarkdownHeading.ReplaceAllString(t, ""))
	t = strings.TrimSpace(reEnumeration.ReplaceAllString(t, ""))
	t = strings.TrimRight(strings.TrimSpace(strings.Trim(t, "*_")), ":")
	if t == "" || utf8.RuneCountInString(t) > maxHeadingLine || len(strings.Fields(t)) > featureHeadingWords {
		return "", false
	}
	if !markdown {
		r, _ := utf8.DecodeRuneInString(t)
		if !unicode.IsUpper(r) || strings.ContainsAny(t[len(t)-1:], ".,;!?") {
			return "", false
		}
		if utf8.RuneCountInString(strings.TrimSpace(next)) <= utf8.RuneCountInString(t) {
			return "", false
		}
	}
	if len(e.an.Terms(t)) == 0 {
		return "", false
	}
	return flattenSpace(t), true
}

// topTerms returns the n terms of tf with the highest tf · rarity
// (ties: the earlier first occurrence in the document).
func topTerms(tf map[string]int, fd featureDoc, n int) map[string]bool {
	terms := make([]string, 0, len(tf))
	for t := range tf {
		terms = append(terms, t)
	}
	score := func(t string) float64 { return float64(tf[t]) * fd.rarity[t] }
	slices.SortFunc(terms, func(a, b string) int {
		if c := cmp.Compare(score(b), score(a)); c != 0 {
			return c
		}
		return fd.first[a] - fd.first[b]
	})
	out := map[string]bool{}
	for _, t := range terms[:min(n, len(terms))] {
		out[t] = true
	}
	return out
}

// heldTerms counts the distinct terms of set a sentence holds.
func heldTerms(s featureSentence, set map[string]bool) int {
	held := map[string]bool{}
	for _, w := range s.words {
		if set[w.term] {
			held[w.term] = true
		}
	}
	return len(held)
}

// sentenceSpan cuts a sentence to a heading. Its clauses (the runs of
// words and numbers between punctuation marks) are trimmed of words that
// are not counted (function and stop words) at both ends; of those left
// with at least minClauseWords words (any, when none is that long) it
// takes the one that holds the most words of key (ties: the earliest). A
// clause longer than n words is cut, by the same rule, to its n-word span
// holding the most of them. The first letter is capitalised.
func sentenceSpan(s featureSentence, key map[string]bool, n int) string {
	counted := map[int]string{}
	for _, w := range s.words {
		counted[w.tok] = w.term
	}
	var clauses [][]int // token indexes of each clause's words
	var cur []int
	for i, t := range s.toks {
		if t.kind == tokSymbol {
			if len(cur) > 0 {
				clauses = append(clauses, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, i)
	}
	if len(cur) > 0 {
		clauses = append(clauses, cur)
	}
	held := func(span []int) int {
		h := 0
		for _, i := range span {
			if key[counted[i]] {
				h++
			}
		}
		return h
	}
	// best returns the span of spans with the most key words (the
	// earliest on ties), trimmed to counted words at both ends, among
	// those at least least words long after trimming.
	best := func(spans [][]int, least int) []int {
		var out []int
		bestHeld := -1
		for _, sp := range spans {
			for len(sp) > 0 && counted[sp[0]] == "" {
				sp = sp[1:]
			}
			for len(sp) > 0 && counted[sp[len(sp)-1]] == "" {
				sp = sp[:len(sp)-1]
			}
			if len(sp) == 0 || len(sp) < least {
				continue
			}
			if h := held(sp); h > bestHeld {
				out, bestHeld = sp, h
			}
		}
		return out
	}
	// Spans shorter than minClauseWords words ("Nation") are taken only
	// when the sentence has no longer one.
	pick := func(spans [][]int) []int {
		if sp := best(spans, minClauseWords); len(sp) > 0 {
			return sp
		}
		return best(spans, 1)
	}
	span := pick(clauses)
	if len(span) > n {
		var windows [][]int
		for lo := 0; lo+n <= len(span); lo++ {
			windows = append(windows, span[lo:lo+n])
		}
		span = pick(windows)
	}
	if len(span) == 0 {
		return ""
	}
	return upperFirst(flattenSpace(s.text[s.toks[span[0]].start:s.toks[span[len(span)-1]].end]))
}

// featureTitle is the topical title. A document with a title keeps it,
// followed by ": " and its three best distinct keywords
// (distinctKeywords) when the title holds none of their terms (a title such as "Annual Message, 1890" says nothing of
// the subject). A document without one takes its first line that looks
// like a heading, else its first sentence cut to featureTitleWords words as
// sentenceSpan cuts headings.
func (e *Engine) featureTitle(title, text string, fd featureDoc, kws []keyword) string {
	if title != "" {
		held := setOf(e.an.Terms(title))
		var top []string
		shares := false
		for _, k := range distinctKeywords(kws, 3) {
			top = append(top, k.text)
			for _, t := range k.terms {
				shares = shares || held[t]
			}
		}
		if shares || len(top) == 0 {
			return title
		}
		return title + ": " + strings.Join(top, ", ")
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if h, ok := e.headingLine(l, next); ok {
			return h
		}
	}
	if len(fd.sents) > 0 {
		return sentenceSpan(fd.sents[0], map[string]bool{}, featureTitleWords)
	}
	return ""
}

// featureCategory is the three-level category path, built from the six
// best distinct keywords (distinctKeywords): the three that occur in the most units, ordered from
// the most widespread (broad) to the least (narrow); ties go to the
// better keyword. Each level is written with a capital first letter.
func featureCategory(kws []keyword) []string {
	top := distinctKeywords(kws, 6)
	rank := map[string]int{}
	for i, k := range top {
		rank[k.key] = i
	}
	slices.SortStableFunc(top, func(a, b keyword) int { return len(b.units) - len(a.units) })
	top = top[:min(rerank.CategoryLevels, len(top))]
	slices.SortStableFunc(top, func(a, b keyword) int {
		if len(a.units) != len(b.units) {
			return len(b.units) - len(a.units)
		}
		return rank[a.key] - rank[b.key]
	})
	var out []string
	for _, k := range top {
		out = append(out, upperFirst(k.text))
	}
	return out
}

// distinctKeywords returns the first n keywords whose terms are not all
// terms of a keyword taken before ("tariff" after "tariff act").
func distinctKeywords(kws []keyword, n int) []keyword {
	var out []keyword
	for _, k := range kws {
		if len(out) == n {
			break
		}
		covered := false
		for _, o := range out {
			in := setOf(o.terms)
			all := true
			for _, t := range k.terms {
				all = all && in[t]
			}
			covered = covered || all
		}
		if !covered {
			out = append(out, k)
		}
	}
	return out
}

// featureQueries returns up to rerank.PseudoQueries pseudo-queries: the
// key words of the document's most central sentences, as search phrases.
//
// A sentence's centrality is the summed weight of the distinct keyword
// terms it holds (the terms of the chosen keywords), divided by the
// square root of its counted words, so that a long sentence does not win
// by length alone. In order of centrality (ties: document order), each
// sentence gives its queryTerms heaviest words whose terms are keyword
// terms (by w(t); ties: the earlier word), each with the word it forms a
// keyword phrase with, written in sentence order as they appear — lower
// case unless capitalised inside the sentence — followed by a year
// (1000–2099) the sentence mentions. A sentence with fewer than two such
// words, or whose key terms overlap an earlier query's by a Jaccard
// coefficient of queryOverlap or more, gives none.
func featureQueries(fd featureDoc, kws []keyword) []string {
	kwTerms := map[string]bool{}
	phrases := map[string]bool{}
	for _, k := range kws {
		for _, t := range k.terms {
			kwTerms[t] = true
		}
		if len(k.terms) == 2 {
			phrases[k.key] = true
		}
	}
	type cand struct {
		i     int
		score float64
	}
	var cands []cand
	for i, s := range fd.sents {
		held := map[string]bool{}
		sum := 0.0
		for _, w := range s.words {
			if kwTerms[w.term] && !held[w.term] {
				held[w.term] = true
				sum += fd.weight[w.term]
			}
		}
		if len(s.words) > 0 && sum > 0 {
			cands = append(cands, cand{i: i, score: sum / math.Sqrt(float64(len(s.words)))})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.score, a.score) })
	var (
		out   []string
		taken [][]string
		seen  = map[string]bool{}
	)
	for _, c := range cands {
		if len(out) == rerank.PseudoQueries {
			break
		}
		s := fd.sents[c.i]
		// The sentence's heaviest distinct keyword words, each with the
		// word it forms a keyword phrase with.
		idx := make([]int, 0, len(s.words))
		have := map[string]bool{}
		for k, w := range s.words {
			if kwTerms[w.term] && !have[w.term] {
				have[w.term] = true
				idx = append(idx, k)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(fd.weight[s.words[b].term], fd.weight[s.words[a].term]) })
		idx = idx[:min(queryTerms, len(idx))]
		chosen := map[int]bool{}
		for _, k := range idx {
			chosen[k] = true
		}
		for _, k := range idx {
			if k > 0 && s.words[k-1].tok == s.words[k].tok-1 && phrases[s.words[k-1].term+" "+s.words[k].term] {
				chosen[k-1] = true
			}
			if k+1 < len(s.words) && s.words[k+1].tok == s.words[k].tok+1 && phrases[s.words[k].term+" "+s.words[k+1].term] {
				chosen[k+1] = true
			}
		}
		// A term chosen twice keeps its occurrence inside a phrase, else
		// its first.
		idx = idx[:0]
		for k := range chosen {
			idx = append(idx, k)
		}
		slices.Sort(idx)
		inPhrase := func(k int) bool {
			return (chosen[k-1] && k > 0 && s.words[k-1].tok == s.words[k].tok-1 && phrases[s.words[k-1].term+" "+s.words[k].term]) ||
				(chosen[k+1] && k+1 < len(s.words) && s.words[k+1].tok == s.words[k].tok+1 && phrases[s.words[k].term+" "+s.words[k+1].term])
		}
		keep := map[string]int{}
		for _, k := range idx {
			t := s.words[k].term
			if prev, ok := keep[t]; !ok || (!inPhrase(prev) && inPhrase(k)) {
				keep[t] = k
			}
		}
		idx = idx[:0]
		for _, k := range keep {
			idx = append(idx, k)
		}
		if len(idx) < 2 {
			continue
		}
		slices.Sort(idx)
		terms := make([]string, len(idx))
		words := make([]string, len(idx))
		for k, i := range idx {
			w := s.words[i]
			terms[k] = w.term
			words[k] = strings.ToLower(w.surface)
			if r, _ := utf8.DecodeRuneInString(w.surface); unicode.IsUpper(r) && !w.opening {
				words[k] = w.surface
			}
		}
		repeat := false
		for _, prev := range taken {
			if jaccard(prev, terms) >= queryOverlap {
				repeat = true
				break
			}
		}
		if repeat {
			continue
		}
		q := strings.Join(words, " ")
		if y := sentenceYear(s); y != "" {
			q += " " + y
		}
		if seen[strings.ToLower(q)] {
			continue
		}
		seen[strings.ToLower(q)] = true
		taken = append(taken, terms)
		out = append(out, q)
	}
	return out
}

// sentenceYear returns the first number of a sentence that reads as a
// year, 1000 to 2099, or "".
func sentenceYear(s featureSentence) string {
	for _, t := range s.toks {
		if t.kind != tokNumber || len(t.text) != 4 {
			continue
		}
		if y, err := strconv.Atoi(t.text); err == nil && y >= 1000 && y <= 2099 {
			return t.text
		}
	}
	return ""
}
