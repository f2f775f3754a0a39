package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/web"
)

// fakeGoldStore keeps gold sets in memory, as the SQLite store does.
type fakeGoldStore struct {
	mu   sync.Mutex
	sets []judge.GoldSet
	err  error
}

func (f *fakeGoldStore) CreateGoldSet(_ context.Context, name string, nuggets []judge.Nugget) (judge.GoldSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return judge.GoldSet{}, f.err
	}
	if strings.TrimSpace(name) == "" || len(nuggets) == 0 {
		return judge.GoldSet{}, pipeline.Invalidf("bad gold set %q", name)
	}
	s := judge.GoldSet{ID: int64(len(f.sets) + 1), Name: strings.TrimSpace(name), Nuggets: nuggets,
		CreatedAt: testNow.Add(time.Duration(len(f.sets)) * time.Minute)}
	f.sets = append(f.sets, s)
	return s, nil
}

func (f *fakeGoldStore) GoldSet(_ context.Context, id int64) (judge.GoldSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return judge.GoldSet{}, f.err
	}
	if id < 1 || id > int64(len(f.sets)) {
		return judge.GoldSet{}, fmt.Errorf("gold set %d: %w", id, pipeline.ErrNotFound)
	}
	return f.sets[id-1], nil
}

func (f *fakeGoldStore) GoldSets(context.Context) ([]judge.GoldSetSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []judge.GoldSetSummary
	for i := len(f.sets) - 1; i >= 0; i-- {
		out = append(out, f.sets[i].Summary())
	}
	return out, nil
}

func (f *fakeGoldStore) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sets)
}

// yesModel answers "yes" to every question and counts the calls.
type yesModel struct {
	mu    sync.Mutex
	calls int
}

func (m *yesModel) Complete(context.Context, pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	return pipeline.ModelResponse{Text: "yes"}, nil
}

// evalServer is the portal with the evaluation pages, on fakes.
type evalServer struct {
	*testServer
	jobs *fakeJobStore
	gold *fakeGoldStore
}

// newEvalServer builds the portal with report and evaluation pages over
// the fakes, holding evalReport as report 12. model, when not nil, is the
// model judge's model.
func newEvalServer(t *testing.T, cfg web.Config, model pipeline.Model) *evalServer {
	t.Helper()
	store := evalStore()
	jobs := newFakeJobStore()
	rep := evalReport()
	jobs.reports[rep.ID] = rep
	gold := &fakeGoldStore{}
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&syncWriter{w: &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	deps := web.Deps{
		Searcher: &fakeSearcher{},
		Store:    store,
		Logger:   logger,
		Version:  "v1.2.3",
		Jobs:     jobs,
		Reports:  &fakeReportService{engines: testEngines},
		Gold:     gold,
	}
	if model != nil {
		deps.JudgeModel, deps.JudgeModelLabel = model, "fake-llm"
	}
	cfg.LocalMode = true
	e, err := web.New(cfg, deps)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	return &evalServer{testServer: newTestServerOf(t, &testServer{e: e, store: store, log: &logBuf}), jobs: jobs, gold: gold}
}

// evalDocText is document d1: passage 0 is its first sentence (bytes
// 0–44), passage 1 its second (45–84).
const evalDocText = "Tariffs on steel rose to 25 percent in 2018. Canada answered with duties on whiskey."

func evalStore() *fakeStore {
	s := &fakeStore{}
	s.add(pipeline.Document{ID: "d1", Title: "Steel tariffs", Text: evalDocText}, 45)
	return s
}

// evalReport is report 12, for request r1. Sentences 1 and 2 quote the
// passages they cite; sentence 3 cites passage 0 but states what it does
// not ("2019" is not in it); sentence 4 cites a document the collection
// does not hold.
func evalReport() pipeline.Report {
	return pipeline.Report{
		ID:      12,
		Request: pipeline.Request{ID: "r1", Title: "Steel tariffs", ProblemStatement: "What came of the steel tariffs?", Limit: 1000},
		RunID:   "crucible-offline-engine",
		Engine:  "offline engine",
		Sentences: []pipeline.Sentence{
			{Text: "Tariffs on steel rose to 25 percent in 2018.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 44}, NuggetID: "a"},
			{Text: "Canada answered with duties on whiskey.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 1, Start: 45, End: 84}, NuggetID: "b"},
			{Text: "Steel prices fell sharply in 2019.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 44}, NuggetID: "c"},
			{Text: "Mexico signed a new trade agreement.", Citation: pipeline.Citation{DocID: "gone", Ordinal: 0, Start: 0, End: 10}, NuggetID: "d"},
		},
		CreatedAt: testNow,
	}
}

// evalGold holds five nuggets of request r1 (n1, n3 and n5 vital) and one
// claim of request r2.
const evalGold = `{"request_id": "r1", "nugget_id": "n1", "question": "How high did the steel tariff rise?", "answers": ["25 percent", "25%"], "importance": "vital"}
{"request_id": "r1", "nugget_id": "n2", "question": "Which country answered with duties on whiskey?", "answers": ["Canada"]}
{"request_id": "r1", "nugget_id": "n3", "question": "When did the tariffs take effect?", "answers": ["2018"], "importance": "vital"}
{"request_id": "r1", "nugget_id": "n4", "question": "What happened to steel prices?", "answers": ["fell sharply"]}
{"request_id": "r1", "nugget_id": "n5", "question": "What did the EU tax in return?", "answers": ["motorcycles", "Harley-Davidson motorcycles"], "importance": "vital", "docids": ["d7", "d8"]}
{"qid": "r2", "nugget_id": "m1", "text": "A claim of another request."}
`

// uploadRequest builds a multipart upload of a gold file; extra fields
// (such as "name") are added before the file.
func uploadRequest(t *testing.T, target, fileName string, content []byte, extra url.Values) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range extra {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	fw, err := mw.CreateFormFile("nuggets", fileName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, target, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// upload posts the gold file and returns the response.
func (s *evalServer) upload(t *testing.T, reportID int64, fileName, content string, extra url.Values) *httptest.ResponseRecorder {
	t.Helper()
	return s.do(t, uploadRequest(t, fmt.Sprintf("/reports/%d/evaluation/gold", reportID), fileName, []byte(content), extra))
}

// uploadAndFollow uploads the gold file, checks the 303 and opens the page
// it points to.
func (s *evalServer) uploadAndFollow(t *testing.T, content string) (*goquery.Document, string) {
	t.Helper()
	rec := s.upload(t, 12, "gold.jsonl", content, nil)
	wantStatus(t, rec, http.StatusSeeOther)
	loc := rec.Header().Get("Location")
	page := s.get(t, loc)
	wantStatus(t, page, http.StatusOK)
	return parseHTML(t, page), loc
}

// cardTexts maps each metric card to "value | counts".
func cardTexts(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	byTestID(doc, "metrics").Find(`[data-testid^="metric-"].metric`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-testid")
		v := strings.TrimSpace(s.Find(`[data-testid="metric-value"]`).Text())
		c := strings.Join(strings.Fields(s.Find(`[data-testid="metric-counts"]`).Text()), " ")
		out[id] = v + " | " + c
	})
	return out
}

// coverageMatrix renders the nugget × sentence table as one string per
// row: the nugget's id, then "x" for a covered cell and "." for another.
func coverageMatrix(doc *goquery.Document) []string {
	var rows []string
	byTestID(doc, "coverage-row").Each(func(_ int, tr *goquery.Selection) {
		row := tr.Find("th code").Text() + " "
		tr.Find(`[data-testid="coverage-cell"]`).Each(func(_ int, td *goquery.Selection) {
			if td.HasClass("covered") {
				row += "x"
			} else {
				row += "."
			}
		})
		rows = append(rows, row)
	})
	return rows
}

func TestEvaluationUploadShowsMetrics(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	doc, loc := s.uploadAndFollow(t, evalGold)
	if loc != "/reports/12/evaluation?gold=1" {
		t.Errorf("upload redirected to %q, want /reports/12/evaluation?gold=1", loc)
	}
	if s.gold.count() != 1 {
		t.Fatalf("%d gold sets stored, want 1", s.gold.count())
	}
	set, _ := s.gold.GoldSet(context.Background(), 1)
	if set.Name != "gold.jsonl" || len(set.Nuggets) != 6 {
		t.Errorf("stored set %q with %d nuggets, want gold.jsonl with 6", set.Name, len(set.Nuggets))
	}

	// The set's request r1 is the report's own, so it is used at once.
	if got := textOf(doc, "request-id"); got != "r1" {
		t.Errorf("request = %q, want r1", got)
	}
	if got := textOf(doc, "request-own"); !strings.Contains(got, "5 nuggets of the report's own request") {
		t.Errorf("request notice = %q", got)
	}
	if got := textOf(doc, "judge-name"); !strings.HasPrefix(got, "offline") {
		t.Errorf("judge = %q, want the offline judge", got)
	}
	if got := textOf(doc, "gold-option"); got != "gold.jsonl — 6 nuggets, 2 requests, uploaded 2026-05-06 12:00 UTC" {
		t.Errorf("gold set option = %q", got)
	}

	// The offline judge finds each answer in one sentence: n1 ("25
	// percent") and n3 ("2018") in sentence 1, n2 ("Canada") in 2, n4
	// ("fell sharply") in 3; n5 nowhere.
	wantMatrix := []string{
		"n1 x...",
		"n2 .x..",
		"n3 x...",
		"n4 ..x.",
		"n5 ....",
	}
	if diff := cmp.Diff(wantMatrix, coverageMatrix(doc)); diff != "" {
		t.Errorf("coverage matrix (-want +got)\n%s", diff)
	}
	// Metrics, from the matrix:
	//   recall    = covered / nuggets          = 4/5 = 0.800
	//   vital     = n1, n3 of n1, n3, n5       = 2/3 = 0.667
	//   density   = covered / sentences        = 4/4 = 1.000
	//   novelty   = sentences 1–3 bring new    = 3/4 = 0.750
	//   relevant  = sentences 1–3 cover any    = 3/4 = 0.750
	//   support   = sentences 1 and 2 quote their passage; 3 adds "2019",
	//               4 cites a missing document = 2/4 = 0.500
	wantCards := map[string]string{
		"metric-nugget-recall":      "0.800 | 4/5 nuggets",
		"metric-vital-recall":       "0.667 | 2/3 vital nuggets",
		"metric-nugget-density":     "1.000 | 4 nuggets / 4 sentences",
		"metric-sentence-novelty":   "0.750 | 3/4 sentences",
		"metric-relevant-sentences": "0.750 | 3/4 sentences",
		"metric-citation-support":   "0.500 | 2/4 citations",
	}
	if diff := cmp.Diff(wantCards, cardTexts(doc)); diff != "" {
		t.Errorf("metric cards (-want +got)\n%s", diff)
	}

	// The missing nugget, with its answers and the documents the file
	// names.
	if n := byTestID(doc, "missing-nugget").Length(); n != 1 {
		t.Fatalf("%d missing nuggets listed, want 1", n)
	}
	gotMissing := []string{
		textOf(doc, "missing-question"),
		strings.Join(texts(doc, "missing-answer"), " | "),
		textOf(doc, "missing-vital"),
		textOf(doc, "missing-id"),
		strings.Join(texts(doc, "missing-doc"), " "),
	}
	wantMissing := []string{"What did the EU tax in return?", "motorcycles | Harley-Davidson motorcycles", "vital", "n5", "d7 d8"}
	if diff := cmp.Diff(wantMissing, gotMissing); diff != "" {
		t.Errorf("missing nugget (-want +got)\n%s", diff)
	}
	if h := textOf(doc, "missing-section"); !strings.Contains(h, "what to add to the report") {
		t.Errorf("missing section does not say what to add: %q", h)
	}

	// Sentence numbers link to the report's sentence anchors.
	var links []string
	byTestID(doc, "coverage-sentence-link").Each(func(_ int, a *goquery.Selection) {
		links = append(links, a.AttrOr("href", "")+" "+a.AttrOr("aria-label", ""))
	})
	wantLinks := []string{"/reports/12#s1 Sentence 1", "/reports/12#s2 Sentence 2", "/reports/12#s3 Sentence 3", "/reports/12#s4 Sentence 4"}
	if diff := cmp.Diff(wantLinks, links); diff != "" {
		t.Errorf("sentence links (-want +got)\n%s", diff)
	}
	// A covered cell says so in words, for screen readers, and gives the
	// judge's reason on hover; a plain "no" has no reason to show.
	cells := byTestID(doc, "coverage-cell")
	if got := cells.First().Find(".visually-hidden").Text(); got != "covered" {
		t.Errorf("first cell's hidden text = %q, want covered", got)
	}
	if got := cells.First().AttrOr("title", ""); got != `answer "25 percent" found` {
		t.Errorf("first cell's title = %q", got)
	}
	if title, has := cells.Eq(1).Attr("title"); has {
		t.Errorf("an uncovered cell has the title %q", title)
	}

	// Citation verdicts with their basis.
	wantVerdicts := []string{"supported", "supported", "not supported", "not supported"}
	if diff := cmp.Diff(wantVerdicts, texts(doc, "citation-verdict-text")); diff != "" {
		t.Errorf("citation verdicts (-want +got)\n%s", diff)
	}
	basis := texts(doc, "citation-basis")
	if len(basis) != 4 || !strings.Contains(basis[0], "the passage the report cites (passage 0)") ||
		!strings.Contains(basis[3], "not in the collection") {
		t.Errorf("citation bases = %q", basis)
	}
	reasons := texts(doc, "citation-reason")
	if len(reasons) != 3 || !strings.Contains(reasons[2], `"2019" not in it`) || !strings.HasPrefix(reasons[0], "100% of") {
		t.Errorf("citation reasons = %q, want three, the third naming the missing number", reasons)
	}
	if got := byTestID(doc, "citation-doc").First().AttrOr("href", ""); got != "/documents/d1#p0" {
		t.Errorf("first citation links to %q, want /documents/d1#p0", got)
	}
	if got := texts(doc, "eval-sentence-nuggets"); len(got) != 4 || got[0] != "Covers n1, n3 (new: n1, n3)." || got[3] != "Covers no gold nugget." {
		t.Errorf("sentence nuggets = %q", got)
	}
	// No model is configured: only the offline judge is offered.
	if byTestID(doc, "evaluate-model").Length() != 0 {
		t.Error("the model judge is offered without a model")
	}
}

func TestEvaluationUploadRefused(t *testing.T) {
	tests := []struct {
		name       string
		cfg        web.Config
		req        func(t *testing.T) *http.Request
		wantStatus int
		wantMsg    string
	}{
		{
			name: "malformed line",
			req: func(t *testing.T) *http.Request {
				bad := `{"request_id": "r1", "nugget_id": "n1", "answers": ["x"]}` + "\n" + `{"request_id": "r1", "nugget_id": }` + "\n"
				return uploadRequest(t, "/reports/12/evaluation/gold", "bad.jsonl", []byte(bad), url.Values{"name": {"my set"}})
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    "bad.jsonl:2: bad JSON: invalid character '}' looking for beginning of value (at column 35)",
		},
		{
			name: "nugget without answers or text",
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "C:\\gold\\q.jsonl",
					[]byte(`{"request_id": "r1", "nugget_id": "n1", "question": "Why?"}`), nil)
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    `q.jsonl:1: nugget "n1" has neither answers nor text`,
		},
		{
			name: "no nuggets",
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "empty.jsonl", []byte("\n\n"), nil)
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    "empty.jsonl: the file holds no nuggets",
		},
		{
			name: "no file chosen",
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "", nil, nil)
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    "Choose a gold nugget file to upload.",
		},
		{
			name: "not multipart",
			req: func(t *testing.T) *http.Request {
				req := httptest.NewRequest(http.MethodPost, "/reports/12/evaluation/gold", strings.NewReader("nuggets=x"))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				return req
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    "The upload must be sent as a form with a file (multipart/form-data).",
		},
		{
			name: "name too long",
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "gold.jsonl", []byte(evalGold), url.Values{"name": {strings.Repeat("é", 201)}})
			},
			wantStatus: http.StatusUnprocessableEntity,
			wantMsg:    "The name is 201 characters long; the limit is 200.",
		},
		{
			// 2,000 bytes of file, within the multipart slack: the file's
			// own read stops at the limit.
			name: "file over the limit",
			cfg:  web.Config{MaxGoldBytes: 1024},
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "big.jsonl", bytes.Repeat([]byte("\n"), 2000), nil)
			},
			wantStatus: http.StatusRequestEntityTooLarge,
			wantMsg:    "The file is larger than 1 KiB, the largest gold nugget file this portal accepts.",
		},
		{
			// Content-Length says the body is far over the limit: refused
			// before reading.
			name: "declared body over the limit",
			cfg:  web.Config{MaxGoldBytes: 1024},
			req: func(t *testing.T) *http.Request {
				return uploadRequest(t, "/reports/12/evaluation/gold", "big.jsonl", bytes.Repeat([]byte("\n"), 200<<10), nil)
			},
			wantStatus: http.StatusRequestEntityTooLarge,
			wantMsg:    "The file is larger than 1 KiB",
		},
		{
			// No Content-Length and a huge extra field: the body's read
			// limit stops it.
			name: "undeclared body over the limit",
			cfg:  web.Config{MaxGoldBytes: 1024},
			req: func(t *testing.T) *http.Request {
				req := uploadRequest(t, "/reports/12/evaluation/gold", "gold.jsonl", []byte(evalGold),
					url.Values{"padding": {strings.Repeat("x", 200<<10)}})
				req.ContentLength = -1
				return req
			},
			wantStatus: http.StatusRequestEntityTooLarge,
			wantMsg:    "The file is larger than 1 KiB",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newEvalServer(t, tt.cfg, nil)
			rec := s.do(t, tt.req(t))
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if got := textOf(doc, "upload-error-message"); !strings.Contains(got, tt.wantMsg) {
				t.Errorf("upload error = %q, want it to contain %q", got, tt.wantMsg)
			}
			if _, open := byTestID(doc, "gold-upload").Attr("open"); !open {
				t.Error("the upload form is closed after a failed upload")
			}
			if n := s.gold.count(); n != 0 {
				t.Errorf("%d gold sets stored after a refused upload, want none", n)
			}
			if byTestID(doc, "evaluation").Length() != 0 {
				t.Error("a refused upload shows results")
			}
		})
	}
}

// TestEvaluationUploadKeepsTypedName checks a refused upload keeps the name
// the user typed, and an accepted one names the set with it.
func TestEvaluationUploadKeepsTypedName(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	rec := s.upload(t, 12, "bad.jsonl", "{", url.Values{"name": {"  NeuCLIR 2024  "}})
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	if got := valueOf(parseHTML(t, rec), "gold-name"); got != "NeuCLIR 2024" {
		t.Errorf("name field after a refused upload = %q, want the typed name", got)
	}
	rec = s.upload(t, 12, "gold.jsonl", evalGold, url.Values{"name": {"  NeuCLIR 2024  "}})
	wantStatus(t, rec, http.StatusSeeOther)
	if set, _ := s.gold.GoldSet(context.Background(), 1); set.Name != "NeuCLIR 2024" {
		t.Errorf("set name = %q, want the typed name", set.Name)
	}
}

// TestEvaluationUploadAboveGeneralBodyLimit uploads a gold file larger
// than the general body limit (1 MiB) but within the gold file limit.
func TestEvaluationUploadAboveGeneralBodyLimit(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	var b strings.Builder
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, `{"request_id": "r1", "nugget_id": "n%d", "question": "What is item %d of the long list?", "answers": ["item %d"]}`+"\n", i, i, i)
	}
	rec := s.upload(t, 12, "large.jsonl", b.String(), nil)
	wantStatus(t, rec, http.StatusSeeOther)
	// The general limit still holds elsewhere.
	form := url.Values{"judge": {"offline"}, "gold": {"1"}, "padding": {strings.Repeat("x", 2<<20)}}
	rec = s.postForm(t, "/reports/12/evaluation", form)
	wantStatus(t, rec, http.StatusRequestEntityTooLarge)
}

func TestEvaluationNotFound(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	s.upload(t, 12, "gold.jsonl", evalGold, nil)
	tests := []struct {
		name string
		req  func(t *testing.T) *http.Request
	}{
		{"unknown report", func(*testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/reports/99/evaluation", nil)
		}},
		{"report id not a number", func(*testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/reports/x/evaluation", nil)
		}},
		{"upload to an unknown report", func(t *testing.T) *http.Request {
			return uploadRequest(t, "/reports/99/evaluation/gold", "gold.jsonl", []byte(evalGold), nil)
		}},
		{"unknown gold set", func(*testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/reports/12/evaluation?gold=7", nil)
		}},
		{"gold set id not a number", func(*testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/reports/12/evaluation?gold=abc", nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.do(t, tt.req(t))
			wantStatus(t, rec, http.StatusNotFound)
		})
	}
	if n := s.gold.count(); n != 1 {
		t.Errorf("%d gold sets stored, want only the first upload", n)
	}
}

func TestEvaluationRequestChoice(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	rep := evalReport()
	rep.Request.ID = "topic-9"
	s.jobs.reports[12] = rep
	noID := evalReport()
	noID.ID, noID.Request.ID = 13, ""
	s.jobs.reports[13] = noID
	s.upload(t, 12, "gold.jsonl", evalGold, nil)

	tests := []struct {
		name       string
		target     string
		wantStatus int
		wantNotice string // text of the notice with this test id
		noticeID   string
		wantSelect []string // the request options, or nil when there is no select
		wantChosen string   // the selected option; "" leaves the browser's default, the first
		wantResult string   // the result's request, or "" for no results
	}{
		{
			name:   "set lacks the report's request",
			target: "/reports/12/evaluation?gold=1", wantStatus: http.StatusOK,
			noticeID: "request-needed", wantNotice: "has no nuggets for the report's request topic-9",
			wantSelect: []string{"r1", "r2"},
		},
		{
			name:   "report without a request id",
			target: "/reports/13/evaluation?gold=1", wantStatus: http.StatusOK,
			noticeID: "request-needed", wantNotice: "The report has no request id",
			wantSelect: []string{"r1", "r2"},
		},
		{
			name:   "request picked",
			target: "/reports/12/evaluation?gold=1&request=r1", wantStatus: http.StatusOK,
			noticeID: "request-picked", wantNotice: "evaluated against request r1",
			wantSelect: []string{"r1", "r2"}, wantChosen: "r1", wantResult: "r1",
		},
		{
			name:   "request the set does not have",
			target: "/reports/12/evaluation?gold=1&request=nope", wantStatus: http.StatusUnprocessableEntity,
			noticeID: "request-unknown", wantNotice: "has no request nope",
			wantSelect: []string{"r1", "r2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.get(t, tt.target)
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if got := textOf(doc, tt.noticeID); !strings.Contains(got, tt.wantNotice) {
				t.Errorf("%s = %q, want it to contain %q", tt.noticeID, got, tt.wantNotice)
			}
			var values []string
			byTestID(doc, "request-option").Each(func(_ int, o *goquery.Selection) { values = append(values, o.AttrOr("value", "")) })
			if diff := cmp.Diff(tt.wantSelect, values); diff != "" {
				t.Errorf("request options (-want +got)\n%s", diff)
			}
			// Gold files carry no request titles: an option says how many
			// nuggets the request has and quotes its first.
			for _, label := range texts(doc, "request-option") {
				if !strings.Contains(label, " nugget") || !strings.Contains(label, "first: “") {
					t.Errorf("request option %q does not describe the request", label)
				}
			}
			chosen := byTestID(doc, "request-option").FilterFunction(func(_ int, o *goquery.Selection) bool {
				_, sel := o.Attr("selected")
				return sel
			}).AttrOr("value", "")
			if chosen != tt.wantChosen {
				t.Errorf("selected request = %q, want %q", chosen, tt.wantChosen)
			}
			if got := textOf(doc, "result-request"); got != tt.wantResult {
				t.Errorf("results for request %q, want %q", got, tt.wantResult)
			}
		})
	}

	// Against r2, whose only nugget is a claim no sentence states, the
	// report covers nothing: recall 0/1.
	doc := parseHTML(t, s.get(t, "/reports/12/evaluation?gold=1&request=r2"))
	if got := cardTexts(doc)["metric-nugget-recall"]; got != "0.000 | 0/1 nugget" {
		t.Errorf("recall against r2 = %q, want 0.000 | 0/1 nugget", got)
	}
	if got := cardTexts(doc)["metric-vital-recall"]; got != "– | 0/0 vital nuggets" {
		t.Errorf("vital recall without vital nuggets = %q, want it undefined", got)
	}
	if got := textOf(doc, "missing-claim"); got != "A claim of another request." {
		t.Errorf("missing claim = %q", got)
	}
}

func TestEvaluationPicksStoredSets(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	doc := parseHTML(t, s.get(t, "/reports/12/evaluation"))
	if got := textOf(doc, "gold-none"); !strings.Contains(got, "No gold nuggets have been uploaded yet") {
		t.Errorf("empty page says %q", got)
	}
	if _, open := byTestID(doc, "gold-upload").Attr("open"); !open {
		t.Error("the upload form is closed when there is no set to pick")
	}
	if byTestID(doc, "evaluate-form").Length() != 0 || byTestID(doc, "evaluation").Length() != 0 {
		t.Error("an evaluation form or results without a gold set")
	}
	if got := byTestID(doc, "gold-upload-form").AttrOr("enctype", ""); got != "multipart/form-data" {
		t.Errorf("upload form enctype = %q", got)
	}

	s.upload(t, 12, "first.jsonl", evalGold, nil)
	s.upload(t, 12, "second.jsonl", evalGold, nil)
	doc = parseHTML(t, s.get(t, "/reports/12/evaluation?gold=1"))
	var opts []string
	byTestID(doc, "gold-option").Each(func(_ int, o *goquery.Selection) {
		_, sel := o.Attr("selected")
		opts = append(opts, fmt.Sprintf("%s %s %v", o.AttrOr("value", ""), strings.SplitN(o.Text(), " ", 2)[0], sel))
	})
	// Newest first; the chosen set is selected.
	if diff := cmp.Diff([]string{"2 second.jsonl false", "1 first.jsonl true"}, opts); diff != "" {
		t.Errorf("gold set options (-want +got)\n%s", diff)
	}
	if _, open := byTestID(doc, "gold-upload").Attr("open"); open {
		t.Error("the upload form is open although sets can be picked")
	}
}

func TestEvaluationModelJudge(t *testing.T) {
	t.Run("offered", func(t *testing.T) {
		model := &yesModel{}
		s := newEvalServer(t, web.Config{}, model)
		doc, _ := s.uploadAndFollow(t, evalGold)
		if model.calls != 0 {
			t.Errorf("opening the page made %d model calls, want none", model.calls)
		}
		btn := byTestID(doc, "evaluate-model")
		if btn.AttrOr("formmethod", "") != "post" || btn.AttrOr("value", "") != "model" {
			t.Errorf("model judge button: formmethod %q value %q", btn.AttrOr("formmethod", ""), btn.AttrOr("value", ""))
		}
		// 5 nuggets × 4 sentences + 4 citations = 24 calls at most.
		if got := textOf(doc, "evaluate-section"); !strings.Contains(got, "about 24 calls") {
			t.Errorf("the page does not estimate the calls: %q", got)
		}

		rec := s.postForm(t, "/reports/12/evaluation", url.Values{"gold": {"1"}, "request": {"r1"}, "judge": {"model"}})
		wantStatus(t, rec, http.StatusOK)
		doc = parseHTML(t, rec)
		if got := textOf(doc, "judge-name"); got != "model judge: fake-llm" {
			t.Errorf("judge = %q", got)
		}
		// The model says yes to everything: every nugget is covered (by
		// sentence 1 first), and 3 of 4 citations are supported; the
		// missing document is not asked about. 5×4 + 3 = 23 calls.
		cards := cardTexts(doc)
		if cards["metric-nugget-recall"] != "1.000 | 5/5 nuggets" || cards["metric-citation-support"] != "0.750 | 3/4 citations" ||
			cards["metric-sentence-novelty"] != "0.250 | 1/4 sentences" {
			t.Errorf("model judge cards = %v", cards)
		}
		if model.calls != 23 {
			t.Errorf("model calls = %d, want 23", model.calls)
		}
	})
	t.Run("not configured", func(t *testing.T) {
		s := newEvalServer(t, web.Config{}, nil)
		s.upload(t, 12, "gold.jsonl", evalGold, nil)
		rec := s.postForm(t, "/reports/12/evaluation", url.Values{"gold": {"1"}, "judge": {"model"}})
		wantStatus(t, rec, http.StatusUnprocessableEntity)
		doc := parseHTML(t, rec)
		if got := textOf(doc, "evaluate-problem"); !strings.Contains(got, "no model endpoint") {
			t.Errorf("problem = %q", got)
		}
		if byTestID(doc, "evaluation").Length() != 0 {
			t.Error("results shown for a judge that is not offered")
		}
	})
	t.Run("unknown judge", func(t *testing.T) {
		s := newEvalServer(t, web.Config{}, nil)
		s.upload(t, 12, "gold.jsonl", evalGold, nil)
		rec := s.postForm(t, "/reports/12/evaluation", url.Values{"gold": {"1"}, "judge": {"oracle"}})
		wantStatus(t, rec, http.StatusUnprocessableEntity)
		if got := textOf(parseHTML(t, rec), "evaluate-problem"); !strings.Contains(got, `no judge called "oracle"`) {
			t.Errorf("problem = %q", got)
		}
	})
	t.Run("offline by post", func(t *testing.T) {
		s := newEvalServer(t, web.Config{}, nil)
		s.upload(t, 12, "gold.jsonl", evalGold, nil)
		rec := s.postForm(t, "/reports/12/evaluation", url.Values{"gold": {"1"}})
		wantStatus(t, rec, http.StatusOK)
		if got := cardTexts(parseHTML(t, rec))["metric-nugget-recall"]; got != "0.800 | 4/5 nuggets" {
			t.Errorf("recall = %q", got)
		}
	})
}

func TestEvaluationEscapesGoldText(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	evil := `{"request_id": "r1", "nugget_id": "<i>n1</i>", "question": "<script>alert(\"q\")</script>", "answers": ["<img src=x onerror=alert(1)>"], "name": "<b>label</b>", "docids": ["javascript:alert(1)"]}` + "\n" +
		`{"request_id": "r1", "nugget_id": "n2", "text": "\"><svg onload=alert(2)>", "importance": "vital"}` + "\n"
	rec := s.do(t, uploadRequest(t, "/reports/12/evaluation/gold", `<img src=x onerror=alert(3)>.jsonl`, []byte(evil), nil))
	wantStatus(t, rec, http.StatusSeeOther)
	page := s.get(t, rec.Header().Get("Location"))
	wantStatus(t, page, http.StatusOK)
	doc := parseHTML(t, page)
	main := doc.Find("main")
	for _, tag := range []string{"script", "img", "svg", "b", "i"} {
		if n := main.Find(tag).Length(); n != 0 {
			t.Errorf("%d <%s> elements in the page: gold text was rendered as HTML", n, tag)
		}
	}
	if got := textOf(doc, "missing-question"); got != `<script>alert("q")</script>` {
		t.Errorf("question shown as %q, want the literal text", got)
	}
	if got := textOf(doc, "missing-answer"); got != `<img src=x onerror=alert(1)>` {
		t.Errorf("answer shown as %q, want the literal text", got)
	}
	if got := textOf(doc, "gold-option"); !strings.HasPrefix(got, "<img src=x onerror=alert(3)>.jsonl") {
		t.Errorf("set name shown as %q, want the literal file name", got)
	}
	// The document id becomes a path under /documents/, never a
	// javascript: URL.
	if href := byTestID(doc, "missing-doc").AttrOr("href", ""); !strings.HasPrefix(href, "/documents/") {
		t.Errorf("document link = %q", href)
	}
	body := page.Body.String()
	if !strings.Contains(body, "&lt;script&gt;") || strings.Contains(body, "<script>alert") {
		t.Error("the question's markup is not escaped in the HTML")
	}
}

func TestEvaluationRefusesCrossSiteUpload(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	req := uploadRequest(t, "/reports/12/evaluation/gold", "gold.jsonl", []byte(evalGold), nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := s.do(t, req)
	wantStatus(t, rec, http.StatusForbidden)
	if n := s.gold.count(); n != 0 {
		t.Errorf("%d gold sets stored from a cross-site form", n)
	}
}

func TestReportPageLinksToEvaluation(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	doc := parseHTML(t, s.get(t, "/reports/12"))
	if got := byTestID(doc, "report-evaluation-link").AttrOr("href", ""); got != "/reports/12/evaluation" {
		t.Errorf("evaluation link = %q, want /reports/12/evaluation", got)
	}
	if n := doc.Find("#s4").Length(); n != 1 {
		t.Errorf("%d elements with the id s4, want the fourth sentence", n)
	}

	// Without a gold store there is no evaluation page and no link.
	r := newReportServer(t, evalStore(), web.Config{})
	withReport(r, evalReport())
	doc = parseHTML(t, r.get(t, "/reports/12"))
	if byTestID(doc, "report-evaluation-link").Length() != 0 {
		t.Error("the report links to an evaluation page the portal does not serve")
	}
	wantStatus(t, r.get(t, "/reports/12/evaluation"), http.StatusNotFound)
}

// TestEvaluationGoldStoreFailure checks a failing store is a 500 that
// does not leak the error.
func TestEvaluationGoldStoreFailure(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	s.gold.err = errSecret
	rec := s.get(t, "/reports/12/evaluation")
	wantStatus(t, rec, http.StatusInternalServerError)
	if b, _ := io.ReadAll(rec.Body); bytes.Contains(b, []byte("secret.db")) {
		t.Error("the error page shows the store's error")
	}
}

// compareRequest posts a run file to the compare form of report 12 with
// the gold set, request and judge.
func compareRequest(t *testing.T, fileName, content string, fields url.Values) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	// The CSRF token goes first, as the page's form sends it: the
	// server reads it before the file.
	keys := slices.Sorted(maps.Keys(fields))
	slices.SortStableFunc(keys, func(a, b string) int {
		if a == "csrf_token" {
			return -1
		}
		if b == "csrf_token" {
			return 1
		}
		return 0
	})
	for _, k := range keys {
		for _, v := range fields[k] {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fileName != "" {
		fw, err := mw.CreateFormFile("run", fileName)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(content))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/reports/12/evaluation/compare", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// Another system's run, in a TREC format, is judged beside the report with
// the same judge and nuggets, and the metrics stand side by side.
func TestEvaluationComparesAnotherRun(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	doc, _ := s.uploadAndFollow(t, evalGold)
	form := byTestID(doc, "compare-form")
	if form.Length() != 1 || form.AttrOr("action", "") != "/reports/12/evaluation/compare" {
		t.Fatalf("no compare form on the evaluated page")
	}
	hidden := map[string]string{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		hidden[in.AttrOr("name", "")] = in.AttrOr("value", "")
	})
	if hidden["gold"] != "1" || hidden["request"] != "r1" || hidden["judge"] != "offline" {
		t.Errorf("compare form carries %v", hidden)
	}
	// A RAG 2024 run of two topics; its r1 answer says what nuggets n1,
	// n2 and n3 ask, citing d1.
	run := `{"run_id": "other-lab", "topic_id": "r9", "topic": "x", "references": [], "answer": []}
{"run_id": "other-lab", "topic_id": "r1", "topic": "steel", "references": ["d1"], "response_length": 14, "answer": [
  {"text": "Tariffs on steel rose to 25 percent in 2018.", "citations": [0]},
  {"text": "Canada answered with duties on whiskey.", "citations": [0]}]}
`
	fields := url.Values{"gold": {"1"}, "request": {"r1"}, "judge": {"offline"}}
	rec := s.do(t, compareRequest(t, "other.jsonl", run, fields))
	wantStatus(t, rec, http.StatusOK)
	doc = parseHTML(t, rec)
	if got := byTestID(doc, "compare-run").Text(); got != "other-lab" {
		t.Errorf("compared run named %q", got)
	}
	if !strings.Contains(byTestID(doc, "compare-intro").Text(), "TREC RAG 2024") {
		t.Errorf("the format is not named: %q", byTestID(doc, "compare-intro").Text())
	}
	row := byTestID(doc, "compare-nugget-recall")
	got := []string{
		strings.Fields(row.Find(`[data-testid="compare-own"]`).Text())[0],
		strings.Fields(row.Find(`[data-testid="compare-other"]`).Text())[0],
		row.Find(`[data-testid="compare-diff"]`).Text(),
	}
	if diff := cmp.Diff([]string{"0.800", "0.600", "-0.200"}, got); diff != "" {
		t.Errorf("nugget recall own / other / difference (-want +got):\n%s", diff)
	}
	if n := byTestID(doc, "compare-sentence").Length(); n != 2 {
		t.Errorf("%d of the run's sentences shown, want 2", n)
	}
	// The report's own evaluation is still on the page.
	if cardTexts(doc)["metric-nugget-recall"] == "" {
		t.Error("the report's own metrics are gone")
	}
}

func TestEvaluationCompareRefused(t *testing.T) {
	s := newEvalServer(t, web.Config{}, nil)
	s.upload(t, 12, "gold.jsonl", evalGold, nil)
	fields := url.Values{"gold": {"1"}, "request": {"r1"}, "judge": {"offline"}}
	tests := []struct {
		name, file, content, want string
	}{
		{"no report for the request", "run.jsonl", `{"topic_id": "r8", "answer": []}` + "\n" + `{"topic_id": "r9", "answer": []}` + "\n",
			"run.jsonl holds no report for request r1; it answers r8, r9."},
		{"malformed", "run.jsonl", `{"topic_id": "r1", "answer": []}` + "\n" + `{"topic_id": "r2", "references": ["a"], "answer": [{"text": "x", "citations": [4]}]}`,
			"run.jsonl:2: sentence 1: citation 1 is reference number 4; the report has references 0 to 0"},
		{"no file", "", "", "Choose a run file to upload."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.do(t, compareRequest(t, tt.file, tt.content, fields))
			wantStatus(t, rec, http.StatusUnprocessableEntity)
			doc := parseHTML(t, rec)
			if got := byTestID(doc, "compare-error").Text(); !strings.Contains(got, tt.want) {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			if byTestID(doc, "compare-table").Length() != 0 {
				t.Error("a refused run is compared")
			}
		})
	}
	// Without a gold set chosen there is nothing to compare against.
	rec := s.do(t, compareRequest(t, "run.jsonl", `{"topic_id": "r1", "answer": []}`, url.Values{}))
	wantStatus(t, rec, http.StatusOK)
	if byTestID(parseHTML(t, rec), "compare-table").Length() != 0 {
		t.Error("compared without a gold set")
	}
}
