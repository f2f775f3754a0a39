package rerank

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Selection is a parsed set-wise selection.
type Selection struct {
	// Order holds the selected items' 0-based positions in the order the
	// answer lists them, each once.
	Order []int
	// Repeated counts identifiers ignored because they were already
	// selected; OutOfRange those outside [1]..[n].
	Repeated   int
	OutOfRange int
}

var (
	// reSelectionLabel matches a line that opens with the "Final Selection"
	// label, after optional markdown (#, *, _, >, -), in any case, with an
	// optional colon; group 1 is the rest of the line.
	reSelectionLabel = regexp.MustCompile(`(?i)^[\s#*_>\-]*final[\s*_\-]*selection[\s*_]*[:：]?[\s*_]*(.*)$`)
	reBracketGroup   = regexp.MustCompile(`\[([^\[\]]*)\]`)
)

// ParseFinalSelection reads the set SetR's prompt asks for on its last
// line, "### Final Selection: [i] [j] ...", over n passages identified
// [1]..[n]. It is tolerant of case, spacing, bold markers, a missing "###"
// or colon, commas ("[1], [3]", "[1, 3]") and bare numbers ("1, 3"). The
// label must open its line; when several lines carry it (a model restating
// the format), the last one counts. When nothing follows the label on its
// line, the next non-empty line is read instead. A reasoning model's
// <think> section is ignored. Repeated and out-of-range identifiers are
// skipped and counted.
//
// It returns an error wrapping pipeline.ErrInvalid, with an empty
// selection, when there is no label line or the selection names no
// passage in range (an answer of "none" included: the caller decides what
// an empty context means). n must not be negative; with n = 0 the
// selection is empty.
func ParseFinalSelection(answer string, n int) (Selection, error) {
	if n < 0 {
		return Selection{}, pipeline.Invalidf("final selection: passage count %d is negative", n)
	}
	sel := Selection{Order: []int{}}
	if n == 0 {
		return sel, nil
	}
	lines := strings.Split(cleanAnswer(answer), "\n")
	label := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if reSelectionLabel.MatchString(lines[i]) {
			label = i
			break
		}
	}
	if label < 0 {
		return sel, pipeline.Invalidf("answer has no \"Final Selection\" line: %q", excerpt(answer))
	}
	rest := reSelectionLabel.FindStringSubmatch(lines[label])[1]
	ids := selectionIDs(rest)
	if strings.Trim(rest, " \t*_") == "" {
		for _, next := range lines[label+1:] {
			if strings.TrimSpace(next) != "" {
				ids = selectionIDs(next)
				break
			}
		}
	}
	taken := make([]bool, n)
	for _, text := range ids {
		k, err := strconv.Atoi(text)
		switch {
		case err != nil || k < 1 || k > n:
			sel.OutOfRange++
		case taken[k-1]:
			sel.Repeated++
		default:
			taken[k-1] = true
			sel.Order = append(sel.Order, k-1)
		}
	}
	if len(sel.Order) == 0 {
		return sel, pipeline.Invalidf("final selection names no passage among [1]..[%d]: %q", n, excerpt(lines[label]))
	}
	return sel, nil
}

// selectionIDs takes the integers inside [...] groups when the text has
// any, else every integer of the text.
func selectionIDs(text string) []string {
	if groups := reBracketGroup.FindAllStringSubmatch(text, -1); len(groups) > 0 {
		var ids []string
		for _, g := range groups {
			ids = append(ids, reInteger.FindAllString(g[1], -1)...)
		}
		return ids
	}
	return reInteger.FindAllString(text, -1)
}
