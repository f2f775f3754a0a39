package index_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
	"github.com/crucible-portal/crucible/pipeline/eval"
)

// sharedDatasets is where the standard test collections live (read-only,
// beside the repository).
const sharedDatasets = "../../shared/datasets"

// TestBM25Effectiveness indexes standard test collections as the product
// does (1,000-character passages, MaxP document ranking, the English
// analyzer, default k1/b) and checks each published BM25 figure is
// reproduced within 0.02.
func TestBM25Effectiveness(t *testing.T) {
	if testing.Short() {
		t.Skip("effectiveness run over three test collections; skipped with -short")
	}
	if raceEnabled {
		t.Skip("effectiveness run: make test runs it without the race detector, in its second pass")
	}
	cases := []struct {
		name      string
		qrels     string
		measure   string
		complete  bool // trec_eval -c
		published float64
		textOnly  bool // index text only (CACM: the title is inside the text)
	}{
		{name: "scifact", qrels: "qrels.txt", measure: "ndcg_cut_10", complete: true, published: 0.6789},
		{name: "cacm", qrels: "qrels.txt", measure: "map", published: 0.3123, textOnly: true},
		{name: "npl-vaswani", qrels: "qrels.txt", measure: "map", published: 0.2856},
	}
	// The published figures use Anserini's k1=0.9, b=0.4 (our default).
	// CRUCIBLE_BM25_K1 / CRUCIBLE_BM25_B measure other values: the figures
	// are then logged for comparison, not checked.
	opts := index.DefaultOptions()
	override := false
	for env, dst := range map[string]*float64{"CRUCIBLE_BM25_K1": &opts.K1, "CRUCIBLE_BM25_B": &opts.B} {
		if v := os.Getenv(env); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s=%q: %v", env, v, err)
			}
			*dst, override = f, true
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(sharedDatasets, tc.name)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("test collection %s is absent (%v): effectiveness not checked", dir, err)
			}
			got := evaluateCollection(t, dir, tc.qrels, tc.textOnly, tc.measure, tc.complete, opts)
			t.Logf("%s %s = %.4f with k1=%g b=%g (published BM25 %.4f, difference %+.4f)", tc.name, tc.measure, got, opts.K1, opts.B, tc.published, got-tc.published)
			if !override && math.Abs(got-tc.published) > 0.02 {
				t.Errorf("%s %s = %.4f, more than 0.02 from the published %.4f", tc.name, tc.measure, got, tc.published)
			}
		})
	}
}

// evaluateCollection indexes dir/corpus.jsonl.gz, runs dir/queries.jsonl
// (top 1000 documents) and returns the mean of measure.
func evaluateCollection(t *testing.T, dir, qrelsName string, textOnly bool, measure string, complete bool, opts index.Options) float64 {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	src := &memStore{docs: map[string]pipeline.IngestDocument{}}
	in := &pipeline.Ingester{Store: src, Index: ix, Segment: index.Segment, BatchDocs: 1000}
	_, err = corpus.Walk(ctx, []string{filepath.Join(dir, "corpus.jsonl.gz")}, corpus.Options{},
		func(d pipeline.Document) error {
			if textOnly {
				d.Title = ""
			}
			return in.Add(ctx, d)
		},
		func(p corpus.Problem) { t.Logf("corpus: %s", p) })
	if err == nil {
		err = in.Flush(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}

	qrels, err := eval.ReadQrelsFile(filepath.Join(dir, qrelsName))
	if err != nil {
		t.Fatal(err)
	}
	run := eval.Run{}
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for dec.More() {
		var q struct{ ID, Text string }
		if err := dec.Decode(&q); err != nil {
			t.Fatal(err)
		}
		rk, err := ix.Score(ctx, q.Text, true, 1000)
		if err != nil {
			t.Fatalf("query %s: %v", q.ID, err)
		}
		// The pruned scorer must rank exactly as the exhaustive one.
		ex, err := ix.ScoreExhaustive(ctx, q.Text, true, 1000)
		if err != nil {
			t.Fatalf("query %s: %v", q.ID, err)
		}
		if diff := cmp.Diff(ex.Hits, rk.Hits); diff != "" {
			t.Fatalf("query %s: pruned top 1000 differs from the exhaustive scorer (-exhaustive +pruned)\n%s", q.ID, diff)
		}
		for i, s := range rk.Hits {
			run[q.ID] = append(run[q.ID], eval.RunEntry{DocID: s.DocID, Rank: i + 1, Score: s.Score})
		}
	}
	ms, err := eval.ParseMeasures("map", "ndcg_cut.10")
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Evaluate(qrels, run, eval.Options{Measures: ms, Complete: complete})
	if err != nil {
		t.Fatal(err)
	}
	return res.Mean[measure]
}

// memStore is a DocumentWriter that keeps nothing but counts (the index
// under test is all that matters here), or with keep the documents, as a
// PassageSource.
type memStore struct {
	docs map[string]pipeline.IngestDocument
	keep bool
}

func (m *memStore) ReplaceDocuments(_ context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	var r pipeline.ReplaceResult
	for _, b := range batch {
		if _, ok := m.docs[b.Doc.ID]; ok {
			r.Replaced++
		} else {
			r.Inserted++
		}
		if m.keep {
			m.docs[b.Doc.ID] = b
		} else {
			m.docs[b.Doc.ID] = pipeline.IngestDocument{Doc: pipeline.Document{ID: b.Doc.ID}}
		}
	}
	return r, nil
}

func (m *memStore) HitPassages(_ context.Context, ids []string) (map[string]pipeline.Passage, map[string]string, error) {
	ps, titles := map[string]pipeline.Passage{}, map[string]string{}
	for _, id := range ids {
		docID, ord, err := pipeline.ParsePassageID(id)
		if err != nil {
			return nil, nil, err
		}
		if d, ok := m.docs[docID]; ok && ord < len(d.Passages) {
			ps[id], titles[docID] = d.Passages[ord], d.Doc.Title
		}
	}
	return ps, titles, nil
}
