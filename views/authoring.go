package views

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

// Form fields of the authoring and review forms (docs/authoring.md).
const (
	// FieldBaseVersion carries the version a form was made from; a post
	// against an older version than the newest is refused with 409.
	FieldBaseVersion = "version"
	// FieldSentenceText is an edited sentence's text.
	FieldSentenceText = "text"
	// FieldDirection is "up" or "down" (DirectionUp, DirectionDown).
	FieldDirection = "direction"
	// FieldCandidate is an index into the report job's candidates.
	FieldCandidate = "candidate"
	// FieldReviewVerdict and FieldReviewComment are a reviewer's verdict
	// (pipeline.ReviewVerdict) and comment; FieldSentenceKey names the
	// sentence reviewed (pipeline.SentenceKey).
	FieldReviewVerdict  = "verdict"
	FieldReviewComment  = "comment"
	FieldSentenceKey    = "key"
	FieldQuoteDocID     = "doc_id"
	FieldQuoteStart     = "start"
	FieldQuoteEnd       = "end"
	FieldNuggetID       = "nugget"
	FieldNuggetQuestion = "question"
	FieldNuggetAnswer   = "answer"
	// FieldPinned is "1" to pin a nugget, "0" to unpin it.
	FieldPinned = "pinned"
	// FieldConfirmOpen, set to "1", confirms approving a report although
	// citations are unreviewed, partly or not supported; FieldOpen... carry
	// the counts the page showed next to the confirmation.
	FieldConfirmOpen     = "confirm_unreviewed"
	FieldOpenUnreviewed  = "open_unreviewed"
	FieldOpenPartly      = "open_partly"
	FieldOpenUnsupported = "open_unsupported"
	// ParamCiteReport, on a document page, names the report a selection
	// of the document can be added to.
	ParamCiteReport = "report"
	// ParamReviewerVerdicts, on the evaluation page, set to "1", counts
	// reviewers' verdicts instead of the judge's where a citation has one.
	ParamReviewerVerdicts = "reviewed"
)

// Directions of the move forms.
const (
	DirectionUp   = "up"
	DirectionDown = "down"
)

// Sentence actions: the last path segment of the forms each sentence
// posts (SentenceActionURL).
const (
	SentenceText   = "text"
	SentenceDelete = "delete"
	SentenceMove   = "move"
	SentenceSwap   = "swap"
	SentenceVerify = "verify"
	SentenceReview = "review"
)

// Status actions (ReportStatusURL).
const (
	StatusSubmit  = "submit"
	StatusApprove = "approve"
	StatusReopen  = "reopen"
)

// Nugget bank actions (NuggetActionURL).
const (
	NuggetAdd        = "add"
	NuggetEdit       = "edit"
	NuggetRemove     = "remove"
	NuggetPin        = "pin"
	NuggetMove       = "move"
	NuggetRegenerate = "regenerate"
)

// SentenceActionURL is where the form of action on sentence n (1-based)
// of a report posts.
func SentenceActionURL(id int64, n int, action string) string {
	return ReportURL(id) + "/sentences/" + strconv.Itoa(n) + "/" + action
}

// ReportAddSentenceURL is where a candidate is posted to be added to the
// report.
func ReportAddSentenceURL(id int64) string { return ReportURL(id) + "/sentences" }

// ReportQuoteURL is where a document page posts a selection to add to the
// report as a sentence.
func ReportQuoteURL(id int64) string { return ReportURL(id) + "/sentences/quote" }

// ReportStatusURL is where a status form (StatusSubmit, StatusApprove,
// StatusReopen) posts.
func ReportStatusURL(id int64, action string) string { return ReportURL(id) + "/" + action }

// ReportHistoryURL lists a report's versions.
func ReportHistoryURL(id int64) string { return ReportURL(id) + "/history" }

// ReportVersionURL shows version n of a report.
func ReportVersionURL(id int64, n int) string {
	return ReportURL(id) + "/versions/" + strconv.Itoa(n)
}

// ReportRestoreURL is where the form restoring version n posts.
func ReportRestoreURL(id int64, n int) string { return ReportVersionURL(id, n) + "/restore" }

// NuggetActionURL is where a nugget bank form posts.
func NuggetActionURL(id int64, action string) string { return ReportNuggetsURL(id) + "/" + action }

// ReportDownloadURL downloads a report's exports and nugget bank as one
// zip file.
func ReportDownloadURL(id int64) string { return ReportURL(id) + "/download.zip" }

// DocumentCiteURL links to a document's page with its "cite this
// selection" form for the report.
func DocumentCiteURL(docID string, reportID int64) string {
	return DocumentURL(docID, url.Values{ParamCiteReport: {strconv.FormatInt(reportID, 10)}}, "")
}

// Authoring is a report page's editing and review state. The page offers
// the forms the viewer's role allows.
type Authoring struct {
	Version pipeline.VersionInfo
	Status  pipeline.StatusRecord
	Reviews pipeline.ReviewSummary
	// Addable are the job's candidates the report does not use, by bank
	// nugget in rank order.
	Addable []CandidateGroup
	// Changed counts the bank's nuggets added or edited since the
	// sentences were made, Orphans the sentences of nuggets removed from
	// the bank: regeneration would redo them.
	Changed int
	Orphans int
	// Problem says why the last action was refused; ProblemSentence is the
	// sentence (1-based) whose form it came from, 0 for none, and Typed
	// the text typed in its field ProblemField.
	Problem         string
	ProblemSentence int
	ProblemField    string
	Typed           string
}

// CandidateOption is an extraction candidate an author may use, with its
// index in the job's candidates.
type CandidateOption struct {
	Index int
	pipeline.Candidate
	// Title is the cited document's title, when known.
	Title string
}

// CandidateGroup is a bank nugget's unused candidates.
type CandidateGroup struct {
	Nugget     pipeline.Nugget
	Candidates []CandidateOption
}

// canEdit reports whether the viewer may edit the report now: allowed to,
// and the report is not approved.
func (a *Authoring) canEdit(v Viewer) bool {
	return a != nil && v.Can(auth.PermEditReport) && a.Status.Status != pipeline.StatusApproved
}

// typedFor is what the text box field of sentence n's form (1-based)
// shows: what was typed in it when the form was refused, else def.
func (a *Authoring) typedFor(n int, field, def string) string {
	if a.ProblemSentence == n && a.ProblemField == field && a.Typed != "" {
		return a.Typed
	}
	return def
}

// canReview reports whether the viewer may record verdicts.
func (a *Authoring) canReview(v Viewer) bool {
	return a != nil && v.Can(auth.PermReviewCitations)
}

// versionValue is the base version the page's forms carry.
func (a *Authoring) versionValue() string { return strconv.Itoa(a.Version.Number) }

// supportText is the reviewed citation-support figure with three decimals.
func (a *Authoring) supportText() string {
	return strconv.FormatFloat(a.Reviews.Support(), 'f', 3, 64)
}

// reviewCountsText says how many citations were reviewed and how.
func (a *Authoring) reviewCountsText() string {
	r := a.Reviews
	return formatCount(r.Reviewed) + " of " + countText(r.Sentences, "citation", "citations") + " reviewed: " +
		formatCount(r.Supported) + " supported, " + formatCount(r.Partly) + " partly, " +
		formatCount(r.Unsupported) + " not supported"
}

// open is the current version's citations no reviewer has found
// supported, which approving must confirm.
func (a *Authoring) open() pipeline.OpenCitations { return a.Reviews.Open() }

// confirmText labels the approval's confirmation checkbox: "Approve
// although 4 citations are unreviewed and 1 is not supported".
func (a *Authoring) confirmText() string {
	o := a.open()
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{o.Unreviewed, "unreviewed"}, {o.Partly, "partly supported"}, {o.Unsupported, "not supported"}} {
		if p.n == 0 {
			continue
		}
		verb := plural(p.n, "is", "are")
		if len(parts) == 0 {
			parts = append(parts, countText(p.n, "citation", "citations")+" "+verb+" "+p.what)
		} else {
			parts = append(parts, formatCount(p.n)+" "+verb+" "+p.what)
		}
	}
	text := "Approve although "
	for i, p := range parts {
		switch {
		case i == 0:
		case i == len(parts)-1:
			text += " and "
		default:
			text += ", "
		}
		text += p
	}
	return text
}

// statusClass styles the status badge.
func statusClass(s pipeline.ReportStatus) string {
	return "badge status-" + strings.ReplaceAll(string(s), "_", "-")
}

// reviewClass styles a reviewer's verdict.
func reviewClass(v pipeline.ReviewVerdict) string {
	switch v {
	case pipeline.ReviewSupported:
		return "verdict verdict-yes"
	case pipeline.ReviewUnsupported:
		return "verdict verdict-no"
	}
	return "verdict verdict-partly"
}

// reviewVerdicts are the choices of the review form in order.
var reviewVerdicts = []pipeline.ReviewVerdict{pipeline.ReviewSupported, pipeline.ReviewPartly, pipeline.ReviewUnsupported}

// HistoryPage lists a report's versions and status changes.
type HistoryPage struct {
	Site     Site
	Report   pipeline.Report
	Versions []pipeline.VersionInfo
	Status   pipeline.StatusRecord
	// StatusChanges are the report's status changes, newest first.
	StatusChanges []pipeline.StatusRecord
}

// current is the newest version's number.
func (p HistoryPage) current() int {
	if len(p.Versions) == 0 {
		return 0
	}
	return p.Versions[0].Number
}

// canRestore reports whether the viewer may restore an old version.
func (p HistoryPage) canRestore(v Viewer) bool {
	return v.Can(auth.PermEditReport) && p.Status.Status != pipeline.StatusApproved
}

// VersionPage shows one version of a report, read-only.
type VersionPage struct {
	Site    Site
	Report  pipeline.Report
	Version pipeline.Version
	// Current is the newest version's number.
	Current int
	Status  pipeline.StatusRecord
}

func (p VersionPage) canRestore(v Viewer) bool {
	return p.Version.Number != p.Current && v.Can(auth.PermEditReport) && p.Status.Status != pipeline.StatusApproved
}

// BankAuthoring is a nugget bank page's editing state.
type BankAuthoring struct {
	Version pipeline.VersionInfo
	Status  pipeline.StatusRecord
	// Changed lists the bank's changed nuggets, Orphans counts sentences
	// of nuggets no longer in the bank (see pipeline.Draft.Stale).
	Changed []string
	Orphans int
	// Problem says why the last action was refused; Question and Answer
	// keep what was typed in the add form.
	Problem  string
	Question string
	Answer   string
}

func (a *BankAuthoring) canEdit(v Viewer) bool {
	return a != nil && v.Can(auth.PermEditReport) && a.Status.Status != pipeline.StatusApproved
}

func (a *BankAuthoring) versionValue() string { return strconv.Itoa(a.Version.Number) }

// regenerateText labels the regenerate button.
func (a *BankAuthoring) regenerateText() string {
	var parts []string
	if n := len(a.Changed); n > 0 {
		parts = append(parts, "sentences for "+countText(n, "changed nugget", "changed nuggets"))
	}
	if a.Orphans > 0 {
		parts = append(parts, "drop "+countText(a.Orphans, "sentence", "sentences")+" of removed nuggets")
	}
	return "Regenerate: " + strings.Join(parts, "; ")
}

// CiteForm is the "cite this selection" form of a document page, shown
// when the page is opened for a report (ParamCiteReport) by a viewer who
// may edit it.
type CiteForm struct {
	ReportID int64
	Title    string
	Version  int
	// Nuggets are the report's bank, for the optional nugget the new
	// sentence answers.
	Nuggets []pipeline.Nugget
	// ScriptURL is cite.js, which turns a selection into byte offsets.
	ScriptURL string
}

// title names the report the form adds to.
func (f CiteForm) title() string {
	if f.Title != "" {
		return f.Title
	}
	return "report " + strconv.FormatInt(f.ReportID, 10)
}

// sentenceNumbers writes 1-based sentence numbers as links: "2, 5".
func sentenceNumbers(n []int) string {
	parts := make([]string, len(n))
	for i, k := range n {
		parts[i] = strconv.Itoa(k)
	}
	return strings.Join(parts, ", ")
}
