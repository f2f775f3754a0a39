#!/usr/bin/env python3
"""Derive Crucible's report requests and BM25 queries from summhay-news.

Run from the repository root:  python3 testdata/eval/make_summhay.py
Reads ../shared/datasets/summhay-news/queries.jsonl and writes
summhay-requests.jsonl (one NeuCLIR-style request per subtopic: the
subtopic as title, its query as problem statement, the haystack's topic as
background, limit 2000) and summhay-queries.jsonl ({"id","text"}: title +
problem statement, the text the report pipeline retrieves with).
"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "..", "..", "shared", "datasets", "summhay-news", "queries.jsonl")
with open(src) as f, \
        open(os.path.join(here, "summhay-requests.jsonl"), "w") as reqs, \
        open(os.path.join(here, "summhay-queries.jsonl"), "w") as queries:
    for line in f:
        q = json.loads(line)
        reqs.write(json.dumps({
            "request_id": q["id"], "title": q["subtopic"],
            "background": "Part of a report on: " + q["topic"] + ".",
            "problem_statement": q["text"], "limit": 2000,
            "collection_ids": ["summhay-news"],
        }) + "\n")
        queries.write(json.dumps({"id": q["id"], "text": q["subtopic"] + " " + q["text"]}) + "\n")
