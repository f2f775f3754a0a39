-- Report jobs and everything they produce. Artefacts are keyed by job so a
-- re-run replaces them; the report itself is kept once the job is done.
CREATE TABLE jobs (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    state             TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),
    request           TEXT NOT NULL,            -- JSON of the request
    settings          TEXT NOT NULL,            -- JSON of the settings
    engine            TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,            -- request + settings + engine, for duplicate submissions
    stage             TEXT NOT NULL DEFAULT '',
    done              INTEGER NOT NULL DEFAULT 0,
    total             INTEGER NOT NULL DEFAULT 0,
    calls             INTEGER NOT NULL DEFAULT 0,
    cache_hits        INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    error             TEXT NOT NULL DEFAULT '',
    error_stage       TEXT NOT NULL DEFAULT '',
    cancel_requested  INTEGER NOT NULL DEFAULT 0,
    report_id         INTEGER,
    created_at        TEXT NOT NULL,
    started_at        TEXT NOT NULL DEFAULT '',
    finished_at       TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_fingerprint ON jobs(fingerprint);

CREATE TABLE job_retrieval (
    job_id  INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    rank    INTEGER NOT NULL,
    doc_id  TEXT NOT NULL,
    title   TEXT NOT NULL DEFAULT '',
    score   REAL NOT NULL,
    ordinal INTEGER NOT NULL,
    PRIMARY KEY (job_id, rank)
) STRICT;

CREATE TABLE job_nuggets (
    job_id      INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    nugget_id   TEXT NOT NULL,
    question    TEXT NOT NULL,
    answer      TEXT NOT NULL,
    sources     TEXT NOT NULL DEFAULT '[]',   -- JSON array of doc ids
    paraphrases TEXT NOT NULL DEFAULT '[]',   -- JSON array of nugget ids
    popularity  INTEGER NOT NULL DEFAULT 1,
    features    TEXT NOT NULL DEFAULT '{}',   -- JSON object
    quality     REAL NOT NULL DEFAULT 0,
    rank        INTEGER NOT NULL DEFAULT 0,   -- 0: not kept after ranking
    PRIMARY KEY (job_id, position),
    UNIQUE (job_id, nugget_id)
) STRICT;

CREATE TABLE job_candidates (
    job_id     INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    nugget_id  TEXT NOT NULL,
    sentence   TEXT NOT NULL,
    support    TEXT NOT NULL DEFAULT '',
    doc_id     TEXT NOT NULL,
    ordinal    INTEGER NOT NULL,
    start      INTEGER NOT NULL,
    "end"      INTEGER NOT NULL,
    confidence REAL NOT NULL,
    supported  TEXT NOT NULL DEFAULT '',
    covers     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (job_id, position)
) STRICT;

CREATE TABLE reports (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     INTEGER UNIQUE REFERENCES jobs(id) ON DELETE SET NULL,
    request    TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    engine     TEXT NOT NULL,
    settings   TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE report_sentences (
    report_id  INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    text       TEXT NOT NULL,
    doc_id     TEXT NOT NULL,
    ordinal    INTEGER NOT NULL,
    start      INTEGER NOT NULL,
    "end"      INTEGER NOT NULL,
    nugget_id  TEXT NOT NULL,
    confidence REAL NOT NULL,
    supported  TEXT NOT NULL DEFAULT '',
    covers     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (report_id, position)
) STRICT;
