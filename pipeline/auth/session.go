package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// Session lifetimes. A session ends at whichever comes first: IdleTimeout
// after its last request, or MaxAge after the login that started it.
const (
	// IdleTimeout ends a session nobody has used for a working day's
	// length, so a forgotten browser does not stay signed in overnight.
	IdleTimeout = 12 * time.Hour
	// MaxAge ends every session a week after its login, however busy.
	MaxAge = 7 * 24 * time.Hour
	// TouchInterval is how stale a session's last-seen time may get before
	// a request updates it: one write a minute per active session, not
	// one per request. The idle timeout is therefore honoured to within
	// a minute.
	TouchInterval = time.Minute
)

// TokenBytes is the length of a session token before encoding: 256 random
// bits.
const TokenBytes = 32

// NewToken returns a fresh random token: TokenBytes from crypto/rand,
// base64url-encoded without padding (43 characters).
func NewToken() string {
	var b [TokenBytes]byte
	// crypto/rand.Read never fails (Go 1.24+): it crashes the program
	// instead of returning an error.
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what the store keeps of a session token: its SHA-256 in
// hex. A stolen database then holds no usable session cookies, and since
// tokens are random and long, a fast hash is enough.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// validToken reports whether s looks like a token NewToken made, so a
// cookie of another shape costs no database lookup.
func validToken(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(TokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// Session is a signed-in browser as the store keeps it: the token's hash,
// never the token.
type Session struct {
	// TokenHash is HashToken of the cookie's token.
	TokenHash string
	UserID    int64
	CreatedAt time.Time
	// LastSeenAt is the time of the last request, to within
	// TouchInterval.
	LastSeenAt time.Time
	// IdleTimeout is how long the session survives without a request.
	IdleTimeout time.Duration
	// ExpiresAt is the absolute end of the session.
	ExpiresAt time.Time
}

// NewSession starts a session for the user at now with the portal's
// lifetimes (IdleTimeout, MaxAge) and returns it with its token, which
// only the browser's cookie keeps.
func NewSession(userID int64, now time.Time) (token string, s Session) {
	token = NewToken()
	return token, Session{
		TokenHash:   HashToken(token),
		UserID:      userID,
		CreatedAt:   now,
		LastSeenAt:  now,
		IdleTimeout: IdleTimeout,
		ExpiresAt:   now.Add(MaxAge),
	}
}

// Expired reports whether the session has ended by now: idle for its
// IdleTimeout or past ExpiresAt. A session ends at those instants, not
// after them.
func (s Session) Expired(now time.Time) bool {
	return !now.Before(s.ExpiresAt) || !now.Before(s.LastSeenAt.Add(s.IdleTimeout))
}
