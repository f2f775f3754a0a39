package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// assertInertPage is assertInert for pages that load the portal's own
// scripts: those <script src="/static/..."> elements are set aside first.
func assertInertPage(t *testing.T, doc *goquery.Document, body string) {
	t.Helper()
	doc.Find(`script[src^="/static/"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) != "" {
			t.Errorf("a static script element has inline content %q", s.Text())
		}
	}).Remove()
	assertInert(t, doc, body)
}

// hostileServer serves a report, its nugget bank and its job, every text
// from the corpus or a model in them hostile.
func hostileServer(t *testing.T) *reportServer {
	t.Helper()
	docID := "evil/" + hostile
	text := "Intro " + hostile + " outro."
	store := &fakeStore{}
	store.add(pipeline.Document{ID: docID, Title: hostile, Text: text})
	s := newReportServer(t, store, web.Config{})
	nuggetID := `n1"><b id=x>`
	req := pipeline.Request{ID: "r1", Title: hostile, Background: hostile, ProblemStatement: hostile, Limit: 2000}
	withReport(s, pipeline.Report{
		ID:      9,
		Request: req,
		RunID:   hostile,
		Engine:  hostile,
		Sentences: []pipeline.Sentence{
			{Text: hostile, Citation: pipeline.Citation{DocID: docID, Ordinal: 0, Start: 6, End: 6 + len(scriptTag)}, NuggetID: nuggetID, Facet: hostile},
			{Text: "Unknown " + hostile, Citation: pipeline.Citation{DocID: hostile, Ordinal: 0, Start: 0, End: 3}, NuggetID: hostile, Facet: "2 " + hostile},
		},
		Facets:  []pipeline.Facet{{Heading: hostile, Description: hostile}, {Heading: "2 " + hostile, Description: hostile}},
		Nuggets: []pipeline.Nugget{{ID: nuggetID, Question: hostile, Answer: hostile, Rank: 1}},
	})
	s.jobs.mu.Lock()
	s.jobs.nuggets[5] = []pipeline.Nugget{
		{ID: nuggetID, Question: hostile, Answer: hostile, Rank: 1, Popularity: 2, Paraphrases: []string{hostile},
			Sources: []string{docID, hostile}, Features: map[string]float64{hostile: 1}},
		{ID: "n2", Question: hostile, Answer: hostile, Rank: 2, Popularity: 1},
		{ID: "n3", Question: hostile, Answer: hostile, Popularity: 1},
		{ID: hostile, Question: hostile, Answer: hostile},
		{ID: "n5", Question: hostile, Answer: hostile},
	}
	s.jobs.candidates[5] = []pipeline.Candidate{{NuggetID: hostile, Sentence: hostile}}
	s.jobs.retrieval[5] = []pipeline.RetrievedDoc{{Rank: 1, DocID: docID, Title: hostile}}
	s.jobs.mu.Unlock()
	j := sampleJob(5, pipeline.JobFailed)
	j.Request = req
	j.Engine = hostile
	j.Error = hostile
	j.ErrorStage = hostile
	j.Progress.Stage = hostile
	s.jobs.put(j)
	running := sampleJob(6, pipeline.JobRunning)
	running.Request = req
	running.Progress.Stage = hostile
	s.jobs.put(running)
	return s
}

func TestReportPagesEscapeCorpusAndModelText(t *testing.T) {
	s := hostileServer(t)
	for _, target := range []string{"/reports/9", "/reports/9/nuggets", "/reports/9/print", "/jobs/5", "/jobs/6", "/jobs"} {
		t.Run(target, func(t *testing.T) {
			rec := s.get(t, target)
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			assertInertPage(t, doc, rec.Body.String())
			if n := doc.Find("b#x").Length(); n != 0 {
				t.Errorf("an attribute-breaking nugget id made %d elements", n)
			}
		})
	}
}

func TestReportPageEscapesProvenance(t *testing.T) {
	s := hostileServer(t)
	doc := parseHTML(t, s.get(t, "/reports/9"))
	if got := byTestID(doc, "facet-heading").First().Text(); got != hostile {
		t.Errorf("facet heading = %q, want the hostile text as text", got)
	}
	first := byTestID(doc, "sentence").First()
	if got := first.Find(`[data-testid="provenance"] mark.cite`).Text(); got != scriptTag {
		t.Errorf("cited span = %q, want the hostile text as text", got)
	}
	// The citation's preview too.
	if got := first.Find(`[data-testid="ref-preview"] mark.cite`).Text(); got != scriptTag {
		t.Errorf("cited span in the preview = %q, want the hostile text as text", got)
	}
	if got := first.Find(`[data-testid="ref-preview"]`).Text(); !strings.Contains(got, hostile+", passage 0") {
		t.Errorf("preview = %q, want the hostile title as text", got)
	}
	if got := first.Find(`[data-testid="prov-question"]`).Text(); got != hostile {
		t.Errorf("nugget question = %q", got)
	}
	href, _ := first.Find(`[data-testid="prov-doc-link"]`).Attr("href")
	if want := views.DocumentSpanURL("evil/"+hostile, pipeline.Span{Start: 6, End: 6 + len(scriptTag)}); href != want {
		t.Errorf("document link = %q, want %q", href, want)
	}
	u, err := url.Parse(href)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/documents/") {
		t.Errorf("document link %q does not stay on the portal", href)
	}
}

func TestJobEventsEscapeText(t *testing.T) {
	s := hostileServer(t)
	body := s.get(t, "/jobs/5/events").Body.String()
	if strings.ContainsAny(strings.SplitN(body, "data: ", 2)[1], "<>") {
		t.Errorf("event data carries raw angle brackets: %s", body)
	}
}

func TestReportPagesUseNoInlineScriptOrStyle(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, sampleReport())
	withNuggetBank(s)
	s.jobs.put(sampleJob(1, pipeline.JobRunning))
	done := sampleJob(2, pipeline.JobDone)
	done.ReportID = 9
	s.jobs.put(done)
	for _, target := range []string{"/reports/new", "/jobs", "/jobs/1", "/jobs/2", "/reports/9", "/reports/9/nuggets", "/reports/9/print"} {
		t.Run(target, func(t *testing.T) {
			rec := s.get(t, target)
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			if n := doc.Find("style, [style], [onclick], [onload], [onsubmit]").Length(); n != 0 {
				t.Errorf("%d inline styles or event handlers, which the CSP blocks", n)
			}
			doc.Find("script").Each(func(_ int, sc *goquery.Selection) {
				src, ok := sc.Attr("src")
				if !ok || !strings.HasPrefix(src, "/static/") || strings.TrimSpace(sc.Text()) != "" {
					t.Errorf("script element src=%q with %d bytes inline: only the portal's own files may run", src, len(sc.Text()))
				}
			})
			if got := rec.Header().Get("Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'self';") {
				t.Errorf("CSP = %q", got)
			}
		})
	}
}
