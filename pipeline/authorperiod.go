package pipeline

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// AuthorLister is an optional DocumentStore capability: for each author of
// the collection's documents (DocumentAuthor), the years their dated
// documents span. The report pipeline reads a request that names a period
// by its authors ("from Kennedy to Obama") with it.
type AuthorLister interface {
	AuthorYears(ctx context.Context) (map[string]Period, error)
}

// AuthorYearsOf folds documents' metadata into each author's span of
// years (what AuthorLister returns): documents without an author or a
// date are left out.
func AuthorYearsOf(metadata []map[string]string) map[string]Period {
	out := map[string]Period{}
	for _, m := range metadata {
		a, ok := DocumentAuthor(m)
		if !ok {
			continue
		}
		y, ok := DocumentYear(m)
		if !ok {
			continue
		}
		p, seen := out[a]
		if !seen {
			out[a] = Period{y, y}
			continue
		}
		p.From, p.To = min(p.From, y), max(p.To, y)
		out[a] = p
	}
	return out
}

// NamedPeriods returns the periods a request's text names: by years
// (RequestPeriods) and then by ranges of the collection's authors
// (AuthorPeriods; none without authors), each once.
func NamedPeriods(text string, authors map[string]Period) []Period {
	periods := RequestPeriods(text)
	for _, m := range AuthorPeriods(text, authors) {
		if !slices.Contains(periods, m.Period) {
			periods = append(periods, m.Period)
		}
	}
	return periods
}

// PeriodMention is a period a text names and where: Text[Start:End] is
// what names it.
type PeriodMention struct {
	Period     Period
	Start, End int
}

var (
	// A name as a request writes it: one to four capitalised words, the
	// last not an initial ("Kennedy", "George W. Bush", "John Quincy
	// Adams").
	authorName = `(?:\p{Lu}[\p{L}'’]*\.?\s+){0,3}\p{Lu}[\p{L}'’]*`
	// "from Kennedy to Obama", "between Grant and Cleveland".
	authorRange = regexp.MustCompile(`\b(?:[Ff]rom|[Bb]etween)\s+(` + authorName + `)\s+(?:to|and|through|until|till)\s+(` + authorName + `)`)
)

// AuthorPeriods finds the periods a text names by the authors of the
// collection's documents: "from Kennedy to Obama" is the span from the
// first year of Kennedy's documents to the last of Obama's, given
// authors (AuthorLister). A name matches an author whose name holds its
// words in order and ends with its last word ("Johnson" matches "Andrew
// Johnson" and "Lyndon B Johnson", "Franklin Roosevelt" only "Franklin D
// Roosevelt"; initials and full stops are ignored and "McKinley" matches
// "William Mc Kinley"); an author whose name is all of the words is
// preferred ("George Bush" over "George W Bush"). Where a name fits
// several authors the shortest span that runs forward is taken ("from
// Johnson to Clinton" starts with Lyndon B Johnson). A range whose names
// match no author ("from Sputnik to Artemis") or only run backwards names
// no period. Mentions come in order.
func AuthorPeriods(text string, authors map[string]Period) []PeriodMention {
	if len(authors) == 0 {
		return nil
	}
	var out []PeriodMention
	for _, m := range authorRange.FindAllStringSubmatchIndex(text, -1) {
		first := authorsNamed(text[m[2]:m[3]], authors)
		if len(first) == 0 {
			continue
		}
		// The second name may run on into capitalised words after it
		// ("from Grant to Taft Congress …"): the longest that names an
		// author.
		second := text[m[4]:m[5]]
		for second != "" {
			last := authorsNamed(second, authors)
			if len(last) > 0 {
				if p, ok := shortestSpan(first, last, authors); ok {
					out = append(out, PeriodMention{Period: p, Start: m[0], End: m[4] + len(second)})
				}
				break
			}
			i := strings.LastIndexFunc(second, unicode.IsSpace)
			if i < 0 {
				break
			}
			second = strings.TrimRightFunc(second[:i], unicode.IsSpace)
		}
	}
	return out
}

// shortestSpan is the shortest period from the first year of one of the
// authors first to the last year of one of the authors last that runs
// forward.
func shortestSpan(first, last []string, authors map[string]Period) (Period, bool) {
	best, ok := Period{}, false
	for _, a := range first {
		for _, b := range last {
			p := Period{authors[a].From, authors[b].To}
			if p.From <= p.To && (!ok || p.To-p.From < best.To-best.From) {
				best, ok = p, true
			}
		}
	}
	return best, ok
}

// authorsNamed returns the authors a name written in a request may mean
// (see AuthorPeriods), sorted: those it fits best (nameFit).
func authorsNamed(name string, authors map[string]Period) []string {
	want := nameWords(name)
	if len(want) == 0 {
		return nil
	}
	var out []string
	best := 0
	for a := range authors {
		fit := nameFit(want, nameWords(a))
		switch {
		case fit == 0 || fit < best:
		case fit > best:
			best, out = fit, []string{a}
		default:
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// nameWords are a name's words in lower case, without full stops or a
// possessive ending.
func nameWords(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == '-' }) {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w = strings.ToLower(strings.Trim(w, ".,'’")); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// nameFit tells how well the words of a name written in a request (want)
// fit an author's name (have): 3 when they are all of its words, 2 when
// only its initials are left out ("Lyndon Johnson", "Lyndon B Johnson"),
// 1 when other words are too ("Kennedy", "John F Kennedy"), 0 when they
// are not its words in order ending with its last. A written word may
// join two of the author's ("McKinley", "William Mc Kinley").
func nameFit(want, have []string) int {
	i, j, fit := 0, 0, 3
	for i < len(want) && j < len(have) {
		switch {
		case want[i] == have[j]:
			i, j = i+1, j+1
		case j+1 < len(have) && want[i] == have[j]+have[j+1]:
			i, j = i+1, j+2
		default:
			if len([]rune(have[j])) == 1 {
				fit = min(fit, 2)
			} else {
				fit = 1
			}
			j++
		}
	}
	if i < len(want) || j < len(have) {
		return 0 // a word left over, or the author's last word not matched last
	}
	return fit
}
