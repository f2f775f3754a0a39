package pipeline_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestDemonymPlaces(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"The Korean War in the messages of Truman and Eisenhower, 1951-1954", []string{"Korea"}},
		// Named by its people, in the plural, once however often.
		{"What was said of the Cubans and the Cuban insurrection", []string{"Cuba"}},
		// A place the text also writes by its name is not added.
		{"The Mexican boundary and the war with Mexico", nil},
		// In the order the text first names them.
		{"Chinese and Japanese immigration", []string{"China", "Japan"}},
		// Adjectives that name other things as often stay out, and a
		// lower-case word is no name.
		{"American Indian tribes, African Americans and french fries", nil},
		{"", nil},
	} {
		if got := pipeline.DemonymPlaces(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("DemonymPlaces(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// The retrieval query names a place the request names only by its
// adjective, so that documents writing only the name match it.
func TestQueryNamesDemonymPlaces(t *testing.T) {
	req := pipeline.Request{Title: "The Korean War, 1951-1954", ProblemStatement: "Describe the armistice talks."}
	q := req.Query()
	if !strings.HasPrefix(q, "The Korean War, 1951-1954\nDescribe the armistice talks.") || !strings.HasSuffix(q, "\nKorea") {
		t.Errorf("Query() = %q, want the title, the statement and then Korea", q)
	}
	plain := pipeline.Request{Title: "Tariffs", ProblemStatement: "Trace the tariff acts."}
	if got := plain.Query(); got != "Tariffs\nTrace the tariff acts." {
		t.Errorf("Query() = %q, want the title and the statement only", got)
	}
}
