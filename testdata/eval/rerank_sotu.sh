#!/bin/bash
# Reranking on the SOTU gold sets with the offline engine: BM25's top 100
# documents per request reranked by every method, scored at 10 by the
# documents each gold nugget names (docs/benchmarks.md §7).
#
#   testdata/eval/rerank_sotu.sh DATA_DIR [WORK_DIR]
#
# DATA_DIR holds the demo corpus (crucible ingest --data DATA_DIR
# testdata/corpora/sotu.jsonl.gz); CRUCIBLE names the binary (default:
# crucible on the PATH); RERANK_ARGS are added to every crucible rerank
# (e.g. "--best-passage off"). Not part of make test.
set -euo pipefail
D=${1:?usage: rerank_sotu.sh DATA_DIR [WORK_DIR]}
W=${2:-$(mktemp -d)}
B=${CRUCIBLE:-crucible}
E=$(dirname "$0")
mkdir -p "$W"
for S in sotu sotu2 sotu3; do
  python3 - "$E/$S-requests.jsonl" "$E/$S-nuggets.jsonl" "$W/$S" <<'PY'
import json, sys
req, nug, out = sys.argv[1:]
with open(out + '-queries.jsonl', 'w') as q:
    for line in open(req):
        if line.strip():
            r = json.loads(line)
            q.write(json.dumps({"id": r["request_id"], "text": (r["title"] + " " + r["problem_statement"]).strip()}) + "\n")
with open(out + '-nq.txt', 'w') as f:
    for line in open(nug):
        if line.strip():
            n = json.loads(line)
            for d in n.get("docids", []):
                f.write(f'{n["request_id"]} {n["nugget_id"]} {d} 1\n')
PY
  "$B" search --data "$D" --docs --queries "$W/$S-queries.jsonl" --run "$W/$S-bm25.run" --k 100 >/dev/null
  echo "== $S (alpha-nDCG@10, coverage@10)"
  for M in bm25 lancer pointwise listwise setwise setr purecover corank; do
    if [ "$M" != bm25 ]; then
      "$B" rerank --data "$D" --requests "$E/$S-requests.jsonl" --run "$W/$S-bm25.run" --method "$M" --out "$W/$S-$M.run" ${RERANK_ARGS:-} >/dev/null
    fi
    printf '%-10s ' "$M"
    "$B" eval retrieval --nugget-qrels "$W/$S-nq.txt" --run "$W/$S-$M.run" --k 10 | awk '/^(alpha_ndcg_cut_10|coverage_10) / {printf "%s ", $3} END {print ""}'
  done
done
