package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/web"
)

// fakeScorecards keeps scorecards in memory.
type fakeScorecards struct {
	mu sync.Mutex
	m  map[int64]pipeline.Scorecard
}

func (f *fakeScorecards) SaveScorecard(_ context.Context, id int64, sc pipeline.Scorecard) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[id] = sc
	return nil
}

func (f *fakeScorecards) Scorecard(_ context.Context, id int64) (pipeline.Scorecard, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sc, ok := f.m[id]
	if !ok {
		return sc, fmt.Errorf("scorecard of %d: %w", id, pipeline.ErrNotFound)
	}
	return sc, nil
}

// offlineMade and modelMade are the manifests of reports of the offline
// engine and of the model "fake-llm".
var (
	offlineMade = &pipeline.Manifest{Engine: pipeline.EngineFacts{ID: "offline", Label: "offline engine", Offline: true}}
	modelMade   = &pipeline.Manifest{Engine: pipeline.EngineFacts{ID: "openai", Label: "fake-llm", Model: "fake-llm", EndpointHost: "127.0.0.1:8000"}}
)

// newScoreServer is the evaluation pages' portal (report 12 is
// evalReport, made as manifest says) keeping scorecards, judged by
// scoreJudge (nil: the offline judge), with the model judge "fake-llm"
// at 127.0.0.1:9000 when model is set.
func newScoreServer(t *testing.T, manifest *pipeline.Manifest, scoreJudge judge.Judge, model pipeline.Model) (*evalServer, *fakeScorecards) {
	t.Helper()
	store := evalStore()
	jobs := newFakeJobStore()
	rep := evalReport()
	rep.Manifest = manifest
	jobs.reports[rep.ID] = rep
	gold := &fakeGoldStore{}
	cards := &fakeScorecards{m: map[int64]pipeline.Scorecard{}}
	deps := web.Deps{
		Searcher: &fakeSearcher{}, Store: store, Logger: slog.New(slog.DiscardHandler), Version: "v1.2.3",
		Jobs: jobs, Reports: &fakeReportService{engines: testEngines}, Gold: gold,
		Scorecards: cards, ScoreJudge: scoreJudge,
	}
	if model != nil {
		deps.JudgeModel, deps.JudgeModelLabel = model, "fake-llm"
		deps.JudgeModelInfo = pipeline.JudgeInfo{Model: "fake-llm", EndpointHost: "127.0.0.1:9000"}
	}
	e, err := web.New(web.Config{LocalMode: true, Now: func() time.Time { return testNow }}, deps)
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	return &evalServer{testServer: newTestServerOf(t, &testServer{e: e, store: store, log: &logBuf}), jobs: jobs, gold: gold}, cards
}

// A report's scorecard: none at first; computed on demand by the portal's
// judge (the offline judge here, on the offline engine's report:
// self-judged), with nugget recall from the gold set that has nuggets for
// its request, stored, shown on the page and carried by the exports.
func TestReportScorecard(t *testing.T) {
	s, cards := newScoreServer(t, offlineMade, nil, nil)
	doc := parseHTML(t, s.get(t, "/reports/12"))
	if byTestID(doc, "scorecard-none").Length() != 1 || textOf(doc, "scorecard-compute") != "Compute the scorecard" {
		t.Fatalf("a report without a scorecard: %q", textOf(doc, "scorecard"))
	}
	nuggets, err := judge.ReadNuggets(strings.NewReader(evalGold), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.gold.CreateGoldSet(context.Background(), "steel gold", nuggets); err != nil {
		t.Fatal(err)
	}

	rec := s.postForm(t, "/reports/12/scorecard", url.Values{})
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/reports/12#scorecard" {
		t.Errorf("redirect to %q", loc)
	}
	sc, err := cards.Scorecard(context.Background(), 12)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Independence != pipeline.SelfJudgedOffline || !sc.Judge.Offline || sc.Gold == nil || sc.Gold.Set != "steel gold" {
		t.Errorf("scorecard %+v", sc)
	}
	doc = parseHTML(t, s.get(t, "/reports/12"))
	want := map[string]string{
		"scorecard-independence": "self-judged (offline)",
		// n1 "25 percent", n2 "Canada", n3 "2018", n4 "fell sharply"; not n5.
		"scorecard-nugget-recall": `0.800 4 of 5 gold nuggets of “steel gold”; vital 0.667`,
		// Sentences 1 and 2 are supported; 3 states a year its passage
		// lacks; 4 cites a document the collection does not hold.
		"scorecard-citation-support": "0.500 of 4 citations, by the judge",
		"scorecard-reviewed-support": "– no citation reviewed yet",
		"scorecard-compute":          "Compute it again",
	}
	for id, w := range want {
		if got := figure(doc, id); got != w {
			t.Errorf("%s = %q, want %q", id, got, w)
		}
	}
	if !strings.Contains(textOf(doc, "scorecard-judged"), "Judged by offline (claim overlap") {
		t.Errorf("judged line %q", textOf(doc, "scorecard-judged"))
	}

	rec = s.get(t, "/reports/12/export.json")
	wantStatus(t, rec, http.StatusOK)
	var exp struct {
		Crucible struct {
			Scorecard *pipeline.Scorecard `json:"scorecard"`
		} `json:"crucible"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &exp); err != nil {
		t.Fatal(err)
	}
	if exp.Crucible.Scorecard == nil || exp.Crucible.Scorecard.Independence != pipeline.SelfJudgedOffline {
		t.Errorf("export's crucible.scorecard = %+v", exp.Crucible.Scorecard)
	}
	if md := s.get(t, "/reports/12/export.md").Body.String(); !strings.Contains(md, "## Scorecard") {
		t.Error("the Markdown export has no scorecard")
	}
	if got := textOf(parseHTML(t, s.get(t, "/reports/12/print")), "print-scorecard"); !strings.Contains(got, "self-judged (offline)") ||
		!strings.Contains(got, "Nugget recall: 0.800") {
		t.Errorf("printable scorecard %q", got)
	}
}

// A judge model apart from the generator scores the offline engine's
// report independently, and its own model's report as self-judged; the
// evaluation page labels its scores the same way.
func TestScorecardAndEvaluationLabels(t *testing.T) {
	model := &yesModel{}
	mj := judge.ModelJudge{Model: model, Label: "fake-llm", ModelName: "fake-llm", Host: "127.0.0.1:9000"}
	for _, tt := range []struct {
		name     string
		manifest *pipeline.Manifest
		want     string
	}{
		{"the offline engine's report", offlineMade, pipeline.Independent},
		{"its own model's report", modelMade, pipeline.SelfJudged},
		{"a report that says nothing of its maker", nil, pipeline.GeneratorUnknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newScoreServer(t, tt.manifest, mj, model)
			wantStatus(t, s.postForm(t, "/reports/12/scorecard", url.Values{}), http.StatusSeeOther)
			doc := parseHTML(t, s.get(t, "/reports/12"))
			if got := textOf(doc, "scorecard-independence"); got != tt.want {
				t.Errorf("scorecard label %q, want %q", got, tt.want)
			}
			if got := figure(doc, "scorecard-on-topic"); got != "1.000 of 4 sentences, by the judge" {
				t.Errorf("on topic %q (the model answers yes)", got)
			}
			if _, err := s.gold.CreateGoldSet(context.Background(), "g", mustNuggets(t)); err != nil {
				t.Fatal(err)
			}
			rec := s.postForm(t, "/reports/12/evaluation", url.Values{"gold": {"1"}, "request": {"r1"}, "judge": {"model"}})
			wantStatus(t, rec, http.StatusOK)
			if got := textOf(parseHTML(t, rec), "judge-independence"); got != tt.want {
				t.Errorf("evaluation label %q, want %q", got, tt.want)
			}
		})
	}
	// The offline judge on the evaluation page: self-judged (offline) for
	// the offline engine's report, independent for a model's.
	for manifest, want := range map[*pipeline.Manifest]string{offlineMade: pipeline.SelfJudgedOffline, modelMade: pipeline.Independent} {
		s, _ := newScoreServer(t, manifest, nil, nil)
		if _, err := s.gold.CreateGoldSet(context.Background(), "g", mustNuggets(t)); err != nil {
			t.Fatal(err)
		}
		doc := parseHTML(t, s.get(t, "/reports/12/evaluation?gold=1&request=r1"))
		if got := textOf(doc, "judge-independence"); got != want {
			t.Errorf("offline judge on %s's report: %q, want %q", manifest.Engine.Label, got, want)
		}
	}
}

func mustNuggets(t *testing.T) []judge.Nugget {
	t.Helper()
	ns, err := judge.ReadNuggets(strings.NewReader(evalGold), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// figure is a scorecard figure's value and detail (its dd), or the
// element's text for any other element.
func figure(doc *goquery.Document, id string) string {
	if dd := byTestID(doc, id).Find("dd"); dd.Length() > 0 {
		return strings.Join(strings.Fields(dd.Text()), " ")
	}
	return textOf(doc, id)
}
