#!/usr/bin/env python3
"""Check the SOTU gold evaluation set against the corpus text.

Standard library only. Usage (from anywhere):

    python3 testdata/eval/check_gold.py [--show] [--window N] [--min-terms K]

For every nugget in sotu-nuggets.jsonl it prints, for each listed docid and
each answer string, whether the answer occurs in that address's text, and how
many of the question's content words occur near the best occurrence. It exits
with status 1 if any check fails (see README.md for the rules), 0 otherwise.
"""
import argparse
import gzip
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = os.path.join(HERE, "..", "corpora", "sotu.jsonl.gz")
DEFAULT_REQUESTS = os.path.join(HERE, "sotu-requests.jsonl")
DEFAULT_NUGGETS = os.path.join(HERE, "sotu-nuggets.jsonl")

REQUEST_FIELDS = {"request_id": str, "title": str, "background": str,
                  "problem_statement": str, "limit": int}
NUGGET_FIELDS = {"request_id": str, "nugget_id": str, "question": str,
                 "answers": list, "importance": str, "docids": list}
IMPORTANCE = {"vital", "okay"}
NUGGETS_PER_REQUEST = (6, 10)
VITAL_PER_REQUEST = (2, 4)
MAX_DOCIDS = 5

# Words that carry no topical signal when looking for question words near an
# answer occurrence.
STOPWORDS = set("""
a about after against all along also among an and any are as at be been before
being besides between both but by can could did do does during each for from
had has have he her his how in into is it its last later main many more most
much name named new not of on one or other our out over per said say says set
she so some than that the their them then there these they this those through
to under up upon us was we were what when where which while who whom whose why
will with within would year years according first two three ten
""".split())

TOKEN = re.compile(r"[a-z0-9]+")


def stem(tok):
    """Crude stemming: compare words by their first five characters."""
    return tok[:5]


def question_terms(question, answers):
    answer_toks = set()
    for a in answers:
        answer_toks.update(stem(t) for t in TOKEN.findall(a.lower()))
    terms = []
    for t in TOKEN.findall(question.lower()):
        if len(t) < 3 or t in STOPWORDS:
            continue
        s = stem(t)
        if s in answer_toks or s in terms:
            continue
        terms.append(s)
    return terms


def answer_pattern(answer):
    """Case-insensitive literal match; whitespace runs match any whitespace;
    an answer that starts/ends with a letter or digit must not be glued to a
    neighbouring letter or digit (so "seven" does not match "seventy")."""
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
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{i}: invalid JSON: {e}")
    return rows


def load_corpus(path):
    docs = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                docs[d["id"]] = d["text"]
    return docs


def check_fields(row, spec, where, errors):
    for k, typ in spec.items():
        if k not in row:
            errors.append(f"{where}: missing field {k!r}")
        elif not isinstance(row[k], typ) or (typ is int and isinstance(row[k], bool)):
            errors.append(f"{where}: field {k!r} should be {typ.__name__}")
        elif typ is str and not row[k].strip():
            errors.append(f"{where}: field {k!r} is empty")
    for k in row:
        if k not in spec:
            errors.append(f"{where}: unexpected field {k!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--requests", default=DEFAULT_REQUESTS)
    ap.add_argument("--nuggets", default=DEFAULT_NUGGETS)
    ap.add_argument("--window", type=int, default=400,
                    help="characters either side of an answer occurrence searched for question words (default 400)")
    ap.add_argument("--min-terms", type=int, default=2,
                    help="question words that must appear in that window (default 2)")
    ap.add_argument("--show", action="store_true",
                    help="print the text around the best-supported occurrence")
    args = ap.parse_args()

    docs = load_corpus(args.corpus)
    requests = load_jsonl(args.requests)
    nuggets = load_jsonl(args.nuggets)
    errors = []  # structural problems
    failures = []  # nugget-level evidence problems

    # ---- requests
    req_ids = []
    for i, r in enumerate(requests, 1):
        where = f"request line {i}"
        check_fields(r, REQUEST_FIELDS, where, errors)
        rid = r.get("request_id")
        if rid in req_ids:
            errors.append(f"{where}: duplicate request_id {rid!r}")
        req_ids.append(rid)
        if isinstance(r.get("limit"), int) and r["limit"] <= 0:
            errors.append(f"{where}: limit must be positive")

    # ---- nuggets: structure
    seen = set()
    per_req = defaultdict(list)
    for i, n in enumerate(nuggets, 1):
        where = f"nugget line {i} ({n.get('nugget_id', '?')})"
        check_fields(n, NUGGET_FIELDS, where, errors)
        rid, nid = n.get("request_id"), n.get("nugget_id")
        if rid not in req_ids:
            errors.append(f"{where}: unknown request_id {rid!r}")
        if nid in seen:
            errors.append(f"{where}: duplicate nugget_id")
        seen.add(nid)
        if isinstance(nid, str) and isinstance(rid, str) and not re.fullmatch(re.escape(rid) + r"-n\d+", nid):
            errors.append(f"{where}: nugget_id should look like {rid}-n<k>")
        if n.get("importance") not in IMPORTANCE:
            errors.append(f"{where}: importance must be one of {sorted(IMPORTANCE)}")
        ans = n.get("answers") if isinstance(n.get("answers"), list) else []
        if not ans or not all(isinstance(a, str) and a.strip() for a in ans):
            errors.append(f"{where}: answers must be a non-empty list of non-empty strings")
        elif len({a.lower() for a in ans}) != len(ans):
            errors.append(f"{where}: duplicate answers")
        dids = n.get("docids") if isinstance(n.get("docids"), list) else []
        if not 1 <= len(dids) <= MAX_DOCIDS:
            errors.append(f"{where}: docids must list 1 to {MAX_DOCIDS} addresses")
        if len(set(dids)) != len(dids):
            errors.append(f"{where}: duplicate docids")
        for d in dids:
            if d not in docs:
                errors.append(f"{where}: docid {d!r} not in corpus")
        per_req[rid].append(n)

    for rid in req_ids:
        ns = per_req.get(rid, [])
        vital = sum(1 for n in ns if n.get("importance") == "vital")
        if not NUGGETS_PER_REQUEST[0] <= len(ns) <= NUGGETS_PER_REQUEST[1]:
            errors.append(f"{rid}: has {len(ns)} nuggets, expected {NUGGETS_PER_REQUEST[0]}-{NUGGETS_PER_REQUEST[1]}")
        if not VITAL_PER_REQUEST[0] <= vital <= VITAL_PER_REQUEST[1]:
            errors.append(f"{rid}: has {vital} vital nuggets, expected {VITAL_PER_REQUEST[0]}-{VITAL_PER_REQUEST[1]}")

    # ---- nuggets: evidence in the corpus text
    for n in nuggets:
        nid = n.get("nugget_id", "?")
        answers = [a for a in n.get("answers", []) if isinstance(a, str) and a.strip()]
        dids = [d for d in n.get("docids", []) if d in docs]
        terms = question_terms(n.get("question", ""), answers)
        answer_found_somewhere = Counter()
        lines = []
        nugget_ok = True
        for d in dids:
            text = docs[d]
            doc_hits = 0
            doc_best = -1
            for a in answers:
                occ = list(answer_pattern(a).finditer(text))
                best, best_terms, best_span = -1, [], None
                for m in occ:
                    lo, hi = max(0, m.start() - args.window), min(len(text), m.end() + args.window)
                    near = {stem(t) for t in TOKEN.findall(text[lo:hi].lower())}
                    got = [t for t in terms if t in near]
                    if len(got) > best:
                        best, best_terms, best_span = len(got), got, (lo, hi)
                if occ:
                    doc_hits += 1
                    answer_found_somewhere[a] += 1
                    doc_best = max(doc_best, best)
                    lines.append(f"    {d}: {a!r} FOUND x{len(occ)}; {best} question word(s) nearby {best_terms}")
                    if args.show and best_span:
                        snippet = " ".join(text[best_span[0]:best_span[1]].split())
                        lines.append(f"        ...{snippet}...")
                else:
                    lines.append(f"    {d}: {a!r} not found")
            if doc_hits == 0:
                nugget_ok = False
                failures.append(f"{nid}: no answer occurs in listed doc {d}")
            elif doc_best < args.min_terms:
                nugget_ok = False
                failures.append(f"{nid}: in {d} no answer occurrence has {args.min_terms}+ question words within {args.window} chars")
        for a in answers:
            if answer_found_somewhere[a] == 0:
                nugget_ok = False
                failures.append(f"{nid}: answer {a!r} occurs in none of the listed docs")
        status = "OK" if nugget_ok else "FAIL"
        print(f"{nid} [{n.get('importance')}] {status}: {n.get('question')}")
        print(f"    question words: {terms}")
        for line in lines:
            print(line)

    # ---- summary
    vital = sum(1 for n in nuggets if n.get("importance") == "vital")
    print()
    print(f"requests: {len(requests)}  nuggets: {len(nuggets)}  vital: {vital}  okay: {len(nuggets) - vital}")
    for rid in req_ids:
        ns = per_req.get(rid, [])
        ds = sorted({d for n in ns for d in n.get("docids", [])})
        print(f"  {rid}: {len(ns)} nuggets, {sum(1 for n in ns if n.get('importance') == 'vital')} vital, {len(ds)} distinct addresses")
    for e in errors:
        print("ERROR:", e)
    for f in failures:
        print("FAIL:", f)
    if errors or failures:
        print(f"\n{len(errors)} structural error(s), {len(failures)} evidence failure(s)")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
