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
		}
		s.mu.Unlock()
		if granted {
			s.release()
		}
		return ctx.Err()
	}
}

// release frees a slot, or hands it to the waiting call of highest
// priority.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	w := heap.Pop(&s.waiting).(*waiter)
	w.index = -1
	close(w.ready)
}

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
