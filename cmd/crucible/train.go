package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/judge"
)

// cmdTrain trains a model from labelled data; today the nugget ranker.
func cmdTrain(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "ranker" {
		fmt.Fprintln(stderr, "usage: crucible train ranker --data DIR --requests R --nuggets GOLD [--engine offline|openai]")
		if len(args) == 0 {
			return fmt.Errorf("%w: train needs ranker", errUsage)
		}
		return fmt.Errorf("%w: unknown train kind %q (ranker)", errUsage, args[0])
	}
	return cmdTrainRanker(ctx, args[1:], env, stdout, stderr)
}

// listFlag collects a repeated flag's values.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// errStopAfterRank ends a training run once its nuggets are ranked: the
// labels need nothing after.
var errStopAfterRank = errors.New("stop after ranking")

// rankObserver keeps a run's nuggets and stops it after the rank stage.
type rankObserver struct{ nuggets []pipeline.Nugget }

func (o *rankObserver) Progress(pipeline.Progress) {}
func (o *rankObserver) Retrieved(context.Context, []pipeline.RetrievedDoc) error {
	return nil
}
func (o *rankObserver) Nuggets(_ context.Context, all []pipeline.Nugget) error {
	o.nuggets = all
	return errStopAfterRank
}
func (o *rankObserver) Candidates(context.Context, []pipeline.Candidate) error { return nil }

// cmdTrainRanker runs the engine's pipeline up to nugget ranking for every
// request of each --requests file, labels the ranked (distinct) nuggets
// against the gold nuggets of the --nuggets file given with it, trains
// the nugget ranker (pipeline.TrainRanker), reports its
// leave-one-request-out figures, and stores it as the engine's active
// ranker (unless --dry-run or --no-activate).
func cmdTrainRanker(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("train ranker", stderr)
	var c commonFlags
	c.register(fs, env)
	var m modelFlags
	m.register(fs, env)
	var requests, nuggets listFlag
	fs.Var(&requests, "requests", "JSON Lines `file` of requests (repeat, each with its --nuggets)")
	fs.Var(&nuggets, "nuggets", "gold nuggets `file` of the --requests before it (as for eval reports)")
	engineID := fs.String("engine", "offline", "engine whose features are learned: offline or openai")
	dryRun := fs.Bool("dry-run", false, "print the figures and weights, store nothing")
	noActivate := fs.Bool("no-activate", false, "store the ranker without making it the engine's active one")
	list := fs.Bool("list", false, "list the stored rankers and which is active, and exit")
	use := fs.Int64("use", 0, "make the stored ranker with this `id` its engine's active one, and exit")
	stop := fs.Int64("stop", 0, "stop using the stored ranker with this `id` (its engine goes back to the default weights), and exit")
	fromReports := fs.Bool("from-reports", false, "also label the nuggets of this data folder's reports by the engine from what analysts and reviewers did: pinned nuggets and those of sentences reviewers marked supported are positive, removed ones negative")
	k := fs.Int("k", pipeline.DefaultSettings().KeepNuggets, "top-K cut of the cross-validation figures (the nuggets a report keeps)")
	featureList := fs.String("features", "", "comma-separated `names` of the features to learn from (default: all of "+strings.Join(pipeline.RankerFeatures, ",")+")")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible train ranker --data DIR [--requests R --nuggets GOLD ...] [--from-reports] [--engine offline|openai] [--features a,b,...] [--dry-run] [--no-activate]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *list || *use != 0 || *stop != 0 {
		return manageRankers(ctx, c, *list, *use, *stop, stdout)
	}
	if len(requests) != len(nuggets) || len(requests) == 0 && !*fromReports {
		fs.Usage()
		return fmt.Errorf("%w: train ranker needs --requests and --nuggets, one gold file for each requests file (got %d and %d), or --from-reports", errUsage, len(requests), len(nuggets))
	}
	if *k < 1 {
		return fmt.Errorf("%w: --k is %d; it must be at least 1", errUsage, *k)
	}
	opts, err := trainFeatures(*featureList)
	if err != nil {
		return err
	}
	logger, _ := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	a, eng, err := openEngine(ctx, c, m, *engineID, logger, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	if eng.Check != nil {
		if err := eng.Check(ctx); err != nil {
			return err
		}
	}
	var examples []pipeline.LabelledNugget
	var sources []string
	var nreq int
	for i := range requests {
		gold, err := judge.ReadNuggetsFile(nuggets[i])
		if err != nil {
			return err
		}
		byReq := judge.ByRequest(gold)
		before, reqs := len(examples), 0
		ok, bad, err := eachLine(ctx, requests[i], stderr, func(raw []byte) error {
			req, _, err := parseRequest(raw)
			if err != nil {
				return err
			}
			g := byReq[req.ID]
			if len(g) == 0 {
				fmt.Fprintf(stderr, "%s: no gold nuggets in %s; not used\n", req.ID, nuggets[i])
				return nil
			}
			ex, err := labelledNuggets(ctx, eng.Pipeline, req, g)
			if err != nil {
				return fmt.Errorf("%s: %w", req.ID, err)
			}
			examples = append(examples, ex...)
			reqs++
			return nil
		})
		if err != nil {
			return err
		}
		if bad > 0 {
			return fmt.Errorf("%s: %d of %d request(s) failed; nothing was trained", requests[i], bad, ok+bad)
		}
		nreq += reqs
		pos := 0
		for _, e := range examples[before:] {
			if e.Positive {
				pos++
			}
		}
		sources = append(sources, fmt.Sprintf("%s + %s (%d requests, %d nuggets, %d positive)",
			filepath.Base(requests[i]), filepath.Base(nuggets[i]), reqs, len(examples)-before, pos))
	}
	if *fromReports {
		ex, reports, err := reportLabels(ctx, a, *engineID)
		if err != nil {
			return err
		}
		pos := 0
		for _, e := range ex {
			if e.Positive {
				pos++
			}
		}
		fmt.Fprintf(stderr, "from reports: %d nuggets labelled by analysts and reviewers in %d report(s), %d positive\n", len(ex), reports, pos)
		if len(ex) > 0 {
			examples = append(examples, ex...)
			nreq += reports
			sources = append(sources, fmt.Sprintf("analysts' and reviewers' judgements (%d reports, %d nuggets, %d positive)", reports, len(ex), pos))
		}
	}
	if len(examples) == 0 {
		return fmt.Errorf("no labelled nuggets: no gold request matched, and no report by the %s engine has pinned, removed or reviewed nuggets; nothing was trained", *engineID)
	}
	model, err := pipeline.TrainRanker(examples, opts)
	if err != nil {
		return fmt.Errorf("train ranker on %d nuggets of %d requests: %w", len(examples), nreq, err)
	}
	model.Engine = eng.Pipeline.Name
	model.TrainedOn = strings.Join(sources, "; ")
	if nreq >= 2 {
		cv, err := pipeline.CrossValidateRanker(examples, opts, *k)
		if err != nil {
			return fmt.Errorf("cross-validate the ranker: %w", err)
		}
		model.CV = &cv
	}
	printRanker(stdout, model)
	if *dryRun {
		fmt.Fprintln(stdout, "dry run: nothing stored")
		return nil
	}
	id, err := a.db.SaveRanker(ctx, model, !*noActivate)
	if err != nil {
		return err
	}
	if *noActivate {
		fmt.Fprintf(stdout, "stored ranker %d for the %s, not active (crucible train ranker --use %d makes it so)\n", id, model.Engine, id)
	} else {
		fmt.Fprintf(stdout, "stored ranker %d; the %s ranks nuggets with it from now on\n", id, model.Engine)
	}
	return nil
}

// reportLabels labels the nuggets of the data folder's finished reports
// made by the engine (its id) from their current versions and reviews
// (pipeline.AnalystLabels), one cross-validation group per report. It
// returns the labels and the number of reports that gave any.
func reportLabels(ctx context.Context, a *app, engineID string) ([]pipeline.LabelledNugget, int, error) {
	jobs, err := a.db.Jobs(ctx, maxLabelledJobs)
	if err != nil {
		return nil, 0, err
	}
	var out []pipeline.LabelledNugget
	reports := 0
	for _, j := range jobs {
		if j.ReportID == 0 || j.Engine != engineID {
			continue
		}
		cur, err := a.db.CurrentVersion(ctx, j.ReportID)
		if errors.Is(err, pipeline.ErrNotFound) {
			continue // never opened for authoring: nobody judged it
		}
		if err != nil {
			return nil, 0, err
		}
		generated, err := a.db.Nuggets(ctx, j.ID)
		if err != nil {
			return nil, 0, err
		}
		reviews, err := a.db.Reviews(ctx, j.ReportID)
		if err != nil {
			return nil, 0, err
		}
		ex := pipeline.AnalystLabels(fmt.Sprintf("report-%d", j.ReportID), generated, cur.Draft, reviews)
		if len(ex) > 0 {
			out = append(out, ex...)
			reports++
		}
	}
	return out, reports, nil
}

// maxLabelledJobs bounds the jobs reportLabels looks at, newest first.
const maxLabelledJobs = 100000

// manageRankers lists the stored rankers, or makes one active or stops
// using it.
func manageRankers(ctx context.Context, c commonFlags, list bool, use, stop int64, stdout io.Writer) error {
	db, err := openUserDB(ctx, c.data, false)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case use != 0:
		if err := db.SetRankerActive(ctx, use, true); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ranker %d is now its engine's active ranker\n", use)
	case stop != 0:
		if err := db.SetRankerActive(ctx, stop, false); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ranker %d is no longer used; its engine ranks by the default weights unless another is made active\n", stop)
	}
	if !list {
		return nil
	}
	all, err := db.Rankers(ctx)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no trained rankers; every engine ranks by the default weights")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tengine\tactive\tcreated\tLOO balanced accuracy\ttrained on")
	for _, m := range all {
		acc := "-"
		if m.CV != nil {
			acc = fmt.Sprintf("%.3f", m.CV.BalancedAccuracy)
		}
		active := ""
		if m.Active {
			active = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Engine, active, m.CreatedAt.Format("2006-01-02 15:04"), acc, m.TrainedOn)
	}
	return tw.Flush()
}

// labelledNuggets runs the pipeline for one request up to nugget ranking
// and labels its distinct nuggets (those ranking scored): positive when
// the nugget's question and answer cover one of the request's gold
// nuggets (the offline judge's rule: an answer of the gold nugget is in
// them, or a claim's words are) and, when the gold nugget names the
// documents holding it, the nugget was drawn from one of them.
func labelledNuggets(ctx context.Context, eng *crucible.Engine, req pipeline.Request, gold []judge.Nugget) ([]pipeline.LabelledNugget, error) {
	obs := &rankObserver{}
	_, err := eng.Generate(ctx, req, pipeline.DefaultSettings(), obs)
	if err != nil && !errors.Is(err, errStopAfterRank) {
		return nil, err
	}
	if obs.nuggets == nil {
		return nil, fmt.Errorf("the run ended before ranking its nuggets: %v", err)
	}
	var out []pipeline.LabelledNugget
	var j judge.Offline
	for _, n := range obs.nuggets {
		if len(n.Features) == 0 {
			continue // merged into a distinct nugget: not scored
		}
		pos := false
		for _, g := range gold {
			v, err := j.Covers(ctx, g, n.Question+" "+n.Answer)
			if err != nil {
				return nil, err
			}
			if v.Yes && drawnFrom(n, g) {
				pos = true
				break
			}
		}
		out = append(out, pipeline.LabelledNugget{Group: req.ID, Features: n.Features, Positive: pos})
	}
	return out, nil
}

// drawnFrom reports whether a nugget was drawn from a document the gold
// nugget names (true when it names none).
func drawnFrom(n pipeline.Nugget, g judge.Nugget) bool {
	if len(g.DocIDs) == 0 {
		return true
	}
	for _, s := range n.Sources {
		for _, d := range g.DocIDs {
			if s == d {
				return true
			}
		}
	}
	return false
}

// printRanker writes a trained ranker's counts, cross-validation figures
// and weights.
func printRanker(w io.Writer, m pipeline.RankerModel) {
	fmt.Fprintf(w, "nugget ranker for the %s: %d labelled nuggets, %d positive\n", m.Engine, m.Examples, m.Positives)
	fmt.Fprintf(w, "trained on: %s\n", m.TrainedOn)
	if cv := m.CV; cv != nil {
		fmt.Fprintf(w, "leave-one-request-out over %d requests: accuracy %.3f, balanced accuracy %.3f; positives in each request's top %d: %.2f trained, %.2f default weights\n",
			cv.Requests, cv.Accuracy, cv.BalancedAccuracy, cv.K, cv.TopK, cv.BaselineTopK)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "feature\tweight (per standard deviation)\tmean\tdeviation")
	for i, f := range m.Features {
		fmt.Fprintf(tw, "%s\t%+.3f\t%.3f\t%.3f\n", f, m.Weights[i], m.Mean[i], m.Std[i])
	}
	fmt.Fprintf(tw, "(bias)\t%+.3f\t\t\n", m.Bias)
	tw.Flush()
}

// trainFeatures reads --features: names of pipeline.RankerFeatures, each
// once; empty means all of them.
func trainFeatures(list string) (pipeline.TrainOptions, error) {
	var o pipeline.TrainOptions
	if strings.TrimSpace(list) == "" {
		return o, nil
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(pipeline.RankerFeatures, name) {
			return o, fmt.Errorf("%w: --features names %q, which is no nugget feature; the features are %s", errUsage, name, strings.Join(pipeline.RankerFeatures, ", "))
		}
		if seen[name] {
			return o, fmt.Errorf("%w: --features names %q twice", errUsage, name)
		}
		seen[name] = true
		o.Features = append(o.Features, name)
	}
	return o, nil
}
