package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// Each citation marker links to its cited span on the document's page
// and is described by a preview of the cited passage with the span
// marked, hidden until pointed at or focused (the style sheet); a
// citation whose document is gone says so.
func TestReportCitationPreview(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Sentences = append(rep.Sentences, pipeline.Sentence{Text: "Gone.", Citation: pipeline.Citation{DocID: "gone", Ordinal: 0, Start: 0, End: 4}, NuggetID: "n1"})
	withReport(s, rep)
	rec := s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	type preview struct{ Href, Source, Marked, Text string }
	var got []preview
	for i, sent := range byTestID(doc, "sentence").EachIter() {
		ref := sent.Find(`[data-testid="sentence-ref"]`)
		p := sent.Find(`[data-testid="ref-preview"]`)
		id, _ := p.Attr("id")
		if by, _ := ref.Attr("aria-describedby"); by == "" || by != id {
			t.Errorf("sentence %d: marker described by %q, preview id %q", i+1, by, id)
		}
		if _, hidden := p.Attr("hidden"); !hidden || p.AttrOr("role", "") != "tooltip" {
			t.Errorf("sentence %d: preview not a hidden tooltip", i+1)
		}
		href, _ := ref.Attr("href")
		got = append(got, preview{href, strings.Join(strings.Fields(p.Find(".ref-preview-source").Text()), " "),
			p.Find("mark.cite").Text(), strings.Join(strings.Fields(p.Find(`[data-testid="ref-preview-text"]`).Text()), " ")})
	}
	span := func(id string, a, b int) string { return views.DocumentSpanURL(id, pipeline.Span{Start: a, End: b}) }
	want := []preview{
		{span(sotu, 21, 39), "[1] Address Before a Joint Session, passage 0", "Our economy grows.", "The Union is strong. Our economy grows."},
		{span("news/wind", 0, 29), "[2] Wind subsidies in Denmark, passage 0", "Denmark paid feed-in tariffs.", "Denmark paid feed-in tariffs. Wind power grew fast."},
		{span(sotu, 54, 72), "[3] Address Before a Joint Session, passage 1", "the union is sound", "The state of the union is sound, and the union endures."},
		{span(sotu, 0, 20), "[1] Address Before a Joint Session, passage 0", "The Union is strong.", "The Union is strong. Our economy grows."},
		{span("gone", 0, 4), "[4] gone, passage 0", "", "The document is no longer in the collection."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("citation previews (-want +got)\n%s", diff)
	}
}
