package pipeline

import (
	"fmt"
	"strings"
)

// DroppedUnsupported counts the candidates verification dropped as
// unsupported: the candidate sentences of the nuggets that verification
// checked and that failed a check (Candidate.FailedCheck). Candidates of
// other nuggets, candidates without a sentence and candidates
// verification did not reach are not counted. It is the figure a
// verified run records (Report.DroppedUnsupported).
func DroppedUnsupported(nuggets []Nugget, candidates []Candidate) int {
	kept := make(map[string]bool, len(nuggets))
	for _, n := range nuggets {
		kept[n.ID] = true
	}
	n := 0
	for _, c := range candidates {
		if kept[c.NuggetID] && c.Sentence != "" && c.FailedCheck() {
			n++
		}
	}
	return n
}

// Unchecked reports whether the sentence stands on no verification: its
// support was not checked, or it answers a nugget and its coverage was
// not checked. A sentence edited by hand has its verdicts cleared
// (DraftSentence.Recheck), so it is unchecked until verified again.
func (s Sentence) Unchecked() bool {
	return s.Supported == VerdictUnchecked || (s.NuggetID != "" && s.Covers == VerdictUnchecked)
}

// Unchecked reports whether the sentence stands on no verification: it
// was edited by hand since (Recheck), or Sentence.Unchecked.
func (s DraftSentence) Unchecked() bool { return s.Recheck || s.Sentence.Unchecked() }

// VerificationSummary says what verification did for a report.
type VerificationSummary struct {
	// Verified is set when the run that made the report verified its
	// candidates.
	Verified bool
	// Dropped is the number of candidate sentences the run dropped as
	// unsupported (DroppedUnsupported).
	Dropped int
	// Sentences is the number of the report's sentences, Unchecked those
	// that stand on no verification (Sentence.Unchecked) and Failed those
	// that carry a failed check (put in by hand: swapped in, or verified
	// again after an edit).
	Sentences int
	Unchecked int
	Failed    int
}

// Verification summarises what verification did for the report's
// current sentences.
func (r Report) Verification() VerificationSummary {
	v := VerificationSummary{Verified: r.Settings.Verify, Dropped: r.DroppedUnsupported, Sentences: len(r.Sentences)}
	for _, s := range r.Sentences {
		switch {
		case s.Unchecked():
			v.Unchecked++
		case s.Supported == VerdictNo || s.Covers == VerdictNo:
			v.Failed++
		}
	}
	return v
}

// Text words the summary for a report's header: "3 candidate sentences
// dropped as unsupported by verification · 0 of 12 sentences unchecked",
// or for a report made without verification "12 of 12 sentences
// unchecked (verification was off)".
func (v VerificationSummary) Text() string {
	unchecked := fmt.Sprintf("%d of %d %s unchecked", v.Unchecked, v.Sentences, plural(v.Sentences, "sentence", "sentences"))
	var parts []string
	if v.Verified {
		parts = append(parts, fmt.Sprintf("%d candidate %s dropped as unsupported by verification", v.Dropped,
			plural(v.Dropped, "sentence", "sentences")), unchecked)
	} else {
		parts = append(parts, unchecked+" (verification was off)")
	}
	if v.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed a check", v.Failed))
	}
	return strings.Join(parts, " · ")
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// NuggetOutcome says what became of a bank nugget in a report.
type NuggetOutcome string

// Nugget outcomes.
const (
	// OutcomeAnswered: sentences of the report answer the nugget.
	OutcomeAnswered NuggetOutcome = "answered"
	// OutcomeNoCandidate: scanning found no candidate sentence for it.
	OutcomeNoCandidate NuggetOutcome = "no_candidate"
	// OutcomeNoSupported: it had candidates, but none may be assembled:
	// with verification on, none passed both checks (those checked all
	// failed, and the others were not reached).
	OutcomeNoSupported NuggetOutcome = "no_supported"
	// OutcomeLeftOut: it had a candidate assembly could take, but the
	// report holds none: cut by the length limit, dropped as a duplicate
	// of an earlier sentence, or removed by hand.
	OutcomeLeftOut NuggetOutcome = "left_out"
)

// Label words the outcome for pages.
func (o NuggetOutcome) Label() string {
	switch o {
	case OutcomeAnswered:
		return "answered"
	case OutcomeNoCandidate:
		return "no candidate found"
	case OutcomeNoSupported:
		return "no supported sentence"
	case OutcomeLeftOut:
		return "left out: length limit, duplicate or removed by hand"
	}
	return string(o)
}

// NuggetResult is what became of one nugget: its outcome and the counts
// behind it.
type NuggetResult struct {
	Outcome NuggetOutcome
	// Candidates counts its candidate sentences, Checked those
	// verification checked (a verdict on either check) and Failed those
	// that failed a check.
	Candidates, Checked, Failed int
}

// OutcomeOf says what became of a nugget the report's sentences answer
// sentences times, given its candidates (of the report's job) and
// whether the report was made with verification on.
func OutcomeOf(sentences int, candidates []Candidate, verified bool) NuggetResult {
	var r NuggetResult
	eligible := 0
	for _, c := range candidates {
		if c.Sentence == "" {
			continue
		}
		r.Candidates++
		if c.Supported != VerdictUnchecked || c.Covers != VerdictUnchecked {
			r.Checked++
		}
		if c.FailedCheck() {
			r.Failed++
		}
		if c.Eligible(verified) {
			eligible++
		}
	}
	switch {
	case sentences > 0:
		r.Outcome = OutcomeAnswered
	case r.Candidates == 0:
		r.Outcome = OutcomeNoCandidate
	case eligible == 0:
		r.Outcome = OutcomeNoSupported
	default:
		r.Outcome = OutcomeLeftOut
	}
	return r
}
