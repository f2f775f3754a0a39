package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// sampleJob is a job of the given state with nothing run yet.
func sampleJob(id int64, state pipeline.JobState) pipeline.Job {
	return pipeline.Job{
		ID:    id,
		State: state,
		Request: pipeline.Request{
			Title: "Wind power subsidies", Background: "I advise a ministry.",
			ProblemStatement: "Which subsidies worked?", Limit: 2000,
		},
		Settings:  pipeline.DefaultSettings(),
		Engine:    "offline",
		CreatedAt: testNow.Add(-time.Hour),
	}
}

func TestJobPageStates(t *testing.T) {
	running := sampleJob(1, pipeline.JobRunning)
	running.StartedAt = testNow.Add(-90 * time.Second)
	running.Progress = pipeline.Progress{Stage: "scan", Done: 3, Total: 12, Usage: pipeline.Usage{
		Calls: 1234, CacheHits: 56, PromptTokens: 1234567, CompletionTokens: 89012,
	}}
	running.Engine = "openai"

	cancelling := running
	cancelling.CancelRequested = true

	failed := sampleJob(1, pipeline.JobFailed)
	failed.StartedAt = testNow.Add(-2 * time.Minute)
	failed.FinishedAt = testNow.Add(-time.Minute)
	failed.Progress = pipeline.Progress{Stage: "ideate", Done: 4, Total: 20, Usage: pipeline.Usage{Calls: 9}}
	failed.Error = "model endpoint answered 401 Unauthorized"
	failed.ErrorStage = "ideate"

	done := sampleJob(1, pipeline.JobDone)
	done.StartedAt = testNow.Add(-10 * time.Minute)
	done.FinishedAt = testNow.Add(-125 * time.Second)
	done.Progress = pipeline.Progress{Stage: "assemble", Done: 1, Total: 1, Usage: pipeline.Usage{Calls: 321, CacheHits: 300}}
	done.ReportID = 9

	doneWithoutReport := done
	doneWithoutReport.ReportID = 0

	cancelled := sampleJob(1, pipeline.JobCancelled)
	cancelled.FinishedAt = testNow.Add(-time.Minute)

	tests := []struct {
		name string
		job  pipeline.Job
		// want maps data-testids to their text; "" asserts the element
		// is absent.
		want         map[string]string
		wantProgress string // "max/value", value "-" when absent
		wantLive     bool
		wantCancel   bool
		wantReport   string
	}{
		{
			name: "queued",
			job:  sampleJob(1, pipeline.JobQueued),
			want: map[string]string{
				"job-title": "Wind power subsidies", "job-state": "Queued", "job-stage": "—", "job-items": "—",
				"job-stage-overview": "7 stages, not started", "job-calls": "0", "job-cache-hits": "0",
				// The offline engine spends no tokens: no counters of them.
				"job-tokens": "offline engine: no tokens", "job-prompt-tokens": "", "job-completion-tokens": "",
				"job-elapsed": "not started", "job-remaining": "waiting to start", "job-engine": "offline engine",
				"job-stages": "This run goes through 7 stages: retrieve, ideate, merge, rank, scan, assemble and group.",
				"job-failed": "", "job-done": "",
			},
			wantProgress: "1/-", wantLive: true, wantCancel: true,
		},
		{
			name: "running with progress",
			job:  running,
			want: map[string]string{
				"job-state": "Running", "job-stage": "Scanning passages", "job-items": "3 of 12",
				"job-stage-overview": "stage 5 of 7: scan", "job-tokens": "",
				"job-calls": "1,234", "job-cache-hits": "56", "job-prompt-tokens": "1,234,567", "job-completion-tokens": "89,012",
				"job-elapsed": "1 min 30 s", "job-remaining": "this stage, estimating…", "job-engine": "Llama-3.3-70B",
				"job-failed": "", "job-done": "",
			},
			wantProgress: "12/3", wantLive: true, wantCancel: true,
		},
		{
			name:         "running, cancel requested",
			job:          cancelling,
			want:         map[string]string{"job-state": "Cancelling"},
			wantProgress: "12/3", wantLive: true,
		},
		{
			name: "failed",
			job:  failed,
			want: map[string]string{
				"job-state": "Failed", "job-error": "model endpoint answered 401 Unauthorized", "job-error-stage": "ideate",
				"job-stage-overview": "failed at stage 2 of 7: ideate", "job-elapsed": "1 min",
				"job-remaining": "—", "job-calls": "9", "job-items": "4 of 20",
			},
			wantProgress: "20/4",
		},
		{
			name: "done",
			job:  done,
			want: map[string]string{
				"job-state": "Done", "job-done": "The report is ready. Read the report", "job-elapsed": "7 min 55 s",
				"job-stage-overview": "all 7 stages done", "job-remaining": "—",
				"job-calls": "321", "job-cache-hits": "300", "job-failed": "",
			},
			wantProgress: "1/1", wantReport: "/reports/9",
		},
		{
			name:         "done without a report",
			job:          doneWithoutReport,
			want:         map[string]string{"job-done": "The job finished but stored no report."},
			wantProgress: "1/1",
		},
		{
			name: "cancelled before it started",
			job:  cancelled,
			want: map[string]string{
				"job-state": "Cancelled", "job-cancelled": "The job was cancelled.", "job-elapsed": "did not start",
				"job-stage-overview": "cancelled before stage 1 of 7",
			},
			wantProgress: "1/-",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, nil, web.Config{})
			s.jobs.put(tt.job)
			rec := s.get(t, "/jobs/1")
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)

			got := map[string]string{}
			for id := range tt.want {
				got[id] = textOf(doc, id)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("job page (-want +got):\n%s", diff)
			}
			bar := byTestID(doc, "job-progress")
			maxAttr, _ := bar.Attr("max")
			value, ok := bar.Attr("value")
			if !ok {
				value = "-"
			}
			if got := maxAttr + "/" + value; got != tt.wantProgress {
				t.Errorf("progress bar max/value = %s, want %s", got, tt.wantProgress)
			}
			events, live := byTestID(doc, "job-live").Attr("data-job-events")
			if live != tt.wantLive || (live && events != "/jobs/1/events") {
				t.Errorf("data-job-events = %q (present %t), want present %t", events, live, tt.wantLive)
			}
			refresh := strings.Contains(doc.Find("head noscript").Text(), `http-equiv="refresh" content="2"`)
			script, _ := doc.Find(`head script[src]`).Attr("src")
			if refresh != tt.wantLive || strings.HasPrefix(script, "/static/job.js?v=") != tt.wantLive {
				t.Errorf("no-JS refresh %t, script %q; want both only while live (%t)", refresh, script, tt.wantLive)
			}
			form := byTestID(doc, "job-cancel-form")
			if (form.Length() == 1) != tt.wantCancel {
				t.Errorf("cancel form shown = %t, want %t", form.Length() == 1, tt.wantCancel)
			}
			if tt.wantCancel {
				method, _ := form.Attr("method")
				action, _ := form.Attr("action")
				if method != "post" || action != "/jobs/1/cancel" {
					t.Errorf("cancel form = %s %s, want post /jobs/1/cancel", method, action)
				}
			}
			if href, _ := byTestID(doc, "job-report-link").Attr("href"); href != tt.wantReport {
				t.Errorf("report link = %q, want %q", href, tt.wantReport)
			}
			if got := textOf(doc, "request-problem"); got != "Which subsidies worked?" {
				t.Errorf("request problem statement = %q", got)
			}
		})
	}
}

func TestJobPageEstimatesTheStage(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	j := sampleJob(4, pipeline.JobRunning)
	j.StartedAt = testNow.Add(-time.Minute)
	remaining := func() string {
		t.Helper()
		return textOf(parseHTML(t, s.get(t, "/jobs/4")), "job-remaining")
	}

	j.Progress = pipeline.Progress{Stage: "scan", Done: 2, Total: 10}
	s.jobs.put(j)
	if got, want := remaining(), "this stage, estimating…"; got != want {
		t.Errorf("first look: remaining = %q, want %q", got, want)
	}
	// Two items in 20 seconds: 10 s an item, 6 items left.
	j.Progress.Done = 4
	s.jobs.put(j)
	s.now.set(testNow.Add(20 * time.Second))
	if got, want := remaining(), "this stage, about 1 min"; got != want {
		t.Errorf("after progress: remaining = %q, want %q", got, want)
	}
	// Three more in 10 more seconds: 6 s an item, 3 left.
	j.Progress.Done = 7
	s.jobs.put(j)
	s.now.set(testNow.Add(30 * time.Second))
	if got, want := remaining(), "this stage, about 20 s"; got != want {
		t.Errorf("later: remaining = %q, want %q", got, want)
	}
	// A new stage starts over.
	j.Progress = pipeline.Progress{Stage: "verify", Done: 1, Total: 5}
	s.jobs.put(j)
	s.now.set(testNow.Add(40 * time.Second))
	if got, want := remaining(), "this stage, estimating…"; got != want {
		t.Errorf("new stage: remaining = %q, want %q", got, want)
	}
}

func TestJobPageNotFound(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	for _, target := range []string{"/jobs/99", "/jobs/abc", "/jobs/0", "/jobs/-1", "/jobs/99999999999999999999"} {
		if rec := s.get(t, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, rec.Code)
		}
	}
}

func TestJobPageStoreFailure(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.jobs.err = fmt.Errorf("select job: %w", errSecret)
	rec := s.get(t, "/jobs/1")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
}

func TestCancelJob(t *testing.T) {
	tests := []struct {
		name         string
		target       string
		err          error
		wantStatus   int
		wantLocation string
		wantCancels  []int64
		wantNotice   string
	}{
		{name: "running", target: "/jobs/5/cancel", wantStatus: http.StatusSeeOther, wantLocation: "/jobs/5", wantCancels: []int64{5}},
		{name: "already finished", target: "/jobs/5/cancel", err: fmt.Errorf("job 5 is done: %w", pipeline.ErrConflict),
			wantStatus: http.StatusConflict, wantCancels: []int64{5}, wantNotice: "This job has already finished, so it can no longer be cancelled."},
		{name: "unknown job", target: "/jobs/6/cancel", err: fmt.Errorf("job 6: %w", pipeline.ErrNotFound),
			wantStatus: http.StatusNotFound, wantCancels: []int64{6}},
		{name: "not an id", target: "/jobs/x/cancel", wantStatus: http.StatusNotFound},
		{name: "service failure", target: "/jobs/5/cancel", err: errSecret, wantStatus: http.StatusInternalServerError, wantCancels: []int64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, nil, web.Config{})
			j := sampleJob(5, pipeline.JobDone)
			j.ReportID = 9
			s.jobs.put(j)
			s.svc.cancelErr = tt.err
			rec := s.do(t, httptest.NewRequest(http.MethodPost, tt.target, nil))
			wantStatus(t, rec, tt.wantStatus)
			if loc := rec.Header().Get("Location"); loc != tt.wantLocation {
				t.Errorf("Location = %q, want %q", loc, tt.wantLocation)
			}
			if diff := cmp.Diff(tt.wantCancels, s.svc.cancels()); diff != "" {
				t.Errorf("cancels (-want +got):\n%s", diff)
			}
			if tt.wantNotice != "" {
				doc := parseHTML(t, rec)
				if got := textOf(doc, "job-notice"); got != tt.wantNotice {
					t.Errorf("notice = %q, want %q", got, tt.wantNotice)
				}
				if href, _ := byTestID(doc, "job-report-link").Attr("href"); href != "/reports/9" {
					t.Errorf("409 page report link = %q, want /reports/9", href)
				}
				if byTestID(doc, "job-cancel-form").Length() != 0 {
					t.Errorf("409 page still offers to cancel")
				}
			}
			if tt.wantStatus == http.StatusInternalServerError {
				assertGenericServerError(t, rec, parseHTML(t, rec))
			}
		})
	}
}

func TestJobList(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/jobs"))
	if byTestID(doc, "jobs-empty").Length() != 1 {
		t.Errorf("no empty-list notice without jobs")
	}

	queued := sampleJob(3, pipeline.JobQueued)
	queued.Request.Title = "Third"
	running := sampleJob(2, pipeline.JobRunning)
	running.Request.Title = "Second"
	running.Progress = pipeline.Progress{Stage: "rank", Done: 5, Total: 40}
	done := sampleJob(1, pipeline.JobDone)
	done.Request.Title = "First"
	done.ReportID = 11
	failed := sampleJob(4, pipeline.JobFailed)
	failed.Request.Title = "Fourth"
	failed.ErrorStage = "scan"
	for _, j := range []pipeline.Job{queued, running, done, failed} {
		s.jobs.put(j)
	}
	rec := s.get(t, "/jobs")
	wantStatus(t, rec, http.StatusOK)
	doc = parseHTML(t, rec)
	type row struct{ Link, Title, State, Stage, Report string }
	var got []row
	byTestID(doc, "job-row").Each(func(_ int, r *goquery.Selection) {
		link, _ := r.Find(`[data-testid="job-row-link"]`).Attr("href")
		report, _ := r.Find(`[data-testid="job-row-report"]`).Attr("href")
		got = append(got, row{
			Link:   link,
			Title:  strings.TrimSpace(r.Find(`[data-testid="job-row-title"]`).Text()),
			State:  strings.TrimSpace(r.Find(`[data-testid="job-row-state"]`).Text()),
			Stage:  strings.Join(strings.Fields(r.Find(`[data-testid="job-row-stage"]`).Text()), " "),
			Report: report,
		})
	})
	want := []row{
		{Link: "/jobs/4", Title: "Fourth", State: "Failed", Stage: "failed in scan"},
		{Link: "/jobs/3", Title: "Third", State: "Queued", Stage: "—"},
		{Link: "/jobs/2", Title: "Second", State: "Running", Stage: "Ranking nuggets (5 of 40)"},
		{Link: "/jobs/1", Title: "First", State: "Done", Report: "/reports/11"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("job rows (-want +got):\n%s", diff)
	}
	if cur, _ := byTestID(doc, "nav-reports").Attr("aria-current"); cur != "page" {
		t.Errorf("Reports nav item aria-current = %q, want page", cur)
	}
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data string
}

// readEvents parses a text/event-stream body.
func readEvents(t *testing.T, body string) (events []sseEvent, retry string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(body))
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != "" {
				events = append(events, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.Data != "" {
				t.Fatalf("event with several data lines: %q", body)
			}
			cur.Data = strings.TrimPrefix(line, "data: ")
		case strings.HasPrefix(line, "retry: "):
			retry = strings.TrimPrefix(line, "retry: ")
		default:
			t.Fatalf("unexpected event-stream line %q", line)
		}
	}
	if cur.Name != "" || cur.Data != "" {
		t.Fatalf("stream ends inside an event: %q", body)
	}
	return events, retry
}

// eventStatus is the part of an event's JSON the tests check.
type eventStatus struct {
	ID        int64             `json:"id"`
	State     string            `json:"state"`
	Finished  bool              `json:"finished"`
	Stage     string            `json:"stage"`
	Done      int               `json:"done"`
	Total     int               `json:"total"`
	Calls     int               `json:"calls"`
	ReportURL string            `json:"report_url"`
	Text      map[string]string `json:"text"`
}

func TestJobEventsStreamUntilFinished(t *testing.T) {
	s := newReportServer(t, nil, web.Config{JobPollInterval: time.Millisecond})
	step := func(state pipeline.JobState, done, calls int) pipeline.Job {
		j := sampleJob(5, state)
		j.StartedAt = testNow.Add(-time.Minute)
		j.Progress = pipeline.Progress{Stage: "scan", Done: done, Total: 3, Usage: pipeline.Usage{Calls: calls}}
		if state == pipeline.JobDone {
			j.FinishedAt = testNow
			j.ReportID = 12
		}
		return j
	}
	// The handler reads the job once before streaming, then once per poll:
	// the job finishes at the second poll.
	s.jobs.script[5] = []pipeline.Job{
		step(pipeline.JobRunning, 1, 10),
		step(pipeline.JobRunning, 2, 20),
		step(pipeline.JobDone, 3, 30),
		step(pipeline.JobDone, 3, 30),
	}
	rec := s.get(t, "/jobs/5/events")
	wantStatus(t, rec, http.StatusOK)
	for k, want := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if !rec.Flushed {
		t.Errorf("the stream was never flushed")
	}
	events, retry := readEvents(t, rec.Body.String())
	if retry != "3000" {
		t.Errorf("retry = %q, want 3000", retry)
	}
	var names []string
	var got []eventStatus
	for _, e := range events {
		names = append(names, e.Name)
		var st eventStatus
		if err := json.Unmarshal([]byte(e.Data), &st); err != nil {
			t.Fatalf("event data %q is not JSON: %v", e.Data, err)
		}
		got = append(got, st)
	}
	if diff := cmp.Diff([]string{"progress", "progress", "finished"}, names); diff != "" {
		t.Fatalf("event names (-want +got):\n%s", diff)
	}
	want := []eventStatus{
		{ID: 5, State: "running", Stage: "scan", Done: 1, Total: 3, Calls: 10, Text: map[string]string{
			"state": "Running", "stage": "Scanning passages", "progress": "1 of 3", "calls": "10", "cache_hits": "0",
			"prompt_tokens": "0", "completion_tokens": "0", "elapsed": "1 min", "remaining": "this stage, estimating…",
			"stage_overview": "stage 5 of 7: scan",
		}},
		{ID: 5, State: "running", Stage: "scan", Done: 2, Total: 3, Calls: 20, Text: map[string]string{
			"state": "Running", "stage": "Scanning passages", "progress": "2 of 3", "calls": "20", "cache_hits": "0",
			"prompt_tokens": "0", "completion_tokens": "0", "elapsed": "1 min",
			// One item done in no time on the fixed clock.
			"remaining": "this stage, a few seconds", "stage_overview": "stage 5 of 7: scan",
		}},
		{ID: 5, State: "done", Finished: true, Stage: "scan", Done: 3, Total: 3, Calls: 30, ReportURL: "/reports/12", Text: map[string]string{
			"state": "Done", "stage": "Scanning passages", "progress": "3 of 3", "calls": "30", "cache_hits": "0",
			"prompt_tokens": "0", "completion_tokens": "0", "elapsed": "1 min", "remaining": "—",
			"stage_overview": "all 7 stages done",
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if n := s.jobs.calls(5); n != 3 {
		t.Errorf("job read %d times, want 3 (the stream must end at the finished event)", n)
	}
}

func TestJobEventsFinishedJobSendsOneEvent(t *testing.T) {
	s := newReportServer(t, nil, web.Config{JobPollInterval: time.Millisecond})
	j := sampleJob(5, pipeline.JobFailed)
	j.Error, j.ErrorStage = "boom", "scan"
	s.jobs.put(j)
	events, _ := readEvents(t, s.get(t, "/jobs/5/events").Body.String())
	if len(events) != 1 || events[0].Name != "finished" {
		t.Errorf("events = %v, want one finished event", events)
	}
}

func TestJobEventsStop(t *testing.T) {
	running := sampleJob(5, pipeline.JobRunning)
	tests := []struct {
		name  string
		setup func(cfg *web.Config) context.Context
	}{
		{name: "client gone", setup: func(*web.Config) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
		{name: "server stopping", setup: func(cfg *web.Config) context.Context {
			stop := make(chan struct{})
			close(stop)
			cfg.Stop = stop
			return context.Background()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A poll interval no test waits for: the stream must end on
			// the signal, not on a tick.
			cfg := web.Config{JobPollInterval: time.Hour}
			ctx := tt.setup(&cfg)
			s := newReportServer(t, nil, cfg)
			s.jobs.put(running)
			rec := s.do(t, httptest.NewRequest(http.MethodGet, "/jobs/5/events", nil).WithContext(ctx))
			wantStatus(t, rec, http.StatusOK)
			events, _ := readEvents(t, rec.Body.String())
			if len(events) != 1 || events[0].Name != "progress" {
				t.Errorf("events = %v, want the one progress event sent before stopping", events)
			}
			if n := s.jobs.calls(5); n != 1 {
				t.Errorf("job read %d times after the stream should have stopped, want 1", n)
			}
		})
	}
}

func TestJobEventsUnknownJob(t *testing.T) {
	s := newReportServer(t, nil, web.Config{JobPollInterval: time.Millisecond})
	rec := s.get(t, "/jobs/404/events")
	wantStatus(t, rec, http.StatusNotFound)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q, want an HTML error page", ct)
	}
}

func TestJobScriptIsServed(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.jobs.put(sampleJob(1, pipeline.JobQueued))
	src, _ := parseHTML(t, s.get(t, "/jobs/1")).Find("script[src]").Attr("src")
	rec := s.get(t, src)
	wantStatus(t, rec, http.StatusOK)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("job.js Content-Type = %q, want text/javascript", ct)
	}
	for _, want := range []string{"data-job-events", "EventSource", `"finished"`, "textContent"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("job.js does not mention %s", want)
		}
	}
	if strings.Contains(rec.Body.String(), "innerHTML") {
		t.Errorf("job.js uses innerHTML; server text must be set as text")
	}
}

// A failed or cancelled job can be run again unchanged, or edited and
// resubmitted from the form filled in from it; a finished report offers a
// follow-up request.
func TestJobRunAgainResubmitFollowUp(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	failed := sampleJob(3, pipeline.JobFailed)
	failed.Request.ID = "wind-1"
	failed.Settings.Retrieve, failed.Settings.Reranker = 50, "lancer"
	on := true
	failed.Settings.PreferPeriod = &on
	s.jobs.put(failed)
	doc := parseHTML(t, s.get(t, "/jobs/3"))
	if byTestID(doc, "job-rerun").Length() != 1 || byTestID(doc, "job-follow-up").Length() != 0 {
		t.Fatalf("a failed job offers: %q", textOf(doc, "job-again"))
	}
	rec := s.postForm(t, "/jobs/3/rerun", url.Values{})
	wantStatus(t, rec, http.StatusSeeOther)
	subs := s.svc.submissions()
	if len(subs) != 1 || subs[0].Request != failed.Request || subs[0].Engine != "offline" || subs[0].Settings.Retrieve != 50 {
		t.Fatalf("rerun submitted %+v", subs)
	}
	if loc := rec.Header().Get("Location"); loc != "/jobs/7" {
		t.Errorf("rerun went to %q", loc)
	}

	// Edit and resubmit: the form holds the job's request and settings.
	doc = parseHTML(t, s.get(t, views.ResubmitURL(3)))
	for id, want := range map[string]string{"field-title": "Wind power subsidies", "field-request_id": "wind-1", "field-retrieve": "50"} {
		if got := valueOf(doc, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if v, _ := byTestID(doc, "field-prefer_period").Find("option[selected]").Attr("value"); v != "on" {
		t.Errorf("prefer period %q, want on", v)
	}
	if !strings.Contains(textOf(doc, "form-from"), "Filled in from job 3") {
		t.Errorf("notice %q", textOf(doc, "form-from"))
	}

	// A done job: no rerun, a follow-up whose background recalls it.
	done := sampleJob(4, pipeline.JobDone)
	done.ReportID = 12
	s.jobs.put(done)
	doc = parseHTML(t, s.get(t, "/jobs/4"))
	if byTestID(doc, "job-rerun").Length() != 0 || byTestID(doc, "job-follow-up").Length() != 1 {
		t.Fatalf("a done job offers: %q", textOf(doc, "job-again"))
	}
	wantStatus(t, s.postForm(t, "/jobs/4/rerun", url.Values{}), http.StatusConflict)
	doc = parseHTML(t, s.get(t, views.FollowUpURL(4)))
	if got := valueOf(doc, "field-title"); got != "Follow-up: Wind power subsidies" {
		t.Errorf("follow-up title %q", got)
	}
	if got := valueOf(doc, "field-background"); !strings.Contains(got, "I advise a ministry.") || !strings.Contains(got, "which asked: Which subsidies worked?") {
		t.Errorf("follow-up background %q", got)
	}
	if got := valueOf(doc, "field-problem_statement"); got != "" {
		t.Errorf("follow-up problem statement %q, want empty", got)
	}
	wantStatus(t, s.get(t, views.ResubmitURL(99)), http.StatusNotFound)
}

// The report list filters by words of the request, job state and review
// status, and orders by age or title.
func TestJobListFilters(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	mk := func(id int64, state pipeline.JobState, title string) {
		j := sampleJob(id, state)
		j.Request.Title = title
		s.jobs.put(j)
	}
	mk(1, pipeline.JobDone, "Tariffs and trade")
	mk(2, pipeline.JobFailed, "Wind power subsidies")
	mk(3, pipeline.JobDone, "Canal treaties")
	ids := func(target string) []string {
		t.Helper()
		rec := s.get(t, target)
		wantStatus(t, rec, http.StatusOK)
		return texts(parseHTML(t, rec), "job-row-link")
	}
	for target, want := range map[string][]string{
		"/jobs":                  {"3", "2", "1"},
		"/jobs?q=TARIFF":         {"1"},
		"/jobs?state=done":       {"3", "1"},
		"/jobs?sort=oldest":      {"1", "2", "3"},
		"/jobs?sort=title":       {"3", "1", "2"},
		"/jobs?state=done&q=can": {"3"},
	} {
		if diff := cmp.Diff(want, ids(target)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", target, diff)
		}
	}
	doc := parseHTML(t, s.get(t, "/jobs?q=nothing+like+this"))
	if byTestID(doc, "jobs-none-match").Length() != 1 || byTestID(doc, "jobs-empty").Length() != 0 {
		t.Errorf("no match: %q", textOf(doc, "jobs-none-match"))
	}
	if v := valueOf(doc, "jobs-q"); v != "nothing like this" {
		t.Errorf("the query box keeps %q", v)
	}
}
