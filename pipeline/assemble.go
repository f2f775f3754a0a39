package pipeline

import (
	"math"
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
	// Score, when set, chooses the sentences across nuggets: eligible
	// candidates are taken in decreasing score (still at most K per
	// nugget, no repeats, within the limit), and the chosen sentences are
	// then written in their nuggets' order. nil: nuggets in rank order,
	// each its K most confident candidates.
	Score func(Candidate) float64
	// SameDocument, with Score, is the factor a candidate's score is
	// multiplied by for each sentence already chosen from its document
	// (between 0 and 1; 0 or 1 leaves the scores as they are): a report
	// that has quoted an address twice needs a stronger reason to quote it
	// a third time than another address needs for its first.
	SameDocument float64
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
// skipped and shorter ones after it may still fit. With o.Score the
// candidates are offered across nuggets in decreasing score instead,
// under the same rules, and the chosen ones are written in their
// nuggets' order.
func Assemble(nuggets []Nugget, candidates []Candidate, o AssembleOptions) []Sentence {
	ranked := append([]Nugget(nil), nuggets...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Rank < ranked[j].Rank })
	at := make(map[string]int, len(ranked)) // a nugget's place in rank order
	for i, n := range ranked {
		if _, ok := at[n.ID]; !ok {
			at[n.ID] = i
		}
	}
	// The eligible candidates of the nuggets, in the order they are
	// offered: by nugget, most confident first; or by score.
	var offered []Candidate
	for _, c := range candidates {
		if _, ok := at[c.NuggetID]; ok && c.Eligible(o.Verified) {
			offered = append(offered, c)
		}
	}
	byNugget := func(a, b Candidate) bool {
		if at[a.NuggetID] != at[b.NuggetID] {
			return at[a.NuggetID] < at[b.NuggetID]
		}
		return a.Confidence > b.Confidence
	}
	sort.SliceStable(offered, func(i, j int) bool { return byNugget(offered[i], offered[j]) })
	if o.Score != nil {
		score := make([]float64, len(offered))
		for i, c := range offered {
			score[i] = o.Score(c)
		}
		idx := make([]int, len(offered))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
		byScore := make([]Candidate, len(offered))
		for i, k := range idx {
			byScore[i] = offered[k]
		}
		offered = byScore
	}

	var out []Sentence
	if o.Score != nil && o.SameDocument > 0 && o.SameDocument < 1 {
		out = extendSpread(nil, offered, o)
	} else {
		out = Extend(nil, offered, o)
	}
	if o.Score != nil {
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i], out[j]
			return byNugget(Candidate{NuggetID: a.NuggetID, Confidence: a.Confidence}, Candidate{NuggetID: b.NuggetID, Confidence: b.Confidence})
		})
	}
	return out
}

// Extend appends to a report's sentences the offered candidates, in the
// order offered, under Assemble's rules: at most o.K sentences per nugget,
// no sentence whose normalised text or cited span repeats one already
// there, none that would take the report past o.Limit (shorter ones after
// it may still fit). The candidates are taken as they are: the caller
// offers only eligible ones.
func Extend(out []Sentence, offered []Candidate, o AssembleOptions) []Sentence {
	key := o.Key
	if key == nil {
		key = func(s string) string { return s }
	}
	seen := map[string]bool{}
	taken := map[string]int{}
	length := 0
	for _, s := range out {
		seen[key(s.Text)] = true
		taken[s.NuggetID]++
		if length > 0 {
			length++
		}
		length += utf8.RuneCountInString(s.Text)
	}
	for _, c := range offered {
		if taken[c.NuggetID] >= o.K {
			continue
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
		taken[c.NuggetID]++
		out = append(out, Sentence{
			Text: c.Sentence, Citation: c.Citation, NuggetID: c.NuggetID,
			Confidence: c.Confidence, Supported: c.Supported, Covers: c.Covers,
		})
	}
	return out
}

// extendSpread is Extend for candidates offered by score when a
// document's later sentences weigh less (o.SameDocument): it takes, one
// at a time, the candidate whose score times o.SameDocument to the power
// of the sentences already taken from its document is highest among
// those Extend would still take (a candidate it refuses once — its
// nugget full, its text or span repeated, too long for the room left —
// it refuses for good), ties to the earlier offered.
func extendSpread(out []Sentence, offered []Candidate, o AssembleOptions) []Sentence {
	score := make([]float64, len(offered))
	for i, c := range offered {
		score[i] = o.Score(c)
	}
	fromDoc := map[string]int{}
	for _, s := range out {
		fromDoc[s.Citation.DocID]++
	}
	left := make([]int, len(offered))
	for i := range left {
		left[i] = i
	}
	for len(left) > 0 {
		sort.SliceStable(left, func(a, b int) bool {
			return spreadScore(score[left[a]], fromDoc[offered[left[a]].Citation.DocID], o.SameDocument) >
				spreadScore(score[left[b]], fromDoc[offered[left[b]].Citation.DocID], o.SameDocument)
		})
		took := -1
		for j, i := range left {
			if next := Extend(out, offered[i:i+1], o); len(next) > len(out) {
				out, took = next, j
				fromDoc[offered[i].Citation.DocID]++
				break
			}
		}
		if took < 0 {
			break
		}
		left = left[took+1:] // those before it were refused for good
	}
	return out
}

// spreadScore is a score weighed down by the sentences already taken
// from the same document.
func spreadScore(score float64, taken int, factor float64) float64 {
	return score * math.Pow(factor, float64(taken))
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
