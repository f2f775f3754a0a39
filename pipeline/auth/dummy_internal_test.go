package auth

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
)

// oneUser is a Store holding one account; only Credentials is used.
type oneUser struct {
	Store
	name, hash string
}

func (s oneUser) Credentials(_ context.Context, name string) (User, string, error) {
	if name != s.name {
		return User{}, "", fmt.Errorf("user %q: %w", name, pipeline.ErrNotFound)
	}
	return User{ID: 1, Name: s.name, Role: RoleAnalyst}, s.hash, nil
}

// A login for an unknown name checks a dummy hash of the cost the stored
// hashes have, so it costs what a login for a real account costs.
func TestUnknownNameChecksADummyOfTheStoredCost(t *testing.T) {
	const cost = bcrypt.MinCost + 1
	h, err := HashPasswordCost("ada password", cost)
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(oneUser{name: "ada", hash: h}, nil)
	if got := svc.dummyCost(); got != PasswordCost {
		t.Fatalf("before any login the dummy cost is %d, want PasswordCost %d", got, PasswordCost)
	}
	ctx := context.Background()
	if _, _, err := svc.Login(ctx, "ada", "a wrong password", "192.0.2.1"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	if got := svc.dummyCost(); got != cost {
		t.Fatalf("after checking a hash of cost %d the dummy cost is %d", cost, got)
	}
	if _, _, err := svc.Login(ctx, "nobody", "a wrong password", "192.0.2.2"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("unknown name: %v", err)
	}
	if c, err := bcrypt.Cost([]byte(dummyHash(cost))); err != nil || c != cost {
		t.Errorf("dummy hash cost %d (%v), want %d", c, err, cost)
	}
	if dummyHash(cost) != dummyHash(cost) {
		t.Error("the dummy hash of a cost is made again on each use")
	}
}
