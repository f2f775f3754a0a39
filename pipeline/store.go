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
	// Stale lists the ids of passages that existed before and no longer do
	// (a replaced document that now has fewer passages): the index must
	// delete them.
	Stale []string
}

// DocumentWriter stores documents with their passages, replacing any stored
// document with the same id; a batch is stored whole or not at all.
type DocumentWriter interface {
	ReplaceDocuments(ctx context.Context, batch []IngestDocument) (ReplaceResult, error)
}

// PassageIndexer keeps the derived search index in step with the store.
type PassageIndexer interface {
	IndexDocuments(ctx context.Context, docs []IngestDocument, stale []string) error
}
