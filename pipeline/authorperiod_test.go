package pipeline

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// presidents are some authors of the demo corpus with the years of their
// addresses.
var presidents = map[string]Period{
	"John Adams":           {1797, 1800},
	"John Quincy Adams":    {1825, 1828},
	"Andrew Jackson":       {1829, 1836},
	"Andrew Johnson":       {1865, 1868},
	"Ulysses S Grant":      {1869, 1876},
	"Grover Cleveland":     {1885, 1896},
	"William Mc Kinley":    {1897, 1900},
	"Theodore Roosevelt":   {1901, 1908},
	"William H Taft":       {1909, 1912},
	"Franklin D Roosevelt": {1934, 1945},
	"John F Kennedy":       {1961, 1963},
	"Lyndon B Johnson":     {1964, 1969},
	"Richard Nixon":        {1970, 1974},
	"George Bush":          {1989, 1992},
	"William J Clinton":    {1993, 2000},
	"George W Bush":        {2001, 2008},
	"Barack Obama":         {2009, 2016},
}

func TestAuthorPeriods(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []PeriodMention
	}{
		{"Protecting the consumer from Kennedy to Obama", []PeriodMention{{Period{1961, 2016}, 24, 45}}},
		// Ambiguous names: the shortest span that runs forward.
		{"Crime, drugs and guns from Johnson to Clinton", []PeriodMention{{Period{1964, 2000}, 22, 45}}},
		{"Social Security from Roosevelt to George W. Bush", []PeriodMention{{Period{1934, 2008}, 16, 48}}},
		{"Reconstruction from Lincoln's heirs to Johnson", nil},
		{"Civil service reform from Grant to Cleveland", []PeriodMention{{Period{1869, 1896}, 21, 44}}},
		// All of an author's words, or all but initials, win over some.
		{"from Nixon to George Bush", []PeriodMention{{Period{1970, 1992}, 0, 25}}},
		{"from Reagan to George Bush", nil}, // no such author here
		{"between Lyndon Johnson and Nixon", []PeriodMention{{Period{1964, 1974}, 0, 32}}},
		{"from Andrew Johnson to McKinley", []PeriodMention{{Period{1865, 1900}, 0, 31}}},
		{"from Theodore Roosevelt to Taft Congress acted", []PeriodMention{{Period{1901, 1912}, 0, 31}}},
		{"from John Adams to John Quincy Adams", []PeriodMention{{Period{1797, 1828}, 0, 36}}},
		// Names that are no author's, or a range that runs backwards.
		{"The American space program from Sputnik to Artemis", nil},
		{"Trade agreements from NAFTA to the USMCA", nil},
		{"from Obama to Kennedy", nil},
		{"the road from Washington to Baltimore", nil},
		{"two spans: from Grant to Cleveland and from Kennedy to Nixon", []PeriodMention{{Period{1869, 1896}, 11, 34}, {Period{1961, 1974}, 39, 60}}},
	} {
		got := AuthorPeriods(tc.text, presidents)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("AuthorPeriods(%q) (-want +got)\n%s", tc.text, diff)
		}
		for _, m := range got {
			if t.Failed() {
				break
			}
			t.Logf("%q names %v", tc.text[m.Start:m.End], m.Period)
		}
	}
	if got := AuthorPeriods("from Kennedy to Obama", nil); got != nil {
		t.Errorf("no authors: %v, want none", got)
	}
}

func TestAuthorYearsOf(t *testing.T) {
	got := AuthorYearsOf([]map[string]string{
		{"author": "Grover Cleveland", "date": "1885-12-08"},
		{"author": "Grover Cleveland", "date": "1896"},
		{"author": "Grover Cleveland", "date": "1893"},
		{"speaker": "Benjamin Harrison", "date": "1889"},
		{"author": "Nobody Dated"},
		{"date": "1900"},
	})
	want := map[string]Period{"Grover Cleveland": {1885, 1896}, "Benjamin Harrison": {1889, 1889}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AuthorYearsOf (-want +got)\n%s", diff)
	}
}

func TestNamedPeriods(t *testing.T) {
	got := NamedPeriods("Protecting the consumer from Kennedy to Obama\nSay what the messages of 1961-2016 and the 1990s said, from Kennedy to Obama.", presidents)
	want := []Period{{1961, 2016}, {1990, 1999}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NamedPeriods (-want +got)\n%s", diff)
	}
	if got := NamedPeriods("from Kennedy to Obama, 1961-1970", nil); !slices.Equal(got, []Period{{1961, 1970}}) {
		t.Errorf("without authors: %v, want only the years", got)
	}
}
