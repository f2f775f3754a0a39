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
testdata/eval/sotuN-topics.jsonl), it also fits the topic estimate's
inputs (TOPIC_INPUTS) to the topic lists, as the estimate was fitted
until crucible-pipeline-v36 (over other features): a logistic model of
whether a candidate holds one of its request's topic terms (the rule of
`crucible eval reports --topics`: lower case, on word boundaries, a
trailing * matching any ending). Left one set out in turn, it replays the
choice by the model's score with and without the estimate as a factor
and prints the gold facts and the share of on-topic sentences of each;
then the weights fitted on every set. Since v37 the engine's weights come
from --judged instead; this mode compares the two labels.

With --judged FILE (testdata/eval/judged/candidates.jsonl: request_id,
text and on_topic_judge, a reader's judgement of a candidate by meaning)
it fits the topic estimate the engine uses since crucible-pipeline-v37
instead: a logistic model of the reader's judgement over TOPIC_INPUTS
(crucible's topicInputs), on the candidates of the sets given whose
requests the file judges in full. Left one set out in turn, it prints
the estimate's area under the ROC curve against the reader and replays
the choice without the estimate and with it to each power of --powers
(the engine multiplies by the estimate itself, power 1), printing the
gold facts and the reader's on-topic share of the chosen sentences;
then the weights fitted on every set.
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
# The features of the topic estimate fitted on a reader's judgements
# (crucible's topicInputs), of crucible.ChoiceFeatures and TopicFeatures.
TOPIC_INPUTS = ["passage_rank", "anchors", "facet_words", "title_share", "title_lift", "document_nugget"]


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
    ap.add_argument("--judged", metavar="FILE",
                    help="candidates a reader judged on topic or not: fit the topic estimate on them (crucible-pipeline-v37 on)")
    ap.add_argument("--powers", default="1,2,3,4",
                    help="with --judged, the powers of the estimate to replay the choice with (default 1,2,3,4)")
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
    if args.judged:
        try:
            powers = [float(p) for p in args.powers.split(",")]
        except ValueError:
            sys.exit(f"--powers: {args.powers!r} is not a list of numbers such as 1,2,3")
        fit_judged(sets, read_jsonl(args.judged), score, names, powers)


def fit_topics(sets, topics, score, names):
    """Fit the topic estimate; replay the choice with and without it."""
    missing = [name for name, _, _ in sets if name not in topics]
    if missing:
        sys.exit(f"--topics: no topic terms for {', '.join(missing)}")
    for name, reqs, _ in sets:
        on = topic_matcher(topics[name])
        for rid, cs in reqs.items():
            for c in cs:
                if not set(TOPIC_INPUTS) <= set(c["features"]):
                    sys.exit(f"request {rid}: no {TOPIC_INPUTS} features (a --choices file of an engine before crucible-pipeline-v37?)")
                c["on"] = on(rid, c["sentence"])
    on_rows = lambda rows: [dict(c, gold={"on"} if c["on"] else set()) for c in rows]
    totals = collections.Counter()
    for name, reqs, _ in sets:
        train = [c for other, rs, _ in sets if other != name for cs in rs.values() for c in cs]
        b, w = fit(train, names)
        tb, tw = fit(on_rows(train), TOPIC_INPUTS)
        fact = score(b, w)
        est = lambda c: sigmoid(tb + sum(wi * c["features"][k] for wi, k in zip(tw, TOPIC_INPUTS)))
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
    tb, tw = fit(on_rows([c for _, rs, _ in sets for cs in rs.values() for c in cs]), TOPIC_INPUTS)
    print(f"fitted on every set: topicBias = {tb:.4f}")
    print("topicWeights = []float64{" + ", ".join(f"{x:.4f}" for x in tw) + "}  // " + ", ".join(TOPIC_INPUTS))


def auc(rows, key):
    """Area under the ROC curve of key against the rows' "on" labels
    (ties counted half)."""
    ranked = sorted(rows, key=key)
    pos = sum(1 for c in ranked if c["on"])
    neg = len(ranked) - pos
    if not pos or not neg:
        return float("nan")
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and key(ranked[j]) == key(ranked[i]):
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(1 for c in ranked[i:j] if c["on"])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def fit_judged(sets, judged, score, names, powers):
    """Fit the topic estimate on a reader's judgements; replay the choice
    with it to each power."""
    label = {(j["request_id"], j["text"]): bool(j["on_topic_judge"]) for j in judged}
    kept = []
    for name, reqs, _ in sets:
        full = {}
        for rid, cs in reqs.items():
            if not set(TOPIC_INPUTS) <= set(cs[0]["features"]):
                sys.exit(f"request {rid}: no {TOPIC_INPUTS} features (a --choices file of an engine before crucible-pipeline-v37?)")
            if all((rid, c["sentence"]) in label for c in cs):
                for c in cs:
                    c["on"] = label[(rid, c["sentence"])]
                full[rid] = cs
        if full:
            kept.append((name, full))
    if len(kept) < 2:
        sys.exit("--judged: fewer than two of the sets have a request whose candidates are all judged")
    rows = lambda ss: [dict(c, gold={"on"} if c["on"] else set()) for _, rs in ss for cs in rs.values() for c in cs]
    everything = [c for _, rs in kept for cs in rs.values() for c in cs]
    print(f"judged: {len(kept)} sets, {sum(len(rs) for _, rs in kept)} requests, {len(everything)} candidates, "
          f"{sum(c['on'] for c in everything) / len(everything):.3f} on topic by the reader")
    estimate = {}
    for name, reqs in kept:
        b, w = fit(rows([s for s in kept if s[0] != name]), TOPIC_INPUTS)
        for cs in reqs.values():
            for c in cs:
                estimate[id(c)] = sigmoid(b + sum(wi * c["features"][k] for wi, k in zip(w, TOPIC_INPUTS)))
    print(f"left one set out: area under the ROC curve {auc(everything, lambda c: estimate[id(c)]):.3f}")
    fit_b, fit_w = fit([c for s in sets if s[0] in dict(kept) for cs in s[1].values() for c in cs], names)
    fact = score(fit_b, fit_w)
    for p in [None] + powers:
        key = fact if p is None else (lambda c, p=p: fact(c) * estimate[id(c)] ** p)
        facts = sents = ons = 0
        for _, reqs in kept:
            for cs in reqs.values():
                out = chosen(cs, key)
                facts += len(set().union(*[c["gold"] for c in out])) if out else 0
                sents += len(out)
                ons += sum(c["on"] for c in out)
        label_p = "without the estimate" if p is None else f"estimate to the power {p:g}"
        print(f"{label_p}: {facts} gold facts, {sents} sentences, {ons / sents:.3f} on topic by the reader")
    b, w = fit(rows(kept), TOPIC_INPUTS, iters=2000)
    print(f"fitted on every judged set: topicBias = {b:.4f}")
    print("topicWeights = []float64{" + ", ".join(f"{x:.4f}" for x in w) + "}  // " + ", ".join(TOPIC_INPUTS))


if __name__ == "__main__":
    main()
