package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
)

// Store keeps accounts and sessions. The SQLite adapter implements it.
type Store interface {
	// Credentials returns the user with the name (matched without regard
	// to case) and its password hash, or an error wrapping
	// pipeline.ErrNotFound.
	Credentials(ctx context.Context, name string) (User, string, error)
	// CountUsers returns how many accounts exist.
	CountUsers(ctx context.Context) (int, error)
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s Session) error
	// SessionUser returns the session whose token hash is given and its
	// user, and records the request at now as the session's last use (at
	// most once per TouchInterval). A session that does not exist or has
	// expired by now (Session.Expired) is an error wrapping
	// pipeline.ErrNotFound.
	SessionUser(ctx context.Context, tokenHash string, now time.Time) (User, Session, error)
	// DeleteSession ends the session whose token hash is given; ending
	// one that does not exist is not an error.
	DeleteSession(ctx context.Context, tokenHash string) error
	// DeleteExpiredSessions deletes the sessions expired by now and
	// returns how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error)
}

// ErrBadCredentials is the one answer to a login with an unknown name or a
// wrong password, so the answer does not tell which names exist.
var ErrBadCredentials = errors.New("wrong user name or password")

// RateLimitError refuses a login attempt made too soon after too many
// failures.
type RateLimitError struct {
	// RetryAfter is how long until an attempt is allowed again.
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many failed logins: try again in %s", WaitText(e.RetryAfter))
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, for a
// Retry-After header: at least 1.
func (e *RateLimitError) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// WaitText words a wait for people: "1 second", "40 seconds", "1
// minute", "14 minutes" (rounded up to whole seconds, then to whole
// minutes from one minute on).
func WaitText(d time.Duration) string {
	s := max(1, int(math.Ceil(d.Seconds())))
	if s < 60 {
		return plural(s, "second")
	}
	return plural((s+59)/60, "minute")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Service logs users in and out and resolves session tokens.
type Service struct {
	Store Store
	// Limiter counts failed logins per client address. Nil means
	// NewLimiter(AddressFailures, LoginWindow, Now).
	Limiter *Limiter
	// PairLimiter delays the attempts of a user name from one client
	// address after failures. Nil means NewBackoff(PairFreeFailures,
	// PairBaseDelay, LoginWindow, Now).
	PairLimiter *Limiter
	// Now is the clock sessions and the default limiter use. Nil means
	// time.Now.
	Now func() time.Time

	limiterOnce sync.Once
	// hashCost is the bcrypt cost of the last stored hash a login
	// checked (0 before the first: PasswordCost). A login for an unknown
	// name checks a dummy hash of this cost, so it takes as long as one
	// for a real account even when the accounts' hashes were made at
	// another cost (an older default, or a test's minimum).
	hashCost atomic.Int32
}

// NewService returns a Service over the store with the default limits;
// now may be nil (time.Now).
func NewService(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{Store: store, Limiter: NewLimiter(AddressFailures, LoginWindow, now),
		PairLimiter: NewBackoff(PairFreeFailures, PairBaseDelay, LoginWindow, now), Now: now}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) limiters() (pair, address *Limiter) {
	s.limiterOnce.Do(func() {
		if s.Limiter == nil {
			s.Limiter = NewLimiter(AddressFailures, LoginWindow, s.Now)
		}
		if s.PairLimiter == nil {
			s.PairLimiter = NewBackoff(PairFreeFailures, PairBaseDelay, LoginWindow, s.Now)
		}
	})
	return s.PairLimiter, s.Limiter
}

// limitKeys are the limiter keys of a login attempt: the name as matched
// (without regard to case) from the client's address, and the address.
func limitKeys(name, clientIP string) (pairKey, ipKey string) {
	return "pair:" + strings.ToLower(name) + "\x00" + clientIP, "ip:" + clientIP
}

// Login checks a user name and password and starts a session. It returns
// the session's token, for the browser's cookie, and the user.
//
// An attempt of a name from an address still in its backoff delay, or
// from an address with AddressFailures failures in the last LoginWindow,
// gets a *RateLimitError without the password being checked; failures
// from other addresses never refuse the right password from this one. An
// unknown name or a wrong password gets ErrBadCredentials and counts as a
// failure of the pair and of the address; both take as long, as the
// password is checked against a dummy hash for unknown names. A
// successful login clears the pair's failures (not the address's, or one
// valid account would let an address keep guessing others), and deletes
// expired sessions while it writes.
func (s *Service) Login(ctx context.Context, name, password, clientIP string) (string, User, error) {
	pairKey, ipKey := limitKeys(name, clientIP)
	pair, address := s.limiters()
	if wait := max(pair.Wait(pairKey), address.Wait(ipKey)); wait > 0 {
		return "", User{}, &RateLimitError{RetryAfter: wait}
	}
	fail := func() {
		pair.Fail(pairKey)
		address.Fail(ipKey)
	}
	u, hash, err := s.Store.Credentials(ctx, name)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		CheckPassword(dummyHash(s.dummyCost()), password)
		fail()
		return "", User{}, ErrBadCredentials
	case err != nil:
		return "", User{}, fmt.Errorf("log in %q: %w", name, err)
	}
	if c, err := bcrypt.Cost([]byte(hash)); err == nil {
		s.hashCost.Store(int32(c))
	}
	if !CheckPassword(hash, password) {
		fail()
		return "", User{}, ErrBadCredentials
	}
	pair.Reset(pairKey)
	now := s.now()
	if _, err := s.Store.DeleteExpiredSessions(ctx, now); err != nil {
		return "", User{}, fmt.Errorf("log in %q: %w", u.Name, err)
	}
	token, sess := NewSession(u.ID, now)
	if err := s.Store.CreateSession(ctx, sess); err != nil {
		return "", User{}, fmt.Errorf("log in %q: %w", u.Name, err)
	}
	return token, u, nil
}

// Authenticate returns the user and session of a session token. A token
// that is malformed, unknown or expired is an error wrapping
// pipeline.ErrNotFound.
func (s *Service) Authenticate(ctx context.Context, token string) (User, Session, error) {
	if !validToken(token) {
		return User{}, Session{}, fmt.Errorf("session: malformed token: %w", pipeline.ErrNotFound)
	}
	return s.Store.SessionUser(ctx, HashToken(token), s.now())
}

// Logout ends the session of the token; an unknown or malformed token is
// not an error.
func (s *Service) Logout(ctx context.Context, token string) error {
	if !validToken(token) {
		return nil
	}
	return s.Store.DeleteSession(ctx, HashToken(token))
}

// dummyCost is the cost of the dummy hash an unknown name is checked
// against: that of the last stored hash checked, else PasswordCost.
func (s *Service) dummyCost() int {
	if c := int(s.hashCost.Load()); c >= bcrypt.MinCost && c <= bcrypt.MaxCost {
		return c
	}
	return PasswordCost
}
