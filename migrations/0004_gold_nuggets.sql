-- Gold nugget sets uploaded on the reports' evaluation pages. Each row is
-- one uploaded file: its nuggets, as the judge read and normalised them,
-- are kept as one JSON array, and their counts are kept beside it so the
-- list of sets does not decode every set. Gold sets belong to the portal's
-- one collection.
CREATE TABLE gold_sets (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT NOT NULL CHECK (name <> ''),
    nuggets       TEXT NOT NULL,              -- JSON array of judge.Nugget
    nugget_count  INTEGER NOT NULL CHECK (nugget_count > 0),
    request_count INTEGER NOT NULL CHECK (request_count > 0),
    created_at    TEXT NOT NULL
) STRICT;
