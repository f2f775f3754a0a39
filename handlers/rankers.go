package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// RankerStore lists the stored nugget rankers and switches which one an
// engine uses (docs/ranking.md). The SQLite store implements it.
type RankerStore interface {
	Rankers(ctx context.Context) ([]pipeline.RankerModel, error)
	// SetRankerActive makes the ranker its engine's active one (the one
	// before is stopped) or stops it; an unknown id wraps
	// pipeline.ErrNotFound.
	SetRankerActive(ctx context.Context, id int64, active bool) error
}

// Rankers serves the administrators' page of trained nugget rankers.
type Rankers struct {
	Site  views.Site
	Store RankerStore
}

// rankerNotices are the messages a switch leaves for the list
// (?done=used|stopped&id=N).
var rankerNotices = map[string]string{
	"used":    "Ranker %d now ranks the nuggets of %s's new reports.",
	"stopped": "Ranker %d is no longer used: %s's new reports rank nuggets with the default weights.",
}

// List shows every stored ranker, newest first, and what the last switch
// did.
func (h *Rankers) List(c echo.Context) error {
	ctx := c.Request().Context()
	all, err := h.Store.Rankers(ctx)
	if err != nil {
		return fmt.Errorf("list nugget rankers: %w", err)
	}
	vm := views.RankersPage{Site: h.Site.WithActive(views.NavRankers), Rankers: all}
	if msg, ok := rankerNotices[c.QueryParam("done")]; ok {
		if id, err := parseID(c.QueryParam("id"), "ranker"); err == nil {
			for _, m := range all {
				if m.ID == id {
					vm.Notice = fmt.Sprintf(msg, id, m.Engine)
				}
			}
		}
	}
	return Render(c, http.StatusOK, views.Rankers(vm))
}

// Use makes a ranker its engine's active one.
func (h *Rankers) Use(c echo.Context) error { return h.set(c, true) }

// Stop stops using a ranker: its engine goes back to the default weights.
func (h *Rankers) Stop(c echo.Context) error { return h.set(c, false) }

func (h *Rankers) set(c echo.Context, active bool) error {
	id, err := parseID(c.Param("id"), "ranker")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	err = h.Store.SetRankerActive(ctx, id, active)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		return fmt.Errorf("no nugget ranker has the id %d: %w", id, pipeline.ErrNotFound)
	case err != nil:
		return fmt.Errorf("switch nugget ranker %d: %w", id, err)
	}
	done := "stopped"
	if active {
		done = "used"
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("%s?done=%s&id=%d", views.RankersPath, done, id))
}
