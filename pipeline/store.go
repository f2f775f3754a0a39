package pipeline

import (
	"context"
	"errors"
)

// DocumentStore reads documents and passages.
type DocumentStore interface {
	// Document returns the document with the id, or ErrNotFound.
	Document(ctx context.Context, id string) (Document, error)
	// Passages returns a document's passages in order, or ErrNotFound when
	// the document does not exist.
	Passages(ctx context.Context, docID string) ([]Passage, error)
	// DocumentPassages returns the document with the id and its passages
	// in order in one read, or ErrNotFound.
	DocumentPassages(ctx context.Context, id string) (Document, []Passage, error)
	// Stats summarises the collection.
	Stats(ctx context.Context) (CollectionStats, error)
}

// IngestDocument is a document ready to store: its passages already cut.
type IngestDocument struct {
	Doc      Document
	Passages []Passage
}

// ReplaceResult tells what storing a batch of documents changed.
type ReplaceResult struct {
	Inserted int // documents new to the collection
	Replaced int // documents that existed and were replaced
	// Previous holds the replaced documents as they were stored (title and
	// passages; the text is not loaded), so the index can remove what no
	// longer exists and keep its statistics exact.
	Previous []IngestDocument
	// Unchanged lists the documents of the batch stored already exactly as
	// given (title, text, metadata and source): they are not written again,
	// so re-reading a collection after an interrupted ingest only writes
	// what is new.
	Unchanged []string
	// Batch is the store's sequence number for this batch (0 when the
	// store keeps no journal or the batch wrote nothing). The index records
	// the last batch it holds, so a reader can tell exactly which batches
	// an interrupted ingest left out of the index.
	Batch int64
}

// DocumentWriter stores documents with their passages, replacing any stored
// document with the same id; a batch is stored whole or not at all.
type DocumentWriter interface {
	ReplaceDocuments(ctx context.Context, batch []IngestDocument) (ReplaceResult, error)
}

// IndexBatch is what one stored batch asks of the index: Docs to index,
// replacing Previous (the stored versions they replace), as the store's
// batch number Seq (0: no number to record).
type IndexBatch struct {
	Seq      int64
	Docs     []IngestDocument
	Previous []IngestDocument
}

// PassageIndexer keeps the derived search index in step with the store: it
// applies a batch atomically, together with the batch's number.
type PassageIndexer interface {
	IndexBatch(ctx context.Context, b IndexBatch) error
}

// ErrJournalGap means the store's ingest journal no longer holds a batch an
// index lacks, so the index can only be rebuilt from the store.
var ErrJournalGap = errors.New("the ingest journal does not hold every batch the index lacks")

// BatchJournal is the store's record of committed batches, by number.
type BatchJournal interface {
	// LatestBatch is the number of the last committed batch (0: none).
	LatestBatch(ctx context.Context) (int64, error)
	// BatchesAfter merges the batches after seq into one IndexBatch that
	// brings an index holding batch seq up to LatestBatch; it fails with
	// ErrJournalGap when a batch is no longer journalled.
	BatchesAfter(ctx context.Context, seq int64) (IndexBatch, error)
	// TrimBatches forgets the batches up to through, once an index holding
	// them is safely on disk.
	TrimBatches(ctx context.Context, through int64) error
}
