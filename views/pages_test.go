package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// A paged document's passages, cited span and printed evidence name their
// page; its page offsets are not listed as metadata.
func TestPagedDocumentsNameTheirPages(t *testing.T) {
	meta := map[string]string{"format": "pdf", "pages": "2", pipeline.MetaPageStarts: "10"}
	vm := DocumentPage{
		Document: pipeline.Document{ID: "a.pdf", Title: "A", Text: "page one. page two.", Metadata: meta},
		Passages: []PassageView{{Ordinal: 0, Start: 0, End: 9, Parts: []Part{{Text: "page one."}}}, {Ordinal: 1, Start: 10, End: 19, Parts: []Part{{Text: "page two."}}}},
		Span:     &pipeline.Span{Start: 10, End: 14},
	}
	var buf bytes.Buffer
	if err := Document(vm).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{`data-testid="passage-page">page 1<`, `data-testid="passage-page">page 2<`, `data-testid="span-page">page 2<`} {
		if !strings.Contains(html, want) {
			t.Errorf("document page lacks %s", want)
		}
	}
	if strings.Contains(html, "page_starts") {
		t.Error("the page offsets are listed as metadata")
	}
	if got := (QuotedSpan{Start: 10, End: 14, Page: "page 2"}).where(); got != "page 2, bytes 10–14" {
		t.Errorf("printed evidence: %q", got)
	}
	if got := (QuotedSpan{Start: 10, End: 14}).where(); got != "bytes 10–14" {
		t.Errorf("printed evidence of an unpaged document: %q", got)
	}
}
