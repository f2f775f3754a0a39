package pipeline

import (
	"sort"
	"unicode/utf8"
)

// Assemble selects and orders a report's sentences (DESIGN §5, step 7):
// nuggets in rank order; per nugget the k most confident candidates that
// did not fail verification; a sentence whose normalised text (key)
// duplicates an earlier one is dropped; a sentence that would take the
// report past limit characters (sentences joined by one space) is skipped
// and shorter ones after it may still fit. key maps a sentence to its
// stop-worded, stemmed form; nil compares exact text.
func Assemble(nuggets []Nugget, candidates []Candidate, k, limit int, key func(string) string) []Sentence {
	if key == nil {
		key = func(s string) string { return s }
	}
	byNugget := map[string][]Candidate{}
	for _, c := range candidates {
		if c.Supported == VerdictNo || c.Covers == VerdictNo || c.Sentence == "" {
			continue
		}
		byNugget[c.NuggetID] = append(byNugget[c.NuggetID], c)
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
			if taken >= k {
				break
			}
			kk := key(c.Sentence)
			if kk == "" || seen[kk] {
				continue
			}
			add := utf8.RuneCountInString(c.Sentence)
			if length > 0 {
				add++
			}
			if length+add > limit {
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
