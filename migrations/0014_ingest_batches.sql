-- The ingest journal: every batch of documents the store commits gets a
-- sequence number, the ids it wrote and the versions it replaced (title
-- and passages, as JSON), in the same transaction. The index records the
-- number of the last batch it holds (its watermark), so after a killed
-- ingest the next reader indexes exactly the batches the index lacks.
-- Rows the persisted index already holds are deleted; AUTOINCREMENT keeps
-- numbers from being reused after that.
CREATE TABLE ingest_batches (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_ids   TEXT NOT NULL,             -- JSON array of the ids written
    previous  TEXT NOT NULL DEFAULT '[]', -- JSON array of replaced versions
    stored_at TEXT NOT NULL
);

-- Documents an upload read that were stored already exactly as given: not
-- written again.
ALTER TABLE uploads ADD COLUMN unchanged INTEGER NOT NULL DEFAULT 0;
