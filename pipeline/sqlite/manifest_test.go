package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// wantCorpus is the collection's fingerprint computed from the documents
// themselves.
func wantCorpus(docs ...pipeline.IngestDocument) pipeline.CorpusFacts {
	var h pipeline.CorpusHasher
	passages := 0
	for _, d := range docs {
		h.Add(d.Doc.ID, pipeline.DocumentContentHash(d.Doc))
		passages += len(d.Passages)
	}
	return h.Facts(passages)
}

// TestCorpusFacts: the fingerprint is the documents' in id order, the
// same on every call while nothing is ingested, and changes with an
// added or changed document, but not with a document stored again as it
// was.
func TestCorpusFacts(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	empty, err := db.CorpusFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantCorpus(), empty); diff != "" {
		t.Errorf("empty collection (-want +got):\n%s", diff)
	}
	b, a := ingestDoc("b", "B", "two", "words"), ingestDoc("a", "A", "one")
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{b, a}); err != nil {
		t.Fatal(err)
	}
	got, err := db.CorpusFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantCorpus(a, b), got); diff != "" {
		t.Errorf("two documents (-want +got):\n%s", diff)
	}
	if again, _ := db.CorpusFacts(ctx); again != got {
		t.Errorf("second call %+v, first %+v", again, got)
	}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a}); err != nil {
		t.Fatal(err)
	}
	if same, _ := db.CorpusFacts(ctx); same != got {
		t.Errorf("storing a document unchanged changed the fingerprint: %+v", same)
	}
	a2 := ingestDoc("a", "A", "one")
	a2.Doc.Metadata = map[string]string{"year": "1791"}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a2}); err != nil {
		t.Fatal(err)
	}
	changed, err := db.CorpusFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Fingerprint == got.Fingerprint {
		t.Error("a changed document kept the fingerprint")
	}
	if diff := cmp.Diff(wantCorpus(a2, b), changed); diff != "" {
		t.Errorf("after the change (-want +got):\n%s", diff)
	}
	// Another connection to the file sees the same.
	other, err := sqlite.Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if f, _ := other.CorpusFacts(ctx); f != changed {
		t.Errorf("another handle: %+v, want %+v", f, changed)
	}
}

// TestCorpusFactsBackfill: documents stored before content hashes were
// kept get theirs, and the fingerprint is the one hashes kept from the
// start give.
func TestCorpusFactsBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []pipeline.IngestDocument
	for _, id := range []string{"d3", "d1", "d2"} {
		docs = append(docs, ingestDoc(id, "Title "+id, "alpha", id))
	}
	docs[0].Doc.Metadata["author"] = "Someone \"quoted\""
	if _, err := db.ReplaceDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	want, err := db.CorpusFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE documents SET content_hash = ''`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.CorpusFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the backfill (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantCorpus(docs[1], docs[2], docs[0]), got); diff != "" {
		t.Errorf("against the documents (-want +got):\n%s", diff)
	}
}

func testManifest() pipeline.Manifest {
	s := pipeline.DefaultSettings()
	s.CalibratedThreshold = 0.5
	return pipeline.Manifest{ManifestVersion: pipeline.ManifestVersion,
		Corpus:   pipeline.CorpusFacts{Fingerprint: "f", Documents: 1, Passages: 2},
		Engine:   pipeline.EngineFacts{ID: "offline", Label: "offline engine", Offline: true, OfflineVersion: "offline-v15"},
		Prompts:  []pipeline.PromptTemplate{{Task: "extract", Hash: "0123456789abcdef", MaxTokens: 400, Logprobs: true}},
		Pipeline: "crucible-pipeline-v1", Settings: pipeline.SettingsOf(s), Reranker: "lancer",
		Software: pipeline.SoftwareFacts()}
}

// TestManifestStorage: a job's manifest as its run starts, then the
// report's, which its versions keep, marked when edited by hand.
func TestManifestStorage(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	j, _, err := db.CreateJob(ctx, newJob())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.JobManifest(ctx, j.ID); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("a new job's manifest: %v, want ErrNotFound", err)
	}
	if err := db.SaveManifest(ctx, 999, testManifest()); !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("the manifest of no job: %v, want ErrNotFound", err)
	}
	start := testManifest()
	start.Settings = pipeline.SettingsOf(pipeline.DefaultSettings())
	if err := db.SaveManifest(ctx, j.ID, start); err != nil {
		t.Fatal(err)
	}
	got, err := db.JobManifest(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(start, got); diff != "" {
		t.Errorf("job manifest (-want +got):\n%s", diff)
	}

	final := testManifest()
	rep := pipeline.Report{Request: j.Request, Settings: j.Settings, Manifest: &final,
		Sentences: []pipeline.Sentence{{Text: "One.", Citation: pipeline.Citation{DocID: "a", End: 3}}}}
	id, err := db.SaveReport(ctx, j.ID, rep)
	if err != nil {
		t.Fatal(err)
	}
	got, err = db.JobManifest(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(final, got); diff != "" {
		t.Errorf("job manifest after the report (-want +got):\n%s", diff)
	}
	stored, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&final, stored.Manifest); diff != "" {
		t.Errorf("report manifest (-want +got):\n%s", diff)
	}

	// Versions: the generated text keeps the manifest, an edit marks it.
	v1 := pipeline.NewDraft(stored)
	if _, err := db.SaveVersion(ctx, id, 0, pipeline.VersionInfo{Author: "a", Change: "generated"}, v1); err != nil {
		t.Fatal(err)
	}
	if r, _ := db.Report(ctx, id); r.Manifest == nil || r.Manifest.EditedByHand {
		t.Errorf("version 1's manifest: %+v", r.Manifest)
	}
	v2, _, err := v1.EditText(0, "One, edited.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveVersion(ctx, id, 1, pipeline.VersionInfo{Author: "a", Change: "edited sentence 1"}, v2); err != nil {
		t.Fatal(err)
	}
	r, err := db.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Manifest == nil || !r.Manifest.EditedByHand {
		t.Fatalf("version 2's manifest: %+v", r.Manifest)
	}
	r.Manifest.EditedByHand = false
	if diff := cmp.Diff(&final, r.Manifest); diff != "" {
		t.Errorf("version 2's manifest beyond the mark (-want +got):\n%s", diff)
	}

	// A report saved without a manifest (a caller that keeps none)
	// leaves the job's as it was, and reads back without one.
	j2, _, _ := db.CreateJob(ctx, pipeline.Job{Request: pipeline.Request{ID: "r2", Title: "T", ProblemStatement: "P?", Limit: 500},
		Settings: pipeline.DefaultSettings(), Engine: "offline"})
	if err := db.SaveManifest(ctx, j2.ID, start); err != nil {
		t.Fatal(err)
	}
	id2, err := db.SaveReport(ctx, j2.ID, pipeline.Report{Request: j2.Request, Settings: j2.Settings})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := db.Report(ctx, id2); r.Manifest != nil {
		t.Errorf("a report saved without a manifest has %+v", r.Manifest)
	}
	if m, err := db.JobManifest(ctx, j2.ID); err != nil || m.Hash() != start.Hash() {
		t.Errorf("job manifest after a report without one: %+v, %v", m, err)
	}
}
