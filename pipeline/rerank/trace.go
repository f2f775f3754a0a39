package rerank

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
)

// This file holds the traces the rerankers return in Result.Trace: what
// the model was asked and said, in the form a retrieval view shows, so a
// user can see why a document moved. Every trace marshals to JSON with
// snake_case keys; DecodeTrace reads one back by its method's name.
// Documents appear by id with their first-stage and new 1-based ranks;
// rows list the reranked candidates in first-stage order.

// ParseFailure is a model answer the method's parser could not use, and
// what the method did instead (its documented fallback).
type ParseFailure struct {
	// Call says what was asked: "rate d7 for sub-question 2".
	Call string `json:"call"`
	// Answer is the start of the model's answer, on one line.
	Answer string `json:"answer"`
	// Error is the parser's complaint.
	Error string `json:"error"`
}

// LANCERTrace is LANCER's trace: the question × document rating grid.
type LANCERTrace struct {
	// Aggregation is the strategy as ParseMethod reads it ("sum",
	// "greedy-coverage:tau=3").
	Aggregation string `json:"aggregation"`
	// Oracle is true when the questions were supplied, not generated.
	Oracle    bool        `json:"oracle"`
	Questions []string    `json:"questions"`
	Depth     int         `json:"depth"`
	Rows      []LANCERRow `json:"rows"`
	// Prefix is, for the greedy strategies, how many documents were taken
	// with a positive gain; the rest were appended. It equals len(Rows)
	// for sum and rrf.
	Prefix int `json:"prefix"`
	// Unparsable counts the ratings that could not be read and count 0.
	Unparsable int            `json:"unparsable"`
	Failures   []ParseFailure `json:"failures,omitempty"`
	// Notes tell of fallbacks outside the grid (too few sub-questions).
	Notes []string `json:"notes,omitempty"`
}

// LANCERRow is one rated document.
type LANCERRow struct {
	DocID          string `json:"doc_id"`
	Title          string `json:"title"`
	FirstStageRank int    `json:"first_stage_rank"`
	Rank           int    `json:"rank"`
	// Ratings holds one 0–5 rating per question (an unparsable one is 0).
	Ratings []int `json:"ratings"`
	// Score is the aggregation's utility of the document (Aggregation.Scores).
	Score float64 `json:"score"`
	// Gain is, for greedy strategies, the gain the document was taken
	// with (0 for the appended tail and for sum and rrf).
	Gain float64 `json:"gain"`
}

// PointwiseTrace is the pointwise reranker's trace.
type PointwiseTrace struct {
	Depth int            `json:"depth"`
	Rows  []PointwiseRow `json:"rows"`
	// FromLogprobs counts scores read from token log-probabilities,
	// FromAnswer those that fell back to the stated yes (1) or no (0), and
	// Unparsable those with neither (0).
	FromLogprobs int            `json:"from_logprobs"`
	FromAnswer   int            `json:"from_answer"`
	Unparsable   int            `json:"unparsable"`
	Failures     []ParseFailure `json:"failures,omitempty"`
}

// Sources of a yes/no score.
const (
	SourceLogprobs   = "logprobs"
	SourceAnswer     = "answer"
	SourceUnparsable = "unparsable"
)

// PointwiseRow is one judged document.
type PointwiseRow struct {
	DocID          string `json:"doc_id"`
	Title          string `json:"title"`
	FirstStageRank int    `json:"first_stage_rank"`
	Rank           int    `json:"rank"`
	// Score is the probability of "yes".
	Score float64 `json:"score"`
	// Source is SourceLogprobs, SourceAnswer or SourceUnparsable.
	Source string `json:"source"`
}

// ListwiseTrace is the listwise reranker's trace: its windows in the
// order they were processed (bottom-up).
type ListwiseTrace struct {
	Depth        int              `json:"depth"`
	WindowSize   int              `json:"window_size"`
	WindowStride int              `json:"window_stride"`
	Windows      []ListwiseWindow `json:"windows"`
	Failures     []ParseFailure   `json:"failures,omitempty"`
}

// ListwiseWindow is one listwise call.
type ListwiseWindow struct {
	// Start and End are the 0-based list positions [Start, End) reordered.
	Start int `json:"start"`
	End   int `json:"end"`
	// Before and After are the window's document ids as shown to the model
	// and as reordered.
	Before []string `json:"before"`
	After  []string `json:"after"`
	// Ranked counts the documents the answer ranked; the others kept their
	// relative order after them. Complete is true when the answer ranked
	// every document exactly once and nothing else.
	Ranked   int  `json:"ranked"`
	Complete bool `json:"complete"`
}

// SetwiseTrace is the setwise reranker's trace.
type SetwiseTrace struct {
	Depth   int `json:"depth"`
	SetSize int `json:"set_size"`
	TopK    int `json:"top_k"`
	// Top holds the ids of the sorted leading documents, best first.
	Top         []string            `json:"top"`
	Comparisons []SetwiseComparison `json:"comparisons"`
	Failures    []ParseFailure      `json:"failures,omitempty"`
}

// SetwiseComparison is one setwise call.
type SetwiseComparison struct {
	// Phase is "build" (heap construction) or "extract" (after taking a
	// document off the top).
	Phase string `json:"phase"`
	// Docs are the compared ids, labelled A, B, ... in this order; the
	// first is the heap node, the others its children.
	Docs   []string `json:"docs"`
	Winner string   `json:"winner"`
}

// SetRTrace is SetR's trace: the requirements the model listed.
type SetRTrace struct {
	Depth        int                    `json:"depth"`
	Requirements []SetRTraceRequirement `json:"requirements"`
	// Selected holds the chosen ids in the answer's order.
	Selected []string `json:"selected"`
	// Repeated and OutOfRange count identifiers of the selection line that
	// were ignored.
	Repeated   int            `json:"repeated"`
	OutOfRange int            `json:"out_of_range"`
	Failures   []ParseFailure `json:"failures,omitempty"`
}

// SetRTraceRequirement is one requirement and the documents the model
// said meet it.
type SetRTraceRequirement struct {
	Text   string   `json:"text"`
	DocIDs []string `json:"doc_ids"`
}

// PureCoverTrace is PureCover's trace: the requirements with P(e|q), the
// judgements and P(d|e) per document, and the greedy steps with the
// objective.
type PureCoverTrace struct {
	Depth        int                    `json:"depth"`
	K            int                    `json:"k"`
	Lambda       float64                `json:"lambda"`
	Temperature  float64                `json:"temperature"`
	Requirements []PureCoverRequirement `json:"requirements"`
	Rows         []PureCoverRow         `json:"rows"`
	Steps        []PureCoverStep        `json:"steps"`
	// StoppedEarly is true when the greedy stopped before K because no
	// document had a positive gain.
	StoppedEarly bool `json:"stopped_early"`
	// FromLogprobs, FromAnswer and Unparsable count the support
	// judgements by where their probability came from (see PointwiseTrace).
	FromLogprobs int            `json:"from_logprobs"`
	FromAnswer   int            `json:"from_answer"`
	Unparsable   int            `json:"unparsable"`
	Failures     []ParseFailure `json:"failures,omitempty"`
	Notes        []string       `json:"notes,omitempty"`
}

// PureCoverRequirement is one information requirement.
type PureCoverRequirement struct {
	Text string `json:"text"`
	// Weight is the model's 1–5 weight; P is P(e|q), the weights
	// normalised to sum to 1.
	Weight int     `json:"weight"`
	P      float64 `json:"p"`
}

// PureCoverRow is one judged document.
type PureCoverRow struct {
	DocID          string `json:"doc_id"`
	Title          string `json:"title"`
	FirstStageRank int    `json:"first_stage_rank"`
	Rank           int    `json:"rank"`
	// Yes holds, per requirement, the judged probability that the document
	// gives it; Support holds P(d|e), the softmax over the candidates of
	// the judgements' log-odds divided by the temperature.
	Yes     []float64 `json:"yes"`
	Support []float64 `json:"support"`
	// Noise is 1 − max_e P(d|e)·P(e|q), the document's cost per λ.
	Noise float64 `json:"noise"`
	// Selected is true for the documents of the chosen set.
	Selected bool `json:"selected"`
}

// PureCoverStep is one greedy addition and the set's value after it.
type PureCoverStep struct {
	DocID     string  `json:"doc_id"`
	Gain      float64 `json:"gain"`
	Coverage  float64 `json:"coverage"`
	Noise     float64 `json:"noise"`
	Objective float64 `json:"objective"`
}

// DecodeTrace reads a trace marshalled from Result.Trace back into its
// type (LANCERTrace, ...) by the method's name. Unknown fields are
// rejected, so a trace of another method does not pass unnoticed.
func DecodeTrace(method string, data []byte) (any, error) {
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(data))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return pipeline.Invalidf("%s trace: %v", method, err)
		}
		return nil
	}
	var (
		v   any
		err error
	)
	switch method {
	case MethodLANCER:
		var t LANCERTrace
		err = dec(&t)
		v = t
	case MethodPointwise:
		var t PointwiseTrace
		err = dec(&t)
		v = t
	case MethodListwise:
		var t ListwiseTrace
		err = dec(&t)
		v = t
	case MethodSetwise:
		var t SetwiseTrace
		err = dec(&t)
		v = t
	case MethodSetR:
		var t SetRTrace
		err = dec(&t)
		v = t
	case MethodPureCover:
		var t PureCoverTrace
		err = dec(&t)
		v = t
	case MethodCoRank:
		var t CoRankTrace
		err = dec(&t)
		v = t
	default:
		return nil, pipeline.Invalidf("trace of unknown reranker %q", method)
	}
	if err != nil {
		return nil, fmt.Errorf("decode trace: %w", err)
	}
	return v, nil
}
