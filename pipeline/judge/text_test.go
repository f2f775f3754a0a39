package judge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"case folded", "The EMSCHER Barrier", []string{"the", "emscher", "barrier"}},
		{"punctuation and whitespace separate", "flood-barrier,\n\tcost:  (12)", []string{"flood", "barrier", "cost", "12"}},
		{"comma group separator dropped", "1,000 and 12,345,678", []string{"1000", "and", "12345678"}},
		{"no-break and thin space group separators", "1\u00a0000 2\u2009500 3\u202f000", []string{"1000", "2500", "3000"}},
		{"comma before fewer than three digits separates", "1,5 and 3,14", []string{"1", "5", "and", "3", "14"}},
		{"comma before four digits separates", "1,0000", []string{"1", "0000"}},
		{"list of years is not one number", "1803,1804", []string{"1803", "1804"}},
		{"decimal point kept", "$13.5 million.", []string{"13.5", "million"}},
		{"group separator and decimal point", "1,000.25", []string{"1000.25"}},
		{"sentence full stop after a number", "in 2021. Then", []string{"in", "2021", "then"}},
		{"accented letters and marks kept", "Zürich café", []string{"zürich", "café"}},
		{"apostrophe splits", "Dortmund's", []string{"dortmund", "s"}},
		{"nothing", " -- ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, normTokens(tt.in)); diff != "" {
				t.Errorf("normTokens(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestContainsPhrase(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		answer string
		want   bool
	}{
		{"exact", "The council approved 12 million euros.", "12 million euros", true},
		{"case folded", "THE COUNCIL APPROVED 12 MILLION EUROS", "12 million Euros", true},
		{"digit groups", "It cost $1,000,000 in all.", "1000000", true},
		{"digit groups in the answer", "It cost 1000000 dollars.", "$1,000,000", true},
		{"punctuation in the answer", "signed on April 30th 1803", "April 30th, 1803", true},
		{"token boundary: a number inside a longer one", "It cost 120 million.", "12", false},
		{"token boundary: a word inside a longer one", "The barriers held.", "barrier", false},
		{"words out of order", "euros 12 million", "12 million euros", false},
		{"possessive still matches the name", "Jefferson's message", "Jefferson", true},
		{"blank answer never matches", "anything", " .. ", false},
		{"decimal kept whole", "rates rose 1.5 points", "5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := containsPhrase(tt.text, tt.answer); got != tt.want {
				t.Errorf("containsPhrase(%q, %q) = %t, want %t", tt.text, tt.answer, got, tt.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"companies", "company"},
		{"company", "company"},
		{"adjusts", "adjust"},
		{"adjusted", "adjust"},
		{"adjusting", "adjust"},
		{"provide", "provid"},
		{"provided", "provid"},
		{"providing", "provid"},
		{"shipped", "ship"},
		{"installing", "install"},
		{"taxes", "tax"},
		{"churches", "church"},
		{"classes", "class"},
		{"status", "status"},
		{"analysis", "analysis"},
		{"quickly", "quick"},
		{"early", "early"},
		{"sing", "sing"},
		{"red", "red"},
		{"bus", "bus"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := stem(tt.in); got != tt.want {
				t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestContentTerms(t *testing.T) {
	got := contentTerms("The companies were providing 1,000 new jobs, and the company provided more jobs.")
	// "the", "were", "and", "more" are stopwords; "companies"/"company",
	// "providing"/"provided" and "jobs" meet; "1,000" is the number 1000.
	if diff := cmp.Diff([]string{"company", "provid", "1000", "new", "job"}, got.order); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1000"}, got.numbers); diff != "" {
		t.Errorf("numbers (-want +got):\n%s", diff)
	}
}

func TestShare(t *testing.T) {
	claim := contentTerms("Dodge raised the price of the Demon to 100,000 dollars")
	// Claim terms: dodge, rais, price, demon, 100000, dollar (6).
	sentence := contentTerms("The Demon now costs 100000 dollars")
	// Held by the sentence: demon, 100000, dollar → 3/6.
	if got, want := share(claim, sentence), 3.0/6.0; got != want {
		t.Errorf("share = %g, want %g", got, want)
	}
	if got := share(contentTerms("the of and"), sentence); got != 0 {
		t.Errorf("share of a text without content words = %g, want 0", got)
	}
	if diff := cmp.Diff([]string{"100000"}, missingNumbers(claim, contentTerms("Dodge raised the Demon's price"))); diff != "" {
		t.Errorf("missingNumbers (-want +got):\n%s", diff)
	}
}
