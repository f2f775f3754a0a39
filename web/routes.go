package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/handlers"
	"github.com/crucible-portal/crucible/views"
)

// staticPrefix is where the embedded assets are served.
const staticPrefix = "/static/"

// routeHandlers are the handlers registerRoutes mounts.
type routeHandlers struct {
	home      *handlers.Home
	search    *handlers.Search
	documents *handlers.Documents
	health    *handlers.Health
	static    echo.HandlerFunc
	// reports and jobs are nil when the report pages are not served.
	reports *handlers.Reports
	jobs    *handlers.Jobs
	// evaluations is nil when reports have no evaluation pages.
	evaluations *handlers.Evaluations
}

// goldUploadRoute receives gold nugget files. Its handler reads the body
// with its own limit (Config.MaxGoldBytes), larger than the general one,
// and says on the page when a file is too large.
const goldUploadRoute = views.ReportsPath + "/:id/evaluation/gold"

// hasOwnBodyLimit tells the body-limit middleware which routes bound their
// bodies themselves.
func hasOwnBodyLimit(c echo.Context) bool {
	return c.Path() == goldUploadRoute
}

// registerRoutes mounts every URL the portal answers. The paths match the
// links views builds (views.HomePath, views.SearchPath,
// views.DocumentsPrefix, views.NewReportPath, views.JobURL,
// views.ReportExportJSONURL, views.EvaluationURL...). Every route
// that changes state is a POST.
func registerRoutes(e *echo.Echo, h routeHandlers) {
	e.GET("/", h.home.Show)
	e.GET("/search", h.search.Show)
	// Document ids may contain slashes: the handler reads the whole escaped
	// rest of the path, and "/documents/?id=..." for ids a browser would
	// rewrite.
	e.GET("/documents/*", h.documents.Show)
	e.GET("/healthz", h.health.Check)
	e.HEAD("/healthz", h.health.Check)
	e.GET(staticPrefix+"*", h.static)
	e.HEAD(staticPrefix+"*", h.static)

	if h.reports != nil && h.jobs != nil {
		// "/reports/new" is a static route, so it wins over "/reports/:id".
		e.GET(views.NewReportPath, h.reports.New)
		e.POST(views.ReportsPath, h.reports.Create)
		// The report list is the job list: every report belongs to a job.
		e.GET(views.ReportsPath, func(c echo.Context) error {
			return c.Redirect(http.StatusFound, views.JobsPath)
		})
		e.GET(views.ReportsPath+"/:id", h.reports.Show)
		e.GET(views.ReportsPath+"/:id/nuggets", h.reports.Nuggets)
		e.GET(views.ReportsPath+"/:id/export.json", h.reports.ExportJSON)
		e.GET(views.ReportsPath+"/:id/export.md", h.reports.ExportMarkdown)
		e.GET(views.ReportsPath+"/:id/print", h.reports.Print)
		e.GET(views.JobsPath, h.jobs.List)
		e.GET(views.JobsPath+"/:id", h.jobs.Show)
		e.POST(views.JobsPath+"/:id/cancel", h.jobs.Cancel)
		e.GET(views.JobsPath+"/:id/events", h.jobs.Events)
	}
	if h.evaluations != nil {
		e.GET(views.ReportsPath+"/:id/evaluation", h.evaluations.Show)
		e.POST(views.ReportsPath+"/:id/evaluation", h.evaluations.Evaluate)
		e.POST(goldUploadRoute, h.evaluations.Upload)
	}
}
