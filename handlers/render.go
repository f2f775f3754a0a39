// Package handlers holds the portal's HTTP handlers, one file per resource.
// Each handler parses the request, calls the small interfaces it declares
// and renders a view; errors it returns are mapped to status codes once, by
// the web package's error handler.
package handlers

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// Render writes comp as an HTML page with the status. It renders into a
// buffer first, so a failing component returns its error (for the error
// handler to turn into a page) instead of leaving a half-written response.
func Render(c echo.Context, status int, comp templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}
