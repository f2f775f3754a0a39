package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// stateRoute is a request that changes state (or, for the new-report form,
// leads to one), with what each role gets.
type stateRoute struct {
	name string
	// send makes the request with the CSRF token in the header; body may
	// be the form a browser would send or nothing at all.
	send func(t *testing.T, b *browser, token string) *httptest.ResponseRecorder
	// route is the registered method and path.
	route string
	// allowed is the status of roles the route's permission admits.
	allowed int
	perm    auth.Permission
}

func stateRoutes() []stateRoute {
	postForm := func(target string, form url.Values) func(*testing.T, *browser, string) *httptest.ResponseRecorder {
		return func(_ *testing.T, b *browser, token string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(views.HeaderCSRF, token)
			return b.do(req)
		}
	}
	bare := func(method, target string) func(*testing.T, *browser, string) *httptest.ResponseRecorder {
		return func(_ *testing.T, b *browser, token string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(method, target, nil)
			req.Header.Set(views.HeaderCSRF, token)
			return b.do(req)
		}
	}
	upload := func(t *testing.T, b *browser, token string) *httptest.ResponseRecorder {
		body, ct := multipartBody(t, [][2]string{{"csrf_token", token}}, evalGold)
		req := httptest.NewRequest(http.MethodPost, "/reports/12/evaluation/gold", body)
		req.Header.Set("Content-Type", ct)
		return b.do(req)
	}
	compareUpload := func(t *testing.T, b *browser, token string) *httptest.ResponseRecorder {
		req := compareRequest(t, "run.jsonl", `{"topic_id": "r1", "answer": []}`, url.Values{"csrf_token": {token}})
		return b.do(req)
	}
	corpusUpload := func(t *testing.T, b *browser, token string) *httptest.ResponseRecorder {
		return b.do(newUploadRequest(t, token, uploadFile{"speeches.jsonl", `{"id":"s1","text":"Tariffs."}` + "\n"}))
	}
	return []stateRoute{
		{name: "upload form", route: "GET /admin/upload", send: bare(http.MethodGet, "/admin/upload"),
			allowed: http.StatusOK, perm: auth.PermUploadCorpus},
		{name: "upload a corpus", route: "POST /admin/upload", send: corpusUpload,
			allowed: http.StatusSeeOther, perm: auth.PermUploadCorpus},
		// Queues an upload, then cancels it (each server of the matrix is
		// new); for a role that may not upload, both are refused.
		{name: "cancel an upload", route: "POST /admin/uploads/:id/cancel", send: func(t *testing.T, b *browser, token string) *httptest.ResponseRecorder {
			corpusUpload(t, b, token)
			return bare(http.MethodPost, "/admin/uploads/1/cancel")(t, b, token)
		}, allowed: http.StatusSeeOther, perm: auth.PermUploadCorpus},
		{name: "metrics", route: "GET /metrics", send: bare(http.MethodGet, "/metrics"),
			allowed: http.StatusOK, perm: auth.PermViewMetrics},
		{name: "rankers page", route: "GET /admin/rankers", send: bare(http.MethodGet, "/admin/rankers"),
			allowed: http.StatusOK, perm: auth.PermManageRankers},
		{name: "use a ranker", route: "POST /admin/rankers/:id/use", send: bare(http.MethodPost, "/admin/rankers/2/use"),
			allowed: http.StatusSeeOther, perm: auth.PermManageRankers},
		{name: "stop a ranker", route: "POST /admin/rankers/:id/stop", send: bare(http.MethodPost, "/admin/rankers/1/stop"),
			allowed: http.StatusSeeOther, perm: auth.PermManageRankers},
		{name: "new report form", route: "GET /reports/new", send: bare(http.MethodGet, "/reports/new"),
			allowed: http.StatusOK, perm: auth.PermCreateReport},
		{name: "start a report", route: "POST /reports", send: postForm("/reports", validForm()),
			allowed: http.StatusSeeOther, perm: auth.PermCreateReport},
		{name: "start a report, no form", route: "POST /reports", send: bare(http.MethodPost, "/reports"),
			allowed: http.StatusUnprocessableEntity, perm: auth.PermCreateReport},
		{name: "estimate a report", route: "POST /reports/estimate", send: postForm("/reports/estimate", validForm()),
			allowed: http.StatusOK, perm: auth.PermCreateReport},
		{name: "resume a job", route: "POST /jobs/:id/resume", send: postForm("/jobs/5/resume", url.Values{"max_calls": {"400"}}),
			allowed: http.StatusSeeOther, perm: auth.PermCreateReport},
		// Job 5 is running: there is nothing to run again (409) for a role
		// that may start reports.
		{name: "run a job again", route: "POST /jobs/:id/rerun", send: bare(http.MethodPost, "/jobs/5/rerun"),
			allowed: http.StatusConflict, perm: auth.PermCreateReport},
		{name: "cancel a job", route: "POST /jobs/:id/cancel", send: bare(http.MethodPost, "/jobs/5/cancel"),
			allowed: http.StatusSeeOther, perm: auth.PermCancelJob},
		{name: "evaluate", route: "POST /reports/:id/evaluation", send: postForm("/reports/12/evaluation", url.Values{"judge": {"offline"}}),
			allowed: http.StatusOK, perm: auth.PermEvaluate},
		{name: "upload gold nuggets", route: "POST /reports/:id/evaluation/gold", send: upload,
			allowed: http.StatusSeeOther, perm: auth.PermEvaluate},
		{name: "delete a job", route: "POST /jobs/:id/delete", send: bare(http.MethodPost, "/jobs/9/delete"),
			allowed: http.StatusSeeOther, perm: auth.PermCreateReport},
		{name: "compare another run", route: "POST /reports/:id/evaluation/compare", send: compareUpload,
			allowed: http.StatusOK, perm: auth.PermEvaluate},
		{name: "sign out", route: "POST /logout", send: bare(http.MethodPost, "/logout"),
			allowed: http.StatusSeeOther, perm: auth.PermView},
	}
}

// TestPermissionMatrix sends every state-changing request as every role,
// and without signing in, straight to the route (no form page first), with
// a valid CSRF token, and checks the answer against auth.Can.
func TestPermissionMatrix(t *testing.T) {
	routes := append(stateRoutes(), authoringStateRoutes()...)
	for _, u := range []auth.User{adminUser, analystUser, reviewerUser, {}} {
		role := string(u.Role)
		if role == "" {
			role = "anonymous"
		}
		for _, rt := range routes {
			t.Run(role+"/"+rt.name, func(t *testing.T) {
				s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
				b := newBrowser(s)
				token := ""
				if u.ID != 0 {
					b.mustLogin(t, u)
					token = b.csrf(t, "/")
				}
				rec := rt.send(t, b, token)
				want := rt.allowed
				switch {
				case u.ID == 0 && strings.HasPrefix(rt.route, "GET "):
					want = http.StatusSeeOther // to the sign-in page
				case u.ID == 0:
					want = http.StatusUnauthorized
				case !auth.Can(u.Role, rt.perm):
					want = http.StatusForbidden
				}
				wantStatus(t, rec, want)
				if want == http.StatusForbidden {
					msg := textOf(parseHTML(t, rec), "error-message")
					if !strings.Contains(msg, "cannot") || !strings.Contains(msg, "signed in as "+u.Name) {
						t.Errorf("403 message %q does not say what the role cannot do", msg)
					}
				}
				// Refused requests must not reach the services.
				if want == http.StatusForbidden || want == http.StatusUnauthorized {
					if n := len(s.svc.submissions()) + len(s.svc.cancels()) + len(s.gold.sets) + s.uploads.submitted() + s.versions.changed() + s.rankers.switched() + s.jobs.deletions(); n != 0 {
						t.Errorf("a refused request reached the services: %d calls", n)
					}
					if left := stagingFolders(t, s.uploads.root); len(left) != 0 {
						t.Errorf("a refused request staged files: %v", left)
					}
				}
			})
		}
	}

	// Every route that changes state is in the matrix above.
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t))
	covered := map[string]bool{"POST /login": true} // public: tested on its own
	for _, rt := range routes {
		covered[rt.route] = true
	}
	var missing []string
	for _, r := range s.e.Routes() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !covered[r.Method+" "+r.Path] {
			missing = append(missing, r.Method+" "+r.Path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("state-changing routes missing from the permission matrix: %v", missing)
	}
}

// TestPagesNeedSignIn checks what a visitor who has not signed in gets.
func TestPagesNeedSignIn(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	b := newBrowser(s)
	tests := []struct {
		name         string
		target       string
		header       map[string]string
		wantStatus   int
		wantLocation string
	}{
		{name: "home", target: "/", wantStatus: http.StatusSeeOther, wantLocation: "/login"},
		{name: "a page returns to itself", target: "/search?q=steel+tariffs", wantStatus: http.StatusSeeOther,
			wantLocation: "/login?next=%2Fsearch%3Fq%3Dsteel%2Btariffs"},
		{name: "export", target: "/reports/12/export.json", wantStatus: http.StatusSeeOther,
			wantLocation: "/login?next=%2Freports%2F12%2Fexport.json"},
		{name: "unknown page", target: "/no/such/page", wantStatus: http.StatusSeeOther,
			wantLocation: "/login?next=%2Fno%2Fsuch%2Fpage"},
		{name: "event stream", target: "/jobs/5/events", header: map[string]string{"Accept": "text/event-stream"},
			wantStatus: http.StatusUnauthorized},
		{name: "htmx", target: "/jobs/5", header: map[string]string{"HX-Request": "true"}, wantStatus: http.StatusUnauthorized},
		{name: "health check is public", target: "/healthz", wantStatus: http.StatusOK},
		{name: "static assets are public", target: "/static/style.css", wantStatus: http.StatusOK},
		{name: "sign-in page is public", target: "/login", wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.target, nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := b.do(req)
			wantStatus(t, rec, tt.wantStatus)
			if loc := rec.Header().Get("Location"); loc != tt.wantLocation {
				t.Errorf("Location = %q, want %q", loc, tt.wantLocation)
			}
			if tt.wantStatus == http.StatusUnauthorized {
				doc := parseHTML(t, rec)
				if href := byTestID(doc, "error-login").AttrOr("href", ""); href != "/login" {
					t.Errorf("401 page sign-in link = %q, want /login", href)
				}
				if byTestID(doc, "nav").Find("a").Length() != 0 {
					t.Error("the 401 page shows the navigation")
				}
			}
		})
	}
}

func TestLoginAndHeader(t *testing.T) {
	tests := []struct {
		name      string
		user      auth.User
		wantNav   []string
		wantCanel bool
	}{
		{name: "admin", user: adminUser, wantNav: []string{"Home", "Search", "New report", "Reports", "Upload", "Rankers"}, wantCanel: true},
		{name: "analyst", user: analystUser, wantNav: []string{"Home", "Search", "New report", "Reports"}, wantCanel: true},
		{name: "reviewer", user: reviewerUser, wantNav: []string{"Home", "Search", "Reports"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
			b := newBrowser(s)
			// The name is matched without regard to case.
			rec := b.login(t, strings.ToUpper(tt.user.Name), tt.user.Name+" password")
			wantStatus(t, rec, http.StatusSeeOther)
			if loc := rec.Header().Get("Location"); loc != "/" {
				t.Errorf("after login Location = %q, want /", loc)
			}
			if _, ok := b.cookies["crucible_login"]; ok {
				t.Error("the sign-in cookie survives signing in")
			}
			rec = b.get("/jobs/5")
			wantStatus(t, rec, http.StatusOK)
			doc := parseHTML(t, rec)
			if got := textOf(doc, "account-name"); got != tt.user.Name {
				t.Errorf("header name = %q, want %q", got, tt.user.Name)
			}
			if got := textOf(doc, "account-role"); got != string(tt.user.Role) {
				t.Errorf("header role = %q, want %q", got, tt.user.Role)
			}
			form := byTestID(doc, "logout-form")
			if form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/logout" ||
				form.Find(`input[name="csrf_token"]`).AttrOr("value", "") == "" {
				t.Error("no sign-out form posting to /logout with a CSRF token")
			}
			var nav []string
			byTestID(doc, "nav").Find("a").Each(func(_ int, a *goquery.Selection) { nav = append(nav, a.Text()) })
			if diff := cmp.Diff(tt.wantNav, nav); diff != "" {
				t.Errorf("navigation (-want +got)\n%s", diff)
			}
			if got := byTestID(doc, "job-cancel-form").Length() == 1; got != tt.wantCanel {
				t.Errorf("cancel form shown: %v, want %v", got, tt.wantCanel)
			}
			// Signed in, the sign-in page sends the user on.
			rec = b.get("/login?next=%2Fjobs")
			wantStatus(t, rec, http.StatusSeeOther)
			if loc := rec.Header().Get("Location"); loc != "/jobs" {
				t.Errorf("sign-in page when signed in: Location = %q, want /jobs", loc)
			}
		})
	}
}

func TestLoginRedirects(t *testing.T) {
	tests := []struct {
		name string
		next string
		want string
	}{
		{name: "a page", next: "/search?q=steel", want: "/search?q=steel"},
		{name: "none", next: "", want: "/"},
		{name: "another host", next: "//evil.example/", want: "/"},
		{name: "backslash host", next: `/\evil.example`, want: "/"},
		{name: "absolute URL", next: "https://evil.example/", want: "/"},
		{name: "the sign-in page", next: "/login", want: "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
			b := newBrowser(s)
			rec := b.get(views.LoginURL(tt.next))
			wantStatus(t, rec, http.StatusOK)
			form := byTestID(parseHTML(t, rec), "login-form")
			tok := form.Find(`input[name="csrf_token"]`).AttrOr("value", "")
			next := form.Find(`input[name="next"]`).AttrOr("value", "")
			rec = b.post("/login", url.Values{"csrf_token": {tok}, "name": {"ada"}, "password": {"ada password"}, "next": {next}})
			wantStatus(t, rec, http.StatusSeeOther)
			if loc := rec.Header().Get("Location"); loc != tt.want {
				t.Errorf("Location = %q, want %q", loc, tt.want)
			}
		})
	}
}

func TestLoginFailures(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	b := newBrowser(s)
	tests := []struct {
		name       string
		user, pw   string
		wantStatus int
		wantError  string
	}{
		{name: "wrong password", user: "ada", pw: "not the password", wantStatus: http.StatusUnauthorized, wantError: "The user name or the password is wrong."},
		{name: "unknown name", user: "nobody", pw: "ada password", wantStatus: http.StatusUnauthorized, wantError: "The user name or the password is wrong."},
		{name: "no password", user: "ada", pw: "", wantStatus: http.StatusUnprocessableEntity, wantError: "Enter your user name and your password."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := b.login(t, tt.user, tt.pw)
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if got := textOf(doc, "login-error"); got != tt.wantError {
				t.Errorf("error = %q, want %q", got, tt.wantError)
			}
			if got := valueOf(doc, "login-name"); got != tt.user {
				t.Errorf("name kept as %q, want %q", got, tt.user)
			}
			if got := valueOf(doc, "login-password"); got != "" {
				t.Errorf("the password is echoed back: %q", got)
			}
			if _, ok := b.cookies["crucible_session"]; ok {
				t.Error("a failed login set a session cookie")
			}
		})
	}
	line := findLog(t, s.log, "login failed")
	if line["user"] != "ada" || line["client_ip"] != "192.0.2.1" || line["level"] != "WARN" {
		t.Errorf("failed login logged as %v, want WARN with user ada and client_ip 192.0.2.1", line)
	}
	if strings.Contains(s.log.String(), "not the password") {
		t.Error("a password reached the log")
	}
	b.mustLogin(t, adminUser)
	line = findLog(t, s.log, "login")
	if line["user"] != "ada" || line["role"] != "admin" {
		t.Errorf("login logged as %v", line)
	}
	b.get("/jobs")
	var sawUser bool
	for _, l := range strings.Split(s.log.String(), "\n") {
		sawUser = sawUser || strings.Contains(l, `"path":"/jobs"`) && strings.Contains(l, `"user":"ada"`)
	}
	if !sawUser {
		t.Error("the request line of a signed-in request does not name the user")
	}
}

// TestLoginRateLimit fails five logins as ada from one address and
// expects the sixth attempt, even with the right password, to get 429
// with Retry-After; another address may still try other names.
func TestLoginRateLimit(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	b := newBrowser(s)
	// Three wrong guesses for ada from one address cost nothing...
	for range 3 {
		wantStatus(t, b.login(t, "ada", "wrong guess"), http.StatusUnauthorized)
	}
	// ...then that name from that address waits, even with the right
	// password.
	rec := b.login(t, "ada", "ada password")
	wantStatus(t, rec, http.StatusTooManyRequests)
	if got := rec.Header().Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if got := textOf(parseHTML(t, rec), "login-error"); !strings.Contains(got, "Try again in 1 second.") {
		t.Errorf("429 message = %q", got)
	}
	if _, ok := b.cookies["crucible_session"]; ok {
		t.Error("a refused login set a session cookie")
	}
	// The guesses do not lock ada out: from another address she signs in.
	other := newBrowser(s)
	other.remote = "198.51.100.7:4000"
	wantStatus(t, other.login(t, "ada", "ada password"), http.StatusSeeOther)
	// Nor do they delay another name from the same address.
	wantStatus(t, newBrowserAt(s, b.remote).login(t, "alan", "alan password"), http.StatusSeeOther)

	// An address that fails too often, under any names, is refused. The
	// guesser waits as told between guesses at two known names (an
	// unknown name costs a full-cost bcrypt check, seconds under the race
	// detector).
	guesser := newBrowser(s)
	guesser.remote = "203.0.113.9:5000"
	for failures := 0; failures < auth.AddressFailures; {
		rec := guesser.login(t, []string{"ada", "alan"}[failures%2], "wrong guess")
		if rec.Code == http.StatusTooManyRequests {
			wait, _ := strconv.Atoi(rec.Header().Get("Retry-After"))
			s.clock.set(s.clock.Now().Add(time.Duration(wait) * time.Second))
			continue
		}
		wantStatus(t, rec, http.StatusUnauthorized)
		failures++
	}
	// grace has not been guessed at, but the address is refused.
	wantStatus(t, guesser.login(t, "grace", "grace password"), http.StatusTooManyRequests)
	// X-Forwarded-For is ignored without TrustProxy: it cannot pick a
	// fresh address.
	spoof := newBrowser(s)
	spoof.remote = guesser.remote
	rec = spoof.get("/login")
	tok := byTestID(parseHTML(t, rec), "login-form").Find(`input[name="csrf_token"]`).AttrOr("value", "")
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{
		"csrf_token": {tok}, "name": {"grace"}, "password": {"grace password"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", "203.0.113.50")
	wantStatus(t, spoof.do(req), http.StatusTooManyRequests)

	// A window after the last failure, the address may sign in again.
	s.clock.set(s.clock.Now().Add(auth.LoginWindow))
	wantStatus(t, guesser.login(t, "grace", "grace password"), http.StatusSeeOther)
}

// newBrowserAt is a new browser (no cookies) at a client address.
func newBrowserAt(s *accountServer, remote string) *browser {
	b := newBrowser(s)
	b.remote = remote
	return b
}

// TestSessionFixation checks that signing in always starts a new session:
// a session id the browser held before (planted or its own) is replaced
// and the old one ends.
func TestSessionFixation(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser))
	b := newBrowser(s)
	// A planted, well-formed token the server never issued is not honoured.
	planted := auth.NewToken()
	b.cookies["crucible_session"] = &http.Cookie{Name: "crucible_session", Value: planted}
	rec := b.get("/")
	wantStatus(t, rec, http.StatusSeeOther)
	if _, ok := b.cookies["crucible_session"]; ok {
		t.Error("an unknown session cookie is not cleared")
	}
	b.mustLogin(t, adminUser)
	first := b.cookies["crucible_session"].Value
	if first == planted {
		t.Fatal("the session id is the planted one")
	}

	// Signing in again (as another user, from the same browser, with the
	// session's token: the sign-in page itself sends a signed-in user on)
	// gives a new id and ends the first session.
	rec = b.post("/login", url.Values{"csrf_token": {b.csrf(t, "/")}, "name": {"alan"}, "password": {"alan password"}})
	wantStatus(t, rec, http.StatusSeeOther)
	second := b.cookies["crucible_session"].Value
	if second == first {
		t.Fatal("the session id did not change at login")
	}
	if n := s.accounts.sessionCount(); n != 1 {
		t.Errorf("%d sessions stored, want 1: the old one was not ended", n)
	}
	old := newBrowser(s)
	old.cookies["crucible_session"] = &http.Cookie{Name: "crucible_session", Value: first}
	wantStatus(t, old.get("/"), http.StatusSeeOther)
	doc := parseHTML(t, b.get("/"))
	if got := textOf(doc, "account-name"); got != "alan" {
		t.Errorf("signed in as %q, want alan", got)
	}
}

func TestSessionCookie(t *testing.T) {
	tests := []struct {
		name       string
		cfg        web.Config
		tls        bool
		wantSecure bool
	}{
		{name: "plain HTTP", wantSecure: false},
		{name: "behind a TLS proxy", cfg: web.Config{SecureCookies: true}, wantSecure: true},
		{name: "TLS", tls: true, wantSecure: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAccountServer(t, tt.cfg, newFakeAccounts(t, adminUser))
			b := newBrowser(s)
			rec := b.get("/login")
			tok := byTestID(parseHTML(t, rec), "login-form").Find(`input[name="csrf_token"]`).AttrOr("value", "")
			req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{
				"csrf_token": {tok}, "name": {"ada"}, "password": {"ada password"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.tls {
				req = httptest.NewRequest(http.MethodPost, "https://example.org/login", req.Body)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			rec = b.do(req)
			wantStatus(t, rec, http.StatusSeeOther)
			var got *http.Cookie
			for _, c := range rec.Result().Cookies() {
				if c.Name == "crucible_session" {
					got = c
				}
			}
			if got == nil {
				t.Fatal("no session cookie")
			}
			if !got.HttpOnly || got.SameSite != http.SameSiteLaxMode || got.Path != "/" || got.Secure != tt.wantSecure {
				t.Errorf("cookie HttpOnly %v SameSite %v Path %q Secure %v; want true, Lax, /, %v",
					got.HttpOnly, got.SameSite, got.Path, got.Secure, tt.wantSecure)
			}
			if len(got.Value) != 43 {
				t.Errorf("cookie value %d characters, want a 43-character token", len(got.Value))
			}
		})
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
		b := newBrowser(s)
		b.mustLogin(t, adminUser)
		// Used every 11 hours, the session lives on...
		for i := 1; i <= 3; i++ {
			s.clock.set(testNow.Add(time.Duration(11*i) * time.Hour))
			wantStatus(t, b.get("/"), http.StatusOK)
		}
		// ...until it idles 12 hours (33h + 12h = 45h after login).
		s.clock.set(testNow.Add(45 * time.Hour))
		rec := b.get("/jobs")
		wantStatus(t, rec, http.StatusSeeOther)
		if loc := rec.Header().Get("Location"); loc != "/login?next=%2Fjobs" {
			t.Errorf("expired session: Location = %q, want the sign-in page", loc)
		}
		if _, ok := b.cookies["crucible_session"]; ok {
			t.Error("the expired session's cookie was not cleared")
		}
	})
	t.Run("absolute", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
		b := newBrowser(s)
		b.mustLogin(t, adminUser)
		// Used every 10 hours for 7 days: 16 uses reach 160 h < 168 h.
		for i := 1; i <= 16; i++ {
			s.clock.set(testNow.Add(time.Duration(10*i) * time.Hour))
			wantStatus(t, b.get("/"), http.StatusOK)
		}
		s.clock.set(testNow.Add(7 * 24 * time.Hour))
		wantStatus(t, b.get("/"), http.StatusSeeOther)
	})
	t.Run("post after expiry", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
		b := newBrowser(s)
		b.mustLogin(t, adminUser)
		token := b.csrf(t, "/")
		s.clock.set(testNow.Add(13 * time.Hour))
		req := httptest.NewRequest(http.MethodPost, "/jobs/5/cancel", nil)
		req.Header.Set(views.HeaderCSRF, token)
		wantStatus(t, b.do(req), http.StatusUnauthorized)
		if n := len(s.svc.cancels()); n != 0 {
			t.Errorf("the job was cancelled with an expired session")
		}
	})
}

func TestLogout(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	b := newBrowser(s)
	b.mustLogin(t, adminUser)
	cookie := b.cookies["crucible_session"].Value
	doc := parseHTML(t, b.get("/"))
	tok := byTestID(doc, "logout-form").Find(`input[name="csrf_token"]`).AttrOr("value", "")

	// Without the token, signing out is refused like any other form.
	wantStatus(t, b.post("/logout", nil), http.StatusForbidden)

	rec := b.post("/logout", url.Values{"csrf_token": {tok}})
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/login" {
		t.Errorf("after logout Location = %q, want /login", loc)
	}
	if _, ok := b.cookies["crucible_session"]; ok {
		t.Error("the session cookie was not cleared")
	}
	if n := s.accounts.sessionCount(); n != 0 {
		t.Errorf("%d sessions left after logout, want 0", n)
	}
	// The old cookie, replayed, no longer signs in.
	replay := newBrowser(s)
	replay.cookies["crucible_session"] = &http.Cookie{Name: "crucible_session", Value: cookie}
	wantStatus(t, replay.get("/"), http.StatusSeeOther)
}

func TestCSRF(t *testing.T) {
	t.Run("local mode", func(t *testing.T) {
		s := newReportServer(t, nil, web.Config{})
		token := s.csrfToken(t)
		tests := []struct {
			name       string
			form       url.Values
			header     string
			wantStatus int
		}{
			{name: "no token", form: validForm(), wantStatus: http.StatusForbidden},
			{name: "wrong token", form: withField(validForm(), "csrf_token", strings.Repeat("A", 43)), wantStatus: http.StatusForbidden},
			{name: "wrong header", form: validForm(), header: "not-the-token", wantStatus: http.StatusForbidden},
			{name: "token in the form", form: withField(validForm(), "csrf_token", token), wantStatus: http.StatusSeeOther},
			{name: "token in the header", form: validForm(), header: token, wantStatus: http.StatusSeeOther},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := len(s.svc.submissions())
				req := httptest.NewRequest(http.MethodPost, "/reports", strings.NewReader(tt.form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				if tt.header != "" {
					req.Header.Set(views.HeaderCSRF, tt.header)
				}
				rec := s.serve(req)
				wantStatus(t, rec, tt.wantStatus)
				submitted := len(s.svc.submissions()) - before
				if tt.wantStatus == http.StatusForbidden {
					if got := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(got, "security token is missing or out of date") {
						t.Errorf("403 message = %q", got)
					}
					if submitted != 0 {
						t.Error("a refused form reached the report service")
					}
				} else if submitted != 1 {
					t.Errorf("%d submissions, want 1", submitted)
				}
			})
		}
	})

	t.Run("every form carries the token", func(t *testing.T) {
		s := newEvalServer(t, web.Config{}, &yesModel{})
		token := s.csrfToken(t)
		s.jobs.put(sampleJob(5, pipeline.JobRunning))
		pages := []string{"/reports/new", "/jobs/5", "/reports/12/evaluation?gold=1"}
		s.upload(t, 12, "gold.jsonl", evalGold, nil)
		n := 0
		for _, p := range pages {
			rec := s.get(t, p)
			wantStatus(t, rec, http.StatusOK)
			parseHTML(t, rec).Find("form").Each(func(_ int, f *goquery.Selection) {
				method := strings.ToLower(f.AttrOr("method", "get"))
				field := f.Find(`input[name="csrf_token"]`)
				if method != "post" {
					if field.Length() != 0 {
						t.Errorf("%s: GET form %s carries the token, which would land in the address bar", p, f.AttrOr("data-testid", "?"))
					}
					return
				}
				n++
				if field.AttrOr("value", "") != token {
					t.Errorf("%s: POST form %s has token %q, want the page's", p, f.AttrOr("data-testid", "?"), field.AttrOr("value", ""))
				}
				if strings.Contains(f.AttrOr("enctype", ""), "multipart") && f.Find("input").First().AttrOr("name", "") != "csrf_token" {
					t.Errorf("%s: multipart form %s does not send the token first", p, f.AttrOr("data-testid", "?"))
				}
			})
		}
		// report-form, job-cancel-form, gold-upload-form, evaluate-form
		// (it posts when the model judge is offered), compare-form.
		if n != 5 {
			t.Errorf("checked %d POST forms, want 5", n)
		}
	})

	t.Run("multipart upload", func(t *testing.T) {
		tests := []struct {
			name       string
			fields     func(token string) [][2]string
			wantStatus int
		}{
			{name: "token first", fields: func(tok string) [][2]string { return [][2]string{{"csrf_token", tok}, {"name", "first"}} },
				wantStatus: http.StatusSeeOther},
			{name: "token after another field", fields: func(tok string) [][2]string { return [][2]string{{"name", "first"}, {"csrf_token", tok}} },
				wantStatus: http.StatusForbidden},
			{name: "no token", fields: func(string) [][2]string { return [][2]string{{"name", "first"}} },
				wantStatus: http.StatusForbidden},
			{name: "wrong token", fields: func(string) [][2]string { return [][2]string{{"csrf_token", "nope"}} },
				wantStatus: http.StatusForbidden},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := newEvalServer(t, web.Config{}, nil)
				body, ct := multipartBody(t, tt.fields(s.csrfToken(t)), evalGold)
				req := httptest.NewRequest(http.MethodPost, "/reports/12/evaluation/gold", body)
				req.Header.Set("Content-Type", ct)
				rec := s.serve(req)
				wantStatus(t, rec, tt.wantStatus)
				stored := len(s.gold.sets)
				if tt.wantStatus == http.StatusSeeOther {
					// The handler read the whole file although the check
					// read the start of the body: 6 nuggets, 5 of r1 and
					// 1 of r2, under the name field's value.
					if stored != 1 || len(s.gold.sets[0].Nuggets) != 6 || s.gold.sets[0].Name != "first" {
						t.Errorf("stored %d sets: %+v", stored, s.gold.sets)
					}
				} else if stored != 0 {
					t.Errorf("a refused upload stored %d sets", stored)
				}
			})
		}
	})

	t.Run("token bound to the session", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser))
		ada, alan := newBrowser(s), newBrowser(s)
		ada.mustLogin(t, adminUser)
		alan.mustLogin(t, analystUser)
		adaToken := ada.csrf(t, "/")
		if alanToken := alan.csrf(t, "/"); alanToken == adaToken {
			t.Fatal("two sessions have the same CSRF token")
		}
		req := httptest.NewRequest(http.MethodPost, "/jobs/5/cancel", nil)
		req.Header.Set(views.HeaderCSRF, adaToken)
		wantStatus(t, alan.do(req), http.StatusForbidden)
		if n := len(s.svc.cancels()); n != 0 {
			t.Error("another session's token cancelled the job")
		}
	})

	t.Run("sign-in form", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
		// Without the sign-in cookie, as from another site's form.
		b := newBrowser(s)
		rec := b.post("/login", url.Values{"name": {"ada"}, "password": {"ada password"}})
		wantStatus(t, rec, http.StatusForbidden)
		if got := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(got, "did not send this portal's sign-in cookie") {
			t.Errorf("403 message = %q", got)
		}
		// With the cookie but a token of another browser's cookie.
		other := newBrowser(s)
		rec = other.get("/login")
		otherTok := byTestID(parseHTML(t, rec), "login-form").Find(`input[name="csrf_token"]`).AttrOr("value", "")
		b.get("/login")
		wantStatus(t, b.post("/login", url.Values{"csrf_token": {otherTok}, "name": {"ada"}, "password": {"ada password"}}),
			http.StatusForbidden)
		if n := s.accounts.sessionCount(); n != 0 {
			t.Errorf("%d sessions started by refused forms", n)
		}
	})

	t.Run("cross-origin check stays", func(t *testing.T) {
		s := newReportServer(t, nil, web.Config{})
		req := httptest.NewRequest(http.MethodPost, "/reports", strings.NewReader(withField(validForm(), "csrf_token", s.csrfToken(t)).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		wantStatus(t, s.serve(req), http.StatusForbidden)
	})
}

func withField(v url.Values, key, value string) url.Values {
	v.Set(key, value)
	return v
}

func TestLocalMode(t *testing.T) {
	t.Run("no accounts: no sign-in", func(t *testing.T) {
		accounts := newFakeAccounts(t)
		s := newAccountServer(t, web.Config{LocalMode: true}, accounts)
		b := newBrowser(s)
		rec := b.get("/")
		wantStatus(t, rec, http.StatusOK)
		doc := parseHTML(t, rec)
		if got := textOf(doc, "account-local"); got != "Local mode" {
			t.Errorf("header says %q, want Local mode", got)
		}
		if got := textOf(doc, "account-role"); got != "admin" {
			t.Errorf("local role = %q, want admin", got)
		}
		if byTestID(doc, "logout-form").Length() != 0 {
			t.Error("local mode offers to sign out")
		}
		token := doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")
		// Forms still need the token.
		wantStatus(t, b.post("/jobs/5/cancel", nil), http.StatusForbidden)
		wantStatus(t, b.post("/jobs/5/cancel", url.Values{"csrf_token": {token}}), http.StatusSeeOther)
		// The sign-in page has nothing to do.
		wantStatus(t, b.get("/login"), http.StatusSeeOther)

		// Once an account exists, signing in is required, even here.
		accounts.add(t, adminUser)
		rec = b.get("/")
		wantStatus(t, rec, http.StatusSeeOther)
		if loc := rec.Header().Get("Location"); loc != "/login" {
			t.Errorf("with an account: Location = %q, want /login", loc)
		}
		wantStatus(t, b.post("/jobs/5/cancel", url.Values{"csrf_token": {token}}), http.StatusUnauthorized)
		b.mustLogin(t, adminUser)
		wantStatus(t, b.get("/"), http.StatusOK)
	})
	t.Run("no account store", func(t *testing.T) {
		s := newAccountServer(t, web.Config{LocalMode: true}, nil)
		b := newBrowser(s)
		doc := parseHTML(t, b.get("/reports/new"))
		if got := textOf(doc, "account-local"); got != "Local mode" {
			t.Errorf("header says %q, want Local mode", got)
		}
		// There is no one to sign in as.
		wantStatus(t, b.get("/login"), http.StatusSeeOther)
		token := doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")
		rec := b.post("/login", url.Values{"csrf_token": {token}, "name": {"ada"}, "password": {"ada password"}})
		wantStatus(t, rec, http.StatusUnauthorized)
	})
	t.Run("not local: sign-in even without accounts", func(t *testing.T) {
		s := newAccountServer(t, web.Config{}, newFakeAccounts(t))
		rec := newBrowser(s).get("/")
		wantStatus(t, rec, http.StatusSeeOther)
	})
}

func TestNewAccessConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     web.Config
		deps    web.Deps
		wantErr string
	}{
		{name: "no accounts off local mode", cfg: web.Config{}, wantErr: "Deps.Accounts is nil and Config.LocalMode is off"},
		{name: "short secret", cfg: web.Config{LocalMode: true, Secret: []byte("short")}, wantErr: "Config.Secret is 5 bytes; it needs at least 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deps := web.Deps{Searcher: &fakeSearcher{}, Store: &fakeStore{}}
			_, err := web.New(tt.cfg, deps)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New = %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
	// A fixed secret gives the same tokens across servers (restarts).
	secret := []byte(strings.Repeat("k", 32))
	a := newTestServer(t, nil, nil, web.Config{Secret: secret})
	b := newTestServer(t, nil, nil, web.Config{Secret: secret})
	c := newTestServer(t, nil, nil, web.Config{})
	if a.csrfToken(t) != b.csrfToken(t) {
		t.Error("two servers with one secret issue different local tokens")
	}
	if a.csrfToken(t) == c.csrfToken(t) {
		t.Error("a server with a random secret issues the fixed secret's token")
	}
}

// The health check tells visitors and non-administrators only that the
// portal is up; administrators also see the collection's size.
func TestHealthzDetailsForAdministrators(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser))
	for _, tc := range []struct {
		name string
		user *auth.User
		want string
	}{
		{"visitor", nil, `{"status":"ok"}`},
		{"analyst", &analystUser, `{"status":"ok"}`},
		{"administrator", &adminUser, `"documents":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(s)
			if tc.user != nil {
				b.mustLogin(t, *tc.user)
			}
			rec := b.get("/healthz")
			wantStatus(t, rec, http.StatusOK)
			body := strings.TrimSpace(rec.Body.String())
			if !strings.Contains(body, tc.want) || tc.user != &adminUser && strings.Contains(body, "documents") {
				t.Errorf("body %s, want %s", body, tc.want)
			}
		})
	}
}

// Nothing a signed-in user sees is kept by a browser or a proxy: pages,
// exports and error pages are no-store; the static assets keep their own
// caching.
func TestNoStore(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	b := newBrowser(s)
	b.mustLogin(t, adminUser)
	for _, target := range []string{"/", "/search?q=tariff", "/reports/12/export.json", "/reports/12/export.md", "/no/such/page", "/healthz"} {
		rec := b.get(target)
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s (%d): Cache-Control = %q, want no-store", target, rec.Code, got)
		}
	}
	if got := b.get("/static/style.css").Header().Get("Cache-Control"); !strings.HasPrefix(got, "public") {
		t.Errorf("static asset Cache-Control = %q, want its own public caching", got)
	}
}
