package offline

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// The harbour request asks about two sub-topics, the dredging costs and
// the ferry line; h5 covers both, h2 and h3 the dredging, h4 and h7 the
// ferry.
var harbourRequest = pipeline.Request{
	ID:               "harbour-1",
	Title:            "Harbour plans",
	ProblemStatement: "What did the council decide about the harbour: the dredging costs and the new ferry line?",
	Limit:            1000,
}

var harbourDocs = []pipeline.Document{
	{ID: "h1", Title: "Harbour history", Text: "The harbour was built in 1820 and has served fishermen ever since."},
	{ID: "h2", Title: "Dredging budget", Text: "The council set aside 4 million for dredging the harbour channel; the dredging costs rose."},
	{ID: "h3", Title: "Dredging delays", Text: "Dredging of the harbour will start late because the costs of dredging rose."},
	{ID: "h4", Title: "Ferry timetable", Text: "The new ferry line will run hourly from the harbour to the island."},
	{ID: "h5", Title: "Council decisions", Text: "The council decided the dredging costs of the harbour and a new ferry line to the island."},
	{ID: "h6", Title: "Football", Text: "The local team won the cup."},
	{ID: "h7", Title: "Ferry operator", Text: "A private company will operate the new ferry line from May."},
	{ID: "h8", Title: "Weather", Text: "Storms hit the coast in winter."},
}

var harbourFirstStage = []string{"h1", "h2", "h3", "h6", "h4", "h7", "h8", "h5"}

type rerankDocSource map[string]pipeline.Document

func (m rerankDocSource) Document(_ context.Context, id string) (pipeline.Document, error) {
	d, ok := m[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return d, nil
}

func harbourInput() rerank.Input {
	docs := rerankDocSource{}
	for _, d := range harbourDocs {
		docs[d.ID] = d
	}
	cands := make([]rerank.Candidate, len(harbourFirstStage))
	for i, id := range harbourFirstStage {
		cands[i] = rerank.Candidate{ID: id, Score: float64(10 - i)}
	}
	return rerank.Input{Request: harbourRequest, Candidates: cands, Docs: docs}
}

func harbourPromptDocs(ids ...string) []rerank.PromptDoc {
	var out []rerank.PromptDoc
	for _, id := range ids {
		for _, d := range harbourDocs {
			if d.ID == id {
				out = append(out, rerank.PromptDoc{ID: d.ID, Title: d.Title, Text: d.Text})
			}
		}
	}
	return out
}

// The ferry request and documents have hand-computed matches (see
// TestRerankRating).
var (
	ferryRequest = prompts.RequestInfo{Title: "Ferry", ProblemStatement: "Ferry line timetable"}
	ferryDocs    = []rerank.PromptDoc{
		{ID: "f1", Title: "Storms", Text: "Storms hit the coast."},
		{ID: "f2", Title: "Ferry", Text: "The ferry will run hourly."},
		{ID: "f3", Title: "Timetable", Text: "The timetable lists each line."},
	}
)

func TestRerankTasksAnswerInTheirFormat(t *testing.T) {
	e := newTestEngine()
	req := rerank.RequestInfo(harbourRequest)
	docs := harbourPromptDocs("h1", "h2", "h4", "h5")
	cases := []struct {
		req   pipeline.ModelRequest
		parse func(string) error
	}{
		{rerank.BuildSubQuestions(rerank.SubQuestionsInput{Request: req, N: 2}), func(s string) error { _, err := rerank.ParseSubQuestions(s); return err }},
		{rerank.BuildRate(rerank.RateInput{Request: req, Question: "How much does the dredging cost?", Doc: docs[1]}), func(s string) error { _, err := rerank.ParseRate(s); return err }},
		{rerank.BuildPointwise(rerank.PointwiseInput{Request: req, Doc: docs[2]}), func(s string) error { _, err := rerank.ParsePointwise(s); return err }},
		{rerank.BuildListwise(rerank.ListwiseInput{Request: req, Docs: docs}), func(s string) error {
			res, err := rerank.ParseListwise(s, len(docs))
			if err == nil && !res.Complete() {
				return fmt.Errorf("incomplete ranking %+v", res)
			}
			return err
		}},
		{rerank.BuildSetwise(rerank.SetwiseInput{Request: req, Docs: docs}), func(s string) error { _, err := rerank.ParseSetwise(s, len(docs)); return err }},
		{rerank.BuildSetR(rerank.SetRInput{Request: req, Docs: docs}), func(s string) error { _, err := rerank.ParseSetR(s, len(docs)); return err }},
		{rerank.BuildRequirements(rerank.RequirementsInput{Request: req, Max: 5}), func(s string) error { _, err := rerank.ParseRequirements(s); return err }},
		{rerank.BuildSupport(rerank.SupportInput{Request: req, Requirement: "The new ferry line", Doc: docs[2]}), func(s string) error { _, err := rerank.ParseSupport(s); return err }},
		{rerank.BuildFeatures(rerank.FeaturesInput{Doc: docs[2]}), func(s string) error { _, err := rerank.ParseFeatures(s); return err }},
	}
	tasks := map[pipeline.Task]bool{}
	for _, c := range cases {
		tasks[c.req.Task] = true
		t.Run(string(c.req.Task), func(t *testing.T) {
			resp := complete(t, e, c.req)
			if err := c.parse(resp.Text); err != nil {
				t.Fatalf("the parser rejects the answer %q: %v", resp.Text, err)
			}
			if resp.Model != Version {
				t.Errorf("model %q, want %q", resp.Model, Version)
			}
			if got := len(resp.TokenLogprobs) > 0; got != c.req.Logprobs {
				t.Errorf("log-probabilities given = %v; asked for: %v", got, c.req.Logprobs)
			}
			if c.req.Logprobs {
				if _, ok := prompts.YesProbability(resp); !ok {
					t.Error("YesProbability cannot read the answer's log-probabilities")
				}
			}
			again := complete(t, newTestEngine(), c.req)
			if diff := cmp.Diff(resp, again); diff != "" {
				t.Errorf("a second engine answers differently (-first +second):\n%s", diff)
			}
		})
	}
	for _, task := range rerank.Tasks() {
		if !tasks[task] {
			t.Errorf("task %s is not tested", task)
		}
	}
	// A task sent with another task's input is refused.
	mismatched := rerank.BuildRate(rerank.RateInput{Request: req, Question: "q", Doc: docs[0]})
	mismatched.Task = rerank.TaskSupport
	if _, err := e.Complete(context.Background(), mismatched); err == nil {
		t.Error("a rate input sent as rerank_support was answered")
	}
}

func TestRerankSubTopics(t *testing.T) {
	e := newTestEngine()
	tests := []struct {
		name string
		req  prompts.RequestInfo
		n    int
		want []string
	}{
		{
			// The enumeration "import duties, prices and federal revenue"
			// gives three items after "about". With n = 2 the greedy takes
			// import duties (mckinley 1.5 + tariff 1.5 + import 1 + duty 1)
			// then federal revenue (2 new terms) over prices (1).
			name: "enumeration, n 2",
			req:  tariffRequest,
			n:    2,
			want: []string{
				"What did the McKinley Tariff change about import duties?",
				"What did the McKinley Tariff change about federal revenue?",
			},
		},
		{
			name: "enumeration, n 3",
			req:  tariffRequest,
			n:    3,
			want: []string{
				"What did the McKinley Tariff change about import duties?",
				"What did the McKinley Tariff change about prices?",
				"What did the McKinley Tariff change about federal revenue?",
			},
		},
		{
			// "at what cost" is a clause item: the wh-word and its
			// preposition go with it.
			name: "clause items",
			req: prompts.RequestInfo{Title: "Emscher flood defences",
				ProblemStatement: "What flood defences have been approved since 2020, at what cost, and what objections have been raised?"},
			n: 2,
			want: []string{
				"What flood defences have been approved since 2020 at what cost?",
				"What flood defences have been approved since 2020 what objections have been raised?",
			},
		},
		{
			// Sentences and ';' clauses stand alone; the greedy prefers the
			// clauses naming two new terms each.
			name: "clauses",
			req:  prompts.RequestInfo{Title: "Immigration policy", ProblemStatement: "How did presidents discuss immigration? Include border security; also refugee admissions."},
			n:    2,
			want: []string{"Include border security", "Also refugee admissions."},
		},
		{
			// One clause and no enumeration: rerankKeyphrases fill in, those
			// naming an aspect (a term outside the title) first, heavier
			// first: "railways financed" (railway 1.5 + financ 1) and
			// "western territories" (1 + 1) before the title's "Railways".
			name: "keyphrase fill",
			req:  prompts.RequestInfo{Title: "Railways", ProblemStatement: "How were railways financed in the western territories?"},
			n:    3,
			want: []string{
				"How were railways financed in the western territories?",
				"What is known about railways financed?",
				"What is known about western territories?",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.rerankSubTopics(tt.req, tt.n, tt.n)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRerankRating(t *testing.T) {
	e := newTestEngine()
	// Request terms: ferry (title, 1.5), line (a common word, 0.6),
	// timetable (1). Question "When does the ferry run?": ferry 1, run
	// (common) 0.6.
	//   f2 "Ferry" + "The ferry will run hourly.": ferry ×2, run ×1.
	//     question m = (1·2/2.5 + 0.6·1/1.5)/1.6 = (0.8 + 0.4)/1.6 = 0.75
	//     request m = 1.5·0.8/3.1 = 0.387097
	//     s = 0.75·0.75 + 0.25·0.387097 = 0.659274 → thresholds up to 0.6 → 4
	//   f3 "Timetable" + "The timetable lists each line.": timetable ×2,
	//     line ×1. question m = 0; request m = (0.6/1.5 + 0.8)/3.1 =
	//     0.387097; s = 0.25·0.387097 = 0.096774 → 0
	//   f1 shares nothing → 0
	q := "When does the ferry run?"
	want := map[string]int{"f1": 0, "f2": 4, "f3": 0}
	for _, d := range ferryDocs {
		resp := complete(t, e, rerank.BuildRate(rerank.RateInput{Request: ferryRequest, Question: q, Doc: d}))
		out, err := rerank.ParseRate(resp.Text)
		if err != nil {
			t.Fatal(err)
		}
		if out.Rating != want[d.ID] {
			t.Errorf("%s rated %d, want %d", d.ID, out.Rating, want[d.ID])
		}
	}
	// Support of f2 for the same question: sigmoid(10·(0.659274 − 0.45))
	// = 1/(1 + e^−2.092742) = 0.890196.
	resp := complete(t, e, rerank.BuildSupport(rerank.SupportInput{Request: ferryRequest, Requirement: q, Doc: ferryDocs[1]}))
	if p, ok := prompts.YesProbability(resp); !ok || math.Abs(p-0.890196) > 1e-6 || resp.Text != "yes" {
		t.Errorf("support of f2: %q, p = %v (%v); want yes, 0.890196", resp.Text, p, ok)
	}
	// Pointwise of f2 reads the request alone: sigmoid(10·(0.387097 −
	// 0.45)) = 1/(1 + e^0.629032) = 0.347730: no.
	resp = complete(t, e, rerank.BuildPointwise(rerank.PointwiseInput{Request: ferryRequest, Doc: ferryDocs[1]}))
	if p, ok := prompts.YesProbability(resp); !ok || math.Abs(p-0.347730) > 1e-6 || resp.Text != "no" {
		t.Errorf("pointwise of f2: %q, p = %v (%v); want no, 0.347730", resp.Text, p, ok)
	}
}

func TestRerankListwiseAndSetwise(t *testing.T) {
	e := newTestEngine()
	// BM25 over the three documents (k1 1.2, b 0.75). Terms, title
	// included: f1 storm ×2, hit, coast (4); f2 ferry ×2, run, hourly (4);
	// f3 timetable ×2, list, each, line (5); average 13/3. Each request
	// term is in one document of three: idf = ln(1 + 2.5/1.5) = 0.980829.
	//   f1: no request term, 0.
	//   f2: norm 0.25 + 0.75·4/4.333 = 0.942308; ferry (1.5) tf 2:
	//       1.5·0.980829·2·2.2/(2 + 1.2·0.942308) = 2.067 .
	//   f3: norm 0.25 + 0.75·5/4.333 = 1.115385; timetable (1) tf 2:
	//       0.980829·4.4/(2 + 1.338462) = 1.293; line (0.6) tf 1:
	//       0.6·0.980829·2.2/(1 + 1.338462) = 0.554; total 1.846.
	resp := complete(t, e, rerank.BuildListwise(rerank.ListwiseInput{Request: ferryRequest, Docs: ferryDocs}))
	if resp.Text != "[2] > [3] > [1]" {
		t.Errorf("listwise answer %q, want [2] > [3] > [1]", resp.Text)
	}
	resp = complete(t, e, rerank.BuildSetwise(rerank.SetwiseInput{Request: ferryRequest, Docs: ferryDocs}))
	if resp.Text != "B" {
		t.Errorf("setwise answer %q, want B", resp.Text)
	}
	// Ties keep the given order; setwise names the first of equals.
	same := []rerank.PromptDoc{ferryDocs[0], {ID: "x", Title: "Snow", Text: "Snow fell."}}
	if resp := complete(t, e, rerank.BuildListwise(rerank.ListwiseInput{Request: ferryRequest, Docs: same})); resp.Text != "[1] > [2]" {
		t.Errorf("tied listwise answer %q, want [1] > [2]", resp.Text)
	}
	if resp := complete(t, e, rerank.BuildSetwise(rerank.SetwiseInput{Request: ferryRequest, Docs: same})); resp.Text != "A" {
		t.Errorf("tied setwise answer %q, want A", resp.Text)
	}
}

func TestRerankRequirementsWeights(t *testing.T) {
	e := newTestEngine()
	resp := complete(t, e, rerank.BuildRequirements(rerank.RequirementsInput{Request: rerank.RequestInfo(harbourRequest), Max: 5}))
	out, err := rerank.ParseRequirements(resp.Text)
	if err != nil {
		t.Fatal(err)
	}
	// The enumeration "the dredging costs and the new ferry line" gives
	// two requirements sharing council (1), about (1) and harbour (title,
	// 1.5), each term split between the two: 0.5 + 0.5 + 0.75 = 1.75.
	// Dredging adds dredg and cost (1 each): 3.75; the ferry line adds
	// ferry (1; new and line are common words): 2.75. Weights 5 and
	// 1 + round(4·2.75/3.75) = 1 + round(2.93) = 4.
	want := []rerank.Requirement{
		{Text: "What did the council decide about the harbour the dredging costs?", Weight: 5},
		{Text: "What did the council decide about the harbour the new ferry line?", Weight: 4},
	}
	if diff := cmp.Diff(want, out.Requirements); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRerankSetR(t *testing.T) {
	e := newTestEngine()
	docs := harbourPromptDocs(harbourFirstStage...)
	resp := complete(t, e, rerank.BuildSetR(rerank.SetRInput{Request: rerank.RequestInfo(harbourRequest), Docs: docs}))
	out, err := rerank.ParseSetR(resp.Text, len(docs))
	if err != nil {
		t.Fatalf("%v\n%s", err, resp.Text)
	}
	if len(out.Requirements) != 2 {
		t.Fatalf("requirements %v, want the two sub-topics\n%s", out.Requirements, resp.Text)
	}
	ids := func(ps []int) []string {
		var s []string
		for _, p := range ps {
			s = append(s, docs[p].ID)
		}
		slices.Sort(s)
		return s
	}
	for k, allowed := range [][]string{{"h2", "h3", "h5"}, {"h4", "h5", "h7"}} {
		got := ids(out.Requirements[k].Docs)
		if !slices.Contains(got, "h5") {
			t.Errorf("requirement %d is met by %v, which lacks h5", k+1, got)
		}
		for _, id := range got {
			if !slices.Contains(allowed, id) {
				t.Errorf("requirement %d is met by %s, which is off its topic", k+1, id)
			}
		}
	}
	// h5 meets both requirements: the greedy cover needs nothing else.
	if diff := cmp.Diff([]string{"h5"}, ids(out.Selection.Order)); diff != "" {
		t.Errorf("selection (-want +got):\n%s\n%s", diff, resp.Text)
	}
}

func TestRerankSetRNothingMatches(t *testing.T) {
	e := newTestEngine()
	req := prompts.RequestInfo{Title: "Lighthouses", ProblemStatement: "Which lighthouses were automated?"}
	resp := complete(t, e, rerank.BuildSetR(rerank.SetRInput{Request: req, Docs: harbourPromptDocs("h6", "h8")}))
	if _, err := rerank.ParseSetR(resp.Text, 2); err == nil {
		t.Errorf("no document holds a request term, yet the answer %q selects one", resp.Text)
	}
}

// TestRerankersOffline runs every reranker end to end on the offline
// engine.
func TestRerankersOffline(t *testing.T) {
	e := newTestEngine()
	for _, method := range rerank.Methods() {
		t.Run(method, func(t *testing.T) {
			r, err := rerank.New(method, e, rerank.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Rerank(context.Background(), harbourInput())
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(res.Ranking))
			for i, c := range res.Ranking {
				got[i] = c.ID
			}
			t.Logf("%s: %v (selected %d, %d calls)", method, got, res.Selected, res.Usage.Calls)
			switch method {
			case rerank.MethodLANCER, rerank.MethodSetR, rerank.MethodPureCover:
				if got[0] != "h5" {
					t.Errorf("top document %s, want h5, which covers both sub-topics", got[0])
				}
			}
			switch tr := res.Trace.(type) {
			case rerank.LANCERTrace:
				if len(tr.Failures) > 0 || len(tr.Questions) != 2 {
					t.Errorf("failures %v, questions %v", tr.Failures, tr.Questions)
				}
			case rerank.PointwiseTrace:
				if tr.FromLogprobs != len(harbourDocs) {
					t.Errorf("%d scores from log-probabilities, want %d", tr.FromLogprobs, len(harbourDocs))
				}
			case rerank.ListwiseTrace:
				if len(tr.Failures) > 0 {
					t.Errorf("failures %v", tr.Failures)
				}
			case rerank.SetwiseTrace:
				if len(tr.Failures) > 0 {
					t.Errorf("failures %v", tr.Failures)
				}
			case rerank.SetRTrace:
				if len(tr.Failures) > 0 || len(tr.Requirements) != 2 {
					t.Errorf("failures %v, requirements %v", tr.Failures, tr.Requirements)
				}
			case rerank.PureCoverTrace:
				if len(tr.Failures) > 0 || tr.FromLogprobs != 2*len(harbourDocs) {
					t.Errorf("failures %v, %d judgements from log-probabilities", tr.Failures, tr.FromLogprobs)
				}
			case rerank.CoRankTrace:
				if tr.FeaturesExtracted != len(harbourDocs) || tr.FeaturesFailed > 0 || len(tr.Coarse) != len(harbourDocs) {
					t.Errorf("features extracted %d (failed %d), coarse order %v; want all %d documents", tr.FeaturesExtracted, tr.FeaturesFailed, tr.Coarse, len(harbourDocs))
				}
			default:
				t.Errorf("trace of type %T", res.Trace)
			}
		})
	}
}
