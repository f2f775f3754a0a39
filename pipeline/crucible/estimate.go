package crucible

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Estimate is a dry run: it says what a run of req with settings s would
// cost, stage by stage (pipeline.EstimateCost), without a model call. It
// retrieves as the run would; runs the stages before the scan (rerank,
// ideate, merge, rank) with the engine's StandIn answering, counting
// their calls and the characters of their prompts and answers; measures
// the scan's reach — for each kept nugget, how many of the report's
// passages the prefilter finds promising, as the scan orders them —
// and builds the prompts of the later stages to measure them. Without a
// StandIn it fails: the stages before the scan cannot be sized.
//
// With the offline engine as its own stand-in (and its cached model),
// the dry run fills the cache the real run then replays.
func (e *Engine) Estimate(ctx context.Context, req pipeline.Request, s pipeline.Settings) (pipeline.CostEstimate, error) {
	if err := req.Validate(); err != nil {
		return pipeline.CostEstimate{}, err
	}
	if err := s.Validate(); err != nil {
		return pipeline.CostEstimate{}, err
	}
	if e.StandIn == nil {
		return pipeline.CostEstimate{}, pipeline.Invalidf("this engine offers no estimate: it has no stand-in for the model")
	}
	if s.Reranker != "" && e.NewReranker == nil {
		return pipeline.CostEstimate{}, pipeline.Invalidf("reranker %q: this engine offers no reranking", s.Reranker)
	}
	// The dry run's engine: the stand-in's reranker.
	de := *e
	de.NewReranker = e.StandInReranker
	if de.NewReranker == nil && e.Offline {
		de.NewReranker = e.NewReranker
	}
	if s.Reranker != "" && de.NewReranker == nil {
		return pipeline.CostEstimate{}, pipeline.Invalidf("reranker %q: this engine cannot estimate reranking", s.Reranker)
	}
	count := &sizer{next: e.StandIn}
	r := de.newRun(req, s)
	r.model = &meter{next: count}
	if e.Ranker != nil {
		m, err := e.Ranker(ctx, e.Name)
		if err != nil {
			return pipeline.CostEstimate{}, fmt.Errorf("load the trained nugget ranker: %w", err)
		}
		r.ranker = m
	}
	in := pipeline.CostInput{Settings: r.s, Offline: e.Offline, ScanLimit: e.ScanLimit}
	if r.h.FillReport {
		in.FillTries = fillTries
	}
	ret, err := r.retrieve(ctx)
	if err != nil {
		return pipeline.CostEstimate{}, err
	}
	pool := ret
	if r.s.Reranker != "" {
		if ret, pool, err = r.rerank(ctx, ret); err != nil {
			return pipeline.CostEstimate{}, fmt.Errorf("%s (dry run): %w", StageRerank, err)
		}
		in.Rerank = count.take()
	}
	raw, err := r.ideate(ctx, r.scoped(pool))
	if errors.Is(err, pipeline.ErrNotFound) && len(pool) < len(ret) {
		raw, err = r.ideate(ctx, ret)
	}
	if err != nil {
		return pipeline.CostEstimate{}, fmt.Errorf("%s (dry run): %w", StageIdeate, err)
	}
	in.Ideate = count.take()
	canonical, err := r.merge(ctx, raw)
	if err != nil {
		return pipeline.CostEstimate{}, fmt.Errorf("%s (dry run): %w", StageMerge, err)
	}
	in.Merge = count.take()
	kept, err := r.rank(ctx, canonical, raw)
	if err != nil {
		return pipeline.CostEstimate{}, fmt.Errorf("%s (dry run): %w", StageRank, err)
	}
	in.Rank = count.take()
	if err := r.measureScan(ctx, &in, kept, ret); err != nil {
		return pipeline.CostEstimate{}, err
	}
	in.FacetsPromptChars = promptChars(prompts.BuildFacets(prompts.FacetsInput{Request: r.info}))
	est := pipeline.EstimateCost(in)
	est.Documents = len(ret)
	return est, nil
}

// estimateSample is how many of each kept nugget's first passages the
// dry run builds extraction prompts for, to measure their mean size.
const estimateSample = scanBatch

// measureScan records the scan's reach for each kept nugget, the report's
// passages, and the mean size of the prompts of extraction (over each
// nugget's first passages) and verification (over the same passages,
// with a sentence and support of a typical extraction's size).
func (r *run) measureScan(ctx context.Context, in *pipeline.CostInput, kept []pipeline.Nugget, ret []pipeline.RetrievedDoc) error {
	termsOf, err := r.passageTermSets(ctx, ret)
	if err != nil {
		return err
	}
	pool, err := r.newScanPool(ctx, ret, func(p *pipeline.Passage) analysis.Set { return termsOf[p] })
	if err != nil {
		return err
	}
	in.Passages = len(pool.targets)
	in.Reach = make([]int, len(kept))
	var extract, support, coverage, n int
	for i, nug := range kept {
		targets := pool.order(r, nug)
		in.Reach[i] = r.scanReach(targets)
		qa := prompts.QA{Question: nug.Question, Answer: nug.Answer}
		for _, t := range targets[:min(estimateSample, len(targets))] {
			d, err := r.document(ctx, t.p.DocID)
			if err != nil {
				return err
			}
			author, _, err := r.attributedAuthor(ctx, d)
			if err != nil {
				return err
			}
			extract += promptChars(prompts.BuildExtract(prompts.ExtractInput{
				Request: r.info, Nugget: qa, DocID: t.p.DocID, DocTitle: t.title, DocAuthor: author,
				DocDate: d.Metadata["date"], PassageText: t.p.Text,
			}))
			sentence := typicalText(t.p.Text, typicalSentenceChars)
			support += promptChars(prompts.BuildVerifySupport(supportInput(d, sentence, sentence, t.p.Text)))
			coverage += promptChars(prompts.BuildVerifyCoverage(prompts.VerifyCoverageInput{Nugget: qa, Sentence: sentence}))
			n++
		}
	}
	if n > 0 {
		in.ExtractPromptChars, in.SupportPromptChars, in.CoveragePromptChars = extract/n, support/n, coverage/n
	}
	return nil
}

// typicalSentenceChars is the length of a typical extracted sentence,
// for sizing the verification prompts before any is extracted.
const typicalSentenceChars = 220

// typicalText returns the first n characters of text (all of it when
// shorter), standing in for a sentence drawn from it.
func typicalText(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	return string([]rune(text)[:n])
}

// promptChars is the size of a request's messages in characters.
func promptChars(req pipeline.ModelRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
	}
	return n
}

// sizer is the dry run's model: it passes calls to the stand-in and
// counts them with the characters of their prompts and answers.
type sizer struct {
	next pipeline.Model
	mu   sync.Mutex
	c    pipeline.CallSizes
}

func (s *sizer) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	resp, err := s.next.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	s.mu.Lock()
	s.c.Add(pipeline.CallSizes{Calls: 1, PromptChars: promptChars(req), CompletionChars: utf8.RuneCountInString(resp.Text)})
	s.mu.Unlock()
	return resp, nil
}

// take returns the counts since the last take.
func (s *sizer) take() pipeline.CallSizes {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.c
	s.c = pipeline.CallSizes{}
	return c
}
