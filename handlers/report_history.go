package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// History lists the versions of the report whose id is in the path,
// newest first, each with its author, time and change, and offers to
// restore old ones.
func (h *Reports) History(c echo.Context) error {
	if err := h.authoringOn(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	rep, _, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	versions, err := h.Authoring.History(ctx, rep.ID)
	if err != nil {
		return fmt.Errorf("versions of report %d: %w", rep.ID, err)
	}
	status, err := h.Authoring.Status(ctx, rep.ID)
	if err != nil {
		return fmt.Errorf("status of report %d: %w", rep.ID, err)
	}
	changes, err := h.Authoring.StatusChanges(ctx, rep.ID)
	if err != nil {
		return fmt.Errorf("status changes of report %d: %w", rep.ID, err)
	}
	return Render(c, http.StatusOK, views.ReportHistory(views.HistoryPage{
		Site: h.Site.WithActive(views.NavReports), Report: rep, Versions: versions, Status: status, StatusChanges: changes,
	}))
}

// versionNumber reads the version number in the path.
func versionNumber(c echo.Context) (int, error) {
	n, err := strconv.Atoi(c.Param("v"))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("no version has the number %q: %w", c.Param("v"), pipeline.ErrNotFound)
	}
	return n, nil
}

// ShowVersion shows one version of the report in the path, read-only,
// with a restore button when it is not the newest.
func (h *Reports) ShowVersion(c echo.Context) error {
	if err := h.authoringOn(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	rep, cur, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	n, err := versionNumber(c)
	if err != nil {
		return err
	}
	v, err := h.Authoring.Version(ctx, rep.ID, n)
	if err != nil {
		return err
	}
	status, err := h.Authoring.Status(ctx, rep.ID)
	if err != nil {
		return fmt.Errorf("status of report %d: %w", rep.ID, err)
	}
	return Render(c, http.StatusOK, views.ReportVersion(views.VersionPage{
		Site: h.Site.WithActive(views.NavReports), Report: v.Apply(rep), Version: v,
		Current: cur.Number, Status: status,
	}))
}

// RestoreVersion makes a copy of the version in the path the report's
// newest version, and answers 303 See Other to the report.
func (h *Reports) RestoreVersion(c echo.Context) error {
	n, err := versionNumber(c)
	if err != nil {
		return err
	}
	return h.edit(c, 0, "",
		func(ctx context.Context, e pipeline.Edit, _ url.Values) (pipeline.VersionInfo, error) {
			return h.Authoring.Restore(ctx, e, n)
		},
		func(id int64, _ pipeline.VersionInfo) string { return views.ReportURL(id) })
}
