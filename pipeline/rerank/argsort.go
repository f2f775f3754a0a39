package rerank

import "slices"

// argsortAscending returns the positions of v in ascending order of value,
// equal values ordered by the tie convention.
func argsortAscending(v []float64, ties TieBreak) []int {
	if ties == TiesNumpy {
		return numpyArgsort(v)
	}
	order := identity(len(v))
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	return order
}

// numpySmallSort is the largest pr−pl for which numpy's introsort stops
// partitioning and finishes with insertion sort (segments of ≤ 16 items).
const numpySmallSort = 15

// numpyArgsort emulates numpy's scalar default argsort (the "quicksort"
// kind: an introsort) step for step, so that equal values come out in the
// same order as in numpy ≤ 1.24 and in later versions on CPUs without the
// SIMD sort. Each partition takes the median of the first, middle and last
// items as pivot; segments of at most 16 items are finished by insertion
// sort; the smaller side of a partition is sorted first while the larger
// is stacked; a segment whose depth budget (2·⌊log2 n⌋) is exhausted is
// heapsorted. The values must not be NaN.
func numpyArgsort(v []float64) []int {
	idx := identity(len(v))
	if len(idx) < 2 {
		return idx
	}
	type segment struct{ pl, pr, depth int }
	var stack []segment
	less := func(a, b int) bool { return v[idx[a]] < v[idx[b]] }
	swap := func(a, b int) { idx[a], idx[b] = idx[b], idx[a] }

	pl, pr := 0, len(idx)-1
	depth := 2 * floorLog2(len(idx))
	for {
		if depth < 0 {
			numpyHeapsort(v, idx[pl:pr+1])
		} else {
			for pr-pl > numpySmallSort {
				pm := pl + (pr-pl)>>1
				if less(pm, pl) {
					swap(pm, pl)
				}
				if less(pr, pm) {
					swap(pr, pm)
				}
				if less(pm, pl) {
					swap(pm, pl)
				}
				pivot := v[idx[pm]]
				pi, pj := pl, pr-1
				swap(pm, pj)
				for {
					pi++
					for v[idx[pi]] < pivot {
						pi++
					}
					pj--
					for pivot < v[idx[pj]] {
						pj--
					}
					if pi >= pj {
						break
					}
					swap(pi, pj)
				}
				swap(pi, pr-1)
				depth--
				if pi-pl < pr-pi {
					stack = append(stack, segment{pi + 1, pr, depth})
					pr = pi - 1
				} else {
					stack = append(stack, segment{pl, pi - 1, depth})
					pl = pi + 1
				}
			}
			for i := pl + 1; i <= pr; i++ {
				moving := idx[i]
				key := v[moving]
				j := i
				for j > pl && key < v[idx[j-1]] {
					idx[j] = idx[j-1]
					j--
				}
				idx[j] = moving
			}
		}
		if len(stack) == 0 {
			return idx
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, depth = top.pl, top.pr, top.depth
	}
}

// numpyHeapsort is numpy's indirect heapsort of the positions in idx, the
// fallback of numpyArgsort. It works 1-based as numpy's does.
func numpyHeapsort(v []float64, idx []int) {
	n := len(idx)
	at := func(k int) *int { return &idx[k-1] } // 1-based view
	sift := func(i, n int, moving int) {
		for j := 2 * i; j <= n; {
			if j < n && v[*at(j)] < v[*at(j + 1)] {
				j++
			}
			if !(v[moving] < v[*at(j)]) {
				break
			}
			*at(i) = *at(j)
			i, j = j, 2*j
		}
		*at(i) = moving
	}
	for l := n / 2; l > 0; l-- {
		sift(l, n, *at(l))
	}
	for n > 1 {
		moving := *at(n)
		*at(n) = *at(1)
		n--
		sift(1, n, moving)
	}
}

// floorLog2 is ⌊log2 n⌋ for n ≥ 1 (numpy's npy_get_msb).
func floorLog2(n int) int {
	k := 0
	for n >>= 1; n > 0; n >>= 1 {
		k++
	}
	return k
}
