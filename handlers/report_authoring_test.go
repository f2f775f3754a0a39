package handlers

import (
	"errors"
	"math"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
)

func TestAddedTarget(t *testing.T) {
	tests := []struct {
		name, change, want string
	}{
		{name: "candidate", change: "added sentence 4 from the candidates of nugget n1.2", want: "/reports/7#s4"},
		{name: "quote", change: "added sentence 1 quoted from document d 9", want: "/reports/7#s1"},
		{name: "other change", change: "edited sentence 2", want: "/reports/7"},
		{name: "no number", change: "added sentence x from", want: "/reports/7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := addedTarget(7, pipeline.VersionInfo{Change: tt.change}); got != tt.want {
				t.Errorf("addedTarget = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReason(t *testing.T) {
	if got := reason(pipeline.Invalidf("the sentence is empty")); got != "The sentence is empty" {
		t.Errorf("reason = %q", got)
	}
	if got := reason(errors.New("odd failure")); got != "Odd failure" {
		t.Errorf("reason = %q", got)
	}
}

func TestUseReviewerVerdicts(t *testing.T) {
	sentences := []pipeline.Sentence{
		{Text: "a", Citation: pipeline.Citation{DocID: "d"}},
		{Text: "b", Citation: pipeline.Citation{DocID: "d"}},
		{Text: "c", Citation: pipeline.Citation{DocID: "d"}},
		{Text: "e", Citation: pipeline.Citation{DocID: "x"}},
	}
	cit := func(yes bool, errText string) []judge.CitationResult {
		return []judge.CitationResult{{DocID: "d", Verdict: judge.Verdict{Yes: yes, Error: errText}}}
	}
	// The judge: a supported, b not, c undecided, e supported.
	rr := judge.ReportResult{
		Sentences: []judge.SentenceResult{
			{Index: 0, Citations: cit(true, "")},
			{Index: 1, Citations: cit(false, "")},
			{Index: 2, Citations: cit(false, "unreadable answer")},
			{Index: 3, Citations: cit(true, "")},
		},
		Counts: judge.Counts{Citations: 4, Supported: 2, Undecided: 1},
	}
	reviews := map[string]pipeline.Review{
		pipeline.SentenceKey(sentences[0]): {Verdict: pipeline.ReviewUnsupported, Reviewer: "grace"},
		pipeline.SentenceKey(sentences[1]): {Verdict: pipeline.ReviewSupported, Reviewer: "grace"},
		pipeline.SentenceKey(sentences[2]): {Verdict: pipeline.ReviewPartly, Reviewer: "ada", Comment: "half"},
	}
	used, partly := useReviewerVerdicts(&rr, sentences, reviews)
	if used != 3 || partly != 1 {
		t.Errorf("used %d, partly %d; want 3, 1", used, partly)
	}
	// Supported: b (reviewer) and e (judge) = 2; partly c = 1:
	// (2 + 0.5) / 4 = 0.625.
	if rr.Counts.Supported != 2 || math.Abs(rr.Metrics.CitationSupport-0.625) > 1e-12 {
		t.Errorf("supported %d, citation support %g; want 2, 0.625", rr.Counts.Supported, rr.Metrics.CitationSupport)
	}
	if rr.Counts.Undecided != 0 {
		t.Errorf("undecided %d: the reviewer decided c", rr.Counts.Undecided)
	}
	if got := rr.Sentences[2].Citations[0].Verdict.Reason; got != "reviewer ada: partly supported — half" {
		t.Errorf("reason %q", got)
	}
}
