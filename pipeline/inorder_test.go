package pipeline_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// TestInOrder: first halves overlap, second halves run one at a time in
// the order the jobs started, at most Depth jobs are in flight, and after
// a failure no later job is applied and the error comes back.
func TestInOrder(t *testing.T) {
	var q pipeline.InOrder
	var mu sync.Mutex
	var applied []int
	var inFlight, most, applying atomic.Int32
	for i := 0; i < 20; i++ {
		err := q.Go(func() (func() error, error) {
			n := inFlight.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(time.Duration(20-i) * 100 * time.Microsecond) // later jobs prepare faster
			return func() error {
				defer inFlight.Add(-1)
				if applying.Add(1) != 1 {
					t.Error("two second halves at once")
				}
				defer applying.Add(-1)
				mu.Lock()
				applied = append(applied, i)
				mu.Unlock()
				return nil
			}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, v := range applied {
		if v != i {
			t.Fatalf("applied in order %v", applied)
		}
	}
	if len(applied) != 20 || most.Load() > 2 {
		t.Errorf("%d applied, %d in flight at most (want 20, ≤ 2)", len(applied), most.Load())
	}

	var q2 pipeline.InOrder
	boom := errors.New("boom")
	var after atomic.Int32
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		err = q2.Go(func() (func() error, error) {
			if i == 3 {
				return nil, boom
			}
			return func() error {
				if i > 3 {
					after.Add(1)
				}
				return nil
			}, nil
		})
		time.Sleep(time.Millisecond)
	}
	if werr := q2.Wait(); !errors.Is(werr, boom) || (err != nil && !errors.Is(err, boom)) {
		t.Errorf("Go = %v, Wait = %v; want boom", err, werr)
	}
	if after.Load() != 0 {
		t.Errorf("%d jobs after the failed one were applied", after.Load())
	}
}
