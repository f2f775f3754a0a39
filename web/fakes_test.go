package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// fakeSearcher pages through a fixed list of hits and records each request.
type fakeSearcher struct {
	mu   sync.Mutex
	hits []pipeline.Hit
	err  error
	took time.Duration
	// countBudget, when positive, makes the searcher stop counting like the
	// index does for document searches of common terms: it counts
	// max(countBudget, Offset+K) hits and, when more exist, reports that
	// count as a lower bound.
	countBudget int
	requests    []pipeline.SearchRequest
}

func (f *fakeSearcher) Search(_ context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if f.err != nil {
		return pipeline.SearchResult{}, f.err
	}
	start := min(req.Offset, len(f.hits))
	end := min(start+req.K, len(f.hits))
	res := pipeline.SearchResult{
		Hits:  f.hits[start:end],
		Total: len(f.hits),
		Took:  f.took,
	}
	// The searched terms: the query's words but a few common ones.
	for _, w := range strings.Fields(strings.ToLower(req.Query)) {
		if w != "a" && w != "the" && w != "of" {
			res.Terms = append(res.Terms, w)
		}
	}
	if f.countBudget > 0 {
		if counted := max(f.countBudget, req.Offset+req.K); counted < len(f.hits) {
			res.Total, res.TotalIsLowerBound = counted, true
		}
	}
	return res, nil
}

// lastRequest returns the most recent request, failing the test when the
// searcher was never called.
func (f *fakeSearcher) lastRequest(t *testing.T) pipeline.SearchRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("searcher was not called")
	}
	return f.requests[len(f.requests)-1]
}

func (f *fakeSearcher) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// fakeStore serves documents from memory. err, when set, fails every call;
// panicStats makes Stats panic.
type fakeStore struct {
	docs       map[string]pipeline.Document
	passages   map[string][]pipeline.Passage
	stats      pipeline.CollectionStats
	err        error
	panicStats bool
	// authors are what AuthorYears lists (pipeline.AuthorLister).
	authors map[string]pipeline.Period
}

func (f *fakeStore) AuthorYears(context.Context) (map[string]pipeline.Period, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.authors, nil
}

func (f *fakeStore) Document(_ context.Context, id string) (pipeline.Document, error) {
	if f.err != nil {
		return pipeline.Document{}, f.err
	}
	d, ok := f.docs[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return d, nil
}

func (f *fakeStore) DocumentPassages(ctx context.Context, id string) (pipeline.Document, []pipeline.Passage, error) {
	d, err := f.Document(ctx, id)
	if err != nil {
		return d, nil, err
	}
	ps, err := f.Passages(ctx, id)
	return d, ps, err
}

func (f *fakeStore) Passages(_ context.Context, id string) ([]pipeline.Passage, error) {
	if f.err != nil {
		return nil, f.err
	}
	if _, ok := f.docs[id]; !ok {
		return nil, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return f.passages[id], nil
}

func (f *fakeStore) Stats(context.Context) (pipeline.CollectionStats, error) {
	if f.panicStats {
		panic("stats exploded")
	}
	if f.err != nil {
		return pipeline.CollectionStats{}, f.err
	}
	return f.stats, nil
}

// add stores a document split into passages at the given byte offsets.
func (f *fakeStore) add(d pipeline.Document, cuts ...int) {
	if f.docs == nil {
		f.docs = map[string]pipeline.Document{}
		f.passages = map[string][]pipeline.Passage{}
	}
	f.docs[d.ID] = d
	bounds := append(append([]int{0}, cuts...), len(d.Text))
	var ps []pipeline.Passage
	for i := 0; i+1 < len(bounds); i++ {
		ps = append(ps, pipeline.Passage{
			DocID: d.ID, Ordinal: i, Start: bounds[i], End: bounds[i+1],
			Text: d.Text[bounds[i]:bounds[i+1]],
		})
	}
	f.passages[d.ID] = ps
}

// wordMarker marks the words of text equal, ignoring case, to a word of the
// query: a stand-in for the index's analyser.
type wordMarker struct{}

func (wordMarker) Mark(text, query string) pipeline.Fragment {
	terms := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(query), notWordRune) {
		terms[w] = true
	}
	var frag pipeline.Fragment
	for i := 0; i < len(text); {
		r, _ := utf8.DecodeRuneInString(text[i:])
		inWord := !notWordRune(r)
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if notWordRune(r) == inWord {
				break
			}
			j += n
		}
		run := text[i:j]
		frag = append(frag, pipeline.FragmentPart{Text: run, Match: inWord && terms[strings.ToLower(run)]})
		i = j
	}
	return frag
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// testServer bundles the portal under test with its fakes and its log.
type testServer struct {
	e        *echo.Echo
	searcher *fakeSearcher
	store    *fakeStore
	log      *bytes.Buffer
	// csrf is the local-mode CSRF token, read from a page on first use.
	csrf string
}

// newTestServer builds the portal on the fakes in local mode, logging JSON
// into a buffer.
func newTestServer(t *testing.T, searcher *fakeSearcher, store *fakeStore, cfg web.Config) *testServer {
	t.Helper()
	cfg.LocalMode = true
	if searcher == nil {
		searcher = &fakeSearcher{}
	}
	if store == nil {
		store = &fakeStore{}
	}
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&syncWriter{w: &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e, err := web.New(cfg, web.Deps{
		Searcher: searcher,
		Store:    store,
		Marker:   wordMarker{},
		Logger:   logger,
		Version:  "v1.2.3",
		Engine:   "offline engine",
	})
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	return newTestServerOf(t, &testServer{e: e, searcher: searcher, store: store, log: &logBuf})
}

// newTestServerOf reads the server's CSRF token before the test starts,
// then empties the log of that request.
func newTestServerOf(t *testing.T, s *testServer) *testServer {
	t.Helper()
	s.csrfToken(t)
	s.log.Reset()
	return s
}

// syncWriter serialises writes to a buffer shared by handler goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// get performs a GET request against the server.
func (s *testServer) get(t *testing.T, target string) *httptest.ResponseRecorder {
	t.Helper()
	return s.do(t, httptest.NewRequest(http.MethodGet, target, nil))
}

// do serves the request. A request with an unsafe method gets the
// server's CSRF token in the X-CSRF-Token header unless it has one, so
// tests of other behaviour pass the CSRF check as a browser's form would;
// the CSRF tests send requests with serve.
func (s *testServer) do(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	if !isSafeMethod(req.Method) && req.Header.Get(views.HeaderCSRF) == "" {
		req.Header.Set(views.HeaderCSRF, s.csrfToken(t))
	}
	return s.serve(req)
}

// serve serves the request as it is.
func (s *testServer) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	return rec
}

// csrfToken is the CSRF token of the server's local mode, read from the
// csrf-token meta element of a page (any page has it; a 404 page is the
// cheapest). The constructors read it first, so the request does not
// show in the tests' logs.
func (s *testServer) csrfToken(t *testing.T) string {
	t.Helper()
	if s.csrf == "" {
		rec := s.serve(httptest.NewRequest(http.MethodGet, "/no-such-page-for-the-csrf-token", nil))
		doc := parseHTML(t, rec)
		s.csrf = doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")
		if s.csrf == "" {
			t.Fatalf("no csrf-token meta element on a page (status %d)", rec.Code)
		}
	}
	return s.csrf
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions || m == http.MethodTrace
}

// parseHTML parses a response body, checking it is HTML.
func parseHTML(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q, want text/html", ct)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return doc
}

// byTestID selects the elements with the data-testid.
func byTestID(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

// textOf returns the whitespace-normalised text of the elements with the
// data-testid.
func textOf(doc *goquery.Document, id string) string {
	return strings.Join(strings.Fields(byTestID(doc, id).Text()), " ")
}

// texts returns the whitespace-normalised text of each element with the
// data-testid.
func texts(doc *goquery.Document, id string) []string {
	return byTestID(doc, id).Map(func(_ int, s *goquery.Selection) string {
		return strings.Join(strings.Fields(s.Text()), " ")
	})
}

// wantStatus fails the test when the response status differs.
func wantStatus(t *testing.T, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status = %d, want %d; body:\n%s", rec.Code, want, truncate(rec.Body.String(), 2000))
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

var errSecret = errors.New("sqlite: disk I/O error at /var/lib/crucible/secret.db")
