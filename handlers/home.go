package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// StatsReader summarises the stored collection.
type StatsReader interface {
	// Stats returns the collection's statistics; errors are the store's.
	Stats(ctx context.Context) (pipeline.CollectionStats, error)
}

// Home serves the landing page.
type Home struct {
	Site  views.Site
	Stats StatsReader
}

// Show renders the home page with the collection's statistics.
func (h *Home) Show(c echo.Context) error {
	stats, err := h.Stats.Stats(c.Request().Context())
	if err != nil {
		return fmt.Errorf("home: read collection stats: %w", err)
	}
	return Render(c, http.StatusOK, views.Home(views.HomePage{
		Site:  h.Site.WithActive(views.NavHome),
		Stats: stats,
	}))
}
