package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpeakersNamed(t *testing.T) {
	authors := map[string]Period{
		"Ronald Reagan":       {1982, 1988},
		"Jimmy Carter":        {1978, 1981},
		"Dwight D Eisenhower": {1953, 1961},
		"James Madison":       {1809, 1816},
		"George Washington":   {1790, 1796},
		"James Monroe":        {1817, 1824},
		"Herbert Hoover":      {1929, 1932},
	}
	for k, v := range presidents {
		authors[k] = v
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		// Facet headings of the demo sets' reports (offline engine).
		{"Reagan's aim in enforcing child support", []string{"Ronald Reagan"}},
		{"Help Clinton sought for family farmers", []string{"William J Clinton"}},
		{"Squeeze on farmers' costs Carter described in 1978", []string{"Jimmy Carter"}},
		{"Hostile Indians reported by Madison", []string{"James Madison"}},
		{"Agency and the law created under Eisenhower", []string{"Dwight D Eisenhower"}},
		{"New federal bodies Eisenhower and Lyndon Johnson proposed", []string{"Dwight D Eisenhower", "Lyndon B Johnson"}},
		{"Reagan's Strategic Defense Initiative", []string{"Ronald Reagan"}},
		// A heading and its description, each a line.
		{"Reasons\nThe reasons Obama gave for the freeze", []string{"Barack Obama"}},
		// A name that fits two authors names both.
		{"Roosevelt's warning", []string{"Franklin D Roosevelt", "Theodore Roosevelt"}},
		// No speaker: a period, a place, a thing, a name as the topic,
		// a word capitalised for opening the heading.
		{"Cuba from Eisenhower to Obama", nil},
		{"Conferences held at Washington", nil},
		{"The Monroe Doctrine and its uses", nil},
		{"Grant of land to the railroads", nil},
		{"Tributes to Washington", nil},
		{"The Hoover Dam", nil},
		{"Reasons given for continuing it", nil},
	} {
		got := SpeakersNamed(tc.text, authors)
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SpeakersNamed(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
	if got := SpeakersNamed("Reagan's aim", nil); got != nil {
		t.Errorf("without authors: %v, want none", got)
	}
}
