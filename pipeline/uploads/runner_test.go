package uploads_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
	"github.com/crucible-portal/crucible/pipeline/corpus/corpustest"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
	"github.com/crucible-portal/crucible/pipeline/uploads"
)

// fakeIndex records the passages it is given; it can fail a call or run a
// hook after one.
type fakeIndex struct {
	mu    sync.Mutex
	ids   []string
	calls int
	// failOn is the 1-based call that fails; 0 for none.
	failOn int
	// after runs after each successful call with its number.
	after func(call int)
}

func (f *fakeIndex) IndexBatch(_ context.Context, b pipeline.IndexBatch) error {
	docs := b.Docs
	f.mu.Lock()
	f.calls++
	call := f.calls
	if call == f.failOn {
		f.mu.Unlock()
		return errors.New("disk full")
	}
	for _, d := range docs {
		f.ids = append(f.ids, d.Doc.ID)
	}
	f.mu.Unlock()
	if f.after != nil {
		f.after(call)
	}
	return nil
}

func (f *fakeIndex) indexed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ids...)
}

// oneSpan makes the whole text one passage, so passages = documents.
func oneSpan(text string, _ int) []pipeline.Span {
	return []pipeline.Span{{Start: 0, End: len(text)}}
}

// testRunner is a runner over a fresh SQLite store and a fake index.
func testRunner(t *testing.T, batch int) (*uploads.Runner, *sqlite.DB, *fakeIndex) {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := &fakeIndex{}
	r := &uploads.Runner{Store: db, Documents: db, Index: ix, Segment: oneSpan, Dir: filepath.Join(dir, "uploads"), BatchDocs: batch}
	return r, db, ix
}

// stage receives files (name, content pairs) as a browser's upload
// would, and submits them.
func submit(t *testing.T, r *uploads.Runner, files ...[2]string) uploads.Upload {
	t.Helper()
	st, err := r.Stage()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := st.AddFile(f[0], strings.NewReader(f[1]), 1<<20); err != nil {
			t.Fatalf("add %s: %v", f[0], err)
		}
	}
	u, err := r.Submit(context.Background(), st, "ada")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// step runs one queued upload and returns it as stored.
func step(t *testing.T, ctx context.Context, r *uploads.Runner, db *sqlite.DB, id int64) uploads.Upload {
	t.Helper()
	ran, err := r.Step(ctx)
	if err != nil || !ran {
		t.Fatalf("Step = %v, %v; want an upload run", ran, err)
	}
	u, err := db.Upload(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func jsonl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func doc(id, text string) string {
	return fmt.Sprintf(`{"id":%q,"title":"Title %s","text":%q}`, id, id, text)
}

func TestRunnerIngests(t *testing.T) {
	ctx := context.Background()
	r, db, ix := testRunner(t, 0)
	u := submit(t, r,
		[2]string{"speeches.jsonl", jsonl(doc("s1", "Tariffs on steel."), doc("s2", "Duties on wool."))},
		[2]string{"note.txt", "A note about canals."},
		[2]string{"page.html", "<html><head><title>Page</title></head><body><p>Railways and ports.</p></body></html>"},
	)
	if u.State != uploads.Queued || u.Uploader != "ada" || len(u.Files) != 3 {
		t.Fatalf("submitted upload = %+v", u)
	}
	got := step(t, ctx, r, db, u.ID)

	if got.State != uploads.Done || got.Message != "" || got.FinishedAt.IsZero() || got.StartedAt.IsZero() {
		t.Errorf("state %q message %q started %v finished %v", got.State, got.Message, got.StartedAt, got.FinishedAt)
	}
	// 2 JSON Lines records + 1 text file + 1 HTML file = 4 documents, all
	// new; one passage each (oneSpan).
	want := uploads.Counts{Records: 4, Documents: 4, Added: 4, Passages: 4, BytesRead: u.TotalBytes()}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("counts (-want +got)\n%s", diff)
	}
	// Text files are named by their file name, as `crucible ingest FILE`
	// names them.
	// Each document's source names the uploaded file (and line), never
	// the staging folder on the server.
	for id, source := range map[string]string{"s1": "speeches.jsonl:1", "s2": "speeches.jsonl:2", "note.txt": "note.txt", "page.html": "page.html"} {
		d, err := db.Document(ctx, id)
		if err != nil {
			t.Errorf("document %q not stored: %v", id, err)
		} else if d.Source != source {
			t.Errorf("document %q source = %q, want %q", id, d.Source, source)
		}
	}
	if diff := cmp.Diff([]string{"s1", "s2", "note.txt", "page.html"}, ix.indexed()); diff != "" {
		t.Errorf("indexed (-want +got)\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, u.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the staging folder is still there after the upload (%v)", err)
	}
	if ran, err := r.Step(ctx); ran || err != nil {
		t.Errorf("a second Step ran %v (%v): nothing was queued", ran, err)
	}

	// Uploading s1 again replaces it.
	again := submit(t, r, [2]string{"fix.jsonl", jsonl(doc("s1", "Tariffs on iron."), doc("s3", "Mail coaches."))})
	got = step(t, ctx, r, db, again.ID)
	want = uploads.Counts{Records: 2, Documents: 2, Added: 1, Replaced: 1, Passages: 2, BytesRead: again.TotalBytes()}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("re-upload counts (-want +got)\n%s", diff)
	}
	d, err := db.Document(ctx, "s1")
	if err != nil || d.Text != "Tariffs on iron." {
		t.Errorf("s1 after re-upload = %q, %v; want the new text", d.Text, err)
	}
	list, err := r.Uploads(ctx, 10)
	if err != nil || len(list) != 2 || list[0].ID != again.ID {
		t.Errorf("Uploads = %d uploads, first %v (%v); want the newest first", len(list), list, err)
	}
}

func TestRunnerRecordErrors(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	u := submit(t, r,
		[2]string{"mixed.jsonl", jsonl(doc("a", "Good one."), "not json", `{"text":"no id"}`, doc("b", "Good two."), doc("a", "Again."))},
		[2]string{"empty.txt", ""},
	)
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Done {
		t.Fatalf("state %q (%s), want done: bad records do not fail an upload", got.State, got.Message)
	}
	// Lines 1, 4 and 5 are documents (5 repeats a, a notice); lines 2 and 3
	// are skipped; the empty text file is a notice. Records = 3 documents
	// + 2 skipped = 5. Stored: a (line 5 replaces line 1 in the same
	// batch) and b = 2 added.
	want := uploads.Counts{Records: 5, Documents: 3, Added: 2, Passages: 2, Skipped: 2, Notices: 2, BytesRead: u.TotalBytes()}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("counts (-want +got)\n%s", diff)
	}
	var lines []string
	for _, e := range got.Errors {
		lines = append(lines, fmt.Sprintf("%d %v %s", e.Seq, e.Skipped, e.String()))
	}
	wantLines := []string{
		`0 true mixed.jsonl:2: invalid JSON at column 2: a bare word where a value should be (text needs double quotes; only true, false and null go without): not json`,
		`1 true mixed.jsonl:3: missing "id" field`,
		`2 false mixed.jsonl:5: duplicate id "a" (first at line 1); the later record replaces it`,
		`3 false empty.txt: empty file`,
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("problems (-want +got)\n%s", diff)
	}
	for _, e := range got.Errors {
		if strings.Contains(e.Reason, r.Dir) || strings.Contains(e.File, "/") {
			t.Errorf("problem %q names the server's folder", e.String())
		}
	}
	d, err := db.Document(ctx, "a")
	if err != nil || d.Text != "Again." {
		t.Errorf("document a = %q, %v; want the later record's text", d.Text, err)
	}
}

func TestRunnerCapsErrors(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	lines := []string{doc("ok", "Fine.")}
	for i := 0; i < uploads.MaxErrors+5; i++ {
		lines = append(lines, "{broken")
	}
	u := submit(t, r, [2]string{"broken.jsonl", jsonl(lines...)})
	got := step(t, ctx, r, db, u.ID)
	// 205 broken lines: all counted, the first 200 kept.
	if got.Skipped != uploads.MaxErrors+5 || got.Problems() != 205 || len(got.Errors) != uploads.MaxErrors {
		t.Errorf("skipped %d, problems %d, kept %d; want 205, 205, %d", got.Skipped, got.Problems(), len(got.Errors), uploads.MaxErrors)
	}
	if last := got.Errors[len(got.Errors)-1]; last.Seq != 199 || last.Line != 201 {
		t.Errorf("last kept problem is #%d at line %d, want #199 at line 201 (line 1 is good)", last.Seq, last.Line)
	}
	if got.Added != 1 || got.State != uploads.Done {
		t.Errorf("added %d, state %s; want 1, done", got.Added, got.State)
	}
}

// failingStore fails to store the batch whose 1-based number is failOn.
type failingStore struct {
	pipeline.DocumentWriter
	mu     sync.Mutex
	calls  int
	failOn int
}

func (f *failingStore) ReplaceDocuments(ctx context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	f.mu.Lock()
	f.calls++
	fail := f.calls == f.failOn
	f.mu.Unlock()
	if fail {
		return pipeline.ReplaceResult{}, errors.New("database is locked")
	}
	return f.DocumentWriter.ReplaceDocuments(ctx, batch)
}

func fiveDocs() string {
	return jsonl(doc("d1", "One."), doc("d2", "Two."), doc("d3", "Three."), doc("d4", "Four."), doc("d5", "Five."))
}

func TestRunnerFailureKeepsStoredDocuments(t *testing.T) {
	tests := []struct {
		name        string
		storeFailOn int
		indexFailOn int
		wantStored  []string
		wantAdded   int
		wantMessage []string
	}{
		// Batches of 2: [d1 d2] [d3 d4] [d5]. The second batch fails to be
		// stored: the first stays.
		{name: "store fails", storeFailOn: 2, wantStored: []string{"d1", "d2"}, wantAdded: 2,
			wantMessage: []string{"big.jsonl:4", "database is locked", "documents stored before this error are kept"}},
		// The second batch is stored but not indexed: both batches stay
		// stored and counted, and the message says how to rebuild the
		// index. The batch is written when d4, line 4, is added.
		{name: "index fails", indexFailOn: 2, wantStored: []string{"d1", "d2", "d3", "d4"}, wantAdded: 4,
			wantMessage: []string{"big.jsonl:4", "crucible reindex", "disk full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			r, db, ix := testRunner(t, 2)
			r.Documents = &failingStore{DocumentWriter: db, failOn: tt.storeFailOn}
			ix.failOn = tt.indexFailOn
			u := submit(t, r, [2]string{"big.jsonl", fiveDocs()})
			got := step(t, ctx, r, db, u.ID)
			if got.State != uploads.Failed {
				t.Fatalf("state %q, want failed", got.State)
			}
			for _, w := range tt.wantMessage {
				if !strings.Contains(got.Message, w) {
					t.Errorf("message %q does not say %q", got.Message, w)
				}
			}
			if strings.Contains(got.Message, r.Dir) {
				t.Errorf("message %q names the server's folder", got.Message)
			}
			var stored []string
			for _, id := range []string{"d1", "d2", "d3", "d4", "d5"} {
				if _, err := db.Document(ctx, id); err == nil {
					stored = append(stored, id)
				}
			}
			if diff := cmp.Diff(tt.wantStored, stored); diff != "" {
				t.Errorf("stored documents (-want +got)\n%s", diff)
			}
			if got.Added != tt.wantAdded {
				t.Errorf("added %d, want %d", got.Added, tt.wantAdded)
			}
			if _, err := os.Stat(filepath.Join(r.Dir, u.Dir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a failed upload's files are still there (%v)", err)
			}
		})
	}
}

// TestRunnerResumes stops the server (cancels the runner's context) after
// the first batch is indexed, then starts again: the upload resumes after
// that batch, stores nothing twice and keeps each problem once.
func TestRunnerResumes(t *testing.T) {
	r, db, ix := testRunner(t, 2)
	content := jsonl(doc("d1", "One."), "bad line", doc("d2", "Two."), doc("d3", "Three."), doc("d4", "Four."), doc("d5", "Five."))
	u := submit(t, r, [2]string{"big.jsonl", content})

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ix.after = func(call int) {
		if call == 1 {
			stop()
		}
	}
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Running {
		t.Fatalf("after a shutdown the upload is %q, want still running", got.State)
	}
	// The first batch, [d1 d2], was committed; d1, the bad line and d2
	// had been read.
	if got.Committed != 2 || got.Added != 2 || len(got.Errors) != 1 {
		t.Fatalf("interrupted upload: committed %d, added %d, %d problems; want 2, 2, 1", got.Committed, got.Added, len(got.Errors))
	}
	if _, err := os.Stat(filepath.Join(r.Dir, u.Dir, "big.jsonl")); err != nil {
		t.Fatalf("an interrupted upload's file is gone: %v", err)
	}

	// The next start.
	ix.after = nil
	next := &uploads.Runner{Store: db, Documents: db, Index: ix, Segment: oneSpan, Dir: r.Dir, BatchDocs: 2}
	if err := next.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if q, _ := db.Upload(context.Background(), u.ID); q.State != uploads.Queued {
		t.Fatalf("after Recover the upload is %q, want queued", q.State)
	}
	got = step(t, context.Background(), next, db, u.ID)
	// 5 documents + 1 skipped line; all 5 added once, none replaced.
	want := uploads.Counts{Records: 6, Documents: 5, Added: 5, Passages: 5, Skipped: 1, BytesRead: int64(len(content))}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("resumed counts (-want +got)\n%s", diff)
	}
	if got.State != uploads.Done || len(got.Errors) != 1 || got.Errors[0].Line != 2 {
		t.Errorf("resumed upload: state %q, problems %v; want done with the line 2 problem once", got.State, got.Errors)
	}
	if diff := cmp.Diff([]string{"d1", "d2", "d3", "d4", "d5"}, ix.indexed()); diff != "" {
		t.Errorf("indexed (-want +got): nothing should be indexed twice\n%s", diff)
	}
}

// stoppingStore stops the server (cancels the context) instead of
// storing its first batch, as a shutdown during the write would.
type stoppingStore struct {
	pipeline.DocumentWriter
	stop  context.CancelFunc
	calls int
}

func (s *stoppingStore) ReplaceDocuments(ctx context.Context, batch []pipeline.IngestDocument) (pipeline.ReplaceResult, error) {
	s.calls++
	if s.calls == 1 {
		s.stop()
		return pipeline.ReplaceResult{}, context.Canceled
	}
	return s.DocumentWriter.ReplaceDocuments(ctx, batch)
}

// TestRunnerResumesAfterLostLastBatch stops the server while the last
// (here the only) batch is being stored: nothing counts as committed, so
// the resumed upload stores every document.
func TestRunnerResumesAfterLostLastBatch(t *testing.T) {
	r, db, _ := testRunner(t, 10)
	u := submit(t, r, [2]string{"big.jsonl", fiveDocs()})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	r.Documents = &stoppingStore{DocumentWriter: db, stop: stop}
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Running || got.Committed != 0 || got.Added != 0 {
		t.Fatalf("interrupted upload: state %q, committed %d, added %d; want running, 0, 0", got.State, got.Committed, got.Added)
	}
	next := &uploads.Runner{Store: db, Documents: db, Index: r.Index, Segment: oneSpan, Dir: r.Dir, BatchDocs: 10}
	if err := next.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	got = step(t, context.Background(), next, db, u.ID)
	if got.State != uploads.Done || got.Added != 5 || got.Replaced != 0 {
		t.Errorf("resumed upload: state %q, added %d, replaced %d; want done, 5, 0", got.State, got.Added, got.Replaced)
	}
}

func TestRunnerMissingFiles(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	u := submit(t, r, [2]string{"gone.jsonl", jsonl(doc("g", "Gone."))})
	if err := os.Remove(filepath.Join(r.Dir, u.Dir, "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Failed || !strings.Contains(got.Message, "gone.jsonl: the uploaded file is no longer on the server") {
		t.Errorf("state %q, message %q", got.State, got.Message)
	}
}

func TestRecoverCleansStaging(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	queued := submit(t, r, [2]string{"q.jsonl", jsonl(doc("q", "Queued."))})
	receiving, err := r.Stage() // files still arriving in this process
	if err != nil {
		t.Fatal(err)
	}
	// Left by a stopped process: a folder being received, and a finished
	// upload's folder that could not be removed.
	orphan, err := uploads.NewStaging(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	finished := submit(t, r, [2]string{"f.jsonl", jsonl(doc("f", "Finished."))})
	if err := db.FinishUpload(ctx, finished.ID, uploads.Done, ""); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(r.Dir, "notes")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}

	if err := r.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(r.Dir, name))
		return err == nil
	}
	got := map[string]bool{
		"queued": exists(queued.Dir), "receiving": exists(receiving.Dir()), "orphan": exists(orphan.Dir()),
		"finished": exists(finished.Dir), "other": exists("notes"),
	}
	want := map[string]bool{"queued": true, "receiving": true, "orphan": false, "finished": false, "other": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folders kept after Recover (-want +got)\n%s", diff)
	}
	if err := receiving.Discard(); err != nil || exists(receiving.Dir()) {
		t.Errorf("Discard: %v, folder still there: %v", err, exists(receiving.Dir()))
	}
}

func TestSubmitNeedsFiles(t *testing.T) {
	r, _, _ := testRunner(t, 0)
	st, err := r.Stage()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	if _, err := r.Submit(context.Background(), st, "ada"); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("Submit without files = %v, want ErrInvalid", err)
	}
}

func TestStagingAddFile(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		limit   int64
		want    uploads.File
		wantErr string
		tooBig  bool
	}{
		{name: "jsonl", file: "a.jsonl", content: "{}\n", limit: 10, want: uploads.File{Name: "a.jsonl", Size: 3}},
		{name: "exactly the limit", file: "b.txt", content: "12345", limit: 5, want: uploads.File{Name: "b.txt", Size: 5}},
		{name: "a path is cut to its base", file: `C:\Users\ada\c.md`, content: "# C", limit: 10, want: uploads.File{Name: "c.md", Size: 3}},
		{name: "one byte over", file: "d.txt", content: "123456", limit: 5, tooBig: true},
		{name: "wrong type", file: "slides.pptx", content: "PK", limit: 10, wantErr: "slides.pptx: not a corpus file"},
		{name: "gzipped text", file: "e.txt.gz", content: "x", limit: 10, wantErr: "e.txt.gz: not a corpus file"},
		{name: "no name", file: "../", content: "x", limit: 10, wantErr: "no usable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := uploads.NewStaging(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.AddFile(tt.file, strings.NewReader(tt.content), tt.limit)
			var tl *uploads.TooLargeError
			switch {
			case tt.tooBig:
				if !errors.As(err, &tl) || tl.Limit != tt.limit {
					t.Fatalf("err = %v, want a TooLargeError with limit %d", err, tt.limit)
				}
			case tt.wantErr != "":
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrInvalid saying %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("file (-want +got)\n%s", diff)
				}
			}
			stored := st.Files()
			if err != nil && len(stored) != 0 {
				t.Errorf("a refused file is listed: %v", stored)
			}
		})
	}
}

// failingReader returns some bytes, then an error, as a broken connection
// does.
type failingReader struct{ sent bool }

func (f *failingReader) Read(p []byte) (int, error) {
	if !f.sent {
		f.sent = true
		return copy(p, "{\"id\":"), nil
	}
	return 0, errors.New("connection reset by peer")
}

func TestStagingReadError(t *testing.T) {
	root := t.TempDir()
	st, err := uploads.NewStaging(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.AddFile("cut.jsonl", &failingReader{}, 100)
	var re *uploads.ReadError
	if !errors.As(err, &re) || re.Name != "cut.jsonl" || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Fatalf("err = %v, want a ReadError for cut.jsonl", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, st.Dir())); len(entries) != 0 {
		t.Errorf("the cut file was kept: %d entries", len(entries))
	}
}

func TestStagingKeepsNothingOfARefusedFile(t *testing.T) {
	root := t.TempDir()
	st, err := uploads.NewStaging(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddFile("big.jsonl", strings.NewReader(strings.Repeat("x", 100)), 10); err == nil {
		t.Fatal("a file over the limit was accepted")
	}
	if _, err := st.AddFile("ok.jsonl", strings.NewReader("{}"), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddFile("ok.jsonl", strings.NewReader("{}"), 10); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("a second ok.jsonl = %v, want ErrInvalid", err)
	}
	entries, err := os.ReadDir(filepath.Join(root, st.Dir()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"ok.jsonl"}, names); diff != "" {
		t.Errorf("files in the staging folder (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]uploads.File{{Name: "ok.jsonl", Size: 2}}, st.Files(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Files (-want +got)\n%s", diff)
	}
	if st.Bytes() != 2 {
		t.Errorf("Bytes = %d, want 2", st.Bytes())
	}
}

// An upload whose content passes its limit is read up to it: the
// documents before are stored, the file that passed it and the files
// after it are named among the upload's problems with the limit.
func TestRunnerStopsAtTheContentLimit(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	r.Options = corpus.Options{MaxTotalBytes: 60}
	u := submit(t, r,
		[2]string{"a.jsonl", jsonl(doc("a1", "Tariffs on steel."), doc("a2", "Duties on wool."), doc("a3", "Mail coaches."))},
		[2]string{"b.txt", "A note about canals."},
	)
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Done || got.Counts.Added == 0 || got.Counts.Added >= 3 {
		t.Fatalf("state %q, counts %+v: want some of a.jsonl stored", got.State, got.Counts)
	}
	var lines []string
	for _, e := range got.Errors {
		lines = append(lines, e.String())
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "a.jsonl: reading stopped after line ") ||
		!strings.Contains(lines[0], "limit of 60 bytes for all files together") ||
		lines[1] != "b.txt: not read: the content read passed the limit of 60 bytes for all files together" {
		t.Errorf("problems %q", lines)
	}
	if _, err := db.Document(ctx, "b.txt"); err == nil {
		t.Error("b.txt was stored past the limit")
	}
}

// A document with more passages than allowed is named among the upload's
// problems with its file, line and the limit, and not stored; the others
// are.
func TestRunnerRefusesTooManyPassages(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	r.Segment = func(text string, _ int) []pipeline.Span { // a passage per word
		var out []pipeline.Span
		for i := range strings.Fields(text) {
			out = append(out, pipeline.Span{Start: i, End: i + 1})
		}
		return out
	}
	r.MaxPassages = 3
	u := submit(t, r, [2]string{"a.jsonl", jsonl(doc("short", "Tariffs on steel."), doc("long", "Duties on wool and cotton rose."))})
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Done || got.Counts.Added != 1 || got.Counts.Documents != 1 || got.Counts.Skipped != 1 || got.Counts.Records != 2 {
		t.Fatalf("state %q, counts %+v: want short stored and long skipped", got.State, got.Counts)
	}
	if len(got.Errors) != 1 || got.Errors[0].String() != `a.jsonl:2: document "long" has 6 passages, more than the limit of 3 per document: not stored` {
		t.Errorf("problems %+v", got.Errors)
	}
	if _, err := db.Document(ctx, "long"); err == nil {
		t.Error("the long document was stored")
	}
}

// A queued upload cancelled from its page is never read and its files
// go; a cancelled upload cannot be cancelled again, nor an unknown one.
func TestCancelQueuedUpload(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	u := submit(t, r, [2]string{"a.jsonl", jsonl(doc("a1", "Tariffs on steel."))})
	if err := r.Cancel(ctx, u.ID, "ada"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Upload(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != uploads.Failed || got.CancelledBy != "ada" || !strings.Contains(got.Message, "Cancelled by ada before it was read") {
		t.Errorf("cancelled upload = state %q, by %q, message %q", got.State, got.CancelledBy, got.Message)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, u.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cancelled upload's files are still there (%v)", err)
	}
	if ran, err := r.Step(ctx); ran || err != nil {
		t.Errorf("Step ran %v (%v): a cancelled upload is not read", ran, err)
	}
	if _, err := db.Document(ctx, "a1"); err == nil {
		t.Error("a document of the cancelled upload was stored")
	}
	if err := r.Cancel(ctx, u.ID, "ada"); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("cancel again: %v, want ErrInvalid", err)
	}
	if err := r.Cancel(ctx, 999, "ada"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("cancel an unknown upload: %v, want ErrNotFound", err)
	}
	// A restart does not bring it back.
	if n, err := db.RequeueUploads(ctx); err != nil || n != 0 {
		t.Errorf("RequeueUploads = %d, %v; want nothing requeued", n, err)
	}
}

// An upload cancelled while it is read stops: the batches it committed
// are kept and the page says so; the rest is not read.
func TestCancelRunningUpload(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 2) // batches of 2 documents
	var lines []string
	for i := range 10 {
		lines = append(lines, doc(fmt.Sprintf("d%d", i), fmt.Sprintf("Document %d.", i)))
	}
	u := submit(t, r, [2]string{"a.jsonl", jsonl(lines...)})
	seen := 0
	r.Segment = func(text string, n int) []pipeline.Span {
		if seen++; seen == 5 { // d0..d3 are committed in two batches
			if err := r.Cancel(ctx, u.ID, "ada"); err != nil {
				t.Errorf("cancel: %v", err)
			}
		}
		return oneSpan(text, n)
	}
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Failed || got.CancelledBy != "ada" || got.Added != 4 ||
		got.Message != "Cancelled by ada while it was read; the 4 documents (4 passages) stored before the cancel are kept." {
		t.Errorf("state %q, by %q, added %d, message %q", got.State, got.CancelledBy, got.Added, got.Message)
	}
	for i := range 10 {
		_, err := db.Document(ctx, fmt.Sprintf("d%d", i))
		if stored := err == nil; stored != (i < 4) {
			t.Errorf("d%d stored = %v", i, stored)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Dir, u.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cancelled upload's files are still there (%v)", err)
	}
}

// cancelOnClaim is a store on which every upload is cancelled right
// after it is claimed, as when a cancel races the worker's claim.
type cancelOnClaim struct{ *sqlite.DB }

func (s cancelOnClaim) ClaimUpload(ctx context.Context) (uploads.Upload, error) {
	u, err := s.DB.ClaimUpload(ctx)
	if err == nil {
		err = s.DB.CancelUpload(ctx, u.ID, "ada", "Cancelled by ada before it was read; nothing of it was stored.")
	}
	return u, err
}

func TestCancelRacingTheClaim(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	u := submit(t, r, [2]string{"a.jsonl", jsonl(doc("a1", "Tariffs on steel."))})
	r.Store = cancelOnClaim{db}
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Failed || got.CancelledBy != "ada" || got.Message != "Cancelled by ada before it was read; nothing of it was stored." {
		t.Errorf("state %q, by %q, message %q", got.State, got.CancelledBy, got.Message)
	}
	if _, err := db.Document(ctx, "a1"); err == nil {
		t.Error("a document of the cancelled upload was stored")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, u.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cancelled upload's files are still there (%v)", err)
	}
}

// An upload of a PDF and a Word file stores one document each, with its
// pages; an encrypted PDF is a problem naming it. Uploading the same files
// again leaves the documents unchanged.
func TestRunnerIngestsPDFAndWordFiles(t *testing.T) {
	ctx := context.Background()
	r, db, _ := testRunner(t, 0)
	pdf, err := corpustest.PDF("Harbour report", false, "The pier was built.", "The channel was dredged.")
	if err != nil {
		t.Fatal(err)
	}
	locked, err := corpustest.PDF("", true, "Secret.")
	if err != nil {
		t.Fatal(err)
	}
	files := [][2]string{
		{"harbour.pdf", string(pdf)},
		{"memo.docx", string(corpustest.DOCX("Memo", corpustest.Para("Dredging begins in May.")))},
		{"locked.pdf", string(locked)},
	}
	u := submit(t, r, files...)
	got := step(t, ctx, r, db, u.ID)
	if got.State != uploads.Done || got.Added != 2 || got.Skipped != 1 {
		t.Fatalf("upload: state %s, added %d, skipped %d", got.State, got.Added, got.Skipped)
	}
	if len(got.Errors) != 1 || got.Errors[0].File != "locked.pdf" || !strings.Contains(got.Errors[0].Reason, "the PDF is encrypted") {
		t.Errorf("problems = %+v", got.Errors)
	}
	d, err := db.Document(ctx, "harbour.pdf")
	if err != nil || d.Title != "Harbour report" || d.Metadata["pages"] != "2" || d.Source != "harbour.pdf" {
		t.Errorf("harbour.pdf = %+v, %v", d, err)
	}
	i := strings.Index(d.Text, "channel")
	if page := pipeline.PageLabel(d.Metadata, i, i+7); page != "page 2" {
		t.Errorf("page of the second page's text: %q", page)
	}

	again := step(t, ctx, r, db, submit(t, r, files[:2]...).ID)
	if again.Added != 0 || again.Replaced != 0 || again.Unchanged != 2 {
		t.Errorf("the same files again: added %d, replaced %d, unchanged %d; want 0, 0, 2", again.Added, again.Replaced, again.Unchanged)
	}
}
