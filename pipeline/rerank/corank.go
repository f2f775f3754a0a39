package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// MethodCoRank is CoRank (Tian et al.; DESIGN §6): a coarse listwise
// ranking over compact per-document features, then a fine listwise
// ranking over the leading documents' texts.
const MethodCoRank = "corank"

// Defaults of CoRank.
const (
	// DefaultCoRankDepth is how many leading candidates the coarse ranking
	// sees (Options.Depth).
	DefaultCoRankDepth = 200
	// DefaultCoRankFineDepth is how many of the coarse ranking's leading
	// documents the fine ranking reorders by their texts.
	DefaultCoRankFineDepth = 20
	// DefaultCoRankFineChars is the text budget of one document in the
	// fine ranking (Options.DocChars), in characters: about 1,000 tokens,
	// so that the fine window of 20 documents stays near 20,000 tokens.
	DefaultCoRankFineChars = 4000
	// DefaultCoRankKeywords, DefaultCoRankSections and
	// DefaultCoRankQueries are how many keywords, section headings and
	// pseudo-queries a compact representation shows: the ones most
	// similar to the request.
	DefaultCoRankKeywords = 5
	DefaultCoRankSections = 1
	DefaultCoRankQueries  = 1
	// OfflineCoarseWindow is the offline engine's coarse window: its
	// lexical listwise answer over all 200 compact representations at
	// once ranked worse than sliding windows of 20 on all three SOTU gold
	// sets (docs/benchmarks.md §7).
	OfflineCoarseWindow = 20
)

// Parameters of the lexical similarity (BM25 over one kind of feature
// item of the candidate documents as the collection).
const (
	coRankK1 = 1.2
	coRankB  = 0.75
	// embedBatch bounds the texts of one Embedder call.
	embedBatch = 64
	// fallbackOpening is how much of a document's opening stands in for
	// features that could not be extracted, in characters.
	fallbackOpening = 300
)

// Embedder turns texts into vectors for CoRank's similarity: the request
// and every feature item are embedded and items are chosen by cosine
// similarity to the request. Embeddings need an endpoint that offers
// them; without one (the offline engine) CoRank uses lexical similarity.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one dimension.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// CoRankConfig is what CoRank needs beyond Options.
type CoRankConfig struct {
	// Store keeps the documents' features. Nil: a MemoryFeatureStore of
	// the reranker's own (features live as long as the reranker).
	Store FeatureStore
	// Namespace is the answer cache namespace of the engine behind the
	// model (llm.Cached's Namespace: the model name, or offline.Version);
	// features are stored under FeatureNamespace(Namespace,
	// FeatureChars). Required with a Store.
	Namespace string
	// FeatureChars is the text budget of the feature prompt
	// (ExtractFeatures). 0: DefaultFeatureChars.
	FeatureChars int
	// Terms analyses text for the lexical similarity (the index's
	// analyzer: lower-cased, stop words removed, stemmed). Nil: SimpleTerms.
	Terms func(string) []string
	// Embedder, when set, replaces the lexical similarity by cosine
	// similarity of embeddings.
	Embedder Embedder
	// FineDepth is how many leading documents of the coarse ranking the
	// fine ranking reorders. 0: DefaultCoRankFineDepth.
	FineDepth int
	// Keywords, Sections and Queries are how many of each feature a
	// compact representation shows. 0: 5, 1 and 1.
	Keywords, Sections, Queries int
	// CoarseWindow is the coarse ranking's window: 0 shows every coarse
	// candidate's compact representation in one listwise prompt, as the
	// paper does; a size of 2 or more ranks them in bottom-up sliding
	// windows of that size, stride half of it, for a model whose context
	// cannot hold them all.
	CoarseWindow int
}

// CoRank is the CoRank reranker. It is safe for concurrent use when its
// model, store, embedder and Terms are.
type CoRank struct {
	model pipeline.Model
	store FeatureStore
	ns    string
	terms func(string) []string
	embed Embedder

	depth, fineDepth, fineChars, featureChars int
	concurrency                               int
	windowSize, windowStride                  int
	keywords, sections, queries               int
	coarseWindow                              int
}

// NewCoRank returns a CoRank reranker asking model. From opts it reads
// Depth (coarse candidates; 0: DefaultCoRankDepth), DocChars (the fine
// ranking's text budget; 0: DefaultCoRankFineChars), Concurrency (feature
// extractions and embedding calls in flight; 0: DefaultConcurrency) and
// WindowSize and WindowStride (both rankings' sliding windows; 0: 20 and
// 10). A nil model, a store without a namespace or an out-of-range
// setting is an error wrapping pipeline.ErrInvalid that names it.
func NewCoRank(model pipeline.Model, opts Options, cfg CoRankConfig) (*CoRank, error) {
	orDefault := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	c := &CoRank{
		model: model, store: cfg.Store, terms: cfg.Terms, embed: cfg.Embedder,
		depth:        orDefault(opts.Depth, DefaultCoRankDepth),
		fineDepth:    orDefault(cfg.FineDepth, DefaultCoRankFineDepth),
		fineChars:    orDefault(opts.DocChars, DefaultCoRankFineChars),
		featureChars: orDefault(cfg.FeatureChars, DefaultFeatureChars),
		concurrency:  orDefault(opts.Concurrency, DefaultConcurrency),
		windowSize:   orDefault(opts.WindowSize, DefaultWindowSize),
		windowStride: orDefault(opts.WindowStride, DefaultWindowStride),
		keywords:     orDefault(cfg.Keywords, DefaultCoRankKeywords),
		sections:     orDefault(cfg.Sections, DefaultCoRankSections),
		queries:      orDefault(cfg.Queries, DefaultCoRankQueries),
		coarseWindow: cfg.CoarseWindow,
	}
	bad := func(format string, args ...any) (*CoRank, error) {
		return nil, fmt.Errorf("reranker %s: %w", MethodCoRank, pipeline.Invalidf(format, args...))
	}
	switch {
	case model == nil:
		return bad("no model")
	case cfg.Store != nil && strings.TrimSpace(cfg.Namespace) == "":
		return bad("a feature store needs the engine's namespace")
	case c.depth < 1:
		return bad("depth %d, want at least 1", opts.Depth)
	case c.fineDepth < 1:
		return bad("fine depth %d, want at least 1", cfg.FineDepth)
	case c.fineChars < 1:
		return bad("document budget %d characters, want at least 1", opts.DocChars)
	case c.featureChars < 1:
		return bad("feature prompt budget %d characters, want at least 1", cfg.FeatureChars)
	case c.concurrency < 1:
		return bad("concurrency %d, want at least 1", opts.Concurrency)
	case cfg.CoarseWindow < 0 || cfg.CoarseWindow == 1:
		return bad("coarse window %d, want 0 (one prompt for every candidate) or at least 2", cfg.CoarseWindow)
	case c.keywords < 0 || c.sections < 0 || c.queries < 0:
		return bad("feature counts %d keywords, %d sections, %d queries: none may be negative", cfg.Keywords, cfg.Sections, cfg.Queries)
	}
	if _, err := SlidingWindows(0, c.windowSize, c.windowStride); err != nil {
		return nil, fmt.Errorf("reranker %s: %w", MethodCoRank, err)
	}
	if c.store == nil {
		c.store = &MemoryFeatureStore{}
	}
	c.ns = FeatureNamespace(cfg.Namespace, c.featureChars)
	if c.terms == nil {
		c.terms = SimpleTerms
	}
	return c, nil
}

// CoRank is a Reranker.
var _ Reranker = (*CoRank)(nil)

// Name is MethodCoRank.
func (c *CoRank) Name() string { return MethodCoRank }

// WantsCandidates is the coarse ranking's depth: a report hands CoRank
// that many candidates even when it retrieves fewer (CandidateWanter).
func (c *CoRank) WantsCandidates() int { return c.depth }

// FeatureNamespace is the namespace the reranker stores features under.
func (c *CoRank) FeatureNamespace() string { return c.ns }

// CoRankTrace is CoRank's trace: every coarse candidate's compact
// representation, and the coarse and fine orders with their windows.
type CoRankTrace struct {
	// Depth is how many candidates the coarse ranking saw; FineDepth how
	// many leading ones the fine ranking reordered.
	Depth        int `json:"depth"`
	FineDepth    int `json:"fine_depth"`
	WindowSize   int `json:"window_size"`
	WindowStride int `json:"window_stride"`
	// CoarseWindow is the coarse ranking's window size: the depth when one
	// prompt showed every candidate (CoRankConfig.CoarseWindow).
	CoarseWindow int `json:"coarse_window,omitempty"`
	// Similarity is "lexical" or "embedding": how feature items were
	// matched to the request.
	Similarity string `json:"similarity"`
	// FeaturesStored counts documents whose stored features were current;
	// FeaturesExtracted those extracted by this call; FeaturesFailed those
	// whose answer had no usable feature (shown by title and opening).
	FeaturesStored    int `json:"features_stored"`
	FeaturesExtracted int `json:"features_extracted"`
	FeaturesFailed    int `json:"features_failed"`
	// Rows list the coarse candidates in first-stage order.
	Rows []CoRankRow `json:"rows"`
	// Coarse and Fine are document ids in the coarse ranking's order and
	// in the fine ranking's order (its FineDepth documents).
	Coarse        []string         `json:"coarse"`
	Fine          []string         `json:"fine"`
	CoarseWindows []ListwiseWindow `json:"coarse_windows"`
	FineWindows   []ListwiseWindow `json:"fine_windows"`
	Failures      []ParseFailure   `json:"failures,omitempty"`
}

// Sources of a document's features in a CoRank trace.
const (
	FeaturesStored    = "stored"
	FeaturesExtracted = "extracted"
	FeaturesFailed    = "failed"
)

// CoRankRow is one coarse candidate.
type CoRankRow struct {
	DocID          string `json:"doc_id"`
	Title          string `json:"title"`
	FirstStageRank int    `json:"first_stage_rank"`
	// CoarseRank is the document's rank after the coarse ranking; Rank
	// its final rank.
	CoarseRank int `json:"coarse_rank"`
	Rank       int `json:"rank"`
	// Features is FeaturesStored, FeaturesExtracted or FeaturesFailed.
	Features string `json:"features"`
	// Keywords, Section and Query are the chosen items; Compact is the
	// representation the coarse ranking showed.
	Keywords []string `json:"keywords"`
	Sections []string `json:"sections"`
	Queries  []string `json:"queries"`
	Compact  string   `json:"compact"`
}

// coRankRun is one Rerank call in progress.
type coRankRun struct {
	*CoRank
	in   Input
	head []Candidate
	docs []pipeline.Document

	mu          sync.Mutex
	usage       pipeline.Usage
	done, total int
}

// Rerank reranks the leading Options.Depth candidates in three steps.
//
//  1. Features: each candidate's stored features are used when their hash
//     matches the document (FeatureHash); the others are extracted
//     (ExtractFeatures, concurrently) and stored. A document whose answer
//     has no usable feature is shown by its title and the opening of its
//     text, and nothing is stored for it, so a later call tries again.
//  2. Coarse: each document is shown as a compact representation
//     (compactText: topical title, category path and the Keywords,
//     Sections and Queries feature items most similar to the request, see
//     chooseItems) and one bottom-up sliding-window listwise pass
//     (SlidingRerank, BuildListwise, ParseListwise) orders them.
//  3. Fine: the coarse ranking's leading FineDepth documents are shown by
//     their texts (fineText) and reordered by another listwise pass.
//
// The ranking is the fine order, the rest of the coarse order, then the
// candidates beyond Depth in first-stage order. A window of one document
// is not asked about; an answer that names no document leaves its window
// as it was (the trace records it).
func (c *CoRank) Rerank(ctx context.Context, in Input) (Result, error) {
	wrap := func(err error) error { return fmt.Errorf("%s: %w", MethodCoRank, err) }
	if strings.TrimSpace(in.Request.Query()) == "" {
		return Result{}, wrap(pipeline.Invalidf("the request has neither title nor problem statement"))
	}
	if in.Docs == nil {
		return Result{}, wrap(pipeline.Invalidf("no document source"))
	}
	if err := validateCandidates(in.Candidates); err != nil {
		return Result{}, wrap(err)
	}
	ru := &coRankRun{CoRank: c, in: in, head: in.Candidates[:min(c.depth, len(in.Candidates))]}
	ru.docs = make([]pipeline.Document, len(ru.head))
	for i, cand := range ru.head {
		if err := ctx.Err(); err != nil {
			return Result{}, wrap(err)
		}
		d, err := in.Docs.Document(ctx, cand.ID)
		if err != nil {
			return Result{}, wrap(fmt.Errorf("load document %q: %w", cand.ID, err))
		}
		d.ID = cand.ID
		ru.docs[i] = d
	}
	trace := CoRankTrace{
		Depth: len(ru.head), WindowSize: c.windowSize, WindowStride: c.windowStride,
		Similarity: "lexical", Rows: make([]CoRankRow, len(ru.head)), Coarse: []string{}, Fine: []string{},
		CoarseWindows: []ListwiseWindow{}, FineWindows: []ListwiseWindow{},
	}
	if c.embed != nil {
		trace.Similarity = "embedding"
	}
	trace.FineDepth = min(c.fineDepth, len(ru.head))
	trace.CoarseWindow = min(ru.coarseSize(), len(ru.head))

	feats, err := ru.features(ctx, &trace)
	if err != nil {
		return Result{}, wrap(err)
	}
	chosen, err := ru.choose(ctx, feats)
	if err != nil {
		return Result{}, wrap(err)
	}
	compact := make([]PromptDoc, len(ru.head))
	for i, d := range ru.docs {
		compact[i] = PromptDoc{ID: d.ID, Title: flatten(d.Title), Text: compactText(feats[i], chosen[i], d)}
		trace.Rows[i] = CoRankRow{
			DocID: d.ID, Title: flatten(d.Title), FirstStageRank: i + 1, Features: trace.Rows[i].Features,
			Keywords: chosen[i].keywords, Sections: chosen[i].sections, Queries: chosen[i].queries, Compact: compact[i].Text,
		}
	}

	coarse, err := ru.listwise(ctx, identity(len(ru.head)), compact, "coarse", ru.coarseSize(), ru.coarseStride(), &trace.CoarseWindows, &trace.Failures)
	if err != nil {
		return Result{}, wrap(err)
	}
	fineDocs := make([]PromptDoc, len(ru.head))
	for _, i := range coarse[:trace.FineDepth] {
		d := ru.docs[i]
		fineDocs[i] = PromptDoc{ID: d.ID, Title: flatten(d.Title), Text: fineText(d, in.Passages[d.ID], c.fineChars)}
	}
	fine, err := ru.listwise(ctx, coarse[:trace.FineDepth], fineDocs, "fine", ru.windowSize, ru.windowStride, &trace.FineWindows, &trace.Failures)
	if err != nil {
		return Result{}, wrap(err)
	}
	order := append(slices.Clone(fine), coarse[trace.FineDepth:]...)
	for k, i := range coarse {
		trace.Rows[i].CoarseRank = k + 1
		trace.Coarse = append(trace.Coarse, ru.head[i].ID)
	}
	for k, i := range order {
		trace.Rows[i].Rank = k + 1
	}
	for _, i := range fine {
		trace.Fine = append(trace.Fine, ru.head[i].ID)
	}
	ranking, err := SelectionRun(in.Candidates, order)
	if err != nil {
		return Result{}, wrap(err)
	}
	return Result{Method: MethodCoRank, Ranking: ranking, Trace: trace, Usage: ru.usage}, nil
}

// plan adds n calls to the planned total.
func (ru *coRankRun) plan(n int) {
	ru.mu.Lock()
	ru.total += n
	ru.mu.Unlock()
}

// count records one model response and reports progress.
func (ru *coRankRun) count(resp pipeline.ModelResponse) {
	ru.mu.Lock()
	defer ru.mu.Unlock()
	ru.usage.Add(resp)
	ru.done++
	ru.total = max(ru.total, ru.done)
	if ru.in.Progress != nil {
		ru.in.Progress(ru.done, ru.total)
	}
}

// features returns every head document's features, from the store when
// current, else extracted and stored; it fills the trace's counts and each
// row's Features source.
func (ru *coRankRun) features(ctx context.Context, trace *CoRankTrace) ([]DocFeatures, error) {
	ids := make([]string, len(ru.head))
	for i, cand := range ru.head {
		ids[i] = cand.ID
	}
	stored, err := ru.store.GetFeatures(ctx, ru.ns, ids)
	if err != nil {
		return nil, fmt.Errorf("load features: %w", err)
	}
	feats := make([]DocFeatures, len(ru.head))
	var missing []int
	for i, d := range ru.docs {
		if r, ok := stored[d.ID]; ok && r.Hash == FeatureHash(d) {
			feats[i] = r.Features
			trace.Rows[i].Features = FeaturesStored
			trace.FeaturesStored++
			continue
		}
		missing = append(missing, i)
	}
	windows := func(n, size, stride int) int {
		ws, _ := SlidingWindows(n, size, stride)
		k := 0
		for _, w := range ws {
			if w.Len() > 1 {
				k++
			}
		}
		return k
	}
	ru.plan(len(missing) + windows(len(ru.head), ru.coarseSize(), ru.coarseStride()) + windows(trace.FineDepth, ru.windowSize, ru.windowStride))
	results := make([]Extraction, len(missing))
	errs := make([]error, len(missing))
	err = pipeline.ForEach(ctx, len(missing), ru.concurrency, func(ctx context.Context, k int) error {
		i := missing[k]
		x, err := ExtractFeatures(ctx, ru.model, ru.docs[i], ru.featureChars)
		if err != nil && !errors.Is(err, pipeline.ErrInvalid) {
			return fmt.Errorf("extract features of document %q: %w", ru.docs[i].ID, err)
		}
		ru.count(x.Response)
		results[k], errs[k] = x, err
		return nil
	})
	if err != nil {
		return nil, err
	}
	var put []FeatureRecord
	for k, i := range missing {
		if errs[k] != nil {
			trace.Rows[i].Features = FeaturesFailed
			trace.FeaturesFailed++
			trace.Failures = append(trace.Failures, failure(fmt.Sprintf("features of %s", ru.docs[i].ID), results[k].Response.Text, errs[k]))
			continue
		}
		feats[i] = results[k].Record.Features
		trace.Rows[i].Features = FeaturesExtracted
		trace.FeaturesExtracted++
		put = append(put, results[k].Record)
	}
	if len(put) > 0 {
		if err := ru.store.PutFeatures(ctx, ru.ns, put); err != nil {
			return nil, fmt.Errorf("store features: %w", err)
		}
	}
	return feats, nil
}

// chosenItems are the feature items a compact representation shows.
type chosenItems struct {
	keywords, sections, queries []string
}

// choose picks, for every document, the Keywords keywords, Sections
// headings and Queries pseudo-queries most similar to the request (its
// title and problem statement): by cosine similarity of embeddings when
// the reranker has an Embedder, else lexically (itemScores). Ties, and
// items with no similarity at all, keep the features' own order (the
// most important keywords first, headings in document order), so a
// document that shares nothing with the request still shows its leading
// items.
func (ru *coRankRun) choose(ctx context.Context, feats []DocFeatures) ([]chosenItems, error) {
	query := requestQuery(RequestInfo(ru.in.Request))
	kinds := []func(f DocFeatures) []string{
		func(f DocFeatures) []string { return f.Keywords },
		func(f DocFeatures) []string { return f.Headings },
		func(f DocFeatures) []string { return f.Queries },
	}
	counts := []int{ru.keywords, ru.sections, ru.queries}
	out := make([]chosenItems, len(feats))
	var sim func(kind int) ([][]float64, error)
	if ru.embed != nil {
		vecs, err := ru.embedAll(ctx, query, feats)
		if err != nil {
			return nil, err
		}
		sim = func(kind int) ([][]float64, error) {
			scores := make([][]float64, len(feats))
			for i, f := range feats {
				items := kinds[kind](f)
				scores[i] = make([]float64, len(items))
				for k, it := range items {
					scores[i][k] = Cosine(vecs[query], vecs[it])
				}
			}
			return scores, nil
		}
	} else {
		q := ru.terms(query)
		sim = func(kind int) ([][]float64, error) {
			pool := make([][]string, len(feats))
			for i, f := range feats {
				pool[i] = kinds[kind](f)
			}
			return itemScores(q, pool, ru.terms), nil
		}
	}
	for kind := range kinds {
		scores, err := sim(kind)
		if err != nil {
			return nil, err
		}
		for i, f := range feats {
			picked := topItems(kinds[kind](f), scores[i], counts[kind])
			switch kind {
			case 0:
				out[i].keywords = picked
			case 1:
				out[i].sections = picked
			default:
				out[i].queries = picked
			}
		}
	}
	return out, nil
}

// embedAll embeds the query and every distinct feature item, in batches
// of embedBatch texts run with the reranker's concurrency.
func (ru *coRankRun) embedAll(ctx context.Context, query string, feats []DocFeatures) (map[string][]float32, error) {
	texts := []string{query}
	seen := map[string]bool{query: true}
	for _, f := range feats {
		for _, list := range [][]string{f.Keywords, f.Headings, f.Queries} {
			for _, it := range list {
				if !seen[it] {
					seen[it] = true
					texts = append(texts, it)
				}
			}
		}
	}
	vecs := make([][]float32, len(texts))
	batches := (len(texts) + embedBatch - 1) / embedBatch
	err := pipeline.ForEach(ctx, batches, ru.concurrency, func(ctx context.Context, b int) error {
		lo, hi := b*embedBatch, min((b+1)*embedBatch, len(texts))
		got, err := ru.embed.Embed(ctx, texts[lo:hi])
		if err != nil {
			return fmt.Errorf("embed feature items: %w", err)
		}
		if len(got) != hi-lo {
			return fmt.Errorf("embed feature items: %d vectors for %d texts", len(got), hi-lo)
		}
		copy(vecs[lo:hi], got)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][]float32, len(texts))
	for i, t := range texts {
		if len(vecs[i]) != len(vecs[0]) {
			return nil, fmt.Errorf("embed feature items: vector of %d dimensions for %q, want %d", len(vecs[i]), snippet(t), len(vecs[0]))
		}
		out[t] = vecs[i]
	}
	return out, nil
}

// Cosine is the cosine similarity of two vectors of one dimension; 0 when
// either is zero.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// itemScores scores every item of every document (pool[i] holds document
// i's items of one kind) against the query terms q by BM25 with the pool's
// items as the collection: for each distinct query term t in an item,
// idf(t)·tf·(k1 + 1)/(tf + k1·(1 − b + b·len/avglen)) with k1 = 1.2,
// b = 0.75, idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)), N the number of
// items in the pool and df those holding t, len an item's term count and
// avglen the mean. A term the candidates' items rarely use weighs more
// than one every document lists.
func itemScores(q []string, pool [][]string, terms func(string) []string) [][]float64 {
	qset := map[string]bool{}
	for _, t := range q {
		qset[t] = true
	}
	type item struct {
		tf  map[string]int
		len int
	}
	items := make([][]item, len(pool))
	df := map[string]int{}
	n, total := 0, 0
	for i, list := range pool {
		items[i] = make([]item, len(list))
		for k, text := range list {
			ts := terms(text)
			it := item{tf: map[string]int{}, len: len(ts)}
			for _, t := range ts {
				if qset[t] {
					if it.tf[t] == 0 {
						df[t]++
					}
					it.tf[t]++
				}
			}
			items[i][k] = it
			n++
			total += len(ts)
		}
	}
	scores := make([][]float64, len(pool))
	avg := math.Max(1, float64(total)/math.Max(1, float64(n)))
	for i := range pool {
		scores[i] = make([]float64, len(items[i]))
		for k, it := range items[i] {
			norm := 1 - coRankB + coRankB*float64(it.len)/avg
			for t, tf := range it.tf {
				idf := math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
				f := float64(tf)
				scores[i][k] += idf * f * (coRankK1 + 1) / (f + coRankK1*norm)
			}
		}
	}
	return scores
}

// topItems returns the k items with the highest scores, in descending
// score order, ties in the items' own order.
func topItems(items []string, scores []float64, k int) []string {
	order := identity(len(items))
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := []string{}
	for _, i := range order[:min(k, len(order))] {
		out = append(out, items[i])
	}
	return out
}

// compactText is a document as the coarse ranking shows it, one labelled
// line each, empty lines left out:
//
//	Topic: <topical title, else the document's title>
//	Category: <broad> > <middle> > <narrow>
//	Keywords: <k1>; <k2>; ...
//	Section: <heading>
//	Query: <pseudo-query>
//
// A document whose features are empty (failed) shows its title and the
// opening of its text (fallbackOpening characters) instead.
func compactText(f DocFeatures, c chosenItems, d pipeline.Document) string {
	if f.Empty() {
		text, cut := cutText(flatten(strings.ToValidUTF8(d.Text, "\uFFFD")), fallbackOpening)
		if cut {
			text += " …"
		}
		return "Opening: " + text
	}
	var lines []string
	add := func(label string, values []string, sep string) {
		var vs []string
		for _, v := range values {
			if v = flatten(v); v != "" {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			lines = append(lines, label+": "+strings.Join(vs, sep))
		}
	}
	title := f.Title
	if title == "" {
		title = d.Title
	}
	add("Topic", []string{title}, "")
	add("Category", f.Category, " > ")
	add("Keywords", c.keywords, "; ")
	add("Section", c.sections, " | ")
	add("Query", c.queries, " | ")
	return strings.Join(lines, "\n")
}

// fineText is a document as the fine ranking shows it: its text from the
// start, cut at a word boundary to budget characters. When the text is
// longer than the budget and the request's best first-stage passage
// (Input.Passages) lies beyond the part shown, the passage (at most half
// the budget) follows the opening after " … ", so the model sees both how
// the document begins and where it meets the request.
func fineText(d pipeline.Document, passage string, budget int) string {
	text := strings.TrimSpace(strings.ToValidUTF8(d.Text, "\uFFFD"))
	head, cut := cutText(text, budget)
	if !cut {
		return head
	}
	p := flatten(strings.ToValidUTF8(passage, "\uFFFD"))
	if p == "" || strings.Contains(flatten(head), p) {
		return head + " …"
	}
	p, pcut := cutText(p, budget/2)
	if pcut {
		p += " …"
	}
	open, _ := cutText(text, max(budget-utf8.RuneCountInString(p)-3, 1))
	return open + " … " + p
}

// listwise runs one bottom-up sliding-window pass over the head positions
// in items, each window shown as docs[position], and returns the new
// order. Windows of one document are kept without a call.
func (ru *coRankRun) listwise(ctx context.Context, items []int, docs []PromptDoc, stage string, size, stride int, windows *[]ListwiseWindow, failures *[]ParseFailure) ([]int, error) {
	req := RequestInfo(ru.in.Request)
	return SlidingRerank(items, size, stride, func(w Window, window []int) ([]int, error) {
		if len(window) < 2 {
			return identity(len(window)), nil
		}
		shown := make([]PromptDoc, len(window))
		before := make([]string, len(window))
		for k, i := range window {
			shown[k] = docs[i]
			before[k] = ru.head[i].ID
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		resp, err := ru.model.Complete(ctx, BuildListwise(ListwiseInput{Request: req, Docs: shown}))
		if err != nil {
			return nil, fmt.Errorf("%s ranking of documents %s: %w", stage, idRange(before), err)
		}
		ru.count(resp)
		parsed, perr := ParseListwise(resp.Text, len(window))
		if perr != nil {
			*failures = append(*failures, failure(fmt.Sprintf("%s window [%d,%d)", stage, w.Start, w.End), resp.Text, perr))
		}
		after := make([]string, len(window))
		for k, p := range parsed.Order {
			after[k] = before[p]
		}
		*windows = append(*windows, ListwiseWindow{
			Start: w.Start, End: w.End, Before: before, After: after, Ranked: parsed.Ranked, Complete: parsed.Complete(),
		})
		return parsed.Order, nil
	})
}

// coarseSize is the coarse ranking's window size: every candidate at once
// unless CoarseWindow sets one.
func (c *CoRank) coarseSize() int {
	if c.coarseWindow >= 2 {
		return c.coarseWindow
	}
	return max(c.depth, 2)
}

// coarseStride is the coarse windows' stride: half the window, or the
// whole of it when one prompt shows every candidate.
func (c *CoRank) coarseStride() int {
	if c.coarseWindow >= 2 {
		return max(c.coarseWindow/2, 1)
	}
	return c.coarseSize()
}

// simpleStop are the English function words SimpleTerms leaves out.
var simpleStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be but by for from has have he her his i in is it its of on or our " +
		"she that the their them there these they this those to was we were what when where which who whom why will with " +
		"would you your how do does did not no can could should may might about into than then so such") {
		m[w] = true
	}
	return m
}()

// SimpleTerms is the lexical analysis CoRank falls back on when it is
// given none: the lower-cased runs of letters and digits, without English
// function words, a final "s" dropped from words of four letters or more
// ("tariffs" matches "tariff"). The index's analyzer (stemming, its own
// stop list) is better; the command line and the portal pass it.
func SimpleTerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if simpleStop[w] {
			continue
		}
		if utf8.RuneCountInString(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}
