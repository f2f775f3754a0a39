-- Trained nugget rankers (docs/ranking.md): a linear model per row, learned
-- from labelled nuggets with `crucible train ranker`, for the engine whose
-- features it was trained on. At most one model per engine is active: the
-- rank stage of that engine scores nuggets with it instead of the default
-- weights. The model (features, standardisation, weights, bias, counts and
-- cross-validation) is JSON; the columns repeat what the admin page lists.
CREATE TABLE ranker_models (
    id          INTEGER PRIMARY KEY,
    engine      TEXT NOT NULL,
    model       TEXT NOT NULL,
    trained_on  TEXT NOT NULL,
    active      INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    created_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX ranker_models_one_active ON ranker_models (engine) WHERE active = 1;
