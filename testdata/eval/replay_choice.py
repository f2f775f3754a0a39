#!/usr/bin/env python3
"""Replay the offline engine's choice of report sentences over --choices files.

Standard library only. Where fit_choice.py refits the choice's model and
replays assembly one sentence per nugget, this script replays the choice
as the pipeline makes it (pipeline.Assemble with a score, the spread over
the addresses: crucible's sameDocumentFactor), so that a change to the
model can be measured on many sets in seconds, and bounds what a better
estimate could give. For each set, make its candidates:

    crucible ingest --data D ../shared/corpora/sotu.jsonl.gz
    crucible report --data D --requests testdata/eval/sotuN-requests.jsonl \\
        --out /tmp/r --choices /tmp/ch/sotuN.choices.jsonl

then, from the repository root:

    python3 testdata/eval/replay_choice.py --choices-dir /tmp/ch sotu sotu2 ...

It prints, over the sets named:

  - the replay with the scores the pipeline gave (it should be within a
    fact or two of `crucible eval reports` on the same reports: the gold
    facts here are found by fit_choice.py's answer rule);
  - two bounds: the choice among the candidates the topic lists call on
    topic only, and the choice that takes candidates holding a gold
    answer first;
  - a two-fold check of the fact model (fitted on every other set,
    replayed on the rest, and the other way round) with the features of
    fit_choice.FEATURES and without the last one, each refitted.

Facts are gold nuggets held by a chosen sentence; the on-topic share is
the mean over sets of the share of chosen sentences holding a topic term
(`crucible eval reports --topics`'s rule).
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_choice as fc  # noqa: E402

# crucible's sameDocumentFactor and lengthPower.
SAME_DOCUMENT = 0.8
LENGTH_POWER = fc.LENGTH_POWER
# crucible's topicBias and topicWeights (over fit_choice.TOPIC_INPUTS).
TOPIC_BIAS, TOPIC_WEIGHTS = -1.8113, [-7.2319, 0.1451, 0.6657, 2.3700, 0.2556, -0.3094]


def load(names, choices_dir, eval_dir):
    sets = []
    for name in names:
        _, reqs, _ = fc.load_set(name, os.path.join(choices_dir, name + ".choices.jsonl"),
                                 os.path.join(eval_dir, name + "-requests.jsonl"),
                                 os.path.join(eval_dir, name + "-nuggets.jsonl"))
        on = fc.topic_matcher(os.path.join(eval_dir, name + "-topics.jsonl"))
        for rid, cs in reqs.items():
            for c in cs:
                c["on"] = on(rid, c["sentence"])
        sets.append((name, reqs))
    return sets


def choose(cands, key):
    """The pipeline's choice over one request's candidates: the best score
    first, each weighed down by SAME_DOCUMENT per sentence already taken
    from its address; one sentence per nugget, no repeated text or
    overlapping span, within the limit."""
    limit, used, out = cands[0]["limit"], 0, []
    taken, texts, per_doc = set(), set(), collections.Counter()
    pool = list(cands)
    while pool:
        best = max(pool, key=lambda c: key(c) * SAME_DOCUMENT ** per_doc[c["docid"]])
        pool.remove(best)
        c = best
        if key(c) <= 0 or c["nugget_id"] in taken or c["sentence"] in texts:
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
        per_doc[c["docid"]] += 1
    return out


def evaluate(sets, key):
    facts, shares = 0, []
    for _, reqs in sets:
        on = n = 0
        for cs in reqs.values():
            out = choose(cs, key)
            facts += len(set().union(*[c["gold"] for c in out])) if out else 0
            on += sum(c["on"] for c in out)
            n += len(out)
        shares.append(on / n if n else 0)
    return facts, sum(shares) / len(shares)


def topic(c):
    f = c["features"]
    z = TOPIC_BIAS + sum(w * f[k] for w, k in zip(TOPIC_WEIGHTS, fc.TOPIC_INPUTS))
    return 1 / (1 + math.exp(-z))


def model_key(b, w, names):
    return lambda c: fc.sigmoid(b + sum(wi * c["features"][k] for wi, k in zip(w, names))) * topic(c) / (c["chars"] + 1) ** LENGTH_POWER


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--choices-dir", required=True, help="folder holding NAME.choices.jsonl for each set")
    ap.add_argument("--eval-dir", default="testdata/eval", help="folder holding the sets' requests, nuggets and topics")
    ap.add_argument("--no-fit", action="store_true", help="skip the two-fold refit (the slow part)")
    ap.add_argument("sets", nargs="+", metavar="NAME")
    args = ap.parse_args()
    sets = load(args.sets, args.choices_dir, args.eval_dir)
    cands = sum(len(cs) for _, r in sets for cs in r.values())
    print(f"{len(sets)} sets, {cands} candidates")
    show = lambda label, r: print(f"{label}: {r[0]} gold facts, on-topic {r[1]:.4f}")
    show("the pipeline's scores", evaluate(sets, lambda c: c["score"]))
    show("bound: on-topic candidates only", evaluate(sets, lambda c: c["score"] if c["on"] else 0))
    show("bound: gold-bearing candidates first", evaluate(sets, lambda c: (10 if c["gold"] else 1) * c["score"]))
    if args.no_fit or len(sets) < 2:
        return
    folds = [sets[0::2], sets[1::2]]
    for names in (fc.FEATURES[:-1], fc.FEATURES):
        facts, share = 0, 0.0
        for train, test in ((folds[0], folds[1]), (folds[1], folds[0])):
            b, w = fc.fit([c for _, r in train for cs in r.values() for c in cs], names)
            f, s = evaluate(test, model_key(b, w, names))
            facts += f
            share += s * len(test)
        show(f"two-fold refit, {len(names)} features (… {names[-1]})", (facts, share / len(sets)))


if __name__ == "__main__":
    main()
