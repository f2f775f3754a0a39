package index

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// memSource is an in-memory PassageSource for the searcher.
type memSource struct {
	docs map[string]pipeline.IngestDocument
}

func (m *memSource) HitPassages(_ context.Context, ids []string) (map[string]pipeline.Passage, map[string]string, error) {
	ps, titles := map[string]pipeline.Passage{}, map[string]string{}
	for _, id := range ids {
		docID, ord, err := pipeline.ParsePassageID(id)
		if err != nil {
			return nil, nil, err
		}
		if d, ok := m.docs[docID]; ok && ord < len(d.Passages) {
			ps[id] = d.Passages[ord]
			titles[docID] = d.Doc.Title
		}
	}
	return ps, titles, nil
}

// doc builds an ingest document whose passages are the given texts.
func doc(id, title string, passages ...string) pipeline.IngestDocument {
	d := pipeline.IngestDocument{Doc: pipeline.Document{ID: id, Title: title}}
	var text strings.Builder
	for i, p := range passages {
		if i > 0 {
			text.WriteString(" ")
		}
		start := text.Len()
		text.WriteString(p)
		d.Passages = append(d.Passages, pipeline.Passage{DocID: id, Ordinal: i, Start: start, End: text.Len(), Text: p})
	}
	d.Doc.Text = text.String()
	return d
}

func newTestIndex(t *testing.T, opts Options, docs ...pipeline.IngestDocument) (*Index, *memSource) {
	t.Helper()
	ix, err := Open(filepath.Join(t.TempDir(), "ix"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	src := &memSource{docs: map[string]pipeline.IngestDocument{}}
	if err := ix.IndexDocuments(context.Background(), docs, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		src.docs[d.Doc.ID] = d
	}
	return ix, src
}

func TestBM25ScoresMatchFormula(t *testing.T) {
	opts := Options{K1: 0.9, B: 0.4}
	ix, _ := newTestIndex(t, opts,
		doc("d1", "", "apple banana"),
		doc("d2", "", "apple apple cherry"),
		doc("d3", "", "banana cherry date"),
	)
	rk, err := ix.Score(context.Background(), "apples", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, total, terms := rk.Hits, rk.Total, rk.Terms
	if diff := cmp.Diff([]string{"appl"}, terms); diff != "" {
		t.Errorf("terms (-want +got)\n%s", diff)
	}
	if total != 2 {
		t.Fatalf("total = %d, want 2", total)
	}
	// N=3 passages, df(appl)=2, lengths 2, 3, 3 so avgdl = 8/3.
	idf := math.Log(1 + (3-2+0.5)/(2+0.5))
	bm := func(tf, dl float64) float64 {
		return idf * tf * (opts.K1 + 1) / (tf + opts.K1*(1-opts.B+opts.B*dl/(8.0/3)))
	}
	want := []Scored{
		{PassageID: "d2#0", DocID: "d2", Ordinal: 0, Score: bm(2, 3)},
		{PassageID: "d1#0", DocID: "d1", Ordinal: 0, Score: bm(1, 2)},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("scores (-want +got)\n%s", diff)
	}
}

func TestQueryTermFrequencyCounts(t *testing.T) {
	ix, _ := newTestIndex(t, Options{K1: 0.9, B: 0.4},
		doc("d1", "", "apple banana"), doc("d2", "", "banana cherry"), doc("d3", "", "cherry date"))
	once, err := ix.Score(context.Background(), "apple", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := ix.Score(context.Background(), "apple apple", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(twice.Hits[0].Score-2*once.Hits[0].Score) > 1e-9 {
		t.Errorf("a term repeated in the query should count twice: %v vs %v", twice.Hits[0].Score, once.Hits[0].Score)
	}
}

func TestReplaceDeletesStalePassagesAndKeepsLengths(t *testing.T) {
	ctx := context.Background()
	ix, _ := newTestIndex(t, Options{K1: 0.9, B: 0.4},
		doc("a", "", "one two three", "four five six", "seven eight nine"),
		doc("b", "", "ten eleven"))
	if n, _ := ix.Count(); n != 4 {
		t.Fatalf("count = %d, want 4", n)
	}
	// Replace a with a single passage: a#1 and a#2 are stale.
	prev := doc("a", "", "one two three", "four five six", "seven eight nine")
	if err := ix.IndexDocuments(ctx, []pipeline.IngestDocument{doc("a", "", "twelve thirteen")}, []pipeline.IngestDocument{prev}); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.Count(); n != 2 {
		t.Fatalf("count after replace = %d, want 2", n)
	}
	tot, err := ix.totalTokens()
	if err != nil {
		t.Fatal(err)
	}
	if tot != 4 { // "twelve thirteen" + "ten eleven"
		t.Errorf("token total = %d, want 4", tot)
	}
	// Deleting a document outright (previous without a new version).
	if err := ix.IndexDocuments(ctx, nil, []pipeline.IngestDocument{doc("b", "", "ten eleven")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.Count(); n != 1 {
		t.Errorf("count after delete = %d, want 1", n)
	}
	if tot, _ = ix.totalTokens(); tot != 2 {
		t.Errorf("token total = %d, want 4", tot)
	}
	got, err := ix.Score(ctx, "seven", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hits) != 0 {
		t.Errorf("stale passage still found: %+v", got.Hits)
	}
}

func TestDocsModeUsesBestPassage(t *testing.T) {
	ix, src := newTestIndex(t, DefaultOptions(),
		doc("long", "Report", "nothing here", "tariff tariff tariff on imports", "a tariff once"),
		doc("short", "Note", "tariff"),
		doc("none", "Other", "peace and war"),
	)
	s := &Searcher{Index: ix, Source: src}
	res, err := s.Search(context.Background(), pipeline.SearchRequest{Query: "tariff", K: 10, Docs: true, Highlight: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 {
		t.Fatalf("total = %d, want 2 documents", res.Total)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.PassageID)
	}
	// Each document once, represented by its best passage.
	best, _ := ix.Score(context.Background(), "tariff", false, 0)
	want := []string{}
	seen := map[string]bool{}
	for _, b := range best.Hits {
		if !seen[b.DocID] {
			seen[b.DocID] = true
			want = append(want, b.PassageID)
		}
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("doc ranking (-want +got)\n%s", diff)
	}
	if res.Hits[0].Rank != 1 || res.Hits[1].Rank != 2 {
		t.Errorf("ranks = %d, %d", res.Hits[0].Rank, res.Hits[1].Rank)
	}
	var marked []string
	for _, f := range res.Hits[0].Fragments {
		for _, p := range f {
			if p.Match {
				marked = append(marked, p.Text)
			}
		}
	}
	if len(marked) == 0 || !strings.EqualFold(marked[0], "tariff") {
		t.Errorf("fragments mark %q, want tariff", marked)
	}
}

func TestSearchPagingAndBadQueries(t *testing.T) {
	var docs []pipeline.IngestDocument
	for i := 0; i < 25; i++ {
		docs = append(docs, doc(string(rune('a'+i)), "", strings.Repeat("word ", i+1)+"tariff"))
	}
	ix, src := newTestIndex(t, DefaultOptions(), docs...)
	s := &Searcher{Index: ix, Source: src}
	ctx := context.Background()
	p3, err := s.Search(ctx, pipeline.SearchRequest{Query: "tariff", K: 10, Offset: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(p3.Hits) != 5 || p3.Hits[0].Rank != 21 || p3.Total != 25 {
		t.Errorf("page 3: %d hits, first rank %d, total %d", len(p3.Hits), p3.Hits[0].Rank, p3.Total)
	}
	past, err := s.Search(ctx, pipeline.SearchRequest{Query: "tariff", K: 10, Offset: 100})
	if err != nil || len(past.Hits) != 0 || past.Total != 25 {
		t.Errorf("past the end: %v hits, total %d, err %v", len(past.Hits), past.Total, err)
	}
	for _, q := range []string{`title:"x`, `+-*`, `"unbalanced`, `a AND (b OR`, `\\`, "", "the of and", "日本語"} {
		if _, err := s.Search(ctx, pipeline.SearchRequest{Query: q, K: 10}); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	_, err = s.Search(ctx, pipeline.SearchRequest{Query: strings.Repeat("x ", pipeline.MaxQueryChars), K: 10})
	if !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("long query: err = %v, want ErrInvalid", err)
	}
	if _, err := s.Search(ctx, pipeline.SearchRequest{Query: "x", K: MaxK + 1}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("huge k: err = %v, want ErrInvalid", err)
	}
}

func TestMarkCoversWholeText(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions())
	text := "Tariffs rose. The tariff on <b>steel</b> — and Steel's price — fell."
	f := ix.Mark(text, "tariff steel")
	var all strings.Builder
	var marked []string
	for _, p := range f {
		all.WriteString(p.Text)
		if p.Match {
			marked = append(marked, p.Text)
		}
	}
	if all.String() != text {
		t.Errorf("parts join to %q, want the text", all.String())
	}
	if diff := cmp.Diff([]string{"Tariffs", "tariff", "steel", "Steel's"}, marked); diff != "" {
		t.Errorf("marked (-want +got)\n%s", diff)
	}
}

func TestOpenRejectsBadParameters(t *testing.T) {
	if _, err := Open(t.TempDir()+"/x", Options{K1: 0, B: 0.4}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("k1=0: err = %v", err)
	}
	if _, err := Open(t.TempDir()+"/x", Options{K1: 1, B: 1.5}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("b=1.5: err = %v", err)
	}
}

func TestOpenLockedIndexFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	_, err = Open(path, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "in use by another crucible process") {
		t.Errorf("second open: err = %v, want an in-use message", err)
	}
}

func TestIndexFormatIsRecorded(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions(), doc("a", "", "text"))
	if ok, err := ix.Current(); err != nil || !ok {
		t.Fatalf("a new index is not current: %v %v", ok, err)
	}
	if err := ix.idx.SetInternal(keyFormat, []byte("1")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := ix.Current(); ok {
		t.Error("an index of format 1 reports current")
	}
}

func TestSentenceKey(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions())
	a := ix.SentenceKey("The McKinley Tariff raised duties.")
	b := ix.SentenceKey("the mckinley tariffs RAISED the duty")
	if a != b || a == "" {
		t.Errorf("keys differ: %q vs %q", a, b)
	}
	if got := ix.Terms("The Tariffs of 1890"); !cmp.Equal(got, []string{"tariff", "1890"}) {
		t.Errorf("Terms = %q", got)
	}
	if c := ix.SentenceKey("The McKinley Tariff lowered duties."); c == a {
		t.Errorf("different sentences share key %q", c)
	}
}

// journalLister is a store of passages that also numbers its batches.
type journalLister struct {
	docs   []pipeline.IngestDocument
	latest int64
}

func (j journalLister) EachPassage(_ context.Context, fn func(string, pipeline.Passage) error) error {
	for _, d := range j.docs {
		for _, p := range d.Passages {
			if err := fn(d.Doc.Title, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (j journalLister) LatestBatch(context.Context) (int64, error) { return j.latest, nil }

// The watermark is saved with the batch that sets it, never goes back, and
// a rebuild takes the store's latest batch.
func TestWatermarkTravelsWithItsBatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if wm, err := ix.Watermark(); err != nil || wm != 0 {
		t.Fatalf("new index watermark = %d, %v; want 0", wm, err)
	}
	steps := []struct {
		b    pipeline.IndexBatch
		want int64
	}{
		{pipeline.IndexBatch{Seq: 3, Docs: []pipeline.IngestDocument{doc("a", "", "one")}}, 3},
		{pipeline.IndexBatch{Seq: 2, Docs: []pipeline.IngestDocument{doc("b", "", "two")}}, 3},
		{pipeline.IndexBatch{Docs: []pipeline.IngestDocument{doc("c", "", "three")}}, 3},
		{pipeline.IndexBatch{Seq: 5, Docs: []pipeline.IngestDocument{doc("d", "", "four")}}, 5},
	}
	for i, s := range steps {
		if err := ix.IndexBatch(ctx, s.b); err != nil {
			t.Fatal(err)
		}
		if wm, _ := ix.Watermark(); wm != s.want {
			t.Errorf("step %d: watermark = %d, want %d", i, wm, s.want)
		}
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if wm, _ := ix.Watermark(); wm != 5 {
		t.Errorf("watermark after reopening = %d, want 5", wm)
	}
	ix.Close()

	ix, err = Rebuild(ctx, path, DefaultOptions(), journalLister{docs: []pipeline.IngestDocument{doc("a", "", "one")}, latest: 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if wm, _ := ix.Watermark(); wm != 9 {
		t.Errorf("watermark after a rebuild = %d, want the store's latest batch 9", wm)
	}
	if n, _ := ix.Count(); n != 1 {
		t.Errorf("rebuilt index holds %d passages, want 1", n)
	}
}

// TestBulkLoadMatchesOrderedLoad loads the same batches (one replacing a
// document of an earlier one) with BulkBatch, several at once, and with
// IndexBatch: the passages, the token total, the scores and the
// watermark must come out the same.
func TestBulkLoadMatchesOrderedLoad(t *testing.T) {
	ctx := context.Background()
	batches := []pipeline.IndexBatch{
		{Seq: 1, Docs: []pipeline.IngestDocument{doc("a", "Tariffs", "tariff duties on iron", "the tariff of 1828", "wool and cotton")}},
		{Seq: 2, Docs: []pipeline.IngestDocument{doc("b", "", "tariff reform", "free trade"), doc("c", "", "iron and steel duties")}},
		{Seq: 3, Docs: []pipeline.IngestDocument{doc("d", "Banks", "the bank of the united states")}},
		{Seq: 4, Docs: []pipeline.IngestDocument{doc("e", "", "duties on wool")}},
	}
	replace := pipeline.IndexBatch{Seq: 5, Docs: []pipeline.IngestDocument{doc("a", "Tariffs", "a lower tariff")},
		Previous: []pipeline.IngestDocument{batches[0].Docs[0]}}

	ordered, err := Open(filepath.Join(t.TempDir(), "ordered"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ordered.Close()
	for _, b := range append(append([]pipeline.IndexBatch(nil), batches...), replace) {
		if err := ordered.IndexBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	bulk, err := Open(filepath.Join(t.TempDir(), "bulk"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Close()
	errs := make(chan error, len(batches))
	for _, b := range batches {
		go func() { errs <- bulk.BulkBatch(ctx, b) }()
	}
	for range batches {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if tot, _ := bulk.totalTokens(); tot != 0 {
		t.Errorf("token total before the checkpoint = %d, want 0 (still unwritten)", tot)
	}
	if err := bulk.BulkBatch(ctx, replace); err != nil { // after the others, as the Ingester runs it
		t.Fatal(err)
	}
	if err := bulk.CheckpointBulk(ctx, 5); err != nil {
		t.Fatal(err)
	}

	for _, ix := range []*Index{ordered, bulk} {
		if n, _ := ix.Count(); n != 6 {
			t.Errorf("%s: %d passages, want 6", ix.Path(), n)
		}
		if wm, _ := ix.Watermark(); wm != 5 {
			t.Errorf("%s: watermark %d, want 5", ix.Path(), wm)
		}
	}
	wantTotal, _ := ordered.totalTokens()
	if got, _ := bulk.totalTokens(); got != wantTotal || got == 0 {
		t.Errorf("bulk token total = %d, ordered %d", got, wantTotal)
	}
	for _, q := range []string{"tariff", "duties wool", "iron", "bank"} {
		want, err := ordered.Score(ctx, q, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bulk.Score(ctx, q, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Hits, got.Hits, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
			t.Errorf("%q: bulk hits differ (-ordered +bulk)\n%s", q, diff)
		}
	}
}

// TestBulkLoadInterruptedBeforeCheckpoint: a bulk load that stops before
// its checkpoint leaves the watermark where it was; indexing the batches
// after it again, as the next start does, counts every token once.
func TestBulkLoadInterruptedBeforeCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	first := pipeline.IndexBatch{Seq: 1, Docs: []pipeline.IngestDocument{doc("a", "", "one two three")}}
	if err := ix.IndexBatch(ctx, first); err != nil {
		t.Fatal(err)
	}
	later := []pipeline.IndexBatch{
		{Seq: 2, Docs: []pipeline.IngestDocument{doc("b", "", "four five")}},
		{Seq: 3, Docs: []pipeline.IngestDocument{doc("c", "", "six")}},
	}
	for _, b := range later {
		if err := ix.BulkBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// The process stops here: no checkpoint.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wm, err := ix.Watermark()
	if err != nil || wm != 1 {
		t.Fatalf("watermark after an interrupted bulk load = %d, %v; want 1", wm, err)
	}
	for _, b := range later { // the catch-up
		if err := ix.IndexBatch(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if tot, _ := ix.totalTokens(); tot != 6 {
		t.Errorf("token total = %d, want 6 (each passage counted once)", tot)
	}
	if n, _ := ix.Count(); n != 3 {
		t.Errorf("%d passages, want 3", n)
	}
	if wm, _ := ix.Watermark(); wm != 3 {
		t.Errorf("watermark = %d, want 3", wm)
	}
}

// TestCheckpointBulkWithoutBatches writes nothing: a load that indexed
// nothing leaves the index as it was.
func TestCheckpointBulkWithoutBatches(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions(), doc("a", "", "one two"))
	before, _ := ix.totalTokens()
	if err := ix.CheckpointBulk(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	if after, _ := ix.totalTokens(); after != before {
		t.Errorf("token total %d → %d", before, after)
	}
	if wm, _ := ix.Watermark(); wm != 0 {
		t.Errorf("watermark = %d, want 0", wm)
	}
}
