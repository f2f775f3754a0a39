package judge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

// Source looks up the text that citations point at. Every
// pipeline.DocumentStore, the SQLite store among them, satisfies it.
type Source interface {
	// Document returns the document with the id, or an error wrapping
	// pipeline.ErrNotFound.
	Document(ctx context.Context, id string) (pipeline.Document, error)
	// Passages returns a document's passages in order, or an error wrapping
	// pipeline.ErrNotFound when the document does not exist.
	Passages(ctx context.Context, docID string) ([]pipeline.Passage, error)
}

// DefaultConcurrency is the number of judge calls in flight when
// Evaluator.Concurrency is 0.
const DefaultConcurrency = 4

// Evaluator scores reports against gold nuggets with a judge.
//
// Judge failures: an error wrapping pipeline.ErrInvalid (a model answer
// that reads as neither yes nor no) does not stop the evaluation; the
// verdict is recorded as "no" with its Error set and counted in
// Counts.Undecided. Any other judge error (a failed model call, a
// cancelled context) stops it and is returned.
type Evaluator struct {
	Judge  Judge
	Source Source
	// Concurrency bounds the judge calls in flight; 0 means
	// DefaultConcurrency.
	Concurrency int
	// Progress, when set, is told after each judge call how many of the
	// report's calls are done. Calls are serialised.
	Progress func(requestID string, done, total int)
	// Topics, when set, adds the on-topic sentences measure (Topics.Mark)
	// to every report of a request with topic terms. It does not involve
	// the judge.
	Topics *Topics
	// Judged, when set, adds the share of the reports' sentences a reader
	// judged on topic, among those it judged (Results.Judged).
	Judged *Judged
}

// Metrics are the report metrics of DESIGN §7. Every ratio is 0 when its
// denominator is 0 (no gold nuggets, no vital nugget, no sentence, no
// citation): a report with no sentences scores 0 on all of them.
type Metrics struct {
	// NuggetRecall = covered gold nuggets / gold nuggets.
	NuggetRecall float64 `json:"nugget_recall"`
	// VitalRecall = covered vital nuggets / vital nuggets.
	VitalRecall float64 `json:"vital_nugget_recall"`
	// NuggetDensity = covered gold nuggets / sentences.
	NuggetDensity float64 `json:"nugget_density"`
	// SentenceNovelty = sentences covering a nugget no earlier sentence
	// covered / sentences.
	SentenceNovelty float64 `json:"sentence_novelty"`
	// RelevantSentences = sentences covering any nugget / sentences.
	RelevantSentences float64 `json:"relevant_sentences"`
	// CitationSupport = supported citations / citations.
	CitationSupport float64 `json:"citation_support"`
	// OnTopicSentences = sentences containing one of the request's topic
	// terms / sentences (see Topics). It is nil, and left out of the JSON,
	// unless the evaluator has topics and the request has topic terms.
	OnTopicSentences *float64 `json:"on_topic_sentences,omitempty"`
}

// Counts are the numerators and denominators of the metrics.
type Counts struct {
	Nuggets        int `json:"nuggets"`
	VitalNuggets   int `json:"vital_nuggets"`
	Covered        int `json:"covered_nuggets"`
	VitalCovered   int `json:"covered_vital_nuggets"`
	Sentences      int `json:"sentences"`
	NovelSentences int `json:"novel_sentences"`
	// RelevantSentences counts sentences covering at least one nugget.
	RelevantSentences int `json:"relevant_sentences"`
	Citations         int `json:"citations"`
	Supported         int `json:"supported_citations"`
	// Undecided counts verdicts the judge could not give (see Evaluator).
	Undecided int `json:"undecided"`
	// OnTopicSentences counts sentences containing a topic term; nil as
	// Metrics.OnTopicSentences is. In Results.Totals it adds up the
	// requests that have topic terms.
	OnTopicSentences *int `json:"on_topic_sentences,omitempty"`
}

func (c *Counts) add(o Counts) {
	c.Nuggets += o.Nuggets
	c.VitalNuggets += o.VitalNuggets
	c.Covered += o.Covered
	c.VitalCovered += o.VitalCovered
	c.Sentences += o.Sentences
	c.NovelSentences += o.NovelSentences
	c.RelevantSentences += o.RelevantSentences
	c.Citations += o.Citations
	c.Supported += o.Supported
	c.Undecided += o.Undecided
	if o.OnTopicSentences != nil {
		n := *o.OnTopicSentences
		if c.OnTopicSentences != nil {
			n += *c.OnTopicSentences
		}
		c.OnTopicSentences = &n
	}
}

// metrics computes the ratios, 0 for a zero denominator.
func (c Counts) metrics() Metrics {
	return Metrics{
		NuggetRecall:      ratio(c.Covered, c.Nuggets),
		VitalRecall:       ratio(c.VitalCovered, c.VitalNuggets),
		NuggetDensity:     ratio(c.Covered, c.Sentences),
		SentenceNovelty:   ratio(c.NovelSentences, c.Sentences),
		RelevantSentences: ratio(c.RelevantSentences, c.Sentences),
		CitationSupport:   ratio(c.Supported, c.Citations),
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// NuggetResult is one gold nugget's outcome in a report.
type NuggetResult struct {
	Nugget  Nugget `json:"nugget"`
	Covered bool   `json:"covered"`
	// Sentences are the indexes (0-based, report order) of the sentences
	// covering the nugget; empty when none does.
	Sentences []int `json:"sentences"`
}

// SentenceResult is one report sentence's outcome.
type SentenceResult struct {
	Index int    `json:"index"` // 0-based position in the report
	Text  string `json:"text"`
	// Nuggets are the indexes into ReportResult.Nuggets of the nuggets the
	// sentence covers; NewNuggets those of them no earlier sentence
	// covers. Both are empty, not null, when there are none.
	Nuggets    []int `json:"nuggets"`
	NewNuggets []int `json:"new_nuggets"`
	// Novel is true when NewNuggets is not empty.
	Novel bool `json:"novel"`
	// Citations are the sentence's distinct citations in report order
	// (a document cited twice by one sentence is judged once).
	Citations []CitationResult `json:"citations"`
	// OnTopic says whether the sentence contains one of its request's
	// topic terms, and TopicTerm which (the first in file order). OnTopic
	// is nil, and both are left out of the JSON, when on-topic sentences
	// are not measured for the request.
	OnTopic   *bool  `json:"on_topic,omitempty"`
	TopicTerm string `json:"topic_term,omitempty"`
	// JudgedOnTopic is a reader's judgement of the sentence (see Judged);
	// nil, and left out of the JSON, when none was given for it.
	JudgedOnTopic *bool `json:"judged_on_topic,omitempty"`
}

// CitationResult is the verdict on one citation of a sentence.
type CitationResult struct {
	DocID    string   `json:"doc_id"`
	Evidence Evidence `json:"evidence"`
	Verdict  Verdict  `json:"verdict"`
}

// ReportResult is the evaluation of one report.
type ReportResult struct {
	RequestID string `json:"request_id"`
	RunID     string `json:"run_id,omitempty"`
	Judge     string `json:"judge"`
	// Independence says how the judge stands to the report's maker, by
	// the report's crucible.manifest (pipeline.Independence):
	// "independent", "self-judged", "self-judged (offline)" or
	// "generator unknown"; empty for a missing report.
	Independence string `json:"independence,omitempty"`
	// Missing is true when the request has gold nuggets but no report: it
	// scores 0 on every metric and has no sentences.
	Missing bool    `json:"missing,omitempty"`
	Metrics Metrics `json:"metrics"`
	Counts  Counts  `json:"counts"`
	// Nuggets are the request's gold nuggets in file order.
	Nuggets   []NuggetResult   `json:"nuggets"`
	Sentences []SentenceResult `json:"sentences"`
	// Coverage[i][j] is the judge's verdict on nugget i and sentence j.
	Coverage [][]Verdict `json:"coverage"`
}

// Results are the evaluation of a set of reports.
type Results struct {
	Judge string `json:"judge"`
	// Requests are the requests scored, by request id (byte order): those
	// with gold nuggets, or, when Evaluate is given request ids, those of
	// them with gold nuggets. A request without a report is there with
	// Missing set.
	Requests []ReportResult `json:"requests"`
	// Mean averages each metric over Requests (a missing report counting
	// 0), except VitalRecall, which averages over the VitalRequests
	// requests that have a vital nugget (0 when none has), and
	// OnTopicSentences, which averages over the requests with topic terms
	// (see TopicSummary).
	Mean          Metrics `json:"mean"`
	VitalRequests int     `json:"vital_requests"`
	// Totals adds up the counts of all Requests.
	Totals Counts `json:"totals"`
	// Missing lists the requests with gold nuggets and no report.
	Missing []string `json:"missing"`
	// Unjudged lists the request ids, of reports or of the requests asked
	// for, that have no gold nugget. They are not scored: their recall is
	// undefined. Use Evaluator.EvaluateReport for such a report's
	// citation support.
	Unjudged []string `json:"unjudged"`
	// NotRequested lists the requests with gold nuggets that are not among
	// the request ids Evaluate was given. They are not scored. It is empty
	// (and left out of the JSON) when no request ids were given.
	NotRequested []string `json:"not_requested,omitempty"`
	// Topics says how on-topic sentences were averaged; nil (and left out
	// of the JSON) when the evaluator has no topics.
	Topics *TopicSummary `json:"topics,omitempty"`
	// Judged accounts for the sentences a reader judged; nil (and left
	// out of the JSON) when the evaluator has no judged sentences.
	Judged *JudgedSummary `json:"judged,omitempty"`
}

// TopicSummary accounts for the on-topic sentences measure over a set of
// requests. Mean.OnTopicSentences averages over the Requests scored
// requests that have topic terms; it is nil when none has.
type TopicSummary struct {
	Requests int `json:"requests"`
	// NoTopics lists the scored requests without topic terms (not
	// averaged for the measure).
	NoTopics []string `json:"no_topics"`
	// Unused lists the requests with topic terms that were not scored
	// (their terms are ignored).
	Unused []string `json:"unused"`
}

// Evaluate scores reports (by request id) against gold nuggets.
//
// requestIDs, typically the ids of a requests file, choose the requests
// scored: when it is nil every request with gold nuggets is scored; when
// it is not nil (even empty) only the requests it lists that have gold
// nuggets are, the other requests with gold nuggets are listed in
// NotRequested, and those it lists without gold nuggets in Unjudged. A
// scored request without a report scores 0 and is listed in Missing.
// Reports of requests without gold nuggets are listed in Unjudged too.
// Requests are evaluated one after another, each report's judge calls
// concurrently.
func (e *Evaluator) Evaluate(ctx context.Context, gold []Nugget, reports map[string]export.NeuCLIRReport, requestIDs []string) (Results, error) {
	if err := e.check(); err != nil {
		return Results{}, err
	}
	byReq := ByRequest(gold)
	res := Results{Judge: e.Judge.Name(), Requests: []ReportResult{}, Missing: []string{}, Unjudged: []string{}}
	unjudged := map[string]bool{}
	for id := range reports {
		if len(byReq[id]) == 0 {
			unjudged[id] = true
		}
	}
	for _, id := range requestIDs {
		if len(byReq[id]) == 0 {
			unjudged[id] = true
		}
	}
	for id := range unjudged {
		res.Unjudged = append(res.Unjudged, id)
	}
	sort.Strings(res.Unjudged)

	var asked map[string]bool
	if requestIDs != nil {
		asked = make(map[string]bool, len(requestIDs))
		for _, id := range requestIDs {
			asked[id] = true
		}
	}

	var sum Metrics
	var vitalSum, topicSum float64
	if e.Topics != nil {
		res.Topics = &TopicSummary{NoTopics: []string{}, Unused: []string{}}
	}
	if e.Judged != nil {
		res.Judged = &JudgedSummary{}
	}
	for _, id := range RequestIDs(gold) {
		if asked != nil && !asked[id] {
			res.NotRequested = append(res.NotRequested, id)
			continue
		}
		rep, ok := reports[id]
		var rr ReportResult
		if ok {
			var err error
			if rr, err = e.EvaluateReport(ctx, rep, byReq[id]); err != nil {
				return Results{}, err
			}
		} else {
			rr = missingResult(id, e.Judge.Name(), byReq[id])
			e.Topics.Mark(&rr)
			res.Missing = append(res.Missing, id)
		}
		if e.Judged != nil {
			e.Judged.Mark(&rr, res.Judged)
		}
		res.Requests = append(res.Requests, rr)
		res.Totals.add(rr.Counts)
		m := rr.Metrics
		sum.NuggetRecall += m.NuggetRecall
		sum.NuggetDensity += m.NuggetDensity
		sum.SentenceNovelty += m.SentenceNovelty
		sum.RelevantSentences += m.RelevantSentences
		sum.CitationSupport += m.CitationSupport
		if rr.Counts.VitalNuggets > 0 {
			res.VitalRequests++
			vitalSum += m.VitalRecall
		}
		switch {
		case m.OnTopicSentences != nil:
			res.Topics.Requests++
			topicSum += *m.OnTopicSentences
		case res.Topics != nil:
			res.Topics.NoTopics = append(res.Topics.NoTopics, id)
		}
	}
	if n := float64(len(res.Requests)); n > 0 {
		res.Mean = Metrics{
			NuggetRecall:      sum.NuggetRecall / n,
			NuggetDensity:     sum.NuggetDensity / n,
			SentenceNovelty:   sum.SentenceNovelty / n,
			RelevantSentences: sum.RelevantSentences / n,
			CitationSupport:   sum.CitationSupport / n,
		}
	}
	if res.VitalRequests > 0 {
		res.Mean.VitalRecall = vitalSum / float64(res.VitalRequests)
	}
	if res.Topics != nil {
		if res.Topics.Requests > 0 {
			mean := topicSum / float64(res.Topics.Requests)
			res.Mean.OnTopicSentences = &mean
		}
		scored := map[string]bool{}
		for _, rr := range res.Requests {
			scored[rr.RequestID] = true
		}
		for _, id := range e.Topics.RequestIDs() {
			if !scored[id] {
				res.Topics.Unused = append(res.Topics.Unused, id)
			}
		}
	}
	return res, nil
}

func (e *Evaluator) check() error {
	switch {
	case e.Judge == nil:
		return pipeline.Invalidf("the evaluator has no judge")
	case e.Source == nil:
		return pipeline.Invalidf("the evaluator has no document source")
	}
	return nil
}

// missingResult is the result of a request whose report is missing.
func missingResult(requestID, judge string, gold []Nugget) ReportResult {
	rr := ReportResult{RequestID: requestID, Judge: judge, Missing: true,
		Nuggets: make([]NuggetResult, len(gold)), Sentences: []SentenceResult{}, Coverage: make([][]Verdict, len(gold))}
	for i, n := range gold {
		rr.Nuggets[i] = NuggetResult{Nugget: n, Sentences: []int{}}
		rr.Coverage[i] = []Verdict{}
		rr.Counts.Nuggets++
		if n.Importance == Vital {
			rr.Counts.VitalNuggets++
		}
	}
	rr.Metrics = rr.Counts.metrics()
	return rr
}

// EvaluateReport scores one report against the gold nuggets of its
// request (gold may be empty: the nugget metrics are then 0 and citation
// support is still measured). A nugget of another request is an error
// wrapping pipeline.ErrInvalid.
//
// Citations are judged against evidence found as follows. When the
// sentence's Crucible provenance (crucible.passage_id) names a passage of
// the cited document, that passage, with the provenance's byte span when
// it lies inside the passage; otherwise the cited document's passage with
// the largest share of the sentence's content words (the first of equals),
// so a citation is judged against its best evidence, as a reader looking
// for support would; a document with no stored passages is judged on its
// whole text. A cited document the Source does not have (ErrNotFound) is
// unsupported and not an error.
func (e *Evaluator) EvaluateReport(ctx context.Context, rep export.NeuCLIRReport, gold []Nugget) (ReportResult, error) {
	if err := e.check(); err != nil {
		return ReportResult{}, err
	}
	for _, n := range gold {
		if n.RequestID != rep.RequestID {
			return ReportResult{}, pipeline.Invalidf("nugget %s belongs to request %q, not to the report's request %q", n.ID, n.RequestID, rep.RequestID)
		}
	}
	rr := ReportResult{RequestID: rep.RequestID, RunID: rep.RunID, Judge: e.Judge.Name(),
		Nuggets: make([]NuggetResult, len(gold)), Sentences: make([]SentenceResult, len(rep.Sentences)),
		Coverage: make([][]Verdict, len(gold))}
	for i, n := range gold {
		rr.Nuggets[i] = NuggetResult{Nugget: n, Sentences: []int{}}
		rr.Coverage[i] = make([]Verdict, len(rep.Sentences))
	}
	for j, s := range rep.Sentences {
		rr.Sentences[j] = SentenceResult{Index: j, Text: s.Text, Nuggets: []int{}, NewNuggets: []int{}, Citations: []CitationResult{}}
	}

	// Find the evidence of every citation first (store reads, in order),
	// then run all judge calls concurrently.
	docs := map[string]*docText{}
	for j, s := range rep.Sentences {
		seen := map[string]bool{}
		for _, id := range s.Citations {
			if seen[id] {
				continue
			}
			seen[id] = true
			d, err := e.loadDoc(ctx, docs, id)
			if err != nil {
				return ReportResult{}, fmt.Errorf("evaluate report %q: %w", rep.RequestID, err)
			}
			rr.Sentences[j].Citations = append(rr.Sentences[j].Citations, CitationResult{DocID: id, Evidence: d.evidence(s)})
		}
	}
	type call struct{ nugget, sentence, citation int } // nugget < 0: a citation call
	var calls []call
	for i := range gold {
		for j := range rep.Sentences {
			calls = append(calls, call{i, j, 0})
		}
	}
	for j, s := range rr.Sentences {
		for k := range s.Citations {
			calls = append(calls, call{-1, j, k})
		}
	}
	var mu sync.Mutex
	done := 0
	limit := e.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	err := pipeline.ForEach(ctx, len(calls), limit, func(ctx context.Context, x int) error {
		c := calls[x]
		sentence := rep.Sentences[c.sentence].Text
		var v Verdict
		var err error
		if c.nugget >= 0 {
			v, err = e.Judge.Covers(ctx, gold[c.nugget], sentence)
		} else if ev := rr.Sentences[c.sentence].Citations[c.citation].Evidence; ev.Basis == BasisMissing {
			v = Verdict{Reason: "document not in the collection"}
		} else {
			v, err = e.Judge.Supports(ctx, sentence, ev)
		}
		if err != nil {
			if !errors.Is(err, pipeline.ErrInvalid) {
				return fmt.Errorf("evaluate report %q, sentence %d: %w", rep.RequestID, c.sentence+1, err)
			}
			v = Verdict{Error: err.Error()}
		}
		mu.Lock()
		defer mu.Unlock()
		if c.nugget >= 0 {
			rr.Coverage[c.nugget][c.sentence] = v
		} else {
			rr.Sentences[c.sentence].Citations[c.citation].Verdict = v
		}
		done++
		if e.Progress != nil {
			e.Progress(rep.RequestID, done, len(calls))
		}
		return nil
	})
	if err != nil {
		return ReportResult{}, err
	}
	rr.tally()
	e.Topics.Mark(&rr)
	rr.Independence = IndependenceOf(e.Judge, rep)
	return rr, nil
}

// tally fills the per-nugget and per-sentence lists, the counts and the
// metrics from the verdicts.
func (rr *ReportResult) tally() {
	c := Counts{Nuggets: len(rr.Nuggets), Sentences: len(rr.Sentences)}
	covered := make([]bool, len(rr.Nuggets))
	for j := range rr.Sentences {
		s := &rr.Sentences[j]
		for i := range rr.Nuggets {
			v := rr.Coverage[i][j]
			if v.Error != "" {
				c.Undecided++
			}
			if !v.Yes {
				continue
			}
			s.Nuggets = append(s.Nuggets, i)
			rr.Nuggets[i].Sentences = append(rr.Nuggets[i].Sentences, j)
			if !covered[i] {
				covered[i] = true
				s.NewNuggets = append(s.NewNuggets, i)
			}
		}
		s.Novel = len(s.NewNuggets) > 0
		if s.Novel {
			c.NovelSentences++
		}
		if len(s.Nuggets) > 0 {
			c.RelevantSentences++
		}
		for _, cit := range s.Citations {
			c.Citations++
			if cit.Verdict.Yes {
				c.Supported++
			}
			if cit.Verdict.Error != "" {
				c.Undecided++
			}
		}
	}
	for i := range rr.Nuggets {
		n := &rr.Nuggets[i]
		n.Covered = covered[i]
		vital := n.Nugget.Importance == Vital
		if vital {
			c.VitalNuggets++
		}
		if n.Covered {
			c.Covered++
			if vital {
				c.VitalCovered++
			}
		}
	}
	rr.Counts = c
	rr.Metrics = c.metrics()
}

// Byline is a document's title, author and date (its "date" metadata),
// those it has, joined by " · ": what Evidence.Byline holds.
func Byline(d pipeline.Document) string {
	var parts []string
	if t := strings.TrimSpace(d.Title); t != "" {
		parts = append(parts, t)
	}
	if a, ok := pipeline.DocumentAuthor(d.Metadata); ok {
		parts = append(parts, a)
	}
	if dt := strings.Join(strings.Fields(d.Metadata["date"]), " "); dt != "" {
		parts = append(parts, dt)
	}
	return strings.Join(parts, " · ")
}

// docText is a cited document as the evaluator needs it.
type docText struct {
	id       string
	missing  bool
	byline   string // title, author and date (see Evidence.Byline)
	text     string // whole text; loaded only when there are no passages
	passages []pipeline.Passage
	terms    []terms // content terms of each passage, computed on first use
}

// loadDoc reads a cited document once per report.
func (e *Evaluator) loadDoc(ctx context.Context, cache map[string]*docText, id string) (*docText, error) {
	if d, ok := cache[id]; ok {
		return d, nil
	}
	d := &docText{id: id}
	doc, err := e.Source.Document(ctx, id)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		d.missing = true
		cache[id] = d
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("load cited document %q: %w", id, err)
	}
	d.byline = Byline(doc)
	ps, err := e.Source.Passages(ctx, id)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		d.missing = true
	case err != nil:
		return nil, fmt.Errorf("load cited document %q: %w", id, err)
	case len(ps) > 0:
		d.passages = ps
	default:
		d.text = doc.Text
	}
	cache[id] = d
	return d, nil
}

// evidence picks what a sentence's citation of the document is judged
// against (see EvaluateReport).
func (d *docText) evidence(s export.NeuCLIRSentence) Evidence {
	ev := Evidence{DocID: d.id, Byline: d.byline}
	switch {
	case d.missing:
		ev.Basis = BasisMissing
		return ev
	case len(d.passages) == 0:
		ev.Basis, ev.Text = BasisDocument, d.text
		return ev
	}
	if m := s.Crucible; m != nil && m.PassageID != "" {
		if docID, ord, err := pipeline.ParsePassageID(m.PassageID); err == nil && docID == d.id {
			for _, p := range d.passages {
				if p.Ordinal != ord {
					continue
				}
				ev.Basis, ev.PassageID, ev.Text = BasisProvenance, p.ID(), p.Text
				if p.Start <= m.Start && m.Start < m.End && m.End <= p.End && m.End-p.Start <= len(p.Text) {
					ev.Span = p.Text[m.Start-p.Start : m.End-p.Start]
				}
				return ev
			}
		}
	}
	if d.terms == nil {
		d.terms = make([]terms, len(d.passages))
		for i, p := range d.passages {
			d.terms[i] = contentTerms(p.Text)
		}
	}
	sent := contentTerms(s.Text)
	best, bestShare := 0, -1.0
	for i := range d.passages {
		if sh := share(sent, d.terms[i]); sh > bestShare {
			best, bestShare = i, sh
		}
	}
	p := d.passages[best]
	ev.Basis, ev.PassageID, ev.Text = BasisBestPassage, p.ID(), p.Text
	return ev
}
