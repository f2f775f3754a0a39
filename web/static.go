package web

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/static"
)

// Cache lifetimes of static assets. A request carrying the asset's current
// content hash (?v=, as assetURL builds) may be cached for good; any other
// request must revalidate, cheaply, through the ETag.
const (
	cacheImmutable   = "public, max-age=31536000, immutable"
	cacheRevalidate  = "public, no-cache"
	staticVersionKey = "v"
)

// staticHandler serves the embedded assets under staticPrefix with content
// types from their extensions, an ETag from their content hash and cache
// headers as described above.
func staticHandler() echo.HandlerFunc {
	return func(c echo.Context) error {
		name := strings.TrimPrefix(c.Request().URL.Path, staticPrefix)
		if name == "" || !fs.ValidPath(name) {
			return echo.ErrNotFound
		}
		f, err := static.FS.Open(name)
		if err != nil {
			return echo.ErrNotFound
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.IsDir() {
			return echo.ErrNotFound
		}
		content, ok := f.(io.ReadSeeker)
		if !ok {
			// Embedded files are seekable; this guards a change of FS.
			return fmt.Errorf("static asset %s is not seekable", name)
		}
		hash := static.Hash(name)
		h := c.Response().Header()
		if hash != "" {
			h.Set("ETag", `"`+hash+`"`)
		}
		if hash != "" && c.QueryParam(staticVersionKey) == hash {
			h.Set(echo.HeaderCacheControl, cacheImmutable)
		} else {
			h.Set(echo.HeaderCacheControl, cacheRevalidate)
		}
		http.ServeContent(c.Response(), c.Request(), name, time.Time{}, content)
		return nil
	}
}
