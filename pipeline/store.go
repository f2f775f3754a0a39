package pipeline

import "context"

// DocumentStore reads documents and passages.
type DocumentStore interface {
	// Document returns the document with the id, or ErrNotFound.
	Document(ctx context.Context, id string) (Document, error)
	// Passages returns a document's passages in order, or ErrNotFound when
	// the document does not exist.
	Passages(ctx context.Context, docID string) ([]Passage, error)
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
}

// DocumentWriter stores documents with their passages, replacing any stored
// document with the same id; a batch is stored whole or not at all.
type DocumentWriter interface {
	ReplaceDocuments(ctx context.Context, batch []IngestDocument) (ReplaceResult, error)
}

// PassageIndexer keeps the derived search index in step with the store.
// previous are the stored versions of documents that docs replace.
type PassageIndexer interface {
	IndexDocuments(ctx context.Context, docs []IngestDocument, previous []IngestDocument) error
}
