package views

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A citation's preview keeps the cited span whole and at most
// previewContext characters of the passage on either side, cut at a
// word.
func TestPreviewParts(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 characters
	tests := []struct {
		name  string
		parts []Part
		want  []Part
	}{
		{"short passage kept whole",
			[]Part{{Text: "Before. "}, {Text: "The span.", Cite: true, ID: CiteAnchor}, {Text: " After."}},
			[]Part{{Text: "Before. "}, {Text: "The span.", Cite: true}, {Text: " After."}}},
		{"long sides cut at a word",
			[]Part{{Text: long + "close before. "}, {Text: "The span.", Cite: true}, {Text: " close after " + long}},
			[]Part{{Text: "…" + strings.Repeat("word ", 29) + "close before. "}, {Text: "The span.", Cite: true},
				{Text: " close after " + strings.TrimSpace(strings.Repeat("word ", 29)) + "…"}}},
		{"span at the start",
			[]Part{{Text: "The span.", Cite: true}, {Text: " After."}},
			[]Part{{Text: "The span.", Cite: true}, {Text: " After."}}},
		{"no span: the passage's start",
			[]Part{{Text: long + long}},
			[]Part{{Text: strings.TrimSpace(strings.Repeat("word ", 64)) + "…"}}},
		{"nothing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, previewParts(tt.parts)); diff != "" {
				t.Errorf("previewParts (-want +got)\n%s", diff)
			}
		})
	}
}
