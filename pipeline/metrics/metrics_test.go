package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/metrics"
)

// scrape serves the metrics once and parses them with the Prometheus text
// parser.
func scrape(t *testing.T, m *metrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("scrape Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	return fams
}

// value is the value of the series of family name whose labels are
// exactly labels (a counter's or gauge's value, a histogram's count), and
// whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if !cmp.Equal(got, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// series lists the label sets of family name, as "k=v,k=v" sorted.
func series(fams map[string]*dto.MetricFamily, name string) []string {
	var out []string
	for _, m := range fams[name].GetMetric() {
		var kv []string
		for _, l := range m.GetLabel() {
			kv = append(kv, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(kv)
		out = append(out, strings.Join(kv, ","))
	}
	sort.Strings(out)
	return out
}

func wantValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := value(fams, name, labels)
	if !ok {
		t.Errorf("%s%v: no such series (have %v)", name, labels, series(fams, name))
		return
	}
	if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func TestModelCalls(t *testing.T) {
	m := metrics.New(metrics.Options{})
	offline := func(c pipeline.ModelCall) pipeline.ModelCall {
		c.Engine, c.Task, c.Elapsed = "offline", "extract", time.Millisecond
		return c
	}
	m.ModelCall(offline(pipeline.ModelCall{Stage: "scan", PromptTokens: 0}))
	m.ModelCall(offline(pipeline.ModelCall{Stage: "scan", Cached: true, PromptTokens: 40, CompletionTokens: 4}))
	m.ModelCall(offline(pipeline.ModelCall{Stage: "scan", Cached: true}))
	m.ModelCall(pipeline.ModelCall{Engine: "openai", Task: "nuggets", Stage: "ideate", PromptTokens: 100, CompletionTokens: 10, Retries: 2, Elapsed: 2 * time.Second})
	m.ModelCall(pipeline.ModelCall{Engine: "openai", Task: "nuggets", Stage: "ideate", Retries: 4,
		Err: fmt.Errorf("%w: giving up after 5 attempts", pipeline.ErrModel)})
	// A call cancelled with its job is counted, but not as an error.
	m.ModelCall(pipeline.ModelCall{Engine: "openai", Task: "nuggets", Stage: "ideate", Err: fmt.Errorf("model endpoint: %w", context.Canceled)})
	// Outside a job: no stage.
	m.ModelCall(pipeline.ModelCall{Engine: "openai", Task: "verify_support", PromptTokens: 7, CompletionTokens: 1})

	fams := scrape(t, m)
	scan := map[string]string{"engine": "offline", "stage": "scan", "task": "extract"}
	ideate := map[string]string{"engine": "openai", "stage": "ideate", "task": "nuggets"}
	none := map[string]string{"engine": "openai", "stage": metrics.NoStage, "task": "verify_support"}
	wantValue(t, fams, "crucible_model_calls_total", scan, 3)
	wantValue(t, fams, "crucible_model_cache_hits_total", scan, 2)
	wantValue(t, fams, "crucible_model_calls_total", ideate, 3)
	wantValue(t, fams, "crucible_model_errors_total", ideate, 1)
	wantValue(t, fams, "crucible_model_retries_total", ideate, 6)
	wantValue(t, fams, "crucible_model_calls_total", none, 1)
	// Tokens count what the engine answered, not cache hits.
	wantValue(t, fams, "crucible_model_tokens_total", map[string]string{"engine": "openai", "stage": "ideate", "kind": "prompt"}, 100)
	wantValue(t, fams, "crucible_model_tokens_total", map[string]string{"engine": "openai", "stage": "ideate", "kind": "completion"}, 10)
	wantValue(t, fams, "crucible_model_tokens_total", map[string]string{"engine": "offline", "stage": "scan", "kind": "prompt"}, 0)
	wantValue(t, fams, "crucible_model_tokens_total", map[string]string{"engine": "openai", "stage": metrics.NoStage, "kind": "prompt"}, 7)
	// Durations of the calls the engine answered or failed: not the hits,
	// not the cancelled one.
	wantValue(t, fams, "crucible_model_call_duration_seconds", map[string]string{"engine": "offline", "task": "extract"}, 1)
	wantValue(t, fams, "crucible_model_call_duration_seconds", map[string]string{"engine": "openai", "task": "nuggets"}, 2)
	if _, ok := value(fams, "crucible_model_errors_total", scan); ok {
		t.Error("an error series for calls that did not fail")
	}
}

func TestJobs(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.JobStarted("offline")
	m.StageDone("offline", "retrieve", 20*time.Millisecond)
	m.StageDone("offline", "ideate", 2*time.Second)
	m.JobEnded("offline", pipeline.JobDone, 3*time.Second)
	m.JobStarted("offline")
	m.JobEnded("offline", pipeline.JobFailed, time.Second)
	m.JobStarted("openai")
	// Interrupted by a shutdown: it resumes at the next start.
	m.JobEnded("openai", pipeline.JobQueued, time.Second)
	m.JobStarted("openai")

	fams := scrape(t, m)
	wantValue(t, fams, "crucible_jobs_started_total", map[string]string{"engine": "offline"}, 2)
	wantValue(t, fams, "crucible_jobs_started_total", map[string]string{"engine": "openai"}, 2)
	wantValue(t, fams, "crucible_jobs_running", map[string]string{"engine": "offline"}, 0)
	wantValue(t, fams, "crucible_jobs_running", map[string]string{"engine": "openai"}, 1)
	wantValue(t, fams, "crucible_jobs_finished_total", map[string]string{"engine": "offline", "state": "done"}, 1)
	wantValue(t, fams, "crucible_jobs_finished_total", map[string]string{"engine": "offline", "state": "failed"}, 1)
	wantValue(t, fams, "crucible_job_duration_seconds", map[string]string{"engine": "offline", "state": "done"}, 1)
	wantValue(t, fams, "crucible_job_stage_duration_seconds", map[string]string{"engine": "offline", "stage": "ideate"}, 1)
	if got := series(fams, "crucible_jobs_finished_total"); len(got) != 2 {
		t.Errorf("finished jobs series %v: the interrupted job counts as finished", got)
	}
	h := fams["crucible_job_stage_duration_seconds"]
	if h.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("stage durations are a %v, want a histogram", h.GetType())
	}
	for _, s := range h.GetMetric() {
		if labelOf(s, "stage") == "ideate" && s.GetHistogram().GetSampleSum() != 2 {
			t.Errorf("ideate's stage time sums to %v s, want 2", s.GetHistogram().GetSampleSum())
		}
	}
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

type searcherFunc func(pipeline.SearchRequest) (pipeline.SearchResult, error)

func (f searcherFunc) Search(_ context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	return f(req)
}

func TestSearcher(t *testing.T) {
	m := metrics.New(metrics.Options{})
	next := searcherFunc(func(req pipeline.SearchRequest) (pipeline.SearchResult, error) {
		switch req.Query {
		case "":
			return pipeline.SearchResult{}, pipeline.Invalidf("empty query")
		case "broken":
			return pipeline.SearchResult{}, errors.New("index unreadable")
		}
		return pipeline.SearchResult{Total: 3}, nil
	})
	portal := m.Searcher(next, metrics.SourcePortal)
	report := m.Searcher(next, metrics.SourceReport)
	ctx := context.Background()
	if res, err := portal.Search(ctx, pipeline.SearchRequest{Query: "tariff"}); err != nil || res.Total != 3 {
		t.Fatalf("the wrapper changed the answer: %+v, %v", res, err)
	}
	portal.Search(ctx, pipeline.SearchRequest{Query: "tariff", Docs: true})
	if _, err := portal.Search(ctx, pipeline.SearchRequest{}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("the wrapper changed the error: %v", err)
	}
	report.Search(ctx, pipeline.SearchRequest{Query: "broken", Docs: true})

	fams := scrape(t, m)
	wantValue(t, fams, "crucible_searches_total", map[string]string{"source": "portal", "mode": "passages", "outcome": "ok"}, 1)
	wantValue(t, fams, "crucible_searches_total", map[string]string{"source": "portal", "mode": "passages", "outcome": "invalid"}, 1)
	wantValue(t, fams, "crucible_searches_total", map[string]string{"source": "portal", "mode": "documents", "outcome": "ok"}, 1)
	wantValue(t, fams, "crucible_searches_total", map[string]string{"source": "report", "mode": "documents", "outcome": "error"}, 1)
	wantValue(t, fams, "crucible_search_duration_seconds", map[string]string{"source": "portal", "mode": "passages"}, 2)
}

func TestHTTPRequests(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.ObserveRequest(http.MethodGet, "/jobs/:id", 200, 3*time.Millisecond)
	m.ObserveRequest(http.MethodGet, "/jobs/:id", 404, time.Millisecond)
	m.ObserveRequest(http.MethodPost, "/jobs/:id/cancel", 303, time.Millisecond)
	m.ObserveRequest(http.MethodGet, "", 404, time.Millisecond)
	m.ObserveRequest("BREW", "", 405, time.Millisecond)

	fams := scrape(t, m)
	want := []string{
		"method=GET,route=/jobs/:id,status=200",
		"method=GET,route=/jobs/:id,status=404",
		"method=GET,route=unmatched,status=404",
		"method=POST,route=/jobs/:id/cancel,status=303",
		"method=other,route=unmatched,status=405",
	}
	if diff := cmp.Diff(want, series(fams, "crucible_http_requests_total")); diff != "" {
		t.Errorf("request series (-want +got):\n%s", diff)
	}
	wantValue(t, fams, "crucible_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/jobs/:id"}, 2)
}

func TestIngests(t *testing.T) {
	m := metrics.New(metrics.Options{})
	m.UploadReceived(2, 1500)
	m.UploadReceived(1, 500)
	m.Ingested("upload", "done", pipeline.IngestCounts{Added: 5, Replaced: 1, Skipped: 2, Passages: 40})
	m.Ingested("upload", "cancelled", pipeline.IngestCounts{Added: 1, Passages: 3})

	fams := scrape(t, m)
	wantValue(t, fams, "crucible_uploads_received_total", map[string]string{}, 2)
	wantValue(t, fams, "crucible_upload_bytes_total", map[string]string{}, 2000)
	wantValue(t, fams, "crucible_ingests_total", map[string]string{"source": "upload", "state": "done"}, 1)
	wantValue(t, fams, "crucible_ingests_total", map[string]string{"source": "upload", "state": "cancelled"}, 1)
	wantValue(t, fams, "crucible_ingested_documents_total", map[string]string{"source": "upload", "result": "added"}, 6)
	wantValue(t, fams, "crucible_ingested_documents_total", map[string]string{"source": "upload", "result": "skipped"}, 2)
	wantValue(t, fams, "crucible_ingested_passages_total", map[string]string{"source": "upload"}, 43)
}

func TestScrapeReadsTheStoreAndTheIndex(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int{"index_meta.json": 100, "store/000001.zap": 4000} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failJobs := false
	statsReads := 0
	m := metrics.New(metrics.Options{
		Version: "v9.9",
		JobCounts: func(context.Context) (map[pipeline.JobState]int, error) {
			if failJobs {
				return nil, errors.New("database is locked")
			}
			return map[pipeline.JobState]int{pipeline.JobDone: 4, pipeline.JobQueued: 1}, nil
		},
		Stats: func(context.Context) (pipeline.CollectionStats, error) {
			statsReads++
			return pipeline.CollectionStats{Documents: 8, Passages: 120, Characters: 90000}, nil
		},
		IndexDir: dir,
	})
	fams := scrape(t, m)
	wantValue(t, fams, "crucible_jobs", map[string]string{"state": "done"}, 4)
	wantValue(t, fams, "crucible_jobs", map[string]string{"state": "queued"}, 1)
	wantValue(t, fams, "crucible_jobs", map[string]string{"state": "running"}, 0)
	wantValue(t, fams, "crucible_index_documents", map[string]string{}, 8)
	wantValue(t, fams, "crucible_index_passages", map[string]string{}, 120)
	wantValue(t, fams, "crucible_index_characters", map[string]string{}, 90000)
	wantValue(t, fams, "crucible_index_size_bytes", map[string]string{}, 4100)
	wantValue(t, fams, "crucible_build_info", map[string]string{"version": "v9.9"}, 1)
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("no %s: the runtime and process collectors are missing", name)
		}
	}

	// A read that fails leaves its metrics out and is counted; the
	// scrape still answers.
	failJobs = true
	fams = scrape(t, m)
	if fams["crucible_jobs"] != nil {
		t.Error("crucible_jobs reported although the job counts could not be read")
	}
	wantValue(t, fams, "crucible_index_documents", map[string]string{}, 8)
	fams = scrape(t, m)
	if got, _ := value(fams, "crucible_scrape_errors_total", map[string]string{"read": "jobs"}); got < 1 {
		t.Errorf("scrape errors for jobs = %v, want at least 1", got)
	}
	// The collection's size, which sums every document's length, was
	// read once for the three scrapes of this minute.
	if statsReads != 1 {
		t.Errorf("Stats read %d times in three scrapes, want once", statsReads)
	}
}

func TestStatsInterval(t *testing.T) {
	reads := 0
	m := metrics.New(metrics.Options{StatsInterval: -1, Stats: func(context.Context) (pipeline.CollectionStats, error) {
		reads++
		return pipeline.CollectionStats{Documents: reads}, nil
	}})
	scrape(t, m)
	wantValue(t, scrape(t, m), "crucible_index_documents", map[string]string{}, 2)
}

// TestOwnRegistry: the metrics are not in the client library's global
// registry, so two servers in one process (or two tests) keep their own
// counts.
func TestOwnRegistry(t *testing.T) {
	a, b := metrics.New(metrics.Options{}), metrics.New(metrics.Options{})
	a.JobStarted("offline")
	if _, ok := value(scrape(t, b), "crucible_jobs_started_total", map[string]string{"engine": "offline"}); ok {
		t.Error("a job started on one Metrics shows on another")
	}
	fams, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), "crucible_") {
			t.Errorf("%s is in the global registry", f.GetName())
		}
	}
}
