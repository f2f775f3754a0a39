package rerank_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// This file runs every reranker through the real OpenAI-compatible client
// (llm.NewOpenAI) against an httptest server. The server knows nothing of
// the rerankers' Go types: it recognises each task from the prompt text,
// reads the documents out of the prompt's <document> blocks and answers
// in a format the task's parser accepts, deterministically from the
// documents' words. So the prompts, the client and the parsers are tested
// together, as a real endpoint would exercise them.

// The request asks about two sub-topics without naming either, so that the
// server can tell a sub-question's or a requirement's topic from the
// prompt: the reservoir repair (topic A) and the new tariff (topic B).
var endpointRequest = pipeline.Request{
	ID:               "water-1",
	Title:            "Village water supply",
	ProblemStatement: "What did the water board decide about the repairs and the charges?",
	Limit:            800,
}

// Topic words the server looks for in a document's title and text.
const (
	topicA = "reservoir"
	topicB = "tariff"
)

// endpointDocs: v2 and v3 cover topic A, v5 and v7 topic B, v6 both; v1,
// v4 and v8 neither.
var endpointDocs = []pipeline.Document{
	{ID: "v1", Title: "Village mill", Text: "The old mill on the stream was restored as a museum in 2004."},
	{ID: "v2", Title: "Reservoir wall", Text: "Engineers found a crack in the reservoir wall and will repair it before the summer."},
	{ID: "v3", Title: "Repair contract", Text: "The reservoir repair contract went to a builder from the next valley."},
	{ID: "v4", Title: "Cup final", Text: "The village team lost the cup final on penalties."},
	{ID: "v5", Title: "Charges from January", Text: "From January households pay a water tariff of 2 euros per cubic metre."},
	{ID: "v6", Title: "Board meeting", Text: "The water board approved the reservoir repair and a higher tariff to pay for it."},
	{ID: "v7", Title: "Farmers protest", Text: "Farmers protested against the new tariff outside the board's offices."},
	{ID: "v8", Title: "Spring weather", Text: "A wet spring filled the streams early."},
}

// endpointFirstStage is the first-stage order (positions 0..7): the
// document covering both topics comes last.
var endpointFirstStage = []string{"v1", "v2", "v3", "v4", "v5", "v7", "v8", "v6"}

// endpointDocSource is an in-memory rerank.DocumentSource.
type endpointDocSource map[string]pipeline.Document

func (s endpointDocSource) Document(_ context.Context, id string) (pipeline.Document, error) {
	d, ok := s[id]
	if !ok {
		return pipeline.Document{}, fmt.Errorf("document %q: %w", id, pipeline.ErrNotFound)
	}
	return d, nil
}

func endpointInput() rerank.Input {
	src := endpointDocSource{}
	for _, d := range endpointDocs {
		src[d.ID] = d
	}
	cs := make([]rerank.Candidate, len(endpointFirstStage))
	for i, id := range endpointFirstStage {
		cs[i] = rerank.Candidate{ID: id, Score: float64(10 - i)}
	}
	return rerank.Input{Request: endpointRequest, Candidates: cs, Docs: src}
}

// titleIDs maps a shown title back to its document id.
var titleIDs = func() map[string]string {
	m := map[string]string{}
	for _, d := range endpointDocs {
		m[d.Title] = d.ID
	}
	return m
}()

// garbleText is an answer none of the reranking parsers can read
// (TestEndpointGarbleIsUnparsable checks it): no number, label, bracket,
// list, yes or no.
const garbleText = "Sorry, I would rather describe the material in my own words."

// shownDoc is a document as the server reads it from a prompt.
type shownDoc struct {
	ID, Title, Text string
}

func (d shownDoc) topics() (a, b bool) {
	t := strings.ToLower(d.Title + " " + d.Text)
	return strings.Contains(t, topicA), strings.Contains(t, topicB)
}

func (d shownDoc) topicCount() int {
	a, b := d.topics()
	n := 0
	if a {
		n++
	}
	if b {
		n++
	}
	return n
}

// textTopics reads which topic a sub-question or requirement names.
func textTopics(s string) (a, b bool) {
	s = strings.ToLower(s)
	return strings.Contains(s, topicA), strings.Contains(s, topicB)
}

// covers reports whether a document gives what a question or requirement
// asks: its topic when it names one, else (the request itself, LANCER's
// and PureCover's fallback) either topic.
func covers(question string, d shownDoc) bool {
	qa, qb := textTopics(question)
	da, db := d.topics()
	if !qa && !qb {
		return da || db
	}
	return (qa && da) || (qb && db)
}

var (
	// reDocBlock matches a document as writeDocBlock shows it: a heading
	// ("Document", "Document C", "[3]") with an optional quoted title,
	// then the text between <document> tags.
	reDocBlock    = regexp.MustCompile(`(?ms)^(?:Document(?: [A-Z])?|\[\d+\])(?: \(title: ("(?:[^"\\]|\\.)*")\))?\n<document>\n(.*?)\n</document>$`)
	reQuestion    = regexp.MustCompile(`(?m)^Question: (.*)$`)
	reRequirement = regexp.MustCompile(`(?m)^One piece of information the report needs: (.*)$`)
)

// taskOf recognises a reranking prompt by its wording.
func taskOf(user string) (pipeline.Task, bool) {
	switch {
	case strings.HasPrefix(user, "Below is one document from a collection. Describe it compactly"):
		return rerank.TaskCoRankFeatures, true
	case strings.Contains(user, "sub-questions that together cover"):
		return rerank.TaskSubQuestions, true
	case strings.Contains(user, "How well does this document answer the question?"):
		return rerank.TaskRate, true
	case strings.Contains(user, "Does this document give information that the report should use"):
		return rerank.TaskPointwise, true
	case strings.Contains(user, "Rank them by how much information the report needs"):
		return rerank.TaskListwise, true
	case strings.Contains(user, "Which one of them gives the most information"):
		return rerank.TaskSetwise, true
	case strings.Contains(user, "Work in three steps."):
		return rerank.TaskSetR, true
	case strings.Contains(user, "List the information requirements of this request"):
		return rerank.TaskRequirements, true
	case strings.Contains(user, "One piece of information the report needs:"):
		return rerank.TaskSupport, true
	}
	return "", false
}

// shownDocs reads a prompt's documents in order.
func shownDocs(user string) ([]shownDoc, error) {
	var out []shownDoc
	for _, m := range reDocBlock.FindAllStringSubmatch(user, -1) {
		d := shownDoc{Text: m[2]}
		if m[1] != "" {
			t, err := strconv.Unquote(m[1])
			if err != nil {
				return nil, fmt.Errorf("title %s: %v", m[1], err)
			}
			d.Title = t
		}
		id, ok := titleIDs[d.Title]
		if !ok {
			return nil, fmt.Errorf("unknown document title %q", d.Title)
		}
		d.ID = id
		out = append(out, d)
	}
	return out, nil
}

// endpoint is the scripted OpenAI-compatible server. Its behaviour fields
// are set before the run.
type endpoint struct {
	t   *testing.T
	srv *httptest.Server

	// status, when it returns a non-zero code, answers the n-th chat
	// completion request (from 1) with that error status.
	status func(n int) int
	// stall makes every chat completion wait until the client gives up.
	stall bool
	// noLogprobs leaves log-probabilities out of every answer.
	noLogprobs bool
	// garble, when it returns true for a call, answers it with
	// garbleText (and no log-probabilities).
	garble func(c promptCall) bool

	mu       sync.Mutex
	hits     int                   // chat completion requests received
	perTask  map[pipeline.Task]int // answered requests by task
	answered []answeredCall
}

// promptCall is a recognised request as garble sees it.
type promptCall struct {
	Task pipeline.Task
	// K counts the task's requests answered so far, this one included.
	K int
	// IDs are the shown documents' ids, in prompt order.
	IDs []string
	// Subject is the sub-question (rerank_rate) or requirement
	// (rerank_support) line, else "".
	Subject string
}

// answeredCall is one request the server answered with 200.
type answeredCall struct {
	Task     pipeline.Task
	Logprobs bool // the request asked for log-probabilities
	Garbled  bool
}

func newEndpoint(t *testing.T) *endpoint {
	t.Helper()
	e := &endpoint{t: t, perTask: map[pipeline.Task]int{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) URL() string { return e.srv.URL + "/v1" }

// calls returns the answered requests.
func (e *endpoint) calls() []answeredCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.answered)
}

func (e *endpoint) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hits
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "server_error"}})
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "endpoint-test", "object": "model", "owned_by": "test"},
		}})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		e.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	e.mu.Lock()
	e.hits++
	n := e.hits
	e.mu.Unlock()
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		e.t.Errorf("read request body: %v", err)
		return
	}
	if e.stall {
		// Wait for the client to give up (the server notices the closed
		// connection once the body has been read); the bound only keeps
		// a broken client from holding the server past the test.
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return
	}
	if e.status != nil {
		if code := e.status(n); code != 0 {
			w.Header().Set("Retry-After", "0")
			apiError(w, code, fmt.Sprintf("scripted failure %d of request %d", code, n))
			return
		}
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Logprobs    bool     `json:"logprobs"`
		MaxTokens   int      `json:"max_tokens"`
		Temperature *float64 `json:"temperature"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		e.t.Errorf("request body is not JSON: %v", err)
		apiError(w, 400, "bad JSON")
		return
	}
	if body.Model != "endpoint-test" || body.MaxTokens <= 0 || body.Temperature == nil || *body.Temperature != 0 {
		e.t.Errorf("request has model %q, max_tokens %d, temperature %v; want endpoint-test, > 0, 0", body.Model, body.MaxTokens, body.Temperature)
	}
	user := ""
	for _, m := range body.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	task, ok := taskOf(user)
	if !ok {
		e.t.Errorf("unrecognised prompt:\n%s", user)
		apiError(w, 400, "unrecognised prompt")
		return
	}
	docs, err := shownDocs(user)
	if err != nil {
		e.t.Errorf("%s prompt: %v", task, err)
		apiError(w, 400, err.Error())
		return
	}
	text, yes, err := answer(task, user, docs)
	if err != nil {
		e.t.Errorf("%s prompt: %v", task, err)
		apiError(w, 400, err.Error())
		return
	}
	pc := promptCall{Task: task, IDs: make([]string, len(docs))}
	for i, d := range docs {
		pc.IDs[i] = d.ID
	}
	for _, re := range []*regexp.Regexp{reQuestion, reRequirement} {
		if m := re.FindStringSubmatch(user); m != nil {
			pc.Subject = m[1]
		}
	}
	e.mu.Lock()
	e.perTask[task]++
	pc.K = e.perTask[task]
	garbled := e.garble != nil && e.garble(pc)
	e.answered = append(e.answered, answeredCall{Task: task, Logprobs: body.Logprobs, Garbled: garbled})
	e.mu.Unlock()

	choice := map[string]any{"index": 0, "finish_reason": "stop"}
	if garbled {
		text = garbleText
	} else if yes >= 0 && body.Logprobs && !e.noLogprobs {
		// One answer token with both alternatives: P(yes) is yes.
		tok := map[string]any{"token": text, "logprob": math.Log(yes), "top_logprobs": []any{
			map[string]any{"token": "yes", "logprob": math.Log(yes)},
			map[string]any{"token": "no", "logprob": math.Log(1 - yes)},
		}}
		if text == "no" {
			tok["logprob"] = math.Log(1 - yes)
		}
		choice["logprobs"] = map[string]any{"content": []any{tok}}
	}
	choice["message"] = map[string]any{"role": "assistant", "content": text}
	writeJSON(w, 200, map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": "endpoint-test",
		"choices": []any{choice},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
	})
}

// answer is what a well-behaved model says to one reranking prompt. yes is
// the probability of "yes" for the yes/no tasks and −1 for the others.
func answer(task pipeline.Task, user string, docs []shownDoc) (text string, yes float64, err error) {
	want := map[pipeline.Task]int{
		rerank.TaskSubQuestions: 0,
		rerank.TaskRate:         1, rerank.TaskPointwise: 1, rerank.TaskSupport: 1, rerank.TaskCoRankFeatures: 1,
	}
	if n, ok := want[task]; ok && len(docs) != n {
		return "", 0, fmt.Errorf("%d documents shown, want %d", len(docs), n)
	}
	if _, ok := want[task]; !ok && len(docs) < 2 {
		return "", 0, fmt.Errorf("%d documents shown, want at least 2", len(docs))
	}
	switch task {
	case rerank.TaskSubQuestions:
		return "1. What will the reservoir repair cost, and when will it be done?\n" +
			"2. How much is the new tariff that households pay?", -1, nil
	case rerank.TaskRate:
		m := reQuestion.FindStringSubmatch(user)
		if m == nil {
			return "", 0, errors.New("no Question line")
		}
		// A question naming a topic: 5 for a document on it, else 0. The
		// request itself: 2 per topic the document covers.
		rating := 0
		if a, b := textTopics(m[1]); a || b {
			if covers(m[1], docs[0]) {
				rating = 5
			}
		} else {
			rating = 2 * docs[0].topicCount()
		}
		return fmt.Sprintf("Rating: %d", rating), -1, nil
	case rerank.TaskPointwise:
		// P(yes) = 0.2 + 0.35 per topic: 0.2, 0.55 or 0.9.
		p := 0.2 + 0.35*float64(docs[0].topicCount())
		return yesNo(p), p, nil
	case rerank.TaskSupport:
		m := reRequirement.FindStringSubmatch(user)
		if m == nil {
			return "", 0, errors.New("no requirement line")
		}
		p := 0.05
		if covers(m[1], docs[0]) {
			p = 0.95
		}
		return yesNo(p), p, nil
	case rerank.TaskListwise:
		// Most topics first, ties in the order shown.
		order := make([]int, len(docs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return docs[b].topicCount() - docs[a].topicCount() })
		parts := make([]string, len(order))
		for k, i := range order {
			parts[k] = fmt.Sprintf("[%d]", i+1)
		}
		return strings.Join(parts, " > "), -1, nil
	case rerank.TaskSetwise:
		// The first of the documents with the most topics.
		best := 0
		for i, d := range docs {
			if d.topicCount() > docs[best].topicCount() {
				best = i
			}
		}
		return "Document " + string(rune('A'+best)), -1, nil
	case rerank.TaskSetR:
		return setrAnswer(docs), -1, nil
	case rerank.TaskRequirements:
		return "1. (weight 4) The cost and timing of the reservoir repair\n" +
			"2. (weight 2) The new tariff households pay", -1, nil
	case rerank.TaskCoRankFeatures:
		return featuresAnswer(docs[0]), -1, nil
	}
	return "", 0, fmt.Errorf("no answer for task %s", task)
}

func yesNo(p float64) string {
	if p >= 0.5 {
		return "yes"
	}
	return "no"
}

// setrAnswer lists the two topics as requirements with the documents
// giving each, and selects a smallest cover greedily: the document
// covering the most topics not yet covered, the first on ties.
func setrAnswer(docs []shownDoc) string {
	var mapA, mapB []string
	for i, d := range docs {
		a, b := d.topics()
		if a {
			mapA = append(mapA, fmt.Sprintf("[%d]", i+1))
		}
		if b {
			mapB = append(mapB, fmt.Sprintf("[%d]", i+1))
		}
	}
	orNone := func(ids []string) string {
		if len(ids) == 0 {
			return "none"
		}
		return strings.Join(ids, " ")
	}
	needA, needB := len(mapA) > 0, len(mapB) > 0
	var sel []string
	for needA || needB {
		best, gain := -1, 0
		for i, d := range docs {
			a, b := d.topics()
			g := 0
			if a && needA {
				g++
			}
			if b && needB {
				g++
			}
			if g > gain {
				best, gain = i, g
			}
		}
		a, b := docs[best].topics()
		needA, needB = needA && !a, needB && !b
		sel = append(sel, fmt.Sprintf("[%d]", best+1))
	}
	return "### Requirements\n1. The reservoir repair\n2. The new tariff\n" +
		"### Documents per requirement\n1: " + orNone(mapA) + "\n2: " + orNone(mapB) + "\n" +
		"### Final Selection: " + orNone(sel)
}

// featuresAnswer describes a document: its title, a category path, its
// topic words first among the keywords, and its text as the query.
func featuresAnswer(d shownDoc) string {
	var kws []string
	a, b := d.topics()
	if a {
		kws = append(kws, "reservoir repair")
	}
	if b {
		kws = append(kws, "water tariff")
	}
	kws = append(kws, strings.ToLower(d.Title))
	return "TITLE: " + d.Title + "\n" +
		"CATEGORY: Local news > Village > " + d.Title + "\n" +
		"HEADINGS:\n- " + d.Title + "\n" +
		"KEYWORDS: " + strings.Join(kws, "; ") + "\n" +
		"QUERIES:\n- " + strings.TrimSuffix(d.Text, ".")
}

// endpointClient is a client of the endpoint with tiny retry waits.
func endpointClient(t *testing.T, e *endpoint, edit func(*llm.Config)) *llm.OpenAI {
	t.Helper()
	cfg := llm.Config{
		BaseURL: e.URL(), Model: "endpoint-test",
		Timeout: 5 * time.Second, MaxRetries: 2,
		BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := llm.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// endpointRun reranks endpointInput with method through a client of e.
func endpointRun(t *testing.T, e *endpoint, method string, edit func(*llm.Config)) (rerank.Result, error) {
	t.Helper()
	r, err := rerank.New(method, endpointClient(t, e, edit), rerank.Options{})
	if err != nil {
		t.Fatalf("New(%q): %v", method, err)
	}
	return r.Rerank(context.Background(), endpointInput())
}

// checkEndpointResult checks what every successful run must hold: every
// candidate once with score 1/rank, a trace that survives JSON, and one
// counted call per request the server answered.
func checkEndpointResult(t *testing.T, method string, res rerank.Result, e *endpoint) {
	t.Helper()
	if res.Method != method {
		t.Errorf("result method %q, want %q", res.Method, method)
	}
	ids := rankingIDs(res)
	if got, want := slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(endpointFirstStage)); !slices.Equal(got, want) {
		t.Errorf("ranking %v does not hold every candidate once", ids)
	}
	for k, c := range res.Ranking {
		if want := 1 / float64(k+1); math.Abs(c.Score-want) > 1e-12 {
			t.Errorf("score at rank %d is %v, want %v", k+1, c.Score, want)
		}
	}
	data, err := json.Marshal(res.Trace)
	if err != nil {
		t.Fatalf("marshal trace: %v", err)
	}
	if _, err := rerank.DecodeTrace(method, data); err != nil {
		t.Errorf("trace does not read back: %v", err)
	}
	answered := len(e.calls())
	if res.Usage.Calls != answered {
		t.Errorf("usage counts %d calls, the server answered %d", res.Usage.Calls, answered)
	}
	if want := 100 * answered; res.Usage.PromptTokens != want {
		t.Errorf("usage counts %d prompt tokens, want %d (100 per answered call)", res.Usage.PromptTokens, want)
	}
}

func rankingIDs(res rerank.Result) []string {
	ids := make([]string, len(res.Ranking))
	for i, c := range res.Ranking {
		ids[i] = c.ID
	}
	return ids
}

// taskCounts counts the answered calls by task.
func taskCounts(calls []answeredCall) map[pipeline.Task]int {
	m := map[pipeline.Task]int{}
	for _, c := range calls {
		m[c.Task]++
	}
	return m
}

// goodOrder is the order of the ranking methods on a well-behaved
// endpoint: v6 (both topics) first, then the four one-topic documents and
// the three off-topic ones, each group in first-stage order.
var goodOrder = []string{"v6", "v2", "v3", "v5", "v7", "v1", "v4", "v8"}

// endpointGood is, per method, the ranking, the set size and the calls of
// a run against a well-behaved endpoint, and what its trace must show.
var endpointGood = []struct {
	method   string
	want     []string
	selected int
	calls    map[pipeline.Task]int
	check    func(t *testing.T, trace any)
}{
	{
		// Ratings (A question, B question): v6 (5,5) = 10; v2, v3 (5,0)
		// and v5, v7 (0,5) = 5; the rest 0. Sum at τ = 1, ties stable.
		method: rerank.MethodLANCER, want: goodOrder,
		// 1 sub-question call + 8 documents × 2 questions.
		calls: map[pipeline.Task]int{rerank.TaskSubQuestions: 1, rerank.TaskRate: 16},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.LANCERTrace)
			wantQ := []string{"What will the reservoir repair cost, and when will it be done?", "How much is the new tariff that households pay?"}
			if diff := cmp.Diff(wantQ, tr.Questions); diff != "" {
				t.Errorf("questions (-want +got)\n%s", diff)
			}
			ratings := map[string][]int{}
			for _, r := range tr.Rows {
				ratings[r.DocID] = r.Ratings
			}
			want := map[string][]int{
				"v1": {0, 0}, "v2": {5, 0}, "v3": {5, 0}, "v4": {0, 0},
				"v5": {0, 5}, "v7": {0, 5}, "v8": {0, 0}, "v6": {5, 5},
			}
			if diff := cmp.Diff(want, ratings); diff != "" {
				t.Errorf("ratings (-want +got)\n%s", diff)
			}
			if tr.Unparsable != 0 || len(tr.Failures) != 0 {
				t.Errorf("unparsable %d, failures %v; want none", tr.Unparsable, tr.Failures)
			}
		},
	},
	{
		// P(yes): v6 0.9, one-topic documents 0.55, the rest 0.2.
		method: rerank.MethodPointwise, want: goodOrder,
		calls: map[pipeline.Task]int{rerank.TaskPointwise: 8},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.PointwiseTrace)
			if tr.FromLogprobs != 8 || tr.FromAnswer != 0 || tr.Unparsable != 0 {
				t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 8, 0, 0", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
			}
			for _, r := range tr.Rows {
				want := 0.2
				switch r.DocID {
				case "v6":
					want = 0.9
				case "v2", "v3", "v5", "v7":
					want = 0.55
				}
				if math.Abs(r.Score-want) > 1e-9 {
					t.Errorf("%s score %v, want %v", r.DocID, r.Score, want)
				}
			}
		},
	},
	{
		// One window of all 8 (size 20), sorted by topic count.
		method: rerank.MethodListwise, want: goodOrder,
		calls: map[pipeline.Task]int{rerank.TaskListwise: 1},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.ListwiseTrace)
			want := []rerank.ListwiseWindow{{Start: 0, End: 8, Before: endpointFirstStage, After: goodOrder, Ranked: 8, Complete: true}}
			if diff := cmp.Diff(want, tr.Windows); diff != "" {
				t.Errorf("windows (-want +got)\n%s", diff)
			}
		},
	},
	{
		// Heap of arity 4 over positions [v1 v2 v3 v4 v5 v7 v8 v6]; each
		// comparison picks the first document with the most topics.
		//  build node 1 [v2 v7 v8 v6] → v6; node 0 [v1 v6 v3 v4 v5] → v6,
		//    then node 1 [v1 v7 v8 v2] → v7. Heap [v6 v7 v3 v4 v5 v1 v8 v2].
		//  take v6; [v2 v7 v3 v4 v5] → v2 (first of the ties).
		//  take v2; [v8 v7 v3 v4 v5] → v7, then node 1 [v8 v1] → v8.
		//  take v7; [v1 v8 v3 v4 v5] → v3.
		//  take v3; [v5 v8 v1 v4] → v5.  take v5; [v4 v8 v1] → v4.
		//  take v4; [v1 v8] → v1.  take v1, then v8 (alone, no call).
		// 3 build + 7 extract comparisons = 10 calls.
		method: rerank.MethodSetwise, want: []string{"v6", "v2", "v7", "v3", "v5", "v4", "v1", "v8"},
		calls: map[pipeline.Task]int{rerank.TaskSetwise: 10},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.SetwiseTrace)
			if len(tr.Comparisons) != 10 || len(tr.Failures) != 0 {
				t.Errorf("%d comparisons, failures %v; want 10 and none", len(tr.Comparisons), tr.Failures)
			}
			if len(tr.Comparisons) > 0 {
				want := rerank.SetwiseComparison{Phase: "build", Docs: []string{"v2", "v7", "v8", "v6"}, Winner: "v6"}
				if diff := cmp.Diff(want, tr.Comparisons[0]); diff != "" {
					t.Errorf("first comparison (-want +got)\n%s", diff)
				}
			}
		},
	},
	{
		// v6 alone covers both requirements: the set is {v6}, then the
		// rest in first-stage order.
		method: rerank.MethodSetR, want: []string{"v6", "v1", "v2", "v3", "v4", "v5", "v7", "v8"}, selected: 1,
		calls: map[pipeline.Task]int{rerank.TaskSetR: 1},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.SetRTrace)
			want := []rerank.SetRTraceRequirement{
				{Text: "The reservoir repair", DocIDs: []string{"v2", "v3", "v6"}},
				{Text: "The new tariff", DocIDs: []string{"v5", "v7", "v6"}},
			}
			if diff := cmp.Diff(want, tr.Requirements); diff != "" {
				t.Errorf("requirements (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff([]string{"v6"}, tr.Selected); diff != "" {
				t.Errorf("selected (-want +got)\n%s", diff)
			}
		},
	},
	{
		// Weights 4, 2: P(e|q) = 2/3, 1/3. Judgements 0.95 (odds 19) for
		// a document on the requirement, else 0.05 (odds 1/19). Each
		// requirement has 3 such documents (A: v2 v3 v6, B: v5 v7 v6), so
		// P(d|e) = 19/(3·19 + 5/19) = s ≈ 0.3318 for them and
		// (1/19)/57.263 = u ≈ 0.0009 for the others. Noise: v6, v2, v3
		// 1 − 2s/3 ≈ 0.7788; v5, v7 1 − s/3 ≈ 0.8894; others ≈ 0.9994.
		// Greedy, gain = Σ_e w_e·residual_e·P(d|e) − λ·noise, λ = 0.05:
		//  1. v6: s − 0.0389 = 0.2929 (v2: 2s/3 + u/3 − 0.0389 = 0.1826).
		//  2. residuals 1 − s = 0.6682 each: v2 2/3·0.6682·s − 0.0389 +
		//     (u's share) = 0.1091 (v3 equal, later); v5 0.0298.
		//  3. A residual 0.4465: v3 0.0600 > v5 0.0296.
		//  4. v5 0.0295 (v7 equal, later); off-topic documents ≈ −0.05.
		//  5. B residual ≈ 0.4457: v7 1/3·0.4457·s − 0.0445 = 0.0050 > 0.
		// K = 5 reached.
		method: rerank.MethodPureCover, want: goodOrder, selected: 5,
		calls: map[pipeline.Task]int{rerank.TaskRequirements: 1, rerank.TaskSupport: 16},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.PureCoverTrace)
			if tr.FromLogprobs != 16 || tr.FromAnswer != 0 || tr.Unparsable != 0 {
				t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 16, 0, 0", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
			}
			want := []rerank.PureCoverRequirement{
				{Text: "The cost and timing of the reservoir repair", Weight: 4, P: 4.0 / 6},
				{Text: "The new tariff households pay", Weight: 2, P: 2.0 / 6},
			}
			if diff := cmp.Diff(want, tr.Requirements, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("requirements (-want +got)\n%s", diff)
			}
			if len(tr.Steps) != 5 || tr.StoppedEarly {
				t.Fatalf("%d steps, stopped early %v; want 5 steps", len(tr.Steps), tr.StoppedEarly)
			}
			// Step 1's gain: s − λ(1 − 2s/3) with s = 19/(57 + 5/19).
			s := 19 / (57 + 5.0/19)
			if want := s - 0.05*(1-2*s/3); math.Abs(tr.Steps[0].Gain-want) > 1e-9 {
				t.Errorf("first gain %v, want %v", tr.Steps[0].Gain, want)
			}
		},
	},
	{
		// 8 feature extractions, one coarse window of 8 over the compact
		// representations (topic words among the keywords), one fine
		// window of the same 8 over their texts: both sort by topic count.
		method: rerank.MethodCoRank, want: goodOrder,
		calls: map[pipeline.Task]int{rerank.TaskCoRankFeatures: 8, rerank.TaskListwise: 2},
		check: func(t *testing.T, trace any) {
			tr := trace.(rerank.CoRankTrace)
			if tr.FeaturesExtracted != 8 || tr.FeaturesStored != 0 || tr.FeaturesFailed != 0 {
				t.Errorf("features: %d extracted, %d stored, %d failed; want 8, 0, 0", tr.FeaturesExtracted, tr.FeaturesStored, tr.FeaturesFailed)
			}
			if len(tr.CoarseWindows) != 1 || len(tr.FineWindows) != 1 {
				t.Errorf("%d coarse and %d fine windows, want 1 and 1", len(tr.CoarseWindows), len(tr.FineWindows))
			}
			if diff := cmp.Diff(goodOrder, tr.Coarse); diff != "" {
				t.Errorf("coarse order (-want +got)\n%s", diff)
			}
			for _, r := range tr.Rows {
				if r.DocID == "v6" && (!strings.Contains(r.Compact, "reservoir repair") || !strings.Contains(r.Compact, "water tariff")) {
					t.Errorf("v6 compact representation lacks its topic keywords:\n%s", r.Compact)
				}
			}
		},
	},
}

func TestEndpointCoversEveryMethod(t *testing.T) {
	var got []string
	for _, c := range endpointGood {
		got = append(got, c.method)
	}
	if diff := cmp.Diff(rerank.Methods(), got); diff != "" {
		t.Errorf("methods tested here (-Methods() +tested)\n%s", diff)
	}
}

func TestEndpointGarbleIsUnparsable(t *testing.T) {
	parsers := map[string]func(string) error{
		"subquestions": func(s string) error { _, err := rerank.ParseSubQuestions(s); return err },
		"rate":         func(s string) error { _, err := rerank.ParseRate(s); return err },
		"pointwise":    func(s string) error { _, err := rerank.ParsePointwise(s); return err },
		"listwise":     func(s string) error { _, err := rerank.ParseListwise(s, 8); return err },
		"setwise":      func(s string) error { _, err := rerank.ParseSetwise(s, 5); return err },
		"setr":         func(s string) error { _, err := rerank.ParseSetR(s, 8); return err },
		"requirements": func(s string) error { _, err := rerank.ParseRequirements(s); return err },
		"support":      func(s string) error { _, err := rerank.ParseSupport(s); return err },
		"features":     func(s string) error { _, err := rerank.ParseFeatures(s); return err },
	}
	for name, parse := range parsers {
		if err := parse(garbleText); err == nil {
			t.Errorf("%s parser reads %q", name, garbleText)
		}
	}
}

func TestEndpointGoodRun(t *testing.T) {
	for _, tc := range endpointGood {
		t.Run(tc.method, func(t *testing.T) {
			e := newEndpoint(t)
			if tc.method == rerank.MethodLANCER {
				// The health check lists the models (GET /v1/models).
				if err := endpointClient(t, e, nil).Check(context.Background()); err != nil {
					t.Fatalf("Check: %v", err)
				}
			}
			res, err := endpointRun(t, e, tc.method, nil)
			if err != nil {
				t.Fatalf("Rerank: %v", err)
			}
			checkEndpointResult(t, tc.method, res, e)
			if diff := cmp.Diff(tc.want, rankingIDs(res)); diff != "" {
				t.Errorf("ranking (-want +got)\n%s", diff)
			}
			if res.Selected != tc.selected {
				t.Errorf("selected %d, want %d", res.Selected, tc.selected)
			}
			calls := e.calls()
			if diff := cmp.Diff(tc.calls, taskCounts(calls)); diff != "" {
				t.Errorf("calls by task (-want +got)\n%s", diff)
			}
			for _, c := range calls {
				// Only the yes/no tasks ask for log-probabilities.
				yesNo := c.Task == rerank.TaskPointwise || c.Task == rerank.TaskSupport
				if c.Logprobs != yesNo {
					t.Errorf("%s request asked logprobs = %v, want %v", c.Task, c.Logprobs, yesNo)
				}
			}
			tc.check(t, res.Trace)
		})
	}
}

// requestQuery is the request as LANCER and PureCover show it when they
// fall back to it: title and problem statement.
const requestQuery = "Village water supply. What did the water board decide about the repairs and the charges?"

func TestEndpointMalformedAnswer(t *testing.T) {
	// subjectA reports whether a call's question or requirement is about
	// topic A.
	subjectA := func(c promptCall) bool { a, _ := textTopics(c.Subject); return a }
	only := func(c promptCall, id string) bool { return len(c.IDs) == 1 && c.IDs[0] == id }
	tests := []struct {
		name   string
		method string
		garble func(c promptCall) bool
		want   []string
		calls  map[pipeline.Task]int
		check  func(t *testing.T, res rerank.Result)
	}{
		{
			// v6's rating for the reservoir question counts 0: v6 sums
			// 0 + 5 = 5 like v2, v3, v5 and v7 and, last of them in
			// first-stage order, falls behind them.
			name: "lancer rating", method: rerank.MethodLANCER,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskRate && only(c, "v6") && subjectA(c) },
			want:   []string{"v2", "v3", "v5", "v7", "v6", "v1", "v4", "v8"},
			calls:  map[pipeline.Task]int{rerank.TaskSubQuestions: 1, rerank.TaskRate: 16},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.LANCERTrace)
				if tr.Unparsable != 1 {
					t.Errorf("unparsable %d, want 1", tr.Unparsable)
				}
				checkFailures(t, tr.Failures, "rate v6 for sub-question 1")
				for _, r := range tr.Rows {
					if r.DocID == "v6" && !slices.Equal(r.Ratings, []int{0, 5}) {
						t.Errorf("v6 ratings %v, want [0 5]", r.Ratings)
					}
				}
			},
		},
		{
			// No sub-question: the request itself is the one question, and
			// the server rates it 2 per topic: v6 4, one-topic documents 2.
			name: "lancer sub-questions", method: rerank.MethodLANCER,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskSubQuestions },
			want:   goodOrder,
			calls:  map[pipeline.Task]int{rerank.TaskSubQuestions: 1, rerank.TaskRate: 8},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.LANCERTrace)
				if diff := cmp.Diff([]string{requestQuery}, tr.Questions); diff != "" {
					t.Errorf("questions (-want +got)\n%s", diff)
				}
				checkFailures(t, tr.Failures, "sub-questions")
				if len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "the request itself is the one question") {
					t.Errorf("notes %q, want the fallback's", tr.Notes)
				}
			},
		},
		{
			// v6's judgement is unreadable and scores 0, below the 0.2 of
			// the off-topic documents.
			name: "pointwise", method: rerank.MethodPointwise,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskPointwise && only(c, "v6") },
			want:   []string{"v2", "v3", "v5", "v7", "v1", "v4", "v8", "v6"},
			calls:  map[pipeline.Task]int{rerank.TaskPointwise: 8},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.PointwiseTrace)
				if tr.FromLogprobs != 7 || tr.FromAnswer != 0 || tr.Unparsable != 1 {
					t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 7, 0, 1", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
				}
				checkFailures(t, tr.Failures, "judge v6")
				for _, r := range tr.Rows {
					if r.DocID == "v6" && (r.Score != 0 || r.Source != rerank.SourceUnparsable) {
						t.Errorf("v6 row %+v, want score 0 from %s", r, rerank.SourceUnparsable)
					}
				}
			},
		},
		{
			// The only window's answer names nothing: it keeps its order.
			name: "listwise", method: rerank.MethodListwise,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskListwise },
			want:   endpointFirstStage,
			calls:  map[pipeline.Task]int{rerank.TaskListwise: 1},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.ListwiseTrace)
				checkFailures(t, tr.Failures, "rank window [0,8)")
				want := []rerank.ListwiseWindow{{Start: 0, End: 8, Before: endpointFirstStage, After: endpointFirstStage}}
				if diff := cmp.Diff(want, tr.Windows); diff != "" {
					t.Errorf("windows (-want +got)\n%s", diff)
				}
			},
		},
		{
			// The first comparison (build, node 1: [v2 v7 v8 v6]) is
			// unreadable, so v2 stays at node 1 instead of v6.
			//  build node 0 [v1 v2 v3 v4 v5] → v2, then node 1 [v1 v7 v8 v6]
			//    → v6. Heap [v2 v6 v3 v4 v5 v7 v8 v1].
			//  take v2; [v1 v6 v3 v4 v5] → v6, then node 1 [v1 v7 v8] → v7.
			//  take v6; [v8 v7 v3 v4 v5] → v7, then node 1 [v8 v1] → v8.
			//  take v7; [v1 v8 v3 v4 v5] → v3.  take v3; [v5 v8 v1 v4] → v5.
			//  take v5; [v4 v8 v1] → v4.  take v4; [v1 v8] → v1.  v1, v8.
			// 3 build + 8 extract comparisons = 11 calls.
			name: "setwise", method: rerank.MethodSetwise,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskSetwise && c.K == 1 },
			want:   []string{"v2", "v6", "v7", "v3", "v5", "v4", "v1", "v8"},
			calls:  map[pipeline.Task]int{rerank.TaskSetwise: 11},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.SetwiseTrace)
				checkFailures(t, tr.Failures, `compare "v2" … "v6" (4 documents)`)
				if len(tr.Comparisons) == 0 || tr.Comparisons[0].Winner != "v2" {
					t.Errorf("comparisons %+v, want the first won by v2 (the node kept)", tr.Comparisons)
				}
			},
		},
		{
			// No "Final Selection" line: nothing selected, first-stage order.
			name: "setr", method: rerank.MethodSetR,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskSetR },
			want:   endpointFirstStage,
			calls:  map[pipeline.Task]int{rerank.TaskSetR: 1},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.SetRTrace)
				checkFailures(t, tr.Failures, "final selection")
				if len(tr.Selected) != 0 || len(tr.Requirements) != 0 {
					t.Errorf("selected %v, requirements %v; want none", tr.Selected, tr.Requirements)
				}
			},
		},
		{
			// v6's judgement for requirement A is unreadable: p = 0, kept
			// at 0.001 (odds 1/999, below a stated no's 1/19). A's share:
			// v2, v3 19/(2·19 + 5/19 + 1/999) = a ≈ 0.4966; the
			// off-topic documents and v5, v7 (1/19)/38.264 ≈ 0.0014; v6
			// (1/999)/38.264 ≈ 0.00003. B's shares are unchanged (s ≈
			// 0.3318 for v5, v7, v6). λ = 0.05. Gains:
			//  1. v2: 2a/3 − 0.05·(1 − 2a/3) + (B share) = 0.2979;
			//     v6 only ≈ s/3 − 0.05·(1 − s/3) = 0.0661.
			//  2. A residual 1 − a = 0.5034: v3 0.1335 (v5 0.0665, v6 0.0660).
			//  3. v5 0.0662 beats v6 0.0659 by its larger A share.
			//  4. likewise v7 0.0295 before v6 0.0293.
			//  5. B residual ≈ 0.4457: v6 1/3·0.4457·s − 0.0445 = 0.0048 > 0.
			name: "purecover support", method: rerank.MethodPureCover,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskSupport && only(c, "v6") && subjectA(c) },
			want:   []string{"v2", "v3", "v5", "v7", "v6", "v1", "v4", "v8"},
			calls:  map[pipeline.Task]int{rerank.TaskRequirements: 1, rerank.TaskSupport: 16},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.PureCoverTrace)
				if tr.FromLogprobs != 15 || tr.FromAnswer != 0 || tr.Unparsable != 1 {
					t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 15, 0, 1", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
				}
				checkFailures(t, tr.Failures, "judge v6 for requirement 1")
				for _, r := range tr.Rows {
					if r.DocID == "v6" && (len(r.Yes) != 2 || r.Yes[0] != 0 || math.Abs(r.Yes[1]-0.95) > 1e-9) {
						t.Errorf("v6 judgements %v, want [0 0.95]", r.Yes)
					}
				}
				if res.Selected != 5 {
					t.Errorf("selected %d, want 5", res.Selected)
				}
			},
		},
		{
			// No requirement: the request itself is the one requirement
			// (weight 3, P = 1), which the server judges met by every
			// document on either topic (odds 19, five of them): share
			// s = 19/(5·19 + 3/19) ≈ 0.19967, noise 1 − s ≈ 0.8003, λ·noise
			// ≈ 0.0400. Gains residual·s − 0.0400 with residual (1 − s)^k:
			// 0.1597, 0.1198, 0.0879, 0.0623, 0.0419, all positive; ties
			// go to first-stage order: v2, v3, v5, v7, v6.
			name: "purecover requirements", method: rerank.MethodPureCover,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskRequirements },
			want:   []string{"v2", "v3", "v5", "v7", "v6", "v1", "v4", "v8"},
			calls:  map[pipeline.Task]int{rerank.TaskRequirements: 1, rerank.TaskSupport: 8},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.PureCoverTrace)
				want := []rerank.PureCoverRequirement{{Text: requestQuery, Weight: rerank.DefaultRequirementWeight, P: 1}}
				if diff := cmp.Diff(want, tr.Requirements); diff != "" {
					t.Errorf("requirements (-want +got)\n%s", diff)
				}
				checkFailures(t, tr.Failures, "requirements")
				if len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "the request itself is the one requirement") {
					t.Errorf("notes %q, want the fallback's", tr.Notes)
				}
				s := 19 / (5*19 + 3.0/19)
				if len(tr.Steps) == 0 || math.Abs(tr.Steps[0].Gain-(s-0.05*(1-s))) > 1e-9 {
					t.Errorf("steps %+v, want a first gain of %v", tr.Steps, s-0.05*(1-s))
				}
			},
		},
		{
			// v6's features are unreadable: it is shown by its opening,
			// which still names both topics, so the order holds.
			name: "corank features", method: rerank.MethodCoRank,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskCoRankFeatures && only(c, "v6") },
			want:   goodOrder,
			calls:  map[pipeline.Task]int{rerank.TaskCoRankFeatures: 8, rerank.TaskListwise: 2},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.CoRankTrace)
				if tr.FeaturesExtracted != 7 || tr.FeaturesFailed != 1 {
					t.Errorf("features: %d extracted, %d failed; want 7, 1", tr.FeaturesExtracted, tr.FeaturesFailed)
				}
				checkFailures(t, tr.Failures, "features of v6")
				for _, r := range tr.Rows {
					if r.DocID == "v6" && (r.Features != rerank.FeaturesFailed || !strings.HasPrefix(r.Compact, "Opening: The water board")) {
						t.Errorf("v6 row: features %q, compact %q; want failed and its opening", r.Features, r.Compact)
					}
				}
			},
		},
		{
			// The coarse window's answer names nothing: the coarse order
			// stays first-stage, and the fine ranking still sorts all 8.
			name: "corank coarse window", method: rerank.MethodCoRank,
			garble: func(c promptCall) bool { return c.Task == rerank.TaskListwise && c.K == 1 },
			want:   goodOrder,
			calls:  map[pipeline.Task]int{rerank.TaskCoRankFeatures: 8, rerank.TaskListwise: 2},
			check: func(t *testing.T, res rerank.Result) {
				tr := res.Trace.(rerank.CoRankTrace)
				checkFailures(t, tr.Failures, "coarse window [0,8)")
				if diff := cmp.Diff(endpointFirstStage, tr.Coarse); diff != "" {
					t.Errorf("coarse order (-want +got)\n%s", diff)
				}
				if diff := cmp.Diff(goodOrder, tr.Fine); diff != "" {
					t.Errorf("fine order (-want +got)\n%s", diff)
				}
			},
		},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.method] = true
		t.Run(tc.name, func(t *testing.T) {
			e := newEndpoint(t)
			e.garble = tc.garble
			res, err := endpointRun(t, e, tc.method, nil)
			if err != nil {
				t.Fatalf("a malformed answer must not fail the run: %v", err)
			}
			checkEndpointResult(t, tc.method, res, e)
			if diff := cmp.Diff(tc.want, rankingIDs(res)); diff != "" {
				t.Errorf("ranking (-want +got)\n%s", diff)
			}
			calls := e.calls()
			if diff := cmp.Diff(tc.calls, taskCounts(calls)); diff != "" {
				t.Errorf("calls by task (-want +got)\n%s", diff)
			}
			garbled := 0
			for _, c := range calls {
				if c.Garbled {
					garbled++
				}
			}
			if garbled != 1 {
				t.Fatalf("the server garbled %d answers, want 1: the case does not test what it says", garbled)
			}
			tc.check(t, res)
		})
	}
	for _, m := range rerank.Methods() {
		if !seen[m] {
			t.Errorf("no malformed-answer case for %s", m)
		}
	}
}

// checkFailures checks that the trace lists exactly one failure, of the
// call named, with the garbled answer and the parser's complaint.
func checkFailures(t *testing.T, fs []rerank.ParseFailure, call string) {
	t.Helper()
	if len(fs) != 1 {
		t.Errorf("trace failures %+v, want one for %q", fs, call)
		return
	}
	if fs[0].Call != call || fs[0].Answer != garbleText || fs[0].Error == "" {
		t.Errorf("trace failure %+v, want call %q, answer %q and an error", fs[0], call, garbleText)
	}
}

func TestEndpointMissingLogprobs(t *testing.T) {
	tests := []struct {
		method string
		want   []string
		check  func(t *testing.T, trace any)
	}{
		{
			// Stated answers: yes (1) for the five documents on a topic,
			// no (0) for the rest; v6 no longer leads, ties keep
			// first-stage order.
			method: rerank.MethodPointwise,
			want:   []string{"v2", "v3", "v5", "v7", "v6", "v1", "v4", "v8"},
			check: func(t *testing.T, trace any) {
				tr := trace.(rerank.PointwiseTrace)
				if tr.FromLogprobs != 0 || tr.FromAnswer != 8 || tr.Unparsable != 0 {
					t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 0, 8, 0", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
				}
				for _, r := range tr.Rows {
					want := 0.0
					if slices.Contains([]string{"v2", "v3", "v5", "v6", "v7"}, r.DocID) {
						want = 1
					}
					if r.Score != want || r.Source != rerank.SourceAnswer {
						t.Errorf("%s: score %v from %s, want %v from %s", r.DocID, r.Score, r.Source, want, rerank.SourceAnswer)
					}
				}
			},
		},
		{
			// Stated answers 1 and 0, kept at 0.999 and 0.001 (odds 999
			// and 1/999): shares s = 999/(3·999 + 5/999) ≈ 1/3 for the
			// three documents on each requirement. λ = 0.05, weights 2/3,
			// 1/3:
			//  1. v6: 1/3 − 0.05·(1 − 2/9) = 0.2944 (v2: 2/9 − 0.0389 = 0.1833).
			//  2. residuals 2/3, 2/3: v2 2/3·2/3·1/3 − 0.0389 = 0.1093;
			//     v5 1/3·2/3·1/3 − 0.05·(1 − 1/9) = 0.0296.
			//  3. A residual 4/9: v3 2/3·4/9·1/3 − 0.0389 = 0.0599.
			//  4. v5 0.0296 (v7 equal, later).
			//  5. B residual 4/9: v7 1/3·4/9·1/3 − 0.0444 = 0.0049 > 0.
			method: rerank.MethodPureCover,
			want:   goodOrder,
			check: func(t *testing.T, trace any) {
				tr := trace.(rerank.PureCoverTrace)
				if tr.FromLogprobs != 0 || tr.FromAnswer != 16 || tr.Unparsable != 0 {
					t.Errorf("sources: %d logprobs, %d answer, %d unparsable; want 0, 16, 0", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable)
				}
				for _, r := range tr.Rows {
					if r.DocID == "v6" && !slices.Equal(r.Yes, []float64{1, 1}) {
						t.Errorf("v6 judgements %v, want [1 1]", r.Yes)
					}
				}
				if len(tr.Steps) != 5 {
					t.Errorf("%d steps, want 5", len(tr.Steps))
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			e := newEndpoint(t)
			e.noLogprobs = true
			res, err := endpointRun(t, e, tc.method, nil)
			if err != nil {
				t.Fatalf("Rerank: %v", err)
			}
			checkEndpointResult(t, tc.method, res, e)
			if diff := cmp.Diff(tc.want, rankingIDs(res)); diff != "" {
				t.Errorf("ranking (-want +got)\n%s", diff)
			}
			for _, c := range e.calls() {
				if (c.Task == rerank.TaskPointwise || c.Task == rerank.TaskSupport) && !c.Logprobs {
					t.Errorf("%s request did not ask for log-probabilities", c.Task)
				}
			}
			tc.check(t, res.Trace)
		})
	}
}

func TestEndpointThrottledThenAnswered(t *testing.T) {
	for _, tc := range endpointGood {
		t.Run(tc.method, func(t *testing.T) {
			e := newEndpoint(t)
			e.status = func(n int) int {
				if n == 1 {
					return http.StatusTooManyRequests
				}
				return 0
			}
			res, err := endpointRun(t, e, tc.method, nil)
			if err != nil {
				t.Fatalf("a 429 must be retried, not fail the run: %v", err)
			}
			checkEndpointResult(t, tc.method, res, e)
			if diff := cmp.Diff(tc.want, rankingIDs(res)); diff != "" {
				t.Errorf("ranking (-want +got)\n%s", diff)
			}
			// Every call answered once, plus the throttled attempt.
			if got, want := e.requests(), len(e.calls())+1; got != want {
				t.Errorf("the server saw %d requests, want %d", got, want)
			}
			if diff := cmp.Diff(tc.calls, taskCounts(e.calls())); diff != "" {
				t.Errorf("calls by task (-want +got)\n%s", diff)
			}
		})
	}
}

// firstCallAlone reports whether a method's first model call is made on
// its own (not among concurrent ones), so that a failing server sees
// exactly that call's attempts.
func firstCallAlone(method string) bool {
	return method != rerank.MethodPointwise && method != rerank.MethodCoRank
}

func TestEndpointServerErrorsExhaustRetries(t *testing.T) {
	for _, tc := range endpointGood {
		t.Run(tc.method, func(t *testing.T) {
			e := newEndpoint(t)
			e.status = func(int) int { return http.StatusInternalServerError }
			// MaxRetries 2: three attempts per call.
			res, err := endpointRun(t, e, tc.method, nil)
			if err == nil {
				t.Fatalf("run succeeded against a failing server: %v", rankingIDs(res))
			}
			if !errors.Is(err, pipeline.ErrModel) {
				t.Errorf("error %q does not wrap pipeline.ErrModel", err)
			}
			if !strings.HasPrefix(err.Error(), tc.method+": ") {
				t.Errorf("error %q does not name the method %s first", err, tc.method)
			}
			if msg := err.Error(); !strings.Contains(msg, "giving up after 3 attempts") || !strings.Contains(msg, "500") {
				t.Errorf("error %q does not say the 3 attempts failed with 500", msg)
			}
			got := e.requests()
			if firstCallAlone(tc.method) && got != 3 {
				t.Errorf("the server saw %d requests, want 3 (one call, 2 retries)", got)
			}
			if got < 3 {
				t.Errorf("the server saw %d requests, want at least 3", got)
			}
			if n := len(e.calls()); n != 0 {
				t.Errorf("the server answered %d calls, want none", n)
			}
		})
	}
}

func TestEndpointTimeout(t *testing.T) {
	for _, tc := range endpointGood {
		t.Run(tc.method, func(t *testing.T) {
			e := newEndpoint(t)
			e.stall = true
			res, err := endpointRun(t, e, tc.method, func(c *llm.Config) {
				c.Timeout = 50 * time.Millisecond
				c.MaxRetries = -1 // one attempt
			})
			if err == nil {
				t.Fatalf("run succeeded against a silent server: %v", rankingIDs(res))
			}
			if !errors.Is(err, pipeline.ErrModel) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				t.Errorf("error %q should wrap pipeline.ErrModel, not a context error", err)
			}
			if !strings.HasPrefix(err.Error(), tc.method+": ") {
				t.Errorf("error %q does not name the method %s first", err, tc.method)
			}
			if !strings.Contains(err.Error(), "no answer within 50ms") {
				t.Errorf("error %q does not name the attempt timeout", err)
			}
			if firstCallAlone(tc.method) {
				if got := e.requests(); got != 1 {
					t.Errorf("the server saw %d requests, want 1 (no retries)", got)
				}
			}
		})
	}
}
