#!/usr/bin/python3
"""Build a Xapian database of the passages Crucible exports and time the
benchmark queries against it, for `crucible bench search|index --peers
xapian`. See bench/README.md.

Input: JSON Lines files of {"id": ..., "text": ...} objects (passages,
queries) and a stop-word file (one word a line). Output: one JSON object
with the build and search figures and the top-k passage ids per query.

Analysis follows Crucible's (Bleve's English analyzer) as closely as
Xapian's TermGenerator allows: possessive 's removed first (Bleve's
possessive filter; TermGenerator would keep "nation'"), lower case, the
stop words given (dropped, not indexed: STOP_ALL), the original Porter
stemmer (Xapian's "porter", not "english", which is Porter2), every term
stemmed (STEM_ALL, no Z prefix). No positions are indexed (Crucible keeps
none). Scoring is BM25Weight(k1, k2=0, k3=1, b, min_normlen=0): no
clamping of short passages' lengths, as in Lucene's and Crucible's BM25.

Run it with Debian's /usr/bin/python3, which has the xapian bindings
(python3-xapian).
"""

import argparse
import json
import re
import resource
import sys
import time

import xapian

POSSESSIVE = re.compile(r"(?<=\w)['\u2019\uff07][sS]\b")


def strip_possessives(text):
    return POSSESSIVE.sub("", text)


def peak_rss_bytes():
    """The process's peak resident set (VmHWM), as the other peers report it."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def percentile(sorted_values, p):
    """Nearest-rank percentile, the rule the Go side uses."""
    if not sorted_values:
        return 0.0
    i = int(p * len(sorted_values) + 0.5) - 1
    return sorted_values[max(0, min(i, len(sorted_values) - 1))]


def records(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                yield rec["id"], rec["text"]


def term_generator(stopwords):
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("porter"))
    stopper = xapian.SimpleStopper()
    for w in stopwords:
        stopper.add(w)
    tg.set_stopper(stopper)
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
    tg.set_stopper_strategy(xapian.TermGenerator.STOP_ALL)
    # The stopper must outlive the generator's use of it.
    tg._crucible_stopper = stopper
    return tg


def build(path, passages, tg):
    db = xapian.WritableDatabase(path, xapian.DB_CREATE_OR_OVERWRITE)
    n = 0
    for pid, text in records(passages):
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text_without_positions(strip_possessives(text))
        doc.set_data(pid)
        db.add_document(doc)
        n += 1
    db.commit()
    db.close()
    return n


def make_query(tg, text):
    """ORs the query's terms, a repeated term once per occurrence (as in
    Crucible, whose weights multiply by the query term count)."""
    qdoc = xapian.Document()
    tg.set_document(qdoc)
    tg.index_text_without_positions(strip_possessives(text))
    parts = []
    for t in qdoc.termlist():
        parts.extend([xapian.Query(t.term)] * t.wdf)
    if not parts:
        return None
    return xapian.Query(xapian.Query.OP_OR, parts)


def search(enquire, tg, text, k):
    q = make_query(tg, text)
    if q is None:
        return []
    enquire.set_query(q)
    return [m.document.get_data().decode("utf-8") for m in enquire.get_mset(0, k)]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passages", required=True)
    ap.add_argument("--index", required=True, help="database folder (replaced)")
    ap.add_argument("--out", required=True, help="JSON result file")
    ap.add_argument("--queries")
    ap.add_argument("--stopwords")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--k1", type=float, default=0.9)
    ap.add_argument("--b", type=float, default=0.4)
    args = ap.parse_args(argv)

    stopwords = []
    if args.stopwords:
        with open(args.stopwords, encoding="utf-8") as f:
            stopwords = [w.strip() for w in f if w.strip()]
    tg = term_generator(stopwords)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    count = build(args.index, args.passages, tg)
    res = {
        "engine": "xapian",
        "version": xapian.version_string(),
        "passages": count,
        "build_seconds": time.perf_counter() - wall0,
        "build_cpu_seconds": time.process_time() - cpu0,
        "build_peak_rss_bytes": peak_rss_bytes(),
    }

    queries = list(records(args.queries)) if args.queries and args.passes > 0 else []
    if queries:
        db = xapian.Database(args.index)
        enquire = xapian.Enquire(db)
        enquire.set_weighting_scheme(xapian.BM25Weight(args.k1, 0, 1, args.b, 0))
        # Warm-up: every query --warmup times; the first pass's hits are
        # the ones reported.
        top = [search(enquire, tg, text, args.k) for _, text in queries]
        for _ in range(args.warmup - 1):
            for _, text in queries:
                search(enquire, tg, text, args.k)
        times = []
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(args.passes):
            for _, text in queries:
                t0 = time.perf_counter()
                search(enquire, tg, text, args.k)
                times.append((time.perf_counter() - t0) * 1000)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        times.sort()
        res.update({
            "queries": len(queries),
            "passes": args.passes,
            "warmup": max(1, args.warmup),
            "k": args.k,
            "p50_ms": percentile(times, 0.50),
            "p99_ms": percentile(times, 0.99),
            "cpu_ms_per_query": cpu * 1000 / len(times),
            "qps": len(times) / wall,
            "results": [{"id": qid, "hits": hits} for (qid, _), hits in zip(queries, top)],
        })
        db.close()
    res["peak_rss_bytes"] = peak_rss_bytes()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(res, f)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
