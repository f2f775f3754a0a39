package pipeline

import (
	"sort"
	"strings"
)

// Facets: a report reads as one when its sentences stand under the things
// the request's problem statement asks for, in the order it asks for them
// (DESIGN §5, step 7). The facets are read from the request (by a model,
// or from its own words by the offline engine); assembly selects the
// sentences first, within the length limit, and grouping only orders and
// labels them. Headings do not count towards the limit.

// Facet is one of the things a request asks for.
type Facet struct {
	// Heading is the facet's short heading, at most MaxFacetHeadingWords
	// words.
	Heading string `json:"heading"`
	// Description says in a line what belongs under the facet; with the
	// heading, its words are what sentences are matched against.
	Description string `json:"description,omitempty"`
}

// Bounds of a request's facets.
const (
	// MaxFacets is the most facets a report is grouped under.
	MaxFacets = 8
	// MaxFacetHeadingWords bounds a facet's heading.
	MaxFacetHeadingWords = 8
)

// OtherFacet is the heading of the last group: the sentences that match
// none of the request's facets. It says plainly what they are without
// claiming a topic for them.
const OtherFacet = "Other findings"

// FacetItem is a sentence to group, with what it is matched by.
type FacetItem struct {
	Sentence Sentence
	// About is the text matched against the facets: the question and
	// answer of the sentence's nugget, the sentence and the text it
	// cites.
	About string
	// Year is the year of the cited document; 0 when it is undated.
	Year int
	// Author is the cited document's author (DocumentAuthor); "" when
	// it names none.
	Author string
}

// FacetMatcher assigns text to the best-matching of a request's facets by
// term overlap. A term counts 1/n towards a facet when n of the facets
// use it, so words every facet shares (the request's subject) decide
// nothing and a facet's own words decide.
type FacetMatcher struct {
	facets []Facet
	terms  []map[string]bool
	weight map[string]float64
	// analyze is the index's analyzer (stemmed content terms), so a
	// facet's "tariffs" matches a sentence's "tariff".
	analyze func(string) []string
	// speakers holds, per facet, the authors it names as speakers
	// (SpeakersNamed); nil for a facet that names none, or before
	// NameSpeakers.
	speakers []map[string]bool
}

// NewFacetMatcher prepares the facets for matching with terms, the
// index's analyzer. Facets without a heading are left out.
func NewFacetMatcher(facets []Facet, terms func(string) []string) *FacetMatcher {
	m := &FacetMatcher{weight: map[string]float64{}, analyze: terms}
	df := map[string]int{}
	for _, f := range facets {
		if strings.TrimSpace(f.Heading) == "" {
			continue
		}
		set := map[string]bool{}
		for _, t := range terms(f.Heading + "\n" + f.Description) {
			set[t] = true
		}
		for t := range set {
			df[t]++
		}
		m.facets = append(m.facets, f)
		m.terms = append(m.terms, set)
	}
	for t, n := range df {
		m.weight[t] = 1 / float64(n)
	}
	return m
}

// NameSpeakers reads the speakers each facet names (SpeakersNamed, from
// its heading and description) among authors, the collection's, and
// returns m. A text of another author's document then never belongs to
// such a facet ("Reagan's aim in enforcing child support" holds what
// Reagan said, not what Clinton said of child support), while a text
// whose author is unknown ("") may.
func (m *FacetMatcher) NameSpeakers(authors map[string]Period) *FacetMatcher {
	m.speakers = make([]map[string]bool, len(m.facets))
	for i, f := range m.facets {
		for _, a := range SpeakersNamed(f.Heading+"\n"+f.Description, authors) {
			if m.speakers[i] == nil {
				m.speakers[i] = map[string]bool{}
			}
			m.speakers[i][a] = true
		}
	}
	return m
}

// Speakers returns the authors facet i names as speakers (nil: none, or
// NameSpeakers was not called).
func (m *FacetMatcher) Speakers(i int) map[string]bool {
	if i < 0 || i >= len(m.speakers) {
		return nil
	}
	return m.speakers[i]
}

// allows reports whether a text of the given author may belong to facet
// i: the facet names no speaker, the author is unknown, or the facet
// names that author.
func (m *FacetMatcher) allows(i int, author string) bool {
	sp := m.Speakers(i)
	return sp == nil || author == "" || sp[author]
}

// Len is the number of facets matched against.
func (m *FacetMatcher) Len() int { return len(m.facets) }

// Empty reports whether there are no facets to group under.
func (m *FacetMatcher) Empty() bool { return len(m.facets) == 0 }

// index returns the position of the facet text by author ("" when
// unknown) belongs to: of the facets that allow the author, the one whose
// terms it shares with the most weight, the earlier on a tie;
// len(facets) (the OtherFacet group) when it shares none. With a single
// facet, everything belongs to it: a request that asks for one thing
// has nothing else to put aside.
func (m *FacetMatcher) index(about, author string) int {
	if len(m.facets) == 1 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range m.analyze(about) {
		have[t] = true
	}
	best, bestScore := len(m.facets), 0.0
	for i, set := range m.terms {
		if !m.allows(i, author) {
			continue
		}
		score := 0.0
		for t := range set {
			if have[t] {
				score += m.weight[t]
			}
		}
		if score > bestScore+1e-9 {
			best, bestScore = i, score
		}
	}
	return best
}

// Affinity is how much text by author ("" when unknown) shares of the
// wording of the facet it shares most with, of the facets that allow the
// author (see NameSpeakers): the summed weights of that facet's terms it
// holds (a term one facet alone uses counts 1, one that n facets use
// 1/n). With fewer than two facets it is 0: a request that asks for one
// thing has no facet's own words, only its problem statement's.
func (m *FacetMatcher) Affinity(text, author string) float64 {
	if len(m.facets) < 2 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range m.analyze(text) {
		have[t] = true
	}
	best := 0.0
	for i, set := range m.terms {
		if !m.allows(i, author) {
			continue
		}
		score := 0.0
		for t := range set {
			if have[t] {
				score += m.weight[t]
			}
		}
		best = max(best, score)
	}
	return best
}

// Assign returns the heading of the facet about, a text by author (""
// when unknown), belongs to, OtherFacet when it matches none, or "" when
// there are no facets.
func (m *FacetMatcher) Assign(about, author string) string {
	if m.Empty() {
		return ""
	}
	return m.heading(m.index(about, author))
}

func (m *FacetMatcher) heading(i int) string {
	if i >= len(m.facets) {
		return OtherFacet
	}
	return m.facets[i].Heading
}

// order is the place of a heading among the groups: the facets in the
// request's order, OtherFacet last; -1 for a heading that is neither.
func (m *FacetMatcher) order(heading string) int {
	for i, f := range m.facets {
		if f.Heading == heading {
			return i
		}
	}
	if heading == OtherFacet {
		return len(m.facets)
	}
	return -1
}

// GroupByFacet groups assembled sentences under the request's facets:
// each sentence goes to the facet it matches best (FacetMatcher), the
// groups follow the facets' order with OtherFacet last, and within a
// group sentences follow their documents' years, undated ones after the
// dated, ties in the order given (nugget rank). Facets no sentence
// matches are left out. Each sentence's Facet is set to its group's
// heading. Without facets the sentences keep their order and have no
// facet: the report is one untitled group. Grouping never adds or drops a
// sentence, so what fits the length limit is decided before it.
func GroupByFacet(facets []Facet, items []FacetItem, terms func(string) []string) []Sentence {
	return GroupByMatcher(NewFacetMatcher(facets, terms), items)
}

// GroupByMatcher is GroupByFacet with the facets prepared (and their
// speakers named, NameSpeakers): a sentence goes to the facet it matches
// best among those that allow its author (FacetItem.Author).
func GroupByMatcher(m *FacetMatcher, items []FacetItem) []Sentence {
	out := make([]Sentence, len(items))
	if m.Empty() {
		for i, it := range items {
			out[i] = it.Sentence
			out[i].Facet = ""
		}
		return out
	}
	type placed struct {
		group, year, at int
	}
	keys := make([]placed, len(items))
	for i, it := range items {
		keys[i] = placed{group: m.index(it.About, it.Author), year: it.Year, at: i}
	}
	sort.SliceStable(keys, func(a, b int) bool {
		x, y := keys[a], keys[b]
		if x.group != y.group {
			return x.group < y.group
		}
		return yearBefore(x.year, y.year)
	})
	for i, k := range keys {
		out[i] = items[k.at].Sentence
		out[i].Facet = m.heading(k.group)
	}
	return out
}

// yearBefore orders years within a facet: dated before undated (0),
// earlier before later.
func yearBefore(a, b int) bool {
	switch {
	case a == 0:
		return false
	case b == 0:
		return true
	}
	return a < b
}

// FacetPlace is where a new sentence of the facet heading, citing a
// document of the given year (0: undated), goes among sentences already
// grouped under m's facets: after the last sentence of its facet dated
// no later than it (an undated one after the facet's last sentence),
// else before the facet's first sentence; a facet with no sentence yet
// starts after the last sentence of an earlier facet, else before the
// first sentence of a later one, else at the end. years maps the cited
// documents to their years (missing: undated). Sentences under no known
// facet (placed by hand) do not move the place.
func (m *FacetMatcher) FacetPlace(sentences []DraftSentence, heading string, year int, years map[string]int) int {
	want := m.order(heading)
	first, after := -1, -1
	for j, s := range sentences {
		if s.Facet != heading {
			continue
		}
		if first < 0 {
			first = j
		}
		if !yearBefore(year, years[s.Citation.DocID]) {
			after = j + 1
		}
	}
	switch {
	case after >= 0:
		return after
	case first >= 0:
		return first
	}
	at := -1
	for j, s := range sentences {
		o := m.order(s.Facet)
		if o < 0 {
			continue
		}
		if o < want {
			at = j + 1
		} else if at < 0 {
			return j
		}
	}
	if at < 0 {
		return len(sentences)
	}
	return at
}

// FacetTurns orders nuggets for assembly so that the report covers the
// things the request asks for before it says more of any one: each nugget
// goes to the facet its text (about, by nugget id: its question, answer
// and cited text) matches best; the facets take turns, in the request's
// order, each giving its best-ranked nugget not yet taken; nuggets that
// match no facet come after all the others, by rank. The result is a copy
// with Rank renumbered in the new order (Assemble takes nuggets by Rank);
// the nuggets' own ranks are not changed. With fewer than two facets the
// order is the ranking's.
func FacetTurns(facets []Facet, nuggets []Nugget, about map[string]string, terms func(string) []string) []Nugget {
	return TurnsByMatcher(NewFacetMatcher(facets, terms), nuggets, about, nil)
}

// TurnsByMatcher is FacetTurns with the facets prepared (and their
// speakers named, NameSpeakers) and, by nugget id, the author of the
// text each nugget is matched by (none: unknown).
func TurnsByMatcher(m *FacetMatcher, nuggets []Nugget, about, author map[string]string) []Nugget {
	ranked := append([]Nugget(nil), nuggets...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Rank < ranked[j].Rank })
	if len(m.facets) < 2 {
		return ranked
	}
	groups := make([][]Nugget, len(m.facets)+1) // the last: no facet
	for _, n := range ranked {
		i := m.index(about[n.ID], author[n.ID])
		groups[i] = append(groups[i], n)
	}
	out := make([]Nugget, 0, len(ranked))
	for turn := 0; ; turn++ {
		took := false
		for _, g := range groups[:len(m.facets)] {
			if turn < len(g) {
				out = append(out, g[turn])
				took = true
			}
		}
		if !took {
			break
		}
	}
	out = append(out, groups[len(m.facets)]...)
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
