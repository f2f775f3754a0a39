package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// facetedReport is the sample report grouped under two facets, with its
// last sentence placed by hand under none.
func facetedReport() pipeline.Report {
	rep := sampleReport()
	rep.Facets = []pipeline.Facet{{Heading: "The economy"}, {Heading: "Wind & the union"}}
	for i, f := range []string{"The economy", "Wind & the union", "Wind & the union", ""} {
		rep.Sentences[i].Facet = f
	}
	return rep
}

// TestReportPageFacetHeadings: the report page shows each facet's heading
// above its sentences, in the report's order, as headings that label
// their sections; the sentences keep their numbers.
func TestReportPageFacetHeadings(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, facetedReport())
	rec := s.get(t, "/reports/9")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	if diff := cmp.Diff([]string{"The economy", "Wind & the union"}, texts(doc, "facet-heading")); diff != "" {
		t.Errorf("facet headings (-want +got):\n%s", diff)
	}
	type group struct {
		Heading   string
		Sentences []string
	}
	var groups []group
	byTestID(doc, "facet").Each(func(_ int, sec *goquery.Selection) {
		h := sec.Find(`[data-testid="facet-heading"]`)
		id, _ := h.Attr("id")
		if goquery.NodeName(sec) != "section" || goquery.NodeName(h) != "h2" || sec.AttrOr("aria-labelledby", "") != id || id == "" {
			t.Errorf("facet %q is not a <section> labelled by its <h2>", h.Text())
		}
		g := group{Heading: h.Text()}
		sec.Find(`[data-testid="sentence"]`).Each(func(_ int, d *goquery.Selection) {
			g.Sentences = append(g.Sentences, d.AttrOr("id", ""))
		})
		groups = append(groups, g)
	})
	want := []group{
		{"The economy", []string{views.SentenceAnchor(1)}},
		{"Wind & the union", []string{views.SentenceAnchor(2), views.SentenceAnchor(3)}},
	}
	if diff := cmp.Diff(want, groups); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	// The hand-placed sentence stands outside the sections, after them.
	last := byTestID(doc, "sentence").Last()
	if last.AttrOr("id", "") != views.SentenceAnchor(4) || last.ParentsFiltered(`[data-testid="facet"]`).Length() != 0 {
		t.Errorf("the sentence without a facet is inside a facet's section")
	}
	if diff := cmp.Diff([]string{"[1]", "[2]", "[3]", "[1]"}, texts(doc, "sentence-ref")); diff != "" {
		t.Errorf("citation numbers (-want +got):\n%s", diff)
	}

	// A report without facets has no headings.
	s2 := newReportServer(t, reportStore(), web.Config{})
	withReport(s2, sampleReport())
	if n := byTestID(parseHTML(t, s2.get(t, "/reports/9")), "facet-heading").Length(); n != 0 {
		t.Errorf("an ungrouped report shows %d facet headings", n)
	}
}

func TestReportPrintAndMarkdownFacetHeadings(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	withReport(s, facetedReport())
	doc := parseHTML(t, s.get(t, views.ReportPrintURL(9)))
	if diff := cmp.Diff([]string{"The economy", "Wind & the union"}, texts(doc, "print-facet-heading")); diff != "" {
		t.Errorf("printed facet headings (-want +got):\n%s", diff)
	}
	var paragraphs []string
	byTestID(doc, "print-body").Each(func(_ int, p *goquery.Selection) {
		var ss []string
		p.Find(`[data-testid="print-sentence"]`).Each(func(_ int, s *goquery.Selection) { ss = append(ss, s.Text()) })
		paragraphs = append(paragraphs, strings.Join(ss, " | "))
	})
	want := []string{
		"The economy is growing.",
		"Denmark paid feed-in tariffs for wind power. | The union is sound.",
		"The Union is strong.",
	}
	if diff := cmp.Diff(want, paragraphs); diff != "" {
		t.Errorf("printed paragraphs (-want +got):\n%s", diff)
	}
	if h := byTestID(doc, "print-facet-heading").First(); goquery.NodeName(h) != "h3" {
		t.Errorf("printed facet heading is a <%s>, want <h3> under the text's <h2>", goquery.NodeName(h))
	}

	rec := s.get(t, views.ReportExportMarkdownURL(9))
	wantStatus(t, rec, http.StatusOK)
	md := rec.Body.String()
	for _, want := range []string{"## The economy\n\nThe economy is growing. [1]\n\n## Wind & the union\n\n", "The union is sound. [3]\n\nThe Union is strong. [1]\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestAuthoringKeepsFacets: moved and edited sentences keep their
// facets, a heading shows wherever the facet changes, an added candidate
// takes the facet of its nugget's sentence, and version pages show the
// facets too.
func TestAuthoringKeepsFacets(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, analystUser))
	s.jobs.mu.Lock()
	rep := s.jobs.reports[12]
	rep.Sentences = append([]pipeline.Sentence(nil), rep.Sentences...)
	for i, f := range []string{"Tariffs", "Tariffs", "Prices and trade", "Prices and trade"} {
		rep.Sentences[i].Facet = f
	}
	rep.Facets = []pipeline.Facet{{Heading: "Tariffs"}, {Heading: "Prices and trade"}}
	s.jobs.reports[12] = rep
	s.jobs.mu.Unlock()

	b, token := authorBrowser(t, s, analystUser)
	if diff := cmp.Diff([]string{"Tariffs", "Prices and trade"}, texts(reportPage(t, b, "/reports/12"), "facet-heading")); diff != "" {
		t.Errorf("headings as generated (-want +got):\n%s", diff)
	}
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/2/move", formOf("version", "1", "direction", "down")), "/reports/12#s3")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/1/text", formOf("version", "2", "text", "Steel tariffs rose to 25 percent.")), "/reports/12#s1")
	doc := reportPage(t, b, "/reports/12")
	if diff := cmp.Diff([]string{"Tariffs", "Prices and trade", "Tariffs", "Prices and trade"}, texts(doc, "facet-heading")); diff != "" {
		t.Errorf("headings after moving sentence 2 down (-want +got):\n%s", diff)
	}
	// Candidate 1 answers nugget b, whose sentence stands under Tariffs.
	wantRedirect(t, postWith(b, token, "/reports/12/sentences", formOf("version", "3", "candidate", "1")), "/reports/12#s4")
	v := reportPage(t, b, "/reports/12/versions/4")
	if diff := cmp.Diff([]string{"Tariffs", "Prices and trade", "Tariffs", "Prices and trade"}, texts(v, "version-facet")); diff != "" {
		t.Errorf("version 4 facets (-want +got):\n%s", diff)
	}
	if got := texts(v, "version-sentence-text"); len(got) != 5 || got[3] != "Canada put duties on whiskey." {
		t.Errorf("version 4 sentences %q, want the candidate fourth, after nugget b's sentence", got)
	}
}
