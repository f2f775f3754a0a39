#!/usr/bin/env python3
"""Refit the offline engine's choice of report sentences.

Standard library only. The choice (pipeline.Heuristics.ChooseSentences,
pipeline/crucible/choose.go) scores each candidate sentence by a logistic
model of its features, per its length to the power 0.75 (LENGTH_POWER,
crucible's lengthPower), times the topic estimate. This script refits
that model on evaluation sets and checks it by leaving each set out.

For each set, make its candidates with the choice on:

    crucible ingest --data D ../shared/corpora/sotu.jsonl.gz
    crucible report --data D --requests testdata/eval/sotuN-requests.jsonl \\
        --out /tmp/r --choices /tmp/sotuN-choices.jsonl

then:

    python3 testdata/eval/fit_choice.py \\
        --set sotuN /tmp/sotuN-choices.jsonl testdata/eval/sotuN-requests.jsonl testdata/eval/sotuN-nuggets.jsonl \\
        [--set ...]

A candidate counts as a hit when it holds one of a gold nugget's answers
of its request (lower case, punctuation as spaces, digit group separators
dropped, on word boundaries: the offline judge's rule). For each set left
out, the model is fitted on the others and assembly is replayed on the
left-out set's candidates (one sentence per nugget, no repeated text or
overlapping span, within the request's limit), once taking each nugget's
most confident candidate in the nuggets' turn order (the papers'
assembly) and once by the model's score; the script prints the gold facts
each finds. Then it fits on every set and prints the weights in the order
of crucible.ChoiceFeatures, for choiceBias and choiceWeights.

With --topics NAME FILE for every set (its hand-written topic terms,
testdata/eval/sotuN-topics.jsonl), it also fits the topic estimate
(pipeline/crucible/topicality.go): a logistic model of whether a
candidate holds one of its request's topic terms (the rule of `crucible
eval reports --topics`: lower case, on word boundaries, a trailing *
matching any ending), over crucible.TopicFeatures and the passage rank.
Left one set out in turn, it replays the choice by the model's score with
and without the estimate as a factor and prints the
gold facts and the share of on-topic sentences of each; then the weights
fitted on every set, for topicBias and topicWeights.
"""
import argparse
import collections
import json
import math
import re
import sys


# The features in the order of crucible.ChoiceFeatures (the --choices file
# writes them by name).
FEATURES = ["passage_rank", "shared", "problem_words", "turn", "quality",
            "anchors", "title_words", "length", "figures", "facet_words"]
# The power of a candidate's length its score is divided by
# (crucible.lengthPower).
LENGTH_POWER = 0.75
# The topic estimate's features: crucible.TopicFeatures, then the passage
# rank.
TOPIC_FEATURES = ["title_share", "max_lift", "passage_rank"]


def norm(s):
    s = s.lower()
    s = re.sub(r"(?<=\d),(?=\d)", "", s)
    s = re.sub(r"[^\w]+", " ", s)
    return " " + s.strip() + " "


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_set(name, choices, requests, nuggets):
    limit = {r["request_id"]: r.get("limit", 2000) for r in read_jsonl(requests)}
    gold = collections.defaultdict(list)
    for g in read_jsonl(nuggets):
        gold[g["request_id"]].append(g)
    by_request = collections.defaultdict(list)
    for c in read_jsonl(choices):
        rid = c["request_id"]
        if rid not in limit:
            sys.exit(f"{choices}: request {rid} is not in {requests}")
        text = norm(c["sentence"])
        c["gold"] = {g["nugget_id"] for g in gold[rid]
                     if any(norm(a) in text for a in g["answers"])}
        c["limit"] = limit[rid]
        c["chars"] = len(c["sentence"])
        by_request[rid].append(c)
    return name, dict(by_request), sum(len(gold[r]) for r in limit)


def sigmoid(z):
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def fit(rows, names, iters=400, rate=0.5, l2=1e-3):
    """Logistic regression by gradient descent on standardised features;
    returns the bias and weights of the raw features."""
    xs = [[r["features"][k] for k in names] for r in rows]
    ys = [1 if r["gold"] else 0 for r in rows]
    n, d = len(xs), len(names)
    mean = [sum(x[i] for x in xs) / n for i in range(d)]
    sd = [max(1e-9, math.sqrt(sum((x[i] - mean[i]) ** 2 for x in xs) / n)) for i in range(d)]
    zs = [[(x[i] - mean[i]) / sd[i] for i in range(d)] for x in xs]
    b, w = 0.0, [0.0] * d
    for _ in range(iters):
        gb, gw = 0.0, [0.0] * d
        for z, y in zip(zs, ys):
            e = sigmoid(b + sum(wi * zi for wi, zi in zip(w, z))) - y
            gb += e
            for i in range(d):
                gw[i] += e * z[i]
        b -= rate * gb / n
        for i in range(d):
            w[i] -= rate * (gw[i] / n + l2 * w[i])
    raw = [w[i] / sd[i] for i in range(d)]
    return b - sum(raw[i] * mean[i] for i in range(d)), raw


def replay(cands, key):
    """Gold facts of assembly over one request's candidates, taken in
    order of key."""
    out = chosen(cands, key)
    return len(set().union(*[c["gold"] for c in out])) if out else 0


def chosen(cands, key):
    """Assembly over one request's candidates, taken in order of key: the
    candidates it takes."""
    limit, used, out, taken, texts = cands[0]["limit"], 0, [], set(), set()
    for c in sorted(cands, key=key):
        if c["nugget_id"] in taken or c["sentence"] in texts:
            continue
        if any(o["docid"] == c["docid"] and o["start"] < c["end"] and c["start"] < o["end"] for o in out):
            continue
        add = c["chars"] + (1 if out else 0)
        if used + add > limit:
            continue
        used += add
        out.append(c)
        taken.add(c["nugget_id"])
        texts.add(c["sentence"])
    return out


def topic_matcher(path):
    """The on-topic rule of crucible eval reports --topics, per request."""
    fold = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                          "\u2010": "-", "\u2011": "-"})
    terms = {}
    for t in read_jsonl(path):
        res = []
        for term in t["terms"]:
            term = term.lower().translate(fold)
            star = term.endswith("*")
            term = term.rstrip("*")
            res.append(re.compile(r"(?<!\w)" + re.escape(term) + ("" if star else r"(?!\w)")))
        terms[t["request_id"]] = res
    return lambda rid, text: any(r.search(text.lower().translate(fold)) for r in terms.get(rid, []))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", nargs=4, action="append", required=True,
                    metavar=("NAME", "CHOICES", "REQUESTS", "NUGGETS"))
    ap.add_argument("--topics", nargs=2, action="append", default=[], metavar=("NAME", "TOPICS"),
                    help="a set's topic terms: also fit the topic estimate")
    ap.add_argument("--drop", action="append", default=[], metavar="FEATURE",
                    help="leave a feature out of the model (to measure what it adds); the weights printed then lack it")
    args = ap.parse_args()
    sets = [load_set(*s) for s in args.set]
    unknown = set(args.drop) - set(FEATURES)
    if unknown:
        sys.exit(f"--drop: no feature {', '.join(sorted(unknown))}; the features are {', '.join(FEATURES)}")
    names = [k for k in FEATURES if k not in args.drop]
    for _, reqs, _ in sets:
        for cs in reqs.values():
            for c in cs:
                if not set(names) <= set(c["features"]):
                    sys.exit(f"request {c['request_id']}: features {sorted(c['features'])}, want {names}")

    def score(b, w):
        return lambda c: -sigmoid(b + sum(wi * c["features"][k] for wi, k in zip(w, names))) / (c["chars"] + 1) ** LENGTH_POWER

    by_turn = lambda c: (c["features"]["turn"], -c["confidence"])
    total = [0, 0, 0]
    for name, reqs, n_gold in sets:
        train = [c for other, rs, _ in sets if other != name for cs in rs.values() for c in cs]
        b, w = fit(train, names) if train else fit([c for cs in reqs.values() for c in cs], names)
        base = sum(replay(cs, by_turn) for cs in reqs.values())
        chosen = sum(replay(cs, score(b, w)) for cs in reqs.values())
        print(f"{name}: {n_gold} gold nuggets; most confident per nugget {base}, by the model fitted without it {chosen}")
        total = [total[0] + n_gold, total[1] + base, total[2] + chosen]
    print(f"all: {total[0]} gold nuggets; most confident per nugget {total[1]}, left-out model {total[2]}")
    b, w = fit([c for _, rs, _ in sets for cs in rs.values() for c in cs], names)
    print(f"fitted on every set: choiceBias = {b:.4f}")
    print("choiceWeights = []float64{" + ", ".join(f"{x:.4f}" for x in w) + "}  // " + ", ".join(names))
    if args.topics:
        fit_topics(sets, dict(args.topics), score, names)


def fit_topics(sets, topics, score, names):
    """Fit the topic estimate; replay the choice with and without it."""
    missing = [name for name, _, _ in sets if name not in topics]
    if missing:
        sys.exit(f"--topics: no topic terms for {', '.join(missing)}")
    for name, reqs, _ in sets:
        on = topic_matcher(topics[name])
        for rid, cs in reqs.items():
            for c in cs:
                if not set(TOPIC_FEATURES) <= set(c["features"]):
                    sys.exit(f"request {rid}: no {TOPIC_FEATURES} features (a --choices file of an older engine?)")
                c["on"] = on(rid, c["sentence"])
    on_rows = lambda rows: [dict(c, gold={"on"} if c["on"] else set()) for c in rows]
    totals = collections.Counter()
    for name, reqs, _ in sets:
        train = [c for other, rs, _ in sets if other != name for cs in rs.values() for c in cs]
        b, w = fit(train, names)
        tb, tw = fit(on_rows(train), TOPIC_FEATURES)
        fact = score(b, w)
        est = lambda c: sigmoid(tb + sum(wi * c["features"][k] for wi, k in zip(tw, TOPIC_FEATURES)))
        line = [name + ":"]
        for label, key in (("without", fact), ("with", lambda c: fact(c) * est(c))):
            facts = sents = ons = 0
            for cs in reqs.values():
                out = chosen(cs, key)
                facts += len(set().union(*[c["gold"] for c in out])) if out else 0
                sents += len(out)
                ons += sum(c["on"] for c in out)
            share = ons / sents if sents else 0
            totals[label + " facts"] += facts
            totals[label + " share"] += share
            line.append(f"{label} the estimate {facts} facts, {share:.3f} on topic;")
        print(" ".join(line))
    n = len(sets)
    print(f"all: without the estimate {totals['without facts']} facts, mean on-topic share {totals['without share'] / n:.3f}; "
          f"with it {totals['with facts']} facts, {totals['with share'] / n:.3f}")
    tb, tw = fit(on_rows([c for _, rs, _ in sets for cs in rs.values() for c in cs]), TOPIC_FEATURES)
    print(f"fitted on every set: topicBias = {tb:.4f}")
    print("topicWeights = []float64{" + ", ".join(f"{x:.4f}" for x in tw) + "}  // " + ", ".join(TOPIC_FEATURES))


if __name__ == "__main__":
    main()
