// Package rerank holds the model-free algorithms of Crucible's coverage
// rerankers (DESIGN §6): the pieces that turn model judgements into a
// ranking or a selected set, kept apart from the prompts that obtain the
// judgements so they can be tested exactly.
//
//   - LANCER aggregation (Aggregate): sum, sum-τ, reciprocal rank fusion,
//     greedy-sum, greedy-α and greedy-coverage over a candidates ×
//     sub-questions matrix of 0–5 answerability ratings. It reproduces the
//     authors' released test vectors (../shared/testvectors/lancer) exactly,
//     under either tie convention (TieBreak).
//   - PureCover (PureCover, SupportFromJudgements, EvaluateCover): greedy
//     selection of at most K documents maximising weighted requirement
//     coverage minus λ times noise. The paper estimates P(d|e) from a
//     model's attention, which an API does not expose; Crucible uses model
//     judgements (for example LANCER's ratings) normalised by a softmax over
//     the candidates instead.
//   - Listwise helpers for the LLM baselines: RankGPT-style sliding windows
//     (SlidingWindows, SlidingRerank, ApplyPermutation), a tolerant parser
//     for "[3] > [1] > [2]" answers (ParseListwise) and one for SetR's
//     "### Final Selection: [i] [j]" line (ParseFinalSelection).
//   - SelectionRun, which turns a selected set into a full ranking so that
//     set-based rerankers can be scored with the same rank metrics.
//
// Candidates are always given in first-stage order, best first: every tie
// rule that falls back to "first-stage order" means the order of the slice.
// Errors for bad input wrap pipeline.ErrInvalid and name what was wrong.
//
// The package imports only the standard library and package pipeline.
package rerank
