-- Every text is stored once. A document's text is its passages' texts,
-- each after the text between it and the passage before it (passages.gap:
-- usually the white space the segmenter steps over), followed by the text
-- after its last passage (documents.tail); documents.bytes keeps its
-- length. Search reads passages, the unit it ranks, without touching the
-- documents' texts; a document is put together from its passages when it
-- is read whole. Until this migration documents.text repeated every
-- passage's text, so an ingest wrote each text twice (docs/benchmarks.md
-- §9, "Session 27").
ALTER TABLE passages ADD COLUMN gap TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN tail TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;

UPDATE passages SET gap = CAST(substr(CAST(d.text AS BLOB), w.prev + 1, passages.start - w.prev) AS TEXT)
FROM (SELECT doc_id, ordinal, COALESCE(LAG("end") OVER (PARTITION BY doc_id ORDER BY ordinal), 0) AS prev FROM passages) AS w
JOIN documents d ON d.id = w.doc_id
WHERE passages.doc_id = w.doc_id AND passages.ordinal = w.ordinal;

UPDATE documents SET bytes = length(CAST(text AS BLOB)),
    tail = CAST(substr(CAST(text AS BLOB), COALESCE((SELECT MAX(p."end") FROM passages p WHERE p.doc_id = documents.id), 0) + 1) AS TEXT);

ALTER TABLE documents DROP COLUMN text;
