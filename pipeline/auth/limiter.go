package auth

import (
	"sync"
	"time"
)

// Login rate limit defaults: after LoginFailures failed logins within
// LoginWindow under one key (a user name, or a client address), further
// attempts under that key are refused until the oldest of those failures
// is LoginWindow old.
const (
	LoginFailures = 5
	LoginWindow   = 15 * time.Minute
)

// Limiter counts failures per key in a sliding window, in memory: a
// restart forgets them, and each portal process counts its own. That is
// enough to turn online password guessing from thousands of tries a
// second into LoginFailures per LoginWindow per name and per address.
//
// Memory stays bounded by the traffic of one window: a key's failures are
// dropped once they leave the window, and keys with none left are swept.
// An address that fails LoginFailures times is refused before it can add
// failures under new names.
type Limiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	failures  map[string][]time.Time // oldest first
	lastSweep time.Time
}

// NewLimiter makes a limiter allowing max failures per window under each
// key. Non-positive max or window take the defaults (LoginFailures,
// LoginWindow); nil now means time.Now.
func NewLimiter(max int, window time.Duration, now func() time.Time) *Limiter {
	if max <= 0 {
		max = LoginFailures
	}
	if window <= 0 {
		window = LoginWindow
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{max: max, window: window, now: now, failures: map[string][]time.Time{}}
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
		if len(f) >= l.max {
			// The attempt is allowed again once enough failures have left
			// the window for fewer than max to remain.
			if w := f[len(f)-l.max].Add(l.window).Sub(now); w > wait {
				wait = w
			}
		}
	}
	return wait
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
