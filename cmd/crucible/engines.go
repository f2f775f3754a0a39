package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// modelFlags configure the OpenAI-compatible endpoint.
type modelFlags struct {
	url         string
	key         string
	model       string
	timeout     time.Duration
	concurrency int
	retries     int
	// embedModel names an embedding model at the same endpoint, for
	// CoRank's feature choice and the paraphrase prefilter.
	embedModel string
	// prices are what the endpoint charges per million tokens, for
	// estimates and jobs' usage in money.
	prices pipeline.Prices
}

func (m *modelFlags) register(fs *flag.FlagSet, env envFunc) {
	fs.StringVar(&m.url, "model-url", env.get("OPENAI_BASE_URL", ""), "base `URL` of an OpenAI-compatible endpoint (env OPENAI_BASE_URL); empty: offline engine only")
	fs.StringVar(&m.key, "model-key", env.get("OPENAI_API_KEY", ""), "API key of the endpoint (env OPENAI_API_KEY)")
	fs.StringVar(&m.model, "model", env.get("CRUCIBLE_MODEL", ""), "model `name` at the endpoint (env CRUCIBLE_MODEL)")
	fs.DurationVar(&m.timeout, "model-timeout", envDuration(env, "CRUCIBLE_MODEL_TIMEOUT", llm.DefaultTimeout), "timeout of one model call (env CRUCIBLE_MODEL_TIMEOUT)")
	fs.IntVar(&m.concurrency, "model-concurrency", envInt(env, "CRUCIBLE_MODEL_CONCURRENCY", llm.DefaultMaxConcurrent), "model calls in flight at most (env CRUCIBLE_MODEL_CONCURRENCY)")
	fs.IntVar(&m.retries, "model-retries", llm.DefaultMaxRetries, "retries of a failed model call")
	fs.StringVar(&m.embedModel, "embed-model", env.get("CRUCIBLE_EMBED_MODEL", ""), "embedding model `name` at the endpoint (env CRUCIBLE_EMBED_MODEL): CoRank chooses feature items and merging chooses paraphrase pairs by embedding similarity, embeddings cached in SQLite; empty: lexical similarity")
	fs.Float64Var(&m.prices.PromptPerMillion, "price-prompt", envFloat(env, "CRUCIBLE_PRICE_PROMPT", 0), "what the endpoint charges per million prompt tokens (env CRUCIBLE_PRICE_PROMPT): estimates and jobs' usage are shown in money too")
	fs.Float64Var(&m.prices.CompletionPerMillion, "price-completion", envFloat(env, "CRUCIBLE_PRICE_COMPLETION", 0), "what the endpoint charges per million completion tokens (env CRUCIBLE_PRICE_COMPLETION)")
	fs.StringVar(&m.prices.Currency, "price-currency", env.get("CRUCIBLE_PRICE_CURRENCY", "USD"), "the currency of --price-prompt and --price-completion (env CRUCIBLE_PRICE_CURRENCY)")
}

func envDuration(env envFunc, key string, def time.Duration) time.Duration {
	if v := env.get(key, ""); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

func envInt(env envFunc, key string, def int) int {
	if v := env.get(key, ""); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// indexAnalyzer gives the offline engine the index's analysis and its
// collection statistics (offline.CollectionStats).
type indexAnalyzer struct{ ix *index.Index }

func (a indexAnalyzer) Terms(text string) []string            { return a.ix.Terms(text) }
func (a indexAnalyzer) Sentences(text string) []pipeline.Span { return index.Sentences(text) }

// newAnalysisCache returns a cache of the index's analysis of texts (terms,
// term sets, sentence spans), bounded by analysis.DefaultMaxBytes.
func newAnalysisCache(ix *index.Index) *analysis.Cache {
	return analysis.New(ix.Terms, index.Sentences, analysis.Options{})
}

// cachedAnalyzer is indexAnalyzer with terms and sentences from a cache of
// analysed texts shared with the report pipeline.
type cachedAnalyzer struct {
	indexAnalyzer
	texts *analysis.Cache
}

func (a cachedAnalyzer) Terms(text string) []string            { return a.texts.Terms(text) }
func (a cachedAnalyzer) Sentences(text string) []pipeline.Span { return a.texts.Sentences(text) }

// TermStats returns the index's passage statistics of terms
// (offline.CollectionStats), false when the index is empty or cannot be
// read.
func (a indexAnalyzer) TermStats(terms []string) (offline.TermStats, bool) {
	c, _ := statsCaches.LoadOrStore(a.ix, &statsCache{})
	return c.(*statsCache).get(a.ix, terms)
}

// docFreq gives the report pipeline the index's passage statistics
// (crucible.DocFreq), through the same cache as the offline engine.
func (a *app) docFreq(_ context.Context, terms []string) (int, map[string]int, error) {
	st, ok := indexAnalyzer{a.index}.TermStats(terms)
	if !ok {
		return 0, nil, nil
	}
	return st.Units, st.DocFreq, nil
}

// statsCaches holds a statsCache per open index (*index.Index).
var statsCaches sync.Map

// statsCache keeps the document frequencies the offline engine asked for:
// a reranking asks for the same few request terms thousands of times. It
// is dropped whenever the index's passage count changes (documents were
// added or removed), so the statistics follow the collection. Safe for
// concurrent use.
type statsCache struct {
	mu        sync.Mutex
	passages  int
	avgLength float64
	df        map[string]int
}

// statsCacheLimit bounds the cached terms; past it the cache starts over.
const statsCacheLimit = 1 << 16

func (c *statsCache) get(ix *index.Index, terms []string) (offline.TermStats, bool) {
	n, err := ix.Count()
	if err != nil || n == 0 {
		return offline.TermStats{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.df == nil || c.passages != n || len(c.df) > statsCacheLimit {
		c.df, c.passages, c.avgLength = map[string]int{}, 0, 0
	}
	var missing []string
	for _, t := range terms {
		if _, ok := c.df[t]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 || c.passages == 0 {
		st, err := ix.TermStats(context.Background(), missing)
		if err != nil || st.Passages == 0 {
			return offline.TermStats{}, false
		}
		for t, df := range st.DocFreq {
			c.df[t] = df
		}
		c.passages, c.avgLength = st.Passages, st.AvgLength
	}
	out := offline.TermStats{Units: c.passages, AvgLength: c.avgLength, DocFreq: make(map[string]int, len(terms))}
	for _, t := range terms {
		out.DocFreq[t] = c.df[t]
	}
	return out, true
}

// engines builds the report engines this configuration offers: the offline
// engine always, and the OpenAI-compatible endpoint when one is set (then
// it comes first, as the default). Every model call goes through the
// SQLite cache.
func (a *app) engines(m modelFlags, logger *slog.Logger) ([]jobs.Engine, error) {
	// One cache of analysed texts for every report of the process, read
	// by the pipeline (scanning, the evidence feature) and the offline
	// engine alike: each passage is analysed once.
	texts := newAnalysisCache(a.index)
	// The offline engine answers the dry runs of every engine
	// (crucible.Engine.Estimate), through its cache.
	offlineModel := llm.Cached{
		Next: offline.New(cachedAnalyzer{indexAnalyzer{a.index}, texts}), Store: a.db, Namespace: offline.Version,
	}
	standInReranker := a.rerankerFor(offlineModel, offlineSpec, texts.Terms)
	pipelineFor := func(model pipeline.Model, label string, sp engineSpec, facts pipeline.EngineFacts) *crucible.Engine {
		return &crucible.Engine{
			StandIn: offlineModel, StandInReranker: standInReranker, Offline: facts.Offline,
			Provenance: a.provenance(facts),
			Defaults:   sp.defaults, ScanLimit: sp.scanLimit, Embedder: sp.embedder,
			Searcher: a.searcher(), Store: a.db, Model: model,
			Terms: texts.Terms, TermSet: texts.TermSet, SentenceKey: a.index.SentenceKey, Sentences: texts.Sentences, Name: label,
			DocFreq:     a.docFreq,
			PairFreq:    a.index.PairFreq,
			NewReranker: a.rerankerFor(model, sp, texts.Terms),
			Ranker:      a.db.ActiveRanker,
		}
	}
	off := jobs.Engine{
		Info:     pipeline.EngineInfo{ID: "offline", Label: export.OfflineLabel, Offline: true, Defaults: crucible.OfflineHeuristics},
		Pipeline: pipelineFor(offlineModel, export.OfflineLabel, offlineSpec, offlineFacts()),
	}
	if m.url == "" {
		if m.embedModel != "" {
			return nil, fmt.Errorf("%w: --embed-model needs --model-url: the embeddings come from the model endpoint", errUsage)
		}
		return []jobs.Engine{off}, nil
	}
	client, err := m.client(logger)
	if err != nil {
		return nil, err
	}
	var sp engineSpec
	facts := client.Facts()
	facts.ID, facts.EmbeddingModel = "openai", m.embedModel
	if m.embedModel != "" {
		ec, err := m.withModel(m.embedModel).client(logger)
		if err != nil {
			return nil, err
		}
		sp.embedder = llm.CachedEmbedder{Next: ec, Store: a.db, Namespace: "embed/" + m.embedModel}
	}
	remote := jobs.Engine{
		Info:     pipeline.EngineInfo{ID: "openai", Label: client.Name(), Prices: m.prices},
		Pipeline: pipelineFor(llm.Cached{Next: client, Store: a.db, Namespace: client.Name()}, client.Name(), sp, facts),
		Check:    client.Check,
	}
	return []jobs.Engine{remote, off}, nil
}

// engineSpec is what differs between the engines beyond the model: the
// rules of pipeline.Heuristics and the scan limit (crucible.Engine), CoRank's
// coarse window, and the embedder. The zero value is a model's: the papers'
// method, no embeddings.
type engineSpec struct {
	defaults     pipeline.Heuristics
	scanLimit    int
	coarseWindow int
	embedder     rerank.Embedder
}

// offlineSpec is the offline engine's, each part measured
// (docs/pipeline.md, docs/benchmarks.md §7).
var offlineSpec = engineSpec{defaults: crucible.OfflineHeuristics, scanLimit: crucible.OfflineScanLimit,
	coarseWindow: rerank.OfflineCoarseWindow}

// withModel returns the flags naming another model at the same endpoint.
func (m modelFlags) withModel(name string) modelFlags {
	m.model = name
	return m
}

// rerankerFor returns the reranker factory of an engine whose (cached)
// model is engineModel: every method of pipeline/rerank with its defaults,
// CoRank keeping document features in SQLite under the engine's cache
// namespace, with the engine's coarse window and embedder, analysing texts
// with terms (the process's cache of analysed texts). The run passes its
// own metered model on to the reranker.
func (a *app) rerankerFor(engineModel pipeline.Model, sp engineSpec, terms func(string) []string) func(method string, model pipeline.Model) (rerank.Reranker, error) {
	ns := ""
	if cm, ok := engineModel.(llm.Cached); ok {
		ns = cm.Namespace
	}
	return func(method string, model pipeline.Model) (rerank.Reranker, error) {
		o := rerank.Options{}
		if ns != "" {
			o.CoRank = rerank.CoRankConfig{Store: a.db, Namespace: ns, Terms: terms,
				CoarseWindow: sp.coarseWindow, Embedder: sp.embedder}
		}
		return rerank.New(method, model, o)
	}
}

// client builds the OpenAI-compatible client the flags describe; the
// caller checks m.url first.
func (m modelFlags) client(logger *slog.Logger) (*llm.OpenAI, error) {
	if m.model == "" {
		return nil, fmt.Errorf("%w: --model-url is set but no --model (or CRUCIBLE_MODEL) names the model to use", errUsage)
	}
	return llm.NewOpenAI(llm.Config{
		BaseURL: m.url, APIKey: m.key, Model: m.model, Timeout: m.timeout,
		MaxConcurrent: m.concurrency, MaxRetries: m.retries, Logger: logger,
	})
}

// openEngine opens the data folder (building its index when the index is
// empty) and returns it with the report engine the id names; the caller
// closes the app.
func openEngine(ctx context.Context, c commonFlags, m modelFlags, engineID string, logger *slog.Logger, stderr io.Writer) (*app, jobs.Engine, error) {
	a, err := openApp(ctx, c)
	if err != nil {
		return nil, jobs.Engine{}, err
	}
	if err := a.ensureIndex(ctx, stderr); err != nil {
		a.Close()
		return nil, jobs.Engine{}, err
	}
	all, err := a.engines(m, logger)
	if err == nil {
		var eng jobs.Engine
		if eng, err = pickEngine(all, engineID); err == nil {
			return a, eng, nil
		}
	}
	a.Close()
	return nil, jobs.Engine{}, err
}

// pickEngine returns the engine with the id.
func pickEngine(all []jobs.Engine, id string) (jobs.Engine, error) {
	var ids []string
	for _, e := range all {
		if e.Info.ID == id {
			return e, nil
		}
		ids = append(ids, e.Info.ID)
	}
	if id == "openai" {
		return jobs.Engine{}, fmt.Errorf("%w: --engine openai needs --model-url and --model (or OPENAI_BASE_URL and CRUCIBLE_MODEL)", errUsage)
	}
	return jobs.Engine{}, fmt.Errorf("%w: unknown engine %q (available: %v)", errUsage, id, ids)
}
