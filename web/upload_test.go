package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/crucible-portal/crucible/pipeline/uploads"
	"github.com/crucible-portal/crucible/views"
	"github.com/crucible-portal/crucible/web"
)

// fakeUploads is an in-memory handlers.UploadService that stages files in
// a real folder and queues nothing.
type fakeUploads struct {
	root    string
	mu      sync.Mutex
	uploads []uploads.Upload
}

func newFakeUploads(t *testing.T) *fakeUploads {
	return &fakeUploads{root: filepath.Join(t.TempDir(), "uploads")}
}

func (f *fakeUploads) Stage() (*uploads.Staging, error) { return uploads.NewStaging(f.root) }

func (f *fakeUploads) Submit(_ context.Context, st *uploads.Staging, uploader string) (uploads.Upload, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := uploads.Upload{ID: int64(len(f.uploads) + 1), Uploader: uploader, Files: st.Files(), Dir: st.Dir(),
		State: uploads.Queued, CreatedAt: testNow}
	f.uploads = append(f.uploads, u)
	return u, nil
}

func (f *fakeUploads) Upload(_ context.Context, id int64) (uploads.Upload, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id < 1 || id > int64(len(f.uploads)) {
		return uploads.Upload{}, fmt.Errorf("upload %d: %w", id, pipeline.ErrNotFound)
	}
	return f.uploads[id-1], nil
}

func (f *fakeUploads) Uploads(_ context.Context, limit int) ([]uploads.Upload, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []uploads.Upload
	for i := len(f.uploads) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, f.uploads[i])
	}
	return out, nil
}

func (f *fakeUploads) Cancel(_ context.Context, id int64, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id < 1 || id > int64(len(f.uploads)) {
		return fmt.Errorf("upload %d: %w", id, pipeline.ErrNotFound)
	}
	u := &f.uploads[id-1]
	if u.State.Finished() {
		return pipeline.Invalidf("upload %d has already ended", id)
	}
	u.State, u.CancelledBy, u.Message = uploads.Failed, by, "Cancelled by "+by+" before it was read; nothing of it was stored."
	return nil
}

// submitted is how many uploads were queued.
func (f *fakeUploads) submitted() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.uploads)
}

// stagingFolders lists the folders in the uploads folder.
func stagingFolders(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// uploadFile is one file of an upload form.
type uploadFile struct{ name, content string }

// uploadBody is a multipart upload form: the CSRF token first (when
// token is not empty), then the files in the "files" field.
func uploadBody(t *testing.T, token string, files ...uploadFile) (*bytes.Buffer, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if token != "" {
		if err := mw.WriteField(views.FieldCSRF, token); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		fw, err := mw.CreateFormFile(views.FieldUploadFiles, f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(fw, f.content); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &body, mw.FormDataContentType()
}

// uploadRequest builds the upload POST.
func newUploadRequest(t *testing.T, token string, files ...uploadFile) *http.Request {
	t.Helper()
	body, ct := uploadBody(t, token, files...)
	req := httptest.NewRequest(http.MethodPost, views.UploadPath, body)
	req.Header.Set("Content-Type", ct)
	return req
}

// corpusServer is the portal over a real SQLite store, Bleve index and
// upload runner, whose uploads the tests run with Step.
type corpusServer struct {
	e      *browser
	db     *sqlite.DB
	runner *uploads.Runner
}

// newCorpusServer builds it in local mode (the visitor is the local
// administrator) when accounts is nil.
func newCorpusServer(t *testing.T, cfg web.Config, accounts auth.Store) *corpusServer {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix, err := index.Open(filepath.Join(dir, "index.bleve"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	runner := &uploads.Runner{Store: db, Documents: db, Index: ix, Segment: index.Segment, Dir: filepath.Join(dir, "uploads")}
	cfg.LocalMode = accounts == nil
	deps := web.Deps{
		Searcher: &index.Searcher{Index: ix, Source: db},
		Store:    db,
		Marker:   ix,
		Uploads:  runner,
	}
	if accounts != nil {
		deps.Accounts = accounts
	}
	e, err := web.New(cfg, deps)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	return &corpusServer{e: &browser{e: e, cookies: map[string]*http.Cookie{}}, db: db, runner: runner}
}

// token is the page's CSRF token.
func (s *corpusServer) token(t *testing.T) string {
	t.Helper()
	return s.e.csrf(t, views.UploadPath)
}

// upload posts the files with a valid token.
func (s *corpusServer) upload(t *testing.T, files ...uploadFile) *httptest.ResponseRecorder {
	t.Helper()
	return s.e.do(newUploadRequest(t, s.token(t), files...))
}

// ingest uploads the files, checks the redirect to the upload's page,
// runs the upload and returns its page.
func (s *corpusServer) ingest(t *testing.T, files ...uploadFile) (*httptest.ResponseRecorder, string) {
	t.Helper()
	rec := s.upload(t, files...)
	wantStatus(t, rec, http.StatusSeeOther)
	loc := rec.Header().Get("Location")
	if !strings.HasPrefix(loc, views.UploadsPath+"/") {
		t.Fatalf("upload redirected to %q, want an upload page", loc)
	}
	if ran, err := s.runner.Step(context.Background()); err != nil || !ran {
		t.Fatalf("Step = %v, %v", ran, err)
	}
	page := s.e.get(loc)
	wantStatus(t, page, http.StatusOK)
	return page, loc
}

func TestUploadIngestsAndSearches(t *testing.T) {
	s := newCorpusServer(t, web.Config{}, nil)

	// The form, linked from the navigation for the (local) administrator.
	form := s.e.get(views.UploadPath)
	wantStatus(t, form, http.StatusOK)
	doc := parseHTML(t, form)
	if href := byTestID(doc, "nav-upload").AttrOr("href", ""); href != views.UploadPath {
		t.Errorf("navigation links to the upload page at %q, want %q", href, views.UploadPath)
	}
	if byTestID(doc, "upload-form").Find("input").First().AttrOr("name", "") != views.FieldCSRF {
		t.Error("the upload form's first field is not the CSRF token")
	}
	if got := textOf(doc, "upload-max-total") + " / " + textOf(doc, "upload-max-file"); got != "200 MiB / 100 MiB" {
		t.Errorf("limits shown %q, want the defaults 200 MiB / 100 MiB", got)
	}
	if byTestID(doc, "uploads-empty").Length() != 1 {
		t.Error("the empty upload list is not said to be empty")
	}

	rec := s.upload(t,
		uploadFile{"canals.jsonl", `{"id":"canal-1","title":"Erie Canal","text":"The Erie Canal joined the Hudson to Lake Erie.","year":"1825"}` + "\n" +
			`{"id":"canal-2","title":"Chesapeake","text":"Towpaths along the Potomac carried coal."}` + "\n"},
		uploadFile{"note.txt", "Lighthouses guard the harbour entrance."},
	)
	wantStatus(t, rec, http.StatusSeeOther)
	loc := rec.Header().Get("Location")
	if loc != views.UploadURL(1) {
		t.Fatalf("Location = %q, want %q", loc, views.UploadURL(1))
	}
	// Queued until the worker runs: the page refreshes itself.
	queued := parseHTML(t, s.e.get(loc))
	if got := textOf(queued, "upload-state"); got != "Queued" {
		t.Errorf("state before the worker ran = %q, want Queued", got)
	}
	if queued.Find(`meta[http-equiv="refresh"]`).Length() != 1 {
		t.Error("a queued upload's page does not refresh itself")
	}
	if got := textOf(queued, "upload-uploader"); got != "local" {
		t.Errorf("uploader %q, want local", got)
	}

	if ran, err := s.runner.Step(context.Background()); err != nil || !ran {
		t.Fatalf("Step = %v, %v", ran, err)
	}
	done := parseHTML(t, s.e.get(loc))
	got := map[string]string{
		"state": textOf(done, "upload-state"), "records": textOf(done, "upload-records"),
		"added": textOf(done, "upload-added"), "replaced": textOf(done, "upload-replaced"),
		"skipped": textOf(done, "upload-skipped"),
	}
	// Two JSON Lines records and one text file.
	want := map[string]string{"state": "Done", "records": "3", "added": "3", "replaced": "0", "skipped": "0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("upload page (-want +got)\n%s", diff)
	}
	if done.Find(`meta[http-equiv="refresh"]`).Length() != 0 {
		t.Error("a finished upload's page still refreshes itself")
	}
	if !strings.Contains(textOf(done, "upload-done"), "3 documents added and 0 replaced") {
		t.Errorf("done notice %q", textOf(done, "upload-done"))
	}
	if diff := cmp.Diff([]string{"canals.jsonl", "note.txt"}, texts(done, "upload-file-name")); diff != "" {
		t.Errorf("files listed (-want +got)\n%s", diff)
	}

	// The new documents are found by the running index at once.
	search := parseHTML(t, s.e.get(views.SearchURL("towpaths potomac", true, 1)))
	if titles := texts(search, "result-title"); len(titles) == 0 || titles[0] != "Chesapeake" {
		t.Errorf("search for the uploaded text found %q, want Chesapeake first", titles)
	}
	search = parseHTML(t, s.e.get(views.SearchURL("lighthouses", true, 1)))
	if titles := texts(search, "result-title"); len(titles) != 1 {
		t.Errorf("search for the uploaded note found %q, want one result", titles)
	}
	d, err := s.db.Document(context.Background(), "note.txt")
	if err != nil || d.Text != "Lighthouses guard the harbour entrance." {
		t.Errorf("note.txt stored as %q, %v", d.Text, err)
	}

	// The upload list shows it, and /admin/uploads leads there.
	list := parseHTML(t, s.e.get(views.UploadPath))
	if diff := cmp.Diff([]string{"Done"}, texts(list, "upload-row-state")); diff != "" {
		t.Errorf("upload list states (-want +got)\n%s", diff)
	}
	if got := textOf(list, "upload-row-files"); got != "canals.jsonl, note.txt" {
		t.Errorf("upload list files %q", got)
	}
	if rec := s.e.get(views.UploadsPath); rec.Code != http.StatusFound || rec.Header().Get("Location") != views.UploadPath {
		t.Errorf("GET %s = %d to %q, want 302 to the upload page", views.UploadsPath, rec.Code, rec.Header().Get("Location"))
	}
	if rec := s.e.get(views.UploadURL(99)); rec.Code != http.StatusNotFound {
		t.Errorf("unknown upload: status %d, want 404", rec.Code)
	}
	if rec := s.e.get(views.UploadsPath + "/abc"); rec.Code != http.StatusNotFound {
		t.Errorf("malformed upload id: status %d, want 404", rec.Code)
	}
}

func TestUploadRecordErrors(t *testing.T) {
	s := newCorpusServer(t, web.Config{}, nil)
	page, _ := s.ingest(t, uploadFile{"broken.jsonl",
		`{"id":"good-1","title":"Good","text":"Mail coaches ran on turnpikes."}` + "\n" +
			`{"id": "bad", "text": ` + "\n" +
			`{"title":"No id","text":"Lost."}` + "\n" +
			`{"id":"good-2","title":"Also good","text":"Ferries crossed the river."}` + "\n"})
	doc := parseHTML(t, page)
	// 2 good records and 2 bad: the upload is done, not failed.
	got := map[string]string{"state": textOf(doc, "upload-state"), "added": textOf(doc, "upload-added"), "skipped": textOf(doc, "upload-skipped")}
	if diff := cmp.Diff(map[string]string{"state": "Done", "added": "2", "skipped": "2"}, got); diff != "" {
		t.Errorf("upload page (-want +got)\n%s", diff)
	}
	problems := texts(doc, "upload-problem-text")
	if len(problems) != 2 || !strings.HasPrefix(problems[0], "broken.jsonl:2: invalid JSON") ||
		problems[1] != `broken.jsonl:3: missing "id" field` {
		t.Errorf("problems listed %q, want lines 2 and 3 named", problems)
	}
	for _, id := range []string{"good-1", "good-2"} {
		if _, err := s.db.Document(context.Background(), id); err != nil {
			t.Errorf("good record %s not stored: %v", id, err)
		}
	}
	if !strings.Contains(textOf(doc, "upload-done"), "2 records were skipped") {
		t.Errorf("done notice %q does not mention the skipped records", textOf(doc, "upload-done"))
	}
}

func TestUploadRefused(t *testing.T) {
	tests := []struct {
		name string
		cfg  web.Config
		// files are sent with a valid token; chunked hides the length.
		files      []uploadFile
		chunked    bool
		wantStatus int
		wantText   string
	}{
		{name: "wrong type", files: []uploadFile{{"a.jsonl", `{"id":"a","text":"A."}`}, {"slides.pptx", "PK"}},
			wantStatus: http.StatusUnprocessableEntity, wantText: "slides.pptx: not a corpus file: upload .jsonl, .jsonl.gz"},
		{name: "gzipped text file", files: []uploadFile{{"notes.txt.gz", "x"}},
			wantStatus: http.StatusUnprocessableEntity, wantText: "notes.txt.gz: not a corpus file"},
		{name: "two files of one name", files: []uploadFile{{"a.txt", "A."}, {`other\a.txt`, "B."}},
			wantStatus: http.StatusUnprocessableEntity, wantText: "a.txt: two files have this name"},
		{name: "no file chosen", files: []uploadFile{{"", ""}},
			wantStatus: http.StatusUnprocessableEntity, wantText: "Choose one or more files to upload."},
		// Content-Length 300 + the form > 100 + 64 KiB slack: refused before
		// reading.
		{name: "declared length over the total", cfg: web.Config{MaxUploadBytes: 100},
			files:      []uploadFile{{"big.jsonl", strings.Repeat("x", 70<<10)}},
			wantStatus: http.StatusRequestEntityTooLarge, wantText: "The upload is larger than 100 bytes"},
		// One file of 101 bytes against a 100-byte file limit.
		{name: "one file over the file limit", cfg: web.Config{MaxUploadFileBytes: 100}, chunked: true,
			files:      []uploadFile{{"small.txt", "ok"}, {"big.txt", strings.Repeat("x", 101)}},
			wantStatus: http.StatusRequestEntityTooLarge, wantText: "big.txt is larger than 100 bytes, the largest file"},
		// Form fields other than files count too: 70 KiB without a file
		// name is over 100 bytes + 64 KiB of room for the form.
		{name: "form over the total", cfg: web.Config{MaxUploadBytes: 100}, chunked: true,
			files:      []uploadFile{{"", strings.Repeat("x", 70<<10)}},
			wantStatus: http.StatusRequestEntityTooLarge, wantText: "The upload is larger than 100 bytes"},
		// 60 + 60 bytes: each under the 100-byte file limit, together over
		// the 100-byte total.
		{name: "files together over the total", cfg: web.Config{MaxUploadBytes: 100, MaxUploadFileBytes: 100}, chunked: true,
			files:      []uploadFile{{"a.txt", strings.Repeat("a", 60)}, {"b.txt", strings.Repeat("b", 60)}},
			wantStatus: http.StatusRequestEntityTooLarge, wantText: "The upload is larger than 100 bytes, the most one upload may hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCorpusServer(t, tt.cfg, nil)
			req := newUploadRequest(t, s.token(t), tt.files...)
			if tt.chunked {
				req.ContentLength = -1
			}
			rec := s.e.do(req)
			wantStatus(t, rec, tt.wantStatus)
			doc := parseHTML(t, rec)
			if msg := textOf(doc, "upload-error-message"); !strings.Contains(msg, tt.wantText) {
				t.Errorf("message %q does not say %q", msg, tt.wantText)
			}
			if byTestID(doc, "upload-form").Length() != 1 {
				t.Error("the refused upload's page has no form to try again")
			}
			assertNothingStored(t, s)
		})
	}

	t.Run("not multipart", func(t *testing.T) {
		s := newCorpusServer(t, web.Config{}, nil)
		req := httptest.NewRequest(http.MethodPost, views.UploadPath, strings.NewReader("files=a.jsonl"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(views.HeaderCSRF, s.token(t))
		rec := s.e.do(req)
		wantStatus(t, rec, http.StatusUnprocessableEntity)
		assertNothingStored(t, s)
	})
}

// assertNothingStored checks that no upload was queued and no file kept.
func assertNothingStored(t *testing.T, s *corpusServer) {
	t.Helper()
	list, err := s.runner.Uploads(context.Background(), 10)
	if err != nil || len(list) != 0 {
		t.Errorf("%d uploads queued (%v), want none", len(list), err)
	}
	if left := stagingFolders(t, s.runner.Dir); len(left) != 0 {
		t.Errorf("files left in the uploads folder: %v", left)
	}
}

func TestUploadCSRF(t *testing.T) {
	files := []uploadFile{{"a.jsonl", `{"id":"a","text":"A."}` + "\n"}}
	tests := []struct {
		name string
		req  func(t *testing.T, token string) *http.Request
	}{
		{name: "no token", req: func(t *testing.T, _ string) *http.Request { return newUploadRequest(t, "", files...) }},
		{name: "wrong token", req: func(t *testing.T, _ string) *http.Request {
			return newUploadRequest(t, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", files...)
		}},
		{name: "token after the file", req: func(t *testing.T, token string) *http.Request {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile(views.FieldUploadFiles, "a.jsonl")
			io.WriteString(fw, files[0].content)
			mw.WriteField(views.FieldCSRF, token)
			mw.Close()
			req := httptest.NewRequest(http.MethodPost, views.UploadPath, &body)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			return req
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCorpusServer(t, web.Config{}, nil)
			rec := s.e.do(tt.req(t, s.token(t)))
			wantStatus(t, rec, http.StatusForbidden)
			if msg := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(msg, "security token") {
				t.Errorf("403 message %q does not mention the token", msg)
			}
			assertNothingStored(t, s)
		})
	}
}

func TestUploadPermissions(t *testing.T) {
	for _, u := range []auth.User{adminUser, analystUser, reviewerUser, {}} {
		role := string(u.Role)
		if role == "" {
			role = "anonymous"
		}
		t.Run(role, func(t *testing.T) {
			s := newCorpusServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
			token := ""
			if u.ID != 0 {
				s.e.mustLogin(t, u)
				token = s.e.csrf(t, "/")
			}
			page := s.e.get(views.UploadPath)
			post := s.e.do(newUploadRequest(t, token, uploadFile{"a.jsonl", `{"id":"a","text":"A."}` + "\n"}))
			status := s.e.get(views.UploadURL(1))
			switch {
			case u.ID == 0:
				wantStatus(t, page, http.StatusSeeOther)
				wantStatus(t, post, http.StatusUnauthorized)
				wantStatus(t, status, http.StatusSeeOther)
			case u.Role == auth.RoleAdmin:
				wantStatus(t, page, http.StatusOK)
				wantStatus(t, post, http.StatusSeeOther)
				wantStatus(t, status, http.StatusOK)
				if got := textOf(parseHTML(t, status), "upload-uploader"); got != adminUser.Name {
					t.Errorf("uploader %q, want %q", got, adminUser.Name)
				}
				return
			default:
				for _, rec := range []*httptest.ResponseRecorder{page, post, status} {
					wantStatus(t, rec, http.StatusForbidden)
					if msg := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(msg, "cannot") {
						t.Errorf("403 message %q does not say what the role cannot do", msg)
					}
				}
				if byTestID(parseHTML(t, s.e.get("/")), "nav-upload").Length() != 0 {
					t.Errorf("the navigation offers uploads to a %s", u.Role)
				}
			}
			assertNothingStored(t, s)
		})
	}
}

// TestUploadEscaping uploads hostile file names and corpus text and checks
// the pages show them as text.
func TestUploadEscaping(t *testing.T) {
	s := newCorpusServer(t, web.Config{}, nil)
	// A file name cannot hold a slash, so the <img> string names a file;
	// the <script> string reaches the upload page in a duplicate-id notice.
	hostileName := imgOnerror + ".txt"
	record := fmt.Sprintf(`{"id":%q,"title":%q,"text":%q}`, hostile, hostile, hostile+" about canals")
	page, _ := s.ingest(t,
		uploadFile{hostileName, hostile + " about harbours"},
		uploadFile{"hostile.jsonl", record + "\n" + record + "\n"},
	)
	doc := parseHTML(t, page)
	assertInert(t, doc, page.Body.String())
	if names := texts(doc, "upload-file-name"); len(names) == 0 || names[0] != hostileName {
		t.Errorf("file names shown %q, want %q first", names, hostileName)
	}

	list := s.e.get(views.UploadPath)
	ldoc := parseHTML(t, list)
	if ldoc.Find("img, script, [onerror]").Length() != 0 {
		t.Error("the upload list holds elements made from a file name")
	}
	if !strings.Contains(textOf(ldoc, "upload-row-files"), hostileName) {
		t.Errorf("upload list files %q, want the hostile name as text", textOf(ldoc, "upload-row-files"))
	}

	// The documents' own pages.
	for _, id := range []string{hostile, hostileName} {
		rec := s.e.get(views.DocumentURL(id, nil, ""))
		wantStatus(t, rec, http.StatusOK)
		ddoc := parseHTML(t, rec)
		if ddoc.Find("img, script, [onerror]").Length() != 0 {
			t.Errorf("document %q's page holds elements made from its text", id)
		}
		if !strings.Contains(ddoc.Text(), imgOnerror) {
			t.Errorf("document %q's page does not show the hostile text as text", id)
		}
	}

	// A refused upload names the file in its message, as text.
	rec := s.e.do(newUploadRequest(t, s.token(t), uploadFile{imgOnerror + ".pptx", "x"}))
	wantStatus(t, rec, http.StatusUnprocessableEntity)
	rdoc := parseHTML(t, rec)
	if rdoc.Find("img, [onerror]").Length() != 0 || !strings.Contains(textOf(rdoc, "upload-error-message"), imgOnerror+".pptx") {
		t.Errorf("refusal message %q is not the hostile name as text", textOf(rdoc, "upload-error-message"))
	}
}

// An upload's page offers to cancel it while it is queued or running;
// cancelling answers 303 to the page, which then says it was cancelled
// and offers nothing more; a second cancel is 409.
func TestUploadCancel(t *testing.T) {
	s := newCorpusServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	s.e.mustLogin(t, adminUser)
	token := s.e.csrf(t, "/")
	wantStatus(t, s.e.do(newUploadRequest(t, token, uploadFile{"a.jsonl", `{"id":"a","text":"A."}` + "\n"})), http.StatusSeeOther)
	doc := parseHTML(t, s.e.get(views.UploadURL(1)))
	form := byTestID(doc, "upload-cancel-form")
	if form.AttrOr("action", "") != views.UploadCancelURL(1) || form.Find(`input[name="csrf_token"]`).Length() != 1 {
		t.Fatalf("no cancel form on a queued upload's page: %q", form.AttrOr("action", ""))
	}
	cancel := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, views.UploadCancelURL(1), strings.NewReader(url.Values{"csrf_token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return s.e.do(req)
	}
	rec := cancel()
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != views.UploadURL(1) {
		t.Errorf("Location = %q", loc)
	}
	doc = parseHTML(t, s.e.get(views.UploadURL(1)))
	if got := textOf(doc, "upload-state"); got != "Cancelled" {
		t.Errorf("state %q, want Cancelled", got)
	}
	if got := textOf(doc, "upload-cancelled"); !strings.Contains(got, "Cancelled by "+adminUser.Name) {
		t.Errorf("message %q", got)
	}
	if byTestID(doc, "upload-cancel-form").Length() != 0 || byTestID(doc, "upload-failed").Length() != 0 {
		t.Error("a cancelled upload is offered a cancel again, or shown as failed")
	}
	wantStatus(t, cancel(), http.StatusConflict)
}
