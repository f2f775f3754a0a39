package index_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

const demoCorpus = "../testdata/corpora/sotu.jsonl.gz"

// loadDemo reads the demo corpus once per test binary (reading it takes
// seconds under the race detector); callers get their own slice.
func loadDemo(b testing.TB) []pipeline.Document {
	b.Helper()
	demoOnce.Do(func() {
		_, demoErr = corpus.Walk(context.Background(), []string{demoCorpus}, corpus.Options{},
			func(d pipeline.Document) error { demoDocs = append(demoDocs, d); return nil }, func(corpus.Problem) {})
	})
	if demoErr != nil {
		b.Fatal(demoErr)
	}
	return append([]pipeline.Document(nil), demoDocs...)
}

var (
	demoOnce sync.Once
	demoDocs []pipeline.Document
	demoErr  error
)

func benchQueries(b testing.TB) []string {
	f, err := os.Open("../testdata/bench/queries.txt")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			qs = append(qs, q)
		}
	}
	return qs
}

// buildIndex opens an index with opts under tb's temporary folder and
// ingests copies of docs (copy r > 0 under ids suffixed "~r") in batches
// of batchDocs (0: the Ingester's default). The store keeps the documents,
// so it also serves a Searcher.
func buildIndex(tb testing.TB, opts index.Options, docs []pipeline.Document, copies, batchDocs int) (*index.Index, *memStore) {
	tb.Helper()
	ctx := context.Background()
	ix, err := index.Open(filepath.Join(tb.TempDir(), "ix"), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	src := &memStore{docs: map[string]pipeline.IngestDocument{}, keep: true}
	in := &pipeline.Ingester{Store: src, Index: ix, Segment: index.Segment, BatchDocs: batchDocs}
	for r := 0; r < copies; r++ {
		for _, d := range docs {
			if r > 0 {
				d.ID = d.ID + "~" + strconv.Itoa(r)
			}
			if err := in.Add(ctx, d); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := in.Flush(ctx); err != nil {
		tb.Fatal(err)
	}
	return ix, src
}

// BenchmarkIndexDemo measures segmenting and indexing the demo corpus
// (passages/s), without the SQLite store.
func BenchmarkIndexDemo(b *testing.B) {
	docs := loadDemo(b)
	ctx := context.Background()
	var passages int
	for i := 0; i < b.N; i++ {
		ix, err := index.Open(filepath.Join(b.TempDir(), "ix"), index.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		in := &pipeline.Ingester{Store: &memStore{docs: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: index.Segment}
		for _, d := range docs {
			if err := in.Add(ctx, d); err != nil {
				b.Fatal(err)
			}
		}
		if err := in.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		passages = in.Stats().Passages
		ix.Close()
	}
	b.ReportMetric(float64(passages*b.N)/b.Elapsed().Seconds(), "passages/s")
}

// BenchmarkScoreDemo measures BM25 scoring (top 10 passages, and top 10
// documents by MaxP) over the demo corpus for the benchmark queries.
func BenchmarkScoreDemo(b *testing.B) {
	ctx := context.Background()
	ix, _ := buildIndex(b, index.DefaultOptions(), loadDemo(b), 1, 0)
	qs := benchQueries(b)
	for _, mode := range []struct {
		name string
		docs bool
	}{{"passages", false}, {"docs", true}} {
		b.Run(mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := ix.Score(ctx, qs[i%len(qs)], mode.docs, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTopK compares the pruned top-10 scorer with the exhaustive one
// on the demo corpus replicated 1× and 10× (CRUCIBLE_BENCH_SCALES, e.g.
// "1,10,30"), over the benchmark queries. Ratios within one run are what
// to compare.
func BenchmarkTopK(b *testing.B) {
	docs := loadDemo(b)
	ctx := context.Background()
	scales := []int{1, 10}
	if v := os.Getenv("CRUCIBLE_BENCH_SCALES"); v != "" {
		scales = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				b.Fatalf("CRUCIBLE_BENCH_SCALES=%q", v)
			}
			scales = append(scales, n)
		}
	}
	qs := benchQueries(b)
	for _, scale := range scales {
		ix, _ := buildIndex(b, index.DefaultOptions(), docs, scale, 0)
		for _, q := range qs { // warm the per-segment caches
			if _, err := ix.Score(ctx, q, true, 10); err != nil {
				b.Fatal(err)
			}
		}
		for _, mode := range []struct {
			name string
			docs bool
		}{{"passages", false}, {"docs", true}} {
			for _, scorer := range []struct {
				name string
				fn   func(context.Context, string, bool, int) (index.Ranking, error)
			}{{"pruned", ix.Score}, {"exhaustive", ix.ScoreExhaustive}} {
				b.Run(fmt.Sprintf("%dx/%s/%s", scale, mode.name, scorer.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if _, err := scorer.fn(ctx, qs[i%len(qs)], mode.docs, 10); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
		ix.Close()
	}
}

// BenchmarkSearchPage measures a search page's work on the demo corpus:
// the top 10 passages, counted exactly, their text and highlighted
// fragments (from an in-memory source: no SQLite).
func BenchmarkSearchPage(b *testing.B) {
	ctx := context.Background()
	ix, src := buildIndex(b, index.DefaultOptions(), loadDemo(b), 1, 0)
	s := &index.Searcher{Index: ix, Source: src}
	qs := benchQueries(b)
	for _, hl := range []bool{false, true} {
		b.Run(fmt.Sprintf("highlight=%v", hl), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(ctx, pipeline.SearchRequest{Query: qs[i%len(qs)], K: 10, Highlight: hl, Count: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
