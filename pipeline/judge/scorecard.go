package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// TopicJudge decides whether a report sentence speaks of its request's
// subject: the on-topic share of a scorecard. Offline and ModelJudge
// implement it. Errors as for Judge.Covers.
type TopicJudge interface {
	OnTopic(ctx context.Context, req pipeline.Request, sentence string) (Verdict, error)
}

// OnTopic implements TopicJudge lexically: the request's subject words
// are the content words of its title and problem statement that are not
// words requests ask with (pipeline.RequestWords, QuestionWords); a
// sentence is on topic when it holds one of the title's, or two of the
// problem statement's. (With hand-written topic terms, eval reports
// --topics measures the same share more exactly.)
func (o Offline) OnTopic(_ context.Context, req pipeline.Request, sentence string) (Verdict, error) {
	title, statement := subjectTerms(req.Title), subjectTerms(req.ProblemStatement)
	sent := contentTerms(sentence)
	var inTitle, inStatement []string
	for _, w := range title.order {
		if sent.set[w] {
			inTitle = append(inTitle, w)
		}
	}
	for _, w := range statement.order {
		if sent.set[w] && !title.set[w] {
			inStatement = append(inStatement, w)
		}
	}
	switch {
	case len(inTitle) > 0:
		return Verdict{Yes: true, Score: 1, Reason: "holds the title's " + quoteList(inTitle)}, nil
	case len(inStatement) >= 2 || (len(title.order) == 0 && len(inStatement) == 1):
		return Verdict{Yes: true, Score: 1, Reason: "holds the problem statement's " + quoteList(inStatement)}, nil
	}
	return Verdict{Reason: "holds none of the title's subject words and fewer than two of the problem statement's"}, nil
}

// asking are the words of pipeline.RequestWords and QuestionWords as the
// offline judge analyses them.
var asking = contentTerms(pipeline.RequestWords + " " + pipeline.QuestionWords)

// subjectTerms are a request text's content words that name a subject.
func subjectTerms(s string) terms {
	all := contentTerms(s)
	out := terms{set: map[string]bool{}}
	for _, w := range all.order {
		if !asking.set[w] {
			out.set[w] = true
			out.order = append(out.order, w)
		}
	}
	return out
}

// OnTopic implements TopicJudge with the prompts.TaskJudgeOnTopic prompt.
func (m ModelJudge) OnTopic(ctx context.Context, req pipeline.Request, sentence string) (Verdict, error) {
	in := prompts.JudgeOnTopicInput{Request: prompts.RequestInfo{ID: req.ID, Title: req.Title, Background: req.Background,
		ProblemStatement: req.ProblemStatement, Limit: req.Limit}, Sentence: sentence}
	v, err := m.ask(ctx, prompts.BuildJudgeOnTopic(in), func(text string) (bool, error) {
		out, err := prompts.ParseJudgeOnTopic(text)
		return out.Yes, err
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("judge whether a sentence is on topic: %w", err)
	}
	return v, nil
}

// Info identifies a judge for scorecards and labels: the offline judge,
// or a model judge's model and endpoint host.
func Info(j Judge) pipeline.JudgeInfo {
	switch v := j.(type) {
	case Offline:
		return pipeline.JudgeInfo{Name: v.Name(), Offline: true}
	case *Offline:
		return pipeline.JudgeInfo{Name: v.Name(), Offline: true}
	case ModelJudge:
		model := v.ModelName
		if model == "" {
			model = v.Label
		}
		return pipeline.JudgeInfo{Name: v.Name(), Model: model, EndpointHost: v.Host}
	}
	return pipeline.JudgeInfo{Name: j.Name()}
}

// Scorer computes reports' scorecards (pipeline.Scorecard) with a judge,
// judging citations against Source.
type Scorer struct {
	Judge  Judge
	Source Source
	// Concurrency bounds the judge's calls in flight (DefaultConcurrency
	// when 0).
	Concurrency int
}

// ScoreInput is a report to score and what else its scorecard reads.
type ScoreInput struct {
	// Report is the report as scored (its current version), with its
	// manifest; Version the version's number (0 without versions).
	Report  pipeline.Report
	Version int
	// GoldSet names the gold set Gold comes from: the report's request's
	// gold nuggets, none when no set has any.
	GoldSet string
	Gold    []Nugget
	// Reviews are the reviewers' verdicts on the version's citations.
	Reviews pipeline.ReviewSummary
	// Now is when the scorecard is computed.
	Now time.Time
}

// Score computes a report's scorecard: nugget recall against the gold
// nuggets when there are some, citation support by the judge (as eval
// reports judges it), the share of on-topic sentences by the judge
// (TopicJudge; a judge without it leaves the share 0), the reviewers'
// verified support, and whether the judge is independent of the report's
// maker (pipeline.Independence).
func (s Scorer) Score(ctx context.Context, in ScoreInput) (pipeline.Scorecard, error) {
	neu := export.NeuCLIR(in.Report, nil)
	gold := make([]Nugget, 0, len(in.Gold))
	for _, n := range in.Gold {
		n.RequestID = neu.RequestID
		gold = append(gold, n)
	}
	ev := Evaluator{Judge: s.Judge, Source: s.Source, Concurrency: s.Concurrency}
	rr, err := ev.EvaluateReport(ctx, neu, gold)
	if err != nil {
		return pipeline.Scorecard{}, err
	}
	info := Info(s.Judge)
	sc := pipeline.Scorecard{
		Version: in.Version, ComputedAt: in.Now.UTC(), Judge: info,
		Independence: pipeline.Independence(info, in.Report.Manifest),
		Sentences:    len(in.Report.Sentences),
		Citations:    rr.Counts.Citations, CitationSupport: rr.Metrics.CitationSupport,
		Undecided: rr.Counts.Undecided, Reviewed: pipeline.ReviewScoreOf(in.Reviews),
	}
	if len(gold) > 0 {
		g := &pipeline.GoldScore{Set: in.GoldSet, Nuggets: rr.Counts.Nuggets, Covered: rr.Counts.Covered,
			Recall: rr.Metrics.NuggetRecall, VitalNuggets: rr.Counts.VitalNuggets}
		if rr.Counts.VitalNuggets > 0 {
			v := rr.Metrics.VitalRecall
			g.VitalRecall = &v
		}
		sc.Gold = g
	}
	if tj, ok := s.Judge.(TopicJudge); ok && len(in.Report.Sentences) > 0 {
		on, undecided, err := s.onTopic(ctx, tj, in.Report)
		if err != nil {
			return pipeline.Scorecard{}, err
		}
		sc.OnTopic = float64(on) / float64(len(in.Report.Sentences))
		sc.Undecided += undecided
	}
	return sc, nil
}

// onTopic counts the report's sentences the judge finds on topic, and
// those it could not decide.
func (s Scorer) onTopic(ctx context.Context, tj TopicJudge, rep pipeline.Report) (on, undecided int, err error) {
	limit := s.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	var mu sync.Mutex
	err = pipeline.ForEach(ctx, len(rep.Sentences), limit, func(ctx context.Context, i int) error {
		v, err := tj.OnTopic(ctx, rep.Request, rep.Sentences[i].Text)
		if err != nil && !errors.Is(err, pipeline.ErrInvalid) {
			return fmt.Errorf("sentence %d: %w", i+1, err)
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			undecided++
		case v.Yes:
			on++
		}
		return nil
	})
	return on, undecided, err
}

// IndependenceOf labels how the judge stands to a report read from a
// file (its crucible.manifest, when it has one): pipeline.Independence.
func IndependenceOf(j Judge, rep export.NeuCLIRReport) string {
	var m *pipeline.Manifest
	if rep.Crucible != nil {
		m = rep.Crucible.Manifest
	}
	return pipeline.Independence(Info(j), m)
}
