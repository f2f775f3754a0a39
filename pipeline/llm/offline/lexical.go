package offline

import (
	"hash/fnv"
	"math"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Weights of the request's terms: the title and problem statement say what
// the report is about; the background says who wants it and why. Words
// that only say what kind of answer is wanted ("describe", "information",
// see metaWords) weigh metaFactor as much, and the most frequent English
// words ("make", "old", "year", see commonWords) commonFactor as much.
const (
	coreWeight       = 1.0
	backgroundWeight = 0.5
	metaFactor       = 0.3
	commonFactor     = 0.6
	// titleFactor raises the terms of the title, which names the subject
	// in a few words where the problem statement also says what is wanted.
	titleFactor = 1.5
)

// profile is the vocabulary of a report request: its title and what its
// problem statement asks (core), its background.
type profile struct {
	// weight maps a term to coreWeight (title or what the problem
	// statement asks; times titleFactor for the title's) or
	// backgroundWeight (background only), times metaScale.
	weight map[string]float64
	// core lists the terms of the title and of what the problem statement
	// asks, distinct and in the order of first use.
	core []string
	// coreSet holds the core terms that are neither meta nor common words.
	coreSet map[string]bool
}

func (e *Engine) profileOf(r prompts.RequestInfo) profile {
	p := profile{weight: map[string]float64{}, coreSet: map[string]bool{}}
	// What the title and the problem statement ask, not the clauses that
	// say what to leave aside ("leave aside the line-item veto", "...,
	// apart from Germany and Japan, 1946-1948"): a term written only there
	// names what the report is not about (as the subject reads it:
	// pipeline/crucible's newSubject).
	askedTitle, _ := pipeline.SplitTitleExclusions(r.Title)
	title := setOf(e.an.Terms(askedTitle))
	asked, _ := pipeline.SplitExclusions(r.ProblemStatement)
	for _, t := range e.an.Terms(askedTitle + "\n" + asked) {
		if _, seen := p.weight[t]; seen {
			continue
		}
		w := coreWeight * e.metaScale(t)
		if title[t] {
			w *= titleFactor
		}
		p.weight[t] = w
		p.core = append(p.core, t)
		// A term that names the subject, not a meta or common word.
		p.coreSet[t] = e.metaScale(t) == 1
	}
	for _, t := range e.an.Terms(r.Background) {
		if _, seen := p.weight[t]; !seen {
			p.weight[t] = backgroundWeight * e.metaScale(t)
		}
	}
	return p
}

func (e *Engine) metaScale(t string) float64 {
	switch {
	case e.meta[t]:
		return metaFactor
	case e.common[t]:
		return commonFactor
	}
	return 1
}

// isCore reports whether t is a title or problem statement term that is
// neither a meta word nor a common one.
func (p profile) isCore(t string) bool { return p.coreSet[t] }

// distinct returns the distinct terms of ts in order of first use.
func distinct(ts []string) []string {
	seen := make(map[string]bool, len(ts))
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// setOf returns the set of ts.
func setOf(ts []string) map[string]bool {
	s := make(map[string]bool, len(ts))
	for _, t := range ts {
		s[t] = true
	}
	return s
}

// jaccard is |A ∩ B| / |A ∪ B| over the distinct terms of a and b; 0 when
// both are empty.
func jaccard(a, b []string) float64 {
	da, db := distinct(a), distinct(b)
	if len(da) == 0 && len(db) == 0 {
		return 0
	}
	sb := setOf(db)
	inter := 0
	for _, t := range da {
		if sb[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(da)+len(db)-inter)
}

// SimHash is the 64-bit SimHash of a list of terms (Charikar): every
// occurrence of a term votes with the bits of the term's 64-bit FNV-1a
// hash, and bit i of the result is set when more occurrences voted 1 than
// 0 there. Texts with similar terms get hashes a small Hamming distance
// apart; unrelated texts differ in about 32 bits. The paraphrase stage can
// use it to prefilter the pairs it asks about.
func SimHash(terms []string) uint64 {
	var votes [64]int
	for _, t := range terms {
		h := fnv.New64a()
		h.Write([]byte(t))
		v := h.Sum64()
		for i := range votes {
			if v&(1<<uint(i)) != 0 {
				votes[i]++
			} else {
				votes[i]--
			}
		}
	}
	var out uint64
	for i, v := range votes {
		if v > 0 {
			out |= 1 << uint(i)
		}
	}
	return out
}

// Hamming is the number of bits in which a and b differ.
func Hamming(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// tokKind is the kind of a surface token.
type tokKind uint8

const (
	tokWord   tokKind = iota // letters: "tariff", "McKinley", "U.S.", "don't"
	tokNumber                // digits: "1890", "1,000", "3.5", "1890s", "19th"
	tokSymbol                // one other character: "$", "%", ",", "(", "—"
)

// token is a surface token of a text with its byte span.
type token struct {
	text       string
	start, end int
	kind       tokKind
}

// lower is the token's text in lower case.
func (t token) lower() string { return strings.ToLower(t.text) }

// capitalised reports whether a word starts with an upper-case letter.
func (t token) capitalised() bool {
	if t.kind != tokWord {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t.text)
	return unicode.IsUpper(r)
}

// is reports whether the token is the symbol or word s (ignoring case).
func (t token) is(s string) bool { return strings.EqualFold(t.text, s) }

// tokenize splits text into words, numbers and single symbols; white space
// separates tokens and is not one. Words keep inner apostrophes and hyphens
// ("don't", "so-called") and abbreviations keep their points ("U.S.");
// numbers keep inner commas and points followed by a digit ("1,000",
// "3.5") and a letter suffix ("1890s", "19th").
func tokenize(text string) []token {
	var toks []token
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case unicode.IsDigit(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsDigit(r2) {
					j += s2
					continue
				}
				if (r2 == ',' || r2 == '.') && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9' {
					j += s2
					continue
				}
				break
			}
			// A letter suffix: "1890s", "19th", "2nd", and the older
			// ordinals "2d", "93d" ("the 93d Congress").
			k := j
			for k < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[k:])
				if !unicode.IsLetter(r2) || k-j >= 2 {
					break
				}
				k += s2
			}
			if k > j && (k == len(text) || !isLetterAt(text, k)) {
				switch strings.ToLower(text[j:k]) {
				case "s", "th", "st", "nd", "rd":
					j = k
				case "d":
					if l := text[j-1]; l == '2' || l == '3' {
						j = k
					}
				}
			}
			// "1970's": a decade.
			for _, suffix := range []string{"'s", "’s"} {
				if k == j && strings.HasPrefix(text[j:], suffix) && j-i == 4 && !isLetterAt(text, j+len(suffix)) {
					j += len(suffix)
				}
			}
			// "6-month", "19th-century", "5-year-old": a compound word, not
			// a number.
			if j+1 < len(text) && text[j] == '-' && isLetterAt(text, j+1) && !dashBefore(text, j+1) {
				k := j + 1
				for k < len(text) {
					r2, s2 := utf8.DecodeRuneInString(text[k:])
					if unicode.IsLetter(r2) || unicode.IsDigit(r2) || (r2 == '-' && isLetterAt(text, k+1) && !dashBefore(text, k+1)) {
						k += s2
						continue
					}
					break
				}
				toks = append(toks, token{text: text[i:k], start: i, end: k, kind: tokWord})
				i = k
				continue
			}
			toks = append(toks, token{text: text[i:j], start: i, end: j, kind: tokNumber})
			i = j
		case unicode.IsLetter(r) || unicode.IsMark(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsLetter(r2) || unicode.IsMark(r2) || unicode.IsDigit(r2) {
					j += s2
					continue
				}
				if (r2 == '\'' || r2 == '’' || r2 == '-') && isLetterAt(text, j+s2) && !(r2 == '-' && dashBefore(text, j+s2)) {
					j += s2
					continue
				}
				// Abbreviation points: "U.S.", "D.C." (single letters).
				if r2 == '.' && isAbbrevAt(text, i, j) {
					j += s2
					continue
				}
				break
			}
			toks = append(toks, token{text: text[i:j], start: i, end: j, kind: tokWord})
			i = j
		default:
			toks = append(toks, token{text: text[i : i+size], start: i, end: i + size, kind: tokSymbol})
			i += size
		}
	}
	return toks
}

// dashWords are the words that a hyphen written for a dash runs a word
// into ("the Advanced Energy Initiative-a 22-percent increase", "the
// Higher Education Act-including proposals", "in 1961-and individuals"):
// no compound ends on one of them.
var dashWords = setOf(strings.Fields(`a an the and or but nor as are is was were be that that's which who whom
	including with we our us it its i he she they their this these those not so yet`))

// dashBefore reports whether the hyphen before text[i] is a dash: the
// word at i is one of dashWords and ends there, not inside a compound
// that goes on with another hyphen ("bread-and-butter",
// "state-of-the-art").
func dashBefore(text string, i int) bool {
	k := i
	for k < len(text) {
		r, size := utf8.DecodeRuneInString(text[k:])
		if !unicode.IsLetter(r) && r != '\'' && r != '’' {
			break
		}
		k += size
	}
	if k < len(text) && text[k] == '-' {
		return false
	}
	return dashWords[strings.ToLower(strings.ReplaceAll(text[i:k], "’", "'"))]
}

func isLetterAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r)
}

// isAbbrevAt reports whether the point at text[j] belongs to an
// abbreviation of single letters, such as "U.S." or "D.C.": the word so far
// (text[i:j]) alternates single letters and points.
func isAbbrevAt(text string, i, j int) bool {
	seg := text[i:j]
	parts := strings.Split(seg, ".")
	for _, p := range parts {
		if utf8.RuneCountInString(p) != 1 {
			return false
		}
	}
	// The point is followed by another single letter and a point, or ends
	// the abbreviation after at least one earlier point.
	if isLetterAt(text, j+1) {
		_, s := utf8.DecodeRuneInString(text[j+1:])
		return j+1+s < len(text) && text[j+1+s] == '.'
	}
	return len(parts) > 1
}

// wordTerms caches the analyzer's terms of single words during one call.
type wordTerms struct {
	e     *Engine
	cache map[string][]string
}

func (e *Engine) newWordTerms() *wordTerms {
	return &wordTerms{e: e, cache: map[string][]string{}}
}

// of returns the terms of one word (none for a stop word).
func (w *wordTerms) of(word string) []string {
	k := strings.ToLower(word)
	if ts, ok := w.cache[k]; ok {
		return ts
	}
	ts := w.e.an.Terms(word)
	w.cache[k] = ts
	return ts
}

// content reports whether a word token has index terms (is not a stop
// word).
func (w *wordTerms) content(t token) bool {
	return t.kind == tokWord && len(w.of(t.text)) > 0
}

// functionWords are adverbs, prepositions, modals and conjunctions that
// the index's short stop list keeps but that name nothing: they neither
// open nor continue the phrases nuggets are built from.
var functionWords = map[string]bool{
	"since": true, "thus": true, "also": true, "very": true, "only": true, "yet": true, "still": true, "upon": true,
	"within": true, "without": true, "toward": true, "towards": true, "however": true, "therefore": true,
	"hence": true, "though": true, "although": true, "whether": true, "shall": true, "will": true, "would": true,
	"may": true, "might": true, "must": true, "can": true, "could": true, "should": true, "among": true,
	"amongst": true, "across": true, "along": true, "around": true, "behind": true, "beyond": true, "despite": true,
	"except": true, "inside": true, "outside": true, "per": true, "via": true, "whose": true, "whom": true,
	"whatever": true, "whenever": true, "wherever": true, "well": true, "even": true, "just": true, "now": true,
	"already": true, "always": true, "never": true, "often": true, "ever": true, "perhaps": true, "indeed": true,
	"quite": true, "rather": true, "almost": true, "nearly": true, "far": true, "away": true, "every": true,
	"either": true, "neither": true, "much": true, "many": true, "less": true, "least": true, "several": true,
	"certain": true, "another": true, "wholly": true, "partly": true, "partially": true, "fully": true,
	"undoubtedly": true, "generally": true, "especially": true, "really": true, "therein": true, "thereof": true,
	"hereafter": true, "heretofore": true, "whereby": true, "herein": true, "unless": true, "until": true,
	"whereas": true,
}

// phraseWord reports whether a word token can be part of a phrase: a
// content word that is not a function word.
func (w *wordTerms) phraseWord(t token) bool {
	return w.content(t) && !functionWords[t.lower()]
}

// idf is a smoothed inverse document frequency over n units of which df
// hold the term; always positive.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// clamp01 bounds x to [0, 1].
func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
