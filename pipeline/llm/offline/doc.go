// Package offline is Crucible's offline engine: a pipeline.Model that
// answers every task of the report pipeline without a language model, by
// transparent lexical methods over the request's structured inputs.
//
// Every stage builds its request with pipeline/prompts, which puts the
// task's typed input (prompts.SummarizeInput, ...) beside the chat
// messages. The engine reads the input, works out its answer, and writes it
// with the task's prompts.FormatX, so the stage's prompts.ParseX reads it
// exactly as it reads a model's answer. Nothing is random and nothing
// depends on map order: the same request always gives the same bytes, so
// cached re-runs are identical. The engine answers in English only as far
// as its Analyzer does (the index's English analyzer in the binary).
//
// The methods, each documented on its function:
//
//   - summarize: query-focused extractive summary of the whole document:
//     BM25 over its sentences against the request's weighted terms, with a
//     bonus for sentences that use several of them and state concrete
//     facts, greedy selection that favours request terms not yet covered
//     and skips near-duplicates, sentences kept verbatim in document order.
//   - nuggets: fact spans of the summary (dates, sums of money,
//     percentages, quantities, names; failing those, definitions and the
//     objects clauses end on) as short answers, each with a question that
//     restates its clause around a wh-phrase ("Congress passed the McKinley
//     Tariff in what year?") or, when the clause will not do, a template
//     question naming the fact's kind and the sentence's best noun phrase.
//   - paraphrase: a logistic model over the two questions' term overlap
//     (weighted Jaccard and SimHash), normalised answer agreement, the
//     answers' kinds and what the questions ask for.
//   - nugget_quality: request-term overlap for task, background, role and
//     scope; style from question and answer length; vital and researchy
//     from the answer's kind and the question's wording.
//   - extract: the passage sentence that states the answer (normalised)
//     and shares the question's terms, concise ones preferred, cited
//     verbatim as SUPPORT and lightly cleaned to stand alone as SENTENCE.
//   - verify_support and verify_coverage: term, number and answer overlap.
//   - facets: the things the problem statement asks for, read from its
//     own sentences (the list after a colon, "Cover" or "Include", the
//     noun phrases of comma-and lists; a first sentence that only frames
//     the request and asks for kinds of detail are left out), each headed
//     in its own words, at most 8 words cut where the phrase reads whole;
//     the title when nothing is asked (facets.go).
//
// The request's terms are weighted throughout by a profile: title terms
// 1.5, problem statement terms 1, background terms 0.5, with words that ask
// rather than name ("describe", "information", "presidents") at 0.3 and
// the most frequent English words at 0.6 of that, a prior for the
// collection statistics the engine does not have.
//
// # Probabilities
//
// Where a stage reads token log-probabilities (paraphrase, extract,
// verify_support, verify_coverage) and the request asks for them, the
// response carries the engine's own computed probability for the answer it
// gives, written as log-probabilities: for yes/no tasks one token "yes" or
// "no" whose alternatives are both words with ln p and ln(1 − p), so
// prompts.YesProbability reads back p; for extract, tokens spelling the
// answer that each carry ln c, c the extraction confidence (the field
// labels carry 0), so prompts.SentenceLikelihood reads back c, and for
// NONE one token with ln of the confidence that no sentence answers. These
// are the engine's
// estimates, as documented on each method, not a language model's token
// probabilities; the probabilities are kept within [0.001, 0.999]. Token
// counts are 0 and ModelResponse.Model is Version.
package offline
