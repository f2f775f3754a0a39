package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/handlers"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/views"
)

// staticPrefix is where the embedded assets are served, and healthPath
// the health check.
const (
	staticPrefix = "/static/"
	healthPath   = "/healthz"
)

// routeHandlers are the handlers registerRoutes mounts.
type routeHandlers struct {
	home      *handlers.Home
	search    *handlers.Search
	documents *handlers.Documents
	health    *handlers.Health
	static    echo.HandlerFunc
	login     *handlers.Login
	// loginPage is the sign-in page's route middleware: it issues the
	// cookie the sign-in form's CSRF token is bound to.
	loginPage echo.MiddlewareFunc
	// reports and jobs are nil when the report pages are not served.
	reports *handlers.Reports
	jobs    *handlers.Jobs
	// retrieval is nil when report pages are not served.
	retrieval *handlers.Retrieval
	// deletions is nil when the job store cannot delete.
	deletions *handlers.Deletions
	// evaluations is nil when reports have no evaluation pages.
	evaluations *handlers.Evaluations
	// uploads is nil when the corpus upload pages are not served.
	uploads *handlers.Uploads
	// rankers is nil when the nugget rankers page is not served.
	rankers *handlers.Rankers
	// metrics serves the operations metrics; nil when there are none.
	metrics echo.HandlerFunc
}

// goldUploadRoute receives gold nugget files. Its handler reads the body
// with its own limit (Config.MaxGoldBytes), larger than the general one,
// and says on the page when a file is too large.
const goldUploadRoute = views.ReportsPath + "/:id/evaluation/gold"

// compareRoute receives another system's run to judge beside a report;
// like goldUploadRoute it bounds its body itself.
const compareRoute = views.ReportsPath + "/:id/evaluation/compare"

// uploadRoute receives corpus uploads; its handler bounds the body with
// Config.MaxUploadBytes.
const uploadRoute = views.UploadPath

// hasOwnBodyLimit tells the body-limit middleware which routes bound their
// bodies themselves.
func hasOwnBodyLimit(c echo.Context) bool {
	return c.Path() == goldUploadRoute || c.Path() == compareRoute || c.Path() == uploadRoute && c.Request().Method == http.MethodPost
}

// registerRoutes mounts every URL the portal answers. The paths match the
// links views builds (views.HomePath, views.SearchPath,
// views.DocumentsPrefix, views.NewReportPath, views.JobURL,
// views.ReportExportJSONURL, views.EvaluationURL...). Every route that
// changes state is a POST.
//
// Access: the global middleware (access.requireLogin) sends visitors who
// have not signed in to the sign-in page, except on the public routes
// (publicRoutes), and checks the CSRF token of every POST
// (access.checkCSRF). Each route below also names the permission it needs
// (requirePerm); the state-changing ones are:
//
//	POST /reports                        auth.PermCreateReport
//	POST /reports/estimate               auth.PermCreateReport (a dry run: no job, no model call)
//	POST /jobs/:id/cancel                auth.PermCancelJob
//	POST /jobs/:id/rerun                 auth.PermCreateReport
//	POST /jobs/:id/resume                auth.PermCreateReport (a job stopped at a cap)
//	POST /jobs/:id/delete                auth.PermCreateReport (and the author, or auth.PermDeleteReports)
//	POST /reports/:id/evaluation         auth.PermEvaluate (the model judge)
//	POST /reports/:id/scorecard          auth.PermEvaluate (computes the report's scorecard)
//	POST /reports/:id/evaluation/gold    auth.PermEvaluate
//	POST /reports/:id/evaluation/compare auth.PermEvaluate
//	POST /admin/upload                   auth.PermUploadCorpus
//	POST /admin/uploads/:id/cancel       auth.PermUploadCorpus
//	POST /admin/rankers/:id/use|stop     auth.PermManageRankers
//	POST /login, POST /logout            anyone (CSRF-checked)
//
// and, when reports can be edited (docs/authoring.md):
//
//	POST /reports/:id/sentences/:n/text|delete|move|swap|verify  auth.PermEditReport
//	POST /reports/:id/sentences, /reports/:id/sentences/quote    auth.PermEditReport
//	POST /reports/:id/sentences/:n/review                        auth.PermReviewCitations
//	POST /reports/:id/versions/:v/restore                        auth.PermEditReport
//	POST /reports/:id/submit, /reports/:id/reopen                auth.PermEditReport
//	POST /reports/:id/approve                                    auth.PermApproveReport
//	POST /reports/:id/nuggets/add|edit|remove|pin|move|regenerate auth.PermEditReport
func registerRoutes(e *echo.Echo, h routeHandlers) {
	view := requirePerm(auth.PermView)
	e.GET(views.LoginPath, h.login.Show, h.loginPage)
	e.POST(views.LoginPath, h.login.Submit)
	e.POST(views.LogoutPath, h.login.Logout)

	e.GET("/", h.home.Show, view)
	e.GET("/search", h.search.Show, view)
	// Document ids may contain slashes: the handler reads the whole escaped
	// rest of the path, and "/documents/?id=..." for ids a browser would
	// rewrite.
	e.GET("/documents/*", h.documents.Show, view)
	e.GET(healthPath, h.health.Check)
	e.HEAD(healthPath, h.health.Check)
	e.GET(staticPrefix+"*", h.static)
	e.HEAD(staticPrefix+"*", h.static)
	if h.metrics != nil {
		// Administrators only: the separate listener of --metrics-addr
		// serves them to a scraper without sign-in.
		e.GET(MetricsPath, h.metrics, requirePerm(auth.PermViewMetrics))
	}

	if h.reports != nil && h.jobs != nil {
		// "/reports/new" is a static route, so it wins over "/reports/:id".
		e.GET(views.NewReportPath, h.reports.New, requirePerm(auth.PermCreateReport))
		e.POST(views.ReportsPath, h.reports.Create, requirePerm(auth.PermCreateReport))
		e.POST(views.ReportEstimatePath, h.reports.Estimate, requirePerm(auth.PermCreateReport))
		// The report list is the job list: every report belongs to a job.
		e.GET(views.ReportsPath, func(c echo.Context) error {
			return c.Redirect(http.StatusFound, views.JobsPath)
		}, view)
		e.GET(views.ReportsPath+"/:id", h.reports.Show, view)
		e.GET(views.ReportsPath+"/:id/nuggets", h.reports.Nuggets, view)
		if h.retrieval != nil {
			e.GET(views.ReportsPath+"/:id/retrieval", h.retrieval.Show, view)
		}
		e.GET(views.ReportsPath+"/:id/export.json", h.reports.ExportJSON, view)
		e.GET(views.ReportsPath+"/:id/export.md", h.reports.ExportMarkdown, view)
		e.GET(views.ReportsPath+"/:id/print", h.reports.Print, view)
		e.GET(views.ReportsPath+"/:id/download.zip", h.reports.DownloadAll, view)
		// Whoever can view reports can compare two (issue 16 #2).
		e.GET(views.ReportsPath+"/:id/compare", h.reports.Compare, view)
		if h.reports.Scorecards != nil {
			e.POST(views.ReportsPath+"/:id/scorecard", h.reports.Score, requirePerm(auth.PermEvaluate))
		}
		e.GET(views.JobsPath, h.jobs.List, view)
		e.GET(views.JobsPath+"/:id", h.jobs.Show, view)
		e.POST(views.JobsPath+"/:id/cancel", h.jobs.Cancel, requirePerm(auth.PermCancelJob))
		e.POST(views.JobsPath+"/:id/rerun", h.jobs.Rerun, requirePerm(auth.PermCreateReport))
		e.POST(views.JobsPath+"/:id/resume", h.jobs.Resume, requirePerm(auth.PermCreateReport))
		if h.deletions != nil {
			// Analysts delete their own jobs; the handler checks whose.
			e.GET(views.JobsPath+"/:id/delete", h.deletions.Confirm, requirePerm(auth.PermCreateReport))
			e.POST(views.JobsPath+"/:id/delete", h.deletions.Delete, requirePerm(auth.PermCreateReport))
			e.GET(views.AuditPath, h.deletions.Audit, requirePerm(auth.PermDeleteReports))
		}
		e.GET(views.JobsPath+"/:id/events", h.jobs.Events, view)
	}
	if h.reports != nil && h.reports.Authoring != nil {
		edit := requirePerm(auth.PermEditReport)
		r := h.reports
		report := views.ReportsPath + "/:id"
		sentence := report + "/sentences/:n/"
		e.POST(sentence+views.SentenceText, r.EditSentence, edit)
		e.POST(sentence+views.SentenceDelete, r.DeleteSentence, edit)
		e.POST(sentence+views.SentenceMove, r.MoveSentence, edit)
		e.POST(sentence+views.SentenceSwap, r.SwapSentence, edit)
		e.POST(sentence+views.SentenceVerify, r.VerifySentence, edit)
		e.POST(sentence+views.SentenceReview, r.ReviewSentence, requirePerm(auth.PermReviewCitations))
		e.POST(report+"/sentences", r.AddSentence, edit)
		e.POST(report+"/sentences/quote", r.QuoteSentence, edit)
		e.GET(report+"/history", r.History, view)
		e.GET(report+"/versions/:v", r.ShowVersion, view)
		e.POST(report+"/versions/:v/restore", r.RestoreVersion, edit)
		e.POST(report+"/"+views.StatusSubmit, r.SubmitReport, edit)
		e.POST(report+"/"+views.StatusApprove, r.ApproveReport, requirePerm(auth.PermApproveReport))
		e.POST(report+"/"+views.StatusReopen, r.ReopenReport, edit)
		nuggets := report + "/nuggets/"
		e.POST(nuggets+views.NuggetAdd, r.AddNugget, edit)
		e.POST(nuggets+views.NuggetEdit, r.EditNugget, edit)
		e.POST(nuggets+views.NuggetRemove, r.RemoveNugget, edit)
		e.POST(nuggets+views.NuggetPin, r.PinNugget, edit)
		e.POST(nuggets+views.NuggetMove, r.MoveNugget, edit)
		e.POST(nuggets+views.NuggetRegenerate, r.RegenerateNuggets, edit)
	}
	if h.evaluations != nil {
		e.GET(views.ReportsPath+"/:id/evaluation", h.evaluations.Show, view)
		e.POST(views.ReportsPath+"/:id/evaluation", h.evaluations.Evaluate, requirePerm(auth.PermEvaluate))
		e.POST(goldUploadRoute, h.evaluations.Upload, requirePerm(auth.PermEvaluate))
		e.POST(compareRoute, h.evaluations.Compare, requirePerm(auth.PermEvaluate))
	}
	if h.rankers != nil {
		manage := requirePerm(auth.PermManageRankers)
		e.GET(views.RankersPath, h.rankers.List, manage)
		e.POST(views.RankersPath+"/:id/use", h.rankers.Use, manage)
		e.POST(views.RankersPath+"/:id/stop", h.rankers.Stop, manage)
	}
	if h.uploads != nil {
		upload := requirePerm(auth.PermUploadCorpus)
		e.GET(views.UploadPath, h.uploads.Show, upload)
		e.POST(uploadRoute, h.uploads.Create, upload)
		e.GET(views.UploadsPath, func(c echo.Context) error {
			return c.Redirect(http.StatusFound, views.UploadPath)
		}, upload)
		e.GET(views.UploadsPath+"/:id", h.uploads.Status, upload)
		e.POST(views.UploadsPath+"/:id/cancel", h.uploads.Cancel, upload)
	}
}
