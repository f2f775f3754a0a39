package auth

import (
	"sync"
	"time"
)

// Login throttling defaults (docs/accounts.md, "Login throttling"):
//
//   - a user name from one client address (the pair) may fail
//     PairFreeFailures times within LoginWindow; after that each attempt
//     of the pair waits PairBaseDelay, doubled with every further
//     failure, after the latest (1 s, 2 s, 4 s, ... at most LoginWindow);
//   - one client address may fail AddressFailures times within
//     LoginWindow under any names; further attempts from it are refused
//     until the oldest of those failures is LoginWindow old.
//
// No limit is kept per name alone: failures from other addresses never
// refuse the right password from a new one.
const (
	PairFreeFailures = 3
	PairBaseDelay    = time.Second
	AddressFailures  = 20
	LoginWindow      = 15 * time.Minute
)

// Limiter counts failures per key in a sliding window, in memory: a
// restart forgets them, and each portal process counts its own. That is
// enough to turn online password guessing from thousands of tries a
// second into a few per LoginWindow per name and address.
//
// Memory stays bounded by the traffic of one window: a key's failures are
// dropped once they leave the window, and keys with none left are swept.
// An address that fails AddressFailures times is refused before it can add
// failures (and name-and-address keys) under new names.
type Limiter struct {
	max    int
	window time.Duration
	now    func() time.Time
	// backoff, when set, makes the limiter delay rather than refuse:
	// from max failures on, an attempt waits backoff doubled for each
	// failure beyond max, after the latest failure, at most window.
	backoff time.Duration

	mu        sync.Mutex
	failures  map[string][]time.Time // oldest first
	lastSweep time.Time
}

// NewLimiter makes a limiter allowing max failures per window under each
// key. Non-positive max or window take the defaults (AddressFailures,
// LoginWindow); nil now means time.Now.
func NewLimiter(max int, window time.Duration, now func() time.Time) *Limiter {
	if max <= 0 {
		max = AddressFailures
	}
	if window <= 0 {
		window = LoginWindow
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{max: max, window: window, now: now, failures: map[string][]time.Time{}}
}

// NewBackoff makes a limiter of growing delays: under each key, free
// failures within window cost nothing; from then on an attempt waits
// base after the latest failure, doubled with every further failure, at
// most window. Failures older than window are forgotten. Non-positive
// arguments take the defaults (PairFreeFailures, PairBaseDelay,
// LoginWindow); nil now means time.Now.
func NewBackoff(free int, base, window time.Duration, now func() time.Time) *Limiter {
	if free <= 0 {
		free = PairFreeFailures
	}
	if base <= 0 {
		base = PairBaseDelay
	}
	l := NewLimiter(free, window, now)
	l.backoff = base
	return l
}

// Wait returns how long to wait before another attempt under all the keys
// is allowed: zero when it is allowed now, else the longest wait of any
// key that has reached its limit.
func (l *Limiter) Wait(keys ...string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var wait time.Duration
	for _, k := range keys {
		f := l.prune(k, now)
		if len(f) < l.max {
			continue
		}
		// The attempt is allowed again once enough failures have left
		// the window for fewer than max to remain; with a backoff, once
		// the delay since the latest has passed.
		w := f[len(f)-l.max].Add(l.window).Sub(now)
		if l.backoff > 0 {
			w = f[len(f)-1].Add(l.delay(len(f))).Sub(now)
		}
		if w > wait {
			wait = w
		}
	}
	return wait
}

// delay is a backoff limiter's wait after the n-th failure (n ≥ max):
// backoff doubled n−max times, at most the window.
func (l *Limiter) delay(n int) time.Duration {
	d := l.backoff
	for i := l.max; i < n && d < l.window; i++ {
		d *= 2
	}
	return min(d, l.window)
}

// Fail records a failed attempt under each key.
func (l *Limiter) Fail(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	for _, k := range keys {
		f := l.prune(k, now)
		l.failures[k] = append(f, now)
	}
}

// Reset forgets the failures under the keys, after a successful attempt.
func (l *Limiter) Reset(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		delete(l.failures, k)
	}
}

// prune drops the key's failures older than the window and returns the
// rest. l.mu is held.
func (l *Limiter) prune(key string, now time.Time) []time.Time {
	f := l.failures[key]
	cut := 0
	for cut < len(f) && !f[cut].Add(l.window).After(now) {
		cut++
	}
	switch {
	case cut == len(f):
		delete(l.failures, key)
		return nil
	case cut > 0:
		f = append(f[:0:0], f[cut:]...)
		l.failures[key] = f
	}
	return f
}

// sweep drops every key whose failures have all left the window, at most
// once per window. l.mu is held.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < l.window {
		return
	}
	l.lastSweep = now
	for k := range l.failures {
		l.prune(k, now)
	}
}
