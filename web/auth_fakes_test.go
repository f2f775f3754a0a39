package web_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/metrics"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// fakeAccounts is an in-memory auth.Store. Every user's password is their
// name followed by " password" ("ada password"), hashed at bcrypt's
// minimum cost to keep the tests fast.
type fakeAccounts struct {
	mu       sync.Mutex
	users    []fakeAccount
	sessions map[string]auth.Session
}

type fakeAccount struct {
	user auth.User
	hash string
}

func newFakeAccounts(t *testing.T, users ...auth.User) *fakeAccounts {
	t.Helper()
	a := &fakeAccounts{sessions: map[string]auth.Session{}}
	for _, u := range users {
		a.add(t, u)
	}
	return a
}

func (a *fakeAccounts) add(t *testing.T, u auth.User) {
	t.Helper()
	h, err := auth.HashPasswordCost(u.Name+" password", bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.users = append(a.users, fakeAccount{user: u, hash: h})
}

func (a *fakeAccounts) Credentials(_ context.Context, name string) (auth.User, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, u := range a.users {
		if strings.EqualFold(u.user.Name, name) {
			return u.user, u.hash, nil
		}
	}
	return auth.User{}, "", fmt.Errorf("no user is called %q: %w", name, pipeline.ErrNotFound)
}

func (a *fakeAccounts) CountUsers(context.Context) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.users), nil
}

func (a *fakeAccounts) CreateSession(_ context.Context, s auth.Session) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions[s.TokenHash] = s
	return nil
}

func (a *fakeAccounts) SessionUser(_ context.Context, hash string, now time.Time) (auth.User, auth.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[hash]
	if !ok {
		return auth.User{}, auth.Session{}, fmt.Errorf("session: %w", pipeline.ErrNotFound)
	}
	if s.Expired(now) {
		delete(a.sessions, hash)
		return auth.User{}, auth.Session{}, fmt.Errorf("session expired: %w", pipeline.ErrNotFound)
	}
	if now.Sub(s.LastSeenAt) >= auth.TouchInterval {
		s.LastSeenAt = now
		a.sessions[hash] = s
	}
	for _, u := range a.users {
		if u.user.ID == s.UserID {
			return u.user, s, nil
		}
	}
	return auth.User{}, auth.Session{}, fmt.Errorf("session user: %w", pipeline.ErrNotFound)
}

func (a *fakeAccounts) DeleteSession(_ context.Context, hash string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sessions, hash)
	return nil
}

func (a *fakeAccounts) DeleteExpiredSessions(_ context.Context, now time.Time) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for h, s := range a.sessions {
		if s.Expired(now) {
			delete(a.sessions, h)
			n++
		}
	}
	return n, nil
}

// sessionCount is how many sessions are stored.
func (a *fakeAccounts) sessionCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.sessions)
}

// The test accounts, one per role.
var (
	adminUser    = auth.User{ID: 1, Name: "ada", Role: auth.RoleAdmin}
	analystUser  = auth.User{ID: 2, Name: "alan", Role: auth.RoleAnalyst}
	reviewerUser = auth.User{ID: 3, Name: "grace", Role: auth.RoleReviewer}
)

// accountServer is the portal with report and evaluation pages and
// accounts, on fakes; job 5 is running, job 9 (the analyst's) failed and
// report 12 is evalReport.
type accountServer struct {
	e        *echo.Echo
	accounts *fakeAccounts
	jobs     *fakeJobStore
	svc      *fakeReportService
	gold     *fakeGoldStore
	uploads  *fakeUploads
	// versions and model are the report authoring's store and model
	// (newTestAuthoring).
	versions *fakeVersions
	model    *checkModel
	rankers  *fakeRankers
	clock    *fakeClock
	log      *bytes.Buffer
}

// newAccountServer builds the portal with the accounts. cfg's clock is
// replaced by a settable one starting at testNow.
func newAccountServer(t *testing.T, cfg web.Config, accounts *fakeAccounts) *accountServer {
	t.Helper()
	jobs := newFakeJobStore()
	rep := evalReport()
	jobs.reports[rep.ID] = rep
	jobs.put(sampleJob(5, pipeline.JobRunning))
	// Job 9 failed; the analyst submitted it, so the analyst may delete it.
	failed := sampleJob(9, pipeline.JobFailed)
	failed.SubmittedBy = analystUser.Name
	jobs.put(failed)
	svc := &fakeReportService{engines: testEngines, nextID: 7}
	gold := &fakeGoldStore{}
	ups := newFakeUploads(t)
	rankers := newFakeRankers()
	clock := &fakeClock{t: testNow}
	cfg.Now = clock.Now
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&syncWriter{w: &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	deps := web.Deps{
		Searcher: &fakeSearcher{},
		Store:    evalStore(),
		Logger:   logger,
		Jobs:     jobs,
		Reports:  svc,
		Gold:     gold,
		Uploads:  ups,
		Rankers:  rankers,
		Metrics:  metrics.New(metrics.Options{}),
	}
	if accounts != nil {
		deps.Accounts = accounts
	}
	editor, versions, model := newTestAuthoring(t, jobs, deps.Store)
	deps.Authoring = editor
	e, err := web.New(cfg, deps)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	return &accountServer{e: e, accounts: accounts, jobs: jobs, svc: svc, gold: gold, uploads: ups, clock: clock, log: &logBuf,
		versions: versions, model: model, rankers: rankers}
}

// browser is a client of the portal with a cookie jar, as a browser would
// keep one.
type browser struct {
	e       *echo.Echo
	cookies map[string]*http.Cookie
	// remote is the client's address (RemoteAddr); empty keeps
	// httptest's 192.0.2.1:1234.
	remote string
}

func newBrowser(s *accountServer) *browser {
	return &browser{e: s.e, cookies: map[string]*http.Cookie{}}
}

// do sends the request with the jar's cookies and stores the cookies the
// response sets, dropping those it expires.
func (b *browser) do(req *http.Request) *httptest.ResponseRecorder {
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	if b.remote != "" {
		req.RemoteAddr = b.remote
	}
	rec := httptest.NewRecorder()
	b.e.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return rec
}

func (b *browser) get(target string) *httptest.ResponseRecorder {
	return b.do(httptest.NewRequest(http.MethodGet, target, nil))
}

// post sends a URL-encoded form as it is.
func (b *browser) post(target string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// csrf returns the CSRF token of the page at target (its csrf-token meta
// element).
func (b *browser) csrf(t *testing.T, target string) string {
	t.Helper()
	rec := b.get(target)
	wantStatus(t, rec, http.StatusOK)
	tok := parseHTML(t, rec).Find(`meta[name="csrf-token"]`).AttrOr("content", "")
	if tok == "" {
		t.Fatalf("%s has no csrf-token meta element", target)
	}
	return tok
}

// login signs in from the sign-in page's form and returns the response.
func (b *browser) login(t *testing.T, name, password string) *httptest.ResponseRecorder {
	t.Helper()
	rec := b.get(views.LoginPath)
	wantStatus(t, rec, http.StatusOK)
	tok := byTestID(parseHTML(t, rec), "login-form").Find(`input[name="csrf_token"]`).AttrOr("value", "")
	if tok == "" {
		t.Fatal("the sign-in form has no CSRF token")
	}
	return b.post(views.LoginPath, url.Values{"csrf_token": {tok}, "name": {name}, "password": {password}})
}

// mustLogin signs in as the user with their password and checks it
// worked.
func (b *browser) mustLogin(t *testing.T, u auth.User) {
	t.Helper()
	rec := b.login(t, u.Name, u.Name+" password")
	if rec.Code != http.StatusSeeOther || b.cookies["crucible_session"] == nil {
		t.Fatalf("login as %s: status %d, session cookie %v; body:\n%s", u.Name, rec.Code,
			b.cookies["crucible_session"], truncate(rec.Body.String(), 1500))
	}
}

// multipartBody is a multipart form of fields in the given order
// (name, value pairs), the gold file named "nuggets" last when content is
// not empty.
func multipartBody(t *testing.T, fields [][2]string, content string) (*bytes.Buffer, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if content != "" {
		fw, err := mw.CreateFormFile("nuggets", "gold.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(content))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &body, mw.FormDataContentType()
}
