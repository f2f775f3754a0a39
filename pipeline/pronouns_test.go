package pipeline

import "testing"

// TestDanglingPronoun: a phrase's pronoun with nothing before it to stand
// for is named; one with a name, a pair's noun or a relative clause's
// noun before it is not. The phrases are facet headings the offline
// engine wrote for the evaluation sets' requests.
func TestDanglingPronoun(t *testing.T) {
	for phrase, want := range map[string]string{
		"Amounts he asked for and the assumptions":     "he",
		"Treaty made with it":                          "it",
		"Fall of its ruler":                            "its",
		"Measures they took or asked Congress to pass": "they",
		"Calls to reduce or remove them":               "them",
		"Ending after 1894 and their revival":          "their",
		"What it cost":                                 "it",
		"It's time and what it cost":                   "it", // a contraction owns nothing
		"Kinds of tax he opposed or favored":           "he",
		"Plans to keep its trust fund solvent":         "its",

		"Industry Hoover cited when he asked":                        "",
		"Kennedy's view of the alliance and his proposals":           "",
		"Commercial treaties and their renewal":                      "",
		"Bank's conduct as its charter ran out":                      "",
		"States that changed their pharmacy laws":                    "",
		"Campaign against those who escaped their taxes":             "",
		"First treaty of its kind concluded by Japan":                "",
		"Panama Canal treaties as Carter presented them":             "",
		"Consideration Portugal offered for postponing its payments": "",
		"Homestead law and its first results":                        "",
		"Tariff rates and the revenue":                               "",
		"":                                                           "",
	} {
		if got := DanglingPronoun(phrase); got != want {
			t.Errorf("DanglingPronoun(%q) = %q, want %q", phrase, got, want)
		}
	}
}
