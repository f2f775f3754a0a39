package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/views"
)

// Sessions signs browsers in and out. The web package's access control
// implements it: it owns the cookies.
type Sessions interface {
	// SignIn checks the name and password and, when they match, starts a
	// session for the browser, replacing any session it had. A wrong
	// name or password is auth.ErrBadCredentials; an attempt refused
	// because of earlier failures an *auth.RateLimitError.
	SignIn(c echo.Context, name, password string) error
	// SignOut ends the browser's session, if any.
	SignOut(c echo.Context) error
}

// Login serves the sign-in page and signs users in and out.
type Login struct {
	Site     views.Site
	Sessions Sessions
}

// Show renders the sign-in page. A viewer who is already signed in (or in
// local mode) goes straight on: to the page named by views.ParamNext when
// it is a path on this portal, else home.
func (h *Login) Show(c echo.Context) error {
	next := views.LocalPath(c.QueryParam(views.ParamNext))
	if views.ViewerFrom(c.Request().Context()).SignedIn() {
		return c.Redirect(http.StatusSeeOther, orHome(next))
	}
	return Render(c, http.StatusOK, views.Login(views.LoginPage{Site: h.Site.WithActive(views.NavNone), Next: next}))
}

// Submit signs in with the form's name and password and answers 303 to
// the page the form names (views.ParamNext), else home. A missing field is
// 422, a wrong name or password 401 and an attempt refused by the rate
// limit 429 with Retry-After; each re-renders the page saying so, keeping
// the name.
func (h *Login) Submit(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return err // the body limit's 413
		}
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.").SetInternal(err)
	}
	vm := views.LoginPage{
		Site: h.Site.WithActive(views.NavNone),
		Name: strings.TrimSpace(form.Get(views.FieldUserName)),
		Next: views.LocalPath(form.Get(views.ParamNext)),
	}
	password := form.Get(views.FieldPassword)
	if vm.Name == "" || password == "" {
		vm.Error = "Enter your user name and your password."
		return Render(c, http.StatusUnprocessableEntity, views.Login(vm))
	}
	err = h.Sessions.SignIn(c, vm.Name, password)
	var limited *auth.RateLimitError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, orHome(vm.Next))
	case errors.Is(err, auth.ErrBadCredentials):
		vm.Error = "The user name or the password is wrong."
		return Render(c, http.StatusUnauthorized, views.Login(vm))
	case errors.As(err, &limited):
		c.Response().Header().Set("Retry-After", strconv.Itoa(limited.RetryAfterSeconds()))
		vm.Error = "Too many failed sign-ins for this name from this address, or from this address. Try again in " +
			auth.WaitText(limited.RetryAfter) + "."
		return Render(c, http.StatusTooManyRequests, views.Login(vm))
	default:
		return err
	}
}

// Logout ends the session and answers 303 to the sign-in page.
func (h *Login) Logout(c echo.Context) error {
	if err := h.Sessions.SignOut(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.LoginPath)
}

// orHome is next, or the home page when next is empty.
func orHome(next string) string {
	if next == "" {
		return views.HomePath
	}
	return next
}
