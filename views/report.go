package views

import (
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// ReportPage is the view model of a report: its sentences with numbered
// citations and provenance, and the references they cite.
type ReportPage struct {
	Site   Site
	Report pipeline.Report
	Engine EngineLabel
	// ScriptURL is report.js (the evidence pane); "" for none.
	ScriptURL string
	// JobID is the job that made the report; 0 when it is not known, and
	// the page then links to neither the job nor the nugget bank.
	JobID     int64
	Sentences []ReportSentence
	// References lists the cited passages in order of first citation;
	// Reference.Number is the citation number sentences show.
	References []Reference
	// Authoring is the report's version, status and reviews, with what
	// editing and reviewing forms need; nil when the portal offers no
	// authoring, and the page is then read-only.
	Authoring *Authoring
	// Scorecard is the report's scorecard panel; nil when the portal
	// keeps no scorecards.
	Scorecard *ScorecardPanel
}

// ReportSentence is one sentence of a report with what it stands on.
type ReportSentence struct {
	pipeline.Sentence
	// Ref is the number of the sentence's citation: one number per
	// distinct cited passage, in order of first use.
	Ref int
	// Nugget is the nugget the sentence answers; nil when the report does
	// not hold it.
	Nugget *pipeline.Nugget
	// Source is the cited document and passage.
	Source CitedSource
	// Passage is the cited passage's text split into parts, the supporting
	// span marked Cite; nil when the passage is not stored any more.
	Passage []Part
	// SpanShown is false when the cited span does not meet the passage, so
	// nothing of it is marked.
	SpanShown bool
	// Page is where the cited span lies in a paged document (a PDF or
	// Word file): "page 7"; "" for other documents.
	Page string
	// Recheck is set when the text was edited by hand after its citation
	// was chosen: the citation must be checked again.
	Recheck bool
	// Key identifies the text and citation (pipeline.SentenceKey); review
	// forms name the sentence by it.
	Key string
	// Review is the reviewer's verdict on the citation; nil when none.
	Review *pipeline.Review
	// Alternatives are the other candidates of the sentence's nugget that
	// can be swapped in.
	Alternatives []CandidateOption
}

// CitedSource is the document and passage a citation points at, as far as
// the collection still holds them.
type CitedSource struct {
	DocID string
	Title string
	// Author and Date are the document's metadata, where a sentence's
	// attribution comes from; "" when unknown.
	Author, Date string
	Ordinal      int
	// DocumentMissing is set when the document is no longer in the
	// collection; PassageMissing when the document is there but has no
	// passage with the cited ordinal (it was re-ingested).
	DocumentMissing bool
	PassageMissing  bool
}

// title is the source's name on the page: its title, or its id.
func (s CitedSource) title() string {
	if s.Title != "" {
		return s.Title
	}
	return s.DocID
}

// Reference is one entry of a report's reference list: a cited passage.
type Reference struct {
	Number int
	Source CitedSource
}

// citeDocuments lists the cited documents still in the collection, each
// once, in order of first citation: the "cite from a document" links
// (several cited passages of one address are one link).
func citeDocuments(refs []Reference) []CitedSource {
	seen := map[string]bool{}
	var out []CitedSource
	for _, r := range refs {
		if r.Source.DocumentMissing || seen[r.Source.DocID] {
			continue
		}
		seen[r.Source.DocID] = true
		out = append(out, r.Source)
	}
	return out
}

// title is the report's heading: the request's title, or its number.
func (p ReportPage) title() string {
	return reportTitle(p.Report)
}

// reportTitle names a report: its request's title, or its number.
func reportTitle(r pipeline.Report) string {
	if r.Request.Title != "" {
		return r.Request.Title
	}
	return "Report " + strconv.FormatInt(r.ID, 10)
}

// lengthText compares the report's length with its request's limit.
func (p ReportPage) lengthText() string {
	return reportLengthText(p.Report)
}

// reportLengthText compares a report's length with its request's limit:
// "1,234 of 2,000 characters".
func reportLengthText(r pipeline.Report) string {
	return formatCount(r.Length()) + " of " + formatCount(r.Request.Limit) + " " + plural(r.Request.Limit, "character", "characters")
}

// verificationClass styles the line saying what verification did for a
// report: a notice when a verified report holds sentences that stand on
// no verification or failed a check.
func verificationClass(r pipeline.Report) string {
	v := r.Verification()
	if v.Verified && (v.Unchecked > 0 || v.Failed > 0) {
		return "report-verification notice"
	}
	return "report-verification"
}

// verdictText says what a verification check found.
func verdictText(v pipeline.Verdict) string {
	switch v {
	case pipeline.VerdictYes:
		return "yes"
	case pipeline.VerdictNo:
		return "no"
	case pipeline.VerdictUnchecked:
		return "not checked"
	}
	return string(v)
}

// verdictClass styles a verdict.
func verdictClass(v pipeline.Verdict) string {
	switch v {
	case pipeline.VerdictYes:
		return "verdict verdict-yes"
	case pipeline.VerdictNo:
		return "verdict verdict-no"
	}
	return "verdict verdict-unchecked"
}

// refText is a citation marker: "[3]".
func refText(n int) string {
	return "[" + strconv.Itoa(n) + "]"
}

// passageURL links to a cited passage on its document's page.
func (s CitedSource) passageURL() string {
	return DocumentPassageURL(s.DocID, s.Ordinal)
}

// spanURL links to a sentence's cited span on its document's page.
func (s ReportSentence) spanURL() string {
	return DocumentSpanURL(s.Citation.DocID, pipeline.Span{Start: s.Citation.Start, End: s.Citation.End})
}

// previewID is the HTML id of the citation preview of sentence i
// (0-based) on the report page.
func previewID(i int) string {
	return "ref-preview-" + strconv.Itoa(i+1)
}

// previewContext is how much of the cited passage, in characters, a
// citation's preview shows on either side of the cited span.
const previewContext = 160

// previewParts is what a citation's preview shows of the cited passage:
// the cited span whole, with at most previewContext characters of the
// passage's text on either side, cut at a word and marked "…" where cut.
// Without a cited span it is the passage's start.
func previewParts(parts []Part) []Part {
	first, last := -1, -1
	for i, p := range parts {
		if p.Cite {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		var all strings.Builder
		for _, p := range parts {
			all.WriteString(p.Text)
		}
		if all.Len() == 0 {
			return nil
		}
		return []Part{{Text: excerpt(all.String(), 2*previewContext)}}
	}
	var before, after strings.Builder
	for _, p := range parts[:first] {
		before.WriteString(p.Text)
	}
	for _, p := range parts[last+1:] {
		after.WriteString(p.Text)
	}
	var out []Part
	if b := tailText(before.String(), previewContext); b != "" {
		out = append(out, Part{Text: b})
	}
	for _, p := range parts[first : last+1] {
		p.ID = ""
		out = append(out, p)
	}
	if a := headText(after.String(), previewContext); a != "" {
		out = append(out, Part{Text: a})
	}
	return out
}

// tailText is the end of s, at most n characters, cut after a space when
// one is near and marked "…" when anything was cut.
func tailText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	t := string(r[len(r)-n:])
	if i := strings.IndexAny(t, " \t\n"); i >= 0 && i < len(t)/4 {
		t = t[i+1:]
	}
	return "…" + t
}

// headText is the start of s, at most n characters, cut before a space
// when one is near and marked "…" when anything was cut.
func headText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	h := string(r[:n])
	if i := strings.LastIndexAny(h, " \t\n"); i > len(h)*3/4 {
		h = h[:i]
	}
	return h + "…"
}

// facetRun is a run of consecutive sentences under one facet heading: a
// report shows a heading wherever the facet changes from one sentence to
// the next (pipeline.Sentence.Facet). A run without a heading holds
// sentences grouped under no facet.
type facetRun struct {
	Heading string
	// ID anchors the heading: FacetAnchor(1), FacetAnchor(2) ... in page
	// order.
	ID string
	// Indexes are the positions of the run's sentences in the report.
	Indexes []int
}

// facetRuns splits n sentences, whose facets facet gives, into runs.
func facetRuns(n int, facet func(i int) string) []facetRun {
	var runs []facetRun
	headings := 0
	for i := 0; i < n; i++ {
		f := facet(i)
		if i == 0 || f != facet(i-1) {
			run := facetRun{Heading: f}
			if f != "" {
				headings++
				run.ID = FacetAnchor(headings)
			}
			runs = append(runs, run)
		}
		last := &runs[len(runs)-1]
		last.Indexes = append(last.Indexes, i)
	}
	return runs
}

// facetRuns are the report's sentences by facet.
func (p ReportPage) facetRuns() []facetRun {
	return facetRuns(len(p.Sentences), func(i int) string { return p.Sentences[i].Facet })
}

// orUnknown is s, or "unknown" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// ExportFormat is a report format offered for download.
type ExportFormat struct{ ID, Label string }

// TRECFormats are the TREC tracks' report forms the report page offers
// beside Crucible's own JSON (pipeline/export.Formats; the web tests
// download each).
var TRECFormats = []ExportFormat{
	{"ragtime", "RAGTIME 2025"},
	{"rag24", "RAG 2024"},
	{"rag25", "RAG 2025"},
}
