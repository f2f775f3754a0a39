package rerank

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Sliding-window defaults of the listwise baseline (RankGPT's).
const (
	DefaultWindowSize   = 20
	DefaultWindowStride = 10
)

// Window is the half-open range [Start, End) of list positions that one
// listwise call reorders.
type Window struct {
	Start int
	End   int
}

// Len is the number of items in the window.
func (w Window) Len() int { return w.End - w.Start }

// SlidingWindows returns, in processing order, the windows of a
// bottom-up sliding-window pass over a list of n items: the first window
// holds the last size items, each next one lies stride positions higher,
// and the pass ends with a window at the top of the list. Because windows
// overlap by size − stride items, a strong document found low in the list
// is carried upward window by window; after a full pass the top stride
// positions hold the best documents the model saw.
//
// When the stride would leave the top window short (n − size is not a
// multiple of stride), the top window is widened to a full
// [0, min(size, n)) so that the last call, which decides the head of the
// ranking, sees as many candidates as a window allows; it costs no extra
// call. For n = 100, size 20, stride 10 this gives RankGPT's nine windows
// [80,100), [70,90), …, [0,20). A list no longer than size is one window.
//
// size and stride must be positive and stride at most size (a larger
// stride would skip items); n must not be negative.
func SlidingWindows(n, size, stride int) ([]Window, error) {
	switch {
	case n < 0:
		return nil, pipeline.Invalidf("sliding windows: list length %d is negative", n)
	case size < 1:
		return nil, pipeline.Invalidf("sliding windows: window size %d, want at least 1", size)
	case stride < 1 || stride > size:
		return nil, pipeline.Invalidf("sliding windows: stride %d, want 1..%d (the window size)", stride, size)
	}
	windows := []Window{}
	if n == 0 {
		return windows, nil
	}
	for end := n; ; end -= stride {
		start := end - size
		if start <= 0 {
			return append(windows, Window{Start: 0, End: min(size, n)}), nil
		}
		windows = append(windows, Window{Start: start, End: end})
	}
}

// ApplyPermutation reorders items[w.Start:w.End] in place by perm, a
// permutation of 0..w.Len()−1 in window-local positions: after the call,
// window position k holds the item that was at window position perm[k]
// (perm lists the old positions best first, as ParseListwise returns).
func ApplyPermutation[T any](items []T, w Window, perm []int) error {
	if w.Start < 0 || w.End > len(items) || w.Start > w.End {
		return pipeline.Invalidf("window [%d,%d) does not fit a list of %d items", w.Start, w.End, len(items))
	}
	if len(perm) != w.Len() {
		return pipeline.Invalidf("permutation of %d positions for a window of %d items", len(perm), w.Len())
	}
	seen := make([]bool, len(perm))
	for k, p := range perm {
		if p < 0 || p >= len(perm) {
			return pipeline.Invalidf("permutation entry %d is %d, outside 0..%d", k, p, len(perm)-1)
		}
		if seen[p] {
			return pipeline.Invalidf("permutation repeats position %d", p)
		}
		seen[p] = true
	}
	old := slices.Clone(items[w.Start:w.End])
	for k, p := range perm {
		items[w.Start+k] = old[p]
	}
	return nil
}

// SlidingRerank runs a bottom-up sliding-window pass (see SlidingWindows)
// over a copy of items and returns the reranked copy. For each window, in
// order, rank receives the window and a copy of its current items and
// returns a permutation of window-local positions, best first (for
// example ParseListwise(answer, len(window)).Order). An error from rank or
// an invalid permutation stops the pass and is returned with the window
// named.
func SlidingRerank[T any](items []T, size, stride int, rank func(w Window, window []T) ([]int, error)) ([]T, error) {
	windows, err := SlidingWindows(len(items), size, stride)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(items)
	for _, w := range windows {
		perm, err := rank(w, slices.Clone(out[w.Start:w.End]))
		if err != nil {
			return nil, fmt.Errorf("window [%d,%d): %w", w.Start, w.End, err)
		}
		if err := ApplyPermutation(out, w, perm); err != nil {
			return nil, fmt.Errorf("window [%d,%d): %w", w.Start, w.End, err)
		}
	}
	return out, nil
}

// ListwiseResult is a parsed listwise ranking.
type ListwiseResult struct {
	// Order is always a permutation of 0..n−1 (0-based positions, best
	// first): the identifiers the answer ranked, then the ones it left out
	// in their original order.
	Order []int
	// Ranked counts the distinct, in-range identifiers taken from the
	// answer; the other n − Ranked were appended.
	Ranked int
	// Repeated counts identifiers ignored because they had already been
	// ranked; OutOfRange those outside [1]..[n].
	Repeated   int
	OutOfRange int
}

// Complete reports whether the answer ranked every item exactly once and
// nothing else.
func (r ListwiseResult) Complete() bool {
	return r.Ranked == len(r.Order) && r.Repeated == 0 && r.OutOfRange == 0
}

var (
	reBracketID = regexp.MustCompile(`\[\s*(\d+)\s*\]`)
	reInteger   = regexp.MustCompile(`\d+`)
	reListLine  = regexp.MustCompile(`^[\s\d,;>|]*\d[\s\d,;>|]*$`)
)

// ParseListwise reads a listwise ranking of n items identified [1]..[n],
// such as "[3] > [1] > [2]". It takes, in this order of preference: the
// bracketed identifiers anywhere in the answer; else the integers of the
// last line made only of numbers and separators ("3 > 1 > 2", "3, 1, 2");
// else the first integer of each ">"-separated part when there are at
// least two ("Passage 3 > Passage 1"). A reasoning model's <think> section
// is ignored. Repeated and out-of-range identifiers are skipped and
// counted; items the answer left out follow in their original order.
//
// When the answer names no usable identifier, the result is the original
// order with an error wrapping pipeline.ErrInvalid: the caller keeps the
// window as it was and records the error. n must not be negative.
func ParseListwise(answer string, n int) (ListwiseResult, error) {
	if n < 0 {
		return ListwiseResult{}, pipeline.Invalidf("listwise answer: item count %d is negative", n)
	}
	ids := listwiseIDs(cleanAnswer(answer))
	res := ListwiseResult{Order: make([]int, 0, n)}
	if n == 0 {
		return res, nil
	}
	taken := make([]bool, n)
	for _, text := range ids {
		k, err := strconv.Atoi(text)
		switch {
		case err != nil || k < 1 || k > n:
			res.OutOfRange++
		case taken[k-1]:
			res.Repeated++
		default:
			taken[k-1] = true
			res.Order = append(res.Order, k-1)
		}
	}
	res.Ranked = len(res.Order)
	for i, ok := range taken {
		if !ok {
			res.Order = append(res.Order, i)
		}
	}
	if res.Ranked == 0 {
		return res, pipeline.Invalidf("listwise answer names no item among [1]..[%d]: %q", n, excerpt(answer))
	}
	return res, nil
}

// listwiseIDs extracts the identifier strings of a listwise answer.
func listwiseIDs(text string) []string {
	if m := reBracketID.FindAllStringSubmatch(text, -1); len(m) > 0 {
		ids := make([]string, len(m))
		for i, g := range m {
			ids[i] = g[1]
		}
		return ids
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if reListLine.MatchString(lines[i]) {
			return reInteger.FindAllString(lines[i], -1)
		}
	}
	var ids []string
	for _, part := range strings.Split(text, ">") {
		if id := reInteger.FindString(part); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) >= 2 {
		return ids
	}
	return nil
}

var reThinkClose = regexp.MustCompile(`(?i)</think(?:ing)?>`)

// cleanAnswer makes a model answer safe to scan: invalid UTF-8 becomes
// U+FFFD, line ends become "\n", and everything up to the last closing
// </think> tag (a reasoning model's scratch work, which may mention any
// identifier) is dropped.
func cleanAnswer(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if locs := reThinkClose.FindAllStringIndex(s, -1); len(locs) > 0 {
		s = s[locs[len(locs)-1][1]:]
	}
	return s
}

// excerpt shortens an answer for an error message.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
