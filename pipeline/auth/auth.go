// Package auth is Crucible's account model: users and their roles, the
// permissions each role grants, password hashing, session tokens, the
// login rate limiter and the Service that ties them to a Store.
//
// The permission matrix lives here and nowhere else: the web layer asks
// Can(role, permission) and never tests role names itself.
package auth

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// Role is what a user account may do on the portal.
type Role string

// The roles. Every account has exactly one.
const (
	// RoleAdmin may do everything, including managing accounts and
	// uploading corpora.
	RoleAdmin Role = "admin"
	// RoleAnalyst writes reports: starts and cancels report jobs, edits
	// report text, evaluates and reviews, but cannot approve a report,
	// manage accounts or upload corpora.
	RoleAnalyst Role = "analyst"
	// RoleReviewer checks reports: reviews citations, evaluates and
	// approves, but cannot start jobs or edit report text.
	RoleReviewer Role = "reviewer"
)

// Roles lists the roles from most to least powerful.
func Roles() []Role { return []Role{RoleAdmin, RoleAnalyst, RoleReviewer} }

// ParseRole reads a role name (case-insensitive, surrounding spaces
// ignored). An unknown name is an error wrapping pipeline.ErrInvalid that
// lists the roles.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if r.Valid() {
		return r, nil
	}
	return "", pipeline.Invalidf("unknown role %q: want admin, analyst or reviewer", s)
}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool {
	switch r {
	case RoleAdmin, RoleAnalyst, RoleReviewer:
		return true
	}
	return false
}

// plural is the role's name for a sentence about everyone holding it:
// "reviewers cannot start reports".
func (r Role) plural() string {
	if r.Valid() {
		return string(r) + "s"
	}
	return "users without a role"
}

// Permission is one kind of action the portal guards.
type Permission string

// The permissions. Every route that changes state checks one.
const (
	// PermView reads pages: search, documents, jobs, reports, nugget
	// banks, exports, evaluations.
	PermView Permission = "view"
	// PermCreateReport starts report jobs (the new-report form).
	PermCreateReport Permission = "create-report"
	// PermCancelJob cancels queued or running report jobs.
	PermCancelJob Permission = "cancel-job"
	// PermEditReport edits a report's text: sentences, order, citations.
	PermEditReport Permission = "edit-report"
	// PermReviewCitations records verdicts on citations.
	PermReviewCitations Permission = "review-citations"
	// PermApproveReport marks a report approved.
	PermApproveReport Permission = "approve-report"
	// PermUploadCorpus adds documents to the collection.
	PermUploadCorpus Permission = "upload-corpus"
	// PermManageUsers creates accounts and changes roles and passwords.
	PermManageUsers Permission = "manage-users"
	// PermEvaluate uploads gold nugget sets and evaluates reports against
	// them, including with the model judge, which spends model calls.
	PermEvaluate Permission = "evaluate"
	// PermManageRankers switches the trained nugget ranker an engine's
	// reports use (docs/ranking.md).
	PermManageRankers Permission = "manage-rankers"
	// PermDeleteReports deletes any report job with its report, and reads
	// the audit log that records deletions. An analyst may delete the jobs
	// they submitted without it (docs/accounts.md).
	PermDeleteReports Permission = "delete-reports"
	// PermViewMetrics reads the operations metrics (/metrics): request
	// routes, job and model call counts, the collection's size
	// (docs/operations.md).
	PermViewMetrics Permission = "view-metrics"
)

// Permissions lists every permission, in the order of the matrix in
// Can's documentation.
func Permissions() []Permission {
	return []Permission{PermView, PermCreateReport, PermCancelJob, PermEditReport,
		PermReviewCitations, PermApproveReport, PermUploadCorpus, PermManageUsers, PermEvaluate, PermManageRankers, PermDeleteReports,
		PermViewMetrics}
}

// action words a permission for "reviewers cannot ...".
func (p Permission) action() string {
	switch p {
	case PermView:
		return "view the portal"
	case PermCreateReport:
		return "start reports"
	case PermCancelJob:
		return "cancel report jobs"
	case PermEditReport:
		return "edit report text"
	case PermReviewCitations:
		return "review citations"
	case PermApproveReport:
		return "approve reports"
	case PermUploadCorpus:
		return "upload documents"
	case PermManageUsers:
		return "manage accounts"
	case PermEvaluate:
		return "evaluate reports"
	case PermManageRankers:
		return "switch nugget rankers"
	case PermDeleteReports:
		return "delete other people's reports"
	case PermViewMetrics:
		return "read the portal's metrics"
	}
	return "do " + string(p)
}

// grants is the permission matrix documented on Can. Analysts may not
// approve what they write, reviewers may not edit what they check, and
// only administrators change who can do what or what the collection holds
// (a corpus upload changes every later report).
var grants = map[Role]map[Permission]bool{
	RoleAdmin: {
		PermView: true, PermCreateReport: true, PermCancelJob: true, PermEditReport: true,
		PermReviewCitations: true, PermApproveReport: true, PermUploadCorpus: true,
		PermManageUsers: true, PermEvaluate: true, PermManageRankers: true, PermDeleteReports: true,
		PermViewMetrics: true,
	},
	RoleAnalyst: {
		PermView: true, PermCreateReport: true, PermCancelJob: true, PermEditReport: true,
		PermReviewCitations: true, PermEvaluate: true,
	},
	RoleReviewer: {
		PermView: true, PermReviewCitations: true, PermApproveReport: true, PermEvaluate: true,
	},
}

// Can reports whether a user with the role may act with the permission.
// The matrix (x: granted):
//
//	permission        admin  analyst  reviewer
//	view                x       x        x
//	create-report       x       x
//	cancel-job          x       x
//	edit-report         x       x
//	review-citations    x       x        x
//	approve-report      x                x
//	upload-corpus       x
//	manage-users        x
//	evaluate            x       x        x
//	manage-rankers      x
//	delete-reports      x
//	view-metrics        x
//
// An unknown role or permission is never granted anything.
func Can(r Role, p Permission) bool {
	return grants[r][p]
}

// Denial words why a role may not act with a permission, for an error
// page: "Reviewers cannot start reports."
func Denial(r Role, p Permission) string {
	s := r.plural() + " cannot " + p.action() + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

// User is an account of the portal. It never carries the password hash.
type User struct {
	ID        int64
	Name      string
	Role      Role
	CreatedAt time.Time
}

// Can reports whether the user's role grants the permission.
func (u User) Can(p Permission) bool { return Can(u.Role, p) }

// MaxNameChars bounds a user name.
const MaxNameChars = 64

// ValidateName checks a user name: 1 to MaxNameChars characters, letters,
// digits and ". _ - @", starting with a letter or a digit, so names are
// safe in logs, command lines and pages. Names are matched without regard
// to case. A bad name is an error wrapping pipeline.ErrInvalid that says
// what is wrong.
func ValidateName(name string) error {
	if name == "" {
		return pipeline.Invalidf("the user name is empty")
	}
	if n := utf8.RuneCountInString(name); n > MaxNameChars {
		return pipeline.Invalidf("the user name is %d characters long; the limit is %d", n, MaxNameChars)
	}
	for i, r := range name {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
		case i > 0 && (r == '.' || r == '_' || r == '-' || r == '@'):
		case i == 0 && (r == '.' || r == '_' || r == '-' || r == '@'):
			return pipeline.Invalidf("the user name %q must start with a letter or a digit", name)
		default:
			return pipeline.Invalidf("the user name %q has the character %s: use letters a-z, digits and . _ - @", name, quoteRune(r))
		}
	}
	return nil
}

func quoteRune(r rune) string {
	if r == ' ' {
		return "' ' (a space)"
	}
	return fmt.Sprintf("%q", r)
}
