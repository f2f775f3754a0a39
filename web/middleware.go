package web

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// middlewareChain is the portal's middleware, outermost first. Almost all
// of it is echo's own; the portal adds only the checks and headers echo
// has no option for.
//
//   - dropInvalidRequestID and echo's RequestID give every request an id,
//     kept in the X-Request-ID response header for the logs and error
//     pages.
//   - requestLogger logs one line per request, after handing any error to
//     the error handler so the logged status is the one sent.
//   - echo's Recover turns a panic into a panicError carrying the stack,
//     which the error handler logs; the server keeps running.
//   - echo's Secure and extraSecurityHeaders set the security headers
//     before the handler runs, so error pages carry them too.
//   - rejectCrossOrigin refuses state-changing requests a browser sends
//     from another site.
//   - echo's BodyLimit answers 413 to bodies over maxBodyBytes, except on
//     the routes ownBodyLimit names (nil: none), whose handlers bound the
//     body themselves.
func middlewareChain(maxBodyBytes int64, logger *slog.Logger, ownBodyLimit middleware.Skipper) []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		dropInvalidRequestID,
		middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}),
		requestLogger(logger),
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			StackSize:       panicStackSize,
			DisableStackAll: true,
			// Return the panic up the chain instead of handling it here, so
			// it reaches the error handler through requestLogger like any
			// other error and the logged status is the 500 sent.
			DisableErrorHandler: true,
			LogErrorFunc: func(_ echo.Context, err error, stack []byte) error {
				return &panicError{err: err, stack: stack}
			},
		}),
		middleware.SecureWithConfig(middleware.SecureConfig{
			ContentSecurityPolicy: contentSecurityPolicy,
			ContentTypeNosniff:    "nosniff",
			XFrameOptions:         "DENY",
			ReferrerPolicy:        "same-origin",
			// X-XSS-Protection stays unset: browsers dropped the filter it
			// controls, and the CSP covers what it did.
		}),
		extraSecurityHeaders,
		rejectCrossOrigin(),
		// BodyLimit refuses a Content-Length over the limit at once and
		// otherwise fails the read that crosses it with a 413
		// echo.HTTPError, so a missing or false Content-Length does not get
		// a larger body through.
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
			Limit:   strconv.FormatInt(maxBodyBytes, 10),
			Skipper: ownBodyLimit,
		}),
	}
}

// maxRequestIDLen bounds a client-supplied X-Request-ID.
const maxRequestIDLen = 64

// dropInvalidRequestID deletes a client-sent X-Request-ID that is not a
// short token, so echo's RequestID middleware, which runs next and keeps
// any non-empty incoming id, generates a fresh one instead. A well-formed id
// sent by a proxy is kept so logs line up across hops; anything else ends up
// in logs and pages and is not trusted.
func dropInvalidRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header
		if id := h.Get(echo.HeaderXRequestID); id != "" && !validRequestID(id) {
			h.Del(echo.HeaderXRequestID)
		}
		return next(c)
	}
}

// validRequestID accepts short ids of letters, digits, '-', '_' and '.'.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_', b == '.':
		default:
			return false
		}
	}
	return true
}

// newRequestID returns 16 random bytes in hex: echo's RequestID generator.
func newRequestID() string {
	var b [16]byte
	// crypto/rand.Read never fails (Go 1.24+): it crashes the program
	// instead of returning an error.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestIDOf returns the id the RequestID middleware assigned to the
// request.
func requestIDOf(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}

// requestLogger logs one line per request at Info with echo's
// RequestLogger: method, path, status, latency, bytes_out, request_id and,
// once the request's principal is known, user.
// An error from the handler chain is handed to the error handler first
// (HandleError), so the logged status is the one sent; the error itself is
// logged there, once.
func requestLogger(logger *slog.Logger) echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		HandleError:     true,
		LogMethod:       true,
		LogURIPath:      true,
		LogStatus:       true,
		LogLatency:      true,
		LogResponseSize: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{
				slog.String("method", v.Method),
				slog.String("path", v.URIPath),
				slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency),
				slog.Int64("bytes_out", v.ResponseSize),
				// The response header, not v.RequestID: that one prefers
				// the incoming header.
				slog.String("request_id", requestIDOf(c)),
			}
			if p := principalOf(c); p.signedIn() {
				attrs = append(attrs, slog.String("user", p.user.Name))
			}
			logger.LogAttrs(c.Request().Context(), slog.LevelInfo, "request", attrs...)
			return nil
		},
	})
}

// panicError carries a recovered panic and its stack to the error handler,
// which logs both. echo's Recover makes a panic value that is not an error
// into one.
type panicError struct {
	err   error
	stack []byte
}

func (e *panicError) Error() string { return "panic: " + e.err.Error() }

// Unwrap exposes the panic value, for errors.Is and As.
func (e *panicError) Unwrap() error { return e.err }

// panicStackSize bounds the stack captured for a panic.
const panicStackSize = 8 << 10

// Security headers sent with every response. The policy allows only the
// portal's own scripts, styles and images: no inline scripts or styles and
// no third-party origins, so text from the corpus cannot run code even if
// it ever escaped templ's escaping.
const (
	contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	permissionsPolicy = "accelerometer=(), autoplay=(), camera=(), display-capture=(), " +
		"encrypted-media=(), fullscreen=(), geolocation=(), gyroscope=(), magnetometer=(), " +
		"microphone=(), midi=(), payment=(), picture-in-picture=(), publickey-credentials-get=(), " +
		"screen-wake-lock=(), sync-xhr=(), usb=(), xr-spatial-tracking=()"
)

// extraSecurityHeaders sets the security headers echo's Secure has no
// option for: Permissions-Policy, Cross-Origin-Opener-Policy and
// Cache-Control: no-store (the static assets replace the last).
func extraSecurityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Permissions-Policy", permissionsPolicy)
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		// Pages, exports and answers show private documents and reports:
		// no browser or proxy keeps a copy. The static assets, which are
		// the same for everyone, set their own caching (staticHandler).
		h.Set(echo.HeaderCacheControl, "no-store")
		return next(c)
	}
}

// rejectCrossOrigin refuses, with 403, a state-changing request (POST and
// the other unsafe methods) that a browser sends from another origin, so
// another site cannot make a visitor's browser start a report or cancel a
// job. It uses net/http's CrossOriginProtection: Sec-Fetch-Site, else
// Origin compared with Host. Requests carrying neither header, from
// non-browser clients, pass.
func rejectCrossOrigin() echo.MiddlewareFunc {
	cop := http.NewCrossOriginProtection()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := cop.Check(c.Request()); err != nil {
				return echo.NewHTTPError(http.StatusForbidden,
					"This form was sent from another site, so it was refused.").SetInternal(err)
			}
			return next(c)
		}
	}
}
