package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

func TestNewRequiresDependencies(t *testing.T) {
	tests := []struct {
		name    string
		deps    web.Deps
		wantErr []string
	}{
		{name: "none", deps: web.Deps{}, wantErr: []string{"Deps.Searcher is nil", "Deps.Store is nil"}},
		{name: "no store", deps: web.Deps{Searcher: &fakeSearcher{}}, wantErr: []string{"Deps.Store is nil"}},
		{name: "no searcher", deps: web.Deps{Store: &fakeStore{}}, wantErr: []string{"Deps.Searcher is nil"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := web.New(web.Config{}, tt.deps)
			if err == nil || e != nil {
				t.Fatalf("New = %v, %v; want an error", e, err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestNewOptionalDependencies(t *testing.T) {
	store := sampleStore()
	e, err := web.New(web.Config{LocalMode: true}, web.Deps{Searcher: &fakeSearcher{}, Store: store})
	if err != nil {
		t.Fatalf("New without Marker, Logger and Version: %v", err)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/documents/sotu/2021%20biden?hl=union", nil))
	wantStatus(t, rec, http.StatusOK)
	doc := parseHTML(t, rec)
	if n := doc.Find("mark").Length(); n != 0 {
		t.Errorf("%d marks without a Marker, want 0", n)
	}
	if got := textOf(doc, "version"); got != "dev" {
		t.Errorf("version = %q, want dev", got)
	}
}

func TestHealthz(t *testing.T) {
	tests := []struct {
		name       string
		store      *fakeStore
		wantStatus int
		wantBody   map[string]any
	}{
		{
			name:       "ok",
			store:      &fakeStore{stats: pipeline.CollectionStats{Documents: 233, Passages: 9876}},
			wantStatus: http.StatusOK,
			wantBody:   map[string]any{"status": "ok", "documents": 233.0, "passages": 9876.0},
		},
		{
			name:       "empty",
			store:      &fakeStore{},
			wantStatus: http.StatusOK,
			wantBody:   map[string]any{"status": "ok", "documents": 0.0, "passages": 0.0},
		},
		{
			name:       "store fails",
			store:      &fakeStore{err: errSecret},
			wantStatus: http.StatusServiceUnavailable,
			wantBody:   map[string]any{"status": "unavailable", "error": "the document store did not answer"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, tt.store, web.Config{})
			rec := s.get(t, "/healthz")
			wantStatus(t, rec, tt.wantStatus)
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("decode %q: %v", rec.Body.String(), err)
			}
			if diff := cmp.Diff(tt.wantBody, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHealthzFailureIsLogged(t *testing.T) {
	s := newTestServer(t, nil, &fakeStore{err: errSecret}, web.Config{})
	rec := s.get(t, "/healthz")
	wantStatus(t, rec, http.StatusServiceUnavailable)
	line := findLog(t, s.log, "health check failed")
	if line["level"] != "ERROR" || !strings.Contains(line["error"].(string), "disk I/O") {
		t.Errorf("health failure log = %v", line)
	}
	if line["request_id"] != rec.Header().Get("X-Request-ID") {
		t.Errorf("log request_id = %v, header %q", line["request_id"], rec.Header().Get("X-Request-ID"))
	}
}

func TestSecurityHeaders(t *testing.T) {
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
	}
	s := newTestServer(t, &fakeSearcher{err: errSecret}, sampleStore(), web.Config{})
	for _, target := range []string{"/", "/search?q=x", "/documents/nope", "/no/such/page", "/healthz", "/static/style.css"} {
		t.Run(target, func(t *testing.T) {
			rec := s.get(t, target)
			for k, v := range want {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			pp := rec.Header().Get("Permissions-Policy")
			for _, feature := range []string{"camera=()", "microphone=()", "geolocation=()", "payment=()"} {
				if !strings.Contains(pp, feature) {
					t.Errorf("Permissions-Policy %q lacks %s", pp, feature)
				}
			}
		})
	}
}

func TestPagesUseNoInlineScriptOrStyle(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{hits: makeHits(12)}, sampleStore(), web.Config{})
	for _, target := range []string{"/", "/search", "/search?q=union&page=2", "/documents/sotu/2021%20biden?hl=union&span=0-9", "/nowhere"} {
		t.Run(target, func(t *testing.T) {
			doc := parseHTML(t, s.get(t, target))
			if n := doc.Find("script, style, [style]").Length(); n != 0 {
				t.Errorf("%d inline script or style elements or attributes, which the CSP blocks", n)
			}
			for _, sel := range []string{"link[rel=stylesheet]", "link[rel=icon]"} {
				href, ok := doc.Find(sel).Attr("href")
				if !ok || !strings.HasPrefix(href, "/static/") {
					t.Errorf("%s href = %q, want a /static/ URL", sel, href)
				}
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	tests := []struct {
		name       string
		cfg        web.Config
		size       int
		wantStatus int
	}{
		{name: "2 MiB over the default", size: 2 << 20, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "small body reaches routing", size: 10, wantStatus: http.StatusMethodNotAllowed},
		{name: "over a configured limit", cfg: web.Config{MaxBodyBytes: 100}, size: 101, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "at a configured limit", cfg: web.Config{MaxBodyBytes: 100}, size: 100, wantStatus: http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, nil, tt.cfg)
			req := httptest.NewRequest(http.MethodPost, "/search", bytes.NewReader(make([]byte, tt.size)))
			req.Header.Set("Content-Type", "application/octet-stream")
			rec := s.do(t, req)
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if byTestID(doc, "error-status").Length() != 1 {
				t.Errorf("no error page for status %d", rec.Code)
			}
		})
	}
}

// bodyLength answers with the length of the request body it read, or the
// read error: a stand-in for a handler that reads bodies.
func bodyLength(c echo.Context) error {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	return c.String(http.StatusOK, strconv.Itoa(len(b)))
}

func TestBodyLimitWhileReading(t *testing.T) {
	tests := []struct {
		name          string
		size          int
		contentLength int64 // -1: absent (chunked)
		wantStatus    int
		wantBody      string // for 200
	}{
		{name: "no length, over the limit", size: 101, contentLength: -1, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "length understated", size: 5000, contentLength: 10, wantStatus: http.StatusRequestEntityTooLarge},
		{name: "no length, at the limit", size: 100, contentLength: -1, wantStatus: http.StatusOK, wantBody: "100"},
		{name: "honest length, under the limit", size: 7, contentLength: 7, wantStatus: http.StatusOK, wantBody: "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, nil, web.Config{MaxBodyBytes: 100})
			s.e.POST("/test/body-length", bodyLength)
			req := httptest.NewRequest(http.MethodPost, "/test/body-length", bytes.NewReader(make([]byte, tt.size)))
			req.ContentLength = tt.contentLength
			req.Header.Set("Content-Type", "application/octet-stream")
			rec := s.do(t, req)
			wantStatus(t, rec, tt.wantStatus)
			if tt.wantStatus == http.StatusOK {
				if got := rec.Body.String(); got != tt.wantBody {
					t.Errorf("body length read = %q, want %q", got, tt.wantBody)
				}
				return
			}
			doc := parseHTML(t, rec)
			if got := textOf(doc, "error-status"); got != "413" {
				t.Errorf("error page status = %q, want 413", got)
			}
			if got := rec.Header().Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("413 page X-Frame-Options = %q, want DENY", got)
			}
			line := findLog(t, s.log, "request failed")
			if line["status"] != 413.0 || line["level"] != "WARN" {
				t.Errorf("413 logged as %v, want WARN with status 413", line)
			}
		})
	}
}

func TestStaticAssets(t *testing.T) {
	s := newTestServer(t, nil, sampleStore(), web.Config{})
	home := parseHTML(t, s.get(t, "/"))
	cssURL, _ := home.Find("link[rel=stylesheet]").Attr("href")
	if !regexp.MustCompile(`^/static/style\.css\?v=[0-9a-f]{12}$`).MatchString(cssURL) {
		t.Fatalf("stylesheet URL = %q, want /static/style.css?v=<hash>", cssURL)
	}

	rec := s.get(t, cssURL)
	wantStatus(t, rec, http.StatusOK)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("Content-Type = %q, want text/css", ct)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("versioned asset Cache-Control = %q, want immutable", cc)
	}
	if !strings.Contains(rec.Body.String(), "prefers-color-scheme") {
		t.Errorf("stylesheet body does not look like the portal's CSS")
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatalf("no ETag on a static asset")
	}

	rec = s.get(t, "/static/style.css")
	wantStatus(t, rec, http.StatusOK)
	if cc := rec.Header().Get("Cache-Control"); cc != "public, no-cache" {
		t.Errorf("unversioned asset Cache-Control = %q, want revalidation", cc)
	}

	req := httptest.NewRequest(http.MethodGet, "/static/style.css", nil)
	req.Header.Set("If-None-Match", etag)
	wantStatus(t, s.do(t, req), http.StatusNotModified)

	rec = s.get(t, "/static/favicon.svg")
	wantStatus(t, rec, http.StatusOK)
	if ct := rec.Header().Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("icon Content-Type = %q", ct)
	}

	for _, missing := range []string{"/static/nope.css", "/static/", "/static/../web.go", "/static/%2e%2e/static.go"} {
		if rec := s.get(t, missing); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", missing, rec.Code)
		}
	}
}

func TestRequestID(t *testing.T) {
	tests := []struct {
		name     string
		incoming string
		wantKept bool
	}{
		{name: "none", incoming: ""},
		{name: "well formed", incoming: "abc-123_X.y", wantKept: true},
		{name: "too long", incoming: strings.Repeat("a", 65)},
		{name: "markup", incoming: "<script>"},
		{name: "spaces", incoming: "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, nil, web.Config{})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.incoming != "" {
				req.Header.Set("X-Request-ID", tt.incoming)
			}
			got := s.do(t, req).Header().Get("X-Request-ID")
			if tt.wantKept {
				if got != tt.incoming {
					t.Errorf("X-Request-ID = %q, want the incoming %q", got, tt.incoming)
				}
				return
			}
			if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(got) {
				t.Errorf("X-Request-ID = %q, want a fresh 32-hex-digit id", got)
			}
		})
	}
}

func TestPanicBecomesServerErrorPage(t *testing.T) {
	s := newTestServer(t, nil, &fakeStore{panicStats: true}, web.Config{})
	rec := s.get(t, "/")
	wantStatus(t, rec, http.StatusInternalServerError)
	assertGenericServerError(t, rec, parseHTML(t, rec))

	line := findLog(t, s.log, "request failed")
	if line["level"] != "ERROR" || !strings.Contains(line["error"].(string), "stats exploded") {
		t.Errorf("panic log = %v", line)
	}
	if stack, _ := line["stack"].(string); !strings.Contains(stack, "fakeStore") {
		t.Errorf("panic log stack does not show the panicking function:\n%s", stack)
	}
	var failures, requests []map[string]any
	for _, l := range readLogs(t, s.log) {
		switch l["msg"] {
		case "request failed":
			failures = append(failures, l)
		case "request":
			requests = append(requests, l)
		}
	}
	if len(failures) != 1 {
		t.Errorf("%d failure log lines for one panic, want 1:\n%v", len(failures), failures)
	}
	if len(requests) != 1 || requests[0]["status"] != 500.0 || requests[0]["request_id"] != rec.Header().Get("X-Request-ID") {
		t.Errorf("request log lines = %v, want one with status 500 and request id %q", requests, rec.Header().Get("X-Request-ID"))
	}
	// The server keeps serving.
	s.store.panicStats = false
	wantStatus(t, s.get(t, "/"), http.StatusOK)
}

func TestRequestLogging(t *testing.T) {
	s := newTestServer(t, &fakeSearcher{err: errSecret}, sampleStore(), web.Config{})
	ok := s.get(t, "/documents/sotu/2021%20biden")
	missing := s.get(t, "/documents/nope")
	failed := s.get(t, "/search?q=x")

	lines := readLogs(t, s.log)
	var requests, failures []map[string]any
	for _, l := range lines {
		switch l["msg"] {
		case "request":
			requests = append(requests, l)
		case "request failed":
			failures = append(failures, l)
		}
	}
	if len(requests) != 3 {
		t.Fatalf("%d request log lines, want 3:\n%v", len(requests), lines)
	}
	for i, rec := range []*httptest.ResponseRecorder{ok, missing, failed} {
		l := requests[i]
		for _, key := range []string{"method", "path", "status", "latency", "request_id"} {
			if _, present := l[key]; !present {
				t.Errorf("request log %v lacks %q", l, key)
			}
		}
		if l["status"] != float64(rec.Code) || l["request_id"] != rec.Header().Get("X-Request-ID") {
			t.Errorf("request log %v does not match response %d %s", l, rec.Code, rec.Header().Get("X-Request-ID"))
		}
	}
	if len(failures) != 2 {
		t.Fatalf("%d failure log lines, want 2 (404 and 500):\n%v", len(failures), failures)
	}
	if failures[0]["level"] != "WARN" || failures[0]["status"] != 404.0 {
		t.Errorf("404 logged as %v, want WARN", failures[0])
	}
	if failures[1]["level"] != "ERROR" || failures[1]["status"] != 500.0 || !strings.Contains(failures[1]["error"].(string), "disk I/O") {
		t.Errorf("500 logged as %v, want ERROR with the internal error", failures[1])
	}
}

// readLogs decodes the JSON log lines written so far.
func readLogs(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("read logs: %v", err)
	}
	return out
}

// findLog returns the first log line with the message.
func findLog(t *testing.T, buf *bytes.Buffer, msg string) map[string]any {
	t.Helper()
	for _, l := range readLogs(t, buf) {
		if l["msg"] == msg {
			return l
		}
	}
	t.Fatalf("no %q log line in:\n%s", msg, buf.String())
	return nil
}

func TestHealthzHead(t *testing.T) {
	s := newTestServer(t, nil, &fakeStore{}, web.Config{})
	rec := s.do(t, httptest.NewRequest(http.MethodHead, "/healthz", nil))
	wantStatus(t, rec, http.StatusOK)
}
