package pipeline_test

import (
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestPageLabel(t *testing.T) {
	// Pages begin at 0, 10 and 25.
	meta := map[string]string{pipeline.MetaPageStarts: pipeline.PageStarts([]int{10, 25})}
	for _, c := range []struct {
		start, end int
		want       string
	}{
		{0, 5, "page 1"},
		{0, 10, "page 1"},
		{9, 11, "pages 1–2"},
		{10, 20, "page 2"},
		{12, 30, "pages 2–3"},
		{25, 25, "page 3"},
		{0, 40, "pages 1–3"},
	} {
		if got := pipeline.PageLabel(meta, c.start, c.end); got != c.want {
			t.Errorf("PageLabel(%d, %d) = %q, want %q", c.start, c.end, got, c.want)
		}
	}
	if got := pipeline.PageLabel(map[string]string{pipeline.MetaPageStarts: ""}, 3, 9); got != "page 1" {
		t.Errorf("one-page document: %q", got)
	}
	for _, meta := range []map[string]string{nil, {"year": "1790"}, {pipeline.MetaPageStarts: "10,x"}, {pipeline.MetaPageStarts: "20,10"}} {
		if got := pipeline.PageLabel(meta, 0, 5); got != "" {
			t.Errorf("PageLabel over %v = %q, want none", meta, got)
		}
	}
}

// A paged document is cut into passages page by page: none crosses a
// page, so each names one page.
func TestIngesterCutsPagedDocumentsPageByPage(t *testing.T) {
	text := "one two three four five"
	doc := pipeline.Document{ID: "d", Text: text, Metadata: map[string]string{
		// Pages: "one two" · (empty) · "three four five" begins at 8.
		pipeline.MetaPageStarts: pipeline.PageStarts([]int{8, 8}),
	}}
	w, ix := &fakeWriter{}, &fakeIndex{}
	in := &pipeline.Ingester{Store: w, Index: ix, Segment: pairs}
	if err := in.Add(t.Context(), doc); err != nil {
		t.Fatal(err)
	}
	if err := in.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ix.docs[0].Passages {
		got = append(got, p.Text+" @ "+pipeline.PageLabel(doc.Metadata, p.Start, p.End))
	}
	want := []string{"one two @ page 1", "three four @ page 3", "five @ page 3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("passages = %q, want %q", got, want)
	}
	if got := pipeline.PageSpans(nil, 5); got != nil {
		t.Errorf("PageSpans of an unpaged document = %v", got)
	}
}

// pairs cuts text into runs of two words.
func pairs(text string, _ int) []pipeline.Span {
	var out []pipeline.Span
	ws := words(text, 0)
	for i := 0; i < len(ws); i += 2 {
		j := min(i+1, len(ws)-1)
		out = append(out, pipeline.Span{Start: ws[i].Start, End: ws[j].End})
	}
	return out
}
