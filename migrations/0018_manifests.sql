-- Run manifests (docs/formats.md, "How this was made"). Each document
-- keeps a hash of its content (title, text, metadata:
-- pipeline.DocumentContentHash), so the corpus's fingerprint combines
-- stored hashes instead of reading every text; documents stored before
-- this migration get theirs the first time a fingerprint is asked for.
-- The index on (id, content_hash) lets that read skip the texts.
ALTER TABLE documents ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX documents_content_hash ON documents (id, content_hash);

-- The manifest of a job (JSON of pipeline.Manifest; '' before the job
-- started or for jobs from before manifests), recorded when its run
-- starts and again, final, with its report; the report keeps its own copy
-- so it outlives its job.
ALTER TABLE jobs ADD COLUMN manifest TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN manifest TEXT NOT NULL DEFAULT '';
