package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// MetricsPath is where the operations metrics are served: on the portal's
// address to administrators (auth.PermViewMetrics), and without sign-in on
// the separate listener `crucible serve --metrics-addr` opens
// (NewMetricsHandler).
const MetricsPath = "/metrics"

// Metrics keeps the portal's operations metrics (*metrics.Metrics).
type Metrics interface {
	// ObserveRequest records one answered request: route is the route
	// template it matched ("/jobs/:id", never the URL itself), "" when
	// none did; status is the status sent.
	ObserveRequest(method, route string, status int, elapsed time.Duration)
	// Handler serves the metrics in the Prometheus text format.
	Handler() http.Handler
}

// observeRequests records every request's route template, status and
// time with m. It runs outermost, so the time covers the whole chain and
// the status is the one the error handler sent (requestLogger hands
// errors to it before returning them).
func observeRequests(m Metrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			status := c.Response().Status
			if err != nil && !c.Response().Committed {
				// Not answered yet: echo's error handler will send the
				// error's status.
				status = http.StatusInternalServerError
				var he *echo.HTTPError
				if errors.As(err, &he) {
					status = he.Code
				}
			}
			m.ObserveRequest(c.Request().Method, c.Path(), status, time.Since(start))
			return err
		}
	}
}

// NewMetricsHandler serves m's metrics at MetricsPath and nothing else,
// without sign-in: for the separate listener of --metrics-addr, which
// serve binds to a loopback address unless told otherwise.
func NewMetricsHandler(m Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, m.Handler())
	return mux
}
