package auth

import (
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
)

// Password rules. bcrypt reads at most 72 bytes of a password; longer ones
// are refused rather than silently cut.
const (
	// MinPasswordChars is the shortest password accepted, in characters.
	MinPasswordChars = 10
	// MaxPasswordBytes is the longest password accepted, in bytes of
	// UTF-8: bcrypt's limit.
	MaxPasswordBytes = 72
	// PasswordCost is the bcrypt cost of new password hashes: 2^12
	// rounds, about a quarter of a second on a current server core, which
	// makes guessing offline slow while a login stays quick.
	PasswordCost = 12
)

// ValidatePassword checks a new password against the rules: at least
// MinPasswordChars characters, at most MaxPasswordBytes bytes, valid UTF-8.
// A bad password is an error wrapping pipeline.ErrInvalid saying which
// rule it breaks (never the password).
func ValidatePassword(password string) error {
	switch n := utf8.RuneCountInString(password); {
	case !utf8.ValidString(password):
		return pipeline.Invalidf("the password is not valid UTF-8 text")
	case n < MinPasswordChars:
		return pipeline.Invalidf("the password has %d characters; it needs at least %d", n, MinPasswordChars)
	case len(password) > MaxPasswordBytes:
		return pipeline.Invalidf("the password is %d bytes long; the limit is %d bytes (a bcrypt limit)", len(password), MaxPasswordBytes)
	}
	return nil
}

// HashPassword validates the password and returns its bcrypt hash at
// PasswordCost, salted at random.
func HashPassword(password string) (string, error) {
	return HashPasswordCost(password, PasswordCost)
}

// HashPasswordCost is HashPassword at another bcrypt cost (4 to 31). Tests
// use the minimum, 4, to stay fast; CheckPassword reads the cost from the
// hash, so hashes of any cost verify.
func HashPasswordCost(password string, cost int) (string, error) {
	if err := ValidatePassword(password); err != nil {
		return "", err
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether password matches the bcrypt hash. The
// comparison takes constant time for a given hash; a malformed hash never
// matches.
func CheckPassword(hash, password string) bool {
	err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
	return err == nil
}

// dummyHashes holds, per bcrypt cost, a hash of a random password.
// Checking a password against one when the user name is unknown makes a
// failed login take as long whether or not the name exists, so timing does
// not tell which names have accounts.
var dummyHashes sync.Map // cost → hash

// dummyHash returns the dummy hash at cost, made on first use.
func dummyHash(cost int) string {
	if h, ok := dummyHashes.Load(cost); ok {
		return h.(string)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(NewToken()[:MaxPasswordBytes/2]), cost)
	if err != nil {
		// GenerateFromPassword fails only for a bad cost (the callers
		// pass costs read from stored hashes) or a long password.
		panic(errors.Join(errors.New("auth: make the dummy password hash"), err))
	}
	v, _ := dummyHashes.LoadOrStore(cost, string(h))
	return v.(string)
}
