package views

import (
	"context"
	"net/url"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/auth"
)

// Viewer is who is looking at a page. The web package's session middleware
// puts it in the request's context (WithViewer); the layout reads it there
// for the header's account area, the CSRF token of every form and which
// links and buttons to show, so handlers need not pass it along.
type Viewer struct {
	// Name and Role are the signed-in user's; both are empty for a visitor
	// who has not signed in.
	Name string
	Role auth.Role
	// Local is set in single-user local mode (a portal on a loopback
	// address without accounts): there is no sign-in and the visitor acts
	// as an administrator.
	Local bool
	// CSRFToken is the token every form that changes state carries in
	// FieldCSRF. It is empty only for a visitor whose browser holds no
	// sign-in cookie yet.
	CSRFToken string
}

// SignedIn reports whether the viewer acts as a user: signed in, or in
// local mode.
func (v Viewer) SignedIn() bool { return v.Local || v.Name != "" }

// Can reports whether the viewer may act with the permission: pages hide
// what the viewer cannot do. The server checks the permission again on
// every request.
func (v Viewer) Can(p auth.Permission) bool { return v.SignedIn() && auth.Can(v.Role, p) }

// viewerKey is the context key of the Viewer.
type viewerKey struct{}

// WithViewer returns ctx carrying the viewer.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the viewer ctx carries: the zero Viewer, a visitor
// who has not signed in, when there is none.
func ViewerFrom(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// CSRF token transport: the hidden form field every state-changing form
// carries, and the request header scripts send instead.
const (
	FieldCSRF  = "csrf_token"
	HeaderCSRF = "X-CSRF-Token"
)

// Sign-in form fields and parameters.
const (
	FieldUserName = "name"
	FieldPassword = "password"
	// ParamNext carries the address to return to after signing in.
	ParamNext = "next"
)

// LoginPage is the view model of the sign-in page.
type LoginPage struct {
	Site Site
	// Name is the user name as typed, kept after a failed attempt.
	Name string
	// Next is where to go after signing in: a path on this portal, or
	// empty for the home page.
	Next string
	// Error says why the last attempt failed; empty on a first visit.
	Error string
}

// LoginURL links to the sign-in page, returning to next (a path on this
// portal; empty for none) afterwards.
func LoginURL(next string) string {
	if next == "" || next == HomePath {
		return LoginPath
	}
	return LoginPath + "?" + url.Values{ParamNext: {next}}.Encode()
}

// LocalPath returns next when it is a path on this portal that is safe to
// redirect to after signing in, else "": it must start with one "/" (not
// "//" or "/\", which browsers read as another host), hold no control
// characters, and not lead back to the sign-in page.
func LocalPath(next string) string {
	if next == "" || next[0] != '/' || len(next) > 2048 {
		return ""
	}
	if len(next) > 1 && (next[1] == '/' || next[1] == '\\') {
		return ""
	}
	for i := 0; i < len(next); i++ {
		if next[i] < 0x20 || next[i] == 0x7f || next[i] == '\\' {
			return ""
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	if u.Path == LoginPath || u.Path == LogoutPath || strings.HasPrefix(u.Path, LoginPath+"/") {
		return ""
	}
	return next
}
