package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// mustHash hashes a password at bcrypt's minimum cost, to keep tests fast.
func mustHash(t *testing.T, pw string) string {
	t.Helper()
	h, err := auth.HashPasswordCost(pw, bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustCreateUser(t *testing.T, db *sqlite.DB, name string, role auth.Role) auth.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), name, role, mustHash(t, name+" password"))
	if err != nil {
		t.Fatalf("create user %q: %v", name, err)
	}
	return u
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)

	for _, count := range []func(context.Context) (int, error){db.CountUsers, db.CountAdmins} {
		if n, err := count(ctx); err != nil || n != 0 {
			t.Fatalf("count on an empty database = %d, %v", n, err)
		}
	}
	before := time.Now().Add(-time.Second)
	ada := mustCreateUser(t, db, "Ada", auth.RoleAdmin)
	if ada.ID <= 0 || ada.Name != "Ada" || ada.Role != auth.RoleAdmin {
		t.Errorf("created %+v", ada)
	}
	if ada.CreatedAt.Before(before) || ada.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("created at %v, want about now", ada.CreatedAt)
	}
	bob := mustCreateUser(t, db, "bob", auth.RoleReviewer)
	cy := mustCreateUser(t, db, "cy.analyst", auth.RoleAnalyst)

	// Names are unique without regard to case.
	_, err := db.CreateUser(ctx, "ADA", auth.RoleAnalyst, mustHash(t, "another password"))
	if !errors.Is(err, pipeline.ErrConflict) || !strings.Contains(err.Error(), `a user called "ADA" already exists`) {
		t.Errorf("duplicate name: %v, want ErrConflict", err)
	}
	invalid := []struct {
		name string
		user string
		role auth.Role
		hash string
	}{
		{name: "bad name", user: "ada lovelace", role: auth.RoleAdmin, hash: "h"},
		{name: "bad role", user: "dee", role: "owner", hash: "h"},
		{name: "no hash", user: "dee", role: auth.RoleAdmin, hash: ""},
	}
	for _, tt := range invalid {
		if _, err := db.CreateUser(ctx, tt.user, tt.role, tt.hash); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tt.name, err)
		}
	}

	if n, err := db.CountUsers(ctx); err != nil || n != 3 {
		t.Errorf("CountUsers = %d, %v; want 3", n, err)
	}
	if n, err := db.CountAdmins(ctx); err != nil || n != 1 {
		t.Errorf("CountAdmins = %d, %v; want 1", n, err)
	}

	users, err := db.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// By name: "Ada" < "bob" < "cy.analyst" in NOCASE order.
	want := []auth.User{ada, bob, cy}
	if diff := cmp.Diff(want, users, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Errorf("Users (-want +got)\n%s", diff)
	}

	got, err := db.UserByName(ctx, "ADA")
	if err != nil || got.ID != ada.ID || got.Name != "Ada" {
		t.Errorf("UserByName(ADA) = %+v, %v", got, err)
	}
	if _, err := db.UserByName(ctx, "nobody"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("UserByName(nobody) = %v, want ErrNotFound", err)
	}
	u, hash, err := db.Credentials(ctx, "bob")
	if err != nil || u.ID != bob.ID || !auth.CheckPassword(hash, "bob password") {
		t.Errorf("Credentials(bob) = %+v, hash matches %v, %v", u, auth.CheckPassword(hash, "bob password"), err)
	}
}

func TestSetPasswordEndsSessions(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	ada := mustCreateUser(t, db, "ada", auth.RoleAnalyst)
	bob := mustCreateUser(t, db, "bob", auth.RoleAnalyst)
	now := time.Now()
	adaTok, adaSess := auth.NewSession(ada.ID, now)
	bobTok, bobSess := auth.NewSession(bob.ID, now)
	for _, s := range []auth.Session{adaSess, bobSess} {
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	if err := db.SetPassword(ctx, "ADA", mustHash(t, "a new password")); err != nil {
		t.Fatal(err)
	}
	_, hash, err := db.Credentials(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if auth.CheckPassword(hash, "ada password") || !auth.CheckPassword(hash, "a new password") {
		t.Error("the password was not replaced")
	}
	if _, _, err := db.SessionUser(ctx, auth.HashToken(adaTok), now); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("ada's session after a password change: %v, want ErrNotFound", err)
	}
	if _, _, err := db.SessionUser(ctx, auth.HashToken(bobTok), now); err != nil {
		t.Errorf("bob's session ended with ada's password change: %v", err)
	}
	if err := db.SetPassword(ctx, "nobody", mustHash(t, "a new password")); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("SetPassword(nobody) = %v, want ErrNotFound", err)
	}
	if err := db.SetPassword(ctx, "ada", ""); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("SetPassword with no hash = %v, want ErrInvalid", err)
	}
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	ada := mustCreateUser(t, db, "ada", auth.RoleReviewer)
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	token, sess := auth.NewSession(ada.ID, t0)
	if err := db.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	hash := auth.HashToken(token)

	u, got, err := db.SessionUser(ctx, hash, t0.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != ada.ID || u.Name != "ada" || u.Role != auth.RoleReviewer {
		t.Errorf("session user = %+v", u)
	}
	// 30 s is under the touch interval: last seen stays at t0.
	if diff := cmp.Diff(sess, got); diff != "" {
		t.Errorf("session (-want +got)\n%s", diff)
	}

	// 11 hours later the session is touched...
	at := t0.Add(11 * time.Hour)
	if _, got, err = db.SessionUser(ctx, hash, at); err != nil || !got.LastSeenAt.Equal(at) {
		t.Fatalf("touch at t0+11h: last seen %v, %v", got.LastSeenAt, err)
	}
	// ...so at t0+22h it has been idle 11 hours, not 22: still valid.
	if _, _, err := db.SessionUser(ctx, hash, t0.Add(22*time.Hour)); err != nil {
		t.Errorf("at t0+22h after a touch at t0+11h: %v", err)
	}
	// Idle from t0+22h to t0+34h: 12 hours, expired, and deleted.
	if _, _, err := db.SessionUser(ctx, hash, t0.Add(34*time.Hour)); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("after 12 idle hours: %v, want ErrNotFound", err)
	}
	if _, _, err := db.SessionUser(ctx, hash, t0.Add(22*time.Hour)); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("the expired session was not deleted: %v", err)
	}
	if _, _, err := db.SessionUser(ctx, auth.HashToken("unknown"), t0); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("unknown token: %v, want ErrNotFound", err)
	}

	if err := db.CreateSession(ctx, auth.Session{TokenHash: "x", UserID: 999, IdleTimeout: time.Hour}); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("session of a missing user: %v, want ErrNotFound", err)
	}
	if err := db.CreateSession(ctx, auth.Session{TokenHash: "x", UserID: ada.ID}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("session without an idle timeout: %v, want ErrInvalid", err)
	}
}

func TestDeleteSessions(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	ada := mustCreateUser(t, db, "ada", auth.RoleAdmin)
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	start := func(at time.Time) string {
		t.Helper()
		tok, s := auth.NewSession(ada.ID, at)
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		return auth.HashToken(tok)
	}
	old := start(t0)                        // idle from t0: ends at t0+12h
	recent := start(t0.Add(10 * time.Hour)) // ends at t0+22h
	// busy started 7 days before t0+13h and was last used at t0+12h30m.
	busyTok, busySess := auth.NewSession(ada.ID, t0.Add(-7*24*time.Hour+13*time.Hour))
	busySess.LastSeenAt = t0.Add(12*time.Hour + 30*time.Minute)
	if err := db.CreateSession(ctx, busySess); err != nil {
		t.Fatal(err)
	}
	busy := auth.HashToken(busyTok)

	// At t0+12h: old has idled 12 h; recent and busy live on.
	n, err := db.DeleteExpiredSessions(ctx, t0.Add(12*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("DeleteExpiredSessions at t0+12h = %d, %v; want 1", n, err)
	}
	// At t0+13h: busy reaches its 7 days although used 30 minutes ago.
	n, err = db.DeleteExpiredSessions(ctx, t0.Add(13*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("DeleteExpiredSessions at t0+13h = %d, %v; want 1", n, err)
	}
	for name, h := range map[string]string{"old": old, "busy": busy} {
		if _, _, err := db.SessionUser(ctx, h, t0); !errors.Is(err, pipeline.ErrNotFound) {
			t.Errorf("%s session still there: %v", name, err)
		}
	}
	if err := db.DeleteSession(ctx, recent); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.SessionUser(ctx, recent, t0.Add(11*time.Hour)); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("deleted session still there: %v", err)
	}
	if err := db.DeleteSession(ctx, recent); err != nil {
		t.Errorf("deleting a deleted session: %v", err)
	}
}
