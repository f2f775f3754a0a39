package pipeline

import (
	"sort"
)

// PairJudgement is the verdict on whether nuggets A and B (indexes into the
// nugget list) ask for the same information, with the confidence of "same"
// in [0, 1].
type PairJudgement struct {
	A, B       int
	Confidence float64
}

// MergeParaphrases merges nuggets judged to ask the same thing, most
// confident pairs first, until target canonical nuggets remain or no pair
// with confidence above 0.5 is left. Each group is represented by its first
// nugget in list order (the list is in ideation order, best documents
// first); the representative keeps the union of the group's sources, the
// ids of the merged nuggets as Paraphrases, and the group size as
// Popularity. The result keeps list order.
func MergeParaphrases(nuggets []Nugget, pairs []PairJudgement, target int) []Nugget {
	parent := make([]int, len(nuggets))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	sorted := append([]PairJudgement(nil), pairs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Confidence > sorted[j].Confidence })
	groups := len(nuggets)
	for _, p := range sorted {
		if groups <= target || p.Confidence <= 0.5 {
			break
		}
		if p.A < 0 || p.B < 0 || p.A >= len(nuggets) || p.B >= len(nuggets) {
			continue
		}
		ra, rb := find(p.A), find(p.B)
		if ra == rb {
			continue
		}
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra // the earlier nugget represents the group
		groups--
	}
	members := map[int][]int{}
	for i := range nuggets {
		r := find(i)
		members[r] = append(members[r], i)
	}
	var out []Nugget
	for i := range nuggets {
		if find(i) != i {
			continue
		}
		n := nuggets[i]
		n.Popularity = 0
		n.Paraphrases = nil
		seen := map[string]bool{}
		var sources []string
		for _, m := range members[i] {
			pop := nuggets[m].Popularity
			if pop < 1 {
				pop = 1
			}
			n.Popularity += pop
			if m != i {
				n.Paraphrases = append(n.Paraphrases, nuggets[m].ID)
				n.Paraphrases = append(n.Paraphrases, nuggets[m].Paraphrases...)
			}
			for _, s := range nuggets[m].Sources {
				if !seen[s] {
					seen[s] = true
					sources = append(sources, s)
				}
			}
		}
		n.Sources = sources
		out = append(out, n)
	}
	return out
}
