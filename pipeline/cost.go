package pipeline

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Estimating a run's cost before it starts (docs/pipeline.md, "What a run
// costs"). The dry run (crucible.Engine.Estimate) measures what can be
// measured without a model call — the retrieval, the stages before the
// scan run with the offline engine standing in for the model, the scan's
// reach over the retrieved passages, the prompts' sizes — and
// EstimateCost turns the measurements into calls and tokens per stage.
// Calls of the offline engine are counted as tasks; it spends no tokens.

// CharsPerToken is how many characters the estimate counts as one token:
// about four for English prose with the tokenizers of current models.
const CharsPerToken = 4

// Shares measured on the demo corpus (sotu-01..06; docs/benchmarks.md §5,
// "Estimates against actual counts"), which EstimateCost applies where
// the dry run cannot measure.
const (
	// ScanStopShare is the share of its promising passages (its reach) an
	// early-stopping scan reads per nugget, on average, when no per-nugget
	// limit applies: a nugget stops only once its answer is found, with
	// confidence, ScanCandidates times (measured 0.75–1.0, mean 0.88).
	ScanStopShare = 0.88
	// ScanStopShareLimited is that share under a per-nugget limit (the
	// offline engine's 24): few nuggets stop before it (0.86–1.0).
	ScanStopShareLimited = 0.95
	// ExtractAnswerChars is an extraction answer's mean length: most
	// passages an unlimited scan reads hold no answer ("NONE", a token);
	// under a limit the scan reads the most promising ones, which answer
	// more often.
	ExtractAnswerChars        = 6
	ExtractAnswerCharsLimited = 80
	// YesNoAnswerChars is a yes/no answer's length; FacetsAnswerChars a
	// facets answer's.
	YesNoAnswerChars  = 3
	FacetsAnswerChars = 350
	// VerifiedPerNugget is how many candidates verification checks per
	// kept nugget, on average (two calls each): k+1 for a nugget with
	// enough candidates, fewer for one with fewer, more when checks fail.
	VerifiedPerNugget = 1.45
)

// CallSizes counts calls and the characters of their prompts and answers.
type CallSizes struct {
	Calls           int `json:"calls"`
	PromptChars     int `json:"prompt_chars"`
	CompletionChars int `json:"completion_chars"`
}

// Add adds o's counts.
func (c *CallSizes) Add(o CallSizes) {
	c.Calls += o.Calls
	c.PromptChars += o.PromptChars
	c.CompletionChars += o.CompletionChars
}

// CostInput is what the dry run measured of a run to come.
type CostInput struct {
	// Settings are the run's, the engine's rules filled in.
	Settings Settings
	// Offline is set for the offline engine, which spends no tokens.
	Offline bool
	// ScanLimit is the engine's bound on the passages an early-stopping
	// scan reads per nugget (0: none).
	ScanLimit int
	// Rerank, Ideate, Merge and Rank are the calls the stand-in run of
	// those stages made, with their characters.
	Rerank, Ideate, Merge, Rank CallSizes
	// Reach holds, per kept nugget, the passages an early-stopping scan
	// may read: the promising ones in the prefilter's order, at most the
	// engine's limit.
	Reach []int
	// Passages is how many passages the report's documents have: a full
	// scan reads each for every kept nugget.
	Passages int
	// The prompt of one call of the tasks the dry run does not make, in
	// characters: an extraction (the mean over the passages the kept
	// nuggets read first), the two verification checks, the facets.
	ExtractPromptChars, SupportPromptChars, CoveragePromptChars, FacetsPromptChars int
	// FillTries is how many sentences the rule FillReport may try (a
	// nugget and an extraction each, a second extraction at most when the
	// first finds nothing on the subject, and the checks when verifying);
	// 0 without the rule.
	FillTries int
}

// StageCost is one stage's estimate (or actual count).
type StageCost struct {
	Stage            string `json:"stage"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// MaxCalls bounds the calls where the estimate is an expectation
	// (the early-stopping scan: every promising passage read; checks of
	// every candidate verification may reach); 0 when Calls is the count.
	MaxCalls int `json:"max_calls,omitempty"`
	// Basis says how the figure was reached, in a few words.
	Basis string `json:"basis,omitempty"`
}

// CostEstimate is what a run is expected to cost, stage by stage.
type CostEstimate struct {
	Stages []StageCost `json:"stages"`
	// Offline is set when the offline engine answers: calls are its
	// tasks, and no token is spent.
	Offline bool `json:"offline"`
	// Documents and Passages are what the retrieval found: the report's
	// documents and their passages.
	Documents int `json:"documents"`
	Passages  int `json:"passages"`
	// Nuggets is how many nuggets the stand-in run kept for scanning.
	Nuggets int `json:"nuggets"`
}

// Total sums the stages: calls, tokens, and the bound on calls (a stage
// without a bound counts its calls).
func (e CostEstimate) Total() StageCost {
	t := StageCost{Stage: "total"}
	for _, s := range e.Stages {
		t.Calls += s.Calls
		t.PromptTokens += s.PromptTokens
		t.CompletionTokens += s.CompletionTokens
		if s.MaxCalls > 0 {
			t.MaxCalls += s.MaxCalls
		} else {
			t.MaxCalls += s.Calls
		}
	}
	if t.MaxCalls == t.Calls {
		t.MaxCalls = 0
	}
	return t
}

// Stage returns the estimate of the stage named, and whether the run has
// it.
func (e CostEstimate) Stage(name string) (StageCost, bool) {
	for _, s := range e.Stages {
		if s.Stage == name {
			return s, true
		}
	}
	return StageCost{}, false
}

// tokens counts characters as tokens, rounding up.
func tokens(chars int) int { return (chars + CharsPerToken - 1) / CharsPerToken }

// EstimateCost estimates a run from the dry run's measurements, stage by
// stage in the run's order (the stage names of pipeline/crucible):
//
//   - retrieve and group make no call;
//   - rerank, ideate, merge and rank cost what their stand-in run cost;
//   - scan: a full scan reads every passage for every kept nugget; an
//     early-stopping one ScanStopShare (ScanStopShareLimited under a
//     per-nugget limit) of each kept nugget's reach, at most all of it;
//   - verify checks VerifiedPerNugget candidates per kept nugget, two
//     calls each, at most k+3 candidates;
//   - assemble asks for the request's facets once, and with the rule
//     FillReport makes a nugget and an extraction (and two checks when
//     verifying) for each sentence the fill may try, as if the report
//     left room (with the rule ChooseSentences too it always draws them:
//     they compete in the choice).
//
// Prompt tokens come from the prompts' sizes, completion tokens from the
// stand-in's answers and the answer lengths above; with the offline
// engine both are 0.
func EstimateCost(in CostInput) CostEstimate {
	s := in.Settings
	kept := len(in.Reach)
	out := CostEstimate{Offline: in.Offline, Passages: in.Passages, Nuggets: kept}
	add := func(c StageCost) {
		if in.Offline {
			c.PromptTokens, c.CompletionTokens = 0, 0
		}
		out.Stages = append(out.Stages, c)
	}
	measured := func(stage string, c CallSizes) {
		add(StageCost{Stage: stage, Calls: c.Calls, PromptTokens: tokens(c.PromptChars),
			CompletionTokens: tokens(c.CompletionChars), Basis: "the offline engine's run of the stage"})
	}
	add(StageCost{Stage: "retrieve", Basis: "BM25: no model call"})
	if s.Reranker != "" {
		measured("rerank", in.Rerank)
	}
	measured("ideate", in.Ideate)
	measured("merge", in.Merge)
	measured("rank", in.Rank)

	scan := StageCost{Stage: "scan"}
	answer := ExtractAnswerChars
	if in.ScanLimit > 0 && !s.FullScan {
		answer = ExtractAnswerCharsLimited
	}
	if s.FullScan {
		scan.Calls = kept * in.Passages
		scan.Basis = "every passage for every kept nugget"
	} else {
		share := ScanStopShare
		if in.ScanLimit > 0 {
			share = ScanStopShareLimited
		}
		reach := 0
		for _, r := range in.Reach {
			reach += r
		}
		scan.Calls = int(math.Round(share * float64(reach)))
		scan.MaxCalls = reach
		scan.Basis = fmt.Sprintf("%.0f%% of the promising passages of each kept nugget", 100*share)
	}
	scan.PromptTokens = scan.Calls * tokens(in.ExtractPromptChars)
	scan.CompletionTokens = tokens(scan.Calls * answer)
	add(scan)

	if s.Verify {
		k := max(s.SentencesPerNugget, 1)
		per := min(VerifiedPerNugget*float64(k), float64(k+1))
		checks := int(math.Round(per * float64(kept)))
		v := StageCost{Stage: "verify", Calls: 2 * checks, MaxCalls: 2 * (k + 3) * kept,
			PromptTokens:     checks * (tokens(in.SupportPromptChars) + tokens(in.CoveragePromptChars)),
			CompletionTokens: 2 * checks * tokens(YesNoAnswerChars),
			Basis:            "support and coverage checks of the best candidates"}
		add(v)
	}
	asm := StageCost{Stage: "assemble", Calls: 1, PromptTokens: tokens(in.FacetsPromptChars),
		CompletionTokens: tokens(FacetsAnswerChars), Basis: "the request's facets"}
	if in.FillTries > 0 {
		per := 2 // a nugget and an extraction per sentence tried
		if s.Verify {
			per += 2
		}
		asm.Calls += per * in.FillTries
		// A sentence whose drawn nugget finds nothing on the subject is
		// asked for as a claim: one more extraction, at most.
		asm.MaxCalls = asm.Calls + in.FillTries
		asm.PromptTokens += in.FillTries * 2 * tokens(in.ExtractPromptChars)
		asm.CompletionTokens += in.FillTries * tokens(ExtractAnswerChars)
		asm.Basis += "; the fill's nuggets and extractions, when the report leaves room"
	}
	add(asm)
	add(StageCost{Stage: "group", Basis: "no model call"})
	return out
}

// Prices turn tokens into money: what an endpoint charges per million
// prompt and per million completion tokens, in Currency ("USD" when
// empty).
type Prices struct {
	PromptPerMillion     float64 `json:"prompt_per_million,omitempty"`
	CompletionPerMillion float64 `json:"completion_per_million,omitempty"`
	Currency             string  `json:"currency,omitempty"`
}

// Set reports whether a price is known.
func (p Prices) Set() bool { return p.PromptPerMillion > 0 || p.CompletionPerMillion > 0 }

// Cost is what the tokens cost.
func (p Prices) Cost(promptTokens, completionTokens int) float64 {
	return (float64(promptTokens)*p.PromptPerMillion + float64(completionTokens)*p.CompletionPerMillion) / 1e6
}

// Format writes an amount with its currency: two decimals, more for
// amounts under a cent ("0.42 USD", "0.0031 USD").
func (p Prices) Format(amount float64) string {
	cur := strings.TrimSpace(p.Currency)
	if cur == "" {
		cur = "USD"
	}
	prec := 2
	if amount != 0 && math.Abs(amount) < 0.01 {
		prec = 4
	}
	return strconv.FormatFloat(amount, 'f', prec, 64) + " " + cur
}
