-- Caps and scorecards (issue 16 #3, #4; docs/operations.md, "Caps";
-- docs/evaluation.md, "Scorecards").
--
-- A job keeps the caps it runs under (JSON of pipeline.Caps; '' for
-- none) and, when one of them stopped it, which one, at what limit and in
-- which stage (JSON of pipeline.CapError). The jobs table's state check
-- predates stopped jobs and SQLite cannot change it in place, so a
-- stopped job is stored as 'failed' with cap_reached set, and the store
-- reads it back as 'stopped'.
ALTER TABLE jobs ADD COLUMN caps TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN cap_reached TEXT NOT NULL DEFAULT '';

-- A report's scorecard (JSON of pipeline.Scorecard): its latest, computed
-- on demand by the portal's judge for one version of the report, kept
-- until it is computed again; it goes when its report goes.
CREATE TABLE report_scorecards (
    report_id   INTEGER PRIMARY KEY REFERENCES reports(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    computed_at TEXT NOT NULL,
    scorecard   TEXT NOT NULL
) STRICT;
