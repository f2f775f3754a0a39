package pipeline_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestRequestPeriods(t *testing.T) {
	p := func(from, to int) pipeline.Period { return pipeline.Period{From: from, To: to} }
	tests := []struct {
		name string
		text string
		want []pipeline.Period
	}{
		{"none", "The Panama Canal as told to Congress.", nil},
		{"single year is no period", "The McKinley Tariff of 1890 and the Act of 1894.", nil},
		{"range", "the annual messages of 1812-1815", []pipeline.Period{p(1812, 1815)}},
		{"en dash and spaces", "Tariff debates, 1887 – 1910", []pipeline.Period{p(1887, 1910)}},
		{"two-digit end", "westward expansion, 1803-48", []pipeline.Period{p(1803, 1848)}},
		{"from to", "relief from 1929 to 1939", []pipeline.Period{p(1929, 1939)}},
		{"between and", "Reconstruction between 1865 and 1878.", []pipeline.Period{p(1865, 1878)}},
		{"decade", "The energy crisis of the 1970s", []pipeline.Period{p(1970, 1979)}},
		{"decade with apostrophe", "in the 1840's", []pipeline.Period{p(1840, 1849)}},
		{"order of mention, duplicates once", "The 1990s surpluses; Jackson, 1829-1837; again the 1990s",
			[]pipeline.Period{p(1990, 1999), p(1829, 1837)}},
		{"backwards range ignored", "from 1950 to 1940", nil},
		{"out of bounds", "from 0900 to 0950, 3000-3010", nil},
		{"no year in a longer number", "code 118125-1830", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pipeline.RequestPeriods(tt.text)); diff != "" {
				t.Errorf("RequestPeriods(%q) (-want +got)\n%s", tt.text, diff)
			}
		})
	}
}

func TestPeriodContainsTheYearAfter(t *testing.T) {
	p := pipeline.Period{From: 1941, To: 1945}
	for year, want := range map[int]bool{1940: false, 1941: true, 1945: true, 1946: true, 1947: false} {
		if got := p.Contains(year); got != want {
			t.Errorf("%+v.Contains(%d) = %v, want %v", p, year, got, want)
		}
	}
}

func TestDocumentYear(t *testing.T) {
	tests := []struct {
		date string
		want int
		ok   bool
	}{
		{"1790", 1790, true},
		{"1945-01-06", 1945, true},
		{"January 6, 1945", 1945, true},
		{"", 0, false},
		{"unknown", 0, false},
		{"0999", 0, false},
	}
	for _, tt := range tests {
		got, ok := pipeline.DocumentYear(map[string]string{"date": tt.date})
		if got != tt.want || ok != tt.ok {
			t.Errorf("DocumentYear(date %q) = %d, %v; want %d, %v", tt.date, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := pipeline.DocumentYear(nil); ok {
		t.Error("a document without metadata has a year")
	}
}

func FuzzRequestPeriods(f *testing.F) {
	for _, s := range []string{"1812-1815", "from 1929 to 1939", "the 1970s", "1803-48", "2999-99", "1000 to 1000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pipeline.RequestPeriods(s) {
			if p.From > p.To || p.From < 1000 || p.To > 2999 {
				t.Errorf("RequestPeriods(%q) gave %+v", s, p)
			}
		}
	})
}
