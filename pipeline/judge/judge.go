package judge

import "context"

// Judge decides the two questions the report metrics rest on. Offline
// (lexical) and ModelJudge (a language model) implement it.
type Judge interface {
	// Name identifies the judge and its settings in results, e.g.
	// "offline (claim overlap ≥ 0.42, support ≥ 0.70)".
	Name() string
	// Covers decides whether a report sentence covers a gold nugget: it
	// gives one of the nugget's answers, or states its claim. Errors are
	// the judge's failures (a model call that failed, an answer that could
	// not be read), never a "no".
	Covers(ctx context.Context, n Nugget, sentence string) (Verdict, error)
	// Supports decides whether the cited evidence supports a report
	// sentence. Errors as for Covers.
	Supports(ctx context.Context, sentence string, ev Evidence) (Verdict, error)
}

// Verdict is one yes/no judgement.
type Verdict struct {
	Yes bool `json:"yes"`
	// Score is the judge's graded view in [0, 1]: for the offline judge
	// the word-overlap share the decision thresholds (1 or 0 for answer
	// matching), for the model judge the probability of "yes" (from token
	// log-probabilities when the endpoint returns them, else 1 or 0).
	Score float64 `json:"score"`
	// Reason says briefly why, for display ("answer \"12 million\" found",
	// "document not in the collection").
	Reason string `json:"reason,omitempty"`
	// Error is set when the judge could not decide (a model answer that
	// could not be read); Yes is then false. See Evaluator.
	Error string `json:"error,omitempty"`
}

// Evidence is what a citation points at, as judged.
type Evidence struct {
	// DocID is the cited document.
	DocID string `json:"doc_id"`
	// PassageID is the passage judged against ("doc#ordinal"); empty when
	// the document's whole text was used or the document is missing.
	PassageID string `json:"passage_id,omitempty"`
	// Text is the passage (or document) text judged against. It is not
	// marshalled (a page can load the passage by PassageID).
	Text string `json:"-"`
	// Span is the part of the passage the report's provenance names as the
	// cited span, when it names one; the model judge shows it.
	Span string `json:"span,omitempty"`
	// Byline is the cited document's title, author and date, as far as
	// they are known: a sentence may say who said what it reports and when
	// ("In 1903, Theodore Roosevelt reported that ..."), and the document
	// supports that. Not marshalled.
	Byline string `json:"-"`
	// Basis tells how the evidence was found: BasisProvenance,
	// BasisBestPassage, BasisDocument or BasisMissing.
	Basis string `json:"basis"`
}

// How the evidence of a citation was chosen.
const (
	// BasisProvenance: the sentence's own provenance (crucible.passage_id)
	// names a passage of the cited document.
	BasisProvenance = "provenance"
	// BasisBestPassage: no provenance for this document, so the passage
	// with the largest share of the sentence's content words was taken.
	BasisBestPassage = "best passage"
	// BasisDocument: the document has no stored passages; its whole text
	// was used.
	BasisDocument = "document"
	// BasisMissing: the cited document is not in the collection; the
	// citation is unsupported without asking the judge.
	BasisMissing = "missing document"
)
