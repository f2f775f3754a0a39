// Package eval scores rankings against TREC relevance judgements exactly as
// trec_eval 9.x does, so that figures computed here can be set beside
// published ones (SciFact nDCG@10 from `trec_eval -c -m ndcg_cut.10`, CACM
// and NPL MAP from `trec_eval -m map`).
//
// It reads and writes the TREC formats: qrels ("qid iter docid grade") and
// runs ("qid Q0 docid rank score tag"), and nugget judgements in ndeval's
// column order ("qid nugget_id docid grade", see NuggetQrels). Measures
// carry trec_eval's names: map, recip_rank, P_k, recall_k and ndcg_cut_k;
// the nugget measures are alpha_ndcg_cut_k and coverage_k.
//
// trec_eval conventions followed:
//
//   - Order. The rank column of a run is ignored. A query's documents are
//     ordered by score, highest first, and equal scores by document id in
//     descending byte order (C strcmp), as trec_eval's form_res_rels.c does.
//     So with equal scores "d9" ranks above "d10".
//   - Relevance. A document is relevant when its grade is at least 1
//     (trec_eval's default relevance level). Retrieved documents that are
//     not in the qrels are non-relevant; so are grades of 0 and below.
//   - map: the precision at each relevant retrieved document, summed and
//     divided by the number of relevant documents in the qrels, retrieved
//     or not (m_map.c).
//   - P_k: relevant documents in the top k divided by k, even when fewer than
//     k were retrieved (m_P.c). recall_k: relevant documents in the top k
//     divided by all relevant documents, 0 when there are none (m_recall.c).
//     recip_rank: 1/rank of the first relevant document, 0 when none is
//     retrieved (m_recip_rank.c).
//   - ndcg_cut_k: linear gain (the grade itself, not 2^grade-1), discount
//     log2(rank+1), so rank 1 is undiscounted; grades of 0 and below gain
//     nothing. The ideal ranking is every positive grade in the qrels,
//     highest first, cut at k. A query whose ideal gain is 0 scores 0
//     (m_ndcg_cut.c as NIST maintains it; the first 9.0 releases left rank
//     2 undiscounted too).
//   - Averaging. By default the mean is over the queries that have both
//     judgements and results; queries present only in the run are ignored.
//     A judged query with no relevant document is still averaged (it scores
//     0 on every measure here), as in trec_eval. With
//     Options.Complete (trec_eval -c) every judged query is averaged, and a
//     query missing from the run scores 0 on every measure.
//   - Duplicates. trec_eval refuses a query whose run or qrels name a
//     document twice. ReadRun and ReadQrels reject such lines with the file
//     and line. Evaluate, handed a Run built in memory, keeps each
//     document's first occurrence in trec_eval order (its highest score), so
//     nothing is counted twice.
//
// Nugget measures. Given nugget-level judgements (NuggetQrels, lines "qid
// nugget_id docid grade"), Evaluate also reports alpha_ndcg_cut_k
// (α-nDCG@k, Clarke et al. 2008, α = 0.5 unless set) and coverage_k (the
// share of the query's nuggets covered by the top k). They follow ndeval,
// the TREC Web track's diversity evaluator, except where noted:
//
//   - Coverage is binary: a grade above 0 covers the nugget, whatever its
//     size (ndeval reads only grades 0 and up and caps them at 1; here 0
//     and below cover nothing). Only nugget-judged documents count; a retrieved document
//     missing from the nugget judgements covers nothing and gains 0.
//   - A query's nuggets are those some judged document covers; a nugget
//     with no covering document is ignored (ndeval's actual subtopics).
//   - alpha_ndcg_cut_k: the document at rank i gains Σ (1-α)^c over the
//     nuggets it covers, c being the number of documents above it
//     covering the same nugget, discounted by log2(i+1). The ideal ranking
//     is greedy over every document covering a nugget, retrieved or not:
//     at each rank the largest gain given the documents already placed,
//     equal gains to the largest document id (ndeval's strcmp rule).
//     Greedy is an approximation, so a ranking may score above 1.
//   - Order. Runs are ordered as for the other measures (score, then
//     document id descending), which is ndeval -traditional; ndeval by
//     default orders by the rank column, which Options.ByRank selects.
//   - Averaging. A query without nuggets has no value for the nugget
//     measures: it is left out of their means and listed in
//     Results.Undefined, as trec_eval leaves out queries without
//     judgements. ndeval instead averages a topic whose subtopics have no
//     positive judgement as 0. Otherwise the queries averaged are those
//     of the other measures, with or without Complete.
//
// Where the readers are stricter than trec_eval, they report the line
// instead of guessing: a grade or rank must be a whole number (trec_eval's
// atol would read "1.5" as 1 and "x" as 0), a score must be a number other
// than NaN (atof reads "x" as 0), and a run line must have exactly six
// fields (trec_eval ignores fields after the tag). Blank lines and lines
// whose first field starts with '#' are skipped, and a CR before the line
// feed is tolerated. Fields are separated by ASCII whitespace, like C's
// isspace.
//
// Measures are values of type Measure (a name and a function of a Ranking),
// so measures that need other judgements, such as nugget-level ones, can be
// added beside the standard ones and averaged by the same Evaluate.
package eval
