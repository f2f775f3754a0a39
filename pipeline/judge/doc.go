// Package judge evaluates finished reports against gold nuggets: the
// report metrics of DESIGN §7, computed by an offline lexical judge or by a
// language model.
//
// Inputs are gold nuggets (ReadNuggets: JSON Lines of question-and-answers
// or claim nuggets, per request) and reports in any of the formats
// pipeline/export writes: NeuCLIR 2024, RAGTIME 2025, TREC RAG 2024 and
// 2025 (ReadReports, ReadReportsPath), read into the NeuCLIR form.
// Citations are judged against the collection through a Source, which
// every pipeline.DocumentStore satisfies.
//
// # Metrics
//
// Per report, with the judge deciding for every gold nugget and every
// sentence whether the sentence covers the nugget, and for every citation
// whether the cited text supports its sentence:
//
//   - nugget recall: covered gold nuggets / gold nuggets;
//   - vital nugget recall: the same over the vital nuggets;
//   - nugget density: covered gold nuggets / sentences;
//   - sentence novelty: sentences that cover a nugget no earlier sentence
//     covers / sentences (a sentence covering two new nuggets counts once);
//   - relevant sentences: sentences covering any nugget / sentences;
//   - citation support: supported citations / citations (a sentence's
//     citations of the same document count once; a sentence without
//     citations adds nothing to either side).
//
// A ratio whose denominator is 0 is 0: a report with no sentences scores 0
// everywhere and does not fail. Over a set of reports each metric is the
// mean over the requests scored — those that have gold nuggets, restricted
// to the requests asked for when Evaluate is given request ids — a request
// without a report scoring 0 (and listed in Results.Missing); vital recall
// is averaged over the requests that have a vital nugget. Reports of
// requests without gold nuggets are listed in Results.Unjudged and not
// scored; requests with gold nuggets that were not asked for are listed in
// Results.NotRequested.
//
// With Evaluator.Topics (ReadTopics: hand-written topic terms per
// request) one more measure, independent of the judge: on-topic sentences
// = sentences containing one of the request's topic terms / sentences,
// averaged over the requests that have terms (see TopicTerm for the
// matching rule).
//
// Every verdict is kept: ReportResult.Coverage is the nugget × sentence
// matrix, each CitationResult the evidence judged and the verdict, so a
// page can show which sentence covered which nugget and why a citation
// failed. Results marshal to JSON; WriteTable and WriteReport write plain
// text.
//
// # Judges
//
// Offline matches answers as normalised strings on token boundaries and
// claims by content-word overlap (threshold DefaultClaimThreshold, chosen
// on the hand-labelled pairs in testdata/claim_pairs.jsonl), and counts a
// citation supported when the cited passage holds DefaultSupportThreshold
// of the sentence's content words and all its numbers (threshold chosen
// on the SummHay news collection; see DefaultSupportThreshold).
//
// ModelJudge asks yes/no questions with the judge_covers and
// judge_support prompts of pipeline/prompts.
package judge
