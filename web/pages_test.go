package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// makeHits returns n hits ranked 1..n with a highlighted fragment each.
func makeHits(n int) []pipeline.Hit {
	hits := make([]pipeline.Hit, n)
	for i := range hits {
		hits[i] = pipeline.Hit{
			Rank:      i + 1,
			Score:     20.0 / float64(i+1),
			DocID:     fmt.Sprintf("sotu/%d address", 1790+i),
			PassageID: pipeline.PassageID(fmt.Sprintf("sotu/%d address", 1790+i), i%4),
			Ordinal:   i % 4,
			Title:     fmt.Sprintf("Address %d", 1790+i),
			Text:      "The state of the union is strong.",
			Fragments: []pipeline.Fragment{{
				{Text: "The state of the "},
				{Text: "union", Match: true},
				{Text: " is strong."},
			}},
		}
	}
	return hits
}

func TestHomePage(t *testing.T) {
	store := &fakeStore{stats: pipeline.CollectionStats{
		Documents:  233,
		Passages:   12345,
		Characters: 10987654,
		LastIngest: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
	}}
	s := newTestServer(t, nil, store, web.Config{})
	rec := s.get(t, "/")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	got := map[string]string{
		"documents":   textOf(doc, "stats-documents"),
		"passages":    textOf(doc, "stats-passages"),
		"characters":  textOf(doc, "stats-characters"),
		"last ingest": textOf(doc, "stats-last-ingest"),
		"version":     textOf(doc, "version"),
		"engine":      textOf(doc, "engine"),
	}
	want := map[string]string{
		"documents":   "233",
		"passages":    "12,345",
		"characters":  "10,987,654",
		"last ingest": "2026-03-04 05:06 UTC",
		"version":     "v1.2.3",
		"engine":      "offline engine",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("home page (-want +got):\n%s", diff)
	}
	if n := byTestID(doc, "empty-collection").Length(); n != 0 {
		t.Errorf("empty-collection notice shown for a non-empty collection")
	}
	if n := byTestID(doc, "home-search-form").Find(`input[name="q"]`).Length(); n != 1 {
		t.Errorf("home search form has %d q inputs, want 1", n)
	}
	if cur, _ := byTestID(doc, "nav-home").Attr("aria-current"); cur != "page" {
		t.Errorf("Home nav item aria-current = %q, want page", cur)
	}
	if n := byTestID(doc, "header-search").Length(); n != 1 {
		t.Errorf("header search forms = %d, want 1", n)
	}
}

func TestHomePageEmptyCollection(t *testing.T) {
	s := newTestServer(t, nil, &fakeStore{}, web.Config{})
	rec := s.get(t, "/")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	notice := textOf(doc, "empty-collection")
	if !strings.Contains(notice, "crucible ingest --data DIR FILE.jsonl") || !strings.Contains(notice, "with the portal stopped") {
		t.Errorf("empty-collection notice = %q, want the ingest command and that the portal must be stopped for it", notice)
	}
	// Without upload pages nobody can upload here: the notice says whom to ask.
	if byTestID(doc, "empty-ask").Length() != 1 || byTestID(doc, "empty-upload").Length() != 0 {
		t.Errorf("without upload pages the notice must not link to them: %q", notice)
	}

	// With upload pages, an administrator (local mode) gets the link.
	up := newFakeUploads(t)
	e, err := web.New(web.Config{LocalMode: true}, web.Deps{Searcher: &fakeSearcher{}, Store: &fakeStore{}, Uploads: up})
	if err != nil {
		t.Fatal(err)
	}
	s2 := newTestServerOf(t, &testServer{e: e, searcher: &fakeSearcher{}, store: &fakeStore{}, log: &bytes.Buffer{}})
	doc = parseHTML(t, s2.get(t, "/"))
	if href, _ := byTestID(doc, "empty-upload").Find("a").Attr("href"); href != "/admin/upload" {
		t.Errorf("upload link %q in %q", href, textOf(doc, "empty-collection"))
	}
	if n := byTestID(doc, "stats").Length(); n != 0 {
		t.Errorf("statistics shown for an empty collection")
	}
}

func TestSearchPage(t *testing.T) {
	hits := makeHits(25)
	s := newTestServer(t, &fakeSearcher{hits: hits, took: 1500 * time.Microsecond}, nil, web.Config{})

	rec := s.get(t, "/search?q=union")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	if v, _ := byTestID(doc, "search-input").Attr("value"); v != "union" {
		t.Errorf("query box value = %q, want %q", v, "union")
	}
	if got, want := textOf(doc, "result-total"), "25"; got != want {
		t.Errorf("result total = %q, want %q", got, want)
	}
	if got, want := textOf(doc, "result-took"), "1.5 ms"; got != want {
		t.Errorf("time taken = %q, want %q", got, want)
	}
	if got, want := textOf(doc, "page-status"), "page 1 of 3"; got != want {
		t.Errorf("page status = %q, want %q", got, want)
	}
	if got, want := texts(doc, "result-rank"), []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}; !cmp.Equal(want, got) {
		t.Errorf("ranks (-want +got):\n%s", cmp.Diff(want, got))
	}

	first := byTestID(doc, "result").First()
	title := first.Find(`[data-testid="result-title"]`)
	href, _ := title.Attr("href")
	if want := "/documents/sotu/1790%20address?hl=union#p0"; href != want {
		t.Errorf("first result link = %q, want %q", href, want)
	}
	if got := strings.TrimSpace(title.Text()); got != "Address 1790" {
		t.Errorf("first result title = %q, want %q", got, "Address 1790")
	}
	if got := first.Find(`[data-testid="result-docid"]`).Text(); got != "sotu/1790 address" {
		t.Errorf("first result doc id = %q", got)
	}
	if got := first.Find(`[data-testid="result-score"]`).Text(); got != "20.000" {
		t.Errorf("first result score = %q, want 20.000", got)
	}
	if got := byTestID(doc, "result").Eq(2).Find(`[data-testid="result-score"]`).Text(); got != "6.667" {
		t.Errorf("third result score = %q, want 6.667", got)
	}
	frag := first.Find(`[data-testid="result-fragment"]`)
	if got := strings.TrimSpace(frag.Text()); got != "The state of the union is strong." {
		t.Errorf("fragment text = %q", got)
	}
	if got := frag.Find("mark").Map(func(_ int, m *goquery.Selection) string { return m.Text() }); !cmp.Equal(got, []string{"union"}) {
		t.Errorf("fragment marks = %q, want [union]", got)
	}

	req := s.searcher.lastRequest(t)
	wantReq := pipeline.SearchRequest{Query: "union", K: 10, Offset: 0, Highlight: true, Count: true}
	if diff := cmp.Diff(wantReq, req); diff != "" {
		t.Errorf("search request (-want +got):\n%s", diff)
	}
	if cur, _ := byTestID(doc, "nav-search").Attr("aria-current"); cur != "page" {
		t.Errorf("Search nav item aria-current = %q, want page", cur)
	}
}

func TestSearchPaging(t *testing.T) {
	tests := []struct {
		name           string
		page           string
		wantStatus     int
		wantOffset     int
		wantK          int
		wantRanks      []string
		wantPageStatus string // page-status text, empty when not shown
		wantPrev       bool
		wantNext       bool
		wantPast       string // past-end message, empty when not shown
	}{
		{name: "missing", page: "", wantStatus: 200, wantOffset: 0, wantK: 10, wantRanks: ranks(1, 10), wantPageStatus: "page 1 of 3", wantNext: true},
		{name: "zero", page: "0", wantStatus: 200, wantOffset: 0, wantK: 10, wantRanks: ranks(1, 10), wantPageStatus: "page 1 of 3", wantNext: true},
		{name: "negative", page: "-4", wantStatus: 200, wantOffset: 0, wantK: 10, wantRanks: ranks(1, 10), wantPageStatus: "page 1 of 3", wantNext: true},
		{name: "not a number", page: "two", wantStatus: 200, wantOffset: 0, wantK: 10, wantRanks: ranks(1, 10), wantPageStatus: "page 1 of 3", wantNext: true},
		{name: "overflowing number", page: "99999999999999999999999", wantStatus: 200, wantOffset: 0, wantK: 10, wantRanks: ranks(1, 10), wantPageStatus: "page 1 of 3", wantNext: true},
		{name: "middle", page: "2", wantStatus: 200, wantOffset: 10, wantK: 10, wantRanks: ranks(11, 20), wantPageStatus: "page 2 of 3", wantPrev: true, wantNext: true},
		{name: "last", page: "3", wantStatus: 200, wantOffset: 20, wantK: 10, wantRanks: ranks(21, 25), wantPageStatus: "page 3 of 3", wantPrev: true},
		{name: "past the end", page: "4", wantStatus: 404, wantOffset: 30, wantK: 10, wantPast: "No results on page 4; there are 3 pages."},
		{name: "far past the end", page: "5000", wantStatus: 404, wantOffset: 0, wantK: 1, wantPast: "No results on page 5000; there are 3 pages."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, &fakeSearcher{hits: makeHits(25)}, nil, web.Config{})
			rec := s.get(t, "/search?q=union&page="+url.QueryEscape(tt.page))
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)

			req := s.searcher.lastRequest(t)
			if req.Offset != tt.wantOffset || req.K != tt.wantK {
				t.Errorf("search request offset/k = %d/%d, want %d/%d", req.Offset, req.K, tt.wantOffset, tt.wantK)
			}
			if diff := cmp.Diff(tt.wantRanks, texts(doc, "result-rank"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ranks (-want +got):\n%s", diff)
			}
			if got := textOf(doc, "page-status"); got != tt.wantPageStatus {
				t.Errorf("page status = %q, want %q", got, tt.wantPageStatus)
			}
			if got := byTestID(doc, "pager-prev").Length() == 1; got != tt.wantPrev {
				t.Errorf("previous link shown = %t, want %t", got, tt.wantPrev)
			}
			if got := byTestID(doc, "pager-next").Length() == 1; got != tt.wantNext {
				t.Errorf("next link shown = %t, want %t", got, tt.wantNext)
			}
			if got := textOf(doc, "past-end"); !strings.HasPrefix(got, tt.wantPast) || (tt.wantPast == "") != (got == "") {
				t.Errorf("past-end message = %q, want prefix %q", got, tt.wantPast)
			}
		})
	}
}

func TestSearchLowerBoundTotal(t *testing.T) {
	tests := []struct {
		name           string
		page           string
		wantRanks      []string
		wantSummary    string // prefix of the result summary
		wantTotal      string
		wantPageStatus string
		wantNext       string // href of the next link, empty when not shown
		wantPageLinks  []string
	}{
		{
			name: "first page", page: "1", wantRanks: ranks(1, 10),
			wantSummary: "at least 20 documents", wantTotal: "20", wantPageStatus: "page 1 of at least 2",
			wantNext: "/search?docs=1&page=2&q=the", wantPageLinks: []string{"2"},
		},
		{
			name: "last page counted is full", page: "2", wantRanks: ranks(11, 20),
			wantSummary: "at least 20 documents", wantTotal: "20", wantPageStatus: "page 2 of at least 2",
			wantNext: "/search?docs=1&page=3&q=the", wantPageLinks: []string{"1"},
		},
		{
			name: "counting goes further", page: "3", wantRanks: ranks(21, 30),
			wantSummary: "at least 30 documents", wantTotal: "30", wantPageStatus: "page 3 of at least 3",
			wantNext: "/search?docs=1&page=4&q=the", wantPageLinks: []string{"1", "2"},
		},
		{
			name: "exact again at the end", page: "5", wantRanks: ranks(41, 45),
			wantSummary: "45 documents", wantTotal: "45", wantPageStatus: "page 5 of 5",
			wantPageLinks: []string{"1", "3", "4"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, &fakeSearcher{hits: makeHits(45), countBudget: 20}, nil, web.Config{})
			rec := s.get(t, "/search?q=the&docs=1&page="+tt.page)
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			if diff := cmp.Diff(tt.wantRanks, texts(doc, "result-rank")); diff != "" {
				t.Errorf("ranks (-want +got):\n%s", diff)
			}
			if got := textOf(doc, "result-summary"); !strings.HasPrefix(got, tt.wantSummary+" ·") {
				t.Errorf("result summary = %q, want it to start with %q", got, tt.wantSummary)
			}
			if got := textOf(doc, "result-total"); got != tt.wantTotal {
				t.Errorf("result total = %q, want %q", got, tt.wantTotal)
			}
			if got := textOf(doc, "page-status"); got != tt.wantPageStatus {
				t.Errorf("page status = %q, want %q", got, tt.wantPageStatus)
			}
			next, _ := byTestID(doc, "pager-next").Attr("href")
			if next != tt.wantNext {
				t.Errorf("next link = %q, want %q", next, tt.wantNext)
			}
			if diff := cmp.Diff(tt.wantPageLinks, texts(doc, "pager-page")); diff != "" {
				t.Errorf("page links (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchLowerBoundPastServedPages(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(45), countBudget: 20}, nil, web.Config{})
	rec := s.get(t, "/search?q=the&docs=1&page=5000")
	wantStatus(t, rec, http.StatusNotFound)
	doc := parseHTML(t, rec)
	if got, want := textOf(doc, "past-end"), "No results on page 5000; there are at least 2 pages."; !strings.HasPrefix(got, want) {
		t.Errorf("past-end message = %q, want prefix %q", got, want)
	}
}

func TestSearchLowerBoundFollowNext(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(45), countBudget: 20}, nil, web.Config{})
	var got []string
	target := "/search?q=the&docs=1"
	for range 10 {
		rec := s.get(t, target)
		wantStatus(t, rec, http.StatusOK)
		doc := parseHTML(t, rec)
		got = append(got, texts(doc, "result-rank")...)
		next, ok := byTestID(doc, "pager-next").Attr("href")
		if !ok {
			break
		}
		target = next
	}
	if diff := cmp.Diff(ranks(1, 45), got); diff != "" {
		t.Errorf("ranks reached by following next links (-want +got):\n%s", diff)
	}
}

// ranks returns the rank labels from..to.
func ranks(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func TestSearchPagerLinks(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(25)}, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/search?q=state+union&docs=1&page=2"))
	prev, _ := byTestID(doc, "pager-prev").Attr("href")
	next, _ := byTestID(doc, "pager-next").Attr("href")
	pages := byTestID(doc, "pager-page").Map(func(_ int, a *goquery.Selection) string {
		h, _ := a.Attr("href")
		return h
	})
	got := []string{prev, next}
	got = append(got, pages...)
	want := []string{
		"/search?docs=1&q=state+union",
		"/search?docs=1&page=3&q=state+union",
		"/search?docs=1&q=state+union",
		"/search?docs=1&page=3&q=state+union",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pager links (-want +got):\n%s", diff)
	}
	if got := textOf(doc, "pager-current"); got != "2" {
		t.Errorf("current page = %q, want 2", got)
	}
}

func TestSearchDocumentsToggle(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(3)}, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/search?q=union&docs=1"))
	if req := s.searcher.lastRequest(t); !req.Docs {
		t.Errorf("search request Docs = false, want true for docs=1")
	}
	if _, checked := byTestID(doc, "mode-documents").Attr("checked"); !checked {
		t.Errorf("documents mode not checked")
	}
	href, _ := byTestID(doc, "toggle-passages").Attr("href")
	if want := "/search?q=union"; href != want {
		t.Errorf("toggle to passages = %q, want %q", href, want)
	}

	doc = parseHTML(t, s.get(t, "/search?q=union"))
	if req := s.searcher.lastRequest(t); req.Docs {
		t.Errorf("search request Docs = true without docs=1")
	}
	href, _ = byTestID(doc, "toggle-documents").Attr("href")
	if want := "/search?docs=1&q=union"; href != want {
		t.Errorf("toggle to documents = %q, want %q", href, want)
	}
}

func TestSearchStates(t *testing.T) {
	long := strings.Repeat("a", 10000)
	tests := []struct {
		name       string
		query      string
		err        error
		hits       int
		wantStatus int
		wantCalled bool
		wantTestID string // an element that must be present
		wantText   string // text it must contain
	}{
		{name: "no query", query: "", wantStatus: 200, wantTestID: "search-prompt", wantText: "Type a few words"},
		{name: "blank query", query: "   ", wantStatus: 200, wantTestID: "search-prompt", wantText: "Type a few words"},
		{name: "no match", query: "zebra", wantStatus: 200, wantCalled: true, wantTestID: "no-results", wantText: "No passages match"},
		{name: "too long", query: long, wantStatus: 400, wantTestID: "search-error", wantText: "The query is 10000 characters long; the limit is 4096."},
		{name: "searcher rejects", query: "AND", err: pipeline.Invalidf("query has no searchable terms"), wantStatus: 400, wantCalled: true,
			wantTestID: "search-error", wantText: "query has no searchable terms"},
		{name: "unbalanced quote", query: `title:"x`, hits: 2, wantStatus: 200, wantCalled: true, wantTestID: "results"},
		{name: "operators", query: `+-* ~^ (a OR b) \ /regex/ field:[1 TO 2]`, hits: 2, wantStatus: 200, wantCalled: true, wantTestID: "results"},
		{name: "just under the limit", query: strings.Repeat("b", pipeline.MaxQueryChars), hits: 1, wantStatus: 200, wantCalled: true, wantTestID: "results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			searcher := &fakeSearcher{hits: makeHits(tt.hits), err: tt.err}
			s := newTestServer(t, searcher, nil, web.Config{})
			rec := s.get(t, "/search?q="+url.QueryEscape(tt.query))
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if got := searcher.calls() > 0; got != tt.wantCalled {
				t.Errorf("searcher called = %t, want %t", got, tt.wantCalled)
			}
			if got := textOf(doc, tt.wantTestID); byTestID(doc, tt.wantTestID).Length() == 0 || !strings.Contains(got, tt.wantText) {
				t.Errorf("%s = %q, want it to contain %q", tt.wantTestID, got, tt.wantText)
			}
			if v, _ := byTestID(doc, "search-input").Attr("value"); v != strings.TrimSpace(tt.query) {
				t.Errorf("query box value = %q, want %q", truncate(v, 50), truncate(strings.TrimSpace(tt.query), 50))
			}
		})
	}
}

func TestSearchFailureIsGenericServerError(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{err: fmt.Errorf("bleve search: %w", errSecret)}, nil, web.Config{})
	rec := s.get(t, "/search?q=union")
	wantStatus(t, rec, http.StatusInternalServerError)
	doc := parseHTML(t, rec)
	assertGenericServerError(t, rec, doc)
}

// assertGenericServerError checks a 500 page names the request id and
// leaks nothing of the internal error.
func assertGenericServerError(t *testing.T, rec *httptest.ResponseRecorder, doc *goquery.Document) {
	t.Helper()
	if got := textOf(doc, "error-status"); got != "500" {
		t.Errorf("error status = %q, want 500", got)
	}
	rid := rec.Header().Get("X-Request-ID")
	if rid == "" || textOf(doc, "error-request-id") != rid {
		t.Errorf("error page request id = %q, header X-Request-ID = %q", textOf(doc, "error-request-id"), rid)
	}
	for _, secret := range []string{"sqlite", "secret.db", "bleve", "disk I/O", "exploded"} {
		if strings.Contains(rec.Body.String(), secret) {
			t.Errorf("500 page leaks %q", secret)
		}
	}
}

// sampleStore holds a two-passage document with metadata.
func sampleStore() *fakeStore {
	s := &fakeStore{}
	text := "The Union is strong. Our economy grows.\n\nThe state of the union is sound, and the union endures."
	s.add(pipeline.Document{
		ID:         "sotu/2021 biden",
		Title:      "Address Before a Joint Session",
		Text:       text,
		Metadata:   map[string]string{"year": "2021", "author": "Biden", "url": "https://example.org/sotu/2021", "language": "en"},
		Source:     "sotu.jsonl:233",
		IngestedAt: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
	}, 41)
	return s
}

func TestDocumentPage(t *testing.T) {
	s := newTestServer(t, nil, sampleStore(), web.Config{})
	rec := s.get(t, views.DocumentURL("sotu/2021 biden", nil, ""))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)

	if got := textOf(doc, "doc-title"); got != "Address Before a Joint Session" {
		t.Errorf("title = %q", got)
	}
	if got := textOf(doc, "doc-id"); got != "sotu/2021 biden" {
		t.Errorf("doc id = %q", got)
	}
	if diff := cmp.Diff([]string{"author", "language", "url", "year"}, texts(doc, "meta-key")); diff != "" {
		t.Errorf("metadata keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Biden", "en", "https://example.org/sotu/2021", "2021"}, texts(doc, "meta-value")); diff != "" {
		t.Errorf("metadata values (-want +got):\n%s", diff)
	}
	if href, _ := byTestID(doc, "meta-value").Eq(2).Find("a").Attr("href"); href != "https://example.org/sotu/2021" {
		t.Errorf("url metadata link = %q", href)
	}
	if got := textOf(doc, "doc-source"); got != "sotu.jsonl:233" {
		t.Errorf("source = %q", got)
	}
	// A source stored with a server path shows the file's name only.
	st := sampleStore()
	d := st.docs["sotu/2021 biden"]
	d.Source = "/var/lib/crucible/uploads/u7/sotu.jsonl:233"
	st.docs["sotu/2021 biden"] = d
	rec = newTestServer(t, nil, st, web.Config{}).get(t, views.DocumentURL("sotu/2021 biden", nil, ""))
	if got := textOf(parseHTML(t, rec), "doc-source"); got != "sotu.jsonl:233" {
		t.Errorf("source stored as a server path shown as %q, want the file name and line", got)
	}

	passages := byTestID(doc, "passage")
	ids := passages.Map(func(_ int, p *goquery.Selection) string { id, _ := p.Attr("id"); return id })
	if diff := cmp.Diff([]string{"p0", "p1"}, ids); diff != "" {
		t.Errorf("passage ids (-want +got):\n%s", diff)
	}
	anchors := byTestID(doc, "passage-anchor").Map(func(_ int, a *goquery.Selection) string { h, _ := a.Attr("href"); return h })
	if diff := cmp.Diff([]string{"#p0", "#p1"}, anchors); diff != "" {
		t.Errorf("passage anchors (-want +got):\n%s", diff)
	}
	var full strings.Builder
	passages.Each(func(_ int, p *goquery.Selection) { full.WriteString(p.Find(".passage-text").Text()) })
	if got, want := full.String(), s.store.docs["sotu/2021 biden"].Text; got != want {
		t.Errorf("passages spell out %q, want the document text %q", got, want)
	}
	if n := doc.Find("mark").Length(); n != 0 {
		t.Errorf("%d marks without hl or span, want 0", n)
	}
}

func TestDocumentHighlight(t *testing.T) {
	s := newTestServer(t, nil, sampleStore(), web.Config{})
	rec := s.get(t, views.DocumentHitURL("sotu/2021 biden", "union", 1))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	marks := doc.Find(`[data-testid="passage"] mark`).Map(func(_ int, m *goquery.Selection) string {
		return m.Text()
	})
	if diff := cmp.Diff([]string{"Union", "union", "union"}, marks); diff != "" {
		t.Errorf("highlighted terms (-want +got):\n%s", diff)
	}
	if got := textOf(doc, "highlight-status"); !strings.Contains(got, "union") {
		t.Errorf("highlight status = %q, want it to name the query", got)
	}
	if href, _ := byTestID(doc, "clear-highlight").Attr("href"); href != "/documents/sotu/2021%20biden" {
		t.Errorf("clear-highlight link = %q", href)
	}
}

func TestDocumentSpan(t *testing.T) {
	text := sampleStore().docs["sotu/2021 biden"].Text
	tests := []struct {
		name       string
		span       string
		hl         string
		wantCited  []string // text of each mark.cite, in order
		wantNotice string
	}{
		{name: "inside one passage", span: "4-9", wantCited: []string{"Union"}},
		{name: "across passages", span: "21-" + strconv.Itoa(41+13), wantCited: []string{"Our economy grows.\n\n", "The state of "}},
		{name: "with highlight inside", span: "0-20", hl: "union", wantCited: []string{"The ", "Union", " is strong."}},
		{name: "whole text", span: "0-" + strconv.Itoa(len(text)), wantCited: []string{text[:41], text[41:]}},
		{name: "reversed", span: "9-4", wantNotice: "it must start before it ends"},
		{name: "empty", span: "4-4", wantNotice: "it must start before it ends"},
		{name: "past the end", span: "4-100000", wantNotice: "only " + strconv.Itoa(len(text)) + " bytes long"},
		{name: "not numbers", span: "a-b", wantNotice: "expected START-END"},
		{name: "no dash", span: "12", wantNotice: "expected START-END"},
		{name: "negative", span: "-3-4", wantNotice: "expected START-END"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, sampleStore(), web.Config{})
			v := url.Values{"span": {tt.span}}
			if tt.hl != "" {
				v.Set("hl", tt.hl)
			}
			rec := s.get(t, views.DocumentURL("sotu/2021 biden", v, ""))
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			cited := doc.Find("mark.cite").Map(func(_ int, m *goquery.Selection) string { return m.Text() })
			if diff := cmp.Diff(tt.wantCited, cited, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("cited pieces (-want +got):\n%s", diff)
			}
			if len(tt.wantCited) > 0 {
				if id, _ := doc.Find("mark.cite").First().Attr("id"); id != views.CiteAnchor {
					t.Errorf("first cited piece id = %q, want %q", id, views.CiteAnchor)
				}
				if n := doc.Find("#" + views.CiteAnchor).Length(); n != 1 {
					t.Errorf("%d elements with the cite anchor id, want 1", n)
				}
			}
			if got := textOf(doc, "doc-notice"); !strings.Contains(got, tt.wantNotice) || (tt.wantNotice == "") != (got == "") {
				t.Errorf("notice = %q, want it to contain %q", got, tt.wantNotice)
			}
		})
	}
}

func TestDocumentSpanOnCharacterBoundaries(t *testing.T) {
	store := &fakeStore{}
	store.add(pipeline.Document{ID: "u", Title: "Unicode", Text: "naïve café"})
	s := newTestServer(t, nil, store, web.Config{})

	doc := parseHTML(t, s.get(t, "/documents/u?span=3-4")) // inside "ï"
	if got := textOf(doc, "doc-notice"); !strings.Contains(got, "character boundaries") {
		t.Errorf("notice = %q, want a character-boundary complaint", got)
	}
	doc = parseHTML(t, s.get(t, "/documents/u?span=2-4")) // exactly "ï"
	if got := doc.Find("mark.cite").Text(); got != "ï" {
		t.Errorf("cited text = %q, want %q", got, "ï")
	}
}

func TestDocumentIDsRoundTrip(t *testing.T) {
	ids := []string{
		"plain",
		"with/slashes/in it",
		"a%2Fb",
		"percent 100%",
		"query?and#hash",
		"ünïcødé/日本語",
		"../etc/passwd",
		"..",
		".",
		"a/./b",
		"trailing/",
		"/leading",
		"double//slash",
		`back\slash`,
		"plus+and&amp;=",
	}
	store := &fakeStore{}
	for _, id := range ids {
		store.add(pipeline.Document{ID: id, Title: "Title of " + id, Text: "Some text."})
	}
	s := newTestServer(t, nil, store, web.Config{})
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			link := views.DocumentHitURL(id, "text", 0)
			// Browsers keep the fragment to themselves.
			target, _, _ := strings.Cut(link, "#")
			rec := s.get(t, target)
			wantStatus(t, rec, http.StatusOK)
			if got := textOf(parseHTML(t, rec), "doc-id"); got != id {
				t.Errorf("GET %s shows id %q, want %q", link, got, id)
			}
		})
	}
}

func TestDocumentNotFound(t *testing.T) {
	s := newTestServer(t, nil, sampleStore(), web.Config{})
	for _, target := range []string{"/documents/no-such-doc", "/documents/sotu/2021", "/documents/", "/documents/?id=missing"} {
		t.Run(target, func(t *testing.T) {
			rec := s.get(t, target)
			wantStatus(t, rec, http.StatusNotFound)
			doc := parseHTML(t, rec)
			if got := textOf(doc, "error-status"); got != "404" {
				t.Errorf("error status = %q, want 404", got)
			}
			if byTestID(doc, "error-message").Length() != 1 {
				t.Errorf("no error message on the 404 page")
			}
		})
	}
}

func TestDocumentStoreFailure(t *testing.T) {
	store := sampleStore()
	store.err = fmt.Errorf("load document: %w", errSecret)
	s := newTestServer(t, nil, store, web.Config{})
	rec := s.get(t, "/documents/sotu/2021%20biden")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))
}

func TestUnknownRoute(t *testing.T) {
	s := newTestServer(t, nil, nil, web.Config{})
	rec := s.get(t, "/no/such/page")
	wantStatus(t, rec, http.StatusNotFound)
	doc := parseHTML(t, rec)
	if got := textOf(doc, "error-status"); got != "404" {
		t.Errorf("error status = %q, want 404", got)
	}
	if got := textOf(doc, "error-message"); !strings.Contains(got, "nothing at this address") {
		t.Errorf("error message = %q", got)
	}
}

func TestDocumentWithoutPassages(t *testing.T) {
	store := &fakeStore{}
	store.add(pipeline.Document{ID: "bare", Title: "Bare", Text: "Text that was never segmented."})
	store.passages["bare"] = nil
	s := newTestServer(t, nil, store, web.Config{})
	rec := s.get(t, "/documents/bare?span=0-4")
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	if got := textOf(doc, "doc-text"); got != "Text that was never segmented." {
		t.Errorf("text = %q", got)
	}
	if n := byTestID(doc, "passage-anchor").Length(); n != 0 {
		t.Errorf("%d passage anchors for a document without passages, want 0", n)
	}
	if got := doc.Find("mark.cite").Text(); got != "Text" {
		t.Errorf("cited text = %q, want %q", got, "Text")
	}
}

// A long document is shown a window of passages at a time: the first by
// default, the one holding a cited span or the passage ?at= names
// otherwise, with links to the windows before and after that keep the
// highlighted query.
func TestDocumentPageWindows(t *testing.T) {
	st := &fakeStore{}
	var text strings.Builder
	var ps []pipeline.Passage
	for i := range 450 {
		p := fmt.Sprintf("Passage number %d about tariffs.", i)
		if i > 0 {
			text.WriteByte(' ')
		}
		ps = append(ps, pipeline.Passage{DocID: "long", Ordinal: i, Start: text.Len(), End: text.Len() + len(p), Text: p})
		text.WriteString(p)
	}
	st.add(pipeline.Document{ID: "long", Title: "A long document", Text: text.String()})
	st.passages["long"] = ps
	s := newTestServer(t, nil, st, web.Config{})
	// A browser sends no fragment.
	noFragment := func(u string) string { return strings.SplitN(u, "#", 2)[0] }
	anchors := func(doc *goquery.Document) (first, last string, n int) {
		a := byTestID(doc, "passage-anchor")
		return a.First().AttrOr("href", ""), a.Last().AttrOr("href", ""), a.Length()
	}

	doc := parseHTML(t, s.get(t, views.DocumentURL("long", nil, "")))
	if first, last, n := anchors(doc); first != "#p0" || last != "#p199" || n != 200 {
		t.Errorf("first window: %s…%s (%d passages), want #p0…#p199 (200)", first, last, n)
	}
	if got := textOf(doc, "doc-passage-count"); got != "450" {
		t.Errorf("passage count %q, want 450", got)
	}
	if got := byTestID(doc, "passage-window-range").First().Text(); got != "Passages 0–199 of 450" {
		t.Errorf("range %q", got)
	}
	if byTestID(doc, "passage-window-prev").Length() != 0 {
		t.Error("the first window links to an earlier one")
	}

	// A search hit's link to passage 321 lands on the window holding it,
	// with the query highlighted.
	hit := views.DocumentHitURL("long", "tariffs", 321)
	if hit != "/documents/long?at=321&hl=tariffs#p321" {
		t.Errorf("hit link %q does not name the passage's window", hit)
	}
	doc = parseHTML(t, s.get(t, noFragment(hit)))
	if first, last, _ := anchors(doc); first != "#p200" || last != "#p399" {
		t.Errorf("window of passage 321: %s…%s", first, last)
	}
	prev := byTestID(doc, "passage-window-prev").First().AttrOr("href", "")
	next := byTestID(doc, "passage-window-next").First().AttrOr("href", "")
	if prev != "/documents/long?at=0&hl=tariffs#p0" || next != "/documents/long?at=400&hl=tariffs#p400" {
		t.Errorf("window links %q, %q", prev, next)
	}
	if doc.Find("mark").Length() == 0 {
		t.Error("the query is not highlighted in the window")
	}

	// A cited span opens the window that holds it.
	span := pipeline.Span{Start: ps[420].Start, End: ps[420].End}
	doc = parseHTML(t, s.get(t, noFragment(views.DocumentSpanURL("long", span))))
	if first, last, n := anchors(doc); first != "#p400" || last != "#p449" || n != 50 {
		t.Errorf("window of the span: %s…%s (%d)", first, last, n)
	}
	if byTestID(doc, "passage-window-next").Length() != 0 {
		t.Error("the last window links to a later one")
	}
	if doc.Find("mark.cite, mark[id]").Length() == 0 {
		t.Error("the cited span is not marked in its window")
	}
	// An unusable ?at= shows the first window.
	doc = parseHTML(t, s.get(t, "/documents/long?at=9999"))
	if first, _, _ := anchors(doc); first != "#p0" {
		t.Errorf("?at=9999 shows %s, want the first window", first)
	}
}

// A query of common words only searches nothing and says so; query syntax
// the portal does not read is pointed out.
func TestSearchExplainsCommonWordsAndSyntax(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{}, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/search?q=a+the+of"))
	if msg := textOf(doc, "no-results"); !strings.Contains(msg, "too common") {
		t.Errorf("common words only: %q", msg)
	}
	if byTestID(doc, "syntax-note").Length() != 0 {
		t.Error("a syntax note for a query without syntax")
	}
	doc = parseHTML(t, s.get(t, "/search?q="+url.QueryEscape(`title:"tariff`)))
	if note := textOf(doc, "syntax-note"); !strings.Contains(note, "field names such as title:") {
		t.Errorf("syntax note %q", note)
	}
	if msg := textOf(doc, "no-results"); !strings.Contains(msg, "No passages match") {
		t.Errorf("no results: %q", msg)
	}
}

// Searching to cite in a report: every hit links to its passage with the
// report's cite form, and the form, the pager and the mode toggle keep
// the report.
func TestSearchToCite(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(25)}, nil, web.Config{})
	doc := parseHTML(t, s.get(t, "/search?q=union&report=9"))
	if !strings.Contains(textOf(doc, "search-citing"), "report 9") {
		t.Errorf("notice %q", textOf(doc, "search-citing"))
	}
	cites := byTestID(doc, "result-cite")
	if cites.Length() == 0 {
		t.Fatal("no cite links on the hits")
	}
	href, _ := cites.First().Attr("href")
	if !strings.Contains(href, "report=9") || !strings.Contains(href, "#p") {
		t.Errorf("cite link %q: want the passage with report=9", href)
	}
	if v, _ := byTestID(doc, "search-form").Find(`input[name="report"]`).Attr("value"); v != "9" {
		t.Errorf("search form keeps report %q", v)
	}
	for _, id := range []string{"pager-next", "toggle-documents"} {
		if h, _ := byTestID(doc, id).Attr("href"); !strings.Contains(h, "report=9") {
			t.Errorf("%s %q loses the report", id, h)
		}
	}
	// Without the report, no cite links.
	doc = parseHTML(t, s.get(t, "/search?q=union"))
	if byTestID(doc, "result-cite").Length() != 0 || byTestID(doc, "search-citing").Length() != 0 {
		t.Error("cite links on an ordinary search")
	}
}
