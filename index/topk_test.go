package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
)

// pruningQueries are the benchmark queries, every document title, and
// random 1–4-word phrases drawn from the corpus (a fixed seed).
func pruningQueries(t testing.TB, docs []pipeline.Document, random int) []string {
	qs := append([]string(nil), benchQueries(t)...)
	for _, d := range docs[:min(20, len(docs))] {
		qs = append(qs, d.Title)
	}
	qs = append(qs, "the union", "united states", "congress", "war", "a the of")
	rng := rand.New(rand.NewPCG(7, 11))
	for len(qs) < len(benchQueries(t))+min(20, len(docs))+5+random {
		words := strings.Fields(docs[rng.IntN(len(docs))].Text)
		n := 1 + rng.IntN(4)
		if len(words) <= n {
			continue
		}
		i := rng.IntN(len(words) - n)
		qs = append(qs, strings.Join(words[i:i+n], " "))
	}
	return qs
}

// TestPrunedScorerMatchesExhaustive compares the pruned top-k scorer with
// the exhaustive reference on the demo corpus, replicated so that scores
// tie, in several segments, with replaced documents (deleted postings):
// the same hits, the same scores to the last bit, the same order, the
// same totals.
func TestPrunedScorerMatchesExhaustive(t *testing.T) {
	if raceEnabled {
		t.Skip("a comparison over the whole demo corpus: make test runs it without the race detector, in its second pass")
	}
	docs := loadDemo(t)
	ctx := context.Background()
	ix, err := index.Open(filepath.Join(t.TempDir(), "ix"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	copies := 2
	if testing.Short() {
		copies = 1
	}
	in := &pipeline.Ingester{Store: &memStore{docs: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: index.Segment, BatchDocs: 40}
	for c := 0; c < copies; c++ {
		for _, d := range docs {
			if c > 0 {
				d.ID = fmt.Sprintf("%s~%d", d.ID, c)
			}
			if err := in.Add(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Replace a few documents with shorter text: their old passages are
	// deleted postings in older segments.
	for _, d := range docs[:30:30] {
		d.Text = d.Text[:len(d.Text)/3]
		if err := in.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	random := 150
	if testing.Short() {
		random = 30
	}
	qs := pruningQueries(t, docs, random)
	for _, docsMode := range []bool{false, true} {
		for _, k := range []int{1, 10, 100, 0} {
			for _, q := range qs {
				ex, err := ix.ScoreExhaustive(ctx, q, docsMode, k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ix.Score(ctx, q, docsMode, k)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ex.Hits, got.Hits); diff != "" {
					t.Fatalf("docs=%v k=%d %q: pruned differs (-exhaustive +pruned)\n%s", docsMode, k, q, diff)
				}
				top, err := ix.Top(ctx, q, docsMode, k)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(got.Hits, top.Hits); diff != "" {
					t.Fatalf("docs=%v k=%d %q: Top differs from Score (-Score +Top)\n%s", docsMode, k, q, diff)
				}
				if top.Total > got.Total || (!top.TotalIsLowerBound && top.Total != got.Total) || (k == 0 && top.TotalIsLowerBound) {
					t.Errorf("docs=%v k=%d %q: Top total %d (lower bound %v), exact %d", docsMode, k, q, top.Total, top.TotalIsLowerBound, got.Total)
				}
				switch {
				case got.TotalIsLowerBound:
					t.Errorf("docs=%v k=%d %q: pruned total %d is only a lower bound", docsMode, k, q, got.Total)
				case ex.TotalIsLowerBound && got.Total < ex.Total, !ex.TotalIsLowerBound && got.Total != ex.Total:
					t.Errorf("docs=%v k=%d %q: total %d, exhaustive %d (lower bound %v)", docsMode, k, q, got.Total, ex.Total, ex.TotalIsLowerBound)
				}
			}
		}
	}
}

// TestPrunedScorerAfterChanges checks the per-segment caches follow the
// index: new passages are found, replaced ones are not, and the collection
// statistics (a new average length) change scores as the exhaustive
// scorer says.
func TestPrunedScorerAfterChanges(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(filepath.Join(t.TempDir(), "ix"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	in := &pipeline.Ingester{Store: &memStore{docs: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: index.Segment, BatchDocs: 1}
	add := func(id, text string) {
		t.Helper()
		if err := in.Add(ctx, pipeline.Document{ID: id, Title: "T " + id, Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check := func(q string, want ...string) {
		t.Helper()
		for _, docsMode := range []bool{false, true} {
			got, err := ix.Score(ctx, q, docsMode, 10)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := ix.ScoreExhaustive(ctx, q, docsMode, 10)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ex.Hits, got.Hits); diff != "" {
				t.Fatalf("%q docs=%v: (-exhaustive +pruned)\n%s", q, docsMode, diff)
			}
			var ids []string
			for _, h := range got.Hits {
				ids = append(ids, h.DocID)
			}
			if !docsMode {
				continue
			}
			if diff := cmp.Diff(want, ids); diff != "" {
				t.Errorf("%q: documents (-want +got)\n%s", q, diff)
			}
		}
	}
	add("a", "Tariffs on wool and iron. The tariff was raised.")
	add("b", "Peace with Spain.")
	check("tariff", "a")
	add("c", "A tariff tariff tariff debate, short.")
	check("tariff", "c", "a")
	add("a", "Nothing about trade any more.")
	check("tariff", "c")
	check("trade", "a")
	add("d", strings.Repeat("long filler words about other matters ", 200)+"tariff")
	check("tariff", "c", "d")
}

// TestPrunedScorerWithATinyCache evicts decoded postings after every term
// (a cache of one byte): results stay those of the exhaustive scorer.
func TestPrunedScorerWithATinyCache(t *testing.T) {
	docs := loadDemo(t)[:12]
	ctx := context.Background()
	opts := index.DefaultOptions()
	opts.PostingsCacheBytes = 1
	ix, _ := buildIndex(t, opts, docs, 1, 10)
	qs := pruningQueries(t, docs, 10)
	for _, q := range qs {
		for _, docsMode := range []bool{false, true} {
			for pass := 0; pass < 2; pass++ {
				ex, err := ix.ScoreExhaustive(ctx, q, docsMode, 10)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ix.Score(ctx, q, docsMode, 10)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ex.Hits, got.Hits); diff != "" || ex.Total != got.Total {
					t.Fatalf("%q docs=%v pass %d: total %d want %d (-exhaustive +pruned)\n%s", q, docsMode, pass, got.Total, ex.Total, diff)
				}
			}
		}
	}
}

// TestPrunedScorerConcurrent runs queries from several goroutines over a
// cache small enough to evict while others read (make test runs it under
// the race detector).
func TestPrunedScorerConcurrent(t *testing.T) {
	docs := loadDemo(t)[:12]
	ctx := context.Background()
	opts := index.DefaultOptions()
	opts.PostingsCacheBytes = 64 << 10
	ix, _ := buildIndex(t, opts, docs, 1, 8)
	qs := pruningQueries(t, docs, 10)
	want := make([]index.Ranking, len(qs))
	for i, q := range qs {
		var err error
		if want[i], err = ix.ScoreExhaustive(ctx, q, i%2 == 0, 10); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for r := 0; r < 3; r++ {
				for i := range qs {
					i := (i + g*7) % len(qs)
					got, err := ix.Score(ctx, qs[i], i%2 == 0, 10)
					if err == nil && !cmp.Equal(want[i].Hits, got.Hits) {
						err = fmt.Errorf("%q: %s", qs[i], cmp.Diff(want[i].Hits, got.Hits))
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
