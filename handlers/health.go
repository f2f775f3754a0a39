package handlers

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Health answers load balancers and supervisors with the store's state.
type Health struct {
	Stats  StatsReader
	Logger *slog.Logger
	// Details reports whether the request may see the collection's size
	// (an administrator); nil lets every request see it. Others get only
	// the status: the size of a private collection is nobody else's
	// business.
	Details func(echo.Context) bool
}

// healthStatus is the JSON body of a healthy answer without details.
type healthStatus struct {
	Status string `json:"status"`
}

// healthOK is the JSON body of a healthy answer.
type healthOK struct {
	Status    string `json:"status"`
	Documents int    `json:"documents"`
	Passages  int    `json:"passages"`
}

// healthFailed is the JSON body of an unhealthy answer.
type healthFailed struct {
	Status string `json:"status"`
	Error  string `json:"error"`
}

// Check reports 200 {"status":"ok"} when the store answers, with
// "documents" and "passages" for those Details allows, and 503 with a
// JSON error when it does not. The store's error is logged, not returned
// to the caller.
func (h *Health) Check(c echo.Context) error {
	stats, err := h.Stats.Stats(c.Request().Context())
	if err != nil {
		h.Logger.LogAttrs(c.Request().Context(), slog.LevelError, "health check failed",
			slog.String("error", err.Error()),
			slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)),
		)
		return c.JSON(http.StatusServiceUnavailable, healthFailed{
			Status: "unavailable",
			Error:  "the document store did not answer",
		})
	}
	if h.Details != nil && !h.Details(c) {
		return c.JSON(http.StatusOK, healthStatus{Status: "ok"})
	}
	return c.JSON(http.StatusOK, healthOK{
		Status:    "ok",
		Documents: stats.Documents,
		Passages:  stats.Passages,
	})
}
