-- Deleting reports (docs/accounts.md, "Deleting reports"): a job records
-- who submitted it, so its author may delete it, and every deletion is
-- written to the audit log, which is never pruned.
ALTER TABLE jobs ADD COLUMN submitted_by TEXT NOT NULL DEFAULT '';

CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    subject TEXT NOT NULL,
    detail  TEXT NOT NULL DEFAULT ''
) STRICT;
