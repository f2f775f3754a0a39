-- A passage's text is its document's bytes start..end (pipeline.Passage,
-- checked when a document is stored), so the store keeps each text once:
-- the passages table holds the offsets only and the store cuts the text
-- from documents.text when it reads a passage. This halves what an
-- ingest writes and the database's size (docs/benchmarks.md §9).
ALTER TABLE passages DROP COLUMN text;
