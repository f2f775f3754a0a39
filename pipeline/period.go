package pipeline

import (
	"context"
	"regexp"
	"strconv"
	"strings"
)

// Period is a span of years a request asks about, From ≤ To.
type Period struct {
	From, To int
}

// Contains reports whether a document dated year falls in the period. A
// document dated the year after it still does: a year's events are often
// reported early in the next (an annual message of January 1946 tells of
// 1945).
func (p Period) Contains(year int) bool { return p.From <= year && year <= p.To+1 }

// Year bounds of RequestPeriods and DocumentYear: four-digit years from
// 1000 to 2999.
const (
	minYear = 1000
	maxYear = 2999
)

var (
	// "1812-1815", "1812–15", "1812 - 1815".
	yearRange = regexp.MustCompile(`\b([12]\d{3})\s*[-–—]\s*(\d{4}|\d{2})\b`)
	// "from 1929 to 1939", "between 1929 and 1939", "1929 through 1939".
	yearSpan = regexp.MustCompile(`(?i)\b(?:from|between)?\s*([12]\d{3})\s+(?:to|and|until|through|till)\s+([12]\d{3})\b`)
	// "the 1970s", "1840s", "the 1970's".
	decade = regexp.MustCompile(`\b([12]\d{2}0)(?:'s|’s|s)\b`)
	// The first four-digit year of a date ("1945-01-06", "January 1945").
	firstYear = regexp.MustCompile(`\b([12]\d{3})\b`)
)

// RequestPeriods finds the periods a request's text states: year ranges
// ("1812-1815", "1803–48"), spans ("from 1929 to 1939", "between 1865
// and 1878") and decades ("the 1970s": 1970–1979). A single year is no
// period ("the Act of 1890" does not confine the request to 1890). The
// periods come in order of first mention, duplicates left out; none when
// the text states none. Ranges whose end is before their start, or that
// leave 1000–2999, are ignored.
func RequestPeriods(text string) []Period {
	type found struct {
		at int
		p  Period
	}
	var all []found
	add := func(at int, from, to int) {
		if from < minYear || to > maxYear || to < from {
			return
		}
		all = append(all, found{at, Period{from, to}})
	}
	for _, m := range yearRange.FindAllStringSubmatchIndex(text, -1) {
		from, _ := strconv.Atoi(text[m[2]:m[3]])
		end := text[m[4]:m[5]]
		to, _ := strconv.Atoi(end)
		if len(end) == 2 {
			// "1803-48": the century of the start.
			to += from / 100 * 100
		}
		add(m[0], from, to)
	}
	for _, m := range yearSpan.FindAllStringSubmatchIndex(text, -1) {
		from, _ := strconv.Atoi(text[m[2]:m[3]])
		to, _ := strconv.Atoi(text[m[4]:m[5]])
		add(m[0], from, to)
	}
	for _, m := range decade.FindAllStringSubmatchIndex(text, -1) {
		from, _ := strconv.Atoi(text[m[2]:m[3]])
		add(m[0], from, from+9)
	}
	// Order of mention; the same period once.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].at < all[j-1].at; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var out []Period
	seen := map[Period]bool{}
	for _, f := range all {
		if !seen[f.p] {
			seen[f.p] = true
			out = append(out, f.p)
		}
	}
	return out
}

// DocumentYear is the year of a document's "date" metadata field: its
// first four-digit year ("1945", "1945-01-06", "January 6, 1945"); false
// when the document has no such date.
func DocumentYear(metadata map[string]string) (int, bool) {
	d := strings.TrimSpace(metadata["date"])
	m := firstYear.FindStringSubmatch(d)
	if m == nil {
		return 0, false
	}
	y, _ := strconv.Atoi(m[1])
	return y, minYear <= y && y <= maxYear
}

// DateLister is an optional DocumentStore capability: the "date"
// metadata of many documents at once, by id (documents without a date or
// unknown ids are left out). The report pipeline uses it to prefer
// documents of the period a request names.
type DateLister interface {
	DocumentDates(ctx context.Context, ids []string) (map[string]string, error)
}
