// Package crucible runs the Crucible report pipeline (Dietz et al., ECIR
// 2026) over the domain's interfaces: retrieve, ideate nuggets, merge
// paraphrases, rank nuggets, scan passages for supporting sentences,
// optionally verify, and assemble a report in which every sentence cites
// one passage span.
//
// Every model task goes through pipeline.Model with its prompts from
// pipeline/prompts, so the same code runs with an OpenAI-compatible
// endpoint and with the offline engine. Costs the paper pays in full are
// cut here: paraphrase prompts only for lexically plausible pairs, and
// passage scanning in order of lexical promise, stopping per nugget once
// enough confident candidates are found.
package crucible

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// Stage names, as shown on the job page.
const (
	StageRetrieve = "retrieve"
	StageRerank   = "rerank"
	StageIdeate   = "ideate"
	StageMerge    = "merge"
	StageRank     = "rank"
	StageScan     = "scan"
	StageVerify   = "verify"
	StageAssemble = "assemble"
	StageGroup    = "group"
)

// Tunables of the cheap prefilters (documented in docs/pipeline.md).
const (
	// pairMinJaccard is the term overlap of two nuggets below which they
	// are not considered paraphrase candidates (unless their answers are
	// equal).
	pairMinJaccard = 0.25
	// pairsPerNugget bounds the paraphrase prompts: at most this many
	// candidate pairs per nugget, most similar first.
	pairsPerNugget = 4
	// scanPromiseMin is the prefilter score (see scanOrder) a passage
	// needs for an early-stopping scan to read it: one answer term, or two
	// question terms.
	scanPromiseMin = 2
	// scanQuantile places the calibrated stopping threshold among the
	// first round's confidences (see calibrate); noThreshold is a
	// threshold no confidence reaches.
	scanQuantile = 0.5
	noThreshold  = 2
	// regenerateScanLimit bounds the passages a regeneration reads per
	// changed nugget (see Regenerate).
	regenerateScanLimit = 24
	// scanBatch is how many passages of one nugget are scanned at once.
	scanBatch = 4
	// verifyExtra is how many candidates beyond k per nugget are verified
	// at first, so a failed check can fall back to the next candidate;
	// verifyMaxExtra how many beyond k may be verified in all when fewer
	// than k pass (see run.verify).
	verifyExtra    = 1
	verifyMaxExtra = 3
	// passagePool, passagesPerDoc and passageDecay shape the document
	// ranking of retrieve (see rerankByPassages).
	passagePool    = 1000
	passagesPerDoc = 3
	passageDecay   = 0.5
	// periodBoost multiplies the retrieval scores of documents dated in a
	// period the request names (see preferPeriod): about a soft filter,
	// since BM25 scores of one query seldom differ threefold among the
	// documents worth reading.
	periodBoost = 3
	// periodPool is how many of the documents that match a request naming
	// a period are looked at for the documents dated in it (see
	// searchDocs).
	periodPool = 1000
	// ownSourceBonus is added to the scan promise of the passages of the
	// documents a nugget was drawn from.
	ownSourceBonus = 3
	// maxKeptPerDoc is how many of the kept nuggets one document may give
	// before others have had their turn (see spreadOverDocuments).
	maxKeptPerDoc = 2
)

// Engine runs the pipeline.
type Engine struct {
	Searcher pipeline.Searcher
	Store    pipeline.DocumentStore
	Model    pipeline.Model
	// Terms returns the stemmed content terms of a text (the index's
	// analyzer); SentenceKey the de-duplication key of a sentence.
	Terms       func(string) []string
	SentenceKey func(string) string
	// TermSet, when set, returns the distinct terms of Terms(text), which
	// its callers only read, from a cache shared by every run
	// (pipeline/analysis): a passage is then analysed once however many
	// nuggets, stages and reports read it. nil: each run builds the sets
	// it needs from Terms.
	TermSet func(string) analysis.Set
	// Sentences splits text into sentence spans, for the evidence
	// feature of nugget ranking; nil counts a passage as one sentence.
	Sentences func(string) []pipeline.Span
	// DocFreq gives collection statistics, for reading a request's
	// subject (see subject); nil counts every request term as naming it.
	DocFreq DocFreq
	// PairFreq counts the collection's passages holding two terms, for
	// phrases of common words in a request's subject; nil: none.
	PairFreq PairFreq
	// Name labels the engine in reports ("offline engine" or the model).
	Name string
	// NewReranker builds the reranker a report's Settings.Reranker names,
	// asking model (the run's metered model). nil: no reranking on offer,
	// and a request for one fails.
	NewReranker func(method string, model pipeline.Model) (rerank.Reranker, error)
	// Ranker returns the trained nugget ranker active for the engine
	// named (Name), or nil: the rank stage then scores nuggets with
	// pipeline.DefaultWeights. nil: always the default weights.
	Ranker func(ctx context.Context, engine string) (*pipeline.RankerModel, error)
	// Embedder, when set (an embeddings endpoint, --embed-model), chooses
	// the paraphrase pairs of merging by embedding similarity
	// (nearestPairs); nil: the lexical prefilter.
	Embedder rerank.Embedder
	// ScanLimit bounds the passages an early-stopping scan reads per
	// nugget (0: no bound but the prefilter's; a full scan reads all):
	// OfflineScanLimit for the offline engine, none with a model.
	ScanLimit int
	// Defaults are the rules of pipeline.Heuristics a request's settings
	// leave to the engine: OfflineHeuristics for the offline engine, none
	// (the zero value, the papers' method) with a model.
	Defaults pipeline.Heuristics
	// Provenance, when set, returns what a run's manifest records beyond
	// the run itself (pipeline.Manifest): the corpus's fingerprint, the
	// index, the engine and the software; it is read once per run, as the
	// run starts. nil: manifests name the engine by Name and the software
	// alone.
	Provenance func(ctx context.Context) (pipeline.Manifest, error)
	// StandIn answers the model tasks of a dry run (Estimate): the
	// offline engine, which costs nothing. nil: no estimate is offered.
	// StandInReranker builds the dry run's reranker over it (the offline
	// engine's, so a model engine's stored CoRank features are never made
	// from offline answers); nil: NewReranker when the engine is offline,
	// else a dry run with a reranker fails.
	StandIn         pipeline.Model
	StandInReranker func(method string, model pipeline.Model) (rerank.Reranker, error)
	// Offline is set when Model is the offline engine: its calls are
	// tasks, and it spends no tokens (estimates count none).
	Offline bool
}

// OfflineHeuristics are the offline engine's defaults: the rules that,
// switched on, were measured to raise nugget recall or the on-topic share
// without lowering the other on more than one of the three evaluation sets
// (docs/pipeline.md, "Rules added to the papers"). Only the period
// preference passed; scoring documents by three passages helped one set,
// and spreading nuggets over documents lowered recall on all three. The
// sentence choice (session 16, choose.go) raised recall on two blind sets
// written after it was fitted (sotu14, sotu15) and held or raised their
// on-topic share.
var OfflineHeuristics = pipeline.Heuristics{PreferPeriod: true, BestPassage: true, ChooseSentences: true, FacetNuggets: true, FillReport: true}

// OfflineScanLimit is the offline engine's ScanLimit: reading every
// promising passage instead of the first 24 made 26 times the extraction
// calls on the sotu set and found one gold fact fewer (docs/pipeline.md,
// "Scanning").
const OfflineScanLimit = 24

// RerankObserver is an optional Observer extension that receives the
// rerank stage's record.
type RerankObserver interface {
	Reranked(ctx context.Context, rec pipeline.RerankRecord) error
}

// Observer receives a run's progress and artefacts as they are made. Save
// errors stop the run. Calls are serialised: an observer needs no locking
// of its own for them.
type Observer interface {
	Progress(p pipeline.Progress)
	Retrieved(ctx context.Context, docs []pipeline.RetrievedDoc) error
	Nuggets(ctx context.Context, all []pipeline.Nugget) error
	Candidates(ctx context.Context, cs []pipeline.Candidate) error
}

// StageError says which stage a run failed in.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

// run is the state of one report run.
type run struct {
	e    *Engine
	req  pipeline.Request
	info prompts.RequestInfo
	s    pipeline.Settings
	// bank is the nugget bank as the rank stage saved it (every nugget,
	// kept or not), which the fill extends.
	bank []pipeline.Nugget
	// facetList are the request's facets once read (facetsRead).
	facetList  []pipeline.Facet
	facetsRead bool
	// h are the rules of pipeline.Heuristics in force (s records them).
	h        pipeline.Heuristics
	obs      Observer
	model    *meter
	stage    string
	problems []string
	pmu      sync.Mutex
	omu      sync.Mutex // serialises Observer.Progress calls

	docs      map[string]pipeline.Document
	passages  map[string][]pipeline.Passage
	sentences map[string][]sentenceInfo
	dmu       sync.Mutex
	// loads makes concurrent readers of one document, its passages or
	// its sentences wait for a single read (see flight).
	loads flight

	// query is the request's title and problem statement terms, and
	// passageRank the rank (from 0) of the request's best BM25 passages by
	// passage id: what the evidence feature measures nuggets against.
	query       analysis.Set
	passageRank map[string]int
	// bestPassages are the request's subjectPassages best passages (by
	// passage id), the only ones a report sentence may cite (see
	// onTopic); nil before retrieval.
	bestPassages map[string]bool
	// inPeriod holds the documents dated in a period the request names
	// (nil when it names none or no document is dated in one; see
	// preferPeriod).
	inPeriod map[string]bool
	// titleScope tells, for each dated document, whether it is dated in
	// the period the request's title names ("America in the Second World
	// War, 1941-1946", "Protecting the consumer from Kennedy to Obama";
	// empty when the title names none): the title sets
	// the report's scope, and the sentences of documents outside it are
	// not assembled (see inScope). Periods named only in the problem
	// statement ("the disputes of the 1870s") may be parts of a longer
	// story and set no scope.
	titleScope map[string]bool
	// authors are the collection's authors with the years of their
	// documents (pipeline.AuthorLister), read once a run by
	// requestPeriods; nil when the store cannot list them.
	authors     map[string]pipeline.Period
	authorsRead bool
	authorsMu   sync.Mutex
	// shortNames are the authors a surname names alone in the
	// collection (pipeline.ShortNames), as attributions write them.
	shortNames map[string]string
	// subject is what the request is about: a report sentence must speak
	// of it (see subject and onTopic).
	subject *subject
	// topic estimates whether a sentence is on the request's topic, for
	// the choice of sentences (see topicality); nil without it.
	topic *topicality
	// ranker is the trained nugget ranker of the engine, nil for
	// pipeline.DefaultWeights.
	ranker *pipeline.RankerModel
	// scanned counts the scan stage's extractions (see addScanned).
	scanned pipeline.ScanCount
	// scanCap, when above 0, bounds the passages an early-stopping scan
	// reads per nugget below the engine's ScanLimit (see Regenerate).
	scanCap int
}

// addScanned counts one nugget's scan: read of its schedule passages.
func (r *run) addScanned(read, schedule int) {
	r.pmu.Lock()
	r.scanned.Read += read
	r.scanned.Schedule += schedule
	r.pmu.Unlock()
}

// Generate runs the pipeline for one request.
func (e *Engine) Generate(ctx context.Context, req pipeline.Request, s pipeline.Settings, obs Observer) (pipeline.Report, error) {
	if err := req.Validate(); err != nil {
		return pipeline.Report{}, err
	}
	if err := s.Validate(); err != nil {
		return pipeline.Report{}, err
	}
	if obs == nil {
		obs = nopObserver{}
	}
	if s.Reranker != "" && e.NewReranker == nil {
		return pipeline.Report{}, pipeline.Invalidf("reranker %q: this engine offers no reranking", s.Reranker)
	}
	var ranker *pipeline.RankerModel
	if e.Ranker != nil {
		m, err := e.Ranker(ctx, e.Name)
		if err != nil {
			return pipeline.Report{}, &StageError{Stage: StageRank, Err: fmt.Errorf("load the trained nugget ranker: %w", err)}
		}
		ranker = m
	}
	s.Ranker = 0
	if ranker != nil {
		s.Ranker = ranker.ID
	}
	r := e.newRun(req, s)
	r.obs = obs
	r.ranker = ranker
	man, err := r.manifest(ctx)
	if err != nil {
		return pipeline.Report{}, &StageError{Stage: StageRetrieve, Err: err}
	}
	if mo, ok := obs.(ManifestObserver); ok {
		if err := mo.Manifest(ctx, man); err != nil {
			return pipeline.Report{}, &StageError{Stage: StageRetrieve, Err: fmt.Errorf("record the run's manifest: %w", err)}
		}
	}
	rep, err := r.generate(ctx)
	if err != nil && r.stage != "" {
		return rep, &StageError{Stage: r.stage, Err: err}
	}
	if err == nil {
		// The settings as the run ended: with the threshold it calibrated.
		r.settle(&man, rep.Settings)
		rep.Manifest = &man
	}
	return rep, err
}

func (r *run) enter(stage string, total int) {
	r.omu.Lock()
	defer r.omu.Unlock()
	r.stage = stage
	r.obs.Progress(pipeline.Progress{Stage: stage, Total: total, Usage: r.model.usage()})
}

// tick reports progress; stage workers call it concurrently.
func (r *run) tick(done, total int) {
	r.omu.Lock()
	defer r.omu.Unlock()
	r.obs.Progress(pipeline.Progress{Stage: r.stage, Done: done, Total: total, Usage: r.model.usage()})
}

// problem records what the run has to tell the report's readers
// (Report.Problems): a tolerated failure (an unparsable answer...) or
// what limits the report (a narrow subject).
func (r *run) problem(format string, args ...any) {
	r.pmu.Lock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
	r.pmu.Unlock()
}

func (r *run) generate(ctx context.Context) (pipeline.Report, error) {
	ret, err := r.retrieve(ctx)
	if err != nil {
		return pipeline.Report{}, err
	}
	pool := ret
	if r.s.Reranker != "" {
		if ret, pool, err = r.rerank(ctx, ret); err != nil {
			return pipeline.Report{}, err
		}
	}
	drawnOn := r.scoped(pool) // the documents ideation draws on
	raw, err := r.ideate(ctx, drawnOn)
	if errors.Is(err, pipeline.ErrNotFound) && len(pool) < len(ret) {
		// The reranker's chosen set gave no nugget: draw on the reranked
		// ranking (the chosen set first) as without a set.
		r.problem("ideate: the %d document(s) the reranker chose gave no nugget; nuggets were drawn from the reranked top %d instead", len(pool), min(r.s.IdeationDocs, len(ret)))
		drawnOn = ret
		raw, err = r.ideate(ctx, ret)
	}
	if err != nil {
		return pipeline.Report{}, err
	}
	canonical, err := r.merge(ctx, raw)
	if err != nil {
		return pipeline.Report{}, err
	}
	kept, err := r.rank(ctx, canonical, raw)
	if err != nil {
		return pipeline.Report{}, err
	}
	cands, err := r.scan(ctx, kept, ret)
	if err != nil {
		return pipeline.Report{}, err
	}
	if r.s.Verify {
		if cands, err = r.verify(ctx, kept, cands); err != nil {
			return pipeline.Report{}, err
		}
	}
	if err := r.obs.Candidates(ctx, cands); err != nil {
		return pipeline.Report{}, err
	}
	r.enter(StageAssemble, 1)
	facets, err := r.facets(ctx)
	if err != nil {
		return pipeline.Report{}, err
	}
	about, from := nuggetAbout(kept, cands)
	matcher, err := r.facetMatcher(ctx, facets)
	if err != nil {
		return pipeline.Report{}, err
	}
	authors := r.nuggetAuthors(ctx, kept, from)
	turns := pipeline.TurnsByMatcher(matcher, kept, about, authors)
	onTop := r.onTopic(cands)
	opts := pipeline.AssembleOptions{
		K: r.s.SentencesPerNugget, Limit: r.req.Limit, Key: r.e.SentenceKey, Verified: r.s.Verify,
	}
	// A reranker's documents are the report's context: the fill draws
	// on them alone, as facet nuggets do.
	within := r.rerankedContext(drawnOn)
	// When assembly chooses sentences by their promise, the fill's
	// sentences are drawn first and compete in the choice with the kept
	// nuggets' (turns after theirs); what they leave still fills the
	// room after it.
	var drawn *fillDraw
	offer := turns
	if r.h.ChooseSentences && r.h.FillReport {
		d, err := r.drawFill(ctx, nil, within, lastRank(turns))
		if err != nil {
			return pipeline.Report{}, err
		}
		drawn = &d
		offer = append(append([]pipeline.Nugget(nil), turns...), d.nuggets...)
		onTop = append(append([]pipeline.Candidate(nil), onTop...), d.offered...)
	}
	if r.h.ChooseSentences {
		opts.Score = r.sentenceScore(ctx, matcher, turns, onTop)
		opts.SameDocument = sameDocumentFactor
		if err := r.observeChoices(ctx, matcher, turns, onTop, nuggetFacets(matcher, kept, about, authors)); err != nil {
			return pipeline.Report{}, err
		}
	}
	sentences := pipeline.Assemble(offer, onTop, opts)
	switch {
	case drawn != nil:
		if sentences, kept, cands, err = r.placeFill(ctx, *drawn, sentences, kept, cands, opts); err != nil {
			return pipeline.Report{}, err
		}
	case r.h.FillReport:
		if sentences, kept, cands, err = r.fill(ctx, sentences, kept, cands, opts, within); err != nil {
			return pipeline.Report{}, err
		}
	}
	r.tick(1, 1)
	sentences = r.group(ctx, matcher, kept, cands, sentences)
	// A heading's "they" before a verb of saying names the speakers the
	// request's sentence gives it ("Research budgets Presidents
	// proposed"; pipeline.ResolveThey) once the sentences are grouped:
	// the words of a heading steer its facet's nuggets and passages, and
	// this is for the reader only.
	facets, sentences = pipeline.RenameFacets(facets, pipeline.ResolveThey(facets, r.req.AskedTitle()+"\n"+r.req.Asked()), sentences)
	return pipeline.Report{
		Request:            r.req,
		RunID:              RunID(r.e.Name, r.s.Verify),
		Engine:             r.e.Name,
		Settings:           r.s,
		Sentences:          sentences,
		Nuggets:            kept,
		Facets:             facets,
		CreatedAt:          time.Now(),
		DroppedUnsupported: pipeline.DroppedUnsupported(kept, cands),
		Problems:           r.tolerated(),
		Scanned:            r.scanned,
	}, nil
}

// nuggetFacets returns the heading of the facet each kept nugget takes
// its turns under (as pipeline.TurnsByMatcher files it, by the text
// about it and its author; none when the request has fewer than two
// facets).
func nuggetFacets(m *pipeline.FacetMatcher, kept []pipeline.Nugget, about, author map[string]string) map[string]string {
	if m == nil || m.Len() < 2 {
		return nil
	}
	out := make(map[string]string, len(kept))
	for _, n := range kept {
		out[n.ID] = m.Assign(about[n.ID], author[n.ID])
	}
	return out
}

// facetMatcher prepares facets for matching with the index's analyzer,
// each with the speakers it names among the collection's authors
// (pipeline.FacetMatcher.NameSpeakers; none when the store cannot list
// them): a sentence of another author's document is not filed under a
// facet that names its speaker.
func (r *run) facetMatcher(ctx context.Context, facets []pipeline.Facet) (*pipeline.FacetMatcher, error) {
	if r.e.Terms == nil {
		return pipeline.NewFacetMatcher(nil, nil), nil
	}
	authors, err := r.collectionAuthors(ctx)
	if err != nil {
		return nil, err
	}
	return pipeline.NewFacetMatcher(facets, r.e.Terms).NameSpeakers(authors), nil
}

// authorOf is the author of a document (pipeline.DocumentAuthor), ""
// when it names none or cannot be read: grouping then holds it to no
// speaker.
func (r *run) authorOf(ctx context.Context, docID string) string {
	if r.e.Store == nil {
		return ""
	}
	d, err := r.document(ctx, docID)
	if err != nil {
		return ""
	}
	a, _ := pipeline.DocumentAuthor(d.Metadata)
	return a
}

// nuggetAuthors maps each kept nugget to the author of the document its
// text is matched by (from: the document its most confident candidate
// cites, else its only source).
func (r *run) nuggetAuthors(ctx context.Context, kept []pipeline.Nugget, from map[string]string) map[string]string {
	out := make(map[string]string, len(kept))
	for _, n := range kept {
		doc := from[n.ID]
		if doc == "" && len(n.Sources) == 1 {
			doc = n.Sources[0]
		}
		if doc != "" {
			out[n.ID] = r.authorOf(ctx, doc)
		}
	}
	return out
}

// facets reads the things the request asks for (one model call, in the
// assemble stage): assembly lets them take turns (pipeline.FacetTurns) and
// grouping puts the sentences under them. An answer that cannot be read
// is tolerated: no facets, so the report is one group without headings,
// and its problems say so.
// With the rule FacetNuggets they are read once, in the ideate stage.
func (r *run) facets(ctx context.Context) ([]pipeline.Facet, error) {
	if r.facetsRead {
		return r.facetList, nil
	}
	out, _, ok, err := complete(ctx, r, prompts.BuildFacets(prompts.FacetsInput{Request: r.info}), prompts.ParseFacets)
	if err != nil {
		return nil, err
	}
	r.facetsRead = true
	if !ok {
		stage, more := StageAssemble, ""
		if r.h.FacetNuggets {
			stage, more = StageIdeate, " and no nugget is drawn for them"
		}
		r.problem("%s: the request's facets could not be read, so the report's sentences are not grouped under headings%s", stage, more)
		return nil, nil
	}
	// A facet that stands for the speaker the request names by "he" or
	// "his" names him (pipeline.ResolveSpeaker), so that its heading
	// reads alone and it holds his documents (facetMatcher).
	authors, err := r.collectionAuthors(ctx)
	if err != nil {
		return nil, err
	}
	r.facetList = pipeline.ResolveSpeaker(out.Facets, r.req.AskedTitle()+"\n"+r.req.Asked(), authors)
	return r.facetList, nil
}

// nuggetAbout is what each kept nugget is about, for matching it to a
// facet: its question and answer and the text its most confident
// candidate cites; from is the document that candidate cites.
func nuggetAbout(kept []pipeline.Nugget, cands []pipeline.Candidate) (about, from map[string]string) {
	best := map[string]pipeline.Candidate{}
	for _, c := range cands {
		if b, ok := best[c.NuggetID]; !ok || c.Confidence > b.Confidence {
			best[c.NuggetID] = c
		}
	}
	about, from = make(map[string]string, len(kept)), make(map[string]string, len(kept))
	for _, n := range kept {
		about[n.ID] = n.Question + "\n" + n.Answer + "\n" + best[n.ID].Support
		from[n.ID] = best[n.ID].Citation.DocID
	}
	return about, from
}

// group puts the assembled sentences under the request's facets
// (pipeline.GroupByMatcher): each by its nugget's question and answer,
// its text and the text it cites, in the years of the documents it
// cites, and never under a facet that names another speaker than the
// author of the document it cites.
// Which sentences the report holds was settled by assembly; headings do
// not count towards the length limit.
func (r *run) group(ctx context.Context, m *pipeline.FacetMatcher, kept []pipeline.Nugget, cands []pipeline.Candidate, sentences []pipeline.Sentence) []pipeline.Sentence {
	r.enter(StageGroup, 1)
	defer r.tick(1, 1)
	return pipeline.GroupByMatcher(m, r.facetItems(ctx, kept, cands, sentences))
}

// facetItems describes sentences for grouping: what each is about (its
// nugget's question and answer, its text, the text it cites) and the year
// of the document it cites (0 when undated or not found).
func (r *run) facetItems(ctx context.Context, nuggets []pipeline.Nugget, cands []pipeline.Candidate, sentences []pipeline.Sentence) []pipeline.FacetItem {
	byID := map[string]pipeline.Nugget{}
	for _, n := range nuggets {
		byID[n.ID] = n
	}
	type cited struct {
		nugget string
		c      pipeline.Citation
	}
	support := map[cited]string{}
	for _, c := range cands {
		support[cited{c.NuggetID, c.Citation}] = c.Support
	}
	items := make([]pipeline.FacetItem, len(sentences))
	for i, s := range sentences {
		n := byID[s.NuggetID]
		items[i] = pipeline.FacetItem{
			Sentence: s,
			About:    strings.Join([]string{n.Question, n.Answer, s.Text, support[cited{s.NuggetID, s.Citation}]}, "\n"),
			Year:     r.documentYear(ctx, s.Citation.DocID),
			Author:   r.authorOf(ctx, s.Citation.DocID),
		}
	}
	return items
}

// documentYear is the year of a document's date, 0 when it has none or
// cannot be read (grouping then counts it undated).
func (r *run) documentYear(ctx context.Context, docID string) int {
	d, err := r.document(ctx, docID)
	if err != nil {
		return 0
	}
	y, _ := pipeline.DocumentYear(d.Metadata)
	return y
}

// onTopic keeps the candidates that cite one of the request's best
// passages — the subjectPassages best BM25 passages, after the preference
// for the request's period, the passages its subject is read from — and
// whose cited text speaks of the request's subject as an assembled
// sentence must (subject.speaks): a phrase or acronym of the subject, or
// an anchor with a second word of the request beside it; two anchors for
// a document from outside the period the request names. A passage far
// down the request's ranking that happens to hold its words is seldom
// about it (the lead baseline, which takes only the best passages'
// opening sentences, stayed more on topic than the engine on two blind
// sets). The nugget a candidate answers does not vouch for it: a
// question drawn from an off-topic passage backs off-topic sentences.
// The sentence itself must name the subject as well (namesSubject).
func (r *run) onTopic(cands []pipeline.Candidate) []pipeline.Candidate {
	if r.subject.empty() {
		return cands // nothing to hold sentences to (see subject)
	}
	out := make([]pipeline.Candidate, 0, len(cands))
	for _, c := range cands {
		if r.mayAssemble(c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 && len(cands) > 0 {
		msg := fmt.Sprintf("assemble: none of the %d candidate sentences cites one of the request's %d best passages, speaks of its subject there and names it in its own words%s", len(cands), subjectPassages, emptyReport)
		if names := r.subject.names(r.req); len(names) > 0 {
			msg += fmt.Sprintf(". Its subject was read from the request's words %s: the text a report sentence cites must hold one of them beside a second word of the request (two of them will do), or an acronym or two-word phrase of the request as it writes them, and the sentence itself one of them, or such an acronym or phrase", quotedWords(names))
		}
		r.problem("%s", msg)
	}
	return r.inScope(out)
}

// mayAssemble reports whether a candidate sentence passes onTopic's
// tests: it cites one of the request's best passages, its cited text
// speaks of the subject and the sentence names it. True when the
// request has no subject to hold sentences to.
func (r *run) mayAssemble(c pipeline.Candidate) bool {
	if r.subject.empty() {
		return true
	}
	return r.bestPassage(c.Citation) && r.speaksOfSubject(c.Citation.DocID, c.Support) && r.namesSubject(c.Sentence)
}

// namesSubject reports whether a report sentence, as a reader sees it,
// names the request's subject: an anchor, a phrase or an acronym of it
// (subject.covers) in what the sentence says, its attribution aside (the
// attribution names a speaker and a year, not a subject). That its cited
// text speaks of the subject is not enough: a clause cut from a long
// sentence ("whenever the active spirit of enmity to our institutions is
// abated; whenever there appear works mete for repentance") leaves the
// words that put the span on topic ("the newly formed Republic of
// Russia") outside the quotation.
func (r *run) namesSubject(sentence string) bool {
	_, body := pipeline.SplitAttribution(sentence)
	return r.subject.covers(body, false)
}

// emptyReport ends the problem onTopic records when no candidate may be
// assembled (the fill may reword it).
const emptyReport = "; the report is empty"

// bestPassage reports whether a citation is in one of the request's best
// passages (see onTopic); true when retrieval ranked no passages.
func (r *run) bestPassage(c pipeline.Citation) bool {
	return r.bestPassages == nil || r.bestPassages[pipeline.PassageID(c.DocID, c.Ordinal)]
}

// titlePeriods returns the periods a request's title names for the whole
// of what it asks: a period written after a comma at the end ("The First
// World War and the peace, 1915-1923"), or the periods of a title that
// asks for one thing ("The energy crisis of the 1970s"). A title of
// several parts ("Paying off the national debt: Jackson's era and the
// surpluses of the 1990s") dates only one of them, and sets no scope. A
// title asked as a question ("How fast did the Union grow, 1791-1853?")
// sets its period as one stated does.
func titlePeriods(title string) []pipeline.Period {
	t := strings.TrimRight(strings.TrimSpace(title), " .?!")
	if i := strings.LastIndex(t, ","); i >= 0 && onlyPeriod(t[i+1:]) {
		return pipeline.RequestPeriods(t[i+1:])
	}
	if strings.Contains(t, ":") || strings.Contains(t, ";") || strings.Contains(strings.ToLower(t), " and ") {
		return nil
	}
	return pipeline.RequestPeriods(t)
}

// onlyPeriod reports whether a piece of a title is nothing but a period:
// "1941-1946", "from 1929 to 1939", "the 1970s".
func onlyPeriod(s string) bool {
	if len(pipeline.RequestPeriods(s)) == 0 {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("-–—,", r) }) {
		switch w {
		case "from", "to", "through", "until", "between", "and", "the":
			continue
		}
		if strings.TrimLeft(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "s"), "0123456789") != "" {
			return false
		}
	}
	return true
}

// outOfScope reports whether a document is dated outside the period the
// request's title names.
func (r *run) outOfScope(docID string) bool {
	in, dated := r.titleScope[docID]
	return dated && !in
}

// scoped leaves out the documents dated outside the period the request's
// title names, unless none would remain: nuggets are drawn from the
// documents the report may cite (see inScope).
func (r *run) scoped(docs []pipeline.RetrievedDoc) []pipeline.RetrievedDoc {
	if len(r.titleScope) == 0 {
		return docs
	}
	out := make([]pipeline.RetrievedDoc, 0, len(docs))
	for _, d := range docs {
		if !r.outOfScope(d.DocID) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return docs
	}
	return out
}

// inScope drops the candidates cited from documents dated outside the
// period the request's title names, unless that leaves none: a report
// on "the annual messages of 1941-1946" says what those messages say,
// not what a 1981 message recalls. Undated documents stay.
func (r *run) inScope(cands []pipeline.Candidate) []pipeline.Candidate {
	if len(r.titleScope) == 0 {
		return cands
	}
	out := make([]pipeline.Candidate, 0, len(cands))
	for _, c := range cands {
		if !r.outOfScope(c.Citation.DocID) {
			out = append(out, c)
		}
	}
	if len(out) == 0 && len(cands) > 0 {
		r.problem("assemble: every on-topic candidate sentence cites a document dated outside the period the title names; they were used all the same")
		return cands
	}
	return out
}

// speaksOfSubject reports whether the cited text of a document speaks of
// the request's subject as an assembled sentence must (subject.speaks),
// and not of what the request says to leave out (subject.leavesOut):
// within the period the title names, a title term counts as the second
// word beside an anchor; outside the periods the request names, only a
// second anchor does.
func (r *run) speaksOfSubject(docID, text string) bool {
	if r.subject.leavesOut(text) {
		return false // what the request says to leave out
	}
	if r.titleScope[docID] {
		return r.subject.speaks(text, false, true)
	}
	return r.subject.speaks(text, r.outOfPeriod(docID), false)
}

// outOfPeriod reports whether a document is dated outside the periods the
// request names (or undated) while some retrieved document is in one.
func (r *run) outOfPeriod(docID string) bool { return r.inPeriod != nil && !r.inPeriod[docID] }

// tolerated returns a copy of the problems the run tolerated.
func (r *run) tolerated() []string {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return append([]string(nil), r.problems...)
}

// RunID names a configuration in exports: crucible-<engine>[-verified].
func RunID(engine string, verified bool) string {
	var b strings.Builder
	b.WriteString("crucible-")
	dash := false
	for _, c := range strings.ToLower(engine) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.TrimRight(b.String(), "-")
	if verified {
		id += "-verified"
	}
	return id
}

// retrieve ranks documents for the request: MaxP over passages, then
// reranked by their top passages together (see rerankByPassages).
func (r *run) retrieve(ctx context.Context) ([]pipeline.RetrievedDoc, error) {
	r.enter(StageRetrieve, 1)
	q := r.req.Query()
	if utf8.RuneCountInString(q) > pipeline.MaxQueryChars {
		q = string([]rune(q)[:pipeline.MaxQueryChars])
	}
	hits, err := r.searchDocs(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("no document matches the request's title and problem statement: %w", pipeline.ErrNotFound)
	}
	r.query = r.termSet(q)
	docs := make([]pipeline.RetrievedDoc, len(hits))
	for i, h := range hits {
		docs[i] = pipeline.RetrievedDoc{Rank: i + 1, DocID: h.DocID, Title: h.Title, Score: h.Score, Ordinal: h.Ordinal}
	}
	if err := r.rerankByPassages(ctx, q, docs); err != nil {
		return nil, err
	}
	if err := r.obs.Retrieved(ctx, docs); err != nil {
		return nil, err
	}
	r.tick(1, 1)
	return docs, nil
}

// searchDocs returns the request's best N documents (MaxP) and, when the
// request names a period and the store can list dates, every document
// dated in it among the best periodPool that match the query: a request
// on "the annual messages of 1915-1923" is about those messages, and the
// 1918 message, whose best passage ranks 102nd among all documents for
// the request's words, is one of them. The documents added follow the
// best N in score order; preferPeriod then raises their scores.
func (r *run) searchDocs(ctx context.Context, q string) ([]pipeline.Hit, error) {
	periods, err := r.requestPeriods(ctx)
	if err != nil {
		return nil, err
	}
	dl, ok := r.e.Store.(pipeline.DateLister)
	if len(periods) == 0 || !ok || !r.h.PreferPeriod {
		res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: r.s.Retrieve, Docs: true})
		return res.Hits, err
	}
	res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: max(r.s.Retrieve, periodPool), Docs: true})
	if err != nil || len(res.Hits) <= r.s.Retrieve {
		return res.Hits, err
	}
	rest := res.Hits[r.s.Retrieve:]
	ids := make([]string, len(rest))
	for i, h := range rest {
		ids[i] = h.DocID
	}
	dates, err := dl.DocumentDates(ctx, ids)
	if err != nil {
		return nil, err
	}
	hits := res.Hits[:r.s.Retrieve:r.s.Retrieve]
	for _, h := range rest {
		if year, ok := pipeline.DocumentYear(map[string]string{"date": dates[h.DocID]}); ok && inPeriods(periods, year) {
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// inPeriods reports whether a year falls in one of the periods.
func inPeriods(periods []pipeline.Period, year int) bool {
	for _, p := range periods {
		if p.Contains(year) {
			return true
		}
	}
	return false
}

// rerankByPassages reorders the retrieved documents by the evidence of
// their best passages together rather than of the best alone: a document's
// score becomes the sum of its top passage scores among the best
// passagePool passages of the query, the i-th best weighted
// passageDecay^i (the best passage keeps its weight 1, so a document
// with a single matching passage keeps its MaxP score). A document that
// treats the request's subject at length outranks one that mentions it
// once in a passage dense with the query's words. Ranks are renumbered;
// ties keep the MaxP order.
func (r *run) rerankByPassages(ctx context.Context, q string, docs []pipeline.RetrievedDoc) error {
	res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: max(passagePool, 4*len(docs))})
	if err != nil {
		return err
	}
	if err := r.preferPeriod(ctx, res.Hits, docs); err != nil {
		return err
	}
	best := make([]string, 0, subjectPassages)
	r.bestPassages = make(map[string]bool, subjectPassages)
	for _, h := range res.Hits[:min(len(res.Hits), subjectPassages)] {
		best = append(best, h.Text)
		r.bestPassages[pipeline.PassageID(h.DocID, h.Ordinal)] = true
	}
	speakers, err := r.speakers(ctx, res.Hits[:min(len(res.Hits), subjectPassages)])
	if err != nil {
		return err
	}
	if r.subject, err = newSubject(ctx, r.req, best, r.e.Terms, r.e.DocFreq, r.e.PairFreq, speakers...); err != nil {
		return err
	}
	r.noteNarrowSubject(res.Hits[:min(len(res.Hits), subjectPassages)])
	if r.h.ChooseSentences {
		if r.topic, err = newTopicality(ctx, r.req, r.e.Searcher, r.e.Terms, r.e.DocFreq); err != nil {
			return err
		}
	}
	seen := map[string]int{}
	sum := map[string]float64{}
	r.passageRank = make(map[string]int, evidencePassages)
	for i, h := range res.Hits {
		if i < evidencePassages {
			r.passageRank[pipeline.PassageID(h.DocID, h.Ordinal)] = i
		}
		i := seen[h.DocID]
		if i >= passagesPerDoc || (i > 0 && !r.h.PassageScores) {
			continue
		}
		seen[h.DocID] = i + 1
		sum[h.DocID] += h.Score * math.Pow(passageDecay, float64(i))
	}
	for i := range docs {
		if s, ok := sum[docs[i].DocID]; ok && s > docs[i].Score {
			docs[i].Score = s
		}
	}
	sortStable(docs, func(a, b pipeline.RetrievedDoc) bool { return a.Score > b.Score })
	for i := range docs {
		docs[i].Rank = i + 1
	}
	return nil
}

// noteNarrowSubject tells the report's readers (a problem) when fewer
// than a tenth of the request's best passages speak of its subject as
// the text an assembled sentence cites must (subject.speaks, as
// mayAssemble asks it): few candidates can then be assembled and the
// report is short. Over the 1,116 requests of 93 evaluation sets, the
// 31 under ten of their 100 best passages held 3.8 sentences and 0.19
// of their gold facts against about 8.8 and 0.35 for the rest
// (docs/pipeline.md, session 46). Reading such a subject more loosely
// filled the reports with text off the topic, so the run says why the
// report is short instead, and what may help.
func (r *run) noteNarrowSubject(best []pipeline.Hit) {
	if r.subject.empty() || len(best) == 0 {
		return
	}
	n := 0
	for _, h := range best {
		if r.subject.speaks(h.Text, r.outOfPeriod(h.DocID), false) {
			n++
		}
	}
	if n*narrowSubject >= len(best) {
		return
	}
	msg := fmt.Sprintf("subject: only %d of the request's %d best passages speak of its subject", n, len(best))
	if names := r.subject.names(r.req); len(names) > 0 {
		msg += fmt.Sprintf(" (read from its words %s)", quotedWords(names))
	}
	r.problem("%s, so few sentences can be assembled and the report may be short; a title or problem statement that names the subject in the words its documents use may help", msg)
}

// narrowSubject: a subject is narrow when fewer than one in narrowSubject
// of the request's best passages speak of it (noteNarrowSubject).
const narrowSubject = 10

// speakers are the authors of the documents the hits come from (see
// newSubject); none for an engine without an analyzer, which holds no
// sentence to a subject.
func (r *run) speakers(ctx context.Context, hits []pipeline.Hit) ([]string, error) {
	if r.e.Terms == nil {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		if seen[h.DocID] {
			continue
		}
		seen[h.DocID] = true
		d, err := r.document(ctx, h.DocID)
		if errors.Is(err, pipeline.ErrNotFound) {
			continue // gone since it was indexed: no speaker to leave out
		}
		if err != nil {
			return nil, err
		}
		if a, ok := pipeline.DocumentAuthor(d.Metadata); ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// requestPeriods returns the periods the request's title and problem
// statement name: by years (pipeline.RequestPeriods: "1812-1815", "the
// 1970s") and, when the store can list the collection's authors, by
// ranges of them (pipeline.AuthorPeriods: "from Kennedy to Obama").
func (r *run) requestPeriods(ctx context.Context) ([]pipeline.Period, error) {
	authors, err := r.collectionAuthors(ctx)
	if err != nil {
		return nil, err
	}
	return pipeline.NamedPeriods(r.req.Title+"\n"+r.req.ProblemStatement, authors), nil
}

// collectionAuthors reads the collection's authors once a run, when the
// store can list them (nil otherwise), and with them the names an
// attribution may shorten to a surname.
func (r *run) collectionAuthors(ctx context.Context) (map[string]pipeline.Period, error) {
	r.authorsMu.Lock()
	defer r.authorsMu.Unlock()
	if !r.authorsRead {
		if al, ok := r.e.Store.(pipeline.AuthorLister); ok {
			authors, err := al.AuthorYears(ctx)
			if err != nil {
				return nil, err
			}
			r.authors = authors
			names := make([]string, 0, len(authors))
			for a := range authors {
				names = append(names, a)
			}
			r.shortNames = pipeline.ShortNames(names)
		}
		r.authorsRead = true
	}
	return r.authors, nil
}

// attributedAuthor is how a report sentence names the author of document
// d: by surname where no other author of the collection has it ("In 1862,
// Lincoln reported ..."), in full otherwise ("Lyndon B Johnson"); false
// when the metadata names nobody.
func (r *run) attributedAuthor(ctx context.Context, d pipeline.Document) (string, bool, error) {
	author, ok := pipeline.DocumentAuthor(d.Metadata)
	if !ok {
		return "", false, nil
	}
	if _, err := r.collectionAuthors(ctx); err != nil {
		return "", false, err
	}
	if s, short := r.shortNames[author]; short {
		return s, true, nil
	}
	return author, true, nil
}

// preferPeriod raises the scores of the passages and documents dated in a
// period the request's title or problem statement names ("1812-1815",
// "from 1929 to 1939", "the 1970s"; see pipeline.RequestPeriods) by
// periodBoost, and reorders the passages. A request about the annual
// messages of 1812-1815 is about those messages: a later address that
// looks back on the war still counts, after them. Nothing changes when
// the request names no period, when the store cannot list dates
// (pipeline.DateLister) or for documents without a date.
func (r *run) preferPeriod(ctx context.Context, hits []pipeline.Hit, docs []pipeline.RetrievedDoc) error {
	periods, err := r.requestPeriods(ctx)
	if err != nil {
		return err
	}
	dl, ok := r.e.Store.(pipeline.DateLister)
	if len(periods) == 0 || !ok {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	note := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, h := range hits {
		note(h.DocID)
	}
	for _, d := range docs {
		note(d.DocID)
	}
	dates, err := dl.DocumentDates(ctx, ids)
	if err != nil {
		return err
	}
	scope := titlePeriods(r.req.Title)
	title := strings.TrimRight(strings.TrimSpace(r.req.Title), " .")
	for _, m := range pipeline.AuthorPeriods(title, r.authors) {
		if m.End == len(title) {
			// "Protecting the consumer from Kennedy to Obama": a
			// range of authors that ends the title is its scope.
			scope = append(scope, m.Period)
		}
	}
	in := map[string]bool{}
	r.titleScope = map[string]bool{}
	for id, date := range dates {
		year, ok := pipeline.DocumentYear(map[string]string{"date": date})
		if !ok {
			continue
		}
		if inPeriods(periods, year) {
			in[id] = true
		}
		if len(scope) > 0 {
			r.titleScope[id] = inPeriods(scope, year)
		}
	}
	if len(in) > 0 {
		r.inPeriod = in
	}
	if !r.h.PreferPeriod {
		return nil
	}
	for i := range hits {
		if in[hits[i].DocID] {
			hits[i].Score *= periodBoost
		}
	}
	for i := range docs {
		if in[docs[i].DocID] {
			docs[i].Score *= periodBoost
		}
	}
	sortStable(hits, func(a, b pipeline.Hit) bool { return a.Score > b.Score })
	return nil
}

// rerank reorders the retrieved documents with the request's reranker and
// records the stage. It returns the reranked documents (ranks renumbered)
// and the report's context: the chosen set of a set-selection method, or
// all of them.
func (r *run) rerank(ctx context.Context, ret []pipeline.RetrievedDoc) (reranked, pool []pipeline.RetrievedDoc, err error) {
	r.enter(StageRerank, len(ret))
	rr, err := r.e.NewReranker(r.s.Reranker, r.model)
	if err != nil {
		return nil, nil, err
	}
	kept := len(ret)
	if w, ok := rr.(rerank.CandidateWanter); ok && w.WantsCandidates() > len(ret) {
		// CoRank's coarse ranking reads 200 candidates: the next best
		// documents join the retrieved ones, and the report keeps as many
		// as it retrieved, the reranker's best.
		if ret, err = r.moreCandidates(ctx, ret, w.WantsCandidates()); err != nil {
			return nil, nil, err
		}
	}
	cands := make([]rerank.Candidate, len(ret))
	// With the rule BestPassage the prompts show each document's best
	// passage; without it, the document's opening (nil passages).
	var passages map[string]string
	if r.h.BestPassage {
		passages = make(map[string]string, len(ret))
	}
	for i, d := range ret {
		cands[i] = rerank.Candidate{ID: d.DocID, Score: d.Score}
		if passages == nil {
			continue
		}
		ps, err := r.passagesOf(ctx, d.DocID)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range ps {
			if p.Ordinal == d.Ordinal {
				passages[d.DocID] = p.Text
			}
		}
	}
	res, err := rr.Rerank(ctx, rerank.Input{
		Request: r.req, Candidates: cands, Docs: r.e.Store, Passages: passages,
		Progress: func(done, total int) { r.tick(done, total) },
	})
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]pipeline.RetrievedDoc, len(ret))
	for _, d := range ret {
		byID[d.DocID] = d
	}
	rec := pipeline.RerankRecord{Method: res.Method, FirstStage: ret, Selected: res.Selected, Usage: res.Usage}
	if kept < len(ret) {
		rec.Kept = kept
	}
	for _, c := range res.Ranking {
		d, ok := byID[c.ID]
		if !ok {
			return nil, nil, fmt.Errorf("reranker %s returned document %q, which was not retrieved", res.Method, c.ID)
		}
		delete(byID, c.ID)
		d.Rank = len(reranked) + 1
		reranked = append(reranked, d)
		rec.Order = append(rec.Order, c.ID)
	}
	if len(byID) > 0 {
		return nil, nil, fmt.Errorf("reranker %s dropped %d retrieved document(s)", res.Method, len(byID))
	}
	if rec.Trace, err = json.Marshal(res.Trace); err != nil {
		return nil, nil, fmt.Errorf("reranker %s: encode trace: %w", res.Method, err)
	}
	if o, ok := r.obs.(RerankObserver); ok {
		if err := o.Reranked(ctx, rec); err != nil {
			return nil, nil, err
		}
	}
	reranked = reranked[:min(kept, len(reranked))]
	pool = reranked
	if res.Selected > 0 {
		pool = reranked[:min(res.Selected, len(reranked))]
	}
	return reranked, pool, nil
}

// moreCandidates returns the retrieved documents followed by the next best
// documents for the request's query (MaxP order), up to want in all.
func (r *run) moreCandidates(ctx context.Context, ret []pipeline.RetrievedDoc, want int) ([]pipeline.RetrievedDoc, error) {
	q := r.req.Query()
	if utf8.RuneCountInString(q) > pipeline.MaxQueryChars {
		q = string([]rune(q)[:pipeline.MaxQueryChars])
	}
	res, err := r.e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: want, Docs: true})
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(ret))
	for _, d := range ret {
		have[d.DocID] = true
	}
	out := append([]pipeline.RetrievedDoc(nil), ret...)
	for _, h := range res.Hits {
		if len(out) >= want {
			break
		}
		if !have[h.DocID] {
			have[h.DocID] = true
			out = append(out, pipeline.RetrievedDoc{Rank: len(out) + 1, DocID: h.DocID, Title: h.Title, Score: h.Score, Ordinal: h.Ordinal})
		}
	}
	return out, nil
}

// document loads a document once per run: concurrent callers asking for
// the same one wait for one read, which keeps its passages too (the store
// puts a document's text together from them).
func (r *run) document(ctx context.Context, id string) (pipeline.Document, error) {
	r.dmu.Lock()
	d, ok := r.docs[id]
	r.dmu.Unlock()
	if ok {
		return d, nil
	}
	err := r.loads.do("d"+id, func() error {
		d, ps, err := r.e.Store.DocumentPassages(ctx, id)
		if err != nil {
			return err
		}
		r.dmu.Lock()
		r.docs[id] = d
		if _, ok := r.passages[id]; !ok {
			r.passages[id] = ps
		}
		r.dmu.Unlock()
		return nil
	})
	if err != nil {
		return pipeline.Document{}, err
	}
	r.dmu.Lock()
	defer r.dmu.Unlock()
	return r.docs[id], nil
}

// passagesOf loads a document's passages once per run: concurrent callers
// asking for the same document wait for one read.
func (r *run) passagesOf(ctx context.Context, id string) ([]pipeline.Passage, error) {
	r.dmu.Lock()
	ps, ok := r.passages[id]
	r.dmu.Unlock()
	if ok {
		return ps, nil
	}
	err := r.loads.do("p"+id, func() error {
		ps, err := r.e.Store.Passages(ctx, id)
		if err != nil {
			return err
		}
		r.dmu.Lock()
		r.passages[id] = ps
		r.dmu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.dmu.Lock()
	defer r.dmu.Unlock()
	return r.passages[id], nil
}

// flight runs one load per key at a time: callers asking for a key being
// loaded wait for that load and share its error (a failed load is not
// remembered, so a later call tries again). The zero value is ready.
type flight struct {
	mu    sync.Mutex
	calls map[string]*flightCall
}

type flightCall struct {
	done chan struct{}
	err  error
}

// do runs load for key unless a load of key is under way, in which case
// it waits for that one.
func (f *flight) do(key string, load func() error) error {
	f.mu.Lock()
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.err
	}
	if f.calls == nil {
		f.calls = map[string]*flightCall{}
	}
	c := &flightCall{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.calls, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.err = load()
	return c.err
}

// complete asks the model and parses its answer; a parse failure is a
// tolerated problem (ok=false), a model failure an error.
func complete[T any](ctx context.Context, r *run, req pipeline.ModelRequest, parse func(string) (T, error)) (T, pipeline.ModelResponse, bool, error) {
	var zero T
	resp, err := r.model.Complete(ctx, req)
	if err != nil {
		return zero, resp, false, err
	}
	out, err := parse(resp.Text)
	if err != nil {
		if errors.Is(err, pipeline.ErrInvalid) {
			r.problem("%s: %v", req.Task, err)
			return zero, resp, false, nil
		}
		return zero, resp, false, err
	}
	return out, resp, true, nil
}

// meter counts the model calls of a run.
type meter struct {
	next pipeline.Model
	mu   sync.Mutex
	u    pipeline.Usage
}

func (m *meter) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	resp, err := m.next.Complete(ctx, req)
	if err == nil {
		m.mu.Lock()
		m.u.Add(resp)
		m.mu.Unlock()
	}
	return resp, err
}

func (m *meter) usage() pipeline.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

type nopObserver struct{}

func (nopObserver) Progress(pipeline.Progress)                               {}
func (nopObserver) Retrieved(context.Context, []pipeline.RetrievedDoc) error { return nil }
func (nopObserver) Nuggets(context.Context, []pipeline.Nugget) error         { return nil }
func (nopObserver) Candidates(context.Context, []pipeline.Candidate) error   { return nil }
func sortStable[T any](s []T, less func(a, b T) bool) {
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
}
