package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

// postForm posts a URL-encoded form.
func (s *testServer) postForm(t *testing.T, target string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.do(t, req)
}

// valueOf is the value of the form control with the data-testid: an
// input's value attribute or a textarea's text.
func valueOf(doc *goquery.Document, id string) string {
	sel := byTestID(doc, id)
	if goquery.NodeName(sel) == "textarea" {
		return sel.Text()
	}
	v, _ := sel.Attr("value")
	return v
}

// validForm is a complete, valid new-report form as a browser posts it.
func validForm() url.Values {
	return url.Values{
		"title":                {"Wind power subsidies"},
		"background":           {"I advise a ministry.\r\nI know the basics."},
		"problem_statement":    {"  Which subsidies for wind power worked, and why?  "},
		"limit":                {"1500"},
		"engine":               {"openai"},
		"request_id":           {"topic-42"},
		"retrieve":             {"50"},
		"ideation_docs":        {"10"},
		"nuggets_per_doc":      {"4"},
		"target_nuggets":       {"30"},
		"keep_nuggets":         {"12"},
		"scan_candidates":      {"2"},
		"confidence_threshold": {"0.65"},
		"sentences_per_nugget": {"2"},
		"concurrency":          {"8"},
		"verify":               {"1"},
		"prefer_period":        {"off"},
		"passage_scores":       {""},
		"spread_sources":       {"on"},
		"choose_sentences":     {"off"},
		"facet_nuggets":        {"off"},
		"fill_report":          {"on"},
		"full_scan":            {"on"},
	}
}

func TestNewReportFormDefaults(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	rec := s.get(t, "/reports/new")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	form := byTestID(doc, "report-form")
	if m, _ := form.Attr("method"); m != "post" {
		t.Errorf("form method = %q, want post", m)
	}
	if a, _ := form.Attr("action"); a != "/reports" {
		t.Errorf("form action = %q, want /reports", a)
	}
	got := map[string]string{}
	for _, name := range []string{"title", "background", "problem_statement", "limit", "request_id", "retrieve", "ideation_docs",
		"nuggets_per_doc", "target_nuggets", "keep_nuggets", "scan_candidates", "confidence_threshold", "sentences_per_nugget", "concurrency"} {
		got[name] = valueOf(doc, "field-"+name)
	}
	want := map[string]string{
		"title": "", "background": "", "problem_statement": "", "request_id": "",
		"limit": "2000", "retrieve": "100", "ideation_docs": "20", "nuggets_per_doc": "5", "target_nuggets": "60",
		"keep_nuggets": "20", "scan_candidates": "3", "confidence_threshold": "0", "sentences_per_nugget": "1", "concurrency": "16",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("field values (-want +got):\n%s", diff)
	}
	for _, name := range []string{"background", "problem_statement"} {
		if n := goquery.NodeName(byTestID(doc, "field-"+name)); n != "textarea" {
			t.Errorf("%s is a <%s>, want a textarea", name, n)
		}
	}
	if _, checked := byTestID(doc, "field-verify").Attr("checked"); checked {
		t.Errorf("verify is checked by default; DefaultSettings has it off")
	}
	if _, open := byTestID(doc, "advanced").Attr("open"); open {
		t.Errorf("advanced section open on an empty form")
	}
	if n := byTestID(doc, "advanced").Find(`[data-testid="engines"], [data-testid="settings"]`).Length(); n != 2 {
		t.Errorf("engines and settings inside the advanced section: %d of 2", n)
	}
	engines := byTestID(doc, "engine-option").Map(func(_ int, s *goquery.Selection) string {
		v, _ := s.Attr("value")
		if _, checked := s.Attr("checked"); checked {
			v += " (checked)"
		}
		return v
	})
	if diff := cmp.Diff([]string{"offline (checked)", "openai"}, engines); diff != "" {
		t.Errorf("engine choices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"offline engine", "Llama-3.3-70B"}, texts(doc, "engine-label")); diff != "" {
		t.Errorf("engine labels (-want +got):\n%s", diff)
	}
	if byTestID(doc, "form-errors").Length() != 0 || doc.Find(".field-error").Length() != 0 {
		t.Errorf("errors shown on an empty form")
	}
	if cur, _ := byTestID(doc, "nav-new-report").Attr("aria-current"); cur != "page" {
		t.Errorf("New report nav item aria-current = %q, want page", cur)
	}
}

func TestNewReportFormLabelsAnOfflineEngine(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.engines = []pipeline.EngineInfo{{ID: "lexical", Label: "Lexical baseline", Offline: true}}
	doc := parseHTML(t, s.get(t, "/reports/new"))
	if got, want := textOf(doc, "engine-label"), "Lexical baseline (offline engine)"; got != want {
		t.Errorf("engine label = %q, want %q", got, want)
	}
}

func TestNewReportFormRules(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.engines = []pipeline.EngineInfo{
		{ID: "openai", Label: "Llama-3.3-70B"},
		{ID: "offline", Label: "offline engine", Offline: true, Defaults: pipeline.Heuristics{PassageScores: true, ChooseSentences: true, FacetNuggets: true, FillReport: true}},
	}
	doc := parseHTML(t, s.get(t, "/reports/new"))
	if n := byTestID(doc, "settings").Find(`[data-testid="rule-field"]`).Length(); n != 7 {
		t.Fatalf("%d rule fields in the settings, want 7", n)
	}
	for name, want := range map[string]string{
		"prefer_period":    "Engine default (off for Llama-3.3-70B, off for offline engine)",
		"passage_scores":   "Engine default (off for Llama-3.3-70B, on for offline engine)",
		"spread_sources":   "Engine default (off for Llama-3.3-70B, off for offline engine)",
		"best_passage":     "Engine default (off for Llama-3.3-70B, off for offline engine)",
		"choose_sentences": "Engine default (off for Llama-3.3-70B, on for offline engine)",
		"facet_nuggets":    "Engine default (off for Llama-3.3-70B, on for offline engine)",
		"fill_report":      "Engine default (off for Llama-3.3-70B, on for offline engine)",
	} {
		sel := byTestID(doc, "field-"+name).Find("option[selected]")
		if v, _ := sel.Attr("value"); v != "" || strings.TrimSpace(sel.Text()) != want {
			t.Errorf("%s: selected option %q %q, want the engine default %q", name, v, sel.Text(), want)
		}
	}
	// A choice comes back selected after a rejected submission.
	form := validForm()
	form.Set("title", "")
	doc = parseHTML(t, s.postForm(t, "/reports", form))
	for name, want := range map[string]string{"prefer_period": "off", "passage_scores": "", "spread_sources": "on", "choose_sentences": "off", "facet_nuggets": "off", "fill_report": "on"} {
		if v, _ := byTestID(doc, "field-"+name).Find("option[selected]").Attr("value"); v != want {
			t.Errorf("%s keeps %q, want %q", name, v, want)
		}
	}
}

func TestCreateReport(t *testing.T) {
	on, off := true, false
	s := newReportServer(t, nil, web.Config{})
	rec := s.postForm(t, "/reports", validForm())
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/jobs/7" {
		t.Errorf("Location = %q, want /jobs/7", loc)
	}
	want := []submission{{
		Request: pipeline.Request{
			ID:               "topic-42",
			Title:            "Wind power subsidies",
			Background:       "I advise a ministry.\nI know the basics.",
			ProblemStatement: "Which subsidies for wind power worked, and why?",
			Limit:            1500,
		},
		Settings: pipeline.Settings{
			Retrieve: 50, IdeationDocs: 10, NuggetsPerDoc: 4, TargetNuggets: 30, KeepNuggets: 12,
			ScanCandidates: 2, ConfidenceThreshold: 0.65, SentencesPerNugget: 2, Verify: true, Concurrency: 8,
			PreferPeriod: &off, SpreadSources: &on, ChooseSentences: &off, FacetNuggets: &off, FillReport: &on, FullScan: true,
		},
		Engine: "openai",
	}}
	if diff := cmp.Diff(want, s.svc.submissions()); diff != "" {
		t.Errorf("submissions (-want +got):\n%s", diff)
	}
}

func TestCreateReportDefaultsForAbsentFields(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	rec := s.postForm(t, "/reports", url.Values{"title": {"T"}, "problem_statement": {"P"}})
	wantStatus(t, rec, http.StatusSeeOther)
	want := []submission{{
		Request:  pipeline.Request{Title: "T", ProblemStatement: "P", Limit: 2000},
		Settings: pipeline.DefaultSettings(),
		Engine:   "offline",
	}}
	if diff := cmp.Diff(want, s.svc.submissions()); diff != "" {
		t.Errorf("submissions (-want +got):\n%s", diff)
	}
}

func TestCreateReportRejected(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(url.Values)
		submit bool // whether the service is called
		// wantErrors maps fields to the message shown next to them.
		wantErrors map[string]string
		// wantValues maps fields to the value the form must keep.
		wantValues   map[string]string
		wantAdvanced bool
	}{
		{
			name:   "missing title and problem statement",
			edit:   func(v url.Values) { v.Set("title", "  "); v.Del("problem_statement") },
			submit: true,
			wantErrors: map[string]string{
				"title":             "Title is required.",
				"problem_statement": "Problem statement is required.",
			},
			wantValues: map[string]string{"background": "I advise a ministry.\nI know the basics.", "limit": "1500", "retrieve": "50"},
		},
		{
			name:       "limit too small",
			edit:       func(v url.Values) { v.Set("limit", "50") },
			submit:     true,
			wantErrors: map[string]string{"limit": "Character limit is 50; a report needs at least 100 characters."},
			wantValues: map[string]string{"limit": "50", "title": "Wind power subsidies"},
		},
		{
			name:   "settings out of range",
			edit:   func(v url.Values) { v.Set("retrieve", "0"); v.Set("confidence_threshold", "1.5") },
			submit: true,
			wantErrors: map[string]string{
				"retrieve":             "Documents retrieved (N) is 0; it must be between 1 and 1000.",
				"ideation_docs":        "Documents for nugget ideation (D) is 10, more than the 0 documents retrieved.",
				"confidence_threshold": "Confidence threshold is 1.5; it must be between 0 and 1.",
			},
			wantValues:   map[string]string{"retrieve": "0", "confidence_threshold": "1.5"},
			wantAdvanced: true,
		},
		{
			name: "numbers that do not parse",
			edit: func(v url.Values) {
				v.Set("retrieve", "lots")
				v.Set("confidence_threshold", "high")
				v.Set("limit", "2k")
				v.Set("concurrency", "99999999999999999999999")
			},
			wantErrors: map[string]string{
				"retrieve":             "Documents retrieved (N) must be a whole number, such as 100.",
				"confidence_threshold": "Confidence threshold must be a number from 0 to 1, such as 0.6 (0 sets it from the run's own confidences).",
				"limit":                "Character limit must be a whole number, such as 2000.",
				"concurrency":          "Model calls at once must be a whole number, such as 16.",
			},
			wantValues:   map[string]string{"retrieve": "lots", "confidence_threshold": "high", "limit": "2k", "concurrency": "99999999999999999999999"},
			wantAdvanced: true,
		},
		{
			name: "unparsable number with other bad fields",
			edit: func(v url.Values) { v.Set("keep_nuggets", ""); v.Set("title", ""); v.Set("nuggets_per_doc", "40") },
			wantErrors: map[string]string{
				"keep_nuggets":    "Nuggets kept after ranking is required.",
				"title":           "Title is required.",
				"nuggets_per_doc": "Nuggets per document is 40; it must be between 1 and 20.",
			},
			wantValues:   map[string]string{"keep_nuggets": "", "nuggets_per_doc": "40"},
			wantAdvanced: true,
		},
		{
			name:         "not a number threshold",
			edit:         func(v url.Values) { v.Set("confidence_threshold", "NaN") },
			wantErrors:   map[string]string{"confidence_threshold": "Confidence threshold must be a number from 0 to 1, such as 0.6 (0 sets it from the run's own confidences)."},
			wantValues:   map[string]string{"confidence_threshold": "NaN"},
			wantAdvanced: true,
		},
		{
			name:         "a rule neither on nor off",
			edit:         func(v url.Values) { v.Set("spread_sources", "sometimes") },
			wantErrors:   map[string]string{"spread_sources": `Spread nuggets over documents must be on, off, or empty for the engine's default, not "sometimes".`},
			wantAdvanced: true,
		},
		{
			name:         "unknown engine",
			edit:         func(v url.Values) { v.Set("engine", "gpt-9") },
			wantErrors:   map[string]string{"engine": `Engine "gpt-9" is not one of the engines this portal offers.`},
			wantAdvanced: true,
		},
		{
			name:         "request id with a slash",
			edit:         func(v url.Values) { v.Set("request_id", "a/b") },
			submit:       true,
			wantErrors:   map[string]string{"request_id": "Request id must not contain spaces or slashes (it names the output file)."},
			wantValues:   map[string]string{"request_id": "a/b"},
			wantAdvanced: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, nil, web.Config{})
			form := validForm()
			tt.edit(form)
			rec := s.postForm(t, "/reports", form)
			wantStatus(t, rec, http.StatusUnprocessableEntity)
			doc := parseHTML(t, rec)

			if got := len(s.svc.submissions()) > 0; got != tt.submit {
				t.Errorf("service called = %t, want %t", got, tt.submit)
			}
			got := map[string]string{}
			doc.Find(".field-error").Each(func(_ int, e *goquery.Selection) {
				id, _ := e.Attr("data-testid")
				got[strings.TrimPrefix(id, "error-")] = strings.TrimSpace(e.Text())
			})
			if diff := cmp.Diff(tt.wantErrors, got); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
			if n := byTestID(doc, "form-error").Length(); n != len(tt.wantErrors) {
				t.Errorf("error summary lists %d errors, want %d", n, len(tt.wantErrors))
			}
			for name := range tt.wantErrors {
				if name == "engine" {
					continue
				}
				input := byTestID(doc, "field-"+name)
				if inv, _ := input.Attr("aria-invalid"); inv != "true" {
					t.Errorf("%s aria-invalid = %q, want true", name, inv)
				}
				if desc, _ := input.Attr("aria-describedby"); !strings.Contains(desc, name+"-error") {
					t.Errorf("%s aria-describedby = %q, want it to name %s-error", name, desc, name)
				}
			}
			for name, want := range tt.wantValues {
				if got := valueOf(doc, "field-"+name); got != want {
					t.Errorf("%s keeps %q, want %q", name, got, want)
				}
			}
			if _, checked := byTestID(doc, "field-verify").Attr("checked"); !checked {
				t.Errorf("verify checkbox lost its check")
			}
			if _, open := byTestID(doc, "advanced").Attr("open"); open != tt.wantAdvanced {
				t.Errorf("advanced section open = %t, want %t", open, tt.wantAdvanced)
			}
		})
	}
}

func TestCreateReportKeepsChosenEngine(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	form := validForm()
	form.Set("title", "")
	doc := parseHTML(t, s.postForm(t, "/reports", form))
	var checked []string
	byTestID(doc, "engine-option").Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("checked"); ok {
			v, _ := s.Attr("value")
			checked = append(checked, v)
		}
	})
	if diff := cmp.Diff([]string{"openai"}, checked); diff != "" {
		t.Errorf("checked engines (-want +got):\n%s", diff)
	}
}

func TestCreateReportServiceErrors(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		wantStatus  int
		wantProblem string
	}{
		{name: "invalid without fields", err: pipeline.Invalidf("the index is being rebuilt"), wantStatus: http.StatusUnprocessableEntity,
			wantProblem: "Invalid input: the index is being rebuilt"},
		{name: "field errors on a field the form lacks", err: pipeline.FieldErrors{"queue": "is full"}, wantStatus: http.StatusUnprocessableEntity},
		{name: "store failure", err: fmt.Errorf("insert job: %w", errSecret), wantStatus: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, nil, web.Config{})
			s.svc.submitErr = tt.err
			rec := s.postForm(t, "/reports", validForm())
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if tt.wantStatus == http.StatusInternalServerError {
				assertGenericServerError(t, rec, doc)
				return
			}
			if got := textOf(doc, "form-problem"); got != tt.wantProblem {
				t.Errorf("form problem = %q, want %q", got, tt.wantProblem)
			}
			if byTestID(doc, "form-errors").Length() != 1 {
				t.Errorf("no error summary")
			}
			if _, isFE := tt.err.(pipeline.FieldErrors); isFE {
				if got, want := textOf(doc, "form-error"), "queue is full."; got != want {
					t.Errorf("summary entry = %q, want %q", got, want)
				}
			}
		})
	}
}

func TestCreateReportDuplicate(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.svc.nextID = 3
	s.svc.existing = true
	s.jobs.put(pipeline.Job{ID: 3, State: pipeline.JobRunning, Request: pipeline.Request{Title: "Wind"}, StartedAt: testNow})
	rec := s.postForm(t, "/reports", validForm())
	wantStatus(t, rec, http.StatusSeeOther)
	loc := rec.Header().Get("Location")
	if loc != "/jobs/3?existing=1" {
		t.Fatalf("Location = %q, want /jobs/3?existing=1", loc)
	}
	doc := parseHTML(t, s.get(t, loc))
	if got := textOf(doc, "job-existing"); !strings.HasPrefix(got, "This request is already running") {
		t.Errorf("duplicate notice = %q", got)
	}
	doc = parseHTML(t, s.get(t, "/jobs/3"))
	if byTestID(doc, "job-existing").Length() != 0 {
		t.Errorf("duplicate notice shown without the flag")
	}
}

func TestCreateReportLargestFormFitsTheBodyLimit(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	form := validForm()
	// Four-byte characters, each percent-encoded to twelve bytes.
	form.Set("title", strings.Repeat("😀", pipeline.MaxRequestTitleChars))
	form.Set("background", strings.Repeat("😀", pipeline.MaxRequestFieldChars))
	form.Set("problem_statement", strings.Repeat("😀", pipeline.MaxRequestFieldChars))
	form.Set("request_id", strings.Repeat("x", pipeline.MaxRequestIDBytes))
	if n := len(form.Encode()); n >= web.DefaultMaxBodyBytes {
		t.Fatalf("largest valid form is %d bytes, over the %d-byte body limit", n, web.DefaultMaxBodyBytes)
	}
	wantStatus(t, s.postForm(t, "/reports", form), http.StatusSeeOther)

	form.Set("background", strings.Repeat("x", web.DefaultMaxBodyBytes))
	wantStatus(t, s.postForm(t, "/reports", form), http.StatusRequestEntityTooLarge)
	if n := len(s.svc.submissions()); n != 1 {
		t.Errorf("%d submissions, want only the one within the limit", n)
	}
}

func TestCreateReportMalformedBody(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	req := httptest.NewRequest(http.MethodPost, "/reports", strings.NewReader("title=%zz"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := s.do(t, req)
	wantStatus(t, rec, http.StatusBadRequest)
	if n := len(s.svc.submissions()); n != 0 {
		t.Errorf("%d submissions of a malformed body", n)
	}
}

func TestReportPagesOffWithoutServices(t *testing.T) {
	s := newTestServer(t, nil, nil, web.Config{})
	for _, target := range []string{"/reports/new", "/jobs", "/jobs/1", "/reports/1", "/reports/1/nuggets", "/jobs/1/events"} {
		if rec := s.get(t, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d without report services, want 404", target, rec.Code)
		}
	}
	doc := parseHTML(t, s.get(t, "/"))
	if n := byTestID(doc, "nav-new-report").Length() + byTestID(doc, "nav-reports").Length() + byTestID(doc, "home-new-report").Length(); n != 0 {
		t.Errorf("%d report links without report services, want 0", n)
	}
}

func TestReportNavigation(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/"))
	links := map[string]string{}
	for _, id := range []string{"nav-new-report", "nav-reports", "home-new-report", "home-jobs"} {
		links[id], _ = byTestID(doc, id).Attr("href")
	}
	want := map[string]string{
		"nav-new-report": "/reports/new", "nav-reports": "/jobs",
		"home-new-report": "/reports/new", "home-jobs": "/jobs",
	}
	if diff := cmp.Diff(want, links); diff != "" {
		t.Errorf("report links (-want +got):\n%s", diff)
	}
	rec := s.get(t, "/reports")
	wantStatus(t, rec, http.StatusFound)
	if loc := rec.Header().Get("Location"); loc != "/jobs" {
		t.Errorf("GET /reports redirects to %q, want /jobs", loc)
	}
}

func TestStateChangingRoutesArePostOnly(t *testing.T) {
	s := newReportServer(t, nil, web.Config{})
	s.jobs.put(pipeline.Job{ID: 5, State: pipeline.JobRunning})
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			rec := s.do(t, httptest.NewRequest(method, "/jobs/5/cancel", nil))
			if rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("%s /jobs/5/cancel = %d, want 405", method, rec.Code)
			}
			if method != http.MethodGet && method != http.MethodHead {
				if rec := s.do(t, httptest.NewRequest(method, "/reports", nil)); rec.Code != http.StatusMethodNotAllowed {
					t.Errorf("%s /reports = %d, want 405", method, rec.Code)
				}
			}
		})
	}
	if got := s.svc.cancels(); len(got) != 0 {
		t.Errorf("cancelled %v through non-POST requests", got)
	}
	if got := s.svc.submissions(); len(got) != 0 {
		t.Errorf("submitted %d reports through non-POST requests", len(got))
	}
}

func TestCrossSitePostsAreRefused(t *testing.T) {
	tests := []struct {
		name       string
		header     map[string]string
		wantStatus int
	}{
		{name: "cross-site fetch metadata", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, wantStatus: http.StatusForbidden},
		{name: "foreign origin", header: map[string]string{"Origin": "https://evil.example"}, wantStatus: http.StatusForbidden},
		{name: "same origin", header: map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://example.com"}, wantStatus: http.StatusSeeOther},
		{name: "no browser headers", wantStatus: http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newReportServer(t, nil, web.Config{})
			req := httptest.NewRequest(http.MethodPost, "/reports", strings.NewReader(validForm().Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := s.do(t, req)
			wantStatus(t, rec, tt.wantStatus)
			wantSubmitted := 0
			if tt.wantStatus == http.StatusSeeOther {
				wantSubmitted = 1
			}
			if got := len(s.svc.submissions()); got != wantSubmitted {
				t.Errorf("%d submissions, want %d", got, wantSubmitted)
			}
		})
	}
}
