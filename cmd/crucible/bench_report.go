package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// slowModel simulates an endpoint: every call takes a fixed latency and at
// most limit calls are served at once (like a server with limit slots);
// the answers come from the offline engine. It records the calls per task.
type slowModel struct {
	next    pipeline.Model
	latency time.Duration
	slots   chan struct{}

	mu    sync.Mutex
	calls map[pipeline.Task]int
	// promptChars and completionChars count the characters of the
	// prompts and answers: tokens as the estimate counts them
	// (pipeline.CharsPerToken).
	promptChars, completionChars int
	// perNugget counts the extractions of each nugget (by question and
	// answer): a nugget reads its passages a batch after another, so its
	// count divided by the batch size is a chain of dependent rounds.
	perNugget map[prompts.QA]int
}

func (m *slowModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	select {
	case m.slots <- struct{}{}:
	case <-ctx.Done():
		return pipeline.ModelResponse{}, ctx.Err()
	}
	defer func() { <-m.slots }()
	select {
	case <-time.After(m.latency):
	case <-ctx.Done():
		return pipeline.ModelResponse{}, ctx.Err()
	}
	resp, err := m.next.Complete(ctx, req)
	m.mu.Lock()
	m.calls[req.Task]++
	if in, ok := req.Input.(prompts.ExtractInput); ok {
		m.perNugget[in.Nugget]++
	}
	for _, msg := range req.Messages {
		m.promptChars += utf8.RuneCountInString(msg.Content)
	}
	m.completionChars += utf8.RuneCountInString(resp.Text)
	m.mu.Unlock()
	return resp, err
}

// stageObserver records when each stage starts, for per-stage wall clock.
type stageObserver struct {
	mu     sync.Mutex
	starts []stageStart
}

type stageStart struct {
	stage string
	at    time.Time
}

func (o *stageObserver) Progress(p pipeline.Progress) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.starts); n == 0 || o.starts[n-1].stage != p.Stage {
		o.starts = append(o.starts, stageStart{p.Stage, time.Now()})
	}
}
func (o *stageObserver) Retrieved(context.Context, []pipeline.RetrievedDoc) error { return nil }
func (o *stageObserver) Nuggets(context.Context, []pipeline.Nugget) error         { return nil }
func (o *stageObserver) Candidates(context.Context, []pipeline.Candidate) error   { return nil }

// durations lists each stage's wall clock, the last one ending at end.
func (o *stageObserver) durations(end time.Time) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := ""
	for i, st := range o.starts {
		next := end
		if i+1 < len(o.starts) {
			next = o.starts[i+1].at
		}
		out += fmt.Sprintf(" %s=%.2f", st.stage, next.Sub(st.at).Seconds())
	}
	return out
}

// scanBatchSize is how many passages of one nugget the scan reads at once
// (pipeline/crucible's scanBatch).
const scanBatchSize = 4

// benchReport runs report requests against a simulated endpoint and
// compares (a) wall clock with the critical-path bound and (b) model calls
// with the naive schedule.
func benchReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench report", stderr)
	corpusPath := fs.String("corpus", "testdata/corpora/sotu.jsonl.gz", "corpus `file`")
	requests := fs.String("requests", "testdata/eval/sotu-requests.jsonl", "NeuCLIR-style requests `file`")
	n := fs.Int("n", 3, "number of requests to run")
	latency := fs.Duration("latency", 100*time.Millisecond, "simulated latency of every model call")
	slots := fs.Int("concurrency", 16, "calls the simulated endpoint serves at once (also the pipeline's concurrency)")
	verify := fs.Bool("verify", false, "include verification")
	estimate := fs.Bool("estimate", false, "also estimate each request first (the dry run of crucible report --dry-run) and compare the estimate with the calls and tokens (characters / 4) the run makes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "crucible-bench-report-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, err := openApp(ctx, commonFlags{data: filepath.Join(dir, "data"), k1: index.DefaultOptions().K1, b: index.DefaultOptions().B})
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := ingest(ctx, a, []string{*corpusPath}, ingestOptions{}, io.Discard); err != nil {
		return err
	}
	reqs, err := readRequests(ctx, *requests, *n)
	if err != nil {
		return err
	}
	s := pipeline.DefaultSettings()
	s.Concurrency = *slots
	s.Verify = *verify
	fmt.Fprintf(stdout, "simulated endpoint: %s per call, %d calls at once; offline answers; %d request(s) from %s\n",
		*latency, *slots, len(reqs), *requests)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "request\twall s\tbound s\twall/bound\tcalls\tnaive calls\tcalls/naive\tsentences\t")
	var breakdown, estimates []string
	// One cache of analysed texts for the whole run, as a portal process
	// has (see engines).
	texts := newAnalysisCache(a.index)
	for _, req := range reqs {
		model := &slowModel{next: offline.New(cachedAnalyzer{indexAnalyzer{a.index}, texts}), latency: *latency,
			slots: make(chan struct{}, *slots), calls: map[pipeline.Task]int{}, perNugget: map[prompts.QA]int{}}
		eng := &crucible.Engine{Searcher: a.searcher(), Store: a.db, Model: model,
			Terms: texts.Terms, TermSet: texts.TermSet, SentenceKey: a.index.SentenceKey, Name: "simulated endpoint",
			StandIn: offline.New(cachedAnalyzer{indexAnalyzer{a.index}, texts})}
		var est pipeline.CostEstimate
		if *estimate {
			if est, err = eng.Estimate(ctx, req, s); err != nil {
				return fmt.Errorf("%s: estimate: %w", req.ID, err)
			}
		}
		obs := &stageObserver{}
		start := time.Now()
		rep, err := eng.Generate(ctx, req, s, obs)
		if err != nil {
			return fmt.Errorf("%s: %w", req.ID, err)
		}
		wall := time.Since(start)
		bound := criticalPath(model.calls, *slots, *latency, s)
		naive, err := naiveCalls(ctx, a, req, s, model.calls)
		if err != nil {
			return err
		}
		total := 0
		for _, c := range model.calls {
			total += c
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%d\t%d\t%.3f\t%d\t\n", req.ID, wall.Seconds(), bound.Seconds(),
			wall.Seconds()/bound.Seconds(), total, naive, float64(total)/float64(naive), len(rep.Sentences))
		tasks := make([]string, 0, len(model.calls))
		for t := range model.calls {
			tasks = append(tasks, string(t))
		}
		sort.Strings(tasks)
		line := req.ID + " calls:"
		for _, t := range tasks {
			line += fmt.Sprintf(" %s=%d", t, model.calls[pipeline.Task(t)])
		}
		breakdown = append(breakdown, line, req.ID+" stages (wall s):"+obs.durations(start.Add(wall)))
		if *estimate {
			t := est.Total()
			pt, ct := model.promptChars/pipeline.CharsPerToken, model.completionChars/pipeline.CharsPerToken
			estimates = append(estimates, fmt.Sprintf("%s estimate/actual: calls %d/%d (%+.0f%%, at most %d), prompt tokens %d/%d (%+.0f%%), completion tokens %d/%d (%+.0f%%)",
				req.ID, t.Calls, total, pct(t.Calls, total), t.MaxCalls, t.PromptTokens, pt, pct(t.PromptTokens, pt),
				t.CompletionTokens, ct, pct(t.CompletionTokens, ct)))
		}
		longest := 0
		for _, c := range model.perNugget {
			longest = max(longest, c)
		}
		breakdown = append(breakdown, fmt.Sprintf("%s scan: the longest nugget read %d passages, %d rounds of %d at %s: %.2f s",
			req.ID, longest, (longest+scanBatchSize-1)/scanBatchSize, scanBatchSize, *latency,
			float64((longest+scanBatchSize-1)/scanBatchSize)*latency.Seconds()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range append(breakdown, estimates...) {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// pct is how far est is from actual, in percent of actual.
func pct(est, actual int) float64 {
	if actual == 0 {
		return 0
	}
	return 100 * float64(est-actual) / float64(actual)
}

// criticalPath is the least wall clock the run's calls need with the
// given concurrency: per stage, the dependent rounds of calls or the calls
// divided among the slots, whichever is larger, times the latency.
// Dependent rounds: ideation 2 (summary, then nuggets), merge 1, rank 1,
// scan 1 (a nugget's first batch; later batches depend on earlier ones
// only when early stopping fails, which the bound ignores), verify 2 (a
// candidate's support, then coverage; the further rounds taken when a
// nugget's best candidates fail are ignored likewise), group 1 (the
// request's facets).
func criticalPath(calls map[pipeline.Task]int, slots int, latency time.Duration, s pipeline.Settings) time.Duration {
	rounds := func(n, chain int) int {
		if n == 0 {
			return 0
		}
		return max(chain, int(math.Ceil(float64(n)/float64(slots))))
	}
	r := rounds(calls[prompts.TaskSummarize]+calls[prompts.TaskNuggets], 2) +
		rounds(calls[prompts.TaskParaphrase], 1) +
		rounds(calls[prompts.TaskNuggetQuality], 1) +
		rounds(calls[prompts.TaskExtract], 1) +
		rounds(calls[prompts.TaskVerifySupport]+calls[prompts.TaskVerifyCoverage], 2) +
		rounds(calls[prompts.TaskFacets], 1)
	return time.Duration(r) * latency
}

// naiveCalls is the paper's schedule for the same run: the same ideation
// ranking and facets calls, paraphrase prompts for every pair of ideated
// nuggets, and extraction over every passage of the top documents for every kept
// nugget (verification, when on, for every candidate of that scan is not
// counted: the naive figure is a lower bound).
func naiveCalls(ctx context.Context, a *app, req pipeline.Request, s pipeline.Settings, calls map[pipeline.Task]int) (int, error) {
	nuggets := 0
	// Ideated nuggets: what the nugget calls returned is not recorded here,
	// so count them as the ranking saw them plus what merging removed:
	// every nugget call yields at most NuggetsPerDoc.
	nuggets = calls[prompts.TaskNuggets] * s.NuggetsPerDoc
	res, err := a.searcher().Search(ctx, pipeline.SearchRequest{Query: req.Query(), K: s.Retrieve, Docs: true})
	if err != nil {
		return 0, err
	}
	passages := 0
	for _, h := range res.Hits {
		ps, err := a.db.Passages(ctx, h.DocID)
		if err != nil {
			return 0, err
		}
		passages += len(ps)
	}
	kept := min(s.KeepNuggets, calls[prompts.TaskNuggetQuality])
	return calls[prompts.TaskSummarize] + calls[prompts.TaskNuggets] + nuggets*(nuggets-1)/2 +
		calls[prompts.TaskNuggetQuality] + calls[prompts.TaskFacets] + kept*passages, nil
}

// readRequests reads the first n requests of a requests file.
func readRequests(ctx context.Context, path string, n int) ([]pipeline.Request, error) {
	var out []pipeline.Request
	_, bad, err := eachLine(ctx, path, io.Discard, func(raw []byte) error {
		if len(out) >= n {
			return nil
		}
		req, _, err := parseRequest(raw)
		if err == nil {
			out = append(out, req)
		}
		return err
	})
	if err == nil && bad > 0 {
		err = fmt.Errorf("%s: %d bad request line(s)", path, bad)
	}
	return out, err
}
