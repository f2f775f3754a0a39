package views

import (
	"net/url"
	"strconv"
)

// Query parameters of the compare page (CompareURL): the report in the
// path is A, at version ParamVersion (empty: its current version); B is
// report ParamWith (empty: the same report) at version ParamWithVersion
// (empty: its current version). ParamGold and ParamRequest choose gold
// nuggets to compare the two reports' metrics against.
const (
	ParamVersion     = "v"
	ParamWith        = "with"
	ParamWithVersion = "wv"
)

// CompareURL links to the compare page of a report, which first asks what
// to compare it with.
func CompareURL(id int64) string {
	return ReportURL(id) + "/compare"
}

// CompareVersionURL compares version v of a report with its current
// version (the history page's "compare with current").
func CompareVersionURL(id int64, v int) string {
	return CompareURL(id) + "?" + url.Values{ParamVersion: {strconv.Itoa(v)}}.Encode()
}

// CompareReportsURL compares report a (at version av, 0 for current) with
// report b (at version bv, 0 for current).
func CompareReportsURL(a int64, av int, b int64, bv int) string {
	v := url.Values{ParamWith: {strconv.FormatInt(b, 10)}}
	if av > 0 {
		v.Set(ParamVersion, strconv.Itoa(av))
	}
	if bv > 0 {
		v.Set(ParamWithVersion, strconv.Itoa(bv))
	}
	return CompareURL(a) + "?" + v.Encode()
}

// ComparePage is the view model of the compare page: two reports, or two
// versions of one, side by side (pipeline/compare). With Choosing set no
// second report is chosen yet, and the page offers the choices.
type ComparePage struct {
	Site Site
	// ReportID is the report in the path (side A).
	ReportID int64
	Title    string
	A, B     CompareSide
	// Choosing is set until a report or version to compare with is
	// chosen; Versions and Others are then offered.
	Choosing bool
	// Versions are the report's versions, newest first (empty without
	// authoring); Others the other reports of the same request, newest
	// first.
	Versions []CompareChoice
	Others   []CompareChoice
	// Problem says why the choice was refused.
	Problem string

	Manifest  CompareManifest
	Sentences []CompareSentence
	// Kept, Changed, Added and Removed count the sentences.
	Kept, Changed, Added, Removed int
	Citations                     []CompareCitation
	DocsOnlyA, DocsOnlyB          []string
	Nuggets                       CompareNuggets

	// GoldSets are the gold nugget sets metrics can be compared against
	// (empty when the portal keeps none); Gold the chosen one's id, 0 for
	// none; Requests its requests and Request the one chosen.
	GoldSets []GoldSetOption
	Gold     int64
	Requests []string
	Request  string
	// Metrics are the two reports' figures by the offline judge against
	// the chosen gold nuggets; MetricsNote says why there are none.
	Metrics     []CompareMetric
	Judge       string
	MetricsNote string
}

// CompareSide is one of the two reports compared.
type CompareSide struct {
	ReportID int64
	// Version is the version shown (0: the report has no versions: as
	// generated); Current is set when it is the newest.
	Version int
	Current bool
	Label   string
	URL     string
	// RequestID and RunID name the report; Sentences counts them.
	RequestID, RunID string
	Sentences        int
	// ManifestHash is the manifest's hash, "" without one.
	ManifestHash string
	EditedByHand bool
}

// CompareChoice is a report or version the page offers to compare with.
type CompareChoice struct {
	Label string
	URL   string
}

// CompareManifest compares the two run manifests.
type CompareManifest struct {
	MissingA, MissingB, Same bool
	Fields                   []CompareField
}

// CompareField is a manifest field that differs; an empty A or B is
// "absent" when the In flag is false.
type CompareField struct {
	Key      string
	A, B     string
	InA, InB bool
}

// CompareSentence is one step of the sentence alignment: Op is "same",
// "changed", "added" or "removed"; A and B are the sentence's numbers
// (0: absent).
type CompareSentence struct {
	Op              string
	A, B            int
	TextA, TextB    string
	Words           []CompareWord
	CiteA, CiteB    string
	CitationChanged bool
}

// CompareWord is a run of a changed sentence's words: Op "same",
// "removed" or "added".
type CompareWord struct {
	Op, Text string
}

// CompareCitation is an aligned sentence whose citation changed.
type CompareCitation struct {
	A, B     int
	Text     string
	From, To string
	SameText bool
}

// CompareNuggets compares the nuggets the reports answer.
type CompareNuggets struct {
	Known, ByID  bool
	Gained, Lost []ComparedNugget
	Both         int
}

// ComparedNugget is a nugget one report answers and the other does not.
type ComparedNugget struct {
	ID, Question, Answer string
}

// CompareMetric is one metric of both reports.
type CompareMetric struct {
	Name        string
	A, B, Delta string
	// Better is set when B's figure is higher, Worse when lower.
	Better, Worse bool
}

// note sums the nuggets up: "1 gained, 2 lost, 5 answered by both."
func (n CompareNuggets) note() string {
	s := strconv.Itoa(len(n.Gained)) + " gained, " + strconv.Itoa(len(n.Lost)) + " lost, " +
		strconv.Itoa(n.Both) + " answered by both"
	if n.ByID {
		s += " (matched by nugget id: the reports do not both name their nuggets' questions)"
	}
	return s + "."
}

// nuggetLine is a nugget as the page lists it.
func nuggetLine(n ComparedNugget) string {
	if n.Question == "" {
		return "nugget " + n.ID
	}
	return n.Question + " — " + n.Answer
}

// sentenceNumber is "A3", or "—" for 0.
func sentenceNumber(tag string, n int) string {
	if n == 0 {
		return "—"
	}
	return tag + strconv.Itoa(n)
}

// fieldText is a manifest value as the page shows it.
func fieldText(v string, in bool) string {
	switch {
	case !in:
		return "(absent)"
	case v == "":
		return `""`
	}
	return v
}
