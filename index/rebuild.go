package index

import (
	"context"
	"fmt"
	"os"

	"github.com/crucible-portal/crucible/pipeline"
)

// PassageLister streams every stored passage with its document's title.
type PassageLister interface {
	EachPassage(ctx context.Context, fn func(title string, p pipeline.Passage) error) error
}

// Rebuild builds a fresh index at path from the store's passages. It builds
// beside the old index and swaps directories only when the new one is
// complete, so a failed or interrupted rebuild leaves the old index in
// place. The caller must have closed any open index at path. progress, if
// not nil, is called with the number of passages indexed so far. When src
// also keeps the ingest journal (LatestBatch), the new index's watermark is
// the store's latest batch.
func Rebuild(ctx context.Context, path string, opts Options, src PassageLister, progress func(done int)) (*Index, error) {
	tmp := path + ".rebuild"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("reindex: clear %s: %w", tmp, err)
	}
	// The new index holds every batch the store has committed before it
	// is read (no ingest runs meanwhile: the index is held by this process).
	var seq int64
	if j, ok := src.(interface {
		LatestBatch(ctx context.Context) (int64, error)
	}); ok {
		var err error
		if seq, err = j.LatestBatch(ctx); err != nil {
			return nil, fmt.Errorf("reindex: %w", err)
		}
	}
	ix, err := Open(tmp, opts)
	if err != nil {
		return nil, err
	}
	if err := ix.setWatermark(seq); err != nil {
		ix.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("reindex: %w", err)
	}
	// Each batch is analysed while the one before it is written
	// (pipeline.InOrder), and read from the store meanwhile.
	const batchPassages = 1000
	var order pipeline.InOrder
	var docs []pipeline.IngestDocument
	n, done := 0, 0
	flush := func() error {
		if len(docs) == 0 {
			return nil
		}
		batch, count := docs, n
		docs, n = nil, 0
		return order.Go(func() (func() error, error) {
			p, err := ix.PrepareBatch(ctx, pipeline.IndexBatch{Docs: batch})
			if err != nil {
				return nil, err
			}
			return func() error {
				if err := p.Apply(ctx); err != nil {
					return err
				}
				done += count
				if progress != nil {
					progress(done)
				}
				return nil
			}, nil
		})
	}
	err = src.EachPassage(ctx, func(title string, p pipeline.Passage) error {
		if k := len(docs); k > 0 && docs[k-1].Doc.ID == p.DocID {
			docs[k-1].Passages = append(docs[k-1].Passages, p)
		} else {
			docs = append(docs, pipeline.IngestDocument{
				Doc:      pipeline.Document{ID: p.DocID, Title: title},
				Passages: []pipeline.Passage{p},
			})
		}
		n++
		if n >= batchPassages {
			// A document split across batches is still correct (passage
			// ids are independent).
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if werr := order.Wait(); err == nil {
		err = werr
	}
	if cerr := ix.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("reindex: %w", err)
	}
	old := path + ".old"
	os.RemoveAll(old)
	if _, statErr := os.Stat(path); statErr == nil {
		if err := os.Rename(path, old); err != nil {
			return nil, fmt.Errorf("reindex: move old index aside: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("reindex: install new index: %w", err)
	}
	os.RemoveAll(old)
	return Open(path, opts)
}
