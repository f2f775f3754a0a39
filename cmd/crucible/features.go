package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// featureBatch is how many documents `crucible features` extracts before
// it stores their features: an interrupted run loses at most one batch.
const featureBatch = 64

// featuresResult counts what a features run did.
type featuresResult struct {
	namespace  string
	documents  int // documents considered
	current    int // already stored with the same content hash
	extracted  int // extracted and stored by this run
	cached     int // of extracted: answered from the model answer cache
	unreadable int // answers with no usable feature: nothing stored
	took       time.Duration
}

func (r featuresResult) summaryLine() string {
	return fmt.Sprintf("features of %d documents: %d extracted (%d from the answer cache), %d already current, %d unreadable, in %s (namespace %s)",
		r.documents, r.extracted, r.cached, r.current, r.unreadable, r.took.Round(10*time.Millisecond), r.namespace)
}

// cmdFeatures extracts CoRank's compact document features for every
// stored document (or the first N) and stores them, skipping documents
// whose features are stored with the same content hash.
func cmdFeatures(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("features", stderr)
	var c commonFlags
	c.register(fs, env)
	var m modelFlags
	m.register(fs, env)
	engineID := fs.String("engine", "offline", "engine answering the feature prompt: offline or openai")
	docs := fs.Int("docs", 0, "extract the features of the first `N` documents in ingest order only (0: all)")
	concurrency := fs.Int("concurrency", 0, "extractions in flight (0: the number of CPUs for the offline engine, --model-concurrency for an endpoint)")
	docChars := fs.Int("doc-chars", rerank.DefaultFeatureChars, "characters of document text the feature prompt shows")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible features --data DIR [--engine offline|openai] [--docs N]\n\n"+
			"Extracts CoRank's compact features (topical title, category path, section headings, keywords,\n"+
			"pseudo-queries) of the stored documents once, so that the corank reranker need not. Resumable:\n"+
			"documents whose features are stored for the same text are skipped.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		fs.Usage()
		return fmt.Errorf("%w: features takes no arguments (got %q)", errUsage, fs.Args())
	case *docs < 0:
		return fmt.Errorf("%w: --docs %d: want 0 (all) or a positive number", errUsage, *docs)
	case *concurrency < 0:
		return fmt.Errorf("%w: --concurrency %d: want 0 (automatic) or a positive number", errUsage, *concurrency)
	case *docChars < 1:
		return fmt.Errorf("%w: --doc-chars %d: want a positive number", errUsage, *docChars)
	}
	logger, err := newLogger(stderr, env.get("CRUCIBLE_LOG_LEVEL", "warn"))
	if err != nil {
		return err
	}
	a, eng, err := openEngine(ctx, c, m, *engineID, logger, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	limit := *concurrency
	if limit == 0 {
		limit = runtime.GOMAXPROCS(0)
		if !eng.Info.Offline {
			limit = max(m.concurrency, 1)
		}
	}
	res, err := extractFeatures(ctx, a, eng, *docs, *docChars, limit, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, res.summaryLine())
	if res.unreadable > 0 {
		return &exitError{code: 3, msg: fmt.Sprintf("%d document(s) got no usable features; see the messages above (run again to retry them)", res.unreadable)}
	}
	return nil
}

// engineNamespace is the answer cache namespace of an engine's model:
// the namespace its features are stored under (rerank.FeatureNamespace).
func engineNamespace(eng jobs.Engine) (string, error) {
	if cm, ok := eng.Pipeline.Model.(llm.Cached); ok && cm.Namespace != "" {
		return cm.Namespace, nil
	}
	return "", fmt.Errorf("engine %s: its model has no answer cache namespace to store features under", eng.Info.ID)
}

// extractFeatures extracts and stores the features of the first limit
// documents (0: all) that lack current ones, in batches of featureBatch,
// with concurrency extractions in flight, printing unreadable answers to
// stderr (above the progress bar, if any).
func extractFeatures(ctx context.Context, a *app, eng jobs.Engine, limit, docChars, concurrency int, stderr io.Writer) (featuresResult, error) {
	start := time.Now()
	engNS, err := engineNamespace(eng)
	if err != nil {
		return featuresResult{}, err
	}
	res := featuresResult{namespace: rerank.FeatureNamespace(engNS, docChars)}
	ids, err := a.db.DocumentIDs(ctx, limit)
	if err != nil {
		return res, err
	}
	if len(ids) == 0 {
		return res, fmt.Errorf("no documents in %s: run crucible ingest first", a.dir)
	}
	res.documents = len(ids)
	missing, err := a.db.MissingFeatures(ctx, res.namespace, ids)
	if err != nil {
		return res, err
	}
	res.current = len(ids) - len(missing)
	if len(missing) > 0 && eng.Check != nil {
		if err := eng.Check(ctx); err != nil {
			return res, err
		}
	}
	bar := newBar(stderr, int64(len(missing)), "extracting features", false)
	var mu sync.Mutex // serialises the bar, stderr and the counts
	for len(missing) > 0 {
		batch := missing[:min(featureBatch, len(missing))]
		missing = missing[len(batch):]
		recs := make([]*rerank.FeatureRecord, len(batch))
		runErr := pipeline.ForEach(ctx, len(batch), concurrency, func(ctx context.Context, i int) error {
			doc, err := a.db.Document(ctx, batch[i])
			if err != nil {
				return err
			}
			x, err := rerank.ExtractFeatures(ctx, eng.Pipeline.Model, doc, docChars)
			mu.Lock()
			defer mu.Unlock()
			if bar != nil {
				bar.Add(1)
			}
			switch {
			case errors.Is(err, pipeline.ErrInvalid):
				res.unreadable++
				if bar != nil {
					bar.Clear()
				}
				fmt.Fprintf(stderr, "skipped: document %q: %v\n", doc.ID, err)
				return nil
			case err != nil:
				return fmt.Errorf("features of document %q: %w", doc.ID, err)
			}
			if x.Response.Cached {
				res.cached++
			}
			recs[i] = &x.Record
			return nil
		})
		// Store what this batch extracted, even when it stopped early, so
		// that a run stopped by a failing endpoint or ^C resumes after it.
		var put []rerank.FeatureRecord
		for _, r := range recs {
			if r != nil {
				put = append(put, *r)
			}
		}
		if len(put) > 0 {
			if err := a.db.PutFeatures(context.WithoutCancel(ctx), res.namespace, put); err != nil {
				return res, err
			}
			res.extracted += len(put)
		}
		if runErr != nil {
			if bar != nil {
				bar.Finish()
			}
			res.took = time.Since(start)
			return res, fmt.Errorf("features stopped after %d extractions: %w", res.extracted, runErr)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	res.took = time.Since(start)
	return res, nil
}
