-- An upload cancelled from its page: it ends as 'failed' (the states stay
-- as 0009 checks them) with cancelled_by naming who cancelled it, and is
-- never resumed. The documents committed before the cancel are kept.
ALTER TABLE uploads ADD COLUMN cancelled_by TEXT NOT NULL DEFAULT '';
