-- A report keeps what its run had to tell its readers (pipeline.Report
-- Problems): failures the run tolerated and what limits the report, such
-- as a subject few of the request's best passages speak of, as a JSON
-- array of strings. Reports stored before have none.
ALTER TABLE reports ADD COLUMN problems TEXT NOT NULL DEFAULT '[]';
