package views

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Paths of the pages views link to. web/routes.go registers the same paths.
const (
	HomePath   = "/"
	SearchPath = "/search"
	// DocumentsPrefix precedes a document's escaped id.
	DocumentsPrefix = "/documents/"
	// NewReportPath shows the new-report form; the form posts to
	// ReportsPath.
	NewReportPath = "/reports/new"
	ReportsPath   = "/reports"
	// JobsPath lists recent report jobs.
	JobsPath = "/jobs"
	// LoginPath is the sign-in page, which posts to itself; LogoutPath
	// takes the sign-out form.
	LoginPath  = "/login"
	LogoutPath = "/logout"
)

// Query parameter names shared by the links built here and the handlers
// that read them.
const (
	ParamQuery     = "q"
	ParamPage      = "page"
	ParamDocs      = "docs"
	ParamHighlight = "hl"
	ParamSpan      = "span"
	// ParamAt names the passage (its ordinal) whose window of a long
	// document's page to show (see PassageWindowSize).
	ParamAt = "at"
	// ParamID carries a document id whose path form a browser would
	// rewrite (see DocumentURL).
	ParamID = "id"
	// ParamExisting, set to "1" on a job page, says the submitted request
	// matched a job that was already queued or running.
	ParamExisting = "existing"
)

// SearchURL links to the search page for query q. docs selects document
// results instead of passages; page is 1-based and omitted when 1.
func SearchURL(q string, docs bool, page int) string {
	v := url.Values{}
	v.Set(ParamQuery, q)
	if docs {
		v.Set(ParamDocs, "1")
	}
	if page > 1 {
		v.Set(ParamPage, strconv.Itoa(page))
	}
	return SearchPath + "?" + v.Encode()
}

// PassageWindowSize is how many passages a document page shows at once:
// a longer document is shown in windows of this many (0–199, 200–399, ...)
// with links to the windows before and after.
const PassageWindowSize = 200

// passageParams adds to v (which may be nil) the window of the passage
// when it is not in the first, so an anchored link lands on the page that
// holds the anchor.
func passageParams(v url.Values, ordinal int) url.Values {
	if ordinal < PassageWindowSize {
		return v
	}
	if v == nil {
		v = url.Values{}
	}
	v.Set(ParamAt, strconv.Itoa(ordinal))
	return v
}

// DocumentPassageURL links to a passage of a document, anchored.
func DocumentPassageURL(id string, ordinal int) string {
	return DocumentURL(id, passageParams(nil, ordinal), PassageAnchor(ordinal))
}

// PassageAnchor is the HTML id of a passage's element on the document page.
func PassageAnchor(ordinal int) string {
	return "p" + strconv.Itoa(ordinal)
}

// CiteAnchor is the HTML id of the first highlighted piece of a cited span.
const CiteAnchor = "cite"

// DocumentURL links to the page of the document with the id, adding the
// query parameters (may be nil) and, when fragment is not empty, the
// fragment.
//
// Ids may contain any characters, slashes included. Each slash-separated
// segment is escaped with url.PathEscape, so "a/b c" becomes
// "/documents/a/b%20c". Browsers resolve "." and ".." segments (escaped or
// not) before sending a request, so an id with such a segment travels in the
// id query parameter instead: "/documents/?id=..%2Fx".
func DocumentURL(id string, params url.Values, fragment string) string {
	v := url.Values{}
	for k, vals := range params {
		v[k] = vals
	}
	var b strings.Builder
	b.WriteString(DocumentsPrefix)
	if pathSafeID(id) {
		segments := strings.Split(id, "/")
		for i, s := range segments {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(url.PathEscape(s))
		}
	} else {
		v.Set(ParamID, id)
	}
	if len(v) > 0 {
		b.WriteByte('?')
		b.WriteString(v.Encode())
	}
	if fragment != "" {
		b.WriteByte('#')
		b.WriteString(url.PathEscape(fragment))
	}
	return b.String()
}

// DocumentHitURL links to the document of a search hit with the query's
// terms highlighted and the hit's passage anchored.
func DocumentHitURL(id, query string, ordinal int) string {
	var v url.Values
	if query != "" {
		v = url.Values{ParamHighlight: {query}}
	}
	return DocumentURL(id, passageParams(v, ordinal), PassageAnchor(ordinal))
}

// DocumentSpanURL links to a document with the span (byte offsets into its
// text) highlighted as a citation and scrolled into view.
func DocumentSpanURL(id string, span pipeline.Span) string {
	v := url.Values{ParamSpan: {strconv.Itoa(span.Start) + "-" + strconv.Itoa(span.End)}}
	return DocumentURL(id, v, CiteAnchor)
}

// pathSafeID reports whether the id survives a browser's path normalisation
// when written as path segments: it must be non-empty and have no "." or
// ".." segment.
func pathSafeID(id string) bool {
	if id == "" {
		return false
	}
	for _, s := range strings.Split(id, "/") {
		if s == "." || s == ".." {
			return false
		}
	}
	return true
}

// JobURL links to a report job's progress page.
func JobURL(id int64) string {
	return JobsPath + "/" + strconv.FormatInt(id, 10)
}

// ExistingJobURL links to the page of a job a submission duplicated, with
// the notice saying so.
func ExistingJobURL(id int64) string {
	return JobURL(id) + "?" + ParamExisting + "=1"
}

// JobEventsURL is the server-sent events stream of a job's progress.
func JobEventsURL(id int64) string {
	return JobURL(id) + "/events"
}

// JobCancelURL is where a job page's cancel form posts.
func JobCancelURL(id int64) string {
	return JobURL(id) + "/cancel"
}

// JobRerunURL runs a job's request again with its settings and engine.
func JobRerunURL(id int64) string {
	return JobURL(id) + "/rerun"
}

// ResubmitURL is the new-report form filled in from a job's request and
// settings; FollowUpURL the form for a follow-up request to it.
func ResubmitURL(jobID int64) string {
	return NewReportPath + "?" + ParamFrom + "=" + strconv.FormatInt(jobID, 10)
}

// FollowUpURL is the new-report form for a request that follows up a
// job's report: its background says what came before.
func FollowUpURL(jobID int64) string {
	return ResubmitURL(jobID) + "&" + ParamFollowUp + "=1"
}

// Query parameters of the new-report form.
const (
	ParamFrom     = "from"
	ParamFollowUp = "follow"
)

// ReportURL links to a report.
func ReportURL(id int64) string {
	return ReportsPath + "/" + strconv.FormatInt(id, 10)
}

// ReportNuggetsURL links to the nugget bank of a report's job.
func ReportNuggetsURL(id int64) string {
	return ReportURL(id) + "/nuggets"
}

// ReportExportJSONURL downloads a report in the TREC NeuCLIR report
// format.
func ReportExportJSONURL(id int64) string {
	return ReportURL(id) + "/export.json"
}

// ParamFormat chooses the format of a report's JSON export
// (export.Format: ragtime, rag24, rag25; empty is NeuCLIR).
const ParamFormat = "format"

// ReportExportFormatURL downloads a report in a TREC format.
func ReportExportFormatURL(id int64, format string) string {
	return ReportExportJSONURL(id) + "?" + url.Values{ParamFormat: {format}}.Encode()
}

// ReportExportMarkdownURL downloads a report as Markdown.
func ReportExportMarkdownURL(id int64) string {
	return ReportURL(id) + "/export.md"
}

// ReportPrintURL links to a report's printable page.
func ReportPrintURL(id int64) string {
	return ReportURL(id) + "/print"
}

// ReferenceAnchor is the HTML id of a report's reference n.
func ReferenceAnchor(n int) string {
	return "ref-" + strconv.Itoa(n)
}

// NuggetAnchor is the HTML id of a nugget on the nugget bank page.
func NuggetAnchor(id string) string {
	return "nugget-" + id
}

// SentenceAnchor is the HTML id of a report's sentence n (1-based) on the
// report page.
func SentenceAnchor(n int) string {
	return "s" + strconv.Itoa(n)
}

// FacetAnchor is the id of a report's n-th facet heading (1-based, in
// page order).
func FacetAnchor(n int) string {
	return "facet-" + strconv.Itoa(n)
}

// ReportSentenceURL links to sentence n (1-based) of a report.
func ReportSentenceURL(id int64, n int) string {
	return ReportURL(id) + "#" + SentenceAnchor(n)
}

// EvaluationURL links to a report's evaluation page; the page's form asks
// for a model-judge evaluation by posting to it.
func EvaluationURL(id int64) string {
	return ReportURL(id) + "/evaluation"
}

// EvaluationGoldURL is where the evaluation page uploads a gold nugget
// file.
func EvaluationGoldURL(id int64) string {
	return EvaluationURL(id) + "/gold"
}

// EvaluationCompareURL receives another system's run to judge beside the
// report.
func EvaluationCompareURL(id int64) string {
	return EvaluationURL(id) + "/compare"
}

// EvaluationResultURL links to a report's evaluation against gold set
// goldID with the offline judge. request, when not empty, names the gold
// set's request the report answers; empty means the report's own.
func EvaluationResultURL(id, goldID int64, request string) string {
	v := url.Values{ParamGold: {strconv.FormatInt(goldID, 10)}}
	if request != "" {
		v.Set(ParamRequest, request)
	}
	return EvaluationURL(id) + "?" + v.Encode()
}
