package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestPassageID(t *testing.T) {
	for _, tc := range []struct {
		doc string
		ord int
	}{{"a", 0}, {"a#b", 12}, {"dir/file.md", 3}, {"#", 1}} {
		id := pipeline.PassageID(tc.doc, tc.ord)
		doc, ord, err := pipeline.ParsePassageID(id)
		if err != nil || doc != tc.doc || ord != tc.ord {
			t.Errorf("ParsePassageID(%q) = %q, %d, %v", id, doc, ord, err)
		}
	}
	for _, bad := range []string{"", "nohash", "a#", "a#x", "a#-1"} {
		if _, _, err := pipeline.ParsePassageID(bad); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("ParsePassageID(%q): err = %v, want ErrInvalid", bad, err)
		}
	}
}

type fakeWriter struct {
	batches [][]string
	fail    error
}

func (f *fakeWriter) ReplaceDocuments(_ context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	if f.fail != nil {
		return pipeline.ReplaceResult{}, f.fail
	}
	var ids []string
	for _, b := range batch {
		ids = append(ids, b.Doc.ID+"="+b.Doc.Text)
	}
	f.batches = append(f.batches, ids)
	return pipeline.ReplaceResult{Inserted: len(batch), Previous: []pipeline.IngestDocument{{Doc: pipeline.Document{ID: "old"}}}}, nil
}

type fakeIndex struct {
	previous [][]pipeline.IngestDocument
	docs     []pipeline.IngestDocument
	fail     error
}

func (f *fakeIndex) IndexBatch(_ context.Context, b pipeline.IndexBatch) error {
	f.previous = append(f.previous, b.Previous)
	f.docs = append(f.docs, b.Docs...)
	return f.fail
}

// words cuts text at spaces.
func words(text string, _ int) []pipeline.Span {
	var out []pipeline.Span
	start := -1
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == ' ' {
			if start >= 0 {
				out = append(out, pipeline.Span{Start: start, End: i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}

func TestIngesterBatchesAndLastWins(t *testing.T) {
	ctx := context.Background()
	w, ix := &fakeWriter{}, &fakeIndex{}
	in := &pipeline.Ingester{Store: w, Index: ix, Segment: words, BatchDocs: 3}
	for _, d := range []pipeline.Document{
		{ID: "a", Text: "one"}, {ID: "b", Text: "two words"}, {ID: "a", Text: "three"}, // batch 1: a twice
		{ID: "c", Text: "four"},
	} {
		if err := in.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"b=two words", "a=three"}, {"c=four"}}
	if diff := cmp.Diff(want, w.batches); diff != "" {
		t.Errorf("batches (-want +got)\n%s", diff)
	}
	if got := in.Stats(); got != (pipeline.IngestStats{Inserted: 3, Passages: 4}) {
		t.Errorf("stats = %+v", got)
	}
	if len(ix.previous) != 2 || ix.previous[0][0].Doc.ID != "old" {
		t.Errorf("replaced documents not passed to the index: %v", ix.previous)
	}
}

func TestIngesterErrors(t *testing.T) {
	ctx := context.Background()
	in := &pipeline.Ingester{Store: &fakeWriter{}, Index: &fakeIndex{}, Segment: words}
	if err := in.Add(ctx, pipeline.Document{ID: "x", Text: "   "}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("blank text: err = %v, want ErrInvalid", err)
	}

	in = &pipeline.Ingester{Store: &fakeWriter{}, Index: &fakeIndex{fail: errors.New("disk full")}, Segment: words}
	in.Add(ctx, pipeline.Document{ID: "x", Text: "text"})
	err := in.Flush(ctx)
	if err == nil || !strings.Contains(err.Error(), "crucible reindex") || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("index failure: err = %v, want advice to reindex", err)
	}

	in = &pipeline.Ingester{Store: &fakeWriter{fail: errors.New("locked")}, Index: &fakeIndex{}, Segment: words}
	in.Add(ctx, pipeline.Document{ID: "x", Text: "text"})
	if err := in.Flush(ctx); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("store failure: err = %v, want the batch named", err)
	}
}

func TestIngesterRefusesTooManyPassages(t *testing.T) {
	ctx := context.Background()
	w := &fakeWriter{}
	in := &pipeline.Ingester{Store: w, Index: &fakeIndex{}, Segment: words, MaxPassages: 3}
	err := in.Add(ctx, pipeline.Document{ID: "huge", Text: "one two three four"})
	var many *pipeline.TooManyPassagesError
	if !errors.As(err, &many) || many.Passages != 4 || many.Limit != 3 ||
		err.Error() != `document "huge" has 4 passages, more than the limit of 3 per document: not stored` {
		t.Fatalf("err = %v, want a TooManyPassagesError of 4 over 3", err)
	}
	if err := in.Add(ctx, pipeline.Document{ID: "ok", Text: "one two three"}); err != nil {
		t.Fatal(err)
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"ok=one two three"}}, w.batches); diff != "" {
		t.Errorf("stored (-want +got)\n%s", diff)
	}
}

// slowIndex records the order batches arrive in and whether two ever
// overlap; it can fail on a given batch.
type slowIndex struct {
	mu      sync.Mutex
	busy    bool
	overlap bool
	seqs    []int64
	failOn  int64
}

func (f *slowIndex) IndexBatch(_ context.Context, b pipeline.IndexBatch) error {
	f.mu.Lock()
	if f.busy {
		f.overlap = true
	}
	f.busy = true
	f.mu.Unlock()
	time.Sleep(time.Millisecond)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busy = false
	f.seqs = append(f.seqs, b.Seq)
	if b.Seq == f.failOn {
		return errors.New("disk full")
	}
	return nil
}

// seqWriter numbers its batches as the store's journal does.
type seqWriter struct{ n int64 }

func (w *seqWriter) ReplaceDocuments(_ context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	w.n++
	return pipeline.ReplaceResult{Inserted: len(batch), Batch: w.n}, nil
}

// TestIngesterOverlap indexes in the background with Overlap: batches
// reach the index one at a time, in the order they were stored, all of
// them by the time Flush returns, and an index failure comes back from the
// next call.
func TestIngesterOverlap(t *testing.T) {
	ctx := context.Background()
	ix := &slowIndex{}
	in := &pipeline.Ingester{Store: &seqWriter{}, Index: ix, Segment: words, BatchDocs: 2, Overlap: true}
	for i := 0; i < 21; i++ {
		if err := in.Add(ctx, pipeline.Document{ID: fmt.Sprint("d", i), Text: "some words"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	if diff := cmp.Diff(want, ix.seqs); diff != "" || ix.overlap {
		t.Errorf("batches indexed (-want +got), overlapping %v\n%s", ix.overlap, diff)
	}

	ix = &slowIndex{failOn: 2}
	in = &pipeline.Ingester{Store: &seqWriter{}, Index: ix, Segment: words, BatchDocs: 1, Overlap: true}
	err := addUntilError(ctx, in, 10)
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "crucible reindex") {
		t.Errorf("index failure in the background: err = %v, want it reported with advice to reindex", err)
	}
}

// addUntilError adds n one-word documents, stopping at the first error,
// then flushes; it returns the first error.
func addUntilError(ctx context.Context, in *pipeline.Ingester, n int) error {
	var err error
	for i := 0; i < n && err == nil; i++ {
		err = in.Add(ctx, pipeline.Document{ID: fmt.Sprint("d", i), Text: "text"})
	}
	if err == nil {
		err = in.Flush(ctx)
	}
	return err
}

// failingWriter numbers its batches and fails the failOn-th; it records
// every batch it was asked to store.
type failingWriter struct {
	calls  int64
	failOn int64
}

func (w *failingWriter) ReplaceDocuments(_ context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	w.calls++
	if w.calls == w.failOn {
		return pipeline.ReplaceResult{}, errors.New("database is locked")
	}
	return pipeline.ReplaceResult{Inserted: len(batch), Batch: w.calls}, nil
}

// TestIngesterOverlapStoreFailure stores in the background with Overlap:
// a store failure comes back from a later Add or from Flush once the
// batches in flight have settled, no batch is stored after it, and the
// batches stored before it are indexed and counted.
func TestIngesterOverlapStoreFailure(t *testing.T) {
	ctx := context.Background()
	w := &failingWriter{failOn: 3}
	ix := &slowIndex{}
	in := &pipeline.Ingester{Store: w, Index: ix, Segment: words, BatchDocs: 1, Overlap: true}
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		err = in.Add(ctx, pipeline.Document{ID: fmt.Sprint("d", i), Text: "text"})
	}
	if err == nil {
		err = in.Flush(ctx)
	}
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("store failure in the background: err = %v", err)
	}
	if w.calls != 3 {
		t.Errorf("store asked %d times, want 3 (none after the failure)", w.calls)
	}
	if diff := cmp.Diff([]int64{1, 2}, ix.seqs); diff != "" {
		t.Errorf("batches indexed (-want +got)\n%s", diff)
	}
	if st := in.Stats(); st.Inserted != 2 || st.Passages != 2 {
		t.Errorf("stats %+v, want 2 inserted, 2 passages", st)
	}
	if err := in.Flush(ctx); err == nil {
		t.Error("Flush after the failure: no error")
	}
}

// bulkIndex is a BulkLoader that records what a bulk load did: how many
// batches were in flight at once, whether a batch replacing documents
// started while an earlier one was in flight, and its checkpoints.
type bulkIndex struct {
	mu          sync.Mutex
	inFlight    int
	flying      map[int64]bool // the batches in flight
	most        int
	replaceBusy bool
	seqs        []int64
	checkpoints []int64
	failOn      int64
	// firstWaits makes the first batch wait until a second has started,
	// so the test sees two at once without relying on timing.
	firstWaits chan struct{}
}

func (f *bulkIndex) IndexBatch(context.Context, pipeline.IndexBatch) error {
	return errors.New("IndexBatch called during a bulk load")
}

func (f *bulkIndex) BulkBatch(_ context.Context, b pipeline.IndexBatch) error {
	f.mu.Lock()
	for seq := range f.flying {
		if len(b.Previous) > 0 && seq < b.Seq {
			f.replaceBusy = true
		}
	}
	f.flying[b.Seq] = true
	f.inFlight++
	f.most = max(f.most, f.inFlight)
	f.mu.Unlock()
	switch b.Seq {
	case 1:
		select {
		case <-f.firstWaits:
		case <-time.After(10 * time.Second):
		}
	case 2:
		close(f.firstWaits)
	}
	time.Sleep(time.Millisecond)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
	delete(f.flying, b.Seq)
	f.seqs = append(f.seqs, b.Seq)
	if b.Seq == f.failOn {
		return errors.New("disk full")
	}
	return nil
}

func (f *bulkIndex) CheckpointBulk(_ context.Context, seq int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checkpoints = append(f.checkpoints, seq)
	return nil
}

// replacingWriter numbers its batches and returns the stored version of a
// document it is given again as replaced.
type replacingWriter struct {
	n      int64
	stored map[string]pipeline.IngestDocument
}

func (w *replacingWriter) ReplaceDocuments(_ context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	w.n++
	res := pipeline.ReplaceResult{Batch: w.n}
	for _, d := range batch {
		if old, ok := w.stored[d.Doc.ID]; ok {
			res.Replaced++
			res.Previous = append(res.Previous, old)
		} else {
			res.Inserted++
		}
		w.stored[d.Doc.ID] = d
	}
	return res, nil
}

// TestIngesterBulk indexes with Bulk: batches go to BulkBatch two at a
// time, a batch that replaces a document only once the ones before it
// are in, and Flush checkpoints the highest batch number once all are
// in (and every 32 batches on the way); after a failure it reports the
// error and does not checkpoint.
func TestIngesterBulk(t *testing.T) {
	ctx := context.Background()
	ix := &bulkIndex{firstWaits: make(chan struct{}), flying: map[int64]bool{}}
	in := &pipeline.Ingester{Store: &replacingWriter{stored: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: words, BatchDocs: 1, Overlap: true, Bulk: true}
	ids := []string{"a", "b", "c", "d", "b", "e", "f"} // batch 5 replaces b
	for _, id := range ids {
		if err := in.Add(ctx, pipeline.Document{ID: id, Text: "some words"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sort.Slice(ix.seqs, func(i, j int) bool { return ix.seqs[i] < ix.seqs[j] })
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7}, ix.seqs); diff != "" {
		t.Errorf("batches indexed (-want +got)\n%s", diff)
	}
	if ix.most != 2 {
		t.Errorf("at most %d batches in flight, want 2", ix.most)
	}
	if ix.replaceBusy {
		t.Error("the batch replacing a document started while an earlier one was in flight")
	}
	if diff := cmp.Diff([]int64{7}, ix.checkpoints); diff != "" {
		t.Errorf("checkpoints (-want +got)\n%s", diff)
	}
	if st := in.Stats(); st.Inserted != 6 || st.Replaced != 1 {
		t.Errorf("stats %+v", st)
	}

	ix = &bulkIndex{firstWaits: make(chan struct{}), flying: map[int64]bool{}, failOn: 3}
	in = &pipeline.Ingester{Store: &replacingWriter{stored: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: words, BatchDocs: 1, Overlap: true, Bulk: true}
	err := addUntilError(ctx, in, 10)
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "crucible reindex") {
		t.Errorf("bulk index failure: err = %v, want it reported with advice to reindex", err)
	}
	if len(ix.checkpoints) != 0 {
		t.Errorf("checkpointed %v after a failure", ix.checkpoints)
	}

	// A long load checkpoints on the way, every 32 batches.
	ix = &bulkIndex{firstWaits: make(chan struct{}), flying: map[int64]bool{}}
	in = &pipeline.Ingester{Store: &replacingWriter{stored: map[string]pipeline.IngestDocument{}}, Index: ix, Segment: words, BatchDocs: 1, Overlap: true, Bulk: true}
	for i := 0; i < 70; i++ {
		if err := in.Add(ctx, pipeline.Document{ID: fmt.Sprint("d", i), Text: "text"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{32, 64, 70}, ix.checkpoints); diff != "" {
		t.Errorf("checkpoints of a long load (-want +got)\n%s", diff)
	}
}
