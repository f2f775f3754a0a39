package views

import (
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
)

// AuditPath is the administrators' audit log page.
const AuditPath = "/admin/audit"

// JobDeleteURL is a job's deletion: GET asks for confirmation, POST
// deletes.
func JobDeleteURL(id int64) string {
	return JobURL(id) + "/delete"
}

// ParamDeleted names, on the report list, the job just deleted.
const ParamDeleted = "deleted"

// CanDeleteJob reports whether the viewer may delete the job: an
// administrator (auth.PermDeleteReports) any job, an analyst the jobs
// they submitted. Queued and running jobs must be cancelled first, which
// the deletion itself refuses.
func CanDeleteJob(v Viewer, j pipeline.Job) bool {
	if v.Can(auth.PermDeleteReports) {
		return true
	}
	return v.Can(auth.PermCreateReport) && j.SubmittedBy != "" && j.SubmittedBy == v.Name
}

// JobDeletePage asks to confirm a job's deletion.
type JobDeletePage struct {
	Site Site
	Job  pipeline.Job
	// Versions, Reviews count what goes with the report.
	Versions, Reviews int
	// Sentences counts the report's sentences.
	Sentences int
	// Notice says why the deletion cannot be done now (an unfinished job).
	Notice string
}

// AuditPage lists the audit log, newest first.
type AuditPage struct {
	Site    Site
	Entries []pipeline.AuditEntry
	Limit   int
}
