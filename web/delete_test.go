package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

// An analyst deletes a job they submitted: the job page links to a
// confirmation page, the deletion goes back to the list, which says so,
// and the audit log, which administrators read, records it.
func TestDeleteOwnJob(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b := newBrowser(s)
	b.mustLogin(t, analystUser)
	page := parseHTML(t, b.get("/jobs/9"))
	link := byTestID(page, "job-delete")
	if link.AttrOr("href", "") != "/jobs/9/delete" {
		t.Fatalf("the analyst's failed job offers no delete link")
	}
	rec := b.get("/jobs/9/delete")
	wantStatus(t, rec, http.StatusOK)
	confirm := parseHTML(t, rec)
	if what := textOf(confirm, "delete-what"); !strings.Contains(what, "job 9") {
		t.Errorf("the confirmation says %q", what)
	}
	if s.jobs.deletions() != 0 {
		t.Fatal("opening the confirmation page deleted the job")
	}
	token := b.csrf(t, "/jobs/9/delete")
	rec = b.post("/jobs/9/delete", url.Values{"csrf_token": {token}})
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/jobs?deleted=9" {
		t.Errorf("redirected to %q", loc)
	}
	list := parseHTML(t, b.get("/jobs?deleted=9"))
	if !strings.Contains(textOf(list, "jobs-deleted"), "Job 9") {
		t.Errorf("the list does not say the job was deleted")
	}
	wantStatus(t, b.get("/jobs/9"), http.StatusNotFound)
	// Only administrators read the audit log.
	wantStatus(t, b.get("/admin/audit"), http.StatusForbidden)
	admin := newBrowser(s)
	admin.mustLogin(t, adminUser)
	audit := parseHTML(t, admin.get("/admin/audit"))
	if got := textOf(audit, "audit-actor"); got != "alan" {
		t.Errorf("audit actor %q, want alan", got)
	}
	if got := textOf(audit, "audit-detail"); !strings.Contains(got, "Wind power subsidies") || !strings.Contains(got, "submitted by alan") {
		t.Errorf("audit detail %q", got)
	}
}

func TestDeleteRefused(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	other := sampleJob(10, pipeline.JobDone)
	other.SubmittedBy = "someone"
	s.jobs.put(other)

	// An analyst may not delete another's job, and is told who may.
	b := newBrowser(s)
	b.mustLogin(t, analystUser)
	if byTestID(parseHTML(t, b.get("/jobs/10")), "job-delete").Length() != 0 {
		t.Error("another's job offers the analyst a delete link")
	}
	rec := b.get("/jobs/10/delete")
	wantStatus(t, rec, http.StatusForbidden)
	if msg := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(msg, "someone, who submitted it") {
		t.Errorf("403 says %q", msg)
	}
	token := b.csrf(t, "/")
	wantStatus(t, b.post("/jobs/10/delete", url.Values{"csrf_token": {token}}), http.StatusForbidden)

	// A running job is not deleted, even by an administrator.
	admin := newBrowser(s)
	admin.mustLogin(t, adminUser)
	rec = admin.get("/jobs/5/delete")
	wantStatus(t, rec, http.StatusConflict)
	if got := textOf(parseHTML(t, rec), "delete-notice"); !strings.Contains(got, "cancel it first") {
		t.Errorf("running job: %q", got)
	}
	token = admin.csrf(t, "/")
	wantStatus(t, admin.post("/jobs/5/delete", url.Values{"csrf_token": {token}}), http.StatusConflict)
	if s.jobs.deletions() != 0 {
		t.Fatalf("%d refused deletions happened", s.jobs.deletions())
	}
	// The administrator deletes another's finished job.
	wantStatus(t, admin.post("/jobs/10/delete", url.Values{"csrf_token": {token}}), http.StatusSeeOther)
	if s.jobs.deletions() != 1 {
		t.Error("the administrator's deletion did not happen")
	}
	// Reviewers delete nothing and see no link.
	r := newBrowser(s)
	r.mustLogin(t, reviewerUser)
	if byTestID(parseHTML(t, r.get("/jobs/9")), "job-delete").Length() != 0 {
		t.Error("a reviewer is offered a delete link")
	}
}
