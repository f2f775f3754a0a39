package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// JobDeleter deletes jobs and their reports and keeps the audit log of
// deletions. The SQLite store implements it.
type JobDeleter interface {
	// DeleteJob deletes a finished job with its report and writes entry
	// to the audit log in the same transaction. A queued or running job
	// wraps pipeline.ErrConflict; an unknown one pipeline.ErrNotFound.
	DeleteJob(ctx context.Context, id int64, entry pipeline.AuditEntry) (pipeline.AuditEntry, error)
	// AuditLog lists the newest entries first, at most limit.
	AuditLog(ctx context.Context, limit int) ([]pipeline.AuditEntry, error)
}

// AuditListLimit is how many audit entries the audit page shows.
const AuditListLimit = 200

// Deletions serves the deletion of report jobs (with confirmation) and
// the audit log.
type Deletions struct {
	Site    views.Site
	Jobs    JobReader
	Deleter JobDeleter
	// Reports counts what goes with a job's report on the confirmation
	// page. Optional.
	Reports ReportReader
	// Authoring counts the report's versions and reviews. Optional.
	Authoring interface {
		Reviews(ctx context.Context, reportID int64) (map[string]pipeline.Review, error)
		ReportVersions(ctx context.Context, reportID int64) ([]pipeline.VersionInfo, error)
	}
}

// Confirm renders the confirmation page of the job whose id is in the
// path. A viewer who may not delete it gets 403 saying who may.
func (h *Deletions) Confirm(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.allowedJob(c)
	if err != nil {
		return err
	}
	vm := views.JobDeletePage{Site: h.Site.WithActive(views.NavReports), Job: j}
	if !j.State.Finished() {
		vm.Notice = fmt.Sprintf("Job %d is %s: cancel it first, then delete it.", j.ID, j.State)
	}
	if j.ReportID > 0 {
		if h.Reports != nil {
			if rep, err := h.Reports.Report(ctx, j.ReportID); err == nil {
				vm.Sentences = len(rep.Sentences)
			}
		}
		if h.Authoring != nil {
			if vs, err := h.Authoring.ReportVersions(ctx, j.ReportID); err == nil {
				vm.Versions = len(vs)
			}
			if rs, err := h.Authoring.Reviews(ctx, j.ReportID); err == nil {
				vm.Reviews = len(rs)
			}
		}
	}
	status := http.StatusOK
	if vm.Notice != "" {
		status = http.StatusConflict
	}
	return Render(c, status, views.JobDelete(vm))
}

// Delete deletes the job whose id is in the path with its report,
// records it in the audit log and answers 303 to the report list, which
// says so. A queued or running job is refused with 409 and the
// confirmation page saying to cancel it first; a viewer who may not
// delete the job gets 403.
func (h *Deletions) Delete(c echo.Context) error {
	ctx := c.Request().Context()
	j, err := h.allowedJob(c)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("job %d", j.ID)
	if j.ReportID > 0 {
		subject += fmt.Sprintf(", report %d", j.ReportID)
	}
	by := j.SubmittedBy
	if by == "" {
		by = "unrecorded"
	}
	entry := pipeline.AuditEntry{
		Actor: actorName(ctx), Action: pipeline.ActionDeleteReport, Subject: subject,
		Detail: fmt.Sprintf("%q (request %s), %s, %s engine, submitted by %s on %s",
			j.Request.Title, j.Request.ID, j.State, j.Engine, by, j.CreatedAt.UTC().Format("2006-01-02 15:04 MST")),
	}
	if _, err := h.Deleter.DeleteJob(ctx, j.ID, entry); err != nil {
		switch {
		case errors.Is(err, pipeline.ErrConflict):
			vm := views.JobDeletePage{Site: h.Site.WithActive(views.NavReports), Job: j,
				Notice: fmt.Sprintf("Job %d is %s: cancel it first, then delete it.", j.ID, j.State)}
			return Render(c, http.StatusConflict, views.JobDelete(vm))
		case errors.Is(err, pipeline.ErrNotFound):
			return fmt.Errorf("no job has the id %d: %w", j.ID, pipeline.ErrNotFound)
		}
		return fmt.Errorf("delete job %d: %w", j.ID, err)
	}
	return c.Redirect(http.StatusSeeOther, views.JobsPath+"?"+views.ParamDeleted+"="+fmt.Sprint(j.ID))
}

// Audit renders the audit log.
func (h *Deletions) Audit(c echo.Context) error {
	entries, err := h.Deleter.AuditLog(c.Request().Context(), AuditListLimit)
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, views.Audit(views.AuditPage{Site: h.Site, Entries: entries, Limit: AuditListLimit}))
}

// allowedJob loads the job in the path and checks that the viewer may
// delete it.
func (h *Deletions) allowedJob(c echo.Context) (pipeline.Job, error) {
	jobs := Jobs{Store: h.Jobs}
	j, err := jobs.loadJob(c.Request().Context(), c.Param("id"))
	if err != nil {
		return j, err
	}
	if !views.CanDeleteJob(views.ViewerFrom(c.Request().Context()), j) {
		who := "an administrator"
		if j.SubmittedBy != "" {
			who += " or " + j.SubmittedBy + ", who submitted it"
		}
		return j, echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("Only %s may delete job %d.", who, j.ID))
	}
	return j, nil
}

// actorName names the signed-in account acting: "local" in local mode,
// "" when nobody is signed in.
func actorName(ctx context.Context) string {
	v := views.ViewerFrom(ctx)
	if v.Local && v.Name == "" {
		return "local"
	}
	return strings.TrimSpace(v.Name)
}
