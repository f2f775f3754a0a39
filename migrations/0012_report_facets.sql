-- Facets (docs/pipeline.md): a report's sentences are grouped under the
-- things its request asks for. Each stored sentence, as generated and in
-- every version, keeps the heading of the facet it stands under ('' for
-- none: reports stored before, or whose facets could not be read), and a
-- report keeps its facets in the request's order as a JSON array of
-- {"heading", "description"} objects.
ALTER TABLE report_sentences ADD COLUMN facet TEXT NOT NULL DEFAULT '';
ALTER TABLE report_version_sentences ADD COLUMN facet TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN facets TEXT NOT NULL DEFAULT '[]';
