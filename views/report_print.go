package views

import (
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// ReportPrintPage is the view model of a report's printable page: the
// request, the text with numbered citations and an evidence appendix that
// quotes every cited span.
type ReportPrintPage struct {
	Site   Site
	Report pipeline.Report
	Engine EngineLabel
	// Sentences are the report's sentences in order with their citation
	// numbers, numbered as on the report page.
	Sentences []PrintSentence
	// Evidence lists the cited passages in order of first citation, each
	// with the spans its sentences cite.
	Evidence []Evidence
}

// PrintSentence is one sentence of a printed report.
type PrintSentence struct {
	Text string
	// Ref is the number of the sentence's citation.
	Ref int
	// Facet is the heading the sentence stands under; "" for none.
	Facet string
}

// facetRuns are the printed sentences by facet.
func (p ReportPrintPage) facetRuns() []facetRun {
	return facetRuns(len(p.Sentences), func(i int) string { return p.Sentences[i].Facet })
}

// Evidence is one entry of a printed report's appendix: a cited passage
// and the spans of it the report's sentences cite.
type Evidence struct {
	Reference
	// Spans are the distinct cited spans, in order of first citation;
	// empty when the document is no longer in the collection.
	Spans []QuotedSpan
}

// QuotedSpan is a cited span and its text in the document.
type QuotedSpan struct {
	// Start and End are the cited byte offsets into the document's text.
	Start, End int
	// Text is the document's text between the offsets.
	Text string
	// Outside is set when the offsets do not meet the document's text (it
	// has changed since the report was made); Text is then empty.
	Outside bool
	// Page is where the span lies in a paged document: "page 7"; "" for
	// other documents.
	Page string
}

// title is the printable page's heading: the report's title.
func (p ReportPrintPage) title() string {
	return reportTitle(p.Report)
}

// spanBytes describes a span's offsets: "bytes 21–39".
func (s QuotedSpan) spanBytes() string {
	return "bytes " + strconv.Itoa(s.Start) + "–" + strconv.Itoa(s.End)
}

// where describes where a span lies: "page 7, bytes 21–39" in a paged
// document, else its bytes.
func (s QuotedSpan) where() string {
	if s.Page != "" {
		return s.Page + ", " + s.spanBytes()
	}
	return s.spanBytes()
}
