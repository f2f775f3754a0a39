package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/eval"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/pipeline/llm"
)

// cmdEval measures retrieval runs and reports against gold judgements.
func cmdEval(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: crucible eval retrieval|reports [flags]")
		return fmt.Errorf("%w: eval needs retrieval or reports", errUsage)
	}
	switch args[0] {
	case "retrieval":
		return cmdEvalRetrieval(args[1:], stdout, stderr)
	case "reports":
		return cmdEvalReports(ctx, args[1:], env, stdout, stderr)
	default:
		return fmt.Errorf("%w: unknown eval kind %q (retrieval or reports)", errUsage, args[0])
	}
}

// cmdEvalRetrieval scores a TREC run: trec_eval's measures from qrels and,
// with nugget judgements, alpha-nDCG@k and coverage@k.
func cmdEvalRetrieval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval retrieval", stderr)
	qrelsPath := fs.String("qrels", "", "TREC qrels `file` (qid 0 docid grade)")
	nuggetsPath := fs.String("nugget-qrels", "", "nugget judgements `file`: lines \"qid nugget_id docid grade\", or JSON Lines nuggets with \"docids\" (as summhay-news's nuggets.jsonl)")
	runPath := fs.String("run", "", "TREC run `file` to score")
	ks := fs.String("k", "10,20,100", "comma-separated cutoffs")
	alpha := fs.Float64("alpha", eval.DefaultAlpha, "alpha of alpha-nDCG, in (0, 1]")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	perQuery := fs.Bool("per-query", false, "also print each query's values")
	byRank := fs.Bool("by-rank", false, "order each query's documents by the run's rank column (ndeval's default) instead of by score (trec_eval's)")
	complete := fs.Bool("complete", false, "average over every judged query, a query missing from the run scoring 0 (trec_eval -c)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible eval retrieval --qrels Q [--nugget-qrels NQ] --run R [--k 10,20,100] [--json]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runPath == "" || (*qrelsPath == "" && *nuggetsPath == "") {
		fs.Usage()
		return fmt.Errorf("%w: eval retrieval needs --run and --qrels (or --nugget-qrels)", errUsage)
	}
	cutoffs, err := parseCutoffs(*ks)
	if err != nil {
		return fmt.Errorf("%w: --k: %v", errUsage, err)
	}
	run, err := eval.ReadRunFile(*runPath)
	if err != nil {
		return err
	}
	opts := eval.Options{Ks: cutoffs, Complete: *complete, ByRank: *byRank}
	var qrels eval.Qrels
	if *qrelsPath != "" {
		if qrels, err = eval.ReadQrelsFile(*qrelsPath); err != nil {
			return err
		}
	}
	if *nuggetsPath != "" {
		if opts.Nuggets, err = readNuggetJudgements(*nuggetsPath); err != nil {
			return err
		}
		opts.Alpha = *alpha
		if qrels == nil {
			// Graded by the number of nuggets a document covers.
			qrels = opts.Nuggets.Qrels()
		}
	}
	res, err := eval.Evaluate(qrels, run, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if err := res.WriteTable(stdout, *perQuery); err != nil {
		return err
	}
	printLeftOut(stderr, "judged queries with no results in the run (not averaged)", res.Missing, *complete)
	printLeftOut(stderr, "queries in the run without judgements (not averaged)", res.Unjudged, false)
	for _, m := range res.Measures {
		if q := res.Undefined[m]; len(q) > 0 {
			printLeftOut(stderr, m+" is undefined for (no nugget judgements; not averaged)", q, false)
		}
	}
	return nil
}

// printLeftOut notes on stderr which queries an evaluation left out.
func printLeftOut(w io.Writer, what string, ids []string, skip bool) {
	if len(ids) == 0 || skip {
		return
	}
	shown := ids
	if len(shown) > 10 {
		shown = shown[:10]
	}
	more := ""
	if len(ids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	fmt.Fprintf(w, "%d %s: %s%s\n", len(ids), what, strings.Join(shown, " "), more)
}

// readNuggetJudgements reads nugget judgements as lines "qid nugget_id
// docid grade", or, when the file's first non-blank character is "{", as
// JSON Lines gold nuggets whose "docids" list the documents covering them
// (summhay-news's nuggets.jsonl).
func readNuggetJudgements(path string) (eval.NuggetQrels, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if first := bytes.TrimLeft(b, " \t\r\n"); len(first) == 0 || first[0] != '{' {
		return eval.ReadNuggetQrels(bytes.NewReader(b), path)
	}
	nuggets, err := judge.ReadNuggets(bytes.NewReader(b), path)
	if err != nil {
		return nil, err
	}
	nq := eval.NuggetQrels{}
	for _, n := range nuggets {
		if len(n.DocIDs) == 0 {
			return nil, fmt.Errorf("%s: nugget %q of request %q lists no \"docids\": nugget judgements need the documents that cover each nugget", path, n.ID, n.RequestID)
		}
		if err := nq.AddNugget(n.RequestID, n.ID, n.DocIDs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return nq, nil
}

// parseCutoffs reads "10,20,100".
func parseCutoffs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k <= 0 {
			return nil, fmt.Errorf("cutoff %q is not a positive whole number", f)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cutoff given")
	}
	return out, nil
}

// cmdEvalReports scores NeuCLIR-format reports against gold nuggets.
func cmdEvalReports(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval reports", stderr)
	var c commonFlags
	c.register(fs, env)
	var m modelFlags
	m.register(fs, env)
	requests := fs.String("requests", "", "JSON Lines `file` of the requests the reports answer: only these are scored (ids without gold nuggets, and gold requests not in it, are listed, not scored)")
	nuggetsPath := fs.String("nuggets", "", "JSON Lines gold nuggets `file`: {\"request_id\",\"nugget_id\",\"question\",\"answers\":[...],\"importance\"} or claims with \"text\"")
	reportsDir := fs.String("reports", "", "`folder or file` of reports: as crucible report writes them, or any system's run in the NeuCLIR 2024, RAGTIME 2025 or TREC RAG 2024/2025 format (JSON, or JSON Lines of many reports)")
	topicsPath := fs.String("topics", "", "JSON Lines `file` of topic terms per request, {\"request_id\",\"terms\":[...]}: adds the share of on-topic sentences (docs/evaluation.md)")
	var judgedPaths []string
	fs.Func("judged", "JSON Lines `file` of sentences a reader judged on topic or not, {\"request_id\",\"text\",\"on_topic_judge\"} (testdata/eval/judged); may be repeated: adds the share of the judged report sentences on topic (docs/evaluation.md)", func(v string) error {
		judgedPaths = append(judgedPaths, v)
		return nil
	})
	judgeName := fs.String("judge", "", "judge: offline (answer matching, content-word overlap) or model (yes/no prompts to --judge-model-url, else to --model-url); default: model with --judge-model-url, else offline")
	var jf judgeFlags
	jf.register(fs, env)
	asJSON := fs.Bool("json", false, "print the results as JSON")
	details := fs.Bool("details", false, "also print, per request, which sentence covered which nugget and each citation's verdict")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible eval reports --data DIR --requests FILE --nuggets FILE --reports DIR|FILE [--topics FILE] [--judged FILE ...] [--judge offline|model] [--judge-model-url URL --judge-model NAME] [--json]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *nuggetsPath == "" || *reportsDir == "" {
		fs.Usage()
		return fmt.Errorf("%w: eval reports needs --nuggets and --reports", errUsage)
	}
	gold, err := judge.ReadNuggetsFile(*nuggetsPath)
	if err != nil {
		return err
	}
	reports, err := judge.ReadReportsPath(*reportsDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "read %d report(s) from %s (%s)\n", len(reports), *reportsDir, formatsRead(reports))
	var topics *judge.Topics
	if *topicsPath != "" {
		if topics, err = judge.ReadTopicsFile(*topicsPath); err != nil {
			return err
		}
	}
	var judged *judge.Judged
	if len(judgedPaths) > 0 {
		if judged, err = judge.ReadJudgedFiles(judgedPaths...); err != nil {
			return err
		}
	}
	var ids []string // nil: score every request with gold nuggets
	if *requests != "" {
		if ids, err = requestIDs(ctx, *requests, stderr); err != nil {
			return err
		}
	}
	logger, _ := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	a, err := openApp(ctx, c)
	if err != nil {
		return err
	}
	defer a.Close()
	if jf.url == "" && jf.model != "" {
		return fmt.Errorf("%w: --judge-model needs --judge-model-url (or CRUCIBLE_JUDGE_MODEL_URL)", errUsage)
	}
	var j judge.Judge
	if *judgeName == "" {
		*judgeName = "offline"
		if jf.url != "" {
			*judgeName = "model"
		}
	}
	switch *judgeName {
	case "offline":
		j = judge.Offline{}
	case "model":
		// The judge's own endpoint; else, as before there was one, the
		// generator's (its scores of its own reports are self-judged).
		client, err := jf.client(m, logger)
		if err == nil && client == nil {
			if m.url == "" {
				return fmt.Errorf("%w: --judge model needs --model-url and --model (or OPENAI_BASE_URL and CRUCIBLE_MODEL), or a judge of its own: --judge-model-url and --judge-model", errUsage)
			}
			client, err = m.client(logger)
		}
		if err != nil {
			return err
		}
		if err := client.Check(ctx); err != nil {
			return err
		}
		j = modelJudge(client, a.db)
	default:
		return fmt.Errorf("%w: unknown --judge %q (offline or model)", errUsage, *judgeName)
	}
	ev := &judge.Evaluator{Judge: j, Source: a.db, Topics: topics, Judged: judged}
	res, err := ev.Evaluate(ctx, gold, reports, ids)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if err := judge.WriteTable(stdout, res); err != nil {
		return err
	}
	if *details {
		for _, rr := range res.Requests {
			fmt.Fprintln(stdout)
			if err := judge.WriteReport(stdout, rr); err != nil {
				return err
			}
		}
	}
	printLeftOut(stderr, "requests with gold nuggets but no report (scored 0)", res.Missing, false)
	printLeftOut(stderr, "requests without gold nuggets (not scored)", res.Unjudged, false)
	printLeftOut(stderr, "requests with gold nuggets but not in --requests (not scored)", res.NotRequested, false)
	if tp := res.Topics; tp != nil {
		printLeftOut(stderr, "scored requests without topic terms (on-topic not averaged)", tp.NoTopics, false)
		printLeftOut(stderr, "requests in --topics that were not scored (terms ignored)", tp.Unused, false)
	}
	return nil
}

// requestIDs reads the request ids of a requests file, reporting bad
// lines by FILE:LINE. The list is not nil, even for a file without
// requests.
func requestIDs(ctx context.Context, path string, stderr io.Writer) ([]string, error) {
	ids := []string{}
	_, bad, err := eachLine(ctx, path, stderr, func(raw []byte) error {
		var l struct {
			RequestID json.RawMessage `json:"request_id"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("invalid JSON: %v", err)
		}
		id := strings.Trim(string(l.RequestID), `"`)
		if id == "" || id == "null" {
			return fmt.Errorf(`missing "request_id"`)
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if bad > 0 {
		return nil, fmt.Errorf("%s: %d bad line(s) (see above)", path, bad)
	}
	return ids, nil
}

// formatsRead names the formats of the reports read ("RAGTIME 2025").
func formatsRead(reports map[string]export.NeuCLIRReport) string {
	var names []string
	for _, f := range export.Formats() {
		for _, r := range reports {
			if r.Format == f.ID {
				names = append(names, f.Label)
				break
			}
		}
	}
	if len(names) == 0 {
		return "no reports"
	}
	return strings.Join(names, ", ")
}

// judgeFlags configure a judge model at its own endpoint, apart from the
// model that writes reports: its scores of a report are then independent
// (pipeline.Independence). The key comes from its own variable.
type judgeFlags struct {
	url, key, model string
}

func (j *judgeFlags) register(fs *flag.FlagSet, env envFunc) {
	fs.StringVar(&j.url, "judge-model-url", env.get("CRUCIBLE_JUDGE_MODEL_URL", ""), "base `URL` of the OpenAI-compatible endpoint of a judge model apart from the generator (env CRUCIBLE_JUDGE_MODEL_URL); empty: the offline judge")
	fs.StringVar(&j.key, "judge-model-key", env.get("CRUCIBLE_JUDGE_API_KEY", ""), "API key of the judge's endpoint (env CRUCIBLE_JUDGE_API_KEY)")
	fs.StringVar(&j.model, "judge-model", env.get("CRUCIBLE_JUDGE_MODEL", ""), "the judge model's `name` (env CRUCIBLE_JUDGE_MODEL)")
}

// client builds the judge's client with m's timeout, concurrency and
// retries; nil, nil when no judge endpoint is set.
func (j judgeFlags) client(m modelFlags, logger *slog.Logger) (*llm.OpenAI, error) {
	if j.url == "" {
		if j.model != "" {
			return nil, fmt.Errorf("%w: --judge-model needs --judge-model-url (or CRUCIBLE_JUDGE_MODEL_URL)", errUsage)
		}
		return nil, nil
	}
	if j.model == "" {
		return nil, fmt.Errorf("%w: --judge-model-url is set but no --judge-model (or CRUCIBLE_JUDGE_MODEL) names the judge's model", errUsage)
	}
	m.url, m.key, m.model = j.url, j.key, j.model
	return m.client(logger)
}

// modelJudge is the model judge of a client, its calls through the
// cache, named by its model and endpoint host.
func modelJudge(client *llm.OpenAI, store llm.CacheStore) judge.ModelJudge {
	f := client.Facts()
	return judge.ModelJudge{Model: llm.Cached{Next: client, Store: store, Namespace: client.Name()}, Label: client.Name(),
		ModelName: f.Model, Host: f.EndpointHost}
}
