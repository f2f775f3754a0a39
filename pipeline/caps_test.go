package pipeline

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCapsWithinAndCheck(t *testing.T) {
	server := Caps{Calls: 5000, Time: time.Hour}
	tests := []struct {
		name string
		job  Caps
		want Caps
		errs []string // field names refused
	}{
		{"none: the server's", Caps{}, server, nil},
		{"lower ones", Caps{Calls: 200, Tokens: 10000, Time: time.Minute}, Caps{Calls: 200, Tokens: 10000, Time: time.Minute}, nil},
		{"above the server's", Caps{Calls: 6000, Time: 2 * time.Hour}, server, []string{"max_calls", "max_time"}},
		{"negative", Caps{Tokens: -1}, server, []string{"max_tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.job.Within(server); got != tt.want {
				t.Errorf("Within = %+v, want %+v", got, tt.want)
			}
			err := tt.job.Check(server)
			var fe FieldErrors
			errors.As(err, &fe)
			var got []string
			for _, f := range []string{"max_calls", "max_tokens", "max_time"} {
				if fe[f] != "" {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tt.errs, got); diff != "" {
				t.Errorf("Check refused (-want +got)\n%s\n%v", diff, err)
			}
		})
	}
	if err := (Caps{Calls: 6000}).Check(server); err == nil || !errors.Is(err, ErrInvalid) ||
		err.(FieldErrors)["max_calls"] != "is 6,000; this portal allows at most 5,000 a job" {
		t.Errorf("message: %v", err)
	}
}

func TestCapsWords(t *testing.T) {
	c := Caps{Calls: 1200, Tokens: 1000000, Time: 90 * time.Second}
	if got := c.Text(); got != "1,200 calls, 1,000,000 tokens, 1m30s of wall time" {
		t.Errorf("Text = %q", got)
	}
	if got := (Caps{}).Text(); got != "none" {
		t.Errorf("no caps: %q", got)
	}
	e := &CapError{Cap: CapCalls, Limit: 200, Stage: "scan"}
	if e.Error() != "stopped at the cap: 200 calls, during scan" || !errors.Is(e, ErrCapReached) {
		t.Errorf("CapError %q", e)
	}
	if !c.Raises(CapCalls, 1000) || c.Raises(CapCalls, 1200) || !(Caps{}).Raises(CapTokens, 5) {
		t.Error("Raises")
	}
}

// A budget of n calls admits exactly n, however many ask at once, then
// refuses every call with the first cap reached; tokens stop calls once
// spent.
func TestBudget(t *testing.T) {
	b := NewBudget(Caps{Calls: 50})
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.Admit("scan") == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if admitted != 50 {
		t.Errorf("admitted %d calls, want 50", admitted)
	}
	if r := b.Reached(); r == nil || *r != (CapError{Cap: CapCalls, Limit: 50, Stage: "scan"}) {
		t.Errorf("reached %+v", r)
	}
	if err := b.Admit("verify"); err == nil || err.(*CapError).Stage != "scan" {
		t.Errorf("a later call: %v, want the first cap reached", err)
	}

	tb := NewBudget(Caps{Tokens: 250})
	for i := 0; i < 3; i++ {
		if err := tb.Admit("ideate"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		tb.Spend(ModelResponse{PromptTokens: 100, CompletionTokens: 10, Cached: i == 0})
	}
	if err := tb.Admit("ideate"); err == nil {
		t.Error("a call past 250 tokens was admitted")
	}
	if u := tb.Used(); u != (Usage{Calls: 3, CacheHits: 1, PromptTokens: 300, CompletionTokens: 30}) {
		t.Errorf("used %+v", u)
	}
}
