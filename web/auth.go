package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/views"
)

// Cookies. Both are HttpOnly, SameSite=Lax, Path=/, and Secure when the
// request came over TLS or Config.SecureCookies says a TLS proxy fronts
// the portal. Neither has an expiry: they end with the browser session,
// and the server ends sessions on its own clock (auth.IdleTimeout,
// auth.MaxAge).
const (
	// sessionCookie holds the session token of a signed-in browser.
	sessionCookie = "crucible_session"
	// loginCookie holds a random nonce that the sign-in form's CSRF token
	// is bound to, so another site cannot sign a visitor in to an account
	// of its choosing. The sign-in page sets it; signing in clears it.
	loginCookie = "crucible_login"
)

// localUserName names the user of single-user local mode in logs.
const localUserName = "local"

// principal is who a request acts as.
type principal struct {
	user auth.User
	// local is set in single-user local mode; user is then the local
	// administrator.
	local bool
	// token is the session cookie's token, when signed in.
	token string
	// csrf is the token state-changing requests must carry; empty when
	// none can be issued (a visitor without the sign-in cookie).
	csrf string
}

func (p principal) signedIn() bool { return p.local || p.user.ID != 0 }

func (p principal) viewer() views.Viewer {
	v := views.Viewer{Local: p.local, CSRFToken: p.csrf}
	if p.signedIn() {
		v.Role = p.user.Role
		if !p.local {
			v.Name = p.user.Name
		}
	}
	return v
}

// principalKey keeps the principal in the echo.Context.
const principalKey = "crucible.web.principal"

// principalOf returns the principal identify stored; a visitor who has
// not signed in when there is none.
func principalOf(c echo.Context) principal {
	p, _ := c.Get(principalKey).(principal)
	return p
}

// setPrincipal stores the principal for later middleware and handlers,
// and puts its views.Viewer in the request's context for the pages.
func setPrincipal(c echo.Context, p principal) {
	c.Set(principalKey, p)
	req := c.Request()
	c.SetRequest(req.WithContext(views.WithViewer(req.Context(), p.viewer())))
}

// access is the portal's access control: it resolves each request's
// principal, requires signing in, checks CSRF tokens and permissions, and
// signs browsers in and out for the sign-in pages.
type access struct {
	// svc is nil when the portal has no account store (local mode only).
	svc      *auth.Service
	accounts auth.Store
	// local allows single-user local mode while no account exists.
	local bool
	// secret keys the CSRF tokens (HMAC-SHA256).
	secret        []byte
	secureCookies bool
	logger        *slog.Logger
}

// identify resolves the request's principal, in order: a valid session
// cookie; else, when local mode is allowed and no account exists, the
// local administrator; else a visitor who has not signed in. An unknown
// or expired session cookie is cleared. Static assets skip this: they
// show nobody's data. The health check asks, to show administrators the
// collection's size, but answers as to a visitor when the accounts
// cannot be read: its status is the store's, not the sign-in's.
func (a *access) identify(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if skipsIdentity(c) {
			return next(c)
		}
		p, err := a.resolve(c)
		if err != nil && c.Path() == healthPath {
			p, err = principal{}, nil
		}
		if err != nil {
			return err
		}
		setPrincipal(c, p)
		return next(c)
	}
}

func (a *access) resolve(c echo.Context) (principal, error) {
	ctx := c.Request().Context()
	if a.svc != nil {
		if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" {
			u, s, err := a.svc.Authenticate(ctx, ck.Value)
			switch {
			case err == nil:
				return principal{user: u, token: ck.Value, csrf: a.mac("session", s.TokenHash)}, nil
			case errors.Is(err, pipeline.ErrNotFound):
				a.clearCookie(c, sessionCookie)
			default:
				return principal{}, fmt.Errorf("resolve session: %w", err)
			}
		}
	}
	if a.local {
		n := 0
		if a.accounts != nil {
			var err error
			if n, err = a.accounts.CountUsers(ctx); err != nil {
				return principal{}, fmt.Errorf("check for accounts: %w", err)
			}
		}
		if n == 0 {
			return principal{
				user:  auth.User{Name: localUserName, Role: auth.RoleAdmin},
				local: true,
				csrf:  a.mac("local", ""),
			}, nil
		}
	}
	var p principal
	if ck, err := c.Cookie(loginCookie); err == nil && validNonce(ck.Value) {
		p.csrf = a.mac("login", ck.Value)
	}
	return p, nil
}

// issueLoginCookie gives a visitor who has not signed in the sign-in
// cookie, if the browser does not hold one, so the sign-in form can carry
// a CSRF token bound to it. It is the sign-in page's route middleware.
func (a *access) issueLoginCookie(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := principalOf(c)
		if !p.signedIn() && p.csrf == "" {
			nonce := auth.NewToken()
			a.setCookie(c, loginCookie, nonce)
			p.csrf = a.mac("login", nonce)
			setPrincipal(c, p)
		}
		return next(c)
	}
}

// requireLogin lets through requests of a signed-in principal and
// requests to public routes (the sign-in page, the health check, static
// assets). Others get, for a page, a 303 to the sign-in page that returns
// to the page afterwards; for anything else (a form post, an event
// stream, an htmx request) a 401.
func (a *access) requireLogin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if principalOf(c).signedIn() || publicRoutes[c.Path()] {
			return next(c)
		}
		req := c.Request()
		if (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
			req.Header.Get("HX-Request") == "" && !strings.Contains(req.Header.Get(echo.HeaderAccept), "text/event-stream") {
			return c.Redirect(http.StatusSeeOther, views.LoginURL(req.URL.RequestURI()))
		}
		return echo.NewHTTPError(http.StatusUnauthorized,
			"You are not signed in, or your session has ended. Sign in and try again.")
	}
}

// Messages of a refused CSRF check.
const (
	csrfRefused = "This form was refused because its security token is missing or out of date. " +
		"Reload the page and try again."
	csrfNoCookie = "This form was refused because your browser did not send this portal's sign-in cookie. " +
		"Allow cookies for this site, reload the page and try again."
)

// checkCSRF refuses, with 403, a request with an unsafe method (POST, PUT,
// PATCH, DELETE...) to a route that accepts it unless it carries the
// principal's CSRF token: in the X-CSRF-Token header, else in the form
// field csrf_token (in a multipart form, its first field). Requests no
// route accepts go on to get their 404 or 405.
//
// The token is an HMAC of the session's token hash (signed in), of the
// sign-in cookie's nonce (the sign-in form) or of a constant (local
// mode), under the server's secret, so it cannot be computed without the
// secret and, except in local mode, is bound to the browser's cookie.
// Pages from another site cannot read it; rejectCrossOrigin's fetch-
// metadata check stays in front of it as a second line.
func (a *access) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if safeMethod(req.Method) || !routeAccepts(c) {
			return next(c)
		}
		sent, err := csrfTokenSent(req)
		if err != nil {
			return err
		}
		p := principalOf(c)
		if p.csrf == "" {
			return echo.NewHTTPError(http.StatusForbidden, csrfNoCookie)
		}
		if sent == "" || !hmac.Equal([]byte(sent), []byte(p.csrf)) {
			return echo.NewHTTPError(http.StatusForbidden, csrfRefused)
		}
		return next(c)
	}
}

// requirePerm is the route middleware that lets through only principals
// whose role grants perm: 401 before signing in, 403 naming what the role
// cannot do otherwise.
func requirePerm(perm auth.Permission) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			p := principalOf(c)
			if !p.signedIn() {
				return echo.NewHTTPError(http.StatusUnauthorized, "Sign in to do this.")
			}
			if !p.user.Can(perm) {
				return echo.NewHTTPError(http.StatusForbidden,
					auth.Denial(p.user.Role, perm)+" You are signed in as "+p.user.Name+" ("+string(p.user.Role)+").")
			}
			return next(c)
		}
	}
}

// SignIn checks the name and password and starts a session: a fresh
// token in a new session cookie. The browser's previous session, if any,
// is ended, so a session id planted before sign-in (fixation) is never
// the one signed in, and the sign-in cookie is cleared. It returns
// auth.ErrBadCredentials or an *auth.RateLimitError for the sign-in page
// to word. Client addresses for the rate limit come from echo's
// IPExtractor (Config.TrustProxy).
func (a *access) SignIn(c echo.Context, name, password string) error {
	if a.svc == nil {
		return auth.ErrBadCredentials
	}
	ctx := c.Request().Context()
	token, u, err := a.svc.Login(ctx, name, password, c.RealIP())
	var limited *auth.RateLimitError
	switch {
	case errors.Is(err, auth.ErrBadCredentials):
		// Logged for whoever watches for guessing; the password never is.
		a.logger.LogAttrs(ctx, slog.LevelWarn, "login failed", slog.String("user", name),
			slog.String("client_ip", c.RealIP()), slog.String("request_id", requestIDOf(c)))
		return err
	case errors.As(err, &limited):
		a.logger.LogAttrs(ctx, slog.LevelWarn, "login refused: too many failures", slog.String("user", name),
			slog.String("client_ip", c.RealIP()), slog.Duration("retry_after", limited.RetryAfter),
			slog.String("request_id", requestIDOf(c)))
		return err
	case err != nil:
		return err
	}
	if old, err := c.Cookie(sessionCookie); err == nil && old.Value != "" {
		if err := a.svc.Logout(ctx, old.Value); err != nil {
			return fmt.Errorf("end the previous session: %w", err)
		}
	}
	a.setCookie(c, sessionCookie, token)
	a.clearCookie(c, loginCookie)
	a.logger.LogAttrs(ctx, slog.LevelInfo, "login", slog.String("user", u.Name), slog.String("role", string(u.Role)),
		slog.String("client_ip", c.RealIP()), slog.String("request_id", requestIDOf(c)))
	return nil
}

// SignOut ends the browser's session, if it has one, and clears the
// session cookie.
func (a *access) SignOut(c echo.Context) error {
	p := principalOf(c)
	if a.svc != nil && p.token != "" {
		if err := a.svc.Logout(c.Request().Context(), p.token); err != nil {
			return fmt.Errorf("sign out: %w", err)
		}
	}
	a.clearCookie(c, sessionCookie)
	return nil
}

// mac is a CSRF token: HMAC-SHA256 under the server's secret of the
// token's kind and the value it is bound to, base64url-encoded.
func (a *access) mac(kind, value string) string {
	h := hmac.New(sha256.New, a.secret)
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(value))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func (a *access) cookie(c echo.Context, name, value string) *http.Cookie {
	return &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   a.secureCookies || c.IsTLS(),
	}
}

func (a *access) setCookie(c echo.Context, name, value string) {
	c.SetCookie(a.cookie(c, name, value))
}

func (a *access) clearCookie(c echo.Context, name string) {
	ck := a.cookie(c, name, "")
	ck.MaxAge = -1
	c.SetCookie(ck)
}

// validNonce reports whether a sign-in cookie's value looks like one the
// portal set (auth.NewToken: 43 base64url characters).
func validNonce(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// publicRoutes are the routes served before signing in.
var publicRoutes = map[string]bool{
	views.LoginPath:    true,
	healthPath:         true,
	staticPrefix + "*": true,
}

// skipsIdentity reports whether the request's route needs no principal:
// static assets.
func skipsIdentity(c echo.Context) bool {
	return c.Path() == staticPrefix+"*"
}

// seesHealthDetails reports whether the request's principal may see the
// collection's size on the health check: an administrator (or the local
// user of single-user mode).
func seesHealthDetails(c echo.Context) bool {
	p := principalOf(c)
	return p.signedIn() && p.user.Can(auth.PermManageUsers)
}

// safeMethod reports whether the method only reads (RFC 9110 section
// 9.2.1).
func safeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// routeAccepts reports whether a route is registered for the request's
// method and matched path, so requests that end in 404 or 405 are not
// answered 403 first.
func routeAccepts(c echo.Context) bool {
	method, path := c.Request().Method, c.Path()
	if path == "" {
		return false
	}
	for _, r := range c.Echo().Routes() {
		if r.Path == path && r.Method == method {
			return true
		}
	}
	return false
}

// maxCSRFTokenLen bounds a token read from a form: the portal's are 43
// characters.
const maxCSRFTokenLen = 128

// csrfPeekBytes bounds what is read of a multipart body to find the token
// in its first part.
const csrfPeekBytes = 16 << 10

// csrfTokenSent returns the CSRF token the request carries: the
// X-CSRF-Token header, else the csrf_token field of a URL-encoded form,
// else the first part of a multipart form when that part is the
// csrf_token field. A multipart body is not parsed whole: the bytes read
// to find the token are put back in front of the rest, so handlers that
// stream uploads with their own limits read the body as sent. A body over
// the size limit is the body limit's 413 error; a URL-encoded body that
// cannot be parsed is a 400.
func csrfTokenSent(req *http.Request) (string, error) {
	if v := req.Header.Get(views.HeaderCSRF); v != "" {
		return v, nil
	}
	mt, params, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if err != nil {
		return "", nil
	}
	switch mt {
	case echo.MIMEApplicationForm:
		if err := req.ParseForm(); err != nil {
			if isBodyLimit(err) {
				return "", err
			}
			return "", pipeline.Invalidf("the form could not be read: %v", err)
		}
		return req.PostForm.Get(views.FieldCSRF), nil
	case echo.MIMEMultipartForm:
		return firstMultipartToken(req, params["boundary"])
	}
	return "", nil
}

// firstMultipartToken reads the first part of a multipart body and returns
// its value when it is the csrf_token field, then restores the body.
func firstMultipartToken(req *http.Request, boundary string) (string, error) {
	if boundary == "" || req.Body == nil {
		return "", nil
	}
	body := req.Body
	var consumed bytes.Buffer
	mr := multipart.NewReader(io.TeeReader(io.LimitReader(body, csrfPeekBytes), &consumed), boundary)
	var token string
	part, err := mr.NextPart()
	if err == nil && part.FormName() == views.FieldCSRF && part.FileName() == "" {
		var b []byte
		b, err = io.ReadAll(io.LimitReader(part, maxCSRFTokenLen+1))
		if err == nil && len(b) <= maxCSRFTokenLen {
			token = string(b)
		}
	}
	req.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(consumed.Bytes()), body), Closer: body}
	if err != nil && isBodyLimit(err) {
		return "", err
	}
	return token, nil
}

// readCloser joins a reader with the closer of the body it replaces.
type readCloser struct {
	io.Reader
	io.Closer
}

// isBodyLimit reports whether err is a body over the limit: echo's
// BodyLimit 413 or net/http's MaxBytesError.
func isBodyLimit(err error) bool {
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe) || errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge
}
