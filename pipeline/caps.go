package pipeline

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Caps bound what one report job may spend (docs/operations.md, "Caps").
// A zero field sets no bound. Calls counts every model call a run makes,
// the ones the cache answers included, so a job stops at the same call
// whether its answers are cached or not, and a job resumed with a higher
// cap replays the calls before the old one from the cache for nothing.
// Tokens counts prompt and completion tokens as the calls report them (a
// cache hit reports the tokens of the call it replays; the offline engine
// reports none). Time bounds the wall time of one run of the job.
type Caps struct {
	Calls  int           `json:"calls,omitempty"`
	Tokens int           `json:"tokens,omitempty"`
	Time   time.Duration `json:"time,omitempty"`
}

// The caps, as CapError names them.
const (
	CapCalls  = "calls"
	CapTokens = "tokens"
	CapTime   = "time"
)

// IsZero reports whether no cap is set.
func (c Caps) IsZero() bool { return c == Caps{} }

// Within returns c bounded by ceiling: each cap is c's when c sets it and
// it is not above ceiling's, else ceiling's (zero when neither sets it).
func (c Caps) Within(ceiling Caps) Caps {
	lower := func(v, ceil int64) int64 {
		switch {
		case v <= 0:
			return ceil
		case ceil > 0 && v > ceil:
			return ceil
		}
		return v
	}
	return Caps{
		Calls:  int(lower(int64(c.Calls), int64(ceiling.Calls))),
		Tokens: int(lower(int64(c.Tokens), int64(ceiling.Tokens))),
		Time:   time.Duration(lower(int64(c.Time), int64(ceiling.Time))),
	}
}

// Check returns FieldErrors (by the form's names: max_calls, max_tokens,
// max_time) for caps below zero or above ceiling's caps: a job may set
// lower caps than the server's, never higher ones.
func (c Caps) Check(ceiling Caps) error {
	fe := FieldErrors{}
	check := func(name string, v, ceil int64, show func(int64) string) {
		switch {
		case v < 0:
			fe[name] = "must not be negative"
		case ceil > 0 && v > ceil:
			fe[name] = fmt.Sprintf("is %s; this portal allows at most %s a job", show(v), show(ceil))
		}
	}
	count := func(n int64) string { return Thousands(n) }
	check(CapField(CapCalls), int64(c.Calls), int64(ceiling.Calls), count)
	check(CapField(CapTokens), int64(c.Tokens), int64(ceiling.Tokens), count)
	check(CapField(CapTime), int64(c.Time), int64(ceiling.Time), func(n int64) string { return time.Duration(n).String() })
	if len(fe) == 0 {
		return nil
	}
	return fe
}

// CapField is the form and flag name of a cap: "max_calls", "max_tokens",
// "max_time".
func CapField(cap string) string { return "max_" + cap }

// Limit is the cap named (CapCalls, CapTokens, CapTime) as a number: calls,
// tokens, or nanoseconds; 0 when it is not set.
func (c Caps) Limit(cap string) int64 {
	switch cap {
	case CapCalls:
		return int64(c.Calls)
	case CapTokens:
		return int64(c.Tokens)
	case CapTime:
		return int64(c.Time)
	}
	return 0
}

// Raises reports whether c lets a job go past the cap that stopped it at
// limit: c sets no such cap, or a higher one.
func (c Caps) Raises(cap string, limit int64) bool {
	v := c.Limit(cap)
	return v == 0 || v > limit
}

// Text lists the caps set in words: "200 calls, 1,000,000 tokens, 10m0s";
// "none" when none is.
func (c Caps) Text() string {
	var parts []string
	for _, k := range []string{CapCalls, CapTokens, CapTime} {
		if v := c.Limit(k); v > 0 {
			parts = append(parts, CapText(k, v))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += ", " + p
	}
	return s
}

// CapText words a cap and its limit: "200 calls", "1,000,000 tokens",
// "10m0s of wall time".
func CapText(cap string, limit int64) string {
	switch cap {
	case CapCalls:
		if limit == 1 {
			return "1 call"
		}
		return Thousands(limit) + " calls"
	case CapTokens:
		return Thousands(limit) + " tokens"
	case CapTime:
		return time.Duration(limit).String() + " of wall time"
	}
	return cap + " " + strconv.FormatInt(limit, 10)
}

// ErrCapReached marks a run stopped because it reached one of its job's
// caps. Errors wrapping it are *CapError.
var ErrCapReached = errors.New("cap reached")

// CapError says which cap stopped a run, at what limit, and in which
// stage ("" when the stage is not known).
type CapError struct {
	Cap   string `json:"cap"`
	Limit int64  `json:"limit"`
	Stage string `json:"stage,omitempty"`
}

func (e *CapError) Error() string {
	s := "stopped at the cap: " + CapText(e.Cap, e.Limit)
	if e.Stage != "" {
		s += ", during " + e.Stage
	}
	return s
}

// Is makes errors.Is(err, ErrCapReached) hold.
func (e *CapError) Is(target error) bool { return target == ErrCapReached }

// Budget counts a run's model calls and tokens against its caps (the
// call and token caps; the wall time is the job runner's to keep). It is
// safe for concurrent use: calls in flight at once are admitted one at a
// time, so a cap of n calls lets exactly n through.
type Budget struct {
	caps Caps

	mu      sync.Mutex
	calls   int
	tokens  int
	used    Usage
	reached *CapError
}

// NewBudget returns a budget for caps.
func NewBudget(caps Caps) *Budget { return &Budget{caps: caps} }

// Admit admits one call made in stage, or returns the *CapError of the
// cap it would pass: the calls cap once that many calls were admitted,
// the tokens cap once the calls that ended spent that many tokens (calls
// in flight when it is reached may spend a little beyond it). Once a cap
// is reached every later call is refused with the first error.
func (b *Budget) Admit(stage string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reached != nil {
		return b.reached
	}
	switch {
	case b.caps.Calls > 0 && b.calls >= b.caps.Calls:
		b.reached = &CapError{Cap: CapCalls, Limit: int64(b.caps.Calls), Stage: stage}
	case b.caps.Tokens > 0 && b.tokens >= b.caps.Tokens:
		b.reached = &CapError{Cap: CapTokens, Limit: int64(b.caps.Tokens), Stage: stage}
	default:
		b.calls++
		return nil
	}
	return b.reached
}

// Spend records a call that was answered: its tokens count against the
// cap, and its usage (Used).
func (b *Budget) Spend(resp ModelResponse) {
	b.mu.Lock()
	b.tokens += resp.PromptTokens + resp.CompletionTokens
	b.used.Add(resp)
	b.mu.Unlock()
}

// Used is the usage of the calls answered so far: every call of the run,
// up to the last, which the progress a run reports may not yet count.
func (b *Budget) Used() Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Reached returns the cap that stopped the run, or nil.
func (b *Budget) Reached() *CapError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reached
}

// Spent returns the calls admitted and the tokens spent so far.
func (b *Budget) Spent() (calls, tokens int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls, b.tokens
}
