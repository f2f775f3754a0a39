package pipeline

import (
	"context"
	"fmt"
	"sync"
)

// Segmenter cuts a document's text into passage spans of at most maxChars
// characters.
type Segmenter func(text string, maxChars int) []Span

// IngestStats counts what an Ingester did.
type IngestStats struct {
	Inserted  int
	Replaced  int
	Unchanged int // stored already exactly as given: not written again
	Passages  int // passages written
}

// Ingester stores documents and indexes their passages in batches: each
// batch is committed to the store (the source of truth) first, then to the
// index together with the store's batch number. If indexing fails (or the
// process dies) after the store committed, the index's batch number says
// which batches it lacks and the next reader indexes them; nothing stored
// is lost. Documents stored already exactly as given are not written again.
//
// With Overlap set, storing and indexing a batch overlap with reading and
// segmenting the next ones: a full batch is stored by a goroutine of its
// own (batches one at a time, in the order Add made them) and then
// indexed in the background (its analysis alongside the previous batch's
// write when the index is a BatchPreparer; writes one at a time, in
// order), while Add goes on; Flush waits for all of them. A store or
// index error is then returned by the next Add that completes a batch, or
// by Flush, once the batches in flight have settled; no batch is stored
// after a failed one.
type Ingester struct {
	Store   DocumentWriter
	Index   PassageIndexer
	Segment Segmenter
	// BatchDocs is the number of documents per batch (default 64: on the
	// demo corpus replicated ten times, batches of 64 ingested faster and
	// in half the memory of batches of 256, docs/benchmarks.md §2).
	BatchDocs int
	// BatchBytes flushes a batch early once its text reaches this size
	// (default 8 MiB), bounding memory for collections of huge documents.
	BatchBytes int
	// MaxPassages, when positive, bounds the passages of one document: a
	// document that segments into more is refused with a
	// *TooManyPassagesError and nothing of it is stored, so one huge
	// document cannot swell the index and the store.
	MaxPassages int
	// Overlap indexes each full batch in the background while the next
	// one is read and stored (a bulk load on several cores).
	Overlap bool
	// Bulk, with Overlap and an Index that is a BulkLoader, indexes up
	// to bulkDepth batches at once, landing in any order, and writes the
	// index's statistics and watermark when Flush has seen every batch in
	// (BulkLoader.CheckpointBulk). For a load nothing searches meanwhile
	// (a first `crucible ingest`, into an empty store and index): Bleve builds each batch's
	// segment in the goroutine that hands it the batch, so one writer at
	// a time leaves a core idle. A batch that replaces documents waits
	// for the batches before it.
	Bulk bool

	batch      []IngestDocument
	batchBytes int
	statsMu    sync.Mutex // guards stats (written by the store goroutine)
	stats      IngestStats
	order      InOrder // the batches being indexed in the background
	bulk       bulkRun // with Bulk: the batches being indexed in any order

	// With Overlap: the batches waiting for the store goroutine, which
	// runs while a batch is queued or being stored (storing says so).
	queue    chan []IngestDocument
	storing  sync.WaitGroup
	storeMu  sync.Mutex
	storeErr error
}

// TooManyPassagesError refuses a document that segments into more
// passages than Ingester.MaxPassages. The caller reports it and goes on.
type TooManyPassagesError struct {
	DocID    string
	Passages int
	Limit    int
}

func (e *TooManyPassagesError) Error() string {
	return fmt.Sprintf("document %q has %d passages, more than the limit of %d per document: not stored", e.DocID, e.Passages, e.Limit)
}

// DefaultBatchDocs is Ingester.BatchDocs's default.
const DefaultBatchDocs = 64

// Add segments a document and queues it; full batches are written.
func (in *Ingester) Add(ctx context.Context, doc Document) error {
	spans := in.segment(doc)
	if len(spans) == 0 {
		return Invalidf("document %q has no text to index", doc.ID)
	}
	if in.MaxPassages > 0 && len(spans) > in.MaxPassages {
		return &TooManyPassagesError{DocID: doc.ID, Passages: len(spans), Limit: in.MaxPassages}
	}
	ps := make([]Passage, len(spans))
	for i, s := range spans {
		ps[i] = Passage{DocID: doc.ID, Ordinal: i, Start: s.Start, End: s.End, Text: doc.Text[s.Start:s.End]}
	}
	in.batch = append(in.batch, IngestDocument{Doc: doc, Passages: ps})
	in.batchBytes += len(doc.Text)
	bd, bb := in.BatchDocs, in.BatchBytes
	if bd <= 0 {
		bd = DefaultBatchDocs
	}
	if bb <= 0 {
		bb = 8 << 20
	}
	if len(in.batch) >= bd || in.batchBytes >= bb {
		return in.flush(ctx, false)
	}
	return nil
}

// segment cuts a document into passage spans; a paged document (a PDF)
// is cut page by page, so that every passage lies on one page and its
// provenance names it.
func (in *Ingester) segment(doc Document) []Span {
	pages := PageSpans(doc.Metadata, len(doc.Text))
	if pages == nil {
		return in.Segment(doc.Text, MaxPassageChars)
	}
	var out []Span
	for _, pg := range pages {
		for _, s := range in.Segment(doc.Text[pg.Start:pg.End], MaxPassageChars) {
			out = append(out, Span{Start: pg.Start + s.Start, End: pg.Start + s.End})
		}
	}
	return out
}

// Flush writes the queued documents and waits until every batch is
// stored and indexed; with Bulk it then records them in the index
// (BulkLoader.CheckpointBulk).
func (in *Ingester) Flush(ctx context.Context) error {
	if err := in.flush(ctx, true); err != nil {
		return err
	}
	return in.bulk.checkpoint(ctx)
}

// flush stores the queued documents and starts indexing them; with wait
// it also waits for the index.
func (in *Ingester) flush(ctx context.Context, wait bool) error {
	if in.Overlap {
		return in.flushOverlapped(ctx, wait)
	}
	if len(in.batch) == 0 {
		return nil
	}
	return in.store(ctx, in.take())
}

// take removes the queued documents, the last occurrence of an id
// winning, in the store and in the index alike.
func (in *Ingester) take() []IngestDocument {
	batch := in.batch
	in.batch, in.batchBytes = nil, 0
	last := make(map[string]int, len(batch))
	for i, b := range batch {
		last[b.Doc.ID] = i
	}
	uniq := batch[:0:0]
	for i, b := range batch {
		if last[b.Doc.ID] == i {
			uniq = append(uniq, b)
		}
	}
	return uniq
}

// flushOverlapped hands the queued documents to the store goroutine
// (started on the first batch, stopped by a waiting flush); with wait it
// waits until every batch is stored and indexed. An error of a batch in
// flight is returned once they have all settled.
func (in *Ingester) flushOverlapped(ctx context.Context, wait bool) error {
	if err := in.firstStoreErr(); err != nil {
		return in.settle(err)
	}
	if len(in.batch) > 0 {
		if in.queue == nil {
			// One batch may wait while the one before it is stored: Add
			// reads and segments the next meanwhile.
			in.queue = make(chan []IngestDocument, 1)
			in.storing.Add(1)
			go in.storeLoop(ctx, in.queue)
		}
		in.queue <- in.take()
	}
	if !wait {
		return nil
	}
	return in.settle(nil)
}

// storeLoop stores the batches of queue in order and starts indexing
// each; after an error it stores no more.
func (in *Ingester) storeLoop(ctx context.Context, queue chan []IngestDocument) {
	defer in.storing.Done()
	for batch := range queue {
		if in.firstStoreErr() != nil {
			continue
		}
		if err := in.store(ctx, batch); err != nil {
			in.storeMu.Lock()
			if in.storeErr == nil {
				in.storeErr = err
			}
			in.storeMu.Unlock()
		}
	}
}

func (in *Ingester) firstStoreErr() error {
	in.storeMu.Lock()
	defer in.storeMu.Unlock()
	return in.storeErr
}

// settle stops the store goroutine once its queue is stored and waits
// for the index; it returns err, else the first error of the store or
// the index.
func (in *Ingester) settle(err error) error {
	if in.queue != nil {
		close(in.queue)
		in.storing.Wait()
		in.queue = nil
	}
	ierr := in.order.Wait()
	if berr := in.bulk.wait(); ierr == nil {
		ierr = berr
	}
	if err == nil {
		err = in.firstStoreErr()
	}
	if err == nil {
		err = ierr
	}
	return err
}

// store writes a batch to the store and indexes what it wrote: at once,
// or with Overlap in the background (the index's batches in the order they
// were stored).
func (in *Ingester) store(ctx context.Context, uniq []IngestDocument) error {
	res, err := in.Store.ReplaceDocuments(ctx, uniq)
	if err != nil {
		return fmt.Errorf("store batch of %d documents (first %q): %w", len(uniq), uniq[0].Doc.ID, err)
	}
	written := uniq
	if len(res.Unchanged) > 0 {
		same := make(map[string]bool, len(res.Unchanged))
		for _, id := range res.Unchanged {
			same[id] = true
		}
		written = written[:0:0]
		for _, b := range uniq {
			if !same[b.Doc.ID] {
				written = append(written, b)
			}
		}
	}
	in.statsMu.Lock()
	in.stats.Inserted += res.Inserted
	in.stats.Replaced += res.Replaced
	in.stats.Unchanged += len(res.Unchanged)
	for _, b := range written {
		in.stats.Passages += len(b.Passages)
	}
	in.statsMu.Unlock()
	if len(written) == 0 {
		return nil
	}
	b := IndexBatch{Seq: res.Batch, Docs: written, Previous: res.Previous}
	if !in.Overlap {
		return indexFailed(in.Index.IndexBatch(ctx, b))
	}
	if bl, ok := in.Index.(BulkLoader); ok && in.Bulk {
		return in.bulk.start(ctx, bl, b)
	}
	// Only the store goroutine starts index jobs, one batch at a time.
	return in.order.Go(func() (func() error, error) {
		if p, ok := in.Index.(BatchPreparer); ok {
			pb, err := p.PrepareBatch(ctx, b)
			if err != nil {
				return nil, indexFailed(err)
			}
			return func() error { return indexFailed(pb.Apply(ctx)) }, nil
		}
		return func() error { return indexFailed(in.Index.IndexBatch(ctx, b)) }, nil
	})
}

// BulkLoader is a PassageIndexer that can index a bulk load's batches
// several at a time, landing in any order (Ingester.Bulk). BulkBatch
// leaves the index's collection statistics and watermark as they were;
// CheckpointBulk, called when every BulkBatch has returned, writes them,
// seq being the number of the last batch. If the process dies before the
// checkpoint, the next start indexes every batch after the last one
// again (the watermark has not moved).
type BulkLoader interface {
	BulkBatch(ctx context.Context, b IndexBatch) error
	CheckpointBulk(ctx context.Context, seq int64) error
}

// bulkDepth is how many batches a bulk load indexes at once, and
// bulkCheckpointEvery after how many batches it waits for those in
// flight and checkpoints, so that a load killed near its end does not
// leave the next start to index it all again.
const (
	bulkDepth           = 2
	bulkCheckpointEvery = 32
)

// bulkRun indexes a bulk load's batches, bulkDepth at once, for the store
// goroutine (Ingester.Bulk). After an error it starts no more.
type bulkRun struct {
	loader BulkLoader
	slots  chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	seq    int64 // the highest batch number indexed
	since  int   // batches started since the last checkpoint
}

// start indexes a batch in the background once a slot is free; a batch
// that replaces documents first waits for the ones in flight, so that
// its deletions cannot land before their additions.
func (r *bulkRun) start(ctx context.Context, bl BulkLoader, b IndexBatch) error {
	if err := r.firstErr(); err != nil {
		return err
	}
	if r.slots == nil {
		r.loader, r.slots = bl, make(chan struct{}, bulkDepth)
	}
	if r.since >= bulkCheckpointEvery {
		if err := r.checkpoint(ctx); err != nil {
			return err
		}
	}
	if len(b.Previous) > 0 {
		r.wg.Wait()
		if err := r.firstErr(); err != nil {
			return err
		}
	}
	r.since++
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.wg.Add(1)
	go func() {
		defer func() { <-r.slots; r.wg.Done() }()
		err := bl.BulkBatch(ctx, b)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			if r.err == nil {
				r.err = indexFailed(err)
			}
			return
		}
		r.seq = max(r.seq, b.Seq)
	}()
	return nil
}

// wait waits for the batches in flight and returns the first error.
func (r *bulkRun) wait() error {
	r.wg.Wait()
	return r.firstErr()
}

// checkpoint records the batches indexed so far in the index, once they
// are all in and none failed.
func (r *bulkRun) checkpoint(ctx context.Context) error {
	if r.loader == nil {
		return nil
	}
	if err := r.wait(); err != nil {
		return err
	}
	r.mu.Lock()
	seq := r.seq
	r.mu.Unlock()
	r.since = 0
	err := indexFailed(r.loader.CheckpointBulk(ctx, seq))
	if err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return err
}

func (r *bulkRun) firstErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// indexFailed says what an index error after a stored batch means.
func indexFailed(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("documents were stored but indexing failed (run `crucible reindex` to rebuild the index): %w", err)
}

// Stats returns the counts so far (after Flush, complete).
func (in *Ingester) Stats() IngestStats {
	in.statsMu.Lock()
	defer in.statsMu.Unlock()
	return in.stats
}
