-- Model answers by cache key (pipeline/llm.CacheKey: the hex SHA-256 of the
-- namespace, task, messages and parameters of a request). Re-running a
-- report, resuming a job or evaluating a variant replays them at no cost.
CREATE TABLE model_cache (
    key               TEXT PRIMARY KEY,
    task              TEXT NOT NULL,
    model             TEXT NOT NULL,              -- the model that answered
    response          TEXT NOT NULL,              -- JSON: {"text", "logprobs"}
    prompt_tokens     INTEGER NOT NULL DEFAULT 0, -- of the original call
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT NOT NULL               -- RFC 3339, UTC
) STRICT;
