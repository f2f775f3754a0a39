package pipeline

import (
	"context"
	"fmt"
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
// With Overlap set, indexing a batch overlaps with reading and storing the
// next ones: a full batch is indexed in the background while Add goes on
// (its analysis alongside the previous batch's write when the index is a
// BatchPreparer; writes one at a time, in order); Flush waits for all of
// them. An index error is then returned by the next Add that stores a
// batch, or by Flush.
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

	batch      []IngestDocument
	batchBytes int
	stats      IngestStats
	order      InOrder // the batches being indexed in the background
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
// indexed.
func (in *Ingester) Flush(ctx context.Context) error {
	return in.flush(ctx, true)
}

// flush stores the queued documents and starts indexing them; with wait
// it also waits for the index.
func (in *Ingester) flush(ctx context.Context, wait bool) error {
	if len(in.batch) == 0 {
		if wait {
			return in.order.Wait()
		}
		return nil
	}
	batch := in.batch
	in.batch, in.batchBytes = nil, 0
	// Within a batch the last occurrence of an id wins, in the store and in
	// the index alike.
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
	res, err := in.Store.ReplaceDocuments(ctx, uniq)
	if err != nil {
		return fmt.Errorf("store batch of %d documents (first %q): %w", len(uniq), uniq[0].Doc.ID, err)
	}
	in.stats.Inserted += res.Inserted
	in.stats.Replaced += res.Replaced
	in.stats.Unchanged += len(res.Unchanged)
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
	for _, b := range written {
		in.stats.Passages += len(b.Passages)
	}
	if len(written) > 0 {
		b := IndexBatch{Seq: res.Batch, Docs: written, Previous: res.Previous}
		if !in.Overlap {
			return indexFailed(in.Index.IndexBatch(ctx, b))
		}
		// Batches reach the index in the order they were stored.
		err := in.order.Go(func() (func() error, error) {
			if p, ok := in.Index.(BatchPreparer); ok {
				pb, err := p.PrepareBatch(ctx, b)
				if err != nil {
					return nil, indexFailed(err)
				}
				return func() error { return indexFailed(pb.Apply(ctx)) }, nil
			}
			return func() error { return indexFailed(in.Index.IndexBatch(ctx, b)) }, nil
		})
		if err != nil {
			return err
		}
	}
	if wait {
		return in.order.Wait()
	}
	return nil
}

// indexFailed says what an index error after a stored batch means.
func indexFailed(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("documents were stored but indexing failed (run `crucible reindex` to rebuild the index): %w", err)
}

// Stats returns the counts so far (after Flush, complete).
func (in *Ingester) Stats() IngestStats { return in.stats }
