-- Corpus uploads from the portal (pipeline/uploads): one row per upload,
-- its files kept under the data folder's uploads/ in the folder `dir`
-- until a background worker has ingested them.
--
-- The counts are written as the worker reads. added, replaced and passages
-- change only when a batch of documents has been committed, together with
-- committed_documents, the number of documents read up to that batch: an
-- upload interrupted by a restart resumes by reading its files again and
-- skipping that many documents, so nothing is stored twice. records,
-- documents, skipped, notices and bytes_read are counted again from the
-- start on a resume.
CREATE TABLE uploads (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    uploader            TEXT NOT NULL,
    files               TEXT NOT NULL,                -- JSON array of {name, size}, in upload order
    dir                 TEXT NOT NULL CHECK (dir <> ''),
    state               TEXT NOT NULL DEFAULT 'queued'
                        CHECK (state IN ('queued', 'running', 'done', 'failed')),
    records             INTEGER NOT NULL DEFAULT 0,   -- documents read + records skipped
    documents           INTEGER NOT NULL DEFAULT 0,   -- good documents read
    added               INTEGER NOT NULL DEFAULT 0,   -- documents new to the collection
    replaced            INTEGER NOT NULL DEFAULT 0,   -- documents that replaced a stored one
    passages            INTEGER NOT NULL DEFAULT 0,
    skipped             INTEGER NOT NULL DEFAULT 0,   -- problems that lost input
    notices             INTEGER NOT NULL DEFAULT 0,   -- problems that did not
    bytes_read          INTEGER NOT NULL DEFAULT 0,
    committed_documents INTEGER NOT NULL DEFAULT 0,
    message             TEXT NOT NULL DEFAULT '',     -- why it failed
    created_at          TEXT NOT NULL,
    started_at          TEXT NOT NULL DEFAULT '',
    finished_at         TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX uploads_state ON uploads (state, id);

-- The first problems (bad records and notices) of an upload, in the order
-- the reader reported them: seq is the problem's 0-based ordinal, so a
-- resumed upload that reports the same problems again stores each once.
CREATE TABLE upload_errors (
    upload_id INTEGER NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL CHECK (seq >= 0),
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL DEFAULT 0,
    reason    TEXT NOT NULL,
    skipped   INTEGER NOT NULL DEFAULT 1 CHECK (skipped IN (0, 1)),
    PRIMARY KEY (upload_id, seq)
) STRICT;
