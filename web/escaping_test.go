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

// Hostile strings a corpus or a model may carry.
const (
	scriptTag  = `<script>alert(1)</script>`
	imgOnerror = `"><img src=x onerror=alert(1)>`
	hostile    = scriptTag + " and " + imgOnerror
)

// assertInert fails when the parsed page holds any element the hostile
// strings would create, or any event-handler attribute, and checks the
// strings still show as text.
func assertInert(t *testing.T, doc *goquery.Document, body string) {
	t.Helper()
	if n := doc.Find("script").Length(); n != 0 {
		t.Errorf("page has %d <script> elements, want 0", n)
	}
	if n := doc.Find("img").Length(); n != 0 {
		t.Errorf("page has %d <img> elements, want 0", n)
	}
	if n := doc.Find("[onerror]").Length(); n != 0 {
		t.Errorf("page has %d elements with onerror, want 0", n)
	}
	doc.Find("a").Each(func(_ int, a *goquery.Selection) {
		if href, _ := a.Attr("href"); strings.HasPrefix(strings.ToLower(strings.TrimSpace(href)), "javascript:") {
			t.Errorf("page links to %q", href)
		}
	})
	if !strings.Contains(doc.Text(), scriptTag) || !strings.Contains(doc.Text(), imgOnerror) {
		t.Errorf("hostile text is not shown as text")
	}
	if strings.Contains(body, scriptTag) {
		t.Errorf("raw %s in the response body", scriptTag)
	}
}

func TestSearchPageEscapesCorpusText(t *testing.T) {
	hit := pipeline.Hit{
		Rank: 1, Score: 1.5, DocID: hostile, Ordinal: 0,
		Title: hostile,
		Text:  hostile,
		Fragments: []pipeline.Fragment{{
			{Text: scriptTag},
			{Text: imgOnerror, Match: true},
		}},
	}
	noFragment := hit
	noFragment.Rank, noFragment.Fragments, noFragment.Title = 2, nil, ""
	s := newTestServer(t, &fakeSearcher{hits: []pipeline.Hit{hit, noFragment}}, nil, web.Config{})

	rec := s.get(t, "/search?q="+url.QueryEscape(hostile))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	assertInert(t, doc, rec.Body.String())
	if got := byTestID(doc, "result-title").First().Text(); got != hostile {
		t.Errorf("title text = %q, want %q", got, hostile)
	}
	if got := byTestID(doc, "result-fragment").First().Find("mark").Text(); got != imgOnerror {
		t.Errorf("marked fragment text = %q, want %q", got, imgOnerror)
	}
	if v, _ := byTestID(doc, "search-input").Attr("value"); v != hostile {
		t.Errorf("query box value = %q, want %q", v, hostile)
	}
	// The link must lead back to the hostile document id.
	href, _ := byTestID(doc, "result-title").First().Attr("href")
	if want := views.DocumentHitURL(hostile, hostile, 0); href != want {
		t.Errorf("result link = %q, want %q", href, want)
	}
}

func TestSearchErrorEscapesQuery(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{err: pipeline.Invalidf("cannot parse %s", hostile)}, nil, web.Config{})
	rec := s.get(t, "/search?q="+url.QueryEscape(hostile))
	wantStatus(t, rec, http.StatusBadRequest)
	assertInert(t, parseHTML(t, rec), rec.Body.String())
}

func TestDocumentPageEscapesCorpusText(t *testing.T) {
	store := &fakeStore{}
	text := "Intro " + hostile + " outro."
	store.add(pipeline.Document{
		ID:    "evil/" + hostile,
		Title: hostile,
		Text:  text,
		Metadata: map[string]string{
			scriptTag: imgOnerror,
			"url":     "javascript:alert(1)",
			"link":    `https://example.org/"><script>alert(1)</script>`,
		},
		Source: hostile,
	}, 6)
	s := newTestServer(t, nil, store, web.Config{})

	v := url.Values{"hl": {hostile}, "span": {"6-20"}}
	target, _, _ := strings.Cut(views.DocumentURL("evil/"+hostile, v, ""), "#")
	rec := s.get(t, target)
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	assertInert(t, doc, rec.Body.String())
	if got := textOf(doc, "doc-title"); got != hostile {
		t.Errorf("title = %q, want %q", got, hostile)
	}
	if got := byTestID(doc, "doc-id").Text(); got != "evil/"+hostile {
		t.Errorf("id = %q", got)
	}
	if n := doc.Find("mark").Length(); n == 0 {
		t.Errorf("no highlights on a page with hl and span")
	}
	// A javascript: URL in metadata stays text.
	doc.Find(`[data-testid="meta-row"]`).Each(func(_ int, row *goquery.Selection) {
		if row.Find(`[data-testid="meta-key"]`).Text() == "url" && row.Find("a").Length() != 0 {
			t.Errorf("javascript: metadata URL rendered as a link")
		}
	})
}

func TestErrorPageEscapesMessage(t *testing.T) {
	s := newTestServer(t, nil, &fakeStore{}, web.Config{})
	rec := s.get(t, views.DocumentURL(hostile, nil, ""))
	wantStatus(t, rec, http.StatusNotFound)
	doc := parseHTML(t, rec)
	if n := doc.Find("script").Length() + doc.Find("img").Length(); n != 0 {
		t.Errorf("404 page has %d script/img elements, want 0", n)
	}
	if got := textOf(doc, "error-message"); !strings.Contains(got, scriptTag) {
		t.Errorf("404 message = %q, want the id shown as text", got)
	}
}
