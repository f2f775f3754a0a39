package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

func mustOpenDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crucible.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ingestDoc makes a document whose passages are its words.
func ingestDoc(id, title string, words ...string) pipeline.IngestDocument {
	d := pipeline.IngestDocument{Doc: pipeline.Document{ID: id, Title: title, Metadata: map[string]string{"year": "1790"}}}
	text := ""
	for i, w := range words {
		if i > 0 {
			text += " "
		}
		d.Passages = append(d.Passages, pipeline.Passage{DocID: id, Ordinal: i, Start: len(text), End: len(text) + len(w), Text: w})
		text += w
	}
	d.Doc.Text = text
	return d
}

func TestReplaceDocuments(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	res, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{
		ingestDoc("a", "A", "one", "two", "three"),
		ingestDoc("b", "B", "four"),
		ingestDoc("b", "B2", "five", "six"), // the last occurrence wins
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pipeline.ReplaceResult{Inserted: 2, Batch: 1}, res); diff != "" {
		t.Errorf("first batch (-want +got)\n%s", diff)
	}
	b, err := db.Document(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Title != "B2" || b.Text != "five six" || b.Metadata["year"] != "1790" || b.IngestedAt.IsZero() {
		t.Errorf("document b = %+v", b)
	}

	// Replace a with one passage: the old version comes back for the index.
	res, err = db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("a", "A", "seven")})
	if err != nil {
		t.Fatal(err)
	}
	old := ingestDoc("a", "A", "one", "two", "three")
	old.Doc = pipeline.Document{ID: "a", Title: "A"}
	if diff := cmp.Diff(pipeline.ReplaceResult{Replaced: 1, Previous: []pipeline.IngestDocument{old}, Batch: 2}, res); diff != "" {
		t.Errorf("replace (-want +got)\n%s", diff)
	}
	ps, err := db.Passages(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Text != "seven" {
		t.Errorf("passages of a = %+v", ps)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.Passages != 3 || st.Characters != int64(len("seven")+len("five six")) || st.LastIngest.IsZero() {
		t.Errorf("stats = %+v", st)
	}

	var seen []string
	err = db.EachPassage(ctx, func(title string, p pipeline.Passage) error {
		seen = append(seen, title+":"+p.ID()+":"+p.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"A:a#0:seven", "B2:b#0:five", "B2:b#1:six"}, seen); diff != "" {
		t.Errorf("EachPassage (-want +got)\n%s", diff)
	}
	titles, err := db.Titles(ctx, []string{"a", "b", "zz"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a": "A", "b": "B2"}, titles); diff != "" {
		t.Errorf("Titles (-want +got)\n%s", diff)
	}
}

func TestFailedBatchLosesNothing(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("keep", "Keep", "stored text")}); err != nil {
		t.Fatal(err)
	}
	bad := ingestDoc("new", "New", "x", "y")
	bad.Passages[1].Ordinal = 0 // duplicate passage key: the insert fails
	replacement := ingestDoc("keep", "Changed", "changed")
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{replacement, bad}); err == nil {
		t.Fatal("batch with a duplicate passage was stored")
	}
	d, err := db.Document(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Keep" || d.Text != "stored text" {
		t.Errorf("a failed batch changed the stored document: %+v", d)
	}
	if _, err := db.Document(ctx, "new"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("document from a failed batch: err = %v, want ErrNotFound", err)
	}
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	if _, err := db.Document(ctx, "nope"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("Document: err = %v", err)
	}
	if _, err := db.Passages(ctx, "nope"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("Passages: err = %v", err)
	}
	if _, err := db.Passage(ctx, "nope", 0); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("Passage: err = %v", err)
	}
	if _, err := db.Setting(ctx, "nope"); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("Setting: err = %v", err)
	}
}

func TestReopenKeepsDataAndMigratesOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("a", "A", "text")}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "k", "v2"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if v, err := db.Setting(ctx, "k"); err != nil || v != "v2" {
		t.Errorf("setting = %q, %v", v, err)
	}
	if _, err := db.Document(ctx, "a"); err != nil {
		t.Errorf("document lost on reopen: %v", err)
	}
	var journal string
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal_mode = %q, %v", journal, err)
	}
	var fk int
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v", fk, err)
	}
}

func TestOpenBadPath(t *testing.T) {
	_, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "missing-dir", "x", "crucible.db"))
	if err == nil {
		t.Fatal("opening a database in a missing folder succeeded")
	}
}

func TestDocumentDates(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	var docs []pipeline.IngestDocument
	var ids []string
	// More than one query's worth of ids.
	for i := range 1203 {
		d := ingestDoc(fmt.Sprintf("d%04d", i), "T", "w")
		d.Doc.Metadata = map[string]string{"date": fmt.Sprintf("%d-01-06", 1790+i%200)}
		if i%7 == 0 {
			d.Doc.Metadata = map[string]string{"author": "no date"}
		}
		docs = append(docs, d)
		ids = append(ids, d.Doc.ID)
	}
	if _, err := db.ReplaceDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	got, err := db.DocumentDates(ctx, append(ids, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, d := range docs {
		if i%7 != 0 {
			want[d.Doc.ID] = d.Doc.Metadata["date"]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dates (-want +got)\n%s", diff)
	}
	if got, err := db.DocumentDates(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v, %v", got, err)
	}
	var _ pipeline.DateLister = db
}

// TestHitPassages loads a page of passages with their titles in one read:
// more ids than one query takes, unknown ones left out, a malformed one
// refused.
func TestHitPassages(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	var batch []pipeline.IngestDocument
	for i := 0; i < 300; i++ {
		batch = append(batch, ingestDoc(fmt.Sprintf("d%03d", i), fmt.Sprintf("Title %d", i), "one", "two", "three"))
	}
	if _, err := db.ReplaceDocuments(ctx, batch); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 299; i >= 0; i-- {
		ids = append(ids, fmt.Sprintf("d%03d#%d", i, i%3))
	}
	ids = append(ids, "d000#7", "nope#0")
	ps, titles, err := db.HitPassages(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 300 || len(titles) != 300 {
		t.Fatalf("%d passages, %d titles; want 300 each", len(ps), len(titles))
	}
	p := ps["d123#0"]
	want := batch[123].Passages[0]
	if p != want || titles["d123"] != "Title 123" {
		t.Errorf("d123#0 = %+v, title %q; want %+v, Title 123", p, titles["d123"], want)
	}
	if _, ok := ps["d000#7"]; ok {
		t.Error("an unknown ordinal was found")
	}
	if _, _, err := db.HitPassages(ctx, []string{"no-ordinal"}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("malformed id: err = %v, want ErrInvalid", err)
	}
}

// TestStatsFollowIngests: the statistics are read again after every
// ingest batch, by this handle or another process's, and not otherwise.
func TestStatsFollowIngests(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	st, err := db.Stats(ctx)
	if err != nil || st.Documents != 0 {
		t.Fatalf("empty collection: %+v, %v", st, err)
	}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("a", "A", "one", "two")}); err != nil {
		t.Fatal(err)
	}
	if st, _ = db.Stats(ctx); st.Documents != 1 || st.Passages != 2 || st.Characters != 7 {
		t.Fatalf("after one document: %+v", st)
	}
	// Another handle on the same file (as another process would write).
	other, err := sqlite.Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("b", "B", "three")}); err != nil {
		t.Fatal(err)
	}
	if st, _ = db.Stats(ctx); st.Documents != 2 || st.Passages != 3 {
		t.Fatalf("after another handle's batch: %+v", st)
	}
	// Replacing a document with a shorter one.
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{ingestDoc("a", "A", "x")}); err != nil {
		t.Fatal(err)
	}
	if st, _ = db.Stats(ctx); st.Documents != 2 || st.Passages != 2 || st.Characters != 6 {
		t.Fatalf("after a replacement: %+v", st)
	}
}
