-- Embeddings of texts from an OpenAI-compatible embeddings endpoint
-- (--embed-model), for CoRank's choice of feature items and the paraphrase
-- prefilter: each text is embedded once per model. namespace is the model's
-- name, text_key the SHA-256 of the text, vector little-endian float32s.
CREATE TABLE embeddings (
    namespace  TEXT NOT NULL,
    text_key   TEXT NOT NULL,
    vector     BLOB NOT NULL,
    PRIMARY KEY (namespace, text_key)
) WITHOUT ROWID;
