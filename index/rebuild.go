package index

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
)

// rebuildWorkers is how many batches a rebuild analyses and writes at
// once: Bleve builds a batch's segment in the goroutine that hands it the
// batch, so one writer leaves a core idle while it does.
const rebuildWorkers = 2

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
	// Batches are analysed and written rebuildWorkers at a time, in any
	// order (applyBulk): the index is not searched until it is complete,
	// and an interrupted rebuild is thrown away. The token total and the
	// watermark are written last.
	jobs := make(chan []pipeline.IngestDocument)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		total    int64
		done     int
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return firstErr
	}
	for w := 0; w < rebuildWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				if failed() != nil {
					continue
				}
				p, err := ix.PrepareBatch(ctx, pipeline.IndexBatch{Docs: batch})
				if err != nil {
					fail(err)
					continue
				}
				delta, err := p.(*preparedBatch).applyBulk(ctx)
				if err != nil {
					fail(err)
					continue
				}
				count := 0
				for _, d := range batch {
					count += len(d.Passages)
				}
				mu.Lock()
				total += delta
				done += count
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	const batchPassages = 1000
	var docs []pipeline.IngestDocument
	n := 0
	flush := func() error {
		if len(docs) == 0 {
			return nil
		}
		if err := failed(); err != nil {
			return err
		}
		select {
		case jobs <- docs:
		case <-ctx.Done():
			return ctx.Err()
		}
		docs, n = nil, 0
		return nil
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
	close(jobs)
	wg.Wait()
	if err == nil {
		err = failed()
	}
	if err == nil {
		err = ix.finishBulk(uint64(max(total, 0)), seq)
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
