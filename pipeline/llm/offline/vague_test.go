package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

func TestVaguePhrase(t *testing.T) {
	for _, tc := range []struct {
		phrase string
		want   bool
	}{
		// "the" and a noun that points back to what its sentence named.
		{"the stipulations of the treaty", true},
		{"the monumental work of the Committee", true},
		{"the position the United States took in the contest", true},
		{"Johnson's account of the alliance's origins and purpose", true},
		// Nouns every reader of an address can place, and names.
		{"the distribution of immigrants over the country", false},
		{"the devices to help the blind", false},
		{"the adherence to the Hague convention", false},
		{"the change of Italy's capital", false},
		{"the nation's agricultural exports", false},
		// Order or time words and heads of time.
		{"the current rate", true},
		{"the third election", true},
		{"the four fiscal years", true},
		{"the coming weeks", true},
		{"the railway loans of Taft's years", false},
		{"the Regular Army", false},
		{"the tax burden", false},
		// A relative clause cut after its participle, or its pronoun.
		{"the reforms requested", true},
		{"the troops sent and needed", true},
		{"the treaties made or recognized", true},
		{"a country torn", true},
		{"the attacks and threats against Israel they condemned", true},
		{"the new member Eisenhower welcomed", false},
		{"the toll of industrial accidents the Presidents cited", false},
		{"the surveys authorized by law", false},
		{"the disabled", false},
		// A person.
		{"President Clinton", true},
		{"the First Lady", true},
		{"Ronald Reagan", true},
		{"World War II", false},
		{"James River", false},
		{"General Motors", false},
		// A noun of a fixed phrase opening it.
		{"behalf of the United States", true},
		{"present arid", true},
		{"price support purposes", false},
		{"the low-income energy assistance program", false},
		{"", true},
	} {
		if got := vaguePhrase(tc.phrase, nil); got != tc.want {
			t.Errorf("vaguePhrase(%q) = %v, want %v", tc.phrase, got, tc.want)
		}
	}
}

func TestCountsTimesAndSpelledCounts(t *testing.T) {
	for noun, want := range map[string]bool{"times": true, "three times": true, "years": false, "troops": false, "": false} {
		if got := countsTimes(noun); got != want {
			t.Errorf("countsTimes(%q) = %v, want %v", noun, got, want)
		}
	}
	for noun, want := range map[string]bool{"forty-one projects": false, "twelve ships": false, "new ships": true} {
		if got := countable(noun); got != want {
			t.Errorf("countable(%q) = %v, want %v", noun, got, want)
		}
	}
	if q := topicQuestion(fact{kind: factQuantity, noun: "times"}, "the national forests", nil); q != "" {
		t.Errorf("topicQuestion for a count of times = %q, want none", q)
	}
	if q := topicQuestion(fact{kind: factQuantity, noun: "days"}, "the Territorial courts", nil); q != "How many days are given regarding the Territorial courts?" {
		t.Errorf("topicQuestion for a count of days = %q", q)
	}
	if q := topicQuestion(fact{kind: factName, head: "treaty"}, "the reforms requested", nil); q != "" {
		t.Errorf("topicQuestion for a vague topic = %q, want none", q)
	}
	if q := topicQuestion(fact{kind: factName, head: "treaty"}, "the boundary disputes with Great Britain", nil); q == "" {
		t.Error("topicQuestion for a topic that reads alone gave none")
	}
}

// No nugget of a summary asks about a phrase that points back or a count
// of times; a phrase the request speaks of ("the tariff") is still asked
// about.
func TestNuggetsAskNoVaguePhrase(t *testing.T) {
	summary := "We carried out the stipulations of the treaty in 1848. " +
		"We have lowered the import duties on iron three times under the tariff. " +
		"We paid the tariff of $5,000,000 to the Committee."
	got := newTestEngine().nuggets(prompts.NuggetsInput{Request: tariffRequest, Summary: summary, Max: 10})
	want := prompts.QA{Question: "What amount of money is given for the tariff?", Answer: "$5,000,000"}
	if !slices.Contains(got, want) {
		t.Errorf("nuggets %+v lack %+v", got, want)
	}
	for _, qa := range got {
		if strings.Contains(qa.Question, "the stipulations of the treaty") || strings.HasPrefix(qa.Question, "How many times") {
			t.Errorf("nugget %+v asks what a reader cannot place", qa)
		}
	}
	known := func(w string) bool { return strings.EqualFold(w, "treaty") }
	if vaguePhrase("the stipulations of the treaty", known) {
		t.Error("a treaty the request speaks of is vague")
	}
}

// A sentence whose best phrase is vague is not asked about a lone word
// in its place.
func TestVagueBestPhraseNoLoneWord(t *testing.T) {
	for _, qa := range newTestEngine().nuggets(prompts.NuggetsInput{Request: tariffRequest,
		Summary: "History records the power of the ideas that brought us here those 7 years ago.", Max: 10}) {
		if strings.Contains(qa.Question, "for History") || strings.Contains(qa.Question, "of the ideas?") {
			t.Errorf("nugget %+v asks about a lone word or a vague phrase", qa)
		}
	}
}
