package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

var _ auth.Store = (*DB)(nil)

// CreateUser stores a new account with the name, role and bcrypt password
// hash (auth.HashPassword) and returns it. A name that fails
// auth.ValidateName, an unknown role or an empty hash is an error wrapping
// pipeline.ErrInvalid; a name already taken, in any case, is an error
// wrapping pipeline.ErrConflict.
func (d *DB) CreateUser(ctx context.Context, name string, role auth.Role, passwordHash string) (auth.User, error) {
	if err := auth.ValidateName(name); err != nil {
		return auth.User{}, err
	}
	if !role.Valid() {
		return auth.User{}, pipeline.Invalidf("unknown role %q: want admin, analyst or reviewer", role)
	}
	if passwordHash == "" {
		return auth.User{}, pipeline.Invalidf("user %q has no password hash", name)
	}
	u := auth.User{Name: name, Role: role, CreatedAt: d.now().UTC()}
	now := formatTime(u.CreatedAt)
	err := d.db.QueryRowContext(ctx, `INSERT INTO users (name, role, password_hash, created_at, password_at)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, name, string(role), passwordHash, now, now).Scan(&u.ID)
	if isConstraint(err) {
		return auth.User{}, fmt.Errorf("a user called %q already exists: %w", name, pipeline.ErrConflict)
	}
	if err != nil {
		return auth.User{}, fmt.Errorf("create user %q: %w", name, err)
	}
	return u, nil
}

// UserByName returns the account with the name, matched without regard to
// case, or an error wrapping pipeline.ErrNotFound.
func (d *DB) UserByName(ctx context.Context, name string) (auth.User, error) {
	u, _, err := d.Credentials(ctx, name)
	return u, err
}

// Credentials returns the account with the name, matched without regard
// to case, and its password hash, or an error wrapping
// pipeline.ErrNotFound.
func (d *DB) Credentials(ctx context.Context, name string) (auth.User, string, error) {
	var u auth.User
	var role, hash, created string
	err := d.db.QueryRowContext(ctx, `SELECT id, name, role, password_hash, created_at FROM users WHERE name = ?`, name).
		Scan(&u.ID, &u.Name, &role, &hash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.User{}, "", fmt.Errorf("no user is called %q: %w", name, errNotFound)
	}
	if err != nil {
		return auth.User{}, "", fmt.Errorf("load user %q: %w", name, err)
	}
	u.Role, u.CreatedAt = auth.Role(role), parseTime(created)
	return u, hash, nil
}

// Users lists every account by name.
func (d *DB) Users(ctx context.Context) ([]auth.User, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, name, role, created_at FROM users ORDER BY name, id`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []auth.User
	for rows.Next() {
		var u auth.User
		var role, created string
		if err := rows.Scan(&u.ID, &u.Name, &role, &created); err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		u.Role, u.CreatedAt = auth.Role(role), parseTime(created)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// SetPassword replaces the password hash of the account with the name
// (matched without regard to case) and ends all its sessions, so a
// changed password signs out every browser that knew the old one. An
// unknown name is an error wrapping pipeline.ErrNotFound; an empty hash
// one wrapping pipeline.ErrInvalid.
func (d *DB) SetPassword(ctx context.Context, name, passwordHash string) error {
	if passwordHash == "" {
		return pipeline.Invalidf("no password hash for user %q", name)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("set password of %q: %w", name, err)
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx, `UPDATE users SET password_hash = ?, password_at = ? WHERE name = ? RETURNING id`,
		passwordHash, formatTime(d.now()), name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("no user is called %q: %w", name, errNotFound)
	}
	if err != nil {
		return fmt.Errorf("set password of %q: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("set password of %q: end sessions: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("set password of %q: %w", name, err)
	}
	return nil
}

// CountUsers returns how many accounts exist.
func (d *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// CountAdmins returns how many accounts have the admin role.
func (d *DB) CountAdmins(ctx context.Context) (int, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE role = ?`, string(auth.RoleAdmin)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count admins: %w", err)
	}
	return n, nil
}

// CreateSession stores a new session. A session without a token hash, a
// user or a positive idle timeout is an error wrapping
// pipeline.ErrInvalid; a user that does not exist one wrapping
// pipeline.ErrNotFound.
func (d *DB) CreateSession(ctx context.Context, s auth.Session) error {
	switch {
	case strings.TrimSpace(s.TokenHash) == "":
		return pipeline.Invalidf("a session needs a token hash")
	case s.UserID <= 0:
		return pipeline.Invalidf("a session needs a user")
	case s.IdleTimeout <= 0:
		return pipeline.Invalidf("a session needs a positive idle timeout")
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO sessions
		(token_hash, user_id, created_at, last_seen_at, idle_timeout_ms, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		s.TokenHash, s.UserID, s.CreatedAt.UnixMilli(), s.LastSeenAt.UnixMilli(),
		s.IdleTimeout.Milliseconds(), s.ExpiresAt.UnixMilli())
	if isConstraint(err) {
		// The token hash is random, so the only constraint left to break
		// is the user's foreign key.
		return fmt.Errorf("create session: no user has the id %d: %w", s.UserID, errNotFound)
	}
	if err != nil {
		return fmt.Errorf("create session of user %d: %w", s.UserID, err)
	}
	return nil
}

// SessionUser returns the session with the token hash and its user, and
// moves the session's last-seen time to now when it is more than
// auth.TouchInterval old. A session that does not exist or has expired by
// now is an error wrapping pipeline.ErrNotFound; an expired one is
// deleted.
func (d *DB) SessionUser(ctx context.Context, tokenHash string, now time.Time) (auth.User, auth.Session, error) {
	var u auth.User
	var s auth.Session
	var role, created string
	var sCreated, lastSeen, idleMS, expires int64
	err := d.db.QueryRowContext(ctx, `SELECT u.id, u.name, u.role, u.created_at,
			s.created_at, s.last_seen_at, s.idle_timeout_ms, s.expires_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = ?`, tokenHash).
		Scan(&u.ID, &u.Name, &role, &created, &sCreated, &lastSeen, &idleMS, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.User{}, auth.Session{}, fmt.Errorf("session: %w", errNotFound)
	}
	if err != nil {
		return auth.User{}, auth.Session{}, fmt.Errorf("load session: %w", err)
	}
	u.Role, u.CreatedAt = auth.Role(role), parseTime(created)
	s = auth.Session{
		TokenHash:   tokenHash,
		UserID:      u.ID,
		CreatedAt:   time.UnixMilli(sCreated).UTC(),
		LastSeenAt:  time.UnixMilli(lastSeen).UTC(),
		IdleTimeout: time.Duration(idleMS) * time.Millisecond,
		ExpiresAt:   time.UnixMilli(expires).UTC(),
	}
	if s.Expired(now) {
		if err := d.DeleteSession(ctx, tokenHash); err != nil {
			return auth.User{}, auth.Session{}, err
		}
		return auth.User{}, auth.Session{}, fmt.Errorf("session expired: %w", errNotFound)
	}
	if now.Sub(s.LastSeenAt) >= auth.TouchInterval {
		if _, err := d.db.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?`,
			now.UnixMilli(), tokenHash); err != nil {
			return auth.User{}, auth.Session{}, fmt.Errorf("touch session: %w", err)
		}
		s.LastSeenAt = time.UnixMilli(now.UnixMilli()).UTC()
	}
	return u, s, nil
}

// DeleteSession ends the session with the token hash; ending one that does
// not exist is not an error.
func (d *DB) DeleteSession(ctx context.Context, tokenHash string) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions deletes every session expired by now (see
// auth.Session.Expired) and returns how many.
func (d *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	ms := now.UnixMilli()
	res, err := d.db.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at + idle_timeout_ms <= ?`, ms, ms)
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	return int(n), nil
}
