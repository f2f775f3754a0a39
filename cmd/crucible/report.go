package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// requestLine is one line of a NeuCLIR-style requests file.
type requestLine struct {
	RequestID        json.RawMessage `json:"request_id"`
	Title            string          `json:"title"`
	Background       string          `json:"background"`
	ProblemStatement string          `json:"problem_statement"`
	Limit            *int            `json:"limit"`
	CollectionIDs    []string        `json:"collection_ids"`
}

func cmdReport(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	var c commonFlags
	c.register(fs, env)
	var m modelFlags
	m.register(fs, env)
	requests := fs.String("requests", "", "JSON Lines `file` of NeuCLIR-style requests {request_id,title,background,problem_statement,limit}")
	out := fs.String("out", "", "output `folder` for one file per request (<request_id>.json, or .jsonl in a TREC format), or a run file ending in .jsonl that holds every report, one per line")
	formatName := fs.String("format", "neuclir", "report format: "+strings.Join(export.FormatNames(), ", ")+" (docs/formats.md)")
	teamID := fs.String("team-id", env.get("CRUCIBLE_TEAM_ID", export.DefaultTeamID), "team id the RAGTIME and RAG 2025 formats name (env CRUCIBLE_TEAM_ID)")
	engineID := fs.String("engine", "offline", "engine: offline or openai")
	verify := fs.Bool("verify", false, "run the support and coverage checks (Crucible-Verified)")
	markdown := fs.Bool("markdown", false, "also write <request_id>.md")
	baseline := fs.String("baseline", "", "write a baseline report instead of running the pipeline: lead (the best-matching BM25 sentences, no model)")
	choices := fs.String("choices", "", "also write to this JSON Lines `file` every candidate assembly chose the report's sentences from, with its features and score (the engine's sentence choice on): what testdata/eval/fit_choice.py refits that choice on")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the reports (not of opening the data folder) to this `file`")
	dryRun := fs.Bool("dry-run", false, "write no report: estimate each request's model calls and tokens per stage (and their price, with --price-prompt and --price-completion) from its retrieval, without a model call")
	var cf capFlags
	cf.register(fs, env, "", "each report")
	s := pipeline.DefaultSettings()
	fs.IntVar(&s.Retrieve, "retrieve", s.Retrieve, "documents retrieved (N)")
	fs.IntVar(&s.IdeationDocs, "ideation-docs", s.IdeationDocs, "documents nuggets are drawn from (D)")
	fs.IntVar(&s.KeepNuggets, "keep-nuggets", s.KeepNuggets, "nuggets kept after ranking")
	fs.StringVar(&s.Reranker, "reranker", s.Reranker, "rerank the retrieved documents before ideation: "+strings.Join(rerank.Methods(), ", ")+" (default: none)")
	fs.IntVar(&s.ScanCandidates, "scan-candidates", s.ScanCandidates, "stop scanning a nugget once this many candidates state its answer with the threshold's confidence")
	fs.Float64Var(&s.ConfidenceThreshold, "confidence-threshold", s.ConfidenceThreshold, "the confidence a candidate needs to count towards stopping, 0 to 1; 0 sets it from the run's own confidences")
	fs.BoolVar(&s.FullScan, "full-scan", s.FullScan, "read every passage of the report's documents for every kept nugget, with no early stopping (the papers' schedule; many more model calls)")
	fs.Var(switchFlag{&s.PreferPeriod}, "prefer-period", "on or off: add and favour the documents dated in a period the request names (default: the engine's; docs/pipeline.md)")
	fs.Var(switchFlag{&s.PassageScores}, "passage-scores", "on or off: score a document by its best three passages, not its best one (default: the engine's)")
	fs.Var(switchFlag{&s.BestPassage}, "best-passage", "on or off: with --reranker, prompts show each document's best passage instead of its opening (default: the engine's)")
	fs.Var(switchFlag{&s.ChooseSentences}, "choose-sentences", "on or off: assembly chooses sentences across nuggets by how likely each is to state a wanted fact for its length, not each nugget's most confident in rank order (default: the engine's)")
	fs.Var(switchFlag{&s.FacetNuggets}, "facet-nuggets", "on or off: draw nuggets from the two best passages for each facet of the request too, and keep them all (default: the engine's)")
	fs.Var(switchFlag{&s.FillReport}, "fill-report", "on or off: fill the room the nuggets' sentences leave with sentences of the best passages that share most of the request's words, each with a nugget of its own (default: the engine's)")
	fs.Var(switchFlag{&s.SpreadSources}, "spread-sources", "on or off: keep at most two nuggets of one document before the others have their turn (default: the engine's)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible report --data DIR --requests FILE.jsonl --out DIR|RUN.jsonl [--format neuclir|ragtime|rag24|rag25] [--engine offline|openai] [--verify] [--baseline lead] [--max-calls N] [--max-tokens N] [--max-time D]")
		fmt.Fprintln(stderr, "       crucible report --data DIR --requests FILE.jsonl --dry-run [--engine offline|openai] [settings]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *requests == "" || (*out == "" && !*dryRun) {
		fs.Usage()
		return fmt.Errorf("%w: report needs --requests and --out", errUsage)
	}
	caps, err := cf.caps()
	if err != nil {
		return err
	}
	if *dryRun && *baseline != "" {
		return fmt.Errorf("%w: --dry-run estimates the pipeline's calls; the %s baseline makes none", errUsage, *baseline)
	}
	if *dryRun {
		return dryRunReports(ctx, c, m, *engineID, *requests, s, env, stdout, stderr)
	}
	format, err := export.ParseFormat(*formatName)
	if err != nil {
		return fmt.Errorf("%w: --format: %v", errUsage, err)
	}
	runFile := strings.EqualFold(filepath.Ext(*out), ".jsonl")
	if runFile && *markdown {
		return fmt.Errorf("%w: --markdown writes a file per request: give --out a folder, not the run file %s", errUsage, *out)
	}
	if s.Reranker != "" && !slices.Contains(rerank.Methods(), s.Reranker) {
		return fmt.Errorf("%w: unknown --reranker %q (%s)", errUsage, s.Reranker, strings.Join(rerank.Methods(), ", "))
	}
	switch *baseline {
	case "", "lead":
	default:
		return fmt.Errorf("%w: unknown --baseline %q (the baseline is lead)", errUsage, *baseline)
	}
	s.Verify = *verify
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	logger, _ := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	a, eng, err := openEngine(ctx, c, m, *engineID, logger, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	generate, label := cappedGenerate(eng.Pipeline, caps), eng.Info.Label
	if *baseline == "lead" {
		// The lead baseline needs no model: it reads BM25 passages only.
		lead := eng.Pipeline
		generate = func(ctx context.Context, req pipeline.Request, _ pipeline.Settings, _ crucible.Observer) (pipeline.Report, error) {
			return lead.Lead(ctx, req, index.Sentences)
		}
		label = "lead baseline"
	} else if eng.Check != nil {
		if err := eng.Check(ctx); err != nil {
			return err
		}
	}
	folder := *out
	if runFile {
		folder = filepath.Dir(*out)
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	w := &reportWriter{format: format, run: export.Run{TeamID: *teamID}, out: *out, runFile: runFile, markdown: *markdown, a: a}
	if *choices != "" {
		f, err := os.Create(*choices)
		if err != nil {
			return fmt.Errorf("--choices: %w", err)
		}
		defer f.Close()
		w.choices = &choiceLog{path: *choices, enc: json.NewEncoder(f)}
	}
	defaulted := 0
	ok, bad, err := eachLine(ctx, *requests, stderr, func(raw []byte) error {
		req, cols, err := parseRequest(raw)
		if err != nil {
			return err
		}
		if !namesLimit(raw) {
			defaulted++
		}
		return runReport(ctx, generate, req, s, cols, w, eng.Info.Prices, stdout, stderr)
	})
	if ferr := w.finish(); ferr != nil {
		return ferr
	}
	if err != nil {
		return err
	}
	info, _ := format.Info()
	fmt.Fprintf(stdout, "wrote %d report(s) in the %s format to %s with the %s; %d request(s) failed\n", ok, info.Label, *out, label, bad)
	if defaulted > 0 {
		fmt.Fprintf(stdout, "%d request(s) named no limit: %d characters each, the default\n", defaulted, pipeline.DefaultReportLimit)
	}
	if bad > 0 {
		return &exitError{code: 3}
	}
	return nil
}

// namesLimit reports whether a request line has a "limit" (parseRequest
// gives one that has none pipeline.DefaultReportLimit).
func namesLimit(raw []byte) bool {
	var l struct {
		Limit *int `json:"limit"`
	}
	return json.Unmarshal(raw, &l) == nil && l.Limit != nil
}

func parseRequest(raw []byte) (pipeline.Request, []string, error) {
	var l requestLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return pipeline.Request{}, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	id := strings.Trim(string(l.RequestID), `"`)
	if id == "" || id == "null" {
		return pipeline.Request{}, nil, fmt.Errorf(`missing "request_id"`)
	}
	req := pipeline.Request{
		ID: id, Title: strings.TrimSpace(l.Title), Background: strings.TrimSpace(l.Background),
		ProblemStatement: strings.TrimSpace(l.ProblemStatement), Limit: pipeline.DefaultReportLimit,
	}
	if l.Limit != nil {
		req.Limit = *l.Limit
	}
	if req.Title == "" {
		// NeuCLIR requests always have a title; tolerate its absence by
		// using the start of the problem statement.
		req.Title = oneLine(req.ProblemStatement, 80)
	}
	if err := req.Validate(); err != nil {
		return req, nil, err
	}
	return req, l.CollectionIDs, nil
}

// reportWriter writes the reports of a batch: a file per request in a
// folder, or one run file of JSON lines, in a format.
type reportWriter struct {
	format   export.Format
	run      export.Run
	out      string
	runFile  bool
	markdown bool
	a        *app
	lines    []byte // the run file's reports so far
	choices  *choiceLog
}

// write writes one report and returns where it went.
func (w *reportWriter) write(ctx context.Context, rep pipeline.Report, cols []string) (string, error) {
	run := w.run
	run.CollectionIDs = cols
	b, err := export.Encode(w.format, rep, run)
	if err != nil {
		return "", err
	}
	if w.runFile {
		if w.format == export.FormatNeuCLIR {
			b, err = json.Marshal(export.NeuCLIR(rep, cols)) // one line each
			if err != nil {
				return "", err
			}
			b = append(b, '\n')
		}
		w.lines = append(w.lines, b...)
		// Rewritten after every report, so an interrupted batch keeps
		// the reports made so far.
		return w.out, writeFileAtomic(w.out, w.lines)
	}
	info, _ := w.format.Info()
	path := filepath.Join(w.out, export.FileName(rep.Request.ID, info.Ext))
	if err := writeFileAtomic(path, b); err != nil {
		return "", err
	}
	if w.markdown {
		if err := w.writeMarkdown(ctx, rep); err != nil {
			return "", err
		}
	}
	return path, nil
}

// finish writes an empty run file when no report was made, so that the
// file named exists.
func (w *reportWriter) finish() error {
	if w.runFile && len(w.lines) == 0 {
		return writeFileAtomic(w.out, nil)
	}
	return nil
}

// writeMarkdown writes <request_id>.md beside the report.
func (w *reportWriter) writeMarkdown(ctx context.Context, rep pipeline.Report) error {
	titles, err := w.a.db.Titles(ctx, export.CitedDocIDs(rep))
	if err != nil {
		return err
	}
	quotes := map[pipeline.Citation]string{}
	for _, s := range rep.Sentences {
		d, err := w.a.db.Document(ctx, s.Citation.DocID)
		if err != nil {
			continue // a document gone since: no quote
		}
		if s.Citation.Start >= 0 && s.Citation.End <= len(d.Text) && s.Citation.Start < s.Citation.End {
			quotes[s.Citation] = d.Text[s.Citation.Start:s.Citation.End]
		}
	}
	return writeFileAtomic(filepath.Join(w.out, export.FileName(rep.Request.ID, ".md")), []byte(export.MarkdownWithEvidence(rep, titles, quotes)))
}

// runReport makes one report and writes it. A report stopped at a cap
// is a failed request whose message says which cap, where, and how to go
// on.
func runReport(ctx context.Context, generate generateFunc,
	req pipeline.Request, s pipeline.Settings, cols []string, w *reportWriter, prices pipeline.Prices, stdout, stderr io.Writer) error {
	start := time.Now()
	obs := &usageObserver{choices: w.choices}
	rep, err := generate(ctx, req, s, obs)
	var capErr *pipeline.CapError
	if errors.As(err, &capErr) {
		return fmt.Errorf("request %s: %v; no report written: run it again with a higher cap, "+
			"and the model cache answers the calls made so far for nothing", req.ID, capErr)
	}
	if err != nil {
		return fmt.Errorf("request %s: %w", req.ID, err)
	}
	path, err := w.write(ctx, rep, cols)
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stderr, "%s: tolerated: %s\n", req.ID, p)
	}
	u := obs.last.Usage
	scanned := ""
	if sc := rep.Scanned; sc.Schedule > 0 {
		scanned = fmt.Sprintf(", %d of %d passage extractions of the full scan", sc.Read, sc.Schedule)
	}
	money := ""
	if prices.Set() && u.PromptTokens+u.CompletionTokens > 0 {
		money = fmt.Sprintf(", %d prompt and %d completion tokens (%s)", u.PromptTokens, u.CompletionTokens,
			prices.Format(prices.Cost(u.PromptTokens, u.CompletionTokens)))
	}
	fmt.Fprintf(stdout, "%s: %d sentences, %d/%d characters, %d model calls (%d cached)%s%s in %s -> %s\n",
		req.ID, len(rep.Sentences), rep.Length(), req.Limit, u.Calls, u.CacheHits, money, scanned, time.Since(start).Round(10*time.Millisecond), path)
	return nil
}

// dryRunReports estimates each request's run (crucible.Engine.Estimate)
// and prints the estimates, writing no report.
func dryRunReports(ctx context.Context, c commonFlags, m modelFlags, engineID, requests string, s pipeline.Settings,
	env envFunc, stdout, stderr io.Writer) error {
	logger, _ := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	a, eng, err := openEngine(ctx, c, m, engineID, logger, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	var total pipeline.StageCost
	ok, bad, err := eachLine(ctx, requests, stderr, func(raw []byte) error {
		req, _, err := parseRequest(raw)
		if err != nil {
			return err
		}
		est, err := eng.Pipeline.Estimate(ctx, req, s)
		if err != nil {
			return fmt.Errorf("request %s: %w", req.ID, err)
		}
		t := est.Total()
		total.Calls += t.Calls
		total.PromptTokens += t.PromptTokens
		total.CompletionTokens += t.CompletionTokens
		return writeEstimate(stdout, req.ID, eng.Info.Label, est, eng.Info.Prices)
	})
	if err != nil {
		return err
	}
	line := fmt.Sprintf("estimated %d request(s) with the %s: %s model calls", ok, eng.Info.Label, pipeline.Thousands(total.Calls))
	if !eng.Info.Offline {
		line += fmt.Sprintf(", %s prompt and %s completion tokens", pipeline.Thousands(total.PromptTokens), pipeline.Thousands(total.CompletionTokens))
		if p := eng.Info.Prices; p.Set() {
			line += " (" + p.Format(p.Cost(total.PromptTokens, total.CompletionTokens)) + ")"
		}
	}
	fmt.Fprintf(stdout, "%s; %d request(s) failed\n", line, bad)
	if bad > 0 {
		return &exitError{code: 3}
	}
	return nil
}

// usageObserver keeps the last progress of a batch run (for its usage)
// and writes the candidates of the sentence choice to --choices.
type usageObserver struct {
	last    pipeline.Progress
	choices *choiceLog
}

// choiceLog is the --choices file.
type choiceLog struct {
	path string
	enc  *json.Encoder
}

// choiceLine is one line of the --choices file: a candidate assembly was
// offered, its features by name (crucible.ChoiceFeatures) and its score.
type choiceLine struct {
	RequestID  string             `json:"request_id"`
	NuggetID   string             `json:"nugget_id"`
	Sentence   string             `json:"sentence"`
	DocID      string             `json:"docid"`
	Passage    int                `json:"passage"`
	Start      int                `json:"start"`
	End        int                `json:"end"`
	Confidence float64            `json:"confidence"`
	Features   map[string]float64 `json:"features"`
	Score      float64            `json:"score"`
	// Facet is the heading of the facet the nugget takes its turns
	// under, when the request has two or more.
	Facet string `json:"facet,omitempty"`
}

func (o *usageObserver) Choices(_ context.Context, request string, cs []crucible.Choice) error {
	if o.choices == nil {
		return nil
	}
	for _, c := range cs {
		l := choiceLine{RequestID: request, NuggetID: c.Candidate.NuggetID, Sentence: c.Candidate.Sentence,
			DocID: c.Candidate.Citation.DocID, Passage: c.Candidate.Citation.Ordinal,
			Start: c.Candidate.Citation.Start, End: c.Candidate.Citation.End,
			Confidence: c.Candidate.Confidence, Features: map[string]float64{}, Score: c.Score, Facet: c.Facet}
		for i, name := range append(append([]string(nil), crucible.ChoiceFeatures...), crucible.TopicFeatures...) {
			l.Features[name] = c.Features[i]
		}
		if err := o.choices.enc.Encode(l); err != nil {
			return fmt.Errorf("--choices %s: %w", o.choices.path, err)
		}
	}
	return nil
}

func (o *usageObserver) Progress(p pipeline.Progress)                             { o.last = p }
func (o *usageObserver) Retrieved(context.Context, []pipeline.RetrievedDoc) error { return nil }
func (o *usageObserver) Nuggets(context.Context, []pipeline.Nugget) error         { return nil }
func (o *usageObserver) Candidates(context.Context, []pipeline.Candidate) error   { return nil }

// writeFileAtomic writes through a temporary file and a rename, so an
// interrupted run never leaves half a report.
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// switchFlag is an on/off flag that may be left unset (nil: the engine's
// default), for the rules of pipeline.Heuristics.
type switchFlag struct{ p **bool }

func (f switchFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	if **f.p {
		return "on"
	}
	return "off"
}

func (f switchFlag) Set(v string) error {
	on, ok := parseSwitch(v)
	if !ok {
		return fmt.Errorf("%q is neither on nor off", v)
	}
	*f.p = &on
	return nil
}

// parseSwitch reads on/off (also true/false, yes/no, 1/0).
func parseSwitch(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}
