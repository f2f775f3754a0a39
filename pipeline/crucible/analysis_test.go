package crucible

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// firstDemoDocuments reads the first n addresses of the demo corpus
// (testdata/corpora/sotu.jsonl.gz), cut into passages as ingest cuts them.
func firstDemoDocuments(t testing.TB, n int) *memCorpus {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "corpora", "sotu.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	c := &memCorpus{docs: map[string]pipeline.Document{}, ps: map[string][]pipeline.Passage{}}
	sc := bufio.NewScanner(gz)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && len(c.ids) < n {
		var rec map[string]string
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		d := pipeline.Document{ID: rec["id"], Title: rec["title"], Text: rec["text"],
			Metadata: map[string]string{"author": rec["author"], "date": rec["date"]}}
		c.docs[d.ID] = d
		c.ids = append(c.ids, d.ID)
		for i, sp := range index.Segment(d.Text, 1000) {
			c.ps[d.ID] = append(c.ps[d.ID], pipeline.Passage{DocID: d.ID, Ordinal: i, Start: sp.Start, End: sp.End, Text: d.Text[sp.Start:sp.End]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// countingTerms wraps an analyzer and counts how often it analysed each
// text.
type countingTerms struct {
	next func(string) []string
	mu   sync.Mutex
	n    map[string]int
}

func (c *countingTerms) Terms(text string) []string {
	c.mu.Lock()
	c.n[text]++
	c.mu.Unlock()
	return c.next(text)
}

// demoEngine is the offline engine over c with the index's analysis, as
// the portal sets it up, with or without a cache of analysed texts.
func demoEngine(c *memCorpus, ix *index.Index, terms func(string) []string, texts *analysis.Cache) *Engine {
	e := &Engine{Searcher: c, Store: c, Terms: terms, Sentences: index.Sentences,
		SentenceKey: ix.SentenceKey, Defaults: OfflineHeuristics,
		ScanLimit: OfflineScanLimit, Name: "offline engine"}
	an := offline.AnalyzerFuncs{TermsFunc: terms, SentencesFunc: index.Sentences}
	if texts != nil {
		e.Terms, e.TermSet, e.Sentences = texts.Terms, texts.TermSet, texts.Sentences
		an = offline.AnalyzerFuncs{TermsFunc: texts.Terms, SentencesFunc: texts.Sentences}
	}
	e.Model = offline.New(an)
	return e
}

var demoRequest = pipeline.Request{ID: "tariffs", Title: "Tariffs and the revenue",
	ProblemStatement: "What did the Presidents tell Congress about tariffs, duties on imports and the revenue they raised?", Limit: 2000}

// TestAnalysisCacheChangesNothing: the report pipeline with a shared
// cache of analysed texts scans the same passages in the same order and
// finds the same candidates and report as without one, and analyses each
// passage once however many nuggets and runs read it.
func TestAnalysisCacheChangesNothing(t *testing.T) {
	c := firstDemoDocuments(t, 12)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	s := pipeline.DefaultSettings()
	run := func(e *Engine) (pipeline.Report, *recorder) {
		t.Helper()
		rec := &recorder{}
		rep, err := e.Generate(context.Background(), demoRequest, s, rec)
		if err != nil {
			t.Fatal(err)
		}
		return rep, rec
	}
	plain, plainRec := run(demoEngine(c, ix, ix.Terms, nil))
	if len(plain.Sentences) < 2 {
		t.Fatalf("the report has %d sentence(s); the test needs a few", len(plain.Sentences))
	}
	counter := &countingTerms{next: ix.Terms, n: map[string]int{}}
	texts := analysis.New(counter.Terms, index.Sentences, analysis.Options{})
	cached := demoEngine(c, ix, ix.Terms, texts)
	for i := range 2 {
		rep, rec := run(cached)
		// pipeline.LinearScore sums the features in map order, so a
		// nugget's score may differ in its last bit from run to run.
		opts := cmp.Options{cmpopts.IgnoreFields(pipeline.Report{}, "CreatedAt"), cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)}
		if diff := cmp.Diff(plain, rep, opts); diff != "" {
			t.Fatalf("run %d: the report with the cache differs (-without +with):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(plainRec.candidates, rec.candidates, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("run %d: the candidates with the cache differ (-without +with):\n%s", i+1, diff)
		}
		if len(rec.candidates) == 0 || plain.Scanned.Read == 0 {
			t.Fatalf("run %d: nothing was scanned", i+1)
		}
	}
	passages := 0
	for _, ps := range c.ps {
		for _, p := range ps {
			if n := counter.n[p.Text]; n > 1 {
				t.Errorf("passage %s analysed %d times", p.ID(), n)
			} else if n == 1 {
				passages++
			}
		}
	}
	if passages == 0 {
		t.Error("no passage was analysed through the cache")
	}
	t.Logf("%d passages analysed once each; cache %+v", passages, texts.Stats())
}

// naiveScanOrder is scanOrder as it was before the scan pool: every
// passage asked for every term of the nugget, then a stable sort.
func naiveScanOrder(r *run, n pipeline.Nugget, ret []pipeline.RetrievedDoc) []scanTarget {
	q, a := r.termSet(n.Question), r.termSet(n.Answer)
	own := map[string]bool{}
	for _, id := range n.Sources {
		own[id] = true
	}
	var out []scanTarget
	order := 0
	for _, d := range ret {
		ps := r.passages[d.DocID]
		for j := range ps {
			order++
			terms := r.termSet(ps[j].Text)
			score := 0.0
			for _, t := range q {
				if terms.Has(t) {
					score++
				}
			}
			for _, t := range a {
				if terms.Has(t) {
					score += 2
				}
			}
			if score >= scanPromiseMin && own[d.DocID] {
				score += ownSourceBonus
			}
			out = append(out, scanTarget{p: &ps[j], title: d.Title, score: score, order: order})
		}
	}
	sortStable(out, func(x, y scanTarget) bool { return x.score > y.score })
	return out
}

// TestScanPoolOrder: the scan pool orders the passages for every nugget
// as asking each passage for each of the nugget's terms did.
func TestScanPoolOrder(t *testing.T) {
	c := firstDemoDocuments(t, 12)
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	texts := analysis.New(ix.Terms, index.Sentences, analysis.Options{})
	e := demoEngine(c, ix, ix.Terms, texts)
	r := e.newRun(demoRequest, pipeline.DefaultSettings())
	var ret []pipeline.RetrievedDoc
	for i, id := range c.ids {
		ret = append(ret, pipeline.RetrievedDoc{Rank: i + 1, DocID: id, Title: c.docs[id].Title})
	}
	ctx := context.Background()
	sets, err := r.passageTermSets(ctx, ret)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := r.newScanPool(ctx, ret, func(p *pipeline.Passage) analysis.Set { return sets[p] })
	if err != nil {
		t.Fatal(err)
	}
	nuggets := []pipeline.Nugget{
		{Question: "What duties on imports did Congress lay?", Answer: "duties on spirits", Sources: []string{c.ids[2]}},
		{Question: "How many persons live in the United States?", Answer: "4,000,000 persons", Sources: []string{c.ids[1], c.ids[3]}},
		{Question: "Which treaty was made with Spain?", Answer: "the treaty of San Lorenzo"},
		{Question: "What was said about the militia?", Answer: "a uniform militia", Sources: []string{c.ids[0]}},
		{Question: "Nothing at all?", Answer: "zzz"},
	}
	for _, n := range nuggets {
		want := naiveScanOrder(r, n, ret)
		got := pool.order(r, n)
		if len(got) != len(want) {
			t.Fatalf("%q: %d targets, want %d", n.Question, len(got), len(want))
		}
		for i := range want {
			if got[i].p != want[i].p || got[i].score != want[i].score || got[i].order != want[i].order || got[i].title != want[i].title {
				t.Fatalf("%q: target %d is %s (score %g), want %s (score %g)", n.Question, i, got[i].p.ID(), got[i].score, want[i].p.ID(), want[i].score)
			}
		}
		if want[0].score == 0 && n.Answer != "zzz" {
			t.Errorf("%q: no passage shares a term: a useless case", n.Question)
		}
	}
}

// BenchmarkScanOrder orders the passages of 40 demo addresses for a
// nugget as the scan stage does (order: through the pool, an inverted index
// of the passages' terms built once per run, build) and as it did before
// (every-passage: every passage asked for every term of the nugget); the
// passages' terms come from a warm cache in both.
func BenchmarkScanOrder(b *testing.B) {
	c := firstDemoDocuments(b, 40)
	ix, err := index.Open(filepath.Join(b.TempDir(), "index"), index.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	texts := analysis.New(ix.Terms, index.Sentences, analysis.Options{})
	r := demoEngine(c, ix, ix.Terms, texts).newRun(demoRequest, pipeline.DefaultSettings())
	var ret []pipeline.RetrievedDoc
	for i, id := range c.ids {
		ret = append(ret, pipeline.RetrievedDoc{Rank: i + 1, DocID: id, Title: c.docs[id].Title})
	}
	ctx := context.Background()
	sets, err := r.passageTermSets(ctx, ret)
	if err != nil {
		b.Fatal(err)
	}
	terms := func(p *pipeline.Passage) analysis.Set { return sets[p] }
	n := pipeline.Nugget{Question: "What duties on imports did Congress lay?", Answer: "duties on spirits"}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.newScanPool(ctx, ret, terms); err != nil {
				b.Fatal(err)
			}
		}
	})
	pool, err := r.newScanPool(ctx, ret, terms)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("order", func(b *testing.B) {
		for b.Loop() {
			pool.order(r, n)
		}
	})
	b.Run("every-passage", func(b *testing.B) {
		for b.Loop() {
			naiveScanOrder(r, n, ret)
		}
	})
}
