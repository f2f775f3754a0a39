package offline

import (
	"context"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Parameters of the sentence scoring of summaries.
const (
	// bm25K1 and bm25B shape the term-frequency saturation and the length
	// normalisation of sentence scores (BM25 with sentences as documents).
	bm25K1 = 1.2
	bm25B  = 0.6
	// longSentenceChars is the length beyond which sentences are penalised
	// by the excess ratio to the power longSentencePower.
	longSentenceChars = 300
	longSentencePower = 0.75
	// idfFloor is the least a request term's within-document rarity can
	// scale it to: a term found in every sentence still counts this much
	// (the request's subject is often what the document repeats most).
	idfFloor = 0.5
	// minSummaryShare drops sentences scoring below this share of the best
	// one: a summary is no place for a sentence that only grazes the topic.
	minSummaryShare = 0.1
	// nearDuplicate is the term Jaccard at which a sentence repeats one
	// already chosen.
	nearDuplicate = 0.6
	// coverageDecay multiplies a request term's weight each time a chosen
	// sentence uses it, so later choices favour terms not yet covered.
	coverageDecay = 0.5
	// factBonus raises a sentence's score per concrete fact (dates,
	// amounts, numbers; names count half), up to maxFactBonusFacts.
	factBonus = 0.1
	// coordinationBonus raises a sentence's score for every request term
	// it uses beyond the first (by weight).
	coordinationBonus = 0.5
	maxFactBonusFacts = 3
)

// scoredSentence is a document sentence with its request score.
type scoredSentence struct {
	text  string   // flattened
	terms []string // distinct
	// contrib lists the request terms the sentence holds and what each adds
	// to its score, in term order.
	contrib []termContribution
	score   float64
	core    bool // holds a title or problem statement term
}

type termContribution struct {
	term  string
	value float64
}

// summarize writes the request-focused extractive summary of a document.
//
// The whole document is read (not only the prompt's first MaxDocChars
// characters). Every sentence (Analyzer.Sentences), freed of a heading or
// an address's salutation that sentence splitting left in it (see
// standAlone), is scored by BM25 against the request's terms, with
// sentences as the documents: term frequency saturated with length
// normalisation (k1 = 1.2, b = 0.6); each term weighted as the request
// profile says (1 for the problem statement, 1.5 for the title, 0.5 for
// the background; meta words such as "describe" at 0.3 and very common
// words such as "make" at 0.6 of that) and scaled by its rarity among the
// document's sentences, idf over the idf of a one-sentence term, floored at
// 0.5 (common words count less, but the request's subject, which a
// relevant document repeats, still counts at least half). Every request
// term beyond the first (by weight) adds half the score; sentences of more
// than 300 characters lose their excess ratio to the power 0.75; sentences
// with concrete facts gain 10% per fact (names count half, up to three).
//
// Only sentences holding a title or problem statement term that is no meta
// or common word, and scoring at least a tenth of the best, are eligible.
// Up to prompts.MaxSummarySentences are chosen greedily, the best first; a
// term's weight halves each time a chosen sentence uses it (so the summary
// covers more of the request), and a sentence whose terms overlap a chosen
// one's by a Jaccard of 0.6 or more is skipped. The chosen sentences are
// written in document order. NONE when no sentence is eligible.
func (e *Engine) summarize(ctx context.Context, in prompts.SummarizeInput) (string, error) {
	prof := e.profileOf(in.Request)
	sents, err := e.scoreSentences(ctx, in.DocText, prof)
	if err != nil {
		return "", err
	}
	chosen := chooseSentences(sents, prompts.MaxSummarySentences)
	if len(chosen) == 0 {
		return prompts.FormatSummarize(prompts.SummarizeOutput{}), nil
	}
	parts := make([]string, len(chosen))
	for i, s := range chosen {
		parts[i] = s.text
	}
	return prompts.FormatSummarize(prompts.SummarizeOutput{Summary: strings.Join(parts, " "), Relevant: true}), nil
}

// scoreSentences splits text into sentences and scores each against the
// request profile.
func (e *Engine) scoreSentences(ctx context.Context, text string, prof profile) ([]scoredSentence, error) {
	spans := e.an.Sentences(text)
	sents := make([]scoredSentence, 0, len(spans))
	df := map[string]int{}
	tf := make([]map[string]int, 0, len(spans))
	totalLen := 0
	for i, sp := range spans {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			continue
		}
		raw := standAlone(strings.Join(strings.Fields(text[sp.Start:sp.End]), " "))
		if editorialNote(raw) || pipeline.HeadingAlone(raw) {
			continue
		}
		terms := e.an.Terms(raw)
		counts := make(map[string]int, len(terms))
		for _, t := range terms {
			counts[t]++
		}
		d := distinct(terms)
		for _, t := range d {
			df[t]++
		}
		totalLen += len(terms)
		sents = append(sents, scoredSentence{text: raw, terms: d})
		tf = append(tf, counts)
	}
	if len(sents) == 0 {
		return nil, nil
	}
	n := len(sents)
	avg := math.Max(1, float64(totalLen)/float64(n))
	maxIDF := idf(n, 1)
	wt := e.newWordTerms()
	for i := range sents {
		s := &sents[i]
		length := 0
		for _, c := range tf[i] {
			length += c
		}
		norm := 1 - bm25B + bm25B*float64(length)/avg
		for _, t := range s.terms {
			w := prof.weight[t]
			if w == 0 {
				continue
			}
			c := float64(tf[i][t])
			rarity := idfFloor + (1-idfFloor)*math.Min(1, idf(n, df[t])/maxIDF)
			v := w * rarity * c * (bm25K1 + 1) / (c + bm25K1*norm)
			s.contrib = append(s.contrib, termContribution{term: t, value: v})
			s.score += v
			if prof.isCore(t) {
				s.core = true
			}
		}
		if s.score == 0 {
			continue
		}
		// Coordination: a sentence using several of the request's terms
		// speaks to the request; one sharing a single word may not.
		matched := 0.0
		for _, c := range s.contrib {
			matched += prof.weight[c.term]
		}
		if matched > 1 {
			s.score *= 1 + coordinationBonus*(matched-1)
		}
		if chars := len(s.text); chars > longSentenceChars {
			s.score *= math.Pow(float64(longSentenceChars)/float64(chars), longSentencePower)
		}
		s.score *= 1 + factBonus*e.factCount(s.text, wt)
	}
	return sents, nil
}

// factCount counts the facts of a sentence for the summary's fact bonus:
// concrete facts count 1, names 0.5, up to maxFactBonusFacts.
func (e *Engine) factCount(text string, wt *wordTerms) float64 {
	c := 0.0
	for _, f := range e.findFacts(text, tokenize(text), wt) {
		if f.concrete() {
			c++
		} else if !f.generic {
			c += 0.5
		}
	}
	return math.Min(c, maxFactBonusFacts)
}

// chooseSentences picks up to max sentences greedily (see summarize) and
// returns them in document order.
func chooseSentences(sents []scoredSentence, max int) []scoredSentence {
	best := 0.0
	for _, s := range sents {
		if s.core && s.score > best {
			best = s.score
		}
	}
	if best == 0 {
		return nil
	}
	decay := map[string]float64{}
	factor := func(t string) float64 {
		if f, ok := decay[t]; ok {
			return f
		}
		return 1
	}
	used := make([]bool, len(sents))
	var picked []int
	for len(picked) < max {
		pick, pickScore := -1, 0.0
		for i, s := range sents {
			if used[i] || !s.core || s.score < minSummaryShare*best {
				continue
			}
			raw := 0.0
			adj := 0.0
			for _, c := range s.contrib {
				raw += c.value
				adj += c.value * factor(c.term)
			}
			if raw == 0 {
				continue
			}
			// The adjusted score keeps the sentence's length and fact
			// adjustments: score × (decayed terms / all terms).
			v := s.score * adj / raw
			if v > pickScore {
				pick, pickScore = i, v
			}
		}
		if pick < 0 {
			break
		}
		used[pick] = true
		dup := false
		for _, j := range picked {
			if jaccard(sents[pick].terms, sents[j].terms) >= nearDuplicate {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		picked = append(picked, pick)
		for _, c := range sents[pick].contrib {
			decay[c.term] = factor(c.term) * coverageDecay
		}
	}
	// Document order.
	for i := 1; i < len(picked); i++ {
		for j := i; j > 0 && picked[j] < picked[j-1]; j-- {
			picked[j], picked[j-1] = picked[j-1], picked[j]
		}
	}
	out := make([]scoredSentence, len(picked))
	for i, p := range picked {
		out[i] = sents[p]
	}
	return out
}

// editorialNote reports whether a sentence is an editor's bracketed note
// rather than the document's own words: "[Footnote 1: The report ... is
// printed in House Document 398.]", "[Applause]".
func editorialNote(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[") && (strings.HasSuffix(strings.TrimRight(s, ".\"'”’ "), "]") ||
		strings.HasPrefix(strings.ToLower(s), "[footnote") || strings.HasPrefix(strings.ToLower(s), "[note"))
}

// standAlone removes what sentence splitting leaves at the start of a
// sentence but belongs to none: a heading in capitals and an address's
// salutation.
func standAlone(s string) string { return stripSalutation(stripRunInHeading(stripHeading(s))) }

// reRunInHeading is a heading run into its paragraph's first sentence by a
// full stop and a dash ("Rural electrification.-It is proposed that ...",
// "ART.-All"), as some printed messages set them.
var reRunInHeading = regexp.MustCompile(`^\p{Lu}[\pL,'’ ]{0,60}?\.[-–—]\s*\p{Lu}`)

// runInHeadingWords bounds the words of a run-in heading.
const runInHeadingWords = 7

// stripRunInHeading removes a run-in heading from the start of s.
func stripRunInHeading(s string) string {
	m := reRunInHeading.FindStringIndex(s)
	if m == nil {
		return s
	}
	_, size := utf8.DecodeLastRuneInString(s[:m[1]])
	head := s[:m[1]-size]
	if len(strings.Fields(head)) > runInHeadingWords {
		return s
	}
	return s[m[1]-size:]
}

// salutationOpeners open the salutation of an address ("Mr. Speaker, Mr.
// President, ...:", "To the Senate and House of Representatives:").
var salutationOpeners = []string{"Mr. ", "Madam ", "Madame ", "Mister ", "Fellow", "To the ", "Gentlemen", "Members ", "Ladies", "My fellow"}

// stripSalutation removes an address's salutation, up to its colon, from
// the start of a sentence when something follows it.
func stripSalutation(s string) string {
	opens := false
	for _, o := range salutationOpeners {
		if strings.HasPrefix(s, o) {
			opens = true
			break
		}
	}
	if !opens {
		return s
	}
	i := strings.Index(s, ": ")
	if i < 0 || i > 300 {
		return s
	}
	rest := strings.TrimSpace(s[i+2:])
	if len(strings.Fields(rest)) < 3 {
		return s
	}
	return rest
}

// reTrailingHeading is a numbered heading that sentence splitting joined
// to the end of a sentence ("... full employment. (k) Education.").
var reTrailingHeading = regexp.MustCompile(`([.!?])\s+\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)]\s+[A-Z][\w ,'’-]{0,60}\.?$`)

// mayTrailHeading reports whether s may hold a heading reTrailingHeading
// finds: a '.', '!' or '?' followed by white space (the expression's \s)
// comes first in one, and most sentences have none before their end. The
// expression, slow on long sentences, then need not run.
func mayTrailHeading(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			switch s[i+1] {
			case ' ', '\t', '\n', '\f', '\r':
				return true
			}
		}
	}
	return false
}

// stripHeading removes a heading that sentence splitting left in a
// sentence: at its start, words all in capitals (one of three letters or
// more among them) before a capitalised word, after an optional list
// number ("RAILWAYS We have determined ...", "6. SOCIAL SECURITY Benefit
// payments ...", "OF INTERNATIONAL JUSTICE Pending ..."), or a short list
// number alone ("(12) Legislation ..."); at its end, a numbered heading
// after the closing full stop ("(k) Education.").
func stripHeading(s string) string {
	if mayTrailHeading(s) {
		if m := reTrailingHeading.FindStringSubmatchIndex(s); m != nil {
			s = s[:m[3]]
		}
	}
	fields := strings.Fields(s)
	k := 0
	if len(fields) > 2 && isEnumerator(fields[0]) {
		k = 1
	}
	// The heading: capitals only, one word of three capitals or more at
	// least, short words such as "OF" and "AND" inside it ("OF
	// INTERNATIONAL JUSTICE Pending before the Senate ...": splitting
	// left the heading's first word in the sentence before).
	// A short word in title case between two words in capitals belongs to
	// it too ("THE ECONOMIC IMPACT Of THE LIQUIDATION OF THE WAR PROGRAM
	// Government programs ...").
	shouted, long := k, false
	for shouted < len(fields)-1 && (allCaps(fields[shouted]) ||
		shouted > k && headingJoiners[fields[shouted]] && allCaps(fields[shouted-1]) && allCaps(fields[shouted+1])) {
		long = long || isShouted(fields[shouted])
		shouted++
	}
	opener := false
	if shouted > k+1 && !startsUpper(fields[shouted]) && (fields[shouted-1] == "I" || fields[shouted-1] == "A") {
		// "I" and "A" are capitals too: the sentence after the heading
		// opens with them ("IMMIGRATION AND DEPORTATION I recommend ...",
		// "COMMERCIAL AVIATION A rapid growth ...").
		shouted--
		opener = true
	}
	if !long || !startsUpper(fields[shouted]) || allCaps(fields[shouted]) && !opener {
		// No heading; a short list number or a counting word alone
		// still goes ("(12) Legislation for the domestic use of atomic
		// energy ...", "Third. That section 1258 ... be repealed").
		if len(fields) > 2 && (isEnumerator(fields[0]) && len(strings.Trim(fields[0], "().")) <= 2 || countingWords[strings.TrimSuffix(fields[0], ".")] && strings.HasSuffix(fields[0], ".")) &&
			startsUpper(fields[1]) && !allCaps(fields[1]) {
			return strings.Join(fields[1:], " ")
		}
		return s
	}
	return strings.Join(fields[shouted:], " ")
}

// countingWords count the items of a list in words, each a sentence of
// its own after its full stop ("Second. That early action be taken
// ...").
var countingWords = map[string]bool{
	"First": true, "Second": true, "Third": true, "Fourth": true, "Fifth": true,
	"Sixth": true, "Seventh": true, "Eighth": true, "Ninth": true, "Tenth": true,
}

// headingJoiners are the short words a heading in capitals may write in
// title case.
var headingJoiners = map[string]bool{"Of": true, "And": true, "The": true, "In": true, "For": true, "To": true, "On": true, "A": true}

// allCaps reports whether a word has letters and all of them capitals:
// "OF", "JUSTICE", "U.S.".
func allCaps(w string) bool {
	n, ok := capitalLetters(w)
	return ok && n > 0
}

// capitalLetters counts a word's letters; ok is false when one of them is
// not a capital.
func capitalLetters(w string) (n int, ok bool) {
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			n++
		case unicode.IsLetter(r):
			return n, false
		}
	}
	return n, true
}

// isEnumerator reports whether a word numbers a list item: "6.", "(k)",
// "IV.", "b)".
func isEnumerator(w string) bool {
	w = strings.TrimPrefix(w, "(")
	if !strings.HasSuffix(w, ".") && !strings.HasSuffix(w, ")") {
		return false
	}
	w = w[:len(w)-1]
	if w == "" || len(w) > 4 {
		return false
	}
	for _, r := range w {
		if !unicode.IsDigit(r) && !strings.ContainsRune("ivxlcIVXLCabcdefghijk", r) {
			return false
		}
	}
	return true
}

func isShouted(w string) bool {
	n, ok := capitalLetters(w)
	return ok && n >= 3
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}
