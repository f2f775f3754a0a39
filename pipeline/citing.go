package pipeline

// CitingSentence is a sentence of a report that cites a document, as the
// report's newest version holds it: what a document page lists under
// "Cited in".
type CitingSentence struct {
	ReportID int64
	// ReportTitle is the title of the report's request; "" when it has
	// none.
	ReportTitle string
	// Number is the sentence's place in the report, 1-based.
	Number int
	Text   string
	// Citation is the passage and span of the document it cites.
	Citation Citation
}

// CitingSentences is a page of the sentences that cite a document, and
// how many cite it in all.
type CitingSentences struct {
	Sentences []CitingSentence
	Total     int
}
