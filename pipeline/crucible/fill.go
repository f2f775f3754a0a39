package crucible

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Filling a report's room (the rule FillReport).
const (
	// FillNuggetPrefix opens the ids of nuggets drawn for the fill ("p3":
	// drawn from the third sentence tried); document nuggets open with
	// "n", facet nuggets with "f".
	FillNuggetPrefix = "p"
	// fillPassages is how many of the request's best BM25 passages the
	// fill reads sentences from: those the lead baseline reads.
	fillPassages = leadPassages
	// fillTries bounds the sentences tried, each one nugget call and one
	// extraction (and the checks when verifying).
	fillTries = 24
	// fillMinRoom is the least room worth filling, in characters: an
	// attributed sentence is rarely shorter.
	fillMinRoom = 80
)

// fillSentence is a sentence of one of the request's best passages that
// the fill may draw a nugget from.
type fillSentence struct {
	text  string
	hit   pipeline.Hit
	cit   pipeline.Citation
	share float64 // of the request's terms the sentence holds
}

// fill fills the room the assembled sentences leave within the length
// limit (the rule FillReport). The sentences of the request's best BM25
// passages that speak of its subject (as an assembled sentence must, see
// onTopic), ranked by the share of the request's terms they hold, each
// term weighed by its inverse document frequency (queryWeights; the lead
// baseline counts them alike), give one nugget each, drawn from the
// sentence alone by the nuggets prompt; the sentence extracted for that
// nugget from the sentence's passage (and, when verifying, checked) is
// offered to the report under assembly's rules (pipeline.Extend). The
// fill's nuggets join the nugget bank after the ranked ones, kept (with
// a rank after theirs) when their sentence is in the report; their
// candidates join the run's. Sentences already cited, or repeating an
// assembled sentence, are not tried; with within (a reranker's chosen
// documents, the report's context), only sentences of those documents.
func (r *run) fill(ctx context.Context, sentences []pipeline.Sentence, kept []pipeline.Nugget, cands []pipeline.Candidate, opts pipeline.AssembleOptions, within map[string]bool) ([]pipeline.Sentence, []pipeline.Nugget, []pipeline.Candidate, error) {
	if r.req.Limit-(pipeline.Report{Sentences: sentences}).Length() < fillMinRoom {
		return sentences, kept, cands, nil
	}
	d, err := r.drawFill(ctx, sentences, within, 0)
	if err != nil || len(d.nuggets) == 0 {
		return sentences, kept, cands, err
	}
	return r.placeFill(ctx, d, sentences, kept, cands, opts)
}

// fillDraw is what the fill drew from the sentences it tried: a nugget
// each (in the order tried), the candidates extracted for them, and
// those of the candidates a report may take (eligible and on topic).
type fillDraw struct {
	nuggets      []pipeline.Nugget
	all, offered []pipeline.Candidate
}

// drawFill draws the fill's nuggets and candidates from the sentences it
// tries (fillSentences), ranked after rank (the kept nuggets' last).
func (r *run) drawFill(ctx context.Context, sentences []pipeline.Sentence, within map[string]bool, rank int) (fillDraw, error) {
	var d fillDraw
	tries, err := r.fillSentences(ctx, sentences, within)
	if err != nil || len(tries) == 0 {
		return d, err
	}
	nuggets := make([]*pipeline.Nugget, len(tries))
	found := make([]*pipeline.Candidate, len(tries))
	err = pipeline.ForEach(ctx, len(tries), r.s.Concurrency, func(ctx context.Context, i int) error {
		n, c, err := r.fillOne(ctx, i, tries[i])
		nuggets[i], found[i] = n, c
		return err
	})
	if err != nil {
		return d, err
	}
	for i, n := range nuggets {
		if n == nil {
			continue // the document or its passages could not be read
		}
		rank++
		n.Rank = rank
		d.nuggets = append(d.nuggets, *n)
		if c := found[i]; c != nil {
			d.all = append(d.all, *c)
			if c.Eligible(r.s.Verify) && r.fillOnTopic(*c) {
				d.offered = append(d.offered, *c)
			}
		}
	}
	return d, nil
}

// lastRank is the last rank among nuggets (0 for none).
func lastRank(nuggets []pipeline.Nugget) int {
	rank := 0
	for _, n := range nuggets {
		rank = max(rank, n.Rank)
	}
	return rank
}

// placeFill offers the fill's candidates to the report's room under
// assembly's rules (pipeline.Extend) and files what the fill drew: its
// nuggets whose sentence the report holds join the kept ones, ranked
// after them; its candidates join the run's; the bank and the candidates
// are given to the observer again.
func (r *run) placeFill(ctx context.Context, d fillDraw, sentences []pipeline.Sentence, kept []pipeline.Nugget, cands []pipeline.Candidate, opts pipeline.AssembleOptions) ([]pipeline.Sentence, []pipeline.Nugget, []pipeline.Candidate, error) {
	drawn := map[string]bool{}
	for _, n := range d.nuggets {
		drawn[n.ID] = true
	}
	ranked := 0
	for _, s := range sentences {
		if !drawn[s.NuggetID] {
			ranked++
		}
	}
	if r.req.Limit-(pipeline.Report{Sentences: sentences}).Length() >= fillMinRoom {
		sentences = pipeline.Extend(sentences, d.offered, opts)
	}
	if ranked == 0 && len(sentences) > 0 {
		r.rewordProblems(emptyReport, "; the report holds only sentences the fill found on the subject")
	}
	used := map[string]bool{}
	for _, s := range sentences {
		if drawn[s.NuggetID] {
			used[s.NuggetID] = true
		}
	}
	rank := lastRank(kept)
	kept = append([]pipeline.Nugget(nil), kept...)
	bank := append([]pipeline.Nugget(nil), r.bank...)
	for _, n := range d.nuggets {
		n.Rank = 0 // below the cut unless the report holds its sentence
		if used[n.ID] {
			rank++
			n.Rank = rank
			kept = append(kept, n)
		}
		bank = append(bank, n)
	}
	cands = append(append([]pipeline.Candidate(nil), cands...), d.all...)
	if err := r.obs.Nuggets(ctx, bank); err != nil {
		return sentences, kept, cands, err
	}
	if err := r.obs.Candidates(ctx, cands); err != nil {
		return sentences, kept, cands, err
	}
	return sentences, kept, cands, nil
}

// fillSentences returns the sentences the fill tries, best first (by the
// share of the request's terms they hold): at most fillTries of the
// request's fillPassages best passages' sentences that cite one of its
// best passages (of a document within, when within is not nil), speak of
// its subject and are neither cited by nor the same as an assembled
// sentence, nor a question or a heading in capitals alone.
func (r *run) fillSentences(ctx context.Context, sentences []pipeline.Sentence, within map[string]bool) ([]fillSentence, error) {
	q := r.req.Query()
	if utf8.RuneCountInString(q) > pipeline.MaxQueryChars {
		q = string([]rune(q)[:pipeline.MaxQueryChars])
	}
	res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: fillPassages})
	if err != nil {
		return nil, err
	}
	query := r.termSet(q)
	if len(query) == 0 {
		return nil, nil
	}
	weight, err := r.queryWeights(ctx, query)
	if err != nil {
		return nil, err
	}
	var total float64
	for _, t := range query {
		total += weight(t)
	}
	seen := map[string]bool{}
	for _, s := range sentences {
		seen[r.e.SentenceKey(s.Text)] = true
	}
	var out []fillSentence
	for _, h := range res.Hits {
		if !r.bestPassage(pipeline.Citation{DocID: h.DocID, Ordinal: h.Ordinal}) || r.outOfScope(h.DocID) || within != nil && !within[h.DocID] {
			continue
		}
		spans := []pipeline.Span{{Start: 0, End: len(h.Text)}} // nil Sentences: a passage is one sentence
		if r.e.Sentences != nil {
			spans = r.e.Sentences(h.Text)
		}
		for _, sp := range spans {
			if sp.Start < 0 || sp.End > len(h.Text) || sp.Start >= sp.End {
				continue
			}
			text := strings.TrimSpace(h.Text[sp.Start:sp.End])
			if text == "" || strings.HasSuffix(text, "?") || pipeline.HeadingAlone(text) {
				continue
			}
			cit := pipeline.Citation{DocID: h.DocID, Ordinal: h.Ordinal, Start: h.Start + sp.Start, End: h.Start + sp.End}
			k := r.e.SentenceKey(text)
			if k == "" || seen[k] || repeatsCitation(sentences, cit) || !r.subject.empty() && !r.speaksOfSubject(h.DocID, text) {
				continue
			}
			seen[k] = true
			held := 0.0
			for _, t := range r.termSet(text) {
				if query.Has(t) {
					held += weight(t)
				}
			}
			out = append(out, fillSentence{text: text, hit: h, cit: cit, share: held / total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].share > out[j].share })
	return out[:min(len(out), fillTries)], nil
}

// queryWeights returns the weight of each of the query's terms in the
// fill's ranking of sentences: its inverse document frequency over the
// collection's passages (BM25's), so that a sentence holding the rare
// words of a request ("franking" of one on the franking privilege) goes
// before one holding more of its common words ("Congress", "Department",
// "Treasury"). Every term weighs 1 for an engine that gives no
// collection statistics.
func (r *run) queryWeights(ctx context.Context, query analysis.Set) (func(string) float64, error) {
	if r.e.DocFreq == nil {
		return func(string) float64 { return 1 }, nil
	}
	units, df, err := r.e.DocFreq(ctx, query)
	if err != nil {
		return nil, err
	}
	return func(t string) float64 { return idf(units, df[t]) }, nil
}

// idf is BM25's inverse document frequency of a term held by df of n
// units: log(1 + (n - df + 0.5) / (df + 0.5)).
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// fillOne draws a nugget from one sentence (a claim nugget when the
// nuggets prompt gives none or cannot be read) and extracts its sentence
// from the sentence's passage (checked when verifying): nil candidate
// when the passage gives none.
func (r *run) fillOne(ctx context.Context, i int, s fillSentence) (*pipeline.Nugget, *pipeline.Candidate, error) {
	d, err := r.document(ctx, s.hit.DocID)
	if err != nil {
		return nil, nil, err
	}
	out, _, ok, err := complete(ctx, r, prompts.BuildNuggets(prompts.NuggetsInput{
		Request: r.info, DocID: d.ID, DocTitle: d.Title, Summary: s.text, Max: 1,
	}), prompts.ParseNuggets)
	if err != nil {
		return nil, nil, err
	}
	claim, shown, err := r.claimNugget(ctx, d, s.text)
	if err != nil {
		return nil, nil, err
	}
	qa, drawn := claim, ok && len(out.Nuggets) > 0
	if drawn {
		qa = out.Nuggets[0]
	}
	nugget := func(qa prompts.QA) *pipeline.Nugget {
		return &pipeline.Nugget{
			ID: fmt.Sprintf("%s%d", FillNuggetPrefix, i+1), Question: qa.Question, Answer: qa.Answer,
			Sources: []string{d.ID}, Popularity: 1,
		}
	}
	n := nugget(qa)
	ps, err := r.passagesOf(ctx, s.hit.DocID)
	if err != nil {
		return n, nil, err
	}
	if s.hit.Ordinal < 0 || s.hit.Ordinal >= len(ps) {
		return n, nil, nil
	}
	target := scanTarget{p: &ps[s.hit.Ordinal], title: d.Title}
	c, err := r.extract(ctx, *n, target)
	if err != nil {
		return n, nil, err
	}
	if drawn && (c == nil || !r.fillOnTopic(*c)) {
		// The nugget drawn asked for a detail whose sentence the passage
		// does not give, or gives cut to a clause that no longer speaks of
		// the subject ("to restore the former rate of postage ... to 5
		// cents" of a sentence on the franking privilege): the sentence
		// tried, which does, is asked for as a claim instead.
		cn := nugget(claim)
		cc, err := r.extract(ctx, *cn, target)
		if err != nil {
			return n, nil, err
		}
		if cc != nil && r.fillOnTopic(*cc) {
			n, c = cn, cc
		}
	}
	if n.Question == claim.Question {
		n.Question = shown.Question // the claim as it reads alone
	}
	if c == nil {
		return n, nil, nil
	}
	if r.s.Verify {
		if err := r.check(ctx, c, *n); err != nil {
			return n, nil, err
		}
	}
	return n, c, nil
}

// fillOnTopic reports whether a fill candidate may be assembled as any
// candidate may (onTopic): it cites one of the request's best passages,
// its cited text speaks of the subject and the sentence names it, and its
// document is within the period the title names; any, when no subject
// could be read.
func (r *run) fillOnTopic(c pipeline.Candidate) bool {
	if r.subject.empty() {
		return true // nothing to hold sentences to (see onTopic)
	}
	return r.bestPassage(c.Citation) && r.speaksOfSubject(c.Citation.DocID, c.Support) && r.namesSubject(c.Sentence) && !r.outOfScope(c.Citation.DocID)
}

// repeatsCitation reports whether a citation overlaps one an assembled
// sentence cites.
func repeatsCitation(sentences []pipeline.Sentence, c pipeline.Citation) bool {
	for _, s := range sentences {
		if s.Citation.Overlaps(c) {
			return true
		}
	}
	return false
}

// claimNugget is the nugget of a sentence the nuggets prompt draws none
// from (it states no date, sum or name to ask about): what the document's
// speaker said in its year on the facet of the request the sentence
// speaks of (not one that names another speaker), answered by the
// sentence itself. "What did William J Clinton
// say in 1998 on “Tobacco companies”?". The facet is quoted by its
// description, which its heading shortens ("The city in which one of the
// three loans of 1792 was made", headed "City"), when that reads alone
// (readsAsClaimTopic), else by its heading; a heading that asks
// something or holds a pronoun with nothing in it to stand for
// ("Measures they took") gives way to the request's title, so that the
// question reads alone.
//
// The sentence is extracted for the question asked on the heading as it
// stands (asked); the nugget then shows the question that reads alone
// (shown). Extracting for the shown question changed which sentence the
// passage gave, and left one request's report empty (sotu68-08).
func (r *run) claimNugget(ctx context.Context, d pipeline.Document, sentence string) (asked, shown prompts.QA, err error) {
	title := titleTopic(r.req.Title)
	askedTopic, shownTopic := title, title
	author, hasAuthor := pipeline.DocumentAuthor(d.Metadata)
	if len(r.facetList) > 0 {
		m, err := r.facetMatcher(ctx, r.facetList)
		if err != nil {
			return prompts.QA{}, prompts.QA{}, err
		}
		if h := m.Assign(sentence, author); h != "" && h != pipeline.OtherFacet && !asksSomething(h) {
			askedTopic = h
			switch d := r.facetDescription(h); {
			case readsAsClaimTopic(d):
				shownTopic = d
			case pipeline.DanglingPronoun(h) == "":
				shownTopic = h
			}
		}
	}
	year, dated := pipeline.DocumentYear(d.Metadata)
	question := func(topic string) string {
		topic = strings.TrimRight(strings.TrimSpace(topic), ".?!")
		switch {
		case hasAuthor && dated:
			return fmt.Sprintf("What did %s say in %d on “%s”?", author, year, topic)
		case hasAuthor:
			return fmt.Sprintf("What did %s say on “%s”?", author, topic)
		}
		return fmt.Sprintf("What does “%s” say on “%s”?", d.Title, topic)
	}
	answer := strings.Join(strings.Fields(sentence), " ")
	return prompts.QA{Question: question(askedTopic), Answer: answer}, prompts.QA{Question: question(shownTopic), Answer: answer}, nil
}

// claimTopicMaxWords bounds the words of a facet's description a claim
// nugget's question quotes in place of its heading.
const claimTopicMaxWords = 16

// facetDescription is the description of the run's facet with heading h,
// "" when none has it.
func (r *run) facetDescription(h string) string {
	for _, f := range r.facetList {
		if f.Heading == h {
			return strings.Join(strings.Fields(f.Description), " ")
		}
	}
	return ""
}

// readsAsClaimTopic reports whether a facet's description can stand as a
// claim nugget's topic: at most claimTopicMaxWords words, asking nothing,
// and no pronoun with nothing in it to stand for.
func readsAsClaimTopic(d string) bool {
	n := len(strings.Fields(d))
	return n > 0 && n <= claimTopicMaxWords && !asksSomething(d) && pipeline.DanglingPronoun(d) == ""
}

// rewordProblems replaces old in the run's problems with new: the fill
// can put sentences in a report assembly left empty.
func (r *run) rewordProblems(old, new string) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	for i, p := range r.problems {
		r.problems[i] = strings.Replace(p, old, new, 1)
	}
}

// titleTopic is what a request's title names, for a claim nugget's
// question: the title, or, when it opens with a question of its own
// ("What did the Labor Department do? The Bureau and Department of Labor
// in the messages, 1904-1967"), the part after the question, so that the
// nugget asks no question inside another.
func titleTopic(title string) string {
	title = strings.Join(strings.Fields(title), " ")
	if i := strings.LastIndex(title, "?"); i >= 0 && i < len(title)-1 {
		if rest := strings.TrimSpace(title[i+1:]); rest != "" && !asksSomething(rest) {
			return rest
		}
	}
	return title
}

// asksSomething reports whether a facet heading opens as a question
// ("How were treaties with the Indian tribes"), which reads badly as the
// topic of a claim nugget: the request's title is used instead.
func asksSomething(heading string) bool {
	w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(heading)), " ")
	switch w {
	case "how", "what", "who", "whom", "whose", "when", "where", "which", "why", "whether":
		return true
	}
	return false
}
