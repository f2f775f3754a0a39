package web_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/crucible-portal/crucible/web"
)

// citingServer serves the documents "cited" and "quiet" and two reports
// kept in SQLite: report 1 (a hostile title) cites "cited" in its
// sentence 2, report 2 in its sentences 1 and 3; nothing cites "quiet".
// It returns the server and the span report 1's sentence cites.
func citingServer(t *testing.T) (*reportServer, pipeline.Span) {
	t.Helper()
	ctx := context.Background()
	text := "The tariff rose in 1890. " + hostile + " Duties fell later. The end."
	store := &fakeStore{}
	store.add(pipeline.Document{ID: "cited", Title: "Cited address", Text: text}, 25)
	store.add(pipeline.Document{ID: "quiet", Title: "Quiet address", Text: "Nobody cites this."})
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	duties := strings.Index(text, "Duties")
	span := pipeline.Span{Start: duties, End: duties + len("Duties fell later.")}
	reports := []struct {
		title     string
		sentences []pipeline.Sentence
	}{
		{hostile, []pipeline.Sentence{
			{Text: "Elsewhere.", Citation: pipeline.Citation{DocID: "quiet-not", Ordinal: 0, Start: 0, End: 6}},
			{Text: "Duties fell, " + hostile, Citation: pipeline.Citation{DocID: "cited", Ordinal: 1, Start: span.Start, End: span.End}},
		}},
		{"Tariffs", []pipeline.Sentence{
			{Text: "The tariff rose in 1890.", Citation: pipeline.Citation{DocID: "cited", Ordinal: 0, Start: 0, End: 24}},
			{Text: "Elsewhere.", Citation: pipeline.Citation{DocID: "quiet-not", Ordinal: 0, Start: 0, End: 6}},
			{Text: "It ended.", Citation: pipeline.Citation{DocID: "cited", Ordinal: 1, Start: len(text) - 8, End: len(text)}},
		}},
	}
	for i, r := range reports {
		req := pipeline.Request{ID: "r" + string(rune('1'+i)), Title: r.title, ProblemStatement: "What about tariffs?", Limit: 2000}
		j, _, err := db.CreateJob(ctx, pipeline.Job{Request: req, Settings: pipeline.DefaultSettings(), Engine: "offline engine"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveReport(ctx, j.ID, pipeline.Report{Request: req, Settings: pipeline.DefaultSettings(), Sentences: r.sentences}); err != nil {
			t.Fatal(err)
		}
	}
	return newReportServer(t, store, web.Config{}, func(rd *reportDeps) { rd.jobs = db }), span
}

// A document page lists the report sentences that cite it, linking to
// each sentence on its report's page, all text escaped; opened from a
// citation (?span=), the sentence citing that span comes first, marked,
// and the line saying which span is highlighted links to it.
func TestDocumentCitedIn(t *testing.T) {
	s, span := citingServer(t)

	rec := s.get(t, "/documents/cited")
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	doc := parseHTML(t, rec)
	assertInert(t, doc, body)
	type item struct{ Report, Href, Text string }
	var got []item
	for _, li := range byTestID(doc, "cited-in-item").EachIter() {
		href, _ := li.Find(`[data-testid="cited-in-link"]`).Attr("href")
		got = append(got, item{
			Report: li.Find(`[data-testid="cited-in-report"]`).Text(),
			Href:   href,
			Text:   li.Find(`[data-testid="cited-in-text"]`).Text(),
		})
	}
	want := []item{
		{"Tariffs", "/reports/2#s1", "The tariff rose in 1890."},
		{"Tariffs", "/reports/2#s3", "It ended."},
		{hostile, "/reports/1#s2", "Duties fell, " + hostile},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cited in (-want +got)\n%s", diff)
	}
	if got := textOf(doc, "cited-in-summary"); !strings.HasPrefix(got, "3 report sentences cite") {
		t.Errorf("summary %q, want it to count 3 sentences", got)
	}
	if n := doc.Find(".cited-in-item.current").Length(); n != 0 {
		t.Errorf("%d sentences marked as citing the highlighted span, with none highlighted", n)
	}

	// Opened from report 1's citation: its sentence comes first.
	rec = s.get(t, "/documents/cited?span="+spanParam(span))
	wantStatus(t, rec, http.StatusOK)
	doc = parseHTML(t, rec)
	assertInert(t, doc, rec.Body.String())
	first := byTestID(doc, "cited-in-item").First()
	if href, _ := first.Find(`[data-testid="cited-in-link"]`).Attr("href"); href != "/reports/1#s2" || !first.HasClass("current") {
		t.Errorf("first cited-in sentence links to %q (current %v), want report 1's sentence 2, marked", href, first.HasClass("current"))
	}
	if href, _ := byTestID(doc, "span-cited-by").Attr("href"); href != "/reports/1#s2" {
		t.Errorf("the highlighted span's line links to %q, want /reports/1#s2", href)
	}
	if got := byTestID(doc, "span-cited-by").Text(); got != hostile+", sentence 2" {
		t.Errorf("the highlighted span's line names %q", got)
	}

	// The link's target exists on the report page.
	rec = s.get(t, "/reports/1")
	wantStatus(t, rec, http.StatusOK)
	if n := parseHTML(t, rec).Find(`#s2[data-testid="sentence"]`).Length(); n != 1 {
		t.Errorf("report 1 has %d sentences with the id s2, want 1", n)
	}

	// A document nobody cites says so.
	rec = s.get(t, "/documents/quiet")
	wantStatus(t, rec, http.StatusOK)
	doc = parseHTML(t, rec)
	if byTestID(doc, "cited-in-none").Length() != 1 || byTestID(doc, "cited-in-item").Length() != 0 {
		t.Errorf("a document nobody cites: section %q", textOf(doc, "cited-in"))
	}
}

func spanParam(s pipeline.Span) string {
	return strconv.Itoa(s.Start) + "-" + strconv.Itoa(s.End)
}
