-- Documents and passages: the source of truth for the corpus. The Bleve
-- index is derived from the passages table and can be rebuilt from it.
CREATE TABLE documents (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL,
    metadata    TEXT NOT NULL DEFAULT '{}', -- JSON object of string values
    source      TEXT NOT NULL DEFAULT '',
    ingested_at TEXT NOT NULL               -- RFC 3339, UTC
) STRICT;

CREATE TABLE passages (
    doc_id  TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    start   INTEGER NOT NULL, -- byte offsets into documents.text
    "end"   INTEGER NOT NULL,
    text    TEXT NOT NULL,
    PRIMARY KEY (doc_id, ordinal)
) STRICT;

-- Key/value settings the application keeps about itself (index state...).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
