package pipeline

import (
	"regexp"
	"sort"
	"strings"
)

// Speakers a facet names. A problem statement often asks for what one
// speaker said or did ("the help Clinton sought for family farmers",
// "Reagan's aim in enforcing child support"), and the facet read from it
// keeps the name. Speakers seldom name themselves, so the facet's words
// find other speakers' passages as readily as the named one's; the facet
// is then only about the documents of the speakers it names (their
// authors, AuthorLister).

// reNameRun finds a run of capitalised words, as authorName does, and
// the word after it.
var reNameRun = regexp.MustCompile(`(` + authorName + `)(?:\s+([\p{L}]+))?`)

// SpeakersNamed returns the collection's authors (authors, as
// AuthorLister gives them) that text names as speakers, sorted: a name
// written in the possessive ("Reagan's aim"), before a verb in the past
// ("the help Clinton sought", "the squeeze Carter described", "bodies
// Eisenhower and Lyndon Johnson proposed") or after "by" or "under"
// ("reported by Madison", "created under Eisenhower"). A name in a range
// of speakers ("from Kennedy to Obama") names a period, not a speaker;
// a name as a place or a thing ("at Washington", "the Monroe Doctrine",
// "Grant of land") names no speaker. A line's first word may be
// capitalised only for opening it ("Help Clinton sought"): the name is
// then read without it. A name that fits several authors ("Johnson",
// "Roosevelt") names each of them.
func SpeakersNamed(text string, authors map[string]Period) []string {
	if len(authors) == 0 {
		return nil
	}
	inRange := AuthorPeriods(text, authors)
	named := map[string]bool{}
	offset := 0
	for _, line := range strings.Split(text, "\n") {
		lineStart := offset
		offset += len(line) + 1
		type run struct {
			authors []string
			speaks  bool
			joins   bool // followed by "and" or "or": shares the next run's verb
		}
		var runs []run
		for _, m := range reNameRun.FindAllStringSubmatchIndex(line, -1) {
			start, end := m[2], m[3]
			if within(lineStart+start, lineStart+end, inRange) {
				continue
			}
			name := line[start:end]
			possessive := strings.HasSuffix(name, "'s") || strings.HasSuffix(name, "’s")
			if i := possessiveWord(name); i >= 0 && !possessive {
				// "Reagan's Strategic Defense Initiative": the name ends
				// at the possessive.
				name, possessive = name[:i], true
			}
			found := authorsNamed(name, authors)
			if len(found) == 0 && strings.TrimSpace(line[:start]) == "" {
				// The line's first word opens it: "Help Clinton sought".
				if _, rest, ok := strings.Cut(name, " "); ok {
					found = authorsNamed(rest, authors)
				}
			}
			if len(found) == 0 {
				continue
			}
			next := ""
			if m[4] >= 0 {
				next = line[m[4]:m[5]]
			}
			before := lastWord(line[:start])
			runs = append(runs, run{
				authors: found,
				speaks:  possessive || pastVerb(next) || before == "by" || before == "under",
				joins:   next == "and" || next == "or",
			})
		}
		for i := len(runs) - 2; i >= 0; i-- {
			if runs[i].joins && runs[i+1].speaks && !runs[i].speaks {
				runs[i].speaks = true
			}
		}
		for _, r := range runs {
			if r.speaks {
				for _, a := range r.authors {
					named[a] = true
				}
			}
		}
	}
	out := make([]string, 0, len(named))
	for a := range named {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// within reports whether [start, end) lies inside one of the mentions.
func within(start, end int, ms []PeriodMention) bool {
	for _, m := range ms {
		if start >= m.Start && end <= m.End {
			return true
		}
	}
	return false
}

// possessiveWord returns where the first word of a run of names that
// ends in "'s" ends, before that suffix, or -1.
func possessiveWord(name string) int {
	for _, suf := range []string{"'s ", "’s "} {
		if i := strings.Index(name, suf); i >= 0 {
			return i
		}
	}
	return -1
}

// lastWord is the last word of s in lower case ("" when none).
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[len(f)-1], ",;:"))
}

// pastVerb reports whether a word after a name reads as the name's verb
// in the past: a lower-case word in "-ed" or a common irregular past.
func pastVerb(w string) bool {
	if w == "" || strings.ToLower(w) != w {
		return false
	}
	if strings.HasSuffix(w, "ed") && len(w) > 3 {
		return true
	}
	return irregularPasts[w]
}

// irregularPasts are irregular past tenses a facet writes after a
// speaker's name.
var irregularPasts = map[string]bool{
	"said": true, "saw": true, "sought": true, "gave": true, "made": true, "took": true,
	"set": true, "won": true, "began": true, "told": true, "put": true, "spoke": true,
	"wrote": true, "sent": true, "kept": true, "led": true, "brought": true, "found": true,
	"held": true, "laid": true, "meant": true, "paid": true, "stood": true, "thought": true,
	"chose": true, "drew": true, "got": true, "knew": true, "swore": true, "went": true,
	"came": true, "became": true, "struck": true, "undertook": true, "withdrew": true,
	"foresaw": true, "forbade": true, "broke": true, "spent": true, "cut": true, "left": true,
	"fought": true, "bought": true, "sold": true, "built": true, "taught": true,
}
