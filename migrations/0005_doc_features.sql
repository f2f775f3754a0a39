-- CoRank's compact document features (pipeline/rerank.DocFeatures), one
-- row per document and namespace. The namespace names the engine, the
-- feature prompt's version and the text budget
-- (rerank.FeatureNamespace), so features of different engines never mix.
-- content_hash is rerank.FeatureHash of the document the features were
-- extracted from: a document re-ingested with another title or text no
-- longer matches and is extracted again. There is no foreign key to
-- documents: re-ingesting replaces a document row, and features of an
-- unchanged text are worth keeping.
CREATE TABLE doc_features (
    doc_id       TEXT NOT NULL,
    namespace    TEXT NOT NULL CHECK (namespace <> ''),
    content_hash TEXT NOT NULL,
    features     TEXT NOT NULL,  -- JSON of rerank.DocFeatures
    extracted_at TEXT NOT NULL,  -- RFC 3339, UTC
    PRIMARY KEY (doc_id, namespace)
) STRICT;
