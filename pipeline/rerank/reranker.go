package rerank

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
)

// The model-driven rerankers, by the names New takes.
const (
	// MethodLANCER generates sub-questions, rates every candidate's
	// answerability for each on 0–5 and aggregates (Aggregate).
	MethodLANCER = "lancer"
	// MethodPointwise scores each candidate by the probability of a "yes"
	// relevance judgement.
	MethodPointwise = "pointwise"
	// MethodListwise reranks with bottom-up sliding windows of listwise
	// rankings (SlidingRerank).
	MethodListwise = "listwise"
	// MethodSetwise finds the top k by a heap sort whose comparisons ask
	// the model for the best of a small set.
	MethodSetwise = "setwise"
	// MethodSetR asks one set-wise selection prompt (ParseFinalSelection).
	MethodSetR = "setr"
	// MethodPureCover selects at most K documents by weighted requirement
	// coverage minus noise (PureCover) from model support judgements.
	MethodPureCover = "purecover"
)

// Methods lists the reranker names New accepts.
func Methods() []string {
	return []string{MethodLANCER, MethodPointwise, MethodListwise, MethodSetwise, MethodSetR, MethodPureCover, MethodCoRank}
}

// Defaults of the model-driven rerankers.
const (
	// DefaultDepth is how many leading candidates LANCER, pointwise,
	// listwise and setwise rerank.
	DefaultDepth = 100
	// DefaultSetRDepth is how many candidates SetR's single prompt shows.
	DefaultSetRDepth = 20
	// DefaultCoverDepth is how many candidates PureCover judges against
	// every requirement.
	DefaultCoverDepth = 20
	// DefaultDocChars is the budget of document text a prompt shows per
	// candidate, in characters (runes): about 375 tokens, so that a
	// listwise window of 20 documents stays near 8,000 tokens.
	DefaultDocChars = 1500
	// DefaultConcurrency bounds the model calls in flight for the methods
	// whose calls are independent (LANCER, pointwise, PureCover).
	DefaultConcurrency = 8
	// DefaultSubQuestions is LANCER's n.
	DefaultSubQuestions = 2
	// DefaultAggregation is LANCER's aggregation strategy (ParseMethod).
	DefaultAggregation = "sum"
	// DefaultSetSize is how many documents one setwise comparison shows: a
	// heap node and its DefaultSetSize − 1 children.
	DefaultSetSize = 5
	// DefaultSetwiseTopK is how many leading documents setwise sorts.
	DefaultSetwiseTopK = 10
	// DefaultRequirements is the most requirements PureCover asks for.
	DefaultRequirements = 5
	// DefaultSupportTemperature is PureCover's softmax temperature over the
	// log-odds of its support judgements. A softmax over log-odds at
	// temperature T normalises the odds raised to 1/T; at 1 a document's
	// share of a requirement is its odds over the candidates' sum of
	// odds, the judgements taken as they are. (It was 0.25, which sharpened
	// every requirement onto its best document so that a few passed the
	// noise penalty of the former λ = 0.3; with λ = 1/N, see
	// DefaultCoverLambda, the judgements need no sharpening.)
	DefaultSupportTemperature = 1.0
)

// DocumentSource reads candidate documents; pipeline.DocumentStore
// satisfies it.
type DocumentSource interface {
	// Document returns the document with the id, or an error wrapping
	// pipeline.ErrNotFound.
	Document(ctx context.Context, id string) (pipeline.Document, error)
}

// CandidateWanter is implemented by a reranker that should be given more
// candidates than a report retrieves: it chooses among them, and the
// report keeps as many as it retrieved.
type CandidateWanter interface {
	WantsCandidates() int
}

// Input is what every reranker takes.
type Input struct {
	// Request is the report request; its title and problem statement must
	// not both be blank.
	Request pipeline.Request
	// Candidates are the first-stage results, best first, with non-empty,
	// distinct ids.
	Candidates []Candidate
	// Docs supplies each candidate's title and text.
	Docs DocumentSource
	// Passages optionally maps a candidate id to the text of its best
	// first-stage passage (pipeline.Hit.Text of a document search). When
	// given, a prompt shows the document's title and that passage instead
	// of the opening of the document, which in long documents (an address,
	// a report) is often a preamble that says little about the request.
	Passages map[string]string
	// Progress, when set, is called after every model call with the calls
	// done and the calls planned so far (setwise's plan is an estimate and
	// may grow). Calls are serialised.
	Progress func(done, total int)
}

// Result is a reranking and the trace of how it was made.
type Result struct {
	// Method is the reranker's name (MethodLANCER, ...).
	Method string
	// Ranking holds every candidate once, reranked: for ranking methods
	// the reranked leading candidates (Options.Depth) then the rest in
	// first-stage order; for set-selection methods the selected set then
	// every other candidate in first-stage order (SelectionRun). Scores
	// are 1/rank (1, 0.5, 0.333…), strictly descending, so that tools
	// which sort by score keep the order; the method's own scores are in
	// the trace.
	Ranking []Candidate
	// Selected is, for the set-selection methods (SetR, PureCover), the
	// size of the chosen set: the first Selected entries of Ranking. It is
	// 0 for the ranking methods, and for a set method whose model answer
	// selected nothing usable (the trace says why).
	Selected int
	// Trace is the method's trace, one of LANCERTrace, PointwiseTrace,
	// ListwiseTrace, SetwiseTrace, SetRTrace and PureCoverTrace; it
	// marshals to JSON and DecodeTrace reads it back.
	Trace any
	// Usage counts the model calls, cache hits and tokens.
	Usage pipeline.Usage
}

// Reranker reorders first-stage candidates for a report request.
type Reranker interface {
	// Name is the method's name (MethodLANCER, ...).
	Name() string
	// Rerank reranks in.Candidates. It returns an error wrapping
	// pipeline.ErrInvalid for unusable input (no request text, a nil
	// document source, empty or repeated candidate ids), the document
	// source's error for a candidate it cannot load, the model's error for
	// a failed call (wrapped with the method, the step and the document),
	// and ctx's error when ctx ends. An answer the model gets wrong in
	// form (an unparsable rating, a ranking that names nothing) is not an
	// error: the documented fallback applies and the trace records it.
	Rerank(ctx context.Context, in Input) (Result, error)
}

// Options tunes the rerankers. A zero field takes its default; only the
// fields of the method at hand are read.
type Options struct {
	// Depth is how many leading candidates are reranked; the rest keep
	// their first-stage order after them. 0: DefaultDepth, or
	// DefaultSetRDepth for SetR and DefaultCoverDepth for PureCover.
	Depth int
	// DocChars is the per-document text budget of a prompt in characters:
	// the text (see Input.Passages) is cut at a word boundary before it
	// and marked " …". 0: DefaultDocChars.
	DocChars int
	// Concurrency bounds model calls in flight. 0: DefaultConcurrency.
	Concurrency int

	// SubQuestions is LANCER's n, 1..MaxSubQuestions. 0: 2.
	SubQuestions int
	// Aggregation is LANCER's strategy as ParseMethod reads it ("sum",
	// "greedy-coverage:tau=3", "rrf", ...). "": "sum" (τ = 1).
	Aggregation string
	// OracleQuestions, when not nil, switches LANCER to oracle mode: the
	// sub-questions of request r are OracleQuestions[r.ID], and a request
	// without any is an error.
	OracleQuestions map[string][]string

	// WindowSize and WindowStride shape listwise's sliding windows.
	// 0: DefaultWindowSize (20) and DefaultWindowStride (10).
	WindowSize   int
	WindowStride int

	// SetSize is how many documents a setwise comparison shows, 2..26: a
	// heap node and its SetSize − 1 children. 0: DefaultSetSize (5).
	SetSize int
	// TopK is how many leading documents setwise sorts. 0: 10.
	TopK int

	// CoverK is PureCover's largest set. 0: DefaultCoverK (5).
	CoverK int
	// Lambda is PureCover's noise penalty λ ≥ 0. nil: DefaultCoverLambda
	// (0.05); a pointer because 0 (pure coverage) is a real choice.
	Lambda *float64
	// Temperature is PureCover's softmax temperature over the support
	// judgements' log-odds. 0: DefaultSupportTemperature (1).
	Temperature float64
	// CoRank configures CoRank's feature cache and term analysis; its zero
	// value keeps features in memory for the reranker's life.
	CoRank CoRankConfig

	// Requirements is the most requirements PureCover asks for,
	// 1..MaxRequirements. 0: DefaultRequirements (5).
	Requirements int
}

// DefaultOptions returns every option at its default (Depth 0, which
// means each method's own default depth).
func DefaultOptions() Options {
	lambda := DefaultCoverLambda
	return Options{
		DocChars: DefaultDocChars, Concurrency: DefaultConcurrency,
		SubQuestions: DefaultSubQuestions, Aggregation: DefaultAggregation,
		WindowSize: DefaultWindowSize, WindowStride: DefaultWindowStride,
		SetSize: DefaultSetSize, TopK: DefaultSetwiseTopK,
		CoverK: DefaultCoverK, Lambda: &lambda, Temperature: DefaultSupportTemperature, Requirements: DefaultRequirements,
	}
}

// settings are the options with every default filled in.
type settings struct {
	depth, docChars, concurrency int
	subQuestions                 int
	aggregation                  Method
	oracle                       map[string][]string
	windowSize, windowStride     int
	setSize, topK                int
	cover                        CoverOptions
	temperature                  float64
	requirements                 int
}

// New returns the reranker named method (see Methods) asking model, with
// opts. An unknown method or an out-of-range option is an error wrapping
// pipeline.ErrInvalid that names it.
func New(method string, model pipeline.Model, opts Options) (Reranker, error) {
	name := strings.ToLower(strings.TrimSpace(method))
	if !slices.Contains(Methods(), name) {
		return nil, pipeline.Invalidf("unknown reranker %q (want one of %s)", method, strings.Join(Methods(), ", "))
	}
	if model == nil {
		return nil, pipeline.Invalidf("reranker %s: no model", name)
	}
	if name == MethodCoRank {
		return NewCoRank(model, opts, opts.CoRank)
	}
	s, err := resolve(name, opts)
	if err != nil {
		return nil, fmt.Errorf("reranker %s: %w", name, err)
	}
	base := reranker{name: name, model: model, s: s}
	switch name {
	case MethodLANCER:
		return &lancerReranker{base}, nil
	case MethodPointwise:
		return &pointwiseReranker{base}, nil
	case MethodListwise:
		return &listwiseReranker{base}, nil
	case MethodSetwise:
		return &setwiseReranker{base}, nil
	case MethodSetR:
		return &setrReranker{base}, nil
	default:
		return &pureCoverReranker{base}, nil
	}
}

// resolve fills in defaults and checks the options method reads.
func resolve(method string, o Options) (settings, error) {
	orDefault := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	s := settings{
		depth:        orDefault(o.Depth, DefaultDepth),
		docChars:     orDefault(o.DocChars, DefaultDocChars),
		concurrency:  orDefault(o.Concurrency, DefaultConcurrency),
		subQuestions: orDefault(o.SubQuestions, DefaultSubQuestions),
		oracle:       o.OracleQuestions,
		windowSize:   orDefault(o.WindowSize, DefaultWindowSize),
		windowStride: orDefault(o.WindowStride, DefaultWindowStride),
		setSize:      orDefault(o.SetSize, DefaultSetSize),
		topK:         orDefault(o.TopK, DefaultSetwiseTopK),
		cover:        CoverOptions{K: orDefault(o.CoverK, DefaultCoverK), Lambda: DefaultCoverLambda},
		temperature:  o.Temperature,
		requirements: orDefault(o.Requirements, DefaultRequirements),
	}
	if o.Depth == 0 {
		switch method {
		case MethodSetR:
			s.depth = DefaultSetRDepth
		case MethodPureCover:
			s.depth = DefaultCoverDepth
		}
	}
	if s.temperature == 0 {
		s.temperature = DefaultSupportTemperature
	}
	if o.Lambda != nil {
		s.cover.Lambda = *o.Lambda
	}
	switch {
	case s.depth < 1:
		return s, pipeline.Invalidf("depth %d, want at least 1", o.Depth)
	case s.docChars < 1:
		return s, pipeline.Invalidf("document budget %d characters, want at least 1", o.DocChars)
	case s.concurrency < 1:
		return s, pipeline.Invalidf("concurrency %d, want at least 1", o.Concurrency)
	}
	switch method {
	case MethodLANCER:
		if s.subQuestions < 1 || s.subQuestions > MaxSubQuestions {
			return s, pipeline.Invalidf("sub-question count %d, want 1..%d", o.SubQuestions, MaxSubQuestions)
		}
		name := o.Aggregation
		if strings.TrimSpace(name) == "" {
			name = DefaultAggregation
		}
		m, err := ParseMethod(name)
		if err != nil {
			return s, err
		}
		s.aggregation = m
	case MethodListwise:
		if _, err := SlidingWindows(0, s.windowSize, s.windowStride); err != nil {
			return s, err
		}
	case MethodSetwise:
		if s.setSize < 2 || s.setSize > MaxSetSize {
			return s, pipeline.Invalidf("set size %d, want 2..%d", o.SetSize, MaxSetSize)
		}
		if s.topK < 1 {
			return s, pipeline.Invalidf("top k %d, want at least 1", o.TopK)
		}
	case MethodPureCover:
		if s.cover.K < 1 {
			return s, pipeline.Invalidf("K %d, want at least 1", o.CoverK)
		}
		if err := validateLambda(s.cover.Lambda); err != nil {
			return s, err
		}
		if math.IsNaN(s.temperature) || math.IsInf(s.temperature, 0) || s.temperature <= 0 {
			return s, pipeline.Invalidf("temperature %v, want a finite number > 0", o.Temperature)
		}
		if s.requirements < 1 || s.requirements > MaxRequirements {
			return s, pipeline.Invalidf("requirement count %d, want 1..%d", o.Requirements, MaxRequirements)
		}
	}
	return s, nil
}

// reranker holds what every method shares.
type reranker struct {
	name  string
	model pipeline.Model
	s     settings
}

// Name is the method's name.
func (r *reranker) Name() string { return r.name }

// run is one Rerank call in progress.
type run struct {
	*reranker
	in   Input
	head []Candidate // the candidates the method reranks
	docs []PromptDoc // head's documents, cut to the budget

	mu          sync.Mutex
	usage       pipeline.Usage
	done, total int
}

// start checks the input, loads the documents of the leading depth
// candidates and plans calls calls (more may be added with plan).
func (r *reranker) start(ctx context.Context, in Input) (*run, error) {
	if strings.TrimSpace(in.Request.Query()) == "" {
		return nil, fmt.Errorf("%s: %w", r.name, pipeline.Invalidf("the request has neither title nor problem statement"))
	}
	if in.Docs == nil {
		return nil, fmt.Errorf("%s: %w", r.name, pipeline.Invalidf("no document source"))
	}
	if err := validateCandidates(in.Candidates); err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, err)
	}
	ru := &run{reranker: r, in: in, head: in.Candidates[:min(r.s.depth, len(in.Candidates))]}
	ru.docs = make([]PromptDoc, len(ru.head))
	for i, c := range ru.head {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		d, err := in.Docs.Document(ctx, c.ID)
		if err != nil {
			return nil, fmt.Errorf("%s: load document %q: %w", r.name, c.ID, err)
		}
		ru.docs[i] = promptDoc(c.ID, d, in.Passages[c.ID], r.s.docChars)
	}
	return ru, nil
}

// promptDoc cuts a document (or its given passage) to the budget.
func promptDoc(id string, d pipeline.Document, passage string, budget int) PromptDoc {
	text := passage
	if strings.TrimSpace(text) == "" {
		text = d.Text
	}
	text, cut := cutText(strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD")), budget)
	if cut {
		text += " …"
	}
	return PromptDoc{ID: id, Title: flatten(d.Title), Text: text}
}

// plan adds n calls to the planned total.
func (ru *run) plan(n int) {
	ru.mu.Lock()
	ru.total += n
	ru.mu.Unlock()
}

// ask makes one model call, counting it and reporting progress.
func (ru *run) ask(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return pipeline.ModelResponse{}, err
	}
	resp, err := ru.model.Complete(ctx, req)
	if err != nil {
		return pipeline.ModelResponse{}, err
	}
	ru.mu.Lock()
	defer ru.mu.Unlock()
	ru.usage.Add(resp)
	ru.done++
	ru.total = max(ru.total, ru.done)
	if ru.in.Progress != nil {
		ru.in.Progress(ru.done, ru.total)
	}
	return resp, nil
}

// forEach runs fn for 0..n−1 with the configured concurrency.
func (ru *run) forEach(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	return pipeline.ForEach(ctx, n, ru.s.concurrency, fn)
}

// result builds the Result for a selection or full order of head
// positions: those first, then every other candidate in first-stage order.
func (ru *run) result(order []int, selected int, trace any) (Result, error) {
	ranking, err := SelectionRun(ru.in.Candidates, order)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", ru.name, err)
	}
	return Result{Method: ru.name, Ranking: ranking, Selected: selected, Trace: trace, Usage: ru.usage}, nil
}

// ranks maps head positions to their new 1-based ranks for an order that
// starts with order and keeps the rest in first-stage order.
func (ru *run) ranks(order []int) []int {
	rank := make([]int, len(ru.head))
	taken := make([]bool, len(ru.head))
	for k, i := range order {
		rank[i] = k + 1
		taken[i] = true
	}
	next := len(order)
	for i := range rank {
		if !taken[i] {
			next++
			rank[i] = next
		}
	}
	return rank
}

// failure records an answer the parser could not use.
func failure(call, answer string, err error) ParseFailure {
	return ParseFailure{Call: call, Answer: snippet(answer), Error: err.Error()}
}

// logit is ln(p/(1−p)) with p kept in [0.001, 0.999].
func logit(p float64) float64 {
	p = math.Max(minJudgedProb, math.Min(maxJudgedProb, p))
	return math.Log(p / (1 - p))
}

// Bounds of a judged probability: no judgement is certain, and the
// log-odds of 0 or 1 are infinite.
const (
	minJudgedProb = 0.001
	maxJudgedProb = 0.999
)
