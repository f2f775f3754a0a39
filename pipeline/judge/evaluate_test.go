package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

// memSource is a Source over documents cut into the given passages.
type memSource struct {
	docs map[string][]string // id → passage texts, joined by one space
	err  error               // returned for every call when set
}

func (m memSource) Document(_ context.Context, id string) (pipeline.Document, error) {
	if m.err != nil {
		return pipeline.Document{}, m.err
	}
	ps, ok := m.docs[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return pipeline.Document{ID: id, Text: strings.Join(ps, " ")}, nil
}

func (m memSource) Passages(_ context.Context, id string) ([]pipeline.Passage, error) {
	if m.err != nil {
		return nil, m.err
	}
	texts, ok := m.docs[id]
	if !ok {
		return nil, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	var out []pipeline.Passage
	start := 0
	for i, t := range texts {
		if t == "" { // a document stored without passages
			return nil, nil
		}
		out = append(out, pipeline.Passage{DocID: id, Ordinal: i, Start: start, End: start + len(t), Text: t})
		start += len(t) + 1
	}
	return out, nil
}

// The pipeline's SQLite store satisfies Source through DocumentStore.
var _ Source = pipeline.DocumentStore(nil)

const (
	d1p0 = "The council approved the barrier on 3 May 2021. It will cost 12 million euros and take three years."
	d1p1 = "Shop owners remain sceptical."
)

func testSource() memSource {
	return memSource{docs: map[string][]string{
		"d1": {d1p0, d1p1},
		"d3": {"The mayor opened a new library."},
		"d4": {""},
	}}
}

func testGold() []Nugget {
	return []Nugget{
		{RequestID: "r1", ID: "n1", Question: "What will the barrier cost?", Answers: []string{"12 million euros"}, Importance: Vital},
		{RequestID: "r1", ID: "n2", Question: "When was it approved?", Answers: []string{"3 May 2021"}, Importance: Vital},
		{RequestID: "r1", ID: "n3", Question: "How long will building take?", Answers: []string{"three years"}, Importance: Okay},
		{RequestID: "r1", ID: "n4", Text: "Shop owners in Dortmund oppose the barrier.", Importance: Okay},
	}
}

func testReport() export.NeuCLIRReport {
	span := "The council approved the barrier on 3 May 2021."
	return export.NeuCLIRReport{RequestID: "r1", RunID: "run-a", Sentences: []export.NeuCLIRSentence{
		{Text: "The council approved the barrier on 3 May 2021 at a cost of 12 million euros.", Citations: []string{"d1"},
			Crucible: &export.SentenceMeta{PassageID: "d1#0", Start: 0, End: len(span)}},
		{Text: "The barrier will cost 12 million euros.", Citations: []string{"d1", "d2"}},
		{Text: "Construction is expected to last three years.", Citations: []string{"d3"}},
		{Text: "Shop owners were sceptical.", Citations: []string{"d1", "d1"}},
	}}
}

func TestEvaluateReport(t *testing.T) {
	e := &Evaluator{Judge: Offline{}, Source: testSource()}
	got, err := e.EvaluateReport(context.Background(), testReport(), testGold())
	if err != nil {
		t.Fatal(err)
	}
	// Coverage, by the answers found:
	//   s0 "... 3 May 2021 ... 12 million euros": n1, n2 (both new: novel)
	//   s1 "... 12 million euros": n1 (already covered: not novel)
	//   s2 "... three years": n3 (new: novel)
	//   s3 "Shop owners were sceptical.": the claim n4 has terms shop,
	//      owner, dortmund, oppos, barrier; the sentence holds 2/5 = 0.4 <
	//      0.42, so nothing.
	// Citations (d1 twice in s3 counts once): s0→d1#0 by provenance,
	// supported; s1→d1 best passage d1#0, supported; s1→d2 missing,
	// unsupported; s2→d3#0, no word in common, unsupported; s3→d1 best
	// passage d1#1 ("Shop owners remain sceptical."), which holds all of
	// shop, owner, sceptical: 3/3, supported.
	wantCounts := Counts{Nuggets: 4, VitalNuggets: 2, Covered: 3, VitalCovered: 2, Sentences: 4,
		NovelSentences: 2, RelevantSentences: 3, Citations: 5, Supported: 3}
	wantMetrics := Metrics{
		NuggetRecall:      0.75, // 3/4
		VitalRecall:       1,    // 2/2
		NuggetDensity:     0.75, // 3 covered / 4 sentences
		SentenceNovelty:   0.5,  // s0, s2 of 4
		RelevantSentences: 0.75, // s0, s1, s2 of 4
		CitationSupport:   0.6,  // 3/5
	}
	if diff := cmp.Diff(wantCounts, got.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMetrics, got.Metrics); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}

	type sentenceView struct {
		Nuggets, NewNuggets []int
		Novel               bool
		Citations           []string // "doc basis passage yes"
	}
	var sentences []sentenceView
	for _, s := range got.Sentences {
		v := sentenceView{Nuggets: s.Nuggets, NewNuggets: s.NewNuggets, Novel: s.Novel}
		for _, c := range s.Citations {
			v.Citations = append(v.Citations, fmt.Sprintf("%s %s %s %t", c.DocID, c.Evidence.Basis, c.Evidence.PassageID, c.Verdict.Yes))
		}
		sentences = append(sentences, v)
	}
	wantSentences := []sentenceView{
		{Nuggets: []int{0, 1}, NewNuggets: []int{0, 1}, Novel: true, Citations: []string{"d1 provenance d1#0 true"}},
		{Nuggets: []int{0}, NewNuggets: []int{}, Citations: []string{"d1 best passage d1#0 true", "d2 missing document  false"}},
		{Nuggets: []int{2}, NewNuggets: []int{2}, Novel: true, Citations: []string{"d3 best passage d3#0 false"}},
		{Nuggets: []int{}, NewNuggets: []int{}, Citations: []string{"d1 best passage d1#1 true"}},
	}
	if diff := cmp.Diff(wantSentences, sentences); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
	if span := got.Sentences[0].Citations[0].Evidence.Span; span != "The council approved the barrier on 3 May 2021." {
		t.Errorf("provenance span = %q", span)
	}

	var covering [][]int
	var covered []bool
	for _, n := range got.Nuggets {
		covering = append(covering, n.Sentences)
		covered = append(covered, n.Covered)
	}
	if diff := cmp.Diff([][]int{{0, 1}, {0}, {2}, {}}, covering); diff != "" {
		t.Errorf("sentences per nugget (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true, true, false}, covered); diff != "" {
		t.Errorf("covered (-want +got):\n%s", diff)
	}
	// The matrix: nugget i × sentence j.
	var matrix []string
	for _, row := range got.Coverage {
		var b strings.Builder
		for _, v := range row {
			if v.Yes {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		matrix = append(matrix, b.String())
	}
	if diff := cmp.Diff([]string{"xx..", "x...", "..x.", "...."}, matrix); diff != "" {
		t.Errorf("coverage matrix (-want +got):\n%s", diff)
	}
	if got.RequestID != "r1" || got.RunID != "run-a" || got.Judge != (Offline{}).Name() || got.Missing {
		t.Errorf("header = %q %q %q missing=%t", got.RequestID, got.RunID, got.Judge, got.Missing)
	}
}

func TestEvaluateReportDeterministic(t *testing.T) {
	ctx := context.Background()
	one, err := (&Evaluator{Judge: Offline{}, Source: testSource(), Concurrency: 1}).EvaluateReport(ctx, testReport(), testGold())
	if err != nil {
		t.Fatal(err)
	}
	many, err := (&Evaluator{Judge: Offline{}, Source: testSource(), Concurrency: 16}).EvaluateReport(ctx, testReport(), testGold())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one, many); diff != "" {
		t.Errorf("results depend on concurrency (-1 +16):\n%s", diff)
	}
}

func TestEvaluateReportNoSentences(t *testing.T) {
	rep := export.NeuCLIRReport{RequestID: "r1", Sentences: []export.NeuCLIRSentence{}}
	got, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).EvaluateReport(context.Background(), rep, testGold())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Metrics{}, got.Metrics); diff != "" {
		t.Errorf("metrics of an empty report (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Counts{Nuggets: 4, VitalNuggets: 2}, got.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if len(got.Coverage) != 4 || len(got.Coverage[0]) != 0 || len(got.Sentences) != 0 || len(got.Nuggets) != 4 {
		t.Errorf("shape: %d coverage rows, %d sentences, %d nuggets", len(got.Coverage), len(got.Sentences), len(got.Nuggets))
	}
}

func TestEvaluateReportWithoutGold(t *testing.T) {
	// Citation support is measured for a report no gold nugget judges.
	got, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).EvaluateReport(context.Background(), testReport(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{NuggetRecall: 0, CitationSupport: 0.6} // 3/5 as in TestEvaluateReport
	if diff := cmp.Diff(want, got.Metrics); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestEvaluateReportWholeDocument(t *testing.T) {
	// d4 is stored without passages: its whole text is the evidence.
	src := testSource()
	src.docs["d4"] = []string{""}
	rep := export.NeuCLIRReport{RequestID: "r1", Sentences: []export.NeuCLIRSentence{{Text: "A sentence.", Citations: []string{"d4"}}}}
	got, err := (&Evaluator{Judge: Offline{}, Source: src}).EvaluateReport(context.Background(), rep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev := got.Sentences[0].Citations[0].Evidence; ev.Basis != BasisDocument || ev.PassageID != "" {
		t.Errorf("evidence = %+v, want the whole document", ev)
	}
}

func TestEvaluateReportProvenanceElsewhere(t *testing.T) {
	// Provenance naming a passage of another document, or an ordinal the
	// document lacks, falls back on the best passage.
	tests := []struct {
		name      string
		passageID string
	}{
		{"other document", "d3#0"},
		{"unknown ordinal", "d1#7"},
		{"malformed id", "d1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := export.NeuCLIRReport{RequestID: "r1", Sentences: []export.NeuCLIRSentence{{
				Text: "Shop owners remain sceptical.", Citations: []string{"d1"},
				Crucible: &export.SentenceMeta{PassageID: tt.passageID, Start: 0, End: 5},
			}}}
			got, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).EvaluateReport(context.Background(), rep, nil)
			if err != nil {
				t.Fatal(err)
			}
			ev := got.Sentences[0].Citations[0].Evidence
			if ev.Basis != BasisBestPassage || ev.PassageID != "d1#1" || ev.Span != "" {
				t.Errorf("evidence = %+v, want the best passage d1#1", ev)
			}
		})
	}
}

func TestEvaluateReportErrors(t *testing.T) {
	ctx := context.Background()
	gold := testGold()
	gold[2].RequestID = "r9"
	_, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).EvaluateReport(ctx, testReport(), gold)
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), `nugget n3 belongs to request "r9"`) {
		t.Errorf("nugget of another request: error = %v", err)
	}
	storeErr := errors.New("disk on fire")
	_, err = (&Evaluator{Judge: Offline{}, Source: memSource{err: storeErr}}).EvaluateReport(ctx, testReport(), testGold())
	if !errors.Is(err, storeErr) || !strings.Contains(err.Error(), `load cited document "d1"`) {
		t.Errorf("store failure: error = %v", err)
	}
	if _, err := (&Evaluator{Source: testSource()}).EvaluateReport(ctx, testReport(), nil); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("no judge: error = %v", err)
	}
	if _, err := (&Evaluator{Judge: Offline{}}).Evaluate(ctx, nil, nil, nil); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("no source: error = %v", err)
	}
}

// failingJudge is the offline judge, except that it fails on sentences
// holding a marker.
type failingJudge struct {
	Offline
	marker string
	err    error
}

func (f failingJudge) Covers(ctx context.Context, n Nugget, s string) (Verdict, error) {
	if strings.Contains(s, f.marker) {
		return Verdict{}, f.err
	}
	return f.Offline.Covers(ctx, n, s)
}

func (f failingJudge) Supports(ctx context.Context, s string, ev Evidence) (Verdict, error) {
	if strings.Contains(s, f.marker) {
		return Verdict{}, f.err
	}
	return f.Offline.Supports(ctx, s, ev)
}

func TestEvaluateReportJudgeFailures(t *testing.T) {
	ctx := context.Background()
	unreadable := fmt.Errorf("judge: %w", pipeline.Invalidf("answer reads as neither yes nor no"))
	e := &Evaluator{Judge: failingJudge{marker: "Construction", err: unreadable}, Source: testSource()}
	got, err := e.EvaluateReport(ctx, testReport(), testGold())
	if err != nil {
		t.Fatalf("an unreadable answer stopped the evaluation: %v", err)
	}
	// s2 ("Construction ...") is undecided for its 4 nuggets and 1
	// citation: 5 undecided verdicts counted as no, so n3 is not covered:
	// recall 2/4, support 3/5 → 3/5 still (the s2 citation was unsupported
	// anyway).
	if got.Counts.Undecided != 5 || got.Counts.Covered != 2 || got.Counts.Supported != 3 {
		t.Errorf("counts = %+v, want 5 undecided, 2 covered, 3 supported", got.Counts)
	}
	if v := got.Coverage[2][2]; v.Yes || !strings.Contains(v.Error, "neither yes nor no") {
		t.Errorf("undecided verdict = %+v", v)
	}

	down := fmt.Errorf("endpoint: %w", pipeline.ErrModel)
	e = &Evaluator{Judge: failingJudge{marker: "Construction", err: down}, Source: testSource()}
	_, err = e.EvaluateReport(ctx, testReport(), testGold())
	if !errors.Is(err, pipeline.ErrModel) || !strings.Contains(err.Error(), `evaluate report "r1", sentence 3`) {
		t.Errorf("model failure: error = %v", err)
	}
}

func TestEvaluateReportProgress(t *testing.T) {
	var mu sync.Mutex
	var seen []int
	total := 0
	e := &Evaluator{Judge: Offline{}, Source: testSource(), Progress: func(id string, done, n int) {
		mu.Lock()
		defer mu.Unlock()
		if id != "r1" {
			t.Errorf("progress for %q", id)
		}
		seen = append(seen, done)
		total = n
	}}
	if _, err := e.EvaluateReport(context.Background(), testReport(), testGold()); err != nil {
		t.Fatal(err)
	}
	// 4 nuggets × 4 sentences + 5 citations = 21 judge calls.
	if total != 21 || len(seen) != 21 || seen[20] != 21 {
		t.Errorf("progress: total %d, %d reports, last %v", total, len(seen), seen)
	}
	for i, d := range seen {
		if d != i+1 {
			t.Fatalf("progress not in order: %v", seen)
		}
	}
}

func TestEvaluate(t *testing.T) {
	gold := append(testGold(), Nugget{RequestID: "r2", ID: "m1", Answers: []string{"x"}, Importance: Okay})
	reports := map[string]export.NeuCLIRReport{
		"r1": testReport(),
		"r3": {RequestID: "r3", Sentences: []export.NeuCLIRSentence{}},
	}
	got, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).Evaluate(context.Background(), gold, reports, []string{"r1", "r2", "r4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 2 || got.Requests[0].RequestID != "r1" || got.Requests[1].RequestID != "r2" || !got.Requests[1].Missing {
		t.Fatalf("requests = %+v", got.Requests)
	}
	if diff := cmp.Diff([]string{"r2"}, got.Missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"r3", "r4"}, got.Unjudged); diff != "" {
		t.Errorf("unjudged (-want +got):\n%s", diff)
	}
	// r1 as in TestEvaluateReport, r2 missing (all 0); vital recall only
	// over r1, the one request with vital nuggets.
	want := Metrics{
		NuggetRecall:      0.375, // (0.75 + 0) / 2
		VitalRecall:       1,     // 1 / 1
		NuggetDensity:     0.375, // (0.75 + 0) / 2
		SentenceNovelty:   0.25,  // (0.5 + 0) / 2
		RelevantSentences: 0.375, // (0.75 + 0) / 2
		CitationSupport:   0.3,   // (0.6 + 0) / 2
	}
	if diff := cmp.Diff(want, got.Mean); diff != "" {
		t.Errorf("mean (-want +got):\n%s", diff)
	}
	if got.VitalRequests != 1 {
		t.Errorf("VitalRequests = %d, want 1", got.VitalRequests)
	}
	wantTotals := Counts{Nuggets: 5, VitalNuggets: 2, Covered: 3, VitalCovered: 2, Sentences: 4,
		NovelSentences: 2, RelevantSentences: 3, Citations: 5, Supported: 3}
	if diff := cmp.Diff(wantTotals, got.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	miss := got.Requests[1]
	if len(miss.Nuggets) != 1 || miss.Nuggets[0].Covered || miss.Counts.Nuggets != 1 || len(miss.Coverage) != 1 {
		t.Errorf("missing report result = %+v", miss)
	}
}

func TestEvaluateRequestIDs(t *testing.T) {
	gold := append(testGold(), Nugget{RequestID: "r2", ID: "m1", Answers: []string{"x"}, Importance: Okay})
	reports := map[string]export.NeuCLIRReport{"r1": testReport()}
	e := &Evaluator{Judge: Offline{}, Source: testSource()}

	// Only r1 is asked for: r2 (gold nuggets, no report) is not scored, so
	// it does not pull the means down with zeros.
	got, err := e.Evaluate(context.Background(), gold, reports, []string{"r1", "r1", "r5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 1 || got.Requests[0].RequestID != "r1" {
		t.Fatalf("requests = %+v", got.Requests)
	}
	if got.Mean != got.Requests[0].Metrics || got.Mean.CitationSupport != 0.6 {
		t.Errorf("mean %+v, want r1's metrics %+v", got.Mean, got.Requests[0].Metrics)
	}
	if got.Totals.Nuggets != 4 {
		t.Errorf("totals count r2's nuggets: %+v", got.Totals)
	}
	if diff := cmp.Diff([]string{"r2"}, got.NotRequested); diff != "" {
		t.Errorf("not requested (-want +got):\n%s", diff)
	}
	if len(got.Missing) != 0 || !cmp.Equal([]string{"r5"}, got.Unjudged) {
		t.Errorf("missing %v, unjudged %v; want none and [r5]", got.Missing, got.Unjudged)
	}
	var table strings.Builder
	if err := WriteTable(&table, got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "gold nuggets but not requested (not scored): r2\n") || !strings.Contains(table.String(), "mean (1)") {
		t.Errorf("table:\n%s", table.String())
	}

	// Without request ids every request with gold nuggets is scored.
	got, err = e.Evaluate(context.Background(), gold, reports, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 2 || got.NotRequested != nil || got.Mean.CitationSupport != 0.3 {
		t.Errorf("nil request ids: %d requests, not requested %v, support %v", len(got.Requests), got.NotRequested, got.Mean.CitationSupport)
	}

	// An empty list asks for nothing.
	got, err = e.Evaluate(context.Background(), gold, reports, []string{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 0 || !cmp.Equal([]string{"r1", "r2"}, got.NotRequested) {
		t.Errorf("empty request ids: requests %+v, not requested %v", got.Requests, got.NotRequested)
	}
}

func TestEvaluateNothing(t *testing.T) {
	got, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).Evaluate(context.Background(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 0 || got.Mean != (Metrics{}) || got.Missing == nil || got.Unjudged == nil {
		t.Errorf("empty evaluation = %+v", got)
	}
}

func TestResultsJSON(t *testing.T) {
	res, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).Evaluate(context.Background(), testGold(), map[string]export.NeuCLIRReport{"r1": testReport()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// Evidence.Text is not marshalled (it can be long); everything else
	// comes back.
	for i := range res.Requests {
		for j := range res.Requests[i].Sentences {
			for k := range res.Requests[i].Sentences[j].Citations {
				res.Requests[i].Sentences[j].Citations[k].Evidence.Text = ""
			}
		}
	}
	if diff := cmp.Diff(res, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	mean := raw["mean"].(map[string]any)
	for _, k := range []string{"nugget_recall", "vital_nugget_recall", "nugget_density", "sentence_novelty", "relevant_sentences", "citation_support"} {
		if _, ok := mean[k]; !ok {
			t.Errorf("mean lacks %q: %v", k, mean)
		}
	}
}

// wrapInvalid marks err as an unreadable answer, as a model judge's parse
// errors are.
func wrapInvalid(err error) error { return fmt.Errorf("%w: %w", pipeline.ErrInvalid, err) }
