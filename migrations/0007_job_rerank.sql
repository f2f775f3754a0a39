-- The rerank stage of a report job: the first-stage ranking (the job's
-- job_retrieval rows hold the reranked order), the method's trace and the
-- stage's model usage. One row per job that reranked; a re-run replaces it.
CREATE TABLE job_rerank (
    job_id      INTEGER PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    method      TEXT NOT NULL,
    first_stage TEXT NOT NULL,               -- JSON array of {rank, doc_id, title, score, ordinal}
    reranked    TEXT NOT NULL,               -- JSON array of doc ids in the reranked order
    selected    INTEGER NOT NULL DEFAULT 0,  -- size of a set method's chosen set
    trace       TEXT NOT NULL DEFAULT 'null',
    usage       TEXT NOT NULL DEFAULT '{}'
) STRICT;
