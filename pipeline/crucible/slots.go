package crucible

import (
	"container/heap"
	"context"
	"sync"
)

// slots bounds the model calls a stage has in flight and hands a freed
// slot to the waiting call of highest priority (the earliest asked among
// equals). The scan gives each call its nugget's remaining passages as
// priority: a nugget that has most left to read is its critical path, and
// one that shared the slots evenly with nuggets about to stop would reach
// its end last, with the slots idle around it.
type slots struct {
	mu      sync.Mutex
	free    int
	seq     int
	waiting waiters
}

func newSlots(n int) *slots { return &slots{free: max(n, 1)} }

// waiter is a call waiting for a slot; ready is closed when it has one.
type waiter struct {
	priority, seq int
	ready         chan struct{}
	index         int // in the heap, -1 once granted
}

// acquire waits for a slot; a call that gets one must release it.
func (s *slots) acquire(ctx context.Context, priority int) error {
	s.mu.Lock()
	return s.acquireLocked(ctx, priority)
}

// acquireLocked is acquire called with s.mu held; it unlocks s.mu.
func (s *slots) acquireLocked(ctx context.Context, priority int) error {
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	w := &waiter{priority: priority, seq: s.seq, ready: make(chan struct{})}
	s.seq++
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		granted := w.index < 0
		if !granted {
			heap.Remove(&s.waiting, w.index)
		} else {
			s.releaseLocked()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// release frees a slot, or hands it to the waiting call of highest
// priority.
func (s *slots) release() {
	s.mu.Lock()
	s.releaseLocked()
	s.mu.Unlock()
}

// releaseLocked is release called with s.mu held.
func (s *slots) releaseLocked() {
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	w := heap.Pop(&s.waiting).(*waiter)
	w.index = -1
	close(w.ready)
}

// holder is one nugget's use of the slots. A call of the nugget that ends
// keeps its slot for the nugget's next batch unless a waiting call has a
// higher priority: the nugget's next batch is not asked for until its
// whole batch is back, and without it the freed slots would go to
// nuggets of lower priority, the critical path waiting a round for them.
// A holder is used by one nugget's calls; done gives back what it kept.
//
// The kept slots are counted under the slots' lock: a call that finds
// none kept joins the waiting calls in the same hold of the lock, so a
// call of the same nugget ending meanwhile sees it waiting and hands its
// slot over rather than keeping it while the nugget waits (which could
// leave every slot kept by nuggets whose calls all wait).
type holder struct {
	s    *slots
	kept int // guarded by s.mu
}

func (s *slots) holder() *holder { return &holder{s: s} }

// acquire takes a kept slot, or waits for one with the given priority.
func (h *holder) acquire(ctx context.Context, priority int) error {
	h.s.mu.Lock()
	if h.kept > 0 {
		h.kept--
		h.s.mu.Unlock()
		return nil
	}
	return h.s.acquireLocked(ctx, priority)
}

// release keeps the slot for the nugget's next call, whose priority will
// be next, unless a waiting call has a higher or equal one (which then
// gets it).
func (h *holder) release(next int) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if len(h.s.waiting) > 0 && h.s.waiting[0].priority >= next {
		h.s.releaseLocked()
		return
	}
	h.kept++
}

// keepAtMost gives back the kept slots beyond n.
func (h *holder) keepAtMost(n int) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	for ; h.kept > n; h.kept-- {
		h.s.releaseLocked()
	}
}

// done gives back every kept slot.
func (h *holder) done() { h.keepAtMost(0) }

// waiters is a heap of waiting calls, highest priority first, then
// first come.
type waiters []*waiter

func (h waiters) Len() int { return len(h) }
func (h waiters) Less(i, j int) bool {
	if h[i].priority != h[j].priority {
		return h[i].priority > h[j].priority
	}
	return h[i].seq < h[j].seq
}
func (h waiters) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiters) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
