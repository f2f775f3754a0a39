package prompts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLocateSupport(t *testing.T) {
	const passage = "The council voted 41 to 12 on Monday. Work on the barrier, which the council approved on 3 May 2021, " +
		"is expected to last three years and cost 12 million euros.\nShop owners remain sceptical: “It’s too late,” said one."
	tests := []struct {
		name    string
		passage string
		support string
		want    string // the span expected, "" for not found
	}{
		{"exact", passage, "is expected to last three years", "is expected to last three years"},
		{"exact with surrounding space", passage, "  Shop owners remain sceptical  ", "Shop owners remain sceptical"},
		{"wrapped in quotes and ellipses", passage, `"...which the council approved on 3 May 2021..."`, "which the council approved on 3 May 2021"},
		{"case differs", passage, "THE COUNCIL VOTED 41 TO 12", "The council voted 41 to 12"},
		{"line break in passage, space in support", passage, "12 million euros. Shop owners", "12 million euros.\nShop owners"},
		{"extra spaces in support", passage, "cost   12\tmillion  euros", "cost 12 million euros"},
		{"straight quotes for curly ones", passage, `"It's too late," said one.`, "“It’s too late,” said one."},
		{"a word dropped", passage, "Work on the barrier, which the council approved on 3 May 2021, is expected to last years and cost 12 million euros.",
			"Work on the barrier, which the council approved on 3 May 2021, is expected to last three years and cost 12 million euros"},
		{"a word changed", passage, "Work on the barrier, that the council approved on 3 May 2021, is expected to last three years",
			"Work on the barrier, which the council approved on 3 May 2021, is expected to last three years"},
		{"punctuation differs", passage, "The council voted 41-to-12 on Monday!", "The council voted 41 to 12 on Monday"},
		{"words added by the model, longest run", passage,
			"The council voted 41 to 12 on Monday, according to local reports from the Ruhr region",
			"The council voted 41 to 12 on Monday"},
		{"two short pieces joined are not found", passage,
			"The council voted 41 to 12 on Monday and shop owners remain sceptical about what the council approved on 3 May 2021 for the town", ""},
		{"paraphrase is not found", passage, "Building the flood wall will take three years and twelve million euros.", ""},
		{"words in another order within the window", passage, "three years last to expected is", "is expected to last three years"},
		{"absent", passage, "The mayor resigned in protest.", ""},
		{"blank support", passage, "   ", ""},
		{"empty passage", "", "anything", ""},
		{"unicode exact", "Der Rat stimmte zu. Die Baukosten betragen 12 Mio. €, sagte Müller.", "betragen 12 Mio. €", "betragen 12 Mio. €"},
		{"unicode case folding", "Die Straße in İzmir ist ÜBERFLUTET.", "die straße in izmir ist überflutet", "Die Straße in İzmir ist ÜBERFLUTET"},
		{"chinese characters are words", "市议会周一以41票对12票通过了防洪屏障的建设。", "通过了防洪屏障", "通过了防洪屏障"},
		{"chinese with one character changed", "市议会周一以41票对12票通过了防洪屏障的建设。", "以41票对12票通过了防洪墙障的建设", "以41票对12票通过了防洪屏障的建设"},
		{"soft hyphen in passage", "The flood bar\u00adrier was approved.", "flood barrier was approved", "flood bar\u00adrier was approved"},
		{"invalid bytes in passage", "ab\xffcd The council voted.", "the council voted", "The council voted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, ok := LocateSupport(tt.passage, tt.support)
			if tt.want == "" {
				if ok {
					t.Errorf("LocateSupport found %q, want not found", tt.passage[start:end])
				}
				return
			}
			if !ok {
				t.Fatalf("LocateSupport(%q) not found, want %q", tt.support, tt.want)
			}
			if start < 0 || end > len(tt.passage) || start > end {
				t.Fatalf("span [%d, %d) outside the passage of %d bytes", start, end, len(tt.passage))
			}
			if got := tt.passage[start:end]; got != tt.want {
				t.Errorf("LocateSupport(%q) = %q, want %q", tt.support, got, tt.want)
			}
		})
	}
}

func TestLocateSupportThresholds(t *testing.T) {
	passage := "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
	tests := []struct {
		name    string
		support string
		want    bool
	}{
		// 10 support words: the window needs 8 of them.
		{"8 of 10 words", "alpha bravo charlie delta echo foxtrot golf hotel xray yankee", true},
		{"7 of 10 words, run of 7 covers half", "alpha bravo charlie delta echo foxtrot golf xray yankee zulu", true},
		{"7 of 10 words scattered", "alpha xray charlie delta yankee foxtrot golf zulu india juliet", false},
		{"run of 4 is below the minimum run", "alpha bravo charlie delta xray yankee zulu kilo", false},
		{"3 words need all 3", "bravo charlie xray", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, ok := LocateSupport(passage, tt.support)
			if ok != tt.want {
				t.Errorf("LocateSupport(%q) found = %t, want %t", tt.support, ok, tt.want)
			}
		})
	}
}

func TestLocateSupportLargeInputs(t *testing.T) {
	// The longest-run step is skipped beyond its work bound; the call must
	// stay correct (and quick) on large texts.
	passage := strings.Repeat("lorem ipsum dolor sit amet ", 5000) + "the needle sentence is here"
	support := strings.Repeat("consectetur adipiscing elit ", 400) + "the needle sentence is here"
	if _, _, ok := LocateSupport(passage, support); ok {
		t.Errorf("found a support whose words are mostly absent")
	}
	start, end, ok := LocateSupport(passage, "The needle sentence is HERE")
	if !ok || passage[start:end] != "the needle sentence is here" {
		t.Errorf("LocateSupport = %d, %d, %t; want the needle", start, end, ok)
	}
}

func TestSplitWords(t *testing.T) {
	got := splitWords("Don't stop—Café 12,5 日本 x\xffy")
	var texts []string
	for _, w := range got {
		texts = append(texts, w.text)
		if !utf8.ValidString(w.text) {
			t.Errorf("word %q is not valid UTF-8", w.text)
		}
	}
	want := "don t stop café 12 5 日 本 x y"
	if strings.Join(texts, " ") != want {
		t.Errorf("splitWords = %q, want %q", strings.Join(texts, " "), want)
	}
}
