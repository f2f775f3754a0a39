-- Authoring and review (docs/authoring.md). Every change to a report's
-- text or nugget bank is a new version: a row here plus a full copy of the
-- version's sentences and nuggets. Version 1 is the generated report; it
-- is written when the report is first opened for authoring, so reports
-- stored before this migration gain it too. report_sentences keeps the
-- report as generated.
CREATE TABLE report_versions (
    report_id     INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL CHECK (version > 0),
    author        TEXT NOT NULL,
    created_at    TEXT NOT NULL,              -- RFC 3339, UTC
    change        TEXT NOT NULL,              -- "edited sentence 3"
    restored_from INTEGER NOT NULL DEFAULT 0, -- the version a restore copied
    PRIMARY KEY (report_id, version)
) STRICT;

CREATE TABLE report_version_sentences (
    report_id  INTEGER NOT NULL,
    version    INTEGER NOT NULL,
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
    recheck    INTEGER NOT NULL DEFAULT 0,   -- edited by hand: re-check the citation
    PRIMARY KEY (report_id, version, position),
    FOREIGN KEY (report_id, version) REFERENCES report_versions (report_id, version) ON DELETE CASCADE
) STRICT;

CREATE TABLE report_version_nuggets (
    report_id   INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    position    INTEGER NOT NULL,             -- rank - 1
    nugget_id   TEXT NOT NULL,
    question    TEXT NOT NULL,
    answer      TEXT NOT NULL,
    sources     TEXT NOT NULL DEFAULT '[]',   -- JSON array of doc ids
    paraphrases TEXT NOT NULL DEFAULT '[]',   -- JSON array of nugget ids
    popularity  INTEGER NOT NULL DEFAULT 1,
    features    TEXT NOT NULL DEFAULT '{}',   -- JSON object
    quality     REAL NOT NULL DEFAULT 0,
    pinned      INTEGER NOT NULL DEFAULT 0,
    changed     INTEGER NOT NULL DEFAULT 0,   -- added or edited since the sentences were generated
    PRIMARY KEY (report_id, version, position),
    UNIQUE (report_id, version, nugget_id),
    FOREIGN KEY (report_id, version) REFERENCES report_versions (report_id, version) ON DELETE CASCADE
) STRICT;

-- Reviewers' verdicts on citations, kept by sentence key (16 hex digits of
-- a hash of the sentence's text and citation): the newest row per key is
-- the verdict. Older rows are the review's history.
CREATE TABLE report_reviews (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    report_id    INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    sentence_key TEXT NOT NULL,
    verdict      TEXT NOT NULL CHECK (verdict IN ('supported', 'partly', 'unsupported')),
    comment      TEXT NOT NULL DEFAULT '',
    reviewer     TEXT NOT NULL,
    version      INTEGER NOT NULL,            -- the version the reviewer saw
    created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX report_reviews_key ON report_reviews (report_id, sentence_key, id);

-- A report's review status; a report without a row is a draft.
CREATE TABLE report_status (
    report_id  INTEGER PRIMARY KEY REFERENCES reports(id) ON DELETE CASCADE,
    status     TEXT NOT NULL CHECK (status IN ('draft', 'in_review', 'approved')),
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    version    INTEGER NOT NULL
) STRICT;
