package pipeline

import (
	"sort"
	"strconv"
	"strings"
)

// MetaPageStarts is the metadata key of a paged document (a PDF, a Word
// file with page breaks): the byte offsets into its text at which pages
// 2, 3, … begin, comma-separated (page 1 begins at 0). A passage's
// provenance names its page from them.
const MetaPageStarts = "page_starts"

// PageStarts encodes the offsets at which pages 2, 3, … begin as the
// MetaPageStarts value.
func PageStarts(starts []int) string {
	parts := make([]string, len(starts))
	for i, s := range starts {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ",")
}

// pageStarts parses the MetaPageStarts value; ok is false when the
// document has none or it is unreadable (offsets must not decrease).
func pageStarts(meta map[string]string) (starts []int, ok bool) {
	raw, ok := meta[MetaPageStarts]
	if !ok {
		return nil, false
	}
	if raw != "" {
		for _, f := range strings.Split(raw, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 || (len(starts) > 0 && n < starts[len(starts)-1]) {
				return nil, false
			}
			starts = append(starts, n)
		}
	}
	return starts, true
}

// PageSpans returns the byte ranges of a paged document's pages in a text
// of length n (pages without text are left out), or nil for a document
// without pages.
func PageSpans(meta map[string]string, n int) []Span {
	starts, ok := pageStarts(meta)
	if !ok {
		return nil
	}
	var out []Span
	from := 0
	for _, s := range append(starts, n) {
		s = min(s, n)
		if s > from {
			out = append(out, Span{Start: from, End: s})
		}
		from = max(from, s)
	}
	return out
}

// Pages returns the 1-based pages the text from start to end lies on, or
// 0, 0 when the document has no page offsets (or they are unreadable).
func Pages(meta map[string]string, start, end int) (first, last int) {
	starts, ok := pageStarts(meta)
	if !ok {
		return 0, 0
	}
	page := func(off int) int { return sort.SearchInts(starts, off+1) + 1 }
	first = page(start)
	last = first
	if end > start {
		last = page(end - 1)
	}
	return first, last
}

// PageLabel words where a span of a paged document lies: "page 7" or
// "pages 7–8"; "" for a document without pages.
func PageLabel(meta map[string]string, start, end int) string {
	first, last := Pages(meta, start, end)
	switch {
	case first == 0:
		return ""
	case first == last:
		return "page " + strconv.Itoa(first)
	}
	return "pages " + strconv.Itoa(first) + "–" + strconv.Itoa(last)
}
