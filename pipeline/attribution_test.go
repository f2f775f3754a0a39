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
