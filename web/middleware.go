package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/labstack/echo/v4"
)

// maxRequestIDLen bounds a client-supplied X-Request-ID.
const maxRequestIDLen = 64

// requestID gives every request an id, kept in the X-Request-ID response
// header for the logger and error pages. A well-formed id sent by a proxy
// is kept so logs line up across hops; anything else is replaced, since it
// ends up in logs and pages.
func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(echo.HeaderXRequestID)
			if !validRequestID(id) {
				id = newRequestID()
			}
			c.Response().Header().Set(echo.HeaderXRequestID, id)
			return next(c)
		}
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

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	// crypto/rand.Read never fails (Go 1.24+): it crashes the program
	// instead of returning an error.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestIDOf returns the id requestID assigned to the request.
func requestIDOf(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}

// requestLogger logs one line per request at Info: method, path, status,
// latency and request id. An error from the handler chain is handed to the
// error handler first, so the logged status is the one sent; the error
// itself is logged there, once.
func requestLogger(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			req := c.Request()
			logger.LogAttrs(req.Context(), slog.LevelInfo, "request",
				slog.String("method", req.Method),
				slog.String("path", req.URL.Path),
				slog.Int("status", c.Response().Status),
				slog.Duration("latency", time.Since(start)),
				slog.Int64("bytes_out", c.Response().Size),
				slog.String("request_id", requestIDOf(c)),
			)
			return nil
		}
	}
}

// panicError carries a recovered panic and its stack to the error handler,
// which logs both.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// Unwrap exposes a panic value that is an error, for errors.Is and As.
func (e *panicError) Unwrap() error {
	err, _ := e.value.(error)
	return err
}

// panicStackSize bounds the stack captured for a panic.
const panicStackSize = 8 << 10

// recoverPanics turns a panic in a handler into a panicError returned up the
// chain, so the request logger passes it to the error handler like any
// other error and the server keeps running. http.ErrAbortHandler is
// re-raised: it is net/http's way to abort a response on purpose.
func recoverPanics() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				if r == http.ErrAbortHandler {
					panic(r)
				}
				stack := make([]byte, panicStackSize)
				stack = stack[:runtime.Stack(stack, false)]
				err = &panicError{value: r, stack: stack}
			}()
			return next(c)
		}
	}
}

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

// securityHeaders sets the security headers before the handler runs, so
// error pages carry them too.
func securityHeaders() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set(echo.HeaderContentSecurityPolicy, contentSecurityPolicy)
			h.Set(echo.HeaderXContentTypeOptions, "nosniff")
			h.Set(echo.HeaderXFrameOptions, "DENY")
			h.Set(echo.HeaderReferrerPolicy, "same-origin")
			h.Set("Permissions-Policy", permissionsPolicy)
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			return next(c)
		}
	}
}

// bodyLimit answers 413 to requests whose body exceeds limit bytes: at once
// when Content-Length says so, otherwise when a handler reads past the
// limit (http.MaxBytesReader's error, which the error handler maps to 413).
func bodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
					fmt.Sprintf("The request body is %d bytes; the limit is %d bytes.", req.ContentLength, limit))
			}
			if req.Body != nil && req.Body != http.NoBody {
				req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			}
			return next(c)
		}
	}
}
