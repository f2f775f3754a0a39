package web_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

// testEstimate is what the fake service's dry run answers.
var testEstimate = pipeline.CostEstimate{
	Documents: 100, Passages: 7236, Nuggets: 20,
	Stages: []pipeline.StageCost{
		{Stage: "retrieve"},
		{Stage: "ideate", Calls: 40, PromptTokens: 94145, CompletionTokens: 13252},
		{Stage: "merge", Calls: 99, PromptTokens: 48863, CompletionTokens: 52},
		{Stage: "rank", Calls: 68, PromptTokens: 40061, CompletionTokens: 1214},
		{Stage: "scan", Calls: 18896, MaxCalls: 21473, PromptTokens: 20445472, CompletionTokens: 37792},
		{Stage: "assemble", Calls: 1, PromptTokens: 553, CompletionTokens: 88},
		{Stage: "group"},
	},
}

// pricedEngines are the fake's engines with the model's prices known.
var pricedEngines = []pipeline.EngineInfo{
	{ID: "offline", Label: "offline engine", Offline: true},
	{ID: "openai", Label: "Llama-3.3-70B", Prices: pipeline.Prices{PromptPerMillion: 0.5, CompletionPerMillion: 1.5, Currency: "USD"}},
}

func TestNewReportFormOffersCapsAndEstimate(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.limits = pipeline.Caps{Calls: 50000, Time: 2 * time.Hour}
	doc := parseHTML(t, s.get(t, "/reports/new"))
	for _, id := range []string{"field-max_calls", "field-max_tokens", "field-max_time", "estimate-report"} {
		if byTestID(doc, id).Length() != 1 {
			t.Errorf("the form has no %s", id)
		}
	}
	if a, _ := byTestID(doc, "estimate-report").Attr("formaction"); a != "/reports/estimate" {
		t.Errorf("the Estimate button posts to %q", a)
	}
	help := doc.Find("#max_calls-help").Text()
	if !strings.Contains(help, "50,000 calls") {
		t.Errorf("the calls cap's help %q does not name the portal's cap", help)
	}
	if h := doc.Find("#max_tokens-help").Text(); !strings.Contains(h, "no cap") {
		t.Errorf("the tokens cap's help %q does not say the portal sets none", h)
	}
}

// The form's "Estimate" shows the form again with what was typed and the
// estimate below it, per stage, in money with the engine's prices; no
// job starts.
func TestEstimateShowsTheFormWithTheEstimate(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.engines = pricedEngines
	s.svc.estimate = testEstimate
	form := withField(validForm(), "max_calls", "20000")
	rec := s.postForm(t, "/reports/estimate", form)
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	if len(s.svc.submissions()) != 0 {
		t.Fatalf("Estimate started a job: %+v", s.svc.submissions())
	}
	if len(s.svc.estimates) != 1 || s.svc.estimates[0].Engine != "openai" || s.svc.estimates[0].Settings.Retrieve != 50 {
		t.Fatalf("estimates asked: %+v", s.svc.estimates)
	}
	if got := valueOf(doc, "field-title"); got != "Wind power subsidies" {
		t.Errorf("title shown again as %q", got)
	}
	if got := valueOf(doc, "field-max_calls"); got != "20000" {
		t.Errorf("calls cap shown again as %q", got)
	}
	var stages []string
	byTestID(doc, "estimate-row").Each(func(_ int, r *goquery.Selection) { stages = append(stages, r.AttrOr("data-stage", "")) })
	if diff := cmp.Diff([]string{"ideate", "merge", "rank", "scan", "assemble", "total"}, stages); diff != "" {
		t.Errorf("estimate rows (-want +got)\n%s", diff)
	}
	calls := texts(doc, "estimate-calls")
	if calls[len(calls)-1] != "19,104" {
		t.Errorf("total calls %q, want 19,104", calls[len(calls)-1])
	}
	costs := texts(doc, "estimate-cost")
	// 20,629,094 prompt tokens at 0.50 and 52,398 completion at 1.50 per million.
	if costs[len(costs)-1] != "10.39 USD" {
		t.Errorf("total cost %q, want 10.39 USD", costs[len(costs)-1])
	}
	if sum := textOf(doc, "estimate-summary"); !strings.Contains(sum, "About 19,104 model calls (at most 21,681)") || !strings.Contains(sum, "10.39 USD") {
		t.Errorf("summary %q", sum)
	}
}

// An offline estimate counts calls only; caps that do not parse keep the
// form from being estimated (422, message at the field).
func TestEstimateOfflineAndBadCaps(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	off := testEstimate
	off.Offline = true
	s.svc.estimate = off
	rec := s.postForm(t, "/reports/estimate", withField(validForm(), "engine", "offline"))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	if byTestID(doc, "estimate-prompt").Length() != 0 || byTestID(doc, "estimate-cost").Length() != 0 {
		t.Error("an offline estimate shows tokens or money")
	}
	if sum := textOf(doc, "estimate-summary"); !strings.Contains(sum, "spends no tokens") {
		t.Errorf("offline summary %q", sum)
	}

	rec = s.postForm(t, "/reports/estimate", withField(withField(validForm(), "max_calls", "lots"), "max_time", "soon"))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	doc = parseHTML(t, rec)
	if !strings.Contains(textOf(doc, "error-max_calls"), "whole number") || !strings.Contains(textOf(doc, "error-max_time"), "30m") {
		t.Errorf("cap errors %q / %q", textOf(doc, "error-max_calls"), textOf(doc, "error-max_time"))
	}
	if byTestID(doc, "estimate").Length() != 0 {
		t.Error("a refused form shows an estimate")
	}
	if len(s.svc.estimates) != 1 {
		t.Errorf("%d dry runs, want the first only", len(s.svc.estimates))
	}
}

// Starting a report sends the job's caps: minutes or durations for the
// time; caps above the portal's are refused at their fields.
func TestCreateSendsCaps(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.limits = pipeline.Caps{Calls: 5000}
	form := withField(withField(withField(validForm(), "max_calls", "1,200"), "max_tokens", ""), "max_time", "45")
	wantStatus(t, s.postForm(t, "/reports", form), http.StatusSeeOther)
	subs := s.svc.submissions()
	if want := (pipeline.Caps{Calls: 1200, Time: 45 * time.Minute}); len(subs) != 1 || subs[0].Caps != want {
		t.Fatalf("submitted %+v, want caps %+v", subs, want)
	}
	rec := s.postForm(t, "/reports", withField(validForm(), "max_calls", "9000"))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	if msg := textOf(parseHTML(t, rec), "error-max_calls"); !strings.Contains(msg, "at most 5,000") {
		t.Errorf("error %q, want the portal's cap named", msg)
	}
}

// stoppedJob is a job stopped at its calls cap during the scan.
func stoppedJob(id int64) pipeline.Job {
	j := sampleJob(id, pipeline.JobStopped)
	j.Engine = "openai"
	j.StartedAt = testNow.Add(-3 * time.Minute)
	j.FinishedAt = testNow.Add(-time.Minute)
	j.Caps = pipeline.Caps{Calls: 200, Time: time.Hour}
	j.Stopped = &pipeline.CapError{Cap: pipeline.CapCalls, Limit: 200, Stage: "scan"}
	j.ErrorStage, j.Error = "scan", j.Stopped.Error()
	j.Progress = pipeline.Progress{Stage: "scan", Done: 3, Total: 20, Usage: pipeline.Usage{Calls: 200, PromptTokens: 400000, CompletionTokens: 2000}}
	return j
}

// A stopped job's page says which cap stopped it and where, shows its
// caps and its usage in money, and offers to resume it with the cap
// doubled.
func TestStoppedJobPage(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.engines = pricedEngines
	s.svc.limits = pipeline.Caps{Calls: 300}
	s.jobs.put(stoppedJob(4))
	doc := parseHTML(t, s.get(t, "/jobs/4"))
	want := map[string]string{
		"job-state":          "Stopped at a cap",
		"job-stopped-text":   "Stopped at the cap: 200 calls, during scan.",
		"job-stage-overview": "stopped at stage 5 of 7: scan",
		"job-caps":           "200 calls, 1h0m0s of wall time",
		"job-cost":           "0.20 USD",
	}
	for id, w := range want {
		if got := textOf(doc, id); got != w {
			t.Errorf("%s = %q, want %q", id, got, w)
		}
	}
	// Doubled, but no further than the portal allows.
	if got := valueOf(doc, "resume-max_calls"); got != "300" {
		t.Errorf("resume calls %q, want the portal's 300", got)
	}
	if got := valueOf(doc, "resume-max_time"); got != "1h0m0s" {
		t.Errorf("resume time %q, want the job's", got)
	}
	if byTestID(doc, "job-rerun").Length() != 0 || byTestID(doc, "job-cancel").Length() != 0 {
		t.Error("a stopped job is offered to run again or to cancel")
	}
	if byTestID(doc, "job-resubmit").Length() != 1 {
		t.Error("a stopped job is not offered to edit and resubmit")
	}
	list := parseHTML(t, s.get(t, "/jobs"))
	if got := textOf(list, "job-row-stage"); got != "stopped in scan" {
		t.Errorf("the job list's stage %q", got)
	}
}

func TestResumeJob(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.jobs.put(stoppedJob(4))
	rec := s.postForm(t, "/jobs/4/resume", url.Values{"max_calls": {"400"}, "max_tokens": {""}, "max_time": {"2h"}})
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/jobs/4" {
		t.Errorf("redirect to %q", loc)
	}
	if want := (pipeline.Caps{Calls: 400, Time: 2 * time.Hour}); len(s.svc.resumes) != 1 || s.svc.resumes[0].Caps != want {
		t.Errorf("resumes %+v, want caps %+v", s.svc.resumes, want)
	}

	// Refused by the service: the page again, the message at the field.
	s.svc.resumeErr = pipeline.FieldErrors{"max_calls": "must be above 200 calls, the cap the job stopped at"}
	rec = s.postForm(t, "/jobs/4/resume", url.Values{"max_calls": {"150"}})
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	doc := parseHTML(t, rec)
	if got := textOf(doc, "resume-error"); got != "Most model calls must be above 200 calls, the cap the job stopped at." {
		t.Errorf("resume error %q", got)
	}
	if got := valueOf(doc, "resume-max_calls"); got != "150" {
		t.Errorf("the refused cap is shown as %q", got)
	}
	rec = s.postForm(t, "/jobs/4/resume", url.Values{"max_calls": {"many"}})
	wantStatus(t, rec, http.StatusUnprocessableEntity)

	s.svc.resumeErr = errors.Join(pipeline.ErrConflict)
	rec = s.postForm(t, "/jobs/4/resume", url.Values{"max_calls": {"400"}})
	wantStatus(t, rec, http.StatusConflict)
	if !strings.Contains(textOf(parseHTML(t, rec), "job-notice"), "Only a job stopped at a cap") {
		t.Error("a conflict is not explained")
	}
}
