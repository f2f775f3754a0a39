-- Every status change of a report (docs/authoring.md), newest last;
-- report_status holds the current one. An approval of a version whose
-- citations were not all reviewed supported records the counts the
-- approver confirmed (unreviewed, partly, not supported); they are 0
-- otherwise.
ALTER TABLE report_status ADD COLUMN confirmed_unreviewed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE report_status ADD COLUMN confirmed_partly INTEGER NOT NULL DEFAULT 0;
ALTER TABLE report_status ADD COLUMN confirmed_unsupported INTEGER NOT NULL DEFAULT 0;

CREATE TABLE report_status_changes (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    report_id             INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    status                TEXT NOT NULL CHECK (status IN ('draft', 'in_review', 'approved')),
    changed_by            TEXT NOT NULL,
    changed_at            TEXT NOT NULL,              -- RFC 3339, UTC
    version               INTEGER NOT NULL,           -- the version the status was set on
    confirmed_unreviewed  INTEGER NOT NULL DEFAULT 0,
    confirmed_partly      INTEGER NOT NULL DEFAULT 0,
    confirmed_unsupported INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX report_status_changes_report ON report_status_changes (report_id, id);

-- Reports moved before this migration keep their last change.
INSERT INTO report_status_changes (report_id, status, changed_by, changed_at, version)
    SELECT report_id, status, changed_by, changed_at, version FROM report_status ORDER BY changed_at;
