-- The number of candidate sentences a report's run dropped as unsupported
-- by verification (pipeline.DroppedUnsupported): the candidates of its
-- kept nuggets that verification checked and that failed a check. Reports
-- stored before take the count from their job's candidates.
ALTER TABLE reports ADD COLUMN dropped_unsupported INTEGER NOT NULL DEFAULT 0;

UPDATE reports SET dropped_unsupported = (
    SELECT COUNT(*) FROM job_candidates c
    JOIN job_nuggets n ON n.job_id = c.job_id AND n.nugget_id = c.nugget_id
    WHERE c.job_id = reports.job_id AND n.rank > 0 AND c.sentence <> ''
      AND (c.supported = 'no' OR c.covers = 'no')
) WHERE job_id IS NOT NULL;
