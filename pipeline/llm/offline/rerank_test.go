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
			// One clause and no enumeration: it is cut in two where its
			// subject weight is shared most evenly (splitClause). Weights:
			// railway 1.5 (title), financ, western, territori 1. Before
			// "in": 2.5 against 2; the only other cut word, "were", has
			// nothing before it.
			name: "split",
			req:  prompts.RequestInfo{Title: "Railways", ProblemStatement: "How were railways financed in the western territories?"},
			n:    2,
			want: []string{"How were railways financed?", "In the western territories?"},
		},
		{
			// After the split, rerankKeyphrases fill in: "railways
			// financed" and "western territories" hold the terms of a
			// question already there; the title's "Railways" does not.
			name: "split, then keyphrase fill",
			req:  prompts.RequestInfo{Title: "Railways", ProblemStatement: "How were railways financed in the western territories?"},
			n:    3,
			want: []string{
				"How were railways financed?",
				"In the western territories?",
				"What is known about Railways?",
			},
		},
		{
			// "Kiss and Tell" is a title, not an enumeration of "the film
			// Kiss" and "Tell". The clause is split instead: portray 1,
			// corliss and archer 1.5 (title) before "in", 4; film and kiss
			// 1 after it, 2 (woman and tell are common words). Cutting
			// before "and" would leave "Tell" with no subject weight.
			name: "a title is no enumeration",
			req: prompts.RequestInfo{Title: "Corliss Archer",
				ProblemStatement: "Which woman portrayed Corliss Archer in the film Kiss and Tell?"},
			n:    2,
			want: []string{"Which woman portrayed Corliss Archer?", "In the film Kiss and Tell?"},
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
	// Without collection statistics idf is 1 and lengths are not
	// normalised: a term counts tf·2.2/(tf + 1.2), 1 for one mention,
	// 1.375 for two, 1.571429 for three. Request terms: ferry (title,
	// 1.5), line (a common word, 0.6), timetable (1). The question "When
	// does the ferry run?" adds ferry 1 and run (common) 0.6: the query is
	// ferry 2.5, line 0.6, timetable 1, run 0.6, and a perfect match
	// scores (2.5 + 0.6 + 1 + 0.6)·2.2 = 10.34 (four terms: all are key
	// terms).
	//   f1 shares nothing: 0.
	//   f2 "Ferry" + "The ferry will run hourly.": ferry ×2, run ×1:
	//     2.5·1.375 + 0.6 = 4.0375; 4.0375/10.34 = 0.390474 → 1.
	//   f3 "Timetable" + "The timetable lists each line.": timetable ×2,
	//     line ×1: 1.375 + 0.6 = 1.975 → 0.191006 → 0.
	//   f4 "Ferry timetable" + "The ferry line timetable: the ferry runs
	//     hourly.": ferry ×3, timetable ×2, line, run: 2.5·1.571429 +
	//     1.375 + 0.6 + 0.6 = 6.503571 → 0.628972 → 4.
	q := "When does the ferry run?"
	f4 := rerank.PromptDoc{ID: "f4", Title: "Ferry timetable", Text: "The ferry line timetable: the ferry runs hourly."}
	want := map[string]int{"f1": 0, "f2": 1, "f3": 0, "f4": 4}
	for _, d := range append(slices.Clone(ferryDocs), f4) {
		resp := complete(t, e, rerank.BuildRate(rerank.RateInput{Request: ferryRequest, Question: q, Doc: d}))
		out, err := rerank.ParseRate(resp.Text)
		if err != nil {
			t.Fatal(err)
		}
		if out.Rating != want[d.ID] {
			t.Errorf("%s rated %d, want %d", d.ID, out.Rating, want[d.ID])
		}
	}
	// Support of f2 for the same question as a requirement: half its
	// match to the requirement's terms (ferry 1, run 0.6: (1.375 +
	// 0.6)/(1.6·2.2) = 0.561080) and half its match to the request
	// (1.5·1.375/(3.1·2.2) = 2.0625/6.82 = 0.302419): s = 0.431749, p =
	// sigmoid(10·(0.431749 − 0.5)) = 1/(1 + e^0.682506) = 0.335702: no.
	resp := complete(t, e, rerank.BuildSupport(rerank.SupportInput{Request: ferryRequest, Requirement: q, Doc: ferryDocs[1]}))
	if p, ok := prompts.YesProbability(resp); !ok || math.Abs(p-0.335702) > 1e-6 || resp.Text != "no" {
		t.Errorf("support of f2: %q, p = %v (%v); want no, 0.335702", resp.Text, p, ok)
	}
	// Pointwise of f2 reads the request alone: sigmoid(10·(0.302419 −
	// 0.5)) = 1/(1 + e^1.975806) = 0.121767: no.
	resp = complete(t, e, rerank.BuildPointwise(rerank.PointwiseInput{Request: ferryRequest, Doc: ferryDocs[1]}))
	if p, ok := prompts.YesProbability(resp); !ok || math.Abs(p-0.121767) > 1e-6 || resp.Text != "no" {
		t.Errorf("pointwise of f2: %q, p = %v (%v); want no, 0.121767", resp.Text, p, ok)
	}
}

// statsAnalyzer is testAnalyzer with fixed collection statistics.
type statsAnalyzer struct {
	testAnalyzer
	stats TermStats
	calls *int
}

func (a statsAnalyzer) TermStats(terms []string) (TermStats, bool) {
	if a.calls != nil {
		*a.calls++
	}
	if a.stats.Units == 0 {
		return TermStats{}, false
	}
	out := TermStats{Units: a.stats.Units, AvgLength: a.stats.AvgLength, DocFreq: map[string]int{}}
	for _, t := range terms {
		out.DocFreq[t] = a.stats.DocFreq[t]
	}
	return out, true
}

func TestRerankCollectionStats(t *testing.T) {
	// A collection of 100 passages of 8 terms on average, in which ferry
	// is held by 10, line by 50 and timetable by 2:
	//   idf(ferry)     = ln(1 + 90.5/10.5) = 2.263745
	//   idf(line)      = ln(1 + 50.5/50.5) = 0.693147
	//   idf(timetable) = ln(1 + 98.5/2.5)  = 3.698830
	// A perfect match to the request scores (1.5·2.263745 + 0.6·0.693147
	// + 3.698830)·2.2 = 16.522739.
	//   f2 (4 terms): norm 0.25 + 0.75·4/8 = 0.625; ferry ×2 counts
	//     4.4/(2 + 0.75) = 1.6: 1.5·2.263745·1.6 = 5.432989 → match
	//     0.328819, p = 1/(1 + e^1.711811) = 0.152929.
	//   f3 (5 terms): norm 0.71875; timetable ×2 counts 4.4/2.8625 =
	//     1.537118, line ×1 2.2/1.8625 = 1.181208: 3.698830·1.537118 +
	//     0.6·0.693147·1.181208 = 6.176788 → match 0.373836, p = 1/(1 +
	//     e^1.261644) = 0.220691.
	// The rare timetable puts f3 ahead, where without statistics ferry's
	// title weight put f2 ahead (0.302419 against 1.975/6.82 = 0.289589).
	calls := 0
	e := New(statsAnalyzer{stats: TermStats{Units: 100, AvgLength: 8, DocFreq: map[string]int{"ferry": 10, "line": 50, "timetable": 2}}, calls: &calls})
	for _, c := range []struct {
		doc  rerank.PromptDoc
		want float64
	}{{ferryDocs[1], 0.152929}, {ferryDocs[2], 0.220691}} {
		resp := complete(t, e, rerank.BuildPointwise(rerank.PointwiseInput{Request: ferryRequest, Doc: c.doc}))
		if p, ok := prompts.YesProbability(resp); !ok || math.Abs(p-c.want) > 1e-6 {
			t.Errorf("pointwise of %s: p = %v (%v), want %v", c.doc.ID, p, ok, c.want)
		}
	}
	if calls == 0 {
		t.Error("the engine never asked the analyzer for collection statistics")
	}
	// Listwise and setwise take the collection's statistics too.
	if resp := complete(t, e, rerank.BuildListwise(rerank.ListwiseInput{Request: ferryRequest, Docs: ferryDocs})); resp.Text != "[3] > [2] > [1]" {
		t.Errorf("listwise answer %q, want [3] > [2] > [1]", resp.Text)
	}
	if resp := complete(t, e, rerank.BuildSetwise(rerank.SetwiseInput{Request: ferryRequest, Docs: ferryDocs})); resp.Text != "C" {
		t.Errorf("setwise answer %q, want C", resp.Text)
	}
	// An analyzer whose statistics are unavailable answers as one
	// without them.
	none := New(statsAnalyzer{})
	plain := newTestEngine()
	req := rerank.BuildPointwise(rerank.PointwiseInput{Request: ferryRequest, Doc: ferryDocs[1]})
	if diff := cmp.Diff(complete(t, plain, req), complete(t, none, req)); diff != "" {
		t.Errorf("unavailable statistics changed the answer (-without +unavailable):\n%s", diff)
	}
}

func TestRerankMatchKeyTerms(t *testing.T) {
	// Six terms of weight 1, no statistics: a perfect match scores the
	// four key terms' 4·2.2 = 8.8.
	var q rerankQuery
	for _, term := range []string{"a", "b", "c", "d", "e", "f"} {
		q.add(term, 1)
	}
	tests := []struct {
		name string
		tf   map[string]int
		want float64
	}{
		{"two terms once", map[string]int{"a": 1, "b": 1}, 2 / 8.8},                                        // 2·1/8.8 = 0.227273
		{"all six twice", map[string]int{"a": 2, "b": 2, "c": 2, "d": 2, "e": 2, "f": 2}, 6 * 1.375 / 8.8}, // 8.25/8.8 = 0.9375
		{"all six thrice", map[string]int{"a": 3, "b": 3, "c": 3, "d": 3, "e": 3, "f": 3}, 1},              // 9.428571/8.8 > 1: capped
		{"none", map[string]int{"x": 4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (bm25Stats{}).match(q, termCounts{tf: tt.tf, length: 12}); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
	if got := (bm25Stats{}).match(rerankQuery{}, termCounts{tf: map[string]int{"a": 1}}); got != 0 {
		t.Errorf("match of an empty query = %v, want 0", got)
	}
}

func TestRerankSplitClause(t *testing.T) {
	e := newTestEngine()
	one := func(string) float64 { return 1 }
	tests := []struct {
		name          string
		clause        string
		first, second string
		ok            bool
	}{
		{
			// Terms: director | comedy big stone gap | bas | new york city.
			// Cuts: "of" 1 against 8, "is" 5 against 4, "in" and "what" 6
			// against 3: "is" shares most evenly.
			name:   "relative parts",
			clause: "The director of the comedy Big Stone Gap is based in what New York city?",
			first:  "The director of the comedy Big Stone Gap?", second: "Is based in what New York city?", ok: true,
		},
		{
			// A comma is a cut too: 2 against 2.
			name:   "comma",
			clause: "Dredging costs, ferry timetable",
			first:  "Dredging costs", second: "Ferry timetable", ok: true,
		},
		{name: "no cut word", clause: "Production limits?"},
		{name: "nothing before the cut", clause: "Of harbour dredging?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second, ok := e.splitClause(tt.clause, one)
			if first != tt.first || second != tt.second || ok != tt.ok {
				t.Errorf("splitClause = %q, %q, %v; want %q, %q, %v", first, second, ok, tt.first, tt.second, tt.ok)
			}
		})
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
	// The request itself comes first, weight 5. Then its keyphrases by the
	// weight of their subject terms (no statistics: idf 1): "Harbour
	// plans" harbour 1.5 + plan 1.5 = 3 → 5; "dredging costs" 2 → 1 +
	// round(4·2/3) = 4; "new ferry line" ferry 1 (new and line are common
	// words) → 1 + round(1.33) = 2; "council decide" council 1 (decide is
	// common) → 2. "harbour" lies within "Harbour plans" and is passed
	// over; Max 5 leaves out "about".
	want := []rerank.Requirement{
		{Text: "What did the council decide about the harbour: the dredging costs and the new ferry line?", Weight: 5},
		{Text: "What is known about Harbour plans?", Weight: 5},
		{Text: "What is known about dredging costs?", Weight: 4},
		{Text: "What is known about new ferry line?", Weight: 2},
		{Text: "What is known about council decide?", Weight: 2},
	}
	if diff := cmp.Diff(want, out.Requirements); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Max 1: the request alone.
	resp = complete(t, e, rerank.BuildRequirements(rerank.RequirementsInput{Request: rerank.RequestInfo(harbourRequest), Max: 1}))
	if out, err := rerank.ParseRequirements(resp.Text); err != nil || len(out.Requirements) != 1 || out.Requirements[0].Weight != 5 {
		t.Errorf("Max 1 gives %+v (%v), want the request alone with weight 5", out.Requirements, err)
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

func TestRerankSetRBridge(t *testing.T) {
	e := newTestEngine()
	// The request's terms: director, comedy, stone, gap and bas ("based")
	// weigh 1, big 0.6 (a common word). The shown documents are the
	// collection (four): big, stone, gap and director are held by two
	// (idf ln(1 + 2.5/2.5) = 0.693147), comedy and bas by one (ln(1 +
	// 3.5/1.5) = 1.203973); the request weight is 0.693147·3.6 +
	// 1.203973·2 = 4.903275.
	// A holds all but bas and is the most relevant: it comes first. Then
	// only bas is missing. B, the town, scores higher by BM25 than C (its
	// big, stone and gap twice each against C's director and bas once)
	// but adds nothing; C adds bas, 1.203973/4.903275 = 0.245545 of the
	// request weight, and half of that outweighs the relevance B has over
	// C. With every request term held the selection ends: B is left out.
	req := prompts.RequestInfo{ProblemStatement: "Where is the director of the comedy Big Stone Gap based?"}
	docs := []rerank.PromptDoc{
		{ID: "A", Title: "Big Stone Gap (film)", Text: "Big Stone Gap is a comedy film by the director Adriana Trigiani."},
		{ID: "B", Title: "Big Stone Gap, Virginia", Text: "Big Stone Gap is a town in Virginia."},
		{ID: "C", Title: "Adriana Trigiani", Text: "Adriana Trigiani is a director based in New York."},
		{ID: "D", Title: "Weather", Text: "Storms hit the coast."},
	}
	bm25 := e.shownBM25(req, docs)
	if !(bm25[0] > bm25[1] && bm25[1] > bm25[2] && bm25[3] == 0) {
		t.Fatalf("BM25 %v; the example needs A > B > C > D = 0", bm25)
	}
	resp := complete(t, e, rerank.BuildSetR(rerank.SetRInput{Request: req, Docs: docs}))
	out, err := rerank.ParseSetR(resp.Text, len(docs))
	if err != nil {
		t.Fatalf("%v\n%s", err, resp.Text)
	}
	if diff := cmp.Diff([]int{0, 2}, out.Selection.Order); diff != "" {
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
				if len(tr.Failures) > 0 || tr.FromLogprobs != len(tr.Requirements)*len(harbourDocs) {
					t.Errorf("failures %v, %d judgements from log-probabilities for %d requirements", tr.Failures, tr.FromLogprobs, len(tr.Requirements))
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
