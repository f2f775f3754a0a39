#!/usr/bin/env python3
"""Check a topic-term file against its requests and gold nuggets.

Standard library only. Usage (from anywhere):

    python3 testdata/eval/check_topics.py                      # the first set
    python3 testdata/eval/check_topics.py --set sotu2          # the second set
    python3 testdata/eval/check_topics.py --set sotu2 --show   # print passages with no term

For a set NAME it reads NAME-requests.jsonl, NAME-nuggets.jsonl and
NAME-topics.jsonl next to this script (or the files given with --requests,
--nuggets, --topics) and the corpus.

1. Structure: every line of the topics file is {"request_id": str,
   "terms": [str, ...]}; every request id of the requests file appears exactly
   once and no other id appears; each request has 8-25 non-empty, distinct
   (case-insensitive) terms; "*" may only end a term. Any error: exit 1.
2. Coverage: for every nugget and every address it lists, the supporting
   passage is the text 300 characters either side of an occurrence of one of
   its answers (matched as check_gold.py does). The pair is covered if some
   such passage contains at least one of the request's terms. The script
   prints, per request, how many (nugget, address) pairs are covered, and
   lists the uncovered ones. Uncovered pairs are reported but do not change
   the exit status unless --strict is given.

Term matching rule: case-insensitive; on word boundaries (a term that starts
or ends with a letter or digit may not be glued to another letter or digit);
any run of whitespace in a term matches any run of whitespace; a trailing "*"
matches any word ending ("tariff*" matches "tariff", "tariffs").
"""
import argparse
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = os.path.join(HERE, "..", "corpora", "sotu.jsonl.gz")
TERMS_PER_REQUEST = (8, 25)
WINDOW = 300


def term_pattern(term):
    star = term.endswith("*")
    body = term[:-1] if star else term
    pat = r"\s+".join(re.escape(p) for p in body.split())
    if body[:1].isalnum():
        pat = r"(?<![A-Za-z0-9])" + pat
    if star:
        pat += r"[A-Za-z0-9]*"
    if body[-1:].isalnum() or star:
        pat += r"(?![A-Za-z0-9])"
    return re.compile(pat, re.IGNORECASE)


def answer_pattern(answer):
    # identical to check_gold.py
    body = r"\s+".join(re.escape(p) for p in answer.split())
    if answer[:1].isalnum():
        body = r"(?<![A-Za-z0-9])" + body
    if answer[-1:].isalnum():
        body = body + r"(?![A-Za-z0-9])"
    return re.compile(body, re.IGNORECASE)


def load_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{i}: invalid JSON: {e}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="sotu", help="file prefix: sotu or sotu2 (default sotu)")
    ap.add_argument("--requests")
    ap.add_argument("--nuggets")
    ap.add_argument("--topics")
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--show", action="store_true", help="print the passages of uncovered pairs")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any pair is uncovered")
    args = ap.parse_args()
    req_path = args.requests or os.path.join(HERE, f"{args.set}-requests.jsonl")
    nug_path = args.nuggets or os.path.join(HERE, f"{args.set}-nuggets.jsonl")
    top_path = args.topics or os.path.join(HERE, f"{args.set}-topics.jsonl")

    requests = load_jsonl(req_path)
    nuggets = load_jsonl(nug_path)
    topics = load_jsonl(top_path)
    req_ids = [r.get("request_id") for r in requests]

    errors = []
    terms_of = {}
    for i, t in enumerate(topics, 1):
        where = f"topics line {i}"
        if set(t) != {"request_id", "terms"}:
            errors.append(f"{where}: fields must be exactly request_id and terms")
            continue
        rid, terms = t["request_id"], t["terms"]
        if rid not in req_ids:
            errors.append(f"{where}: unknown request_id {rid!r}")
        if rid in terms_of:
            errors.append(f"{where}: duplicate request_id {rid!r}")
        if not isinstance(terms, list) or not all(isinstance(x, str) and x.strip() for x in terms):
            errors.append(f"{where}: terms must be a list of non-empty strings")
            continue
        if any(x != x.strip() for x in terms):
            errors.append(f"{where}: terms must not have leading or trailing spaces")
        if len({x.lower() for x in terms}) != len(terms):
            errors.append(f"{where}: duplicate terms")
        if not TERMS_PER_REQUEST[0] <= len(terms) <= TERMS_PER_REQUEST[1]:
            errors.append(f"{where}: {rid} has {len(terms)} terms, expected {TERMS_PER_REQUEST[0]}-{TERMS_PER_REQUEST[1]}")
        for x in terms:
            if "*" in x[:-1] or x == "*":
                errors.append(f"{where}: {x!r}: '*' may only end a term")
        terms_of[rid] = terms
    for rid in req_ids:
        if rid not in terms_of:
            errors.append(f"request {rid!r} has no topics line")
    if errors:
        for e in errors:
            print("ERROR:", e)
        print(f"\n{len(errors)} structural error(s)")
        return 1

    docs = {}
    with gzip.open(args.corpus, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                docs[d["id"]] = d["text"]

    pats = {rid: [(x, term_pattern(x)) for x in terms] for rid, terms in terms_of.items()}
    total_cov = total = 0
    misses = []
    for rid in req_ids:
        cov = n = 0
        for nug in (x for x in nuggets if x.get("request_id") == rid):
            for did in nug.get("docids", []):
                text = docs.get(did, "")
                n += 1
                hit, first = None, None
                for a in nug.get("answers", []):
                    for m in answer_pattern(a).finditer(text):
                        passage = text[max(0, m.start() - WINDOW):m.end() + WINDOW]
                        first = first or passage
                        hit = next((x for x, p in pats[rid] if p.search(passage)), None)
                        if hit:
                            break
                    if hit:
                        break
                if hit:
                    cov += 1
                else:
                    misses.append((nug.get("nugget_id"), did, first))
        total_cov += cov
        total += n
        print(f"{rid}: {len(terms_of[rid])} terms; {cov}/{n} gold passages contain a term")
    for nid, did, passage in misses:
        print(f"UNCOVERED: {nid} in {did}")
        if args.show and passage:
            print("    ..." + " ".join(passage.split()) + "...")
    print(f"\n{len(req_ids)} requests, {total_cov}/{total} gold passages contain a topic term")
    return 1 if (args.strict and misses) else 0


if __name__ == "__main__":
    sys.exit(main())
