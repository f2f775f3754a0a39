package views

import (
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// DocumentPage is the view model of a document's page: its metadata and its
// full text as passages, with query matches and a cited span marked.
type DocumentPage struct {
	Site     Site
	Document pipeline.Document
	// Passages hold the document's text in order. A document stored without
	// passages is shown as a single block (Whole).
	Passages []PassageView
	// Whole is true when Passages holds the entire text as one block rather
	// than the stored passages.
	Whole bool
	// Highlight is the query whose terms are marked, empty for none.
	Highlight string
	// Span is the cited span being highlighted, nil for none.
	Span *pipeline.Span
	// Notices explain parameters that were ignored, such as an invalid span.
	Notices []string
	// Cite, when set, offers to add a selection of the text to a report
	// as a sentence citing it.
	Cite *CiteForm
	// Window, when set, says that Passages are one window of a longer
	// document's passages (see PassageWindowSize).
	Window *PassageWindow
	// CitedIn lists the report sentences that cite the document; nil when
	// the portal has no reports to list (the section is left out).
	CitedIn *CitedIn
}

// CitedInLimit is how many citing sentences a document page lists.
const CitedInLimit = 20

// CitedIn is the "Cited in" section of a document page: sentences of the
// reports' newest versions that cite the document, those citing the
// highlighted span first.
type CitedIn struct {
	Sentences []CitingSentence
	// Total counts the citing sentences, listed or not.
	Total int
}

// CitingSentence is one sentence citing the document.
type CitingSentence struct {
	pipeline.CitingSentence
	// Current is set when the sentence cites the span the page
	// highlights (?span=), or a part of it.
	Current bool
}

// reportName is the report's title, or its number when it has none.
func (s CitingSentence) reportName() string {
	if s.ReportTitle != "" {
		return s.ReportTitle
	}
	return "Report " + strconv.FormatInt(s.ReportID, 10)
}

// url links to the sentence on its report's page.
func (s CitingSentence) url() string {
	return ReportSentenceURL(s.ReportID, s.Number)
}

// spanURL shows the cited span on this document's page.
func (s CitingSentence) spanURL() string {
	return DocumentSpanURL(s.Citation.DocID, pipeline.Span{Start: s.Citation.Start, End: s.Citation.End})
}

// citedInExcerptChars bounds a citing sentence quoted on a document page.
const citedInExcerptChars = 240

// excerpt is the start of the sentence, for the list.
func (s CitingSentence) excerpt() string {
	return excerpt(s.Text, citedInExcerptChars)
}

// summary says how many sentences cite the document and how many the
// page lists.
func (c CitedIn) summary() string {
	n := formatCount(c.Total) + " report " + plural(c.Total, "sentence cites", "sentences cite") + " this document"
	if len(c.Sentences) < c.Total {
		n += "; the first " + formatCount(len(c.Sentences)) + " are listed"
	}
	return n + "."
}

// currentCiting is the first listed sentence citing the highlighted
// span; nil when none does.
func (vm DocumentPage) currentCiting() *CitingSentence {
	if vm.CitedIn == nil {
		return nil
	}
	for i := range vm.CitedIn.Sentences {
		if vm.CitedIn.Sentences[i].Current {
			return &vm.CitedIn.Sentences[i]
		}
	}
	return nil
}

// PassageWindow is the part of a long document a page shows: passages
// From to To−1 of Total, with links to the windows before and after (empty
// at either end).
type PassageWindow struct {
	From, To, Total  int
	PrevURL, NextURL string
}

// passageCount is the number of passages the document has.
func (vm DocumentPage) passageCount() int {
	if vm.Window != nil {
		return vm.Window.Total
	}
	return len(vm.Passages)
}

// PassageView is one passage of a document split into marked parts.
type PassageView struct {
	Ordinal int
	// Start and End are the passage's byte offsets in the document text.
	Start int
	End   int
	Parts []Part
}

// Part is a run of passage text. Match marks a query-term match and Cite a
// piece of the cited span; a run may be both or neither.
type Part struct {
	Text  string
	Match bool
	Cite  bool
	// ID is set on the first piece of the cited span so links can scroll to
	// it (see CiteAnchor).
	ID string
}

// markClass is the class attribute of a marked part.
func (p Part) markClass() string {
	switch {
	case p.Cite && p.Match:
		return "cite hit"
	case p.Cite:
		return "cite"
	default:
		return ""
	}
}

// title is what the page calls the document: its title, or its id when it
// has none.
func (d DocumentPage) title() string {
	if d.Document.Title != "" {
		return d.Document.Title
	}
	return d.Document.ID
}
