package pipeline

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestForEachBoundsConcurrencyAndStopsOnError(t *testing.T) {
	var inFlight, peak, calls atomic.Int32
	err := ForEach(context.Background(), 50, 4, func(ctx context.Context, i int) error {
		calls.Add(1)
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer inFlight.Add(-1)
		return nil
	})
	if err != nil || calls.Load() != 50 {
		t.Fatalf("err %v, calls %d", err, calls.Load())
	}
	if peak.Load() > 4 {
		t.Errorf("peak concurrency %d, limit 4", peak.Load())
	}

	boom := errors.New("boom")
	calls.Store(0)
	err = ForEach(context.Background(), 1000, 2, func(ctx context.Context, i int) error {
		calls.Add(1)
		switch {
		case i < 3:
			return nil
		case i == 3:
			return boom
		}
		<-ctx.Done() // later calls wait for the cancellation the error causes
		return ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if calls.Load() > 10 {
		t.Errorf("%d calls started after the error; want it to stop early", calls.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ForEach(ctx, 5, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}
