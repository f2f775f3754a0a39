package pipeline

import "testing"

func TestDocumentAuthor(t *testing.T) {
	tests := []struct {
		meta   map[string]string
		want   string
		wantOK bool
	}{
		{map[string]string{"author": "Theodore Roosevelt", "date": "1903"}, "Theodore Roosevelt", true},
		{map[string]string{"speaker": "  Abraham   Lincoln "}, "Abraham Lincoln", true},
		{map[string]string{"authors": `["Ada Lovelace","Charles Babbage"]`}, "Ada Lovelace and Charles Babbage", true},
		{map[string]string{"authors": `["A","B","C"]`}, "A and others", true},
		{map[string]string{"authors": `[1, 2]`}, "", false},
		{map[string]string{"author": ""}, "", false},
		{map[string]string{"author": string(make([]byte, 81))}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		got, ok := DocumentAuthor(tt.meta)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("DocumentAuthor(%v) = %q, %v; want %q, %v", tt.meta, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestSplitAttribution(t *testing.T) {
	tests := []struct{ s, lead, body string }{
		{"In 1903, Theodore Roosevelt reported that the treaty was ratified.", "In 1903, Theodore Roosevelt reported that ", "the treaty was ratified."},
		{"In 1909, William H Taft proposed: “I recommend a tariff board.”", "In 1909, William H Taft proposed: ", "I recommend a tariff board."},
		{"In 1877, Rutherford B Hayes proposed that section 1258 be repealed.", "In 1877, Rutherford B Hayes proposed that ", "section 1258 be repealed."},
		{"Ruhr Gazette said: “We approved it.”", "Ruhr Gazette said: ", "We approved it."},
		{"According to “Barrier vote” (2021), the council approved it.", "According to “Barrier vote” (2021), ", "the council approved it."},
		{"The council approved it.", "", "The council approved it."},
		{"Critics said: the law failed.", "", "Critics said: the law failed."},
	}
	for _, tt := range tests {
		lead, body := SplitAttribution(tt.s)
		if lead != tt.lead || body != tt.body {
			t.Errorf("SplitAttribution(%q) = %q, %q; want %q, %q", tt.s, lead, body, tt.lead, tt.body)
		}
	}
}

func TestSurname(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Abraham Lincoln", "Lincoln"},
		{"William Mc Kinley", "McKinley"},
		{"Martin Van Buren", "Van Buren"},
		{"Lyndon B Johnson", "Johnson"},
		{"Martin Luther King Jr.", "King"},
		{"Ludwig van Beethoven", "van Beethoven"},
		{"Cher", ""},
		{"Lincoln, Abraham", ""},
		{"Ada Lovelace and Charles Babbage", ""},
		{"A and others", ""},
		{"the editors", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Surname(tt.name); got != tt.want {
			t.Errorf("Surname(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestShortNames(t *testing.T) {
	got := ShortNames([]string{"Abraham Lincoln", "Andrew Johnson", "Lyndon B Johnson", "William Mc Kinley",
		"George Bush", "George W Bush", "Martin Van Buren", "Cher", "Reuters staff"})
	want := map[string]string{"Abraham Lincoln": "Lincoln", "William Mc Kinley": "McKinley",
		"Martin Van Buren": "Van Buren"}
	if len(got) != len(want) {
		t.Fatalf("ShortNames = %v, want %v", got, want)
	}
	for a, s := range want {
		if got[a] != s {
			t.Errorf("ShortNames[%q] = %q, want %q", a, got[a], s)
		}
	}
	// One author is always named by surname; none is when there are none.
	if got := ShortNames([]string{"Lyndon B Johnson"}); got["Lyndon B Johnson"] != "Johnson" {
		t.Errorf("ShortNames(one author) = %v", got)
	}
	if got := ShortNames(nil); len(got) != 0 {
		t.Errorf("ShortNames(nil) = %v", got)
	}
}

func TestHeadingAlone(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"MAXIMUM AND MINIMUM CLAUSE IN TARIFF ACT.", true},
		{"GREAT BRITAIN AND CANADA.", true},
		{"EMPLOYERS' LIABILITY AND WORKMEN'S COMPENSATION COMMISSION.", true},
		{"6. SOCIAL SECURITY", true},
		{"NATO was founded in 1949.", false},
		{"THE TARIFF Congress passed the act.", false},
		{"I. A.", false}, // no word of three capitals
		{"1890.", false},
		{"", false},
	} {
		if got := HeadingAlone(tt.s); got != tt.want {
			t.Errorf("HeadingAlone(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestDropTranscriptMarks checks what a transcript adds is removed and
// what the speaker or an editor wrote stays.
func TestDropTranscriptMarks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[Laughter] But it is a matter of record.", " But it is a matter of record."},
		{"Reconversion.[1] It is a comprehensive discussion.", "Reconversion. It is a comprehensive discussion."},
		{"my desk—(laughs)—let’s raise it", "my desk—let’s raise it"},
		{"We did it. (Applause.) And more", "We did it. And more"},
		{"the people of [the States], (1) first; [$]1.1 billion", "the people of [the States], (1) first; [$]1.1 billion"},
	}
	for _, tc := range tests {
		if got := DropTranscriptMarks(tc.in); got != tc.want {
			t.Errorf("DropTranscriptMarks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
