package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/llm"
)

// capFlags are the caps on a report's model calls, tokens and wall time
// (docs/operations.md, "Caps"): the server's for every job (serve), or a
// batch's for each request (report).
type capFlags struct {
	calls, tokens int
	time          time.Duration
}

// register adds --max-calls, --max-tokens and --max-time; env names the
// environment variables' prefix ("CRUCIBLE_" for serve's defaults, none
// for report), each what they bound in words.
func (c *capFlags) register(fs *flag.FlagSet, env envFunc, prefix, each string) {
	name := func(cap string) string {
		if prefix == "" {
			return ""
		}
		return " (env " + prefix + "MAX_" + map[string]string{"calls": "CALLS", "tokens": "TOKENS", "time": "TIME"}[cap] + ")"
	}
	envOr := func(cap string, def int) int {
		if prefix == "" {
			return def
		}
		return envInt(env, prefix+"MAX_"+map[string]string{"calls": "CALLS", "tokens": "TOKENS"}[cap], def)
	}
	fs.IntVar(&c.calls, "max-calls", envOr("calls", 0), "stop "+each+" after this many model calls, cache hits included; 0: no cap"+name("calls"))
	fs.IntVar(&c.tokens, "max-tokens", envOr("tokens", 0), "stop "+each+" once its calls have spent this many prompt and completion tokens; 0: no cap"+name("tokens"))
	def := time.Duration(0)
	if prefix != "" {
		def = envDuration(env, prefix+"MAX_TIME", 0)
	}
	fs.DurationVar(&c.time, "max-time", def, "stop "+each+" after this much wall time, such as 30m; 0: no cap"+name("time"))
}

// caps are the caps the flags set.
func (c capFlags) caps() (pipeline.Caps, error) {
	cp := pipeline.Caps{Calls: c.calls, Tokens: c.tokens, Time: c.time}
	if err := cp.Check(pipeline.Caps{}); err != nil {
		return cp, fmt.Errorf("%w: %v", errUsage, err)
	}
	return cp, nil
}

// generateFunc makes one report.
type generateFunc func(context.Context, pipeline.Request, pipeline.Settings, crucible.Observer) (pipeline.Report, error)

// cappedGenerate runs each report of eng under caps: its calls and
// tokens counted in front of its model (llm.Capped), its wall time by
// the run's context. A report stopped at a cap fails with the
// *pipeline.CapError, naming the stage the run was in.
func cappedGenerate(eng *crucible.Engine, caps pipeline.Caps) generateFunc {
	if caps.IsZero() {
		return eng.Generate
	}
	return func(ctx context.Context, req pipeline.Request, s pipeline.Settings, obs crucible.Observer) (pipeline.Report, error) {
		budget := pipeline.NewBudget(caps)
		pl := *eng
		pl.Model = llm.Capped{Next: eng.Model, Budget: budget}
		if caps.Time > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, caps.Time, &pipeline.CapError{Cap: pipeline.CapTime, Limit: int64(caps.Time)})
			defer cancel()
		}
		note := &pipeline.StageNote{}
		rep, err := pl.Generate(pipeline.WithStageNote(ctx, note), req, s, stageNoting{obs, note})
		if err == nil {
			return rep, nil
		}
		if c := budget.Reached(); c != nil {
			return rep, c
		}
		if c, ok := context.Cause(ctx).(*pipeline.CapError); ok && c != nil {
			cp := *c
			cp.Stage = note.Stage()
			return rep, &cp
		}
		return rep, err
	}
}

// stageNoting passes a run's progress on and notes its stage for the
// model calls' caps.
type stageNoting struct {
	crucible.Observer
	note *pipeline.StageNote
}

func (o stageNoting) Progress(p pipeline.Progress) {
	o.note.Set(p.Stage)
	if o.Observer != nil {
		o.Observer.Progress(p)
	}
}

func (o stageNoting) Retrieved(ctx context.Context, d []pipeline.RetrievedDoc) error {
	if o.Observer == nil {
		return nil
	}
	return o.Observer.Retrieved(ctx, d)
}

func (o stageNoting) Nuggets(ctx context.Context, n []pipeline.Nugget) error {
	if o.Observer == nil {
		return nil
	}
	return o.Observer.Nuggets(ctx, n)
}

func (o stageNoting) Candidates(ctx context.Context, c []pipeline.Candidate) error {
	if o.Observer == nil {
		return nil
	}
	return o.Observer.Candidates(ctx, c)
}

// writeEstimate prints a dry run's estimate as a table by stage, with the
// money the tokens cost when prices are known.
func writeEstimate(w io.Writer, id, engine string, est pipeline.CostEstimate, prices pipeline.Prices) error {
	fmt.Fprintf(w, "%s: estimate with the %s: %s documents, %s passages, %d nuggets kept\n",
		id, engine, pipeline.Thousands(est.Documents), pipeline.Thousands(est.Passages), est.Nuggets)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	money := prices.Set() && !est.Offline
	head := "stage\tcalls\tat most\t"
	if !est.Offline {
		head += "prompt tokens\tcompletion tokens\t"
	}
	if money {
		head += "cost\t"
	}
	fmt.Fprintln(tw, head)
	row := func(s pipeline.StageCost) {
		most := ""
		if s.MaxCalls > 0 {
			most = pipeline.Thousands(s.MaxCalls)
		}
		line := s.Stage + "\t" + pipeline.Thousands(s.Calls) + "\t" + most + "\t"
		if !est.Offline {
			line += pipeline.Thousands(s.PromptTokens) + "\t" + pipeline.Thousands(s.CompletionTokens) + "\t"
		}
		if money {
			line += prices.Format(prices.Cost(s.PromptTokens, s.CompletionTokens)) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	for _, s := range est.Stages {
		row(s)
	}
	row(est.Total())
	if err := tw.Flush(); err != nil {
		return err
	}
	if est.Offline {
		fmt.Fprintln(w, "  the offline engine's calls are tasks: it spends no tokens")
	}
	return nil
}
