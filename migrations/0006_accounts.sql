-- Accounts and their sessions (pipeline/auth). Names are unique without
-- regard to case, so "Ada" and "ada" cannot both exist and either logs
-- in. password_hash is a bcrypt hash; the password itself is never
-- stored.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (name <> ''),
    role          TEXT NOT NULL CHECK (role IN ('admin', 'analyst', 'reviewer')),
    password_hash TEXT NOT NULL CHECK (password_hash <> ''),
    created_at    TEXT NOT NULL,  -- RFC 3339, UTC
    password_at   TEXT NOT NULL   -- when the password was last set
) STRICT;

-- One row per signed-in browser. The cookie holds a random token; only its
-- SHA-256 is kept here, so the table holds no usable cookies. Times are
-- Unix milliseconds so expiry is a plain comparison in SQL: a session has
-- ended once now >= expires_at or now >= last_seen_at + idle_timeout_ms.
-- Deleting a user deletes their sessions.
CREATE TABLE sessions (
    token_hash      TEXT PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at      INTEGER NOT NULL,
    last_seen_at    INTEGER NOT NULL,
    idle_timeout_ms INTEGER NOT NULL CHECK (idle_timeout_ms > 0),
    expires_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX sessions_user ON sessions (user_id);
