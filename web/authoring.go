package web

import (
	"io/fs"

	"github.com/crucible-portal/crucible/static"
)

// printCSS is the portal's style sheet, inlined into the printable page of
// a report's "download all" archive so that the file reads well on its
// own. The sheet is embedded, so it is always there; should it not be,
// the page goes unstyled.
func printCSS() string {
	b, err := fs.ReadFile(static.FS, "style.css")
	if err != nil {
		return ""
	}
	return string(b)
}
