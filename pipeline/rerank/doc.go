// Package rerank holds Crucible's coverage rerankers (DESIGN §6). Their
// model-free algorithms, the pieces that turn model judgements into a
// ranking or a selected set, are kept apart from the prompts that obtain
// the judgements so they can be tested exactly:
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
// On top of these sit the model-driven rerankers behind one interface,
// Reranker (New, Methods): LANCER, pointwise, listwise, setwise, SetR and
// PureCover. Each takes an Input (the request, the first-stage candidates
// and a document source) and returns a Result: the ranking, for set
// methods the size of the selected set, and a trace (LANCERTrace, ...) that
// a retrieval view shows and DecodeTrace reads back from JSON. Their
// prompts live beside them (prompts*.go), task by task as in package
// prompts: a task constant, a typed input, BuildX, a tolerant ParseX and
// FormatX, so the offline engine (pipeline/llm/offline) answers through
// FormatX and the same parser reads a model's and the engine's answers.
//
// Candidates are always given in first-stage order, best first: every tie
// rule that falls back to "first-stage order" means the order of the slice.
// Errors for bad input wrap pipeline.ErrInvalid and name what was wrong.
//
// The package imports only the standard library, package pipeline and
// package pipeline/prompts (the request form, the yes/no rules and
// YesProbability). It must not import pipeline/llm: the offline engine
// imports this package to answer its tasks.
package rerank
