package auth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// t0 is the fake clocks' start.
var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// clock is a settable fake clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{name: "10 characters", in: "abcdefghij"},
		{name: "10 characters of 2 bytes", in: strings.Repeat("é", 10)},
		{name: "72 bytes", in: strings.Repeat("x", 72)},
		{name: "9 characters", in: "abcdefghi", wantErr: "has 9 characters; it needs at least 10"},
		{name: "empty", in: "", wantErr: "has 0 characters"},
		{name: "73 bytes", in: strings.Repeat("x", 73), wantErr: "73 bytes long; the limit is 72"},
		{name: "invalid UTF-8", in: "abcdefghij\xff", wantErr: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := auth.ValidatePassword(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("ValidatePassword = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ValidatePassword = %v, want ErrInvalid with %q", err, tt.wantErr)
			}
		})
	}
}

func TestHashPassword(t *testing.T) {
	const pw = "correct horse battery"
	h1, err := auth.HashPasswordCost(pw, bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := auth.HashPasswordCost(pw, bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Error("two hashes of one password are equal: no salt")
	}
	if strings.Contains(h1, pw) {
		t.Error("the hash contains the password")
	}
	if !auth.CheckPassword(h1, pw) || !auth.CheckPassword(h2, pw) {
		t.Error("the password does not match its hashes")
	}
	for _, wrong := range []string{"", "correct horse battery ", "Correct horse battery"} {
		if auth.CheckPassword(h1, wrong) {
			t.Errorf("%q matches the hash of %q", wrong, pw)
		}
	}
	if auth.CheckPassword("not a hash", pw) {
		t.Error("a malformed hash matches")
	}
	if _, err := auth.HashPasswordCost("short", bcrypt.MinCost); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("hashing a short password: %v, want ErrInvalid", err)
	}
	if cost, err := bcrypt.Cost([]byte(mustHashDefault(t, pw))); err != nil || cost != 12 {
		t.Errorf("HashPassword cost = %d (%v), want 12", cost, err)
	}
}

func mustHashDefault(t *testing.T, pw string) string {
	t.Helper()
	h, err := auth.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTokens(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok := auth.NewToken()
		// 32 bytes in unpadded base64: ceil(32×8/6) = 43 characters.
		if len(tok) != 43 || strings.ContainsAny(tok, "+/=") {
			t.Fatalf("token %q: want 43 URL-safe characters", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated", tok)
		}
		seen[tok] = true
	}
	// SHA-256 of "abc", a published test vector.
	if got, want := auth.HashToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("HashToken(abc) = %s, want %s", got, want)
	}
}

func TestSessionExpired(t *testing.T) {
	_, s := auth.NewSession(7, t0)
	if s.UserID != 7 || !s.CreatedAt.Equal(t0) || !s.LastSeenAt.Equal(t0) {
		t.Fatalf("NewSession = %+v", s)
	}
	if !s.ExpiresAt.Equal(t0.Add(7*24*time.Hour)) || s.IdleTimeout != 12*time.Hour {
		t.Fatalf("NewSession lifetimes: expires %v, idle %v; want 7 days and 12 h", s.ExpiresAt, s.IdleTimeout)
	}
	busy := s
	busy.LastSeenAt = t0.Add(7*24*time.Hour - time.Hour)
	tests := []struct {
		name string
		s    auth.Session
		at   time.Duration // after t0
		want bool
	}{
		{name: "fresh", s: s, at: 0, want: false},
		{name: "idle just under 12 h", s: s, at: 12*time.Hour - time.Millisecond, want: false},
		{name: "idle 12 h", s: s, at: 12 * time.Hour, want: true},
		{name: "used an hour ago, 7 days old", s: busy, at: 7 * 24 * time.Hour, want: true},
		{name: "used an hour ago, a second short of 7 days", s: busy, at: 7*24*time.Hour - time.Second, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Expired(t0.Add(tt.at)); got != tt.want {
				t.Errorf("Expired at t0+%v = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c := &clock{now: t0}
	l := auth.NewBackoff(3, time.Second, time.Minute, c.Now)
	for range 3 {
		if w := l.Wait("k"); w != 0 {
			t.Fatalf("a free failure waits %v", w)
		}
		l.Fail("k")
	}
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second} {
		if w := l.Wait("k"); w != want {
			t.Fatalf("wait %v, want %v", w, want)
		}
		if w := l.Wait("other"); w != 0 {
			t.Fatalf("another key waits %v", w)
		}
		c.Advance(want)
		l.Fail("k")
	}
	// However many failures, the wait is at most the window.
	for range 20 {
		l.Fail("k")
	}
	if w := l.Wait("k"); w != time.Minute {
		t.Errorf("after many failures: wait %v, want the window, 1m", w)
	}
	// Failures older than the window are forgotten.
	c.Advance(time.Minute)
	if w := l.Wait("k"); w != 0 {
		t.Errorf("after the window: wait %v, want 0", w)
	}
}

func TestLimiter(t *testing.T) {
	c := &clock{now: t0}
	l := auth.NewLimiter(5, 15*time.Minute, c.Now)
	// Five failures a minute apart, at t0 … t0+4m.
	for i := range 5 {
		if w := l.Wait("user:ada"); w != 0 {
			t.Fatalf("attempt %d refused (wait %v) before the limit", i+1, w)
		}
		l.Fail("user:ada")
		c.Advance(time.Minute)
	}
	// Now t0+5m: the sixth attempt waits until the first failure is 15
	// minutes old, t0+15m, so 10 minutes.
	if w := l.Wait("user:ada"); w != 10*time.Minute {
		t.Errorf("sixth attempt waits %v, want 10m", w)
	}
	if w := l.Wait("user:bob"); w != 0 {
		t.Errorf("another key waits %v, want 0", w)
	}
	// The longest wait of the keys counts.
	if w := l.Wait("user:bob", "user:ada"); w != 10*time.Minute {
		t.Errorf("two keys wait %v, want 10m", w)
	}
	// At t0+15m the first failure leaves the window: four remain.
	c.Advance(10 * time.Minute)
	if w := l.Wait("user:ada"); w != 0 {
		t.Errorf("after the window: wait %v, want 0", w)
	}
	l.Fail("user:ada")
	// Five again (t0+1m … t0+4m and t0+15m): wait for t0+1m to leave,
	// at t0+16m, 1 minute from now.
	if w := l.Wait("user:ada"); w != time.Minute {
		t.Errorf("after a new failure: wait %v, want 1m", w)
	}
	l.Reset("user:ada")
	if w := l.Wait("user:ada"); w != 0 {
		t.Errorf("after Reset: wait %v, want 0", w)
	}
}

// fakeStore is an in-memory auth.Store.
type fakeStore struct {
	mu       sync.Mutex
	users    map[string]fakeUser // by lower-case name
	sessions map[string]auth.Session
	err      error
}

type fakeUser struct {
	user auth.User
	hash string
}

func newFakeStore(t *testing.T, users ...auth.User) *fakeStore {
	t.Helper()
	s := &fakeStore{users: map[string]fakeUser{}, sessions: map[string]auth.Session{}}
	for _, u := range users {
		h, err := auth.HashPasswordCost(u.Name+" password", bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		s.users[strings.ToLower(u.Name)] = fakeUser{user: u, hash: h}
	}
	return s
}

func (s *fakeStore) Credentials(_ context.Context, name string) (auth.User, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return auth.User{}, "", s.err
	}
	u, ok := s.users[strings.ToLower(name)]
	if !ok {
		return auth.User{}, "", fmt.Errorf("user %q: %w", name, pipeline.ErrNotFound)
	}
	return u.user, u.hash, nil
}

func (s *fakeStore) CountUsers(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.users), nil
}

func (s *fakeStore) CreateSession(_ context.Context, sess auth.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[sess.TokenHash] = sess
	return nil
}

func (s *fakeStore) SessionUser(_ context.Context, hash string, now time.Time) (auth.User, auth.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[hash]
	if !ok || sess.Expired(now) {
		return auth.User{}, auth.Session{}, fmt.Errorf("session: %w", pipeline.ErrNotFound)
	}
	for _, u := range s.users {
		if u.user.ID == sess.UserID {
			return u.user, sess, nil
		}
	}
	return auth.User{}, auth.Session{}, fmt.Errorf("session user: %w", pipeline.ErrNotFound)
}

func (s *fakeStore) DeleteSession(_ context.Context, hash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, hash)
	return nil
}

func (s *fakeStore) DeleteExpiredSessions(_ context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for h, sess := range s.sessions {
		if sess.Expired(now) {
			delete(s.sessions, h)
			n++
		}
	}
	return n, nil
}

func TestServiceLogin(t *testing.T) {
	ctx := context.Background()
	ada := auth.User{ID: 1, Name: "Ada", Role: auth.RoleAnalyst, CreatedAt: t0}
	c := &clock{now: t0}
	store := newFakeStore(t, ada)
	svc := auth.NewService(store, c.Now)

	token, u, err := svc.Login(ctx, "ada", "Ada password", "192.0.2.1")
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if diff := cmp.Diff(ada, u); diff != "" {
		t.Errorf("logged-in user (-want +got)\n%s", diff)
	}
	if _, ok := store.sessions[auth.HashToken(token)]; !ok {
		t.Fatal("the session is not stored under the token's hash")
	}
	if _, ok := store.sessions[token]; ok {
		t.Fatal("the session is stored under the token itself")
	}
	got, sess, err := svc.Authenticate(ctx, token)
	if err != nil || got.ID != ada.ID || sess.UserID != ada.ID {
		t.Fatalf("Authenticate = %+v, %+v, %v", got, sess, err)
	}

	// A second login starts a different session.
	token2, _, err := svc.Login(ctx, "Ada", "Ada password", "192.0.2.1")
	if err != nil || token2 == token {
		t.Fatalf("second login: token repeated or %v", err)
	}

	if err := svc.Logout(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Authenticate(ctx, token); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("after logout Authenticate = %v, want ErrNotFound", err)
	}
	if _, _, err := svc.Authenticate(ctx, token2); err != nil {
		t.Errorf("logging out one session ended the other: %v", err)
	}
	for _, bad := range []string{"", "short", strings.Repeat("*", 43)} {
		if _, _, err := svc.Authenticate(ctx, bad); !errors.Is(err, pipeline.ErrNotFound) {
			t.Errorf("Authenticate(%q) = %v, want ErrNotFound", bad, err)
		}
		if err := svc.Logout(ctx, bad); err != nil {
			t.Errorf("Logout(%q) = %v", bad, err)
		}
	}

	// Idle for 12 hours: the session has ended.
	c.Advance(12 * time.Hour)
	if _, _, err := svc.Authenticate(ctx, token2); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("after 12 idle hours Authenticate = %v, want ErrNotFound", err)
	}
	// The next login sweeps it away.
	if _, _, err := svc.Login(ctx, "ada", "Ada password", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.sessions[auth.HashToken(token2)]; ok {
		t.Error("the expired session was not deleted at the next login")
	}
}

func TestServiceLoginFailures(t *testing.T) {
	ctx := context.Background()
	ada := auth.User{ID: 1, Name: "ada", Role: auth.RoleAdmin}
	bob := auth.User{ID: 2, Name: "bob", Role: auth.RoleReviewer}

	t.Run("unknown name and wrong password answer alike", func(t *testing.T) {
		svc := auth.NewService(newFakeStore(t, ada), nil)
		_, _, errWrong := svc.Login(ctx, "ada", "not the password", "192.0.2.1")
		_, _, errUnknown := svc.Login(ctx, "nobody", "not the password", "192.0.2.1")
		if !errors.Is(errWrong, auth.ErrBadCredentials) || !errors.Is(errUnknown, auth.ErrBadCredentials) ||
			errWrong.Error() != errUnknown.Error() {
			t.Errorf("wrong password: %v; unknown name: %v; want the same ErrBadCredentials", errWrong, errUnknown)
		}
	})

	t.Run("guesses from other addresses never lock the user out", func(t *testing.T) {
		c := &clock{now: t0}
		svc := auth.NewService(newFakeStore(t, ada, bob), c.Now)
		// Eight failures for ada from eight addresses (more than the
		// name alone was once allowed, 5).
		for i := range 8 {
			_, _, err := svc.Login(ctx, "ada", "guess", fmt.Sprintf("192.0.2.%d", i))
			if !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatalf("failure %d: %v", i+1, err)
			}
		}
		// The right password from a new address is checked and let in.
		if _, _, err := svc.Login(ctx, "ADA", "ada password", "198.51.100.1"); err != nil {
			t.Errorf("ada from a new address: %v", err)
		}
	})

	t.Run("one name from one address waits longer after each failure", func(t *testing.T) {
		c := &clock{now: t0}
		svc := auth.NewService(newFakeStore(t, ada, bob), c.Now)
		const addr = "192.0.2.7"
		var rl *auth.RateLimitError
		// The first three failures cost nothing.
		for i := range 3 {
			if _, _, err := svc.Login(ctx, "ada", "guess", addr); !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatalf("failure %d: %v", i+1, err)
			}
		}
		// Then 1 s, 2 s, 4 s, 8 s after the latest failure; the right
		// password is not checked meanwhile.
		for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
			if _, _, err := svc.Login(ctx, "ada", "ada password", addr); !errors.As(err, &rl) || rl.RetryAfter != want {
				t.Fatalf("after failure %d: %v, want a wait of %v", 3+i, err, want)
			}
			c.Advance(want)
			if _, _, err := svc.Login(ctx, "ada", "guess", addr); !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatalf("failure %d after the wait: %v", 4+i, err)
			}
		}
		// Another user from the same address is not delayed by ada's pair.
		if _, _, err := svc.Login(ctx, "bob", "bob password", addr); err != nil {
			t.Errorf("bob from the address: %v", err)
		}
		// A guesser who waits as told gets a dozen guesses in a window;
		// no wait exceeds the window; after one, ada gets in.
		guesses := 0
		for start := c.Now(); c.Now().Sub(start) < auth.LoginWindow; {
			_, _, err := svc.Login(ctx, "ada", "guess", addr)
			if errors.As(err, &rl) {
				if rl.RetryAfter > auth.LoginWindow {
					t.Fatalf("wait %v, more than the window", rl.RetryAfter)
				}
				c.Advance(rl.RetryAfter)
				continue
			}
			guesses++
		}
		if guesses > 15 {
			t.Errorf("%d guesses in one window from one address", guesses)
		}
		if _, _, err := svc.Login(ctx, "ada", "ada password", addr); errors.As(err, &rl) {
			c.Advance(rl.RetryAfter)
		}
		if _, _, err := svc.Login(ctx, "ada", "ada password", addr); err != nil {
			t.Errorf("after the wait: %v", err)
		}
	})

	t.Run("an address that fails too often is refused", func(t *testing.T) {
		c := &clock{now: t0}
		svc := auth.NewService(newFakeStore(t, ada, bob), c.Now)
		// Three failures per address instead of AddressFailures: each
		// failure costs a bcrypt check, seconds under the race detector.
		// Two names that exist, then one that does not (checked against a
		// dummy of the stored hashes' cost).
		const limit = 3
		svc.Limiter = auth.NewLimiter(limit, auth.LoginWindow, c.Now)
		for i, name := range []string{"ada", "bob", "nobody"} {
			_, _, err := svc.Login(ctx, name, "guess", "203.0.113.9")
			if !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatalf("failure %d: %v", i+1, err)
			}
		}
		var rl *auth.RateLimitError
		if _, _, err := svc.Login(ctx, "bob", "bob password", "203.0.113.9"); !errors.As(err, &rl) || rl.RetryAfter != auth.LoginWindow {
			t.Errorf("attempt after %d failures from the address: %v, want a wait of %v", limit, err, auth.LoginWindow)
		}
		if _, _, err := svc.Login(ctx, "bob", "bob password", "203.0.113.10"); err != nil {
			t.Errorf("bob from another address: %v", err)
		}
	})

	t.Run("success clears the pair's failures", func(t *testing.T) {
		c := &clock{now: t0}
		svc := auth.NewService(newFakeStore(t, ada), c.Now)
		for i := range 3 {
			if _, _, err := svc.Login(ctx, "ada", "guess", "192.0.2.1"); !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatal(i, err)
			}
		}
		c.Advance(time.Second)
		if _, _, err := svc.Login(ctx, "ada", "ada password", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		// Three more failures cost nothing again.
		for i := range 3 {
			if _, _, err := svc.Login(ctx, "ada", "guess", "192.0.2.1"); !errors.Is(err, auth.ErrBadCredentials) {
				t.Fatalf("failure %d after the success: %v", i+1, err)
			}
		}
	})

	t.Run("store errors are not credential errors", func(t *testing.T) {
		store := newFakeStore(t, ada)
		store.err = errors.New("disk I/O error")
		svc := auth.NewService(store, nil)
		_, _, err := svc.Login(ctx, "ada", "ada password", "192.0.2.1")
		if err == nil || errors.Is(err, auth.ErrBadCredentials) || !strings.Contains(err.Error(), "disk I/O error") {
			t.Errorf("login with a failing store: %v", err)
		}
	})
}
