package pipeline

import (
	"sort"
	"unicode/utf8"
)

// AssembleOptions are the settings of assembly.
type AssembleOptions struct {
	// K is the number of sentences taken per nugget.
	K int
	// Limit is the report's length limit in characters (sentences joined
	// by one space).
	Limit int
	// Key maps a sentence to its stop-worded, stemmed form for
	// de-duplication; nil compares exact text.
	Key func(string) string
	// Verified is set when the run verified its candidates: assembly then
	// fails closed and takes only candidates that passed both checks.
	Verified bool
}

// Eligible reports whether assembly may take the candidate: it has a
// sentence and, when verified (verification ran), passed both checks;
// without verification, it failed neither (a verdict recorded otherwise
// still counts). A candidate verification did not reach, or whose
// verdict could not be read, is not eligible in a verified run.
func (c Candidate) Eligible(verified bool) bool {
	if c.Sentence == "" {
		return false
	}
	if verified {
		return c.Supported == VerdictYes && c.Covers == VerdictYes
	}
	return !c.FailedCheck()
}

// FailedCheck reports whether verification checked the candidate and
// found it wanting: a "no" on support or on coverage.
func (c Candidate) FailedCheck() bool {
	return c.Supported == VerdictNo || c.Covers == VerdictNo
}

// Assemble selects and orders a report's sentences (DESIGN §5, step 7):
// nuggets in rank order; per nugget the o.K most confident eligible
// candidates (Candidate.Eligible: with verification on, only those that
// passed both checks); a sentence whose normalised text (o.Key)
// duplicates an earlier one, or whose cited span overlaps the span an
// earlier sentence cites (the same words again, perhaps with one more
// sentence joined to them), is dropped; a sentence that would take the
// report past o.Limit characters (sentences joined by one space) is
// skipped and shorter ones after it may still fit.
func Assemble(nuggets []Nugget, candidates []Candidate, o AssembleOptions) []Sentence {
	key := o.Key
	if key == nil {
		key = func(s string) string { return s }
	}
	byNugget := map[string][]Candidate{}
	for _, c := range candidates {
		if c.Eligible(o.Verified) {
			byNugget[c.NuggetID] = append(byNugget[c.NuggetID], c)
		}
	}
	ranked := append([]Nugget(nil), nuggets...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Rank < ranked[j].Rank })

	var out []Sentence
	seen := map[string]bool{}
	length := 0
	for _, n := range ranked {
		cs := byNugget[n.ID]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Confidence > cs[j].Confidence })
		taken := 0
		for _, c := range cs {
			if taken >= o.K {
				break
			}
			kk := key(c.Sentence)
			if kk == "" || seen[kk] || repeats(out, c.Citation) {
				continue
			}
			add := utf8.RuneCountInString(c.Sentence)
			if length > 0 {
				add++
			}
			if length+add > o.Limit {
				continue
			}
			seen[kk] = true
			length += add
			taken++
			out = append(out, Sentence{
				Text: c.Sentence, Citation: c.Citation, NuggetID: n.ID,
				Confidence: c.Confidence, Supported: c.Supported, Covers: c.Covers,
			})
		}
	}
	return out
}

// repeats reports whether a citation's span overlaps the span one of the
// sentences cites (Citation.Overlaps).
func repeats(sentences []Sentence, c Citation) bool {
	for _, s := range sentences {
		if s.Citation.Overlaps(c) {
			return true
		}
	}
	return false
}
