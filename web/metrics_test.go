package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/corpus"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/metrics"
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// parseMetrics parses a scrape with the Prometheus text parser.
func parseMetrics(t *testing.T, rec *httptest.ResponseRecorder) map[string]*dto.MetricFamily {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics answered %s, want the Prometheus text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// metricValue sums the values (a histogram's counts) of family name's
// series whose labels include labels.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	var sum float64
	found := false
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if got[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum, found
}

// labelValues lists the values label takes in family name.
func labelValues(fams map[string]*dto.MetricFamily, name, label string) []string {
	seen := map[string]bool{}
	for _, m := range fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				seen[l.GetValue()] = true
			}
		}
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// stageRecorder is the job store, noting the stages each job reports in
// the order it enters them.
type stageRecorder struct {
	*sqlite.DB
	mu     sync.Mutex
	stages map[int64][]string
}

func (r *stageRecorder) SetProgress(ctx context.Context, id int64, p pipeline.Progress) error {
	r.mu.Lock()
	if s := r.stages[id]; p.Stage != "" && (len(s) == 0 || s[len(s)-1] != p.Stage) {
		r.stages[id] = append(s, p.Stage)
	}
	r.mu.Unlock()
	return r.DB.SetProgress(ctx, id, p)
}

func (r *stageRecorder) entered(id int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.stages[id])
}

type indexAnalyzer struct{ ix *index.Index }

func (a indexAnalyzer) Terms(s string) []string            { return a.ix.Terms(s) }
func (a indexAnalyzer) Sentences(s string) []pipeline.Span { return index.Sentences(s) }

// metricsWorld is the portal over a real store and index holding the
// sample corpus, reporting to one Metrics as `crucible serve` wires it,
// with a job runner using the offline engine.
type metricsWorld struct {
	db     *sqlite.DB
	jobs   *stageRecorder
	runner *jobs.Runner
	met    *metrics.Metrics
	srv    *testServer
}

func newMetricsWorld(t *testing.T) *metricsWorld {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ixDir := filepath.Join(dir, "index.bleve")
	ix, err := index.Open(ixDir, index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	in := &pipeline.Ingester{Store: db, Index: ix, Segment: index.Segment}
	_, err = corpus.Walk(ctx, []string{"../cmd/crucible/testdata/sotu-sample.jsonl"}, corpus.Options{},
		func(d pipeline.Document) error { return in.Add(ctx, d) }, nil)
	if err == nil {
		err = in.Flush(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}

	met := metrics.New(metrics.Options{Version: "v1.2.3", JobCounts: db.JobCounts, Stats: db.Stats, IndexDir: ixDir})
	model := llm.Cached{Next: offline.New(indexAnalyzer{ix}), Store: db, Namespace: offline.Version, Observer: met, Engine: "offline"}
	engine := jobs.Engine{
		Info: pipeline.EngineInfo{ID: "offline", Label: "offline engine", Offline: true},
		Pipeline: &crucible.Engine{
			Searcher: met.Searcher(&index.Searcher{Index: ix, Source: db}, metrics.SourceReport),
			Store:    db, Model: model, Terms: ix.Terms, SentenceKey: ix.SentenceKey, Name: "offline engine",
			NewReranker: func(method string, m pipeline.Model) (rerank.Reranker, error) {
				return rerank.New(method, m, rerank.Options{})
			},
		},
	}
	rec := &stageRecorder{DB: db, stages: map[int64][]string{}}
	runner := &jobs.Runner{Store: rec, Available: []jobs.Engine{engine}, Rerankers: rerank.Methods(),
		Poll: 10 * time.Millisecond, Observer: met}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })

	e, err := web.New(web.Config{LocalMode: true}, web.Deps{
		Searcher: met.Searcher(&index.Searcher{Index: ix, Source: db}, metrics.SourcePortal),
		Store:    db,
		Marker:   ix,
		Jobs:     db,
		Reports:  runner,
		Logger:   slog.New(slog.DiscardHandler),
		Engine:   "offline engine",
		Metrics:  met,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServerOf(t, &testServer{e: e, log: &bytes.Buffer{}})
	return &metricsWorld{db: db, jobs: rec, runner: runner, met: met, srv: srv}
}

// run submits a request and waits for its job to end.
func (w *metricsWorld) run(t *testing.T, req pipeline.Request, s pipeline.Settings) pipeline.Job {
	t.Helper()
	job, _, err := w.runner.Submit(context.Background(), req, s, "offline")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		j, err := w.db.Job(context.Background(), job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Finished() {
			if j.State != pipeline.JobDone {
				t.Fatalf("job %d ended %s (%s: %s)", j.ID, j.State, j.ErrorStage, j.Error)
			}
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %d did not finish", job.ID)
	return pipeline.Job{}
}

var metricsRequest = pipeline.Request{ID: "m1", Title: "Tariff and trade",
	ProblemStatement: "What did the addresses say about tariffs, duties and trade with other nations?", Limit: 1200}

// TestMetricsScrape uses the portal (pages, a search, an unknown URL), runs
// report jobs with the offline engine, then scrapes /metrics as the local
// administrator and reads it with the Prometheus text parser.
func TestMetricsScrape(t *testing.T) {
	if testing.Short() {
		t.Skip("runs report jobs")
	}
	w := newMetricsWorld(t)
	s := w.srv
	wantStatus(t, s.get(t, "/"), http.StatusOK)
	wantStatus(t, s.get(t, "/search?q=tariff"), http.StatusOK)
	wantStatus(t, s.get(t, "/search?q=tariff&docs=1"), http.StatusOK)
	wantStatus(t, s.get(t, "/no/such/page?secret=1"), http.StatusNotFound)

	first := w.run(t, metricsRequest, pipeline.DefaultSettings())
	// The same request again: every model call is answered by the cache.
	again := w.run(t, metricsRequest, pipeline.DefaultSettings())
	wantStatus(t, s.get(t, views.JobURL(first.ID)), http.StatusOK)

	rec := s.get(t, web.MetricsPath)
	wantStatus(t, rec, http.StatusOK)
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("/metrics Cache-Control %q, want no-store", cc)
	}
	fams := parseMetrics(t, rec)

	for _, name := range []string{
		"crucible_http_requests_total", "crucible_http_request_duration_seconds",
		"crucible_model_calls_total", "crucible_model_cache_hits_total", "crucible_model_tokens_total",
		"crucible_model_call_duration_seconds",
		"crucible_jobs", "crucible_jobs_started_total", "crucible_jobs_running", "crucible_jobs_finished_total",
		"crucible_job_duration_seconds", "crucible_job_stage_duration_seconds",
		"crucible_searches_total", "crucible_search_duration_seconds",
		"crucible_index_documents", "crucible_index_passages", "crucible_index_size_bytes", "crucible_build_info",
		"go_goroutines",
	} {
		if fams[name] == nil {
			t.Errorf("no %s in the scrape", name)
		}
	}

	// Requests by route template and status: never the raw URL.
	for _, tc := range []struct {
		labels map[string]string
		min    float64
	}{
		{map[string]string{"method": "GET", "route": "/search", "status": "200"}, 2},
		{map[string]string{"method": "GET", "route": "/", "status": "200"}, 1},
		{map[string]string{"method": "GET", "route": "/jobs/:id", "status": "200"}, 1},
		{map[string]string{"method": "GET", "route": metrics.UnmatchedRoute, "status": "404"}, 1},
	} {
		if got, _ := metricValue(fams, "crucible_http_requests_total", tc.labels); got < tc.min {
			t.Errorf("crucible_http_requests_total%v = %v, want at least %v", tc.labels, got, tc.min)
		}
	}
	for _, route := range labelValues(fams, "crucible_http_requests_total", "route") {
		if strings.Contains(route, "?") || strings.Contains(route, "such") || strings.Contains(route, "/jobs/1") {
			t.Errorf("route label %q holds a URL, not a route template", route)
		}
	}

	// Jobs: both done, by state in the store and in this process.
	if got, _ := metricValue(fams, "crucible_jobs", map[string]string{"state": "done"}); got != 2 {
		t.Errorf("crucible_jobs{state=done} = %v, want 2", got)
	}
	if got, _ := metricValue(fams, "crucible_jobs_finished_total", map[string]string{"engine": "offline", "state": "done"}); got != 2 {
		t.Errorf("crucible_jobs_finished_total{engine=offline,state=done} = %v, want 2", got)
	}
	if got, _ := metricValue(fams, "crucible_jobs_running", map[string]string{"engine": "offline"}); got != 0 {
		t.Errorf("crucible_jobs_running{engine=offline} = %v, want 0", got)
	}
	if diff := cmp.Diff(sorted(views.JobStages(first.Settings)), labelValues(fams, "crucible_job_stage_duration_seconds", "stage")); diff != "" {
		t.Errorf("stage durations recorded for (-want +got):\n%s", diff)
	}
	if got, _ := metricValue(fams, "crucible_job_stage_duration_seconds", map[string]string{"engine": "offline", "stage": "scan"}); got != 2 {
		t.Errorf("scan stages timed: %v, want 2", got)
	}

	// Model calls by engine and stage; the second job's came from the
	// cache. The offline engine spends no tokens.
	calls, _ := metricValue(fams, "crucible_model_calls_total", map[string]string{"engine": "offline"})
	hits, _ := metricValue(fams, "crucible_model_cache_hits_total", map[string]string{"engine": "offline"})
	wantCalls := float64(first.Progress.Usage.Calls + again.Progress.Usage.Calls)
	if calls != wantCalls || hits != float64(again.Progress.Usage.Calls) || hits == 0 {
		t.Errorf("model calls %v (want %v, as the jobs counted), cache hits %v (want %d, the second job's calls)",
			calls, wantCalls, hits, again.Progress.Usage.Calls)
	}
	if got, _ := metricValue(fams, "crucible_model_calls_total", map[string]string{"engine": "offline", "stage": "ideate", "task": "nuggets"}); got == 0 {
		t.Errorf("no nugget ideation calls in stage ideate; stages %v, tasks %v",
			labelValues(fams, "crucible_model_calls_total", "stage"), labelValues(fams, "crucible_model_calls_total", "task"))
	}
	if got := labelValues(fams, "crucible_model_calls_total", "stage"); slices.Contains(got, metrics.NoStage) {
		t.Errorf("model calls of jobs without a stage: %v", got)
	}
	if got, _ := metricValue(fams, "crucible_model_tokens_total", map[string]string{"engine": "offline"}); got != 0 {
		t.Errorf("the offline engine spent %v tokens", got)
	}
	if got, _ := metricValue(fams, "crucible_model_errors_total", nil); got != 0 {
		t.Errorf("%v model errors", got)
	}

	// Searches: the portal's two, and the jobs' retrievals.
	if got, _ := metricValue(fams, "crucible_searches_total", map[string]string{"source": "portal", "mode": "passages", "outcome": "ok"}); got != 1 {
		t.Errorf("portal passage searches = %v, want 1", got)
	}
	if got, _ := metricValue(fams, "crucible_searches_total", map[string]string{"source": "portal", "mode": "documents", "outcome": "ok"}); got != 1 {
		t.Errorf("portal document searches = %v, want 1", got)
	}
	if got, _ := metricValue(fams, "crucible_search_duration_seconds", map[string]string{"source": "report"}); got == 0 {
		t.Error("the jobs' retrieval searches were not timed")
	}

	// The collection's size.
	if got, _ := metricValue(fams, "crucible_index_documents", nil); got != 8 {
		t.Errorf("crucible_index_documents = %v, want 8", got)
	}
	if got, _ := metricValue(fams, "crucible_index_size_bytes", nil); got <= 0 {
		t.Errorf("crucible_index_size_bytes = %v", got)
	}
}

// TestJobStagesAsRun runs jobs with the offline engine and checks that the
// stages each reports as it runs are the ones, in the order, the job page's
// stage overview counts (views.JobStages), with and without a reranker
// and verification.
func TestJobStagesAsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs report jobs")
	}
	w := newMetricsWorld(t)
	plain := pipeline.DefaultSettings()
	full := pipeline.DefaultSettings()
	full.Reranker, full.Verify = "pointwise", true
	for i, s := range []pipeline.Settings{plain, full} {
		req := metricsRequest
		req.ID += "-" + strconv.Itoa(i)
		j := w.run(t, req, s)
		if diff := cmp.Diff(views.JobStages(s), w.jobs.entered(j.ID)); diff != "" {
			t.Errorf("settings %d: stages (-views.JobStages +as run):\n%s", i, diff)
		}
		doc := parseHTML(t, w.srv.get(t, views.JobURL(j.ID)))
		n := len(views.JobStages(s))
		if got, want := textOf(doc, "job-stage-overview"), "all "+strconv.Itoa(n)+" stages done"; got != want {
			t.Errorf("settings %d: overview %q, want %q", i, got, want)
		}
		if got := textOf(doc, "job-tokens"); got != "offline engine: no tokens" {
			t.Errorf("settings %d: tokens %q, want the offline engine's note", i, got)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestMetricsNeedAnAdmin: on a portal that is not in local mode (any
// address but loopback), /metrics is for signed-in administrators: a
// visitor who has not signed in, a scraper included, gets the sign-in
// redirect and no metrics; other roles get 403.
func TestMetricsNeedAnAdmin(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))

	anonymous := newBrowser(s)
	for _, accept := range []string{"", "text/plain;version=0.0.4", "application/openmetrics-text"} {
		req := httptest.NewRequest(http.MethodGet, web.MetricsPath, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := anonymous.do(req)
		wantStatus(t, rec, http.StatusSeeOther)
		if loc := rec.Header().Get("Location"); loc != views.LoginURL(web.MetricsPath) {
			t.Errorf("anonymous (Accept %q): redirected to %q, want the sign-in page", accept, loc)
		}
		if strings.Contains(rec.Body.String(), "crucible_") || strings.Contains(rec.Body.String(), "go_goroutines") {
			t.Errorf("anonymous (Accept %q): the answer holds metrics:\n%s", accept, truncate(rec.Body.String(), 500))
		}
	}
	// A POST does not get them either.
	rec := anonymous.do(httptest.NewRequest(http.MethodPost, web.MetricsPath, nil))
	if rec.Code == http.StatusOK || strings.Contains(rec.Body.String(), "crucible_") {
		t.Errorf("anonymous POST: %d with metrics", rec.Code)
	}

	for _, u := range []auth.User{analystUser, reviewerUser} {
		b := newBrowser(s)
		b.mustLogin(t, u)
		rec := b.get(web.MetricsPath)
		wantStatus(t, rec, http.StatusForbidden)
		if strings.Contains(rec.Body.String(), "crucible_") {
			t.Errorf("%s: the 403 holds metrics", u.Role)
		}
	}

	admin := newBrowser(s)
	admin.mustLogin(t, adminUser)
	admin.get("/")
	rec = admin.get(web.MetricsPath)
	wantStatus(t, rec, http.StatusOK)
	fams := parseMetrics(t, rec)
	// The refusals above were counted, by route template and status.
	if got, _ := metricValue(fams, "crucible_http_requests_total", map[string]string{"route": web.MetricsPath, "status": "303"}); got != 3 {
		t.Errorf("refused anonymous scrapes counted %v times, want 3", got)
	}
	if got, _ := metricValue(fams, "crucible_http_requests_total", map[string]string{"route": web.MetricsPath, "status": "403"}); got != 2 {
		t.Errorf("refused scrapes of other roles counted %v times, want 2", got)
	}
	if got, _ := metricValue(fams, "crucible_http_requests_total", map[string]string{"route": "/", "status": "200"}); got != 1 {
		t.Errorf("the home page counted %v times, want 1", got)
	}
}

// TestMetricsHandler is what the separate listener of --metrics-addr
// serves: the metrics at /metrics without sign-in, and nothing else.
func TestMetricsHandler(t *testing.T) {
	met := metrics.New(metrics.Options{})
	met.JobStarted("offline")
	h := web.NewMetricsHandler(met)
	serve := func(method, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec
	}
	rec := serve(http.MethodGet, web.MetricsPath)
	wantStatus(t, rec, http.StatusOK)
	if got, ok := metricValue(parseMetrics(t, rec), "crucible_jobs_running", map[string]string{"engine": "offline"}); !ok || got != 1 {
		t.Errorf("crucible_jobs_running{engine=offline} = %v (%t), want 1", got, ok)
	}
	for _, target := range []string{"/", "/search?q=tariff", "/healthz", "/metrics/x"} {
		wantStatus(t, serve(http.MethodGet, target), http.StatusNotFound)
	}
	wantStatus(t, serve(http.MethodPost, web.MetricsPath), http.StatusMethodNotAllowed)
}
