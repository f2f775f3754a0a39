package rerank

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// This file holds the test material of the model-driven rerankers: a
// small document set, an in-memory document source and a scripted model.

// harbourRequest asks about two sub-topics: the dredging costs (topic A)
// and the ferry line (topic B).
var harbourRequest = pipeline.Request{
	ID:               "harbour-1",
	Title:            "Harbour plans",
	ProblemStatement: "What did the council decide about the harbour: the dredging costs and the new ferry line?",
	Background:       "A reporter for the local paper.",
	Limit:            1000,
}

// harbourDocs: h2 and h3 cover dredging (A), h4 and h7 the ferry (B), h5
// both; h1 only mentions the harbour; h6 and h8 are off topic.
var harbourDocs = []pipeline.Document{
	{ID: "h1", Title: "Harbour history", Text: "The harbour was built in 1820 and has served fishermen ever since."},
	{ID: "h2", Title: "Dredging budget", Text: "The council set aside 4 million for dredging the harbour channel."},
	{ID: "h3", Title: "Dredging delays", Text: "Dredging of the harbour will start late because of the budget."},
	{ID: "h4", Title: "Ferry timetable", Text: "The new ferry line will run hourly from the harbour to the island."},
	{ID: "h5", Title: "Council decisions", Text: "The council approved dredging at a cost of 4 million and a ferry line to the island."},
	{ID: "h6", Title: "Football", Text: "The local team won the cup."},
	{ID: "h7", Title: "Ferry operator", Text: "A private company will operate the ferry line from May."},
	{ID: "h8", Title: "Weather", Text: "Storms hit the coast in winter."},
}

// harbourFirstStage is the first-stage order: the document covering both
// topics comes last.
var harbourFirstStage = []string{"h1", "h2", "h3", "h6", "h4", "h7", "h8", "h5"}

func harbourCandidates() []Candidate {
	cs := make([]Candidate, len(harbourFirstStage))
	for i, id := range harbourFirstStage {
		cs[i] = Candidate{ID: id, Score: float64(20 - i)}
	}
	return cs
}

// memDocs is an in-memory DocumentSource.
type memDocs map[string]pipeline.Document

func newMemDocs(docs []pipeline.Document) memDocs {
	m := memDocs{}
	for _, d := range docs {
		m[d.ID] = d
	}
	return m
}

func (m memDocs) Document(_ context.Context, id string) (pipeline.Document, error) {
	d, ok := m[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return d, nil
}

func harbourInput() Input {
	return Input{Request: harbourRequest, Candidates: harbourCandidates(), Docs: newMemDocs(harbourDocs)}
}

// topics reports which of the two topics a shown document covers.
func topics(d PromptDoc) (a, b bool) {
	t := strings.ToLower(d.Title + " " + d.Text)
	return strings.Contains(t, "dredging"), strings.Contains(t, "ferry")
}

func topicCount(d PromptDoc) int {
	a, b := topics(d)
	n := 0
	if a {
		n++
	}
	if b {
		n++
	}
	return n
}

// questionTopic reads which topic a sub-question or requirement asks
// about.
func questionTopic(q string) (a, b bool) {
	q = strings.ToLower(q)
	return strings.Contains(q, "dredging"), strings.Contains(q, "ferry")
}

// covers reports whether a document covers the topic of a question.
func covers(q string, d PromptDoc) bool {
	qa, qb := questionTopic(q)
	da, db := topics(d)
	return (qa && da) || (qb && db)
}

// docsOf lists the documents a request's input shows.
func docsOf(input any) []PromptDoc {
	switch in := input.(type) {
	case RateInput:
		return []PromptDoc{in.Doc}
	case PointwiseInput:
		return []PromptDoc{in.Doc}
	case SupportInput:
		return []PromptDoc{in.Doc}
	case ListwiseInput:
		return in.Docs
	case SetwiseInput:
		return in.Docs
	case SetRInput:
		return in.Docs
	}
	return nil
}

// yesNoTokens are the log-probabilities of a one-token yes/no answer with
// probability p of yes.
func yesNoTokens(p float64) []pipeline.TokenLogprob {
	tok := "yes"
	if p < 0.5 {
		tok = "no"
	}
	lp := math.Log(p)
	if tok == "no" {
		lp = math.Log(1 - p)
	}
	return []pipeline.TokenLogprob{{Token: tok, Logprob: lp, Top: []pipeline.TopLogprob{
		{Token: "yes", Logprob: math.Log(p)}, {Token: "no", Logprob: math.Log(1 - p)},
	}}}
}

// scriptedModel answers every reranking task by the topics of the shown
// documents, as a well-behaved model would, and records the requests.
// failDoc makes every call showing that document fail; malformed replaces
// the answer of single-document calls showing a document; noLogprobs
// drops the log-probabilities; override answers a task with fixed text.
type scriptedModel struct {
	mu       sync.Mutex
	requests []pipeline.ModelRequest

	failDoc    string
	malformed  map[string]string
	noLogprobs bool
	override   map[pipeline.Task]string
	// setwiseScore, when set, makes setwise pick the highest-scoring shown
	// document (ties: the first).
	setwiseScore map[string]float64
	// onCall runs at the start of every call.
	onCall func()
}

func (m *scriptedModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if m.onCall != nil {
		m.onCall()
	}
	if err := ctx.Err(); err != nil {
		return pipeline.ModelResponse{}, err
	}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	docs := docsOf(req.Input)
	for _, d := range docs {
		if m.failDoc != "" && d.ID == m.failDoc {
			return pipeline.ModelResponse{}, fmt.Errorf("%w: HTTP 500 from the endpoint", pipeline.ErrModel)
		}
	}
	resp := pipeline.ModelResponse{Model: "scripted", PromptTokens: 10, CompletionTokens: 2}
	if text, ok := m.override[req.Task]; ok {
		resp.Text = text
		return resp, nil
	}
	if len(docs) == 1 {
		if text, ok := m.malformed[docs[0].ID]; ok {
			resp.Text = text
			return resp, nil
		}
	}
	var p float64
	switch in := req.Input.(type) {
	case SubQuestionsInput:
		resp.Text = "1. How much will the dredging of the harbour cost?\n2. When will the new ferry line start?"
	case RateInput:
		r := 0
		switch {
		case covers(in.Question, in.Doc):
			r = 5
		case strings.Contains(strings.ToLower(in.Doc.Text), "harbour"):
			r = 1
		}
		resp.Text = FormatRate(RateOutput{Rating: r})
	case PointwiseInput:
		p = 0.2 + 0.3*float64(topicCount(in.Doc))
		resp.Text = FormatPointwise(PointwiseOutput{Relevant: p >= 0.5})
		resp.TokenLogprobs = yesNoTokens(p)
	case ListwiseInput:
		order := make([]int, len(in.Docs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return topicCount(in.Docs[b]) - topicCount(in.Docs[a]) })
		resp.Text = FormatListwise(order)
	case SetwiseInput:
		best := 0
		score := func(d PromptDoc) float64 {
			if m.setwiseScore != nil {
				return m.setwiseScore[d.ID]
			}
			return float64(topicCount(d))
		}
		for i, d := range in.Docs {
			if score(d) > score(in.Docs[best]) {
				best = i
			}
		}
		resp.Text = "The most useful is document " + SetwiseLabel(best) + "."
	case SetRInput:
		out := SetROutput{Requirements: []SetRRequirement{{Text: "The cost of dredging"}, {Text: "The new ferry line"}}}
		for i, d := range in.Docs {
			a, b := topics(d)
			if a {
				out.Requirements[0].Docs = append(out.Requirements[0].Docs, i)
			}
			if b {
				out.Requirements[1].Docs = append(out.Requirements[1].Docs, i)
			}
			if a && b {
				out.Selection.Order = append(out.Selection.Order, i)
			}
		}
		resp.Text = FormatSetR(out)
	case RequirementsInput:
		resp.Text = "1. (weight 4) The cost of dredging the harbour\n2. (weight 2) The new ferry line"
	case SupportInput:
		p = 0.05
		if covers(in.Requirement, in.Doc) {
			p = 0.95
		}
		resp.Text = FormatSupport(SupportOutput{Yes: p >= 0.5})
		resp.TokenLogprobs = yesNoTokens(p)
	case FeaturesInput:
		// CoRank's features: the document's title and its words.
		words := strings.Fields(strings.ToLower(in.Doc.Text))
		resp.Text = FormatFeatures(DocFeatures{Title: in.Doc.Title, Category: []string{"news", in.Doc.Title},
			Headings: []string{in.Doc.Title}, Keywords: words, Queries: []string{in.Doc.Title}})
	default:
		return pipeline.ModelResponse{}, fmt.Errorf("scripted model: unexpected input %T", req.Input)
	}
	if m.noLogprobs || !req.Logprobs {
		resp.TokenLogprobs = nil
	}
	return resp, nil
}

// tasks lists the tasks of the recorded requests in order.
func (m *scriptedModel) tasks() []pipeline.Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]pipeline.Task, len(m.requests))
	for i, r := range m.requests {
		out[i] = r.Task
	}
	return out
}

// rankingIDs lists a ranking's ids.
func rankingIDs(cs []Candidate) []string { return candidateIDs(cs) }

// mustNew builds a reranker or fails the test.
func mustNew(t *testing.T, method string, model pipeline.Model, opts Options) Reranker {
	t.Helper()
	r, err := New(method, model, opts)
	if err != nil {
		t.Fatalf("New(%q): %v", method, err)
	}
	return r
}

// mustRerank runs a reranker or fails the test.
func mustRerank(t *testing.T, r Reranker, in Input) Result {
	t.Helper()
	res, err := r.Rerank(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: Rerank: %v", r.Name(), err)
	}
	checkRanking(t, res, in.Candidates)
	return res
}

// checkRanking checks the invariants of every Result: every candidate
// once, scores 1/rank.
func checkRanking(t *testing.T, res Result, candidates []Candidate) {
	t.Helper()
	if len(res.Ranking) != len(candidates) {
		t.Fatalf("ranking has %d candidates, want %d", len(res.Ranking), len(candidates))
	}
	got := slices.Sorted(slices.Values(rankingIDs(res.Ranking)))
	want := slices.Sorted(slices.Values(candidateIDs(candidates)))
	if !slices.Equal(got, want) {
		t.Fatalf("ranking ids %v are not the candidates %v", got, want)
	}
	for k, c := range res.Ranking {
		if want := 1 / float64(k+1); math.Abs(c.Score-want) > 1e-12 {
			t.Fatalf("ranking score at rank %d is %v, want %v", k+1, c.Score, want)
		}
	}
}
