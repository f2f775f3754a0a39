package web

import (
	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/handlers"
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
}

// registerRoutes mounts every URL the portal answers. The paths match the
// links views builds (views.HomePath, views.SearchPath,
// views.DocumentsPrefix).
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
}
