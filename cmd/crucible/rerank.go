package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/eval"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// rerankTraceLine is one line of `crucible rerank --trace`.
type rerankTraceLine struct {
	RequestID string         `json:"request_id"`
	Method    string         `json:"method"`
	Selected  int            `json:"selected"`
	Calls     int            `json:"calls"`
	CacheHits int            `json:"cache_hits"`
	Trace     any            `json:"trace"`
	Ranking   []rerankedLine `json:"ranking"`
}

type rerankedLine struct {
	DocID     string `json:"doc_id"`
	FirstRank int    `json:"first_stage_rank"`
}

// cmdRerank reranks a first-stage TREC run for the requests of a requests
// file and writes the reranked run.
func cmdRerank(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("rerank", stderr)
	var c commonFlags
	c.register(fs, env)
	var m modelFlags
	m.register(fs, env)
	requests := fs.String("requests", "", "JSON Lines `file` of requests {request_id,title,background,problem_statement,limit}")
	runIn := fs.String("run", "", "first-stage TREC run `file` (documents, as crucible search --docs --queries writes)")
	out := fs.String("out", "", "reranked TREC run `file` to write")
	method := fs.String("method", "", "reranker: "+strings.Join(rerank.Methods(), ", "))
	engineID := fs.String("engine", "offline", "engine answering the reranker's prompts: offline or openai")
	tracePath := fs.String("trace", "", "also write each request's trace as JSON Lines to this `file`")
	tag := fs.String("tag", "", "run tag (last column; default crucible-METHOD)")
	o := rerank.Options{}
	fs.IntVar(&o.Depth, "depth", 0, "candidates reranked (0: the method's default)")
	fs.IntVar(&o.DocChars, "doc-chars", 0, "characters of document text per prompt (0: default 1500)")
	var bestPassage *bool
	fs.Var(switchFlag{&bestPassage}, "best-passage", "on or off: prompts show each document's best BM25 passage for the request instead of its opening (default: the engine's)")
	fs.IntVar(&o.SubQuestions, "subquestions", 0, "LANCER: sub-questions n (0: 2)")
	fs.StringVar(&o.Aggregation, "aggregation", "", "LANCER: sum, sum:tau=T, rrf, greedy-sum, greedy-alpha, greedy-coverage[:tau=T] (default sum)")
	oracle := fs.String("oracle", "", "LANCER: JSON `file` {\"request_id\": [questions]} of oracle sub-questions")
	fs.IntVar(&o.WindowSize, "window", 0, "listwise: window size (0: 20)")
	coarseWindow := fs.Int("coarse-window", -1, "CoRank: coarse ranking window (0: one prompt over every candidate, as the paper and the default with a model; 2 or more: sliding windows of that size; default with the offline engine 20)")
	fs.IntVar(&o.WindowStride, "stride", 0, "listwise: stride (0: 10)")
	fs.IntVar(&o.TopK, "top-k", 0, "setwise: leading documents sorted (0: 10)")
	fs.IntVar(&o.CoverK, "cover-k", 0, "PureCover: largest set K (0: 5)")
	lambda := fs.Float64("lambda", rerank.DefaultCoverLambda, "PureCover: noise penalty λ")
	fs.Float64Var(&o.Temperature, "temperature", 0, "PureCover: softmax temperature (0: 1)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible rerank --data DIR --requests FILE.jsonl --run IN.run --method M [method options] --out OUT.run [--engine offline|openai]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *requests == "" || *runIn == "" || *out == "" || *method == "" {
		fs.Usage()
		return fmt.Errorf("%w: rerank needs --requests, --run, --method and --out", errUsage)
	}
	o.Lambda = lambda
	if *oracle != "" {
		b, err := os.ReadFile(*oracle)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &o.OracleQuestions); err != nil {
			return fmt.Errorf("%s: not a JSON object of request id → list of questions: %v", *oracle, err)
		}
	}
	run, err := eval.ReadRunFile(*runIn)
	if err != nil {
		return err
	}
	logger, _ := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	a, eng, err := openEngine(ctx, c, m, *engineID, logger, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	if strings.EqualFold(strings.TrimSpace(*method), rerank.MethodCoRank) {
		// CoRank keeps document features in SQLite (crucible features
		// extracts them ahead; missing ones are extracted on demand).
		ns, err := engineNamespace(eng)
		if err != nil {
			return err
		}
		cw := *coarseWindow
		if cw < 0 {
			cw = 0 // a model: one prompt, as the paper
			if eng.Info.Offline {
				cw = rerank.OfflineCoarseWindow
			}
		}
		o.CoRank = rerank.CoRankConfig{Store: a.db, Namespace: ns, Terms: a.index.Terms, CoarseWindow: cw, Embedder: eng.Pipeline.Embedder}
	}
	rr, err := rerank.New(*method, eng.Pipeline.Model, o)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if eng.Check != nil {
		if err := eng.Check(ctx); err != nil {
			return err
		}
	}
	if *tag == "" {
		*tag = "crucible-" + rr.Name()
	}
	f, err := os.Create(*out + ".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(*out + ".tmp")
	w := bufio.NewWriter(f)
	var tw *json.Encoder
	var traceFile *os.File
	if *tracePath != "" {
		if traceFile, err = os.Create(*tracePath); err != nil {
			f.Close()
			return err
		}
		defer traceFile.Close()
		tw = json.NewEncoder(traceFile)
	}
	var calls, hits int
	ok, bad, err := eachLine(ctx, *requests, stderr, func(raw []byte) error {
		req, _, err := parseRequest(raw)
		if err != nil {
			return err
		}
		entries := eval.Ranked(run[req.ID])
		if len(entries) == 0 {
			return fmt.Errorf("request %s has no results in %s", req.ID, *runIn)
		}
		cands := make([]rerank.Candidate, len(entries))
		first := make(map[string]int, len(entries))
		for i, e := range entries {
			cands[i] = rerank.Candidate{ID: e.DocID, Score: e.Score}
			first[e.DocID] = i + 1
		}
		var passages map[string]string
		if (pipeline.Settings{BestPassage: bestPassage}).Heuristics(eng.Pipeline.Defaults).BestPassage {
			if passages, err = bestPassages(ctx, a.searcher(), req, len(cands)); err != nil {
				return err
			}
		}
		res, err := rr.Rerank(ctx, rerank.Input{Request: req, Candidates: cands, Docs: a.db, Passages: passages})
		if err != nil {
			return fmt.Errorf("request %s: %w", req.ID, err)
		}
		out := make([]eval.RunEntry, len(res.Ranking))
		for i, c := range res.Ranking {
			out[i] = eval.RunEntry{DocID: c.ID, Rank: i + 1, Score: c.Score}
		}
		if err := eval.WriteRun(w, req.ID, out, *tag); err != nil {
			return err
		}
		calls += res.Usage.Calls
		hits += res.Usage.CacheHits
		if tw != nil {
			line := rerankTraceLine{RequestID: req.ID, Method: res.Method, Selected: res.Selected,
				Calls: res.Usage.Calls, CacheHits: res.Usage.CacheHits, Trace: res.Trace}
			for _, c := range res.Ranking {
				line.Ranking = append(line.Ranking, rerankedLine{DocID: c.ID, FirstRank: first[c.ID]})
			}
			if err := tw.Encode(line); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "%s: reranked %d candidates with %s, %d model calls (%d cached)\n", req.ID, len(cands), res.Method, res.Usage.Calls, res.Usage.CacheHits)
		return nil
	})
	if err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(*out+".tmp", *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d request(s) reranked with %s on the %s, %d model calls (%d cached); %d request(s) failed\n",
		*out, ok, rr.Name(), eng.Info.Label, calls, hits, bad)
	if bad > 0 {
		return &exitError{code: 3}
	}
	return nil
}

// bestPassages maps the request's top documents to the text of their best
// BM25 passage, which prompts show instead of a long document's opening.
func bestPassages(ctx context.Context, s pipeline.Searcher, req pipeline.Request, k int) (map[string]string, error) {
	q := req.Query()
	if r := []rune(q); len(r) > pipeline.MaxQueryChars {
		q = string(r[:pipeline.MaxQueryChars])
	}
	res, err := s.Search(ctx, pipeline.SearchRequest{Query: q, K: k, Docs: true})
	if err != nil {
		return nil, fmt.Errorf("request %s: best passages: %w", req.ID, err)
	}
	out := make(map[string]string, len(res.Hits))
	for _, h := range res.Hits {
		out[h.DocID] = h.Text
	}
	return out, nil
}
