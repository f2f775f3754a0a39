package pipeline

import (
	"context"
	"sync"
)

// BatchPreparer is a PassageIndexer that can do the part of a batch's
// work that does not depend on the batches before it (analysing its
// text) ahead of applying it, so that a bulk load analyses one batch
// while the one before it is written.
type BatchPreparer interface {
	PrepareBatch(ctx context.Context, b IndexBatch) (PreparedBatch, error)
}

// PreparedBatch is a batch ready to be applied; batches are applied in
// the order they were stored.
type PreparedBatch interface {
	Apply(ctx context.Context) error
}

// InOrder runs jobs in two halves: the first halves of up to Depth jobs
// at once, the second halves one at a time in the order the jobs were
// started. A job whose predecessor failed is not applied; the first error
// is returned by the next Go and by Wait. The zero value runs two jobs at
// once. Go and Wait are called from one goroutine.
type InOrder struct {
	Depth int

	slots chan struct{}
	last  chan struct{} // closed when the latest job is done
	mu    sync.Mutex
	err   error
}

// Go starts a job: prepare runs at once (in its own goroutine, once a
// slot is free) and returns the apply half, which runs after the apply
// half of the job started before it.
func (q *InOrder) Go(prepare func() (apply func() error, err error)) error {
	if err := q.firstErr(); err != nil {
		return err
	}
	if q.slots == nil {
		depth := q.Depth
		if depth <= 0 {
			depth = 2
		}
		q.slots = make(chan struct{}, depth)
	}
	q.slots <- struct{}{}
	prev, done := q.last, make(chan struct{})
	q.last = done
	go func() {
		defer func() { <-q.slots; close(done) }()
		apply, err := prepare()
		if prev != nil {
			<-prev
		}
		if err == nil && q.firstErr() == nil {
			err = apply()
		}
		if err != nil {
			q.mu.Lock()
			if q.err == nil {
				q.err = err
			}
			q.mu.Unlock()
		}
	}()
	return nil
}

// Wait waits for every job started and returns the first error.
func (q *InOrder) Wait() error {
	if q.last != nil {
		<-q.last
	}
	return q.firstErr()
}

func (q *InOrder) firstErr() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}
