package pipeline_test

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// stems is a stand-in analyzer: lower-cased words without a few stop
// words, a trailing "s" dropped (so "tariffs" matches "tariff").
func stems(text string) []string {
	stop := map[string]bool{"the": true, "of": true, "and": true, "a": true, "in": true, "to": true, "was": true, "what": true, "for": true, "s": true}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		if stop[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

var tariffFacets = []pipeline.Facet{
	{Heading: "The Treasury surplus behind the debate", Description: "the surplus that drove the tariff debate"},
	{Heading: "Features and dates of the tariff laws", Description: "the main features and dates of each tariff law"},
	{Heading: "Reciprocity arrangements", Description: "the reciprocity arrangements made under the tariff laws"},
	{Heading: "Taft's machinery for the 1909 act", Description: "the machinery Taft set up to administer the 1909 tariff act"},
}

// item is a sentence about the text given, citing a document of year.
func item(text string, year int) pipeline.FacetItem {
	return pipeline.FacetItem{Sentence: pipeline.Sentence{Text: text, NuggetID: text[:6]}, About: text, Year: year}
}

type grouped struct{ Facet, Text string }

func groupedOf(ss []pipeline.Sentence) []grouped {
	out := make([]grouped, len(ss))
	for i, s := range ss {
		out[i] = grouped{s.Facet, s.Text}
	}
	return out
}

func TestGroupByFacet(t *testing.T) {
	const (
		surplus  = "The Treasury surplus behind the debate"
		features = "Features and dates of the tariff laws"
		recip    = "Reciprocity arrangements"
		taft     = "Taft's machinery for the 1909 act"
		other    = pipeline.OtherFacet
	)
	tests := []struct {
		name   string
		facets []pipeline.Facet
		items  []pipeline.FacetItem
		want   []grouped
	}{
		{
			name:   "facets in the request's order, years within a facet",
			facets: tariffFacets,
			items: []pipeline.FacetItem{
				item("Reciprocity treaties were signed with Brazil.", 1891),
				item("The Dingley tariff law raised duties again.", 1897),
				item("Cleveland said the surplus in the Treasury was a danger.", 1887),
				item("The McKinley tariff law took effect in October.", 1890),
				item("Taft named a tariff board as machinery for the act.", 1909),
			},
			want: []grouped{
				{surplus, "Cleveland said the surplus in the Treasury was a danger."},
				{features, "The McKinley tariff law took effect in October."},
				{features, "The Dingley tariff law raised duties again."},
				{recip, "Reciprocity treaties were signed with Brazil."},
				{taft, "Taft named a tariff board as machinery for the act."},
			},
		},
		{
			name:   "undated after dated, ties keep their order (nugget rank)",
			facets: tariffFacets,
			items: []pipeline.FacetItem{
				item("A tariff law of unknown date lowered the duties on wool.", 0),
				item("The tariff law of 1894 cut the duties on wool.", 1894),
				item("A second tariff law of 1894 added an income tax.", 1894),
				item("The tariff law of 1890 raised duties.", 1890),
			},
			want: []grouped{
				{features, "The tariff law of 1890 raised duties."},
				{features, "The tariff law of 1894 cut the duties on wool."},
				{features, "A second tariff law of 1894 added an income tax."},
				{features, "A tariff law of unknown date lowered the duties on wool."},
			},
		},
		{
			name:   "a tie between facets goes to the earlier one",
			facets: []pipeline.Facet{{Heading: "Navy ships"}, {Heading: "Army posts"}},
			items:  []pipeline.FacetItem{item("The army and the navy grew.", 1900)},
			want:   []grouped{{"Navy ships", "The army and the navy grew."}},
		},
		{
			name:   "words every facet shares decide nothing",
			facets: []pipeline.Facet{{Heading: "Tariff revenue"}, {Heading: "Tariff reciprocity"}},
			items:  []pipeline.FacetItem{item("Tariff reciprocity with Cuba began.", 1891), item("The tariff brought revenue.", 1890)},
			want: []grouped{
				{"Tariff revenue", "The tariff brought revenue."},
				{"Tariff reciprocity", "Tariff reciprocity with Cuba began."},
			},
		},
		{
			name:   "sentences matching no facet go last, under other findings",
			facets: tariffFacets,
			items: []pipeline.FacetItem{
				item("The Navy launched three cruisers.", 1890),
				item("The surplus grew to a hundred million dollars.", 1888),
				item("Pensions for veterans rose.", 1889),
			},
			want: []grouped{
				{surplus, "The surplus grew to a hundred million dollars."},
				{other, "Pensions for veterans rose."},
				{other, "The Navy launched three cruisers."},
			},
		},
		{
			name:   "one facet holds every sentence",
			facets: []pipeline.Facet{{Heading: "The McKinley Tariff"}},
			items:  []pipeline.FacetItem{item("The Navy launched three cruisers.", 1891), item("The tariff passed.", 1890)},
			want: []grouped{
				{"The McKinley Tariff", "The tariff passed."},
				{"The McKinley Tariff", "The Navy launched three cruisers."},
			},
		},
		{
			name:   "no facets: one untitled group in the order given",
			facets: nil,
			items:  []pipeline.FacetItem{item("The tariff law of 1897 passed.", 1897), item("The tariff law of 1890 passed.", 1890)},
			want:   []grouped{{"", "The tariff law of 1897 passed."}, {"", "The tariff law of 1890 passed."}},
		},
		{
			name:   "facets without a heading do not count",
			facets: []pipeline.Facet{{Heading: " ", Description: "navy"}},
			items:  []pipeline.FacetItem{item("The Navy launched three cruisers.", 1891)},
			want:   []grouped{{"", "The Navy launched three cruisers."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pipeline.GroupByFacet(tt.facets, tt.items, stems)
			if diff := cmp.Diff(tt.want, groupedOf(got)); diff != "" {
				t.Errorf("GroupByFacet (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroupByFacetKeepsSentences(t *testing.T) {
	items := []pipeline.FacetItem{
		{Sentence: pipeline.Sentence{Text: "Reciprocity with Brazil.", NuggetID: "n1", Confidence: 0.9,
			Citation: pipeline.Citation{DocID: "d1", Ordinal: 2, Start: 5, End: 29}, Supported: pipeline.VerdictYes, Facet: "stale"}, About: "reciprocity"},
	}
	got := pipeline.GroupByFacet(tariffFacets, items, stems)
	want := items[0].Sentence
	want.Facet = "Reciprocity arrangements"
	if diff := cmp.Diff([]pipeline.Sentence{want}, got); diff != "" {
		t.Errorf("grouped sentence (-want +got):\n%s", diff)
	}
}

func TestFacetMatcherAssign(t *testing.T) {
	m := pipeline.NewFacetMatcher(tariffFacets, stems)
	for about, want := range map[string]string{
		"Reciprocity with Brazil":           "Reciprocity arrangements",
		"the board Taft set up":             "Taft's machinery for the 1909 act",
		"the Navy's cruisers":               pipeline.OtherFacet,
		"what the surplus was in the 1880s": "The Treasury surplus behind the debate",
	} {
		if got := m.Assign(about, ""); got != want {
			t.Errorf("Assign(%q) = %q, want %q", about, got, want)
		}
	}
	if got := pipeline.NewFacetMatcher(nil, stems).Assign("anything", ""); got != "" {
		t.Errorf("Assign without facets = %q, want none", got)
	}
}

func TestFacetMatcherAffinity(t *testing.T) {
	m := pipeline.NewFacetMatcher(tariffFacets, stems)
	for text, want := range map[string]float64{
		// The reciprocity facet's own words count 1 each, "law" (two
		// facets use it) 1/2, "tariff" (all four) 1/4.
		"Reciprocity with Brazil under the tariff law": 2.75,
		"the tariff":          0.25,
		"the Navy's cruisers": 0,
	} {
		if got := m.Affinity(text, ""); math.Abs(got-want) > 1e-9 {
			t.Errorf("Affinity(%q) = %v, want %v", text, got, want)
		}
	}
	if got := pipeline.NewFacetMatcher(tariffFacets[:1], stems).Affinity("a surplus and a debate", ""); got != 0 {
		t.Errorf("Affinity with one facet = %v, want 0 (a single facet is the problem statement's words)", got)
	}
	if got := pipeline.NewFacetMatcher(nil, stems).Affinity("the tariff", ""); got != 0 {
		t.Errorf("Affinity without facets = %v, want 0", got)
	}
}

// A facet that names its speaker ("Taft's machinery for the 1909 act")
// holds only that speaker's texts: another author's text on the same
// machinery goes to the facet it matches next, an unknown author's is
// held to no speaker, and the facet's words count towards the affinity
// of its speaker's texts alone.
func TestFacetMatcherSpeakers(t *testing.T) {
	authors := map[string]pipeline.Period{"William H Taft": {1909, 1912}, "Grover Cleveland": {1885, 1896}}
	m := pipeline.NewFacetMatcher(tariffFacets, stems).NameSpeakers(authors)
	const taft = "Taft's machinery for the 1909 act"
	if got := m.Speakers(3); !got["William H Taft"] || len(got) != 1 {
		t.Errorf("Speakers of %q = %v, want William H Taft", taft, got)
	}
	if got := m.Speakers(0); got != nil {
		t.Errorf("Speakers of %q = %v, want none", tariffFacets[0].Heading, got)
	}
	const about = "the machinery set up to administer the tariff law"
	for author, want := range map[string]string{
		"William H Taft":   taft,
		"":                 taft,
		"Grover Cleveland": "Features and dates of the tariff laws",
	} {
		if got := m.Assign(about, author); got != want {
			t.Errorf("Assign(%q, %q) = %q, want %q", about, author, got, want)
		}
	}
	if own, other := m.Affinity(about, "William H Taft"), m.Affinity(about, "Grover Cleveland"); own <= other {
		t.Errorf("Affinity: Taft's text %v, Cleveland's %v: the facet's words should count for Taft's alone", own, other)
	}
	// Without NameSpeakers the facet takes any author's text.
	if got := pipeline.NewFacetMatcher(tariffFacets, stems).Assign(about, "Grover Cleveland"); got != taft {
		t.Errorf("without speakers: Assign = %q, want %q", got, taft)
	}
	items := []pipeline.FacetItem{item("Taft's board for the machinery of the act", 1910), item("Cleveland's board for the machinery of the act", 1886)}
	items[0].Author, items[1].Author = "William H Taft", "Grover Cleveland"
	for _, s := range pipeline.GroupByMatcher(m, items) {
		if s.Facet == taft && s.Text != items[0].Sentence.Text {
			t.Errorf("%q grouped under %q", s.Text, taft)
		}
	}
}

func TestFacetPlace(t *testing.T) {
	m := pipeline.NewFacetMatcher(tariffFacets, stems)
	const (
		surplus  = "The Treasury surplus behind the debate"
		features = "Features and dates of the tariff laws"
		recip    = "Reciprocity arrangements"
	)
	draft := func(facets ...string) []pipeline.DraftSentence {
		var out []pipeline.DraftSentence
		for i, f := range facets {
			out = append(out, pipeline.DraftSentence{Sentence: pipeline.Sentence{Text: "s", Facet: f,
				Citation: pipeline.Citation{DocID: "d" + string(rune('0'+i))}}})
		}
		return out
	}
	// d0 1887, d1 1890, d2 1897, d3 undated, d4 1891.
	years := map[string]int{"d0": 1887, "d1": 1890, "d2": 1897, "d4": 1891}
	tests := []struct {
		name      string
		sentences []pipeline.DraftSentence
		facet     string
		year      int
		want      int
	}{
		{"between the years of its facet", draft(surplus, features, features), features, 1894, 2},
		{"before its facet's later years", draft(surplus, features, features), features, 1889, 1},
		{"dated before the facet's undated", draft(surplus, features, features, features), features, 1898, 3},
		{"undated after the facet's last", draft(surplus, features, features, features), features, 0, 4},
		{"a new facet after the earlier facets", draft(surplus, features, pipeline.OtherFacet), recip, 1891, 2},
		{"a new facet before the later facets", draft(features, recip), surplus, 1887, 0},
		{"other findings at the end", draft(surplus, features), pipeline.OtherFacet, 1900, 2},
		{"hand-placed sentences do not move it", draft("", recip), surplus, 1887, 1},
		{"no grouped sentence: at the end", draft("", ""), surplus, 1887, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.FacetPlace(tt.sentences, tt.facet, tt.year, years); got != tt.want {
				t.Errorf("FacetPlace = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDraftFacetFor(t *testing.T) {
	d := draftOf([]string{"n1", "n2", "n3"}, "n1", "n2", "n3", "n4")
	d.Sentences[0].Facet = "Surplus"
	d.Sentences[1].Facet = "Tariff laws"
	d.Sentences[2].Facet = "Reciprocity"
	for _, tc := range []struct {
		name   string
		nugget string
		at     int
		want   string
	}{
		{"the facet of the nugget's other sentences", "n3", 1, "Reciprocity"},
		{"else of the sentence it goes after", "n4", 2, "Tariff laws"},
		{"a quote without a nugget", "", 3, "Reciprocity"},
		{"first place, no nugget sentence: none", "n4", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := d.FacetFor(tc.nugget, tc.at); got != tc.want {
				t.Errorf("FacetFor(%q, %d) = %q, want %q", tc.nugget, tc.at, got, tc.want)
			}
		})
	}
}

func TestDraftEditsKeepFacets(t *testing.T) {
	d := draftOf([]string{"n1", "n2"}, "n1", "n2")
	d.Sentences[0].Facet, d.Sentences[1].Facet = "Surplus", "Tariff laws"
	edited, _, err := d.EditText(0, "A new text.")
	if err != nil || edited.Sentences[0].Facet != "Surplus" {
		t.Errorf("edited sentence facet = %q (%v), want Surplus", edited.Sentences[0].Facet, err)
	}
	moved, _, err := d.Move(0, 1)
	if err != nil || moved.Sentences[1].Facet != "Surplus" || moved.Sentences[0].Facet != "Tariff laws" {
		t.Errorf("moved facets = %q, %q (%v)", moved.Sentences[0].Facet, moved.Sentences[1].Facet, err)
	}
	swapped, _, err := d.Swap(1, pipeline.Candidate{NuggetID: "n2", Sentence: "Another.", Citation: pipeline.Citation{DocID: "x"}})
	if err != nil || swapped.Sentences[1].Facet != "Tariff laws" {
		t.Errorf("swapped sentence facet = %q (%v), want Tariff laws", swapped.Sentences[1].Facet, err)
	}
}

func TestFacetTurns(t *testing.T) {
	facets := []pipeline.Facet{{Heading: "Tariff laws"}, {Heading: "Reciprocity with Brazil"}}
	nuggets := []pipeline.Nugget{
		{ID: "a", Rank: 1}, {ID: "b", Rank: 2}, {ID: "c", Rank: 3}, {ID: "d", Rank: 4}, {ID: "e", Rank: 5},
	}
	about := map[string]string{
		"a": "the tariff laws of 1890", "b": "the tariff laws of 1894", "c": "the census",
		"d": "reciprocity with Brazil", "e": "laws on tariff rates",
	}
	words := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	var got []string
	for i, n := range pipeline.FacetTurns(facets, nuggets, about, words) {
		got = append(got, n.ID)
		if n.Rank != i+1 {
			t.Errorf("%s has rank %d at place %d", n.ID, n.Rank, i+1)
		}
	}
	// Tariff laws: a, b, e; reciprocity: d; none: c (last).
	if strings.Join(got, "") != "adbec" {
		t.Errorf("order %v, want a d b e c", got)
	}
	if nuggets[1].Rank != 2 {
		t.Error("FacetTurns changed the nuggets it was given")
	}
	one := pipeline.FacetTurns(facets[:1], nuggets, about, words)
	if one[0].ID != "a" || one[4].ID != "e" {
		t.Errorf("with one facet the order should be the ranking's: %v", one)
	}
}
