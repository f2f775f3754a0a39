package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/handlers"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// serverErrorMessage is all a page says about a server-side failure:
// internal error text stays in the logs.
const serverErrorMessage = "Something went wrong on our side. If it keeps happening, " +
	"report the request id below to whoever runs this portal."

// problem is what the client is told about a failed request.
type problem struct {
	Status  int
	Title   string
	Message string
}

// classify maps an error to the status and words the client sees: a
// recovered panic is 500, echo.HTTPError keeps its code, pipeline.ErrNotFound is 404, ErrInvalid 400,
// ErrConflict 409, a request body over the limit 413, a request timeout 503
// and anything else 500. Client errors show the error's own message, which
// the domain writes for users; server errors show a generic one.
func classify(err error) problem {
	var he *echo.HTTPError
	var tooLarge *http.MaxBytesError
	var pe *panicError
	switch {
	case errors.As(err, &pe):
		// A panic is a bug whatever its value wraps.
		return problem{Status: http.StatusInternalServerError, Title: statusTitle(http.StatusInternalServerError),
			Message: serverErrorMessage}
	case errors.As(err, &he):
		// echo nests the real HTTPError as Internal in some paths.
		if inner, ok := he.Internal.(*echo.HTTPError); ok {
			he = inner
		}
		p := problem{Status: he.Code, Title: statusTitle(he.Code), Message: defaultMessage(he.Code)}
		if msg, ok := he.Message.(string); ok && he.Code < 500 && msg != "" && msg != http.StatusText(he.Code) {
			p.Message = msg
		}
		return p
	case errors.As(err, &tooLarge):
		return problem{Status: http.StatusRequestEntityTooLarge, Title: statusTitle(http.StatusRequestEntityTooLarge),
			Message: defaultMessage(http.StatusRequestEntityTooLarge)}
	case errors.Is(err, pipeline.ErrNotFound):
		return problem{Status: http.StatusNotFound, Title: statusTitle(http.StatusNotFound), Message: sentence(err)}
	case errors.Is(err, pipeline.ErrInvalid):
		return problem{Status: http.StatusBadRequest, Title: statusTitle(http.StatusBadRequest), Message: sentence(err)}
	case errors.Is(err, pipeline.ErrConflict):
		return problem{Status: http.StatusConflict, Title: statusTitle(http.StatusConflict), Message: sentence(err)}
	case errors.Is(err, context.DeadlineExceeded):
		return problem{Status: http.StatusServiceUnavailable, Title: statusTitle(http.StatusServiceUnavailable),
			Message: "The request took too long and was stopped. Try again, or narrow it down."}
	default:
		return problem{Status: http.StatusInternalServerError, Title: statusTitle(http.StatusInternalServerError),
			Message: serverErrorMessage}
	}
}

// statusTitle is the heading of an error page.
func statusTitle(code int) string {
	switch code {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusRequestEntityTooLarge:
		return "Request too large"
	case http.StatusUnauthorized:
		return "Sign in required"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusTooManyRequests:
		return "Too many attempts"
	case http.StatusInternalServerError:
		return "Something went wrong"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Error"
}

// defaultMessage explains a status when the error carries no better words.
func defaultMessage(code int) string {
	switch code {
	case http.StatusNotFound:
		return "There is nothing at this address. Check the link, or search the collection."
	case http.StatusMethodNotAllowed:
		return "This address does not accept that kind of request."
	case http.StatusRequestEntityTooLarge:
		return "The request body is larger than this portal accepts."
	case http.StatusBadRequest:
		return "The request could not be understood."
	case http.StatusUnauthorized:
		return "Sign in to see this page."
	case http.StatusForbidden:
		return "You are not allowed to do this."
	}
	if code >= 500 {
		return serverErrorMessage
	}
	return http.StatusText(code) + "."
}

// sentence is an error's text for a page: the error message with its first
// letter capitalised.
func sentence(err error) string {
	s := err.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// errorHandledKey marks, in the echo.Context, a request whose error the
// error handler has dealt with.
const errorHandledKey = "crucible.web.errorHandled"

// errorHandler is the portal's one echo.HTTPErrorHandler: it classifies the
// error, logs it once (server errors at Error, client errors at Warn, a
// request the client abandoned at Info) with the request id, and renders
// views.Error unless the response has already started.
//
// It acts once per request: echo's request logger hands it the error and
// still returns the error, so echo calls it again with the same error after
// the page has been sent, and that call has nothing left to do.
func errorHandler(logger *slog.Logger, site views.Site) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if handled, _ := c.Get(errorHandledKey).(bool); handled {
			return
		}
		c.Set(errorHandledKey, true)
		req := c.Request()
		p := classify(err)
		level := slog.LevelWarn
		switch {
		case errors.Is(err, context.Canceled) && req.Context().Err() != nil:
			level = slog.LevelInfo
		case p.Status >= 500:
			level = slog.LevelError
		}
		attrs := []slog.Attr{
			slog.Int("status", p.Status),
			slog.String("method", req.Method),
			slog.String("path", req.URL.Path),
			slog.String("request_id", requestIDOf(c)),
			slog.String("error", err.Error()),
		}
		var pe *panicError
		if errors.As(err, &pe) {
			attrs = append(attrs, slog.String("stack", string(pe.stack)))
		}
		committed := c.Response().Committed
		if committed {
			attrs = append(attrs, slog.Bool("response_committed", true))
		}
		logger.LogAttrs(req.Context(), level, "request failed", attrs...)
		if committed {
			return
		}

		vm := views.ErrorPage{
			Site:      site,
			Status:    p.Status,
			Title:     p.Title,
			Message:   p.Message,
			RequestID: requestIDOf(c),
		}
		if p.Status == http.StatusUnauthorized {
			vm.LoginURL = views.LoginPath
		}
		page := views.Error(vm)
		if rerr := handlers.Render(c, p.Status, page); rerr != nil {
			logger.LogAttrs(req.Context(), slog.LevelError, "render error page",
				slog.String("request_id", requestIDOf(c)),
				slog.String("error", rerr.Error()),
			)
			if !c.Response().Committed {
				_ = c.String(p.Status, p.Title+". Request id "+requestIDOf(c)+".")
			}
		}
	}
}
