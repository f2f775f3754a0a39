// Package metrics keeps Crucible's operations metrics with the Prometheus
// client library and serves them in the Prometheus text format
// (docs/operations.md lists them).
//
// A Metrics is the adapter of the domain's observers: it implements
// pipeline.ModelObserver (the model cache reports every call to it),
// pipeline.JobObserver (the job runner) and pipeline.IngestObserver (the
// corpus uploads); Searcher times a pipeline.Searcher; ObserveRequest
// records the portal's HTTP requests (the web package's middleware calls
// it). The job counts and the collection's size are read at each scrape.
//
// Every Metrics has its own registry, never the client library's global
// one, so tests and several servers in one process do not share counts.
// Labels are made only of values from code — engine ids, task kinds,
// stage names, states, route templates — never of user input or raw
// URLs, so the number of series stays small.
package metrics

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/crucible-portal/crucible/pipeline"
)

// namespace prefixes every metric of Crucible's own.
const namespace = "crucible"

// Label values standing in for an empty or unknown value.
const (
	// NoStage labels model calls made outside a report job's stages
	// (authoring, evaluation).
	NoStage = "none"
	// UnmatchedRoute labels requests no route matched (404s).
	UnmatchedRoute = "unmatched"
	// OtherMethod labels requests of an HTTP method the portal does not
	// use.
	OtherMethod = "other"
)

// Search sources, the source label of the search metrics.
const (
	// SourcePortal is the portal's search page.
	SourcePortal = "portal"
	// SourceReport is the retrieval of report jobs and authoring.
	SourceReport = "report"
)

// DefaultScrapeTimeout bounds the reads a scrape makes (job counts,
// collection statistics, the index's size on disk).
const DefaultScrapeTimeout = 5 * time.Second

// DefaultStatsInterval is how long the collection's size, once read, is
// reported again without reading it: the store's Stats sums the length of
// every document, and the collection changes only with ingests.
const DefaultStatsInterval = time.Minute

// Options says where a scrape reads the values it does not keep itself.
// Every field is optional: a metric whose source is not given is left
// out.
type Options struct {
	// Version is the build's version, reported by crucible_build_info.
	Version string
	// JobCounts counts report jobs by state (the SQLite store's
	// JobCounts), for crucible_jobs.
	JobCounts func(ctx context.Context) (map[pipeline.JobState]int, error)
	// Stats reads the collection's size (the store's Stats), for
	// crucible_index_documents, _passages and _characters.
	Stats func(ctx context.Context) (pipeline.CollectionStats, error)
	// IndexDir is the index folder, whose size on disk is
	// crucible_index_size_bytes.
	IndexDir string
	// ScrapeTimeout bounds those reads; zero means DefaultScrapeTimeout.
	ScrapeTimeout time.Duration
	// StatsInterval is how long a read of Stats serves scrapes; zero
	// means DefaultStatsInterval, negative reads it at every scrape.
	StatsInterval time.Duration
}

// Metrics holds the collectors. It is safe for concurrent use; the zero
// value is not usable: call New.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec

	modelCalls    *prometheus.CounterVec
	modelHits     *prometheus.CounterVec
	modelErrors   *prometheus.CounterVec
	modelRetries  *prometheus.CounterVec
	modelTokens   *prometheus.CounterVec
	modelDuration *prometheus.HistogramVec

	jobsStarted   *prometheus.CounterVec
	jobsRunning   *prometheus.GaugeVec
	jobsFinished  *prometheus.CounterVec
	jobDuration   *prometheus.HistogramVec
	stageDuration *prometheus.HistogramVec

	searches       *prometheus.CounterVec
	searchDuration *prometheus.HistogramVec

	uploadsReceived prometheus.Counter
	uploadBytes     prometheus.Counter
	ingests         *prometheus.CounterVec
	ingestedDocs    *prometheus.CounterVec
	ingestedPassage *prometheus.CounterVec

	scrapeErrors *prometheus.CounterVec
}

// Bucket bounds, in seconds, of the histograms.
var (
	// httpBuckets: pages take milliseconds; event streams stay open for
	// minutes and land in +Inf.
	httpBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	// modelBuckets: the offline engine answers in microseconds to
	// milliseconds, an endpoint in seconds to minutes.
	modelBuckets = []float64{.0005, .001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	// jobBuckets: stages and whole jobs, from a cached re-run to an
	// hour with a slow endpoint.
	jobBuckets = []float64{.01, .05, .1, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
	// searchBuckets: BM25 top-k over the index.
	searchBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
)

// New makes the collectors and registers them, with the Go runtime and
// process collectors, in a registry of their own.
func New(opts Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
		m.reg.MustRegister(h)
		return h
	}

	m.httpRequests = counter("http_requests_total",
		"HTTP requests answered by the portal, by method, route template and status.", "method", "route", "status")
	m.httpDuration = histogram("http_request_duration_seconds",
		"Time to answer an HTTP request, by method and route template.", httpBuckets, "method", "route")

	m.modelCalls = counter("model_calls_total",
		"Model calls through the cache (hits, answers and failures), by engine, pipeline stage and task.", "engine", "stage", "task")
	m.modelHits = counter("model_cache_hits_total",
		"Model calls answered from the cache, by engine, stage and task.", "engine", "stage", "task")
	m.modelErrors = counter("model_errors_total",
		"Model calls that failed (after their retries; cancellations not counted), by engine, stage and task.", "engine", "stage", "task")
	m.modelRetries = counter("model_retries_total",
		"Attempts of model calls the endpoint client repeated (429, 5xx, timeouts, network errors), by engine, stage and task.", "engine", "stage", "task")
	m.modelTokens = counter("model_tokens_total",
		"Tokens of the model calls the engine answered (cache hits not counted), by engine, stage and kind (prompt, completion).", "engine", "stage", "kind")
	m.modelDuration = histogram("model_call_duration_seconds",
		"Time of the model calls the engine answered or failed (not cache hits), retries included, by engine and task.", modelBuckets, "engine", "task")

	m.jobsStarted = counter("jobs_started_total", "Report jobs this process started running (resumed ones again), by engine.", "engine")
	m.jobsRunning = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "jobs_running",
		Help: "Report jobs this process is running, by engine."}, []string{"engine"})
	m.reg.MustRegister(m.jobsRunning)
	m.jobsFinished = counter("jobs_finished_total", "Report jobs that ended in this process, by engine and final state.", "engine", "state")
	m.jobDuration = histogram("job_duration_seconds",
		"Wall time of the report jobs that ended, by engine and final state.", jobBuckets, "engine", "state")
	m.stageDuration = histogram("job_stage_duration_seconds",
		"Wall time of the pipeline stages report jobs completed, by engine and stage.", jobBuckets, "engine", "stage")

	m.searches = counter("searches_total",
		"Searches, by source (portal, report), mode (passages, documents) and outcome (ok, invalid, error).", "source", "mode", "outcome")
	m.searchDuration = histogram("search_duration_seconds",
		"Time of searches, by source and mode.", searchBuckets, "source", "mode")

	m.uploadsReceived = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "uploads_received_total",
		Help: "Corpus uploads received from administrators."})
	m.uploadBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "upload_bytes_total",
		Help: "Bytes of the files of the corpus uploads received."})
	m.reg.MustRegister(m.uploadsReceived, m.uploadBytes)
	m.ingests = counter("ingests_total", "Ingests into the collection that ended, by source (upload, seed) and state (done, failed, cancelled).", "source", "state")
	m.ingestedDocs = counter("ingested_documents_total",
		"Documents ingests read, by source and result (added, replaced, unchanged, skipped).", "source", "result")
	m.ingestedPassage = counter("ingested_passages_total", "Passages ingests stored, by source.", "source")

	m.scrapeErrors = counter("scrape_errors_total",
		"Reads a scrape could not make (jobs, stats, index_size); their metrics were left out of that scrape.", "read")

	version := opts.Version
	if version == "" {
		version = "dev"
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "build_info",
		Help: "Always 1; the version label names the build.", ConstLabels: prometheus.Labels{"version": version}})
	info.Set(1)
	m.reg.MustRegister(info,
		&stateCollector{opts: opts, errors: m.scrapeErrors},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// Handler serves the registry's metrics in the Prometheus text format. A
// metric that cannot be gathered is left out rather than failing the
// scrape.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Registry: m.reg})
}

// Registry is the registry the metrics are kept in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest records one answered HTTP request: route is the route
// template it matched ("/jobs/:id"; "" when none did), status the status
// sent.
func (m *Metrics) ObserveRequest(method, route string, status int, elapsed time.Duration) {
	method = methodLabel(method)
	if route == "" {
		route = UnmatchedRoute
	}
	m.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(method, route).Observe(elapsed.Seconds())
}

// methodLabel keeps the methods the portal answers and folds the rest,
// which clients may make up, into OtherMethod.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return OtherMethod
}

// ModelCall implements pipeline.ModelObserver.
func (m *Metrics) ModelCall(c pipeline.ModelCall) {
	stage := c.Stage
	if stage == "" {
		stage = NoStage
	}
	engine, task := nonEmpty(c.Engine), nonEmpty(string(c.Task))
	m.modelCalls.WithLabelValues(engine, stage, task).Inc()
	if c.Retries > 0 {
		m.modelRetries.WithLabelValues(engine, stage, task).Add(float64(c.Retries))
	}
	switch {
	case c.Cached:
		m.modelHits.WithLabelValues(engine, stage, task).Inc()
		return
	case c.Err != nil && cancelled(c.Err):
		return
	case c.Err != nil:
		m.modelErrors.WithLabelValues(engine, stage, task).Inc()
	default:
		m.modelTokens.WithLabelValues(engine, stage, "prompt").Add(float64(c.PromptTokens))
		m.modelTokens.WithLabelValues(engine, stage, "completion").Add(float64(c.CompletionTokens))
	}
	m.modelDuration.WithLabelValues(engine, task).Observe(c.Elapsed.Seconds())
}

// cancelled reports whether a call failed because its caller gave up (a
// cancelled job, a shutdown) rather than because the model did.
func cancelled(err error) bool {
	return !errors.Is(err, pipeline.ErrModel) &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// nonEmpty is s, or "unknown" for an empty label value.
func nonEmpty(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// JobStarted implements pipeline.JobObserver.
func (m *Metrics) JobStarted(engine string) {
	engine = nonEmpty(engine)
	m.jobsStarted.WithLabelValues(engine).Inc()
	m.jobsRunning.WithLabelValues(engine).Inc()
}

// StageDone implements pipeline.JobObserver.
func (m *Metrics) StageDone(engine, stage string, elapsed time.Duration) {
	m.stageDuration.WithLabelValues(nonEmpty(engine), nonEmpty(stage)).Observe(elapsed.Seconds())
}

// JobEnded implements pipeline.JobObserver. A job a shutdown interrupted
// (state queued) leaves the running gauge and nothing else.
func (m *Metrics) JobEnded(engine string, state pipeline.JobState, elapsed time.Duration) {
	engine = nonEmpty(engine)
	m.jobsRunning.WithLabelValues(engine).Dec()
	if !state.Finished() {
		return
	}
	m.jobsFinished.WithLabelValues(engine, string(state)).Inc()
	m.jobDuration.WithLabelValues(engine, string(state)).Observe(elapsed.Seconds())
}

// UploadReceived implements pipeline.IngestObserver.
func (m *Metrics) UploadReceived(files int, bytes int64) {
	m.uploadsReceived.Inc()
	m.uploadBytes.Add(float64(max(bytes, 0)))
}

// Ingested implements pipeline.IngestObserver.
func (m *Metrics) Ingested(source, state string, c pipeline.IngestCounts) {
	source, state = nonEmpty(source), nonEmpty(state)
	m.ingests.WithLabelValues(source, state).Inc()
	for _, r := range []struct {
		result string
		n      int
	}{{"added", c.Added}, {"replaced", c.Replaced}, {"unchanged", c.Unchanged}, {"skipped", c.Skipped}} {
		m.ingestedDocs.WithLabelValues(source, r.result).Add(float64(max(r.n, 0)))
	}
	m.ingestedPassage.WithLabelValues(source).Add(float64(max(c.Passages, 0)))
}

// Searcher returns next timed: each search is counted and its time
// recorded under source (SourcePortal, SourceReport) and its mode.
func (m *Metrics) Searcher(next pipeline.Searcher, source string) pipeline.Searcher {
	return &searcher{next: next, m: m, source: nonEmpty(source)}
}

// searcher is a pipeline.Searcher that times another.
type searcher struct {
	next   pipeline.Searcher
	m      *Metrics
	source string
}

// Search implements pipeline.Searcher.
func (s *searcher) Search(ctx context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	start := time.Now()
	res, err := s.next.Search(ctx, req)
	elapsed := time.Since(start)
	mode := "passages"
	if req.Docs {
		mode = "documents"
	}
	outcome := "ok"
	switch {
	case errors.Is(err, pipeline.ErrInvalid):
		outcome = "invalid"
	case err != nil:
		outcome = "error"
	}
	s.m.searches.WithLabelValues(s.source, mode, outcome).Inc()
	s.m.searchDuration.WithLabelValues(s.source, mode).Observe(elapsed.Seconds())
	return res, err
}

// Descriptions of the metrics read at each scrape.
var (
	jobsDesc = prometheus.NewDesc(namespace+"_jobs",
		"Report jobs in the store, by state.", []string{"state"}, nil)
	documentsDesc = prometheus.NewDesc(namespace+"_index_documents",
		"Documents in the collection.", nil, nil)
	passagesDesc = prometheus.NewDesc(namespace+"_index_passages",
		"Passages in the collection (what the index holds).", nil, nil)
	charactersDesc = prometheus.NewDesc(namespace+"_index_characters",
		"Characters of the collection's documents.", nil, nil)
	indexBytesDesc = prometheus.NewDesc(namespace+"_index_size_bytes",
		"Size on disk of the index folder.", nil, nil)
)

// jobStates are the states crucible_jobs always reports, 0 when no job
// is in one.
var jobStates = pipeline.JobStates()

// stateCollector reads, at each scrape, what the store and the index
// folder hold. A read that fails is counted in scrape_errors (seen at the
// next scrape) and its metrics are left out.
type stateCollector struct {
	opts   Options
	errors *prometheus.CounterVec
	// mu keeps concurrent scrapes from reading at once, and guards the
	// last Stats read.
	mu      sync.Mutex
	stats   pipeline.CollectionStats
	statsAt time.Time
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	if c.opts.JobCounts != nil {
		ch <- jobsDesc
	}
	if c.opts.Stats != nil {
		ch <- documentsDesc
		ch <- passagesDesc
		ch <- charactersDesc
	}
	if c.opts.IndexDir != "" {
		ch <- indexBytesDesc
	}
}

// Collect implements prometheus.Collector.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	timeout := c.opts.ScrapeTimeout
	if timeout <= 0 {
		timeout = DefaultScrapeTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if c.opts.JobCounts != nil {
		if counts, err := c.opts.JobCounts(ctx); err != nil {
			c.errors.WithLabelValues("jobs").Inc()
		} else {
			for _, s := range jobStates {
				ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(counts[s]), string(s))
			}
		}
	}
	if c.opts.Stats != nil {
		if st, err := c.collectionStats(ctx); err != nil {
			c.errors.WithLabelValues("stats").Inc()
		} else {
			ch <- prometheus.MustNewConstMetric(documentsDesc, prometheus.GaugeValue, float64(st.Documents))
			ch <- prometheus.MustNewConstMetric(passagesDesc, prometheus.GaugeValue, float64(st.Passages))
			ch <- prometheus.MustNewConstMetric(charactersDesc, prometheus.GaugeValue, float64(st.Characters))
		}
	}
	if c.opts.IndexDir != "" {
		if n, err := dirSize(ctx, c.opts.IndexDir); err != nil {
			c.errors.WithLabelValues("index_size").Inc()
		} else {
			ch <- prometheus.MustNewConstMetric(indexBytesDesc, prometheus.GaugeValue, float64(n))
		}
	}
}

// collectionStats is the last Stats read when it is younger than the
// interval, else a new read. The caller holds mu.
func (c *stateCollector) collectionStats(ctx context.Context) (pipeline.CollectionStats, error) {
	interval := c.opts.StatsInterval
	if interval == 0 {
		interval = DefaultStatsInterval
	}
	if !c.statsAt.IsZero() && time.Since(c.statsAt) < interval {
		return c.stats, nil
	}
	st, err := c.opts.Stats(ctx)
	if err != nil {
		return st, err
	}
	c.stats, c.statsAt = st, time.Now()
	return st, nil
}

// dirSize is the total size of the regular files under dir. Files that
// vanish while it walks (the index replaces segments) are skipped.
func dirSize(ctx context.Context, dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

var (
	_ pipeline.ModelObserver  = (*Metrics)(nil)
	_ pipeline.JobObserver    = (*Metrics)(nil)
	_ pipeline.IngestObserver = (*Metrics)(nil)
)
