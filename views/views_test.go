package views

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

func TestDocumentURL(t *testing.T) {
	tests := []struct {
		name     string
		id       string
		params   url.Values
		fragment string
		want     string
	}{
		{name: "plain", id: "doc1", want: "/documents/doc1"},
		{name: "slashes kept, segments escaped", id: "sotu/1790 washington", want: "/documents/sotu/1790%20washington"},
		{name: "reserved characters", id: "a?b#c%d", want: "/documents/a%3Fb%23c%25d"},
		{name: "backslash", id: `a\b`, want: "/documents/a%5Cb"},
		{name: "unicode", id: "über", want: "/documents/%C3%BCber"},
		{name: "dot-dot segment goes in the query", id: "../etc", want: "/documents/?id=..%2Fetc"},
		{name: "dot segment goes in the query", id: ".", want: "/documents/?id=."},
		{name: "dots inside a segment are fine", id: "v1..2/.hidden", want: "/documents/v1..2/.hidden"},
		{name: "params and fragment", id: "a b", params: url.Values{"hl": {"state & union"}}, fragment: "p3",
			want: "/documents/a%20b?hl=state+%26+union#p3"},
		{name: "params with query form", id: "..", params: url.Values{"span": {"1-2"}}, fragment: "cite",
			want: "/documents/?id=..&span=1-2#cite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DocumentURL(tt.id, tt.params, tt.fragment); got != tt.want {
				t.Errorf("DocumentURL(%q) = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}

func TestDocumentURLDoesNotModifyParams(t *testing.T) {
	params := url.Values{"hl": {"x"}}
	DocumentURL("..", params, "")
	if diff := cmp.Diff(url.Values{"hl": {"x"}}, params); diff != "" {
		t.Errorf("params changed (-want +got):\n%s", diff)
	}
}

func TestDocumentLinks(t *testing.T) {
	if got, want := DocumentHitURL("a/b", "union", 4), "/documents/a/b?hl=union#p4"; got != want {
		t.Errorf("DocumentHitURL = %q, want %q", got, want)
	}
	if got, want := DocumentHitURL("a", "", 0), "/documents/a#p0"; got != want {
		t.Errorf("DocumentHitURL without query = %q, want %q", got, want)
	}
	if got, want := DocumentSpanURL("a", pipeline.Span{Start: 10, End: 42}), "/documents/a?span=10-42#cite"; got != want {
		t.Errorf("DocumentSpanURL = %q, want %q", got, want)
	}
}

func TestReportLinks(t *testing.T) {
	got := []string{ReportURL(9), ReportNuggetsURL(9), ReportExportJSONURL(9), ReportExportMarkdownURL(9), ReportPrintURL(9)}
	want := []string{"/reports/9", "/reports/9/nuggets", "/reports/9/export.json", "/reports/9/export.md", "/reports/9/print"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report links (-want +got):\n%s", diff)
	}
}

func TestSearchURL(t *testing.T) {
	tests := []struct {
		q    string
		docs bool
		page int
		want string
	}{
		{q: "union", page: 1, want: "/search?q=union"},
		{q: "state & union", docs: true, page: 2, want: "/search?docs=1&page=2&q=state+%26+union"},
		{q: "", page: 0, want: "/search?q="},
	}
	for _, tt := range tests {
		if got := SearchURL(tt.q, tt.docs, tt.page); got != tt.want {
			t.Errorf("SearchURL(%q, %t, %d) = %q, want %q", tt.q, tt.docs, tt.page, got, tt.want)
		}
	}
}

func TestPagerLinks(t *testing.T) {
	// numbers renders the pager as numbers, "*" marking the current page
	// and "…" the gaps.
	numbers := func(links []pageLink) []string {
		var out []string
		for _, l := range links {
			switch {
			case l.Gap:
				out = append(out, "…")
			case l.Current:
				out = append(out, "*"+strconv.Itoa(l.Number))
			default:
				out = append(out, strconv.Itoa(l.Number))
			}
		}
		return out
	}
	tests := []struct {
		name        string
		page, pages int
		want        []string
	}{
		{name: "single page", page: 1, pages: 1, want: nil},
		{name: "few pages", page: 2, pages: 3, want: []string{"1", "*2", "3"}},
		{name: "start of many", page: 1, pages: 20, want: []string{"*1", "2", "3", "…", "20"}},
		{name: "middle of many", page: 10, pages: 20, want: []string{"1", "…", "8", "9", "*10", "11", "12", "…", "20"}},
		{name: "near the start", page: 4, pages: 20, want: []string{"1", "2", "3", "*4", "5", "6", "…", "20"}},
		{name: "end of many", page: 20, pages: 20, want: []string{"1", "…", "18", "19", "*20"}},
		{name: "past the end", page: 25, pages: 20, want: []string{"1", "…", "20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := numbers(pagerLinks("q", false, tt.page, tt.pages))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pager (-want +got):\n%s", diff)
			}
		})
	}
	links := pagerLinks("a b", true, 1, 2)
	if got, want := links[1].URL, "/search?docs=1&page=2&q=a+b"; got != want {
		t.Errorf("page 2 URL = %q, want %q", got, want)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"count zero", formatCount(0), "0"},
		{"count hundreds", formatCount(999), "999"},
		{"count thousands", formatCount(1000), "1,000"},
		{"count millions", formatCount(int64(12345678)), "12,345,678"},
		{"count negative", formatCount(-1234), "-1,234"},
		{"score", formatScore(12.34567), "12.346"},
		{"score zero", formatScore(0), "0.000"},
		{"took sub-millisecond", formatTook(400 * time.Microsecond), "0.4 ms"},
		{"took milliseconds", formatTook(123400 * time.Microsecond), "123 ms"},
		{"took seconds", formatTook(12500 * time.Millisecond), "12.5 s"},
		{"time zero", formatTime(time.Time{}), "never"},
		{"time in UTC", formatTime(time.Date(2026, 2, 3, 4, 5, 0, 0, time.FixedZone("X", 3600))), "2026-02-03 03:05 UTC"},
		{"excerpt short", excerpt("  short text ", 20), "short text"},
		{"excerpt at a word", excerpt("the quick brown fox jumps", 18), "the quick brown…"},
		{"excerpt mid word", excerpt("abcdefghijklmnopqrstuvwxyz", 10), "abcdefghij…"},
		{"excerpt multibyte", excerpt("ééééé", 3), "ééé…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestMetadataFields(t *testing.T) {
	got := metadataFields(map[string]string{
		"url":    "https://example.org/a?b=c",
		"source": "javascript:alert(1)",
		"date":   "1790-01-08",
		"mirror": "ftp://example.org/x",
		"ref":    "//example.org/protocol-relative",
	})
	want := []metaField{
		{Key: "date", Value: "1790-01-08"},
		{Key: "mirror", Value: "ftp://example.org/x"},
		{Key: "ref", Value: "//example.org/protocol-relative"},
		{Key: "source", Value: "javascript:alert(1)"},
		{Key: "url", Value: "https://example.org/a?b=c", Link: "https://example.org/a?b=c"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadataFields (-want +got):\n%s", diff)
	}
}

func TestCiteDocumentsOncePerDocument(t *testing.T) {
	refs := []Reference{
		{Number: 1, Source: CitedSource{DocID: "tr-1907", Title: "Theodore Roosevelt (1907)", Ordinal: 3}},
		{Number: 2, Source: CitedSource{DocID: "gone", DocumentMissing: true}},
		{Number: 3, Source: CitedSource{DocID: "tr-1907", Title: "Theodore Roosevelt (1907)", Ordinal: 9}},
		{Number: 4, Source: CitedSource{DocID: "wilson-1913"}},
	}
	var got []string
	for _, s := range citeDocuments(refs) {
		got = append(got, s.DocID)
	}
	if strings.Join(got, ",") != "tr-1907,wilson-1913" {
		t.Errorf("cite documents %v, want each present document once", got)
	}
}

// TestRunNotesLink: the run notes link to the request's form, filled in,
// for a viewer who may start reports, and not for one who may not nor
// without the report's job.
func TestRunNotesLink(t *testing.T) {
	notes := []pipeline.RunNote{{Stage: "Subject", Text: "Only 4 of the request's 100 best passages speak of its subject"}}
	render := func(v Viewer, jobID int64) string {
		var b strings.Builder
		if err := runNotes(notes, "run-notes", jobID).Render(WithViewer(context.Background(), v), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	analyst := Viewer{Name: "alan", Role: auth.RoleAnalyst}
	if html := render(analyst, 5); !strings.Contains(html, `href="`+ResubmitURL(5)+`"`) || !strings.Contains(html, "Only 4 of the request") {
		t.Errorf("an analyst's run notes:\n%s", html)
	}
	if html := render(Viewer{Name: "grace", Role: auth.RoleReviewer}, 5); strings.Contains(html, "run-notes-resubmit") {
		t.Errorf("a reviewer is offered the form:\n%s", html)
	}
	if html := render(analyst, 0); strings.Contains(html, "run-notes-resubmit") {
		t.Errorf("run notes without a job link to a form:\n%s", html)
	}
	if html := render(analyst, 0); !strings.Contains(html, "A note from the run") {
		t.Errorf("one note reads %q", html)
	}
}
