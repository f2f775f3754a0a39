package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// utf8Doc is a document whose passages are cut at byte offsets inside
// multi-byte text, with a gap between them, and whose ordinals start at
// first (the Ingester numbers from 0; the store must not rely on it).
func utf8Doc(id string, first int) pipeline.IngestDocument {
	text := "Café crème — naïve. Ünïcödé façade: “quoted”. End."
	cuts := [][2]int{{0, len("Café crème — naïve.")}, {len("Café crème — naïve. "), len("Café crème — naïve. Ünïcödé façade: “quoted”.")}, {len(text) - len("End."), len(text)}}
	d := pipeline.IngestDocument{Doc: pipeline.Document{ID: id, Title: "T " + id, Text: text}}
	for i, c := range cuts {
		d.Passages = append(d.Passages, pipeline.Passage{DocID: id, Ordinal: first + i, Start: c[0], End: c[1], Text: text[c[0]:c[1]]})
	}
	return d
}

// TestTextStoredOnce: the store keeps a document's text in its passages
// (with the gaps between them and the tail after the last) and every
// reader gives back the texts that were stored, across multi-byte
// characters, whatever the ordinals.
func TestTextStoredOnce(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	a, b := utf8Doc("a", 0), utf8Doc("b", 5)
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a, b}); err != nil {
		t.Fatal(err)
	}
	// A document without passages keeps its text whole in its tail.
	bare := pipeline.IngestDocument{Doc: pipeline.Document{ID: "bare", Title: "T bare", Text: "  no passages here \n"}}
	if _, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{bare}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []pipeline.IngestDocument{a, b, bare} {
		doc, err := db.Document(ctx, d.Doc.ID)
		if err != nil || doc.Text != d.Doc.Text {
			t.Errorf("Document(%s).Text = %q, %v; want %q", d.Doc.ID, doc.Text, err, d.Doc.Text)
		}
	}
	stats, err := db.Stats(ctx)
	if err != nil || stats.Characters != int64(2*len(a.Doc.Text)+len(bare.Doc.Text)) {
		t.Errorf("Stats = %+v, %v; want %d characters (bytes)", stats, err, 2*len(a.Doc.Text)+len(bare.Doc.Text))
	}
	for _, d := range []pipeline.IngestDocument{a, b} {
		got, err := db.Passages(ctx, d.Doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(d.Passages, got); diff != "" {
			t.Errorf("Passages(%s) (-want +got)\n%s", d.Doc.ID, diff)
		}
		for _, want := range d.Passages {
			p, err := db.Passage(ctx, want.DocID, want.Ordinal)
			if err != nil || p != want {
				t.Errorf("Passage(%s) = %+v, %v; want %+v", want.ID(), p, err, want)
			}
		}
	}
	hits, titles, err := db.HitPassages(ctx, []string{"a#1", "b#7", "b#5", "a#1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pipeline.Passage{"a#1": a.Passages[1], "b#7": b.Passages[2], "b#5": b.Passages[0]}
	if diff := cmp.Diff(want, hits); diff != "" {
		t.Errorf("HitPassages (-want +got)\n%s", diff)
	}
	if titles["a"] != "T a" || titles["b"] != "T b" {
		t.Errorf("titles = %v", titles)
	}
	var each []pipeline.Passage
	if err := db.EachPassage(ctx, func(title string, p pipeline.Passage) error {
		if title != "T "+p.DocID {
			t.Errorf("EachPassage: %s has title %q", p.ID(), title)
		}
		each = append(each, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(append([]pipeline.Passage{}, a.Passages...), b.Passages...), each); diff != "" {
		t.Errorf("EachPassage (-want +got)\n%s", diff)
	}

	// Replacing a document gives back its previous passages, texts
	// included (the journal keeps them for the index).
	a2 := ingestDoc("a", "A2", "new", "words")
	res, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{a2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Previous) != 1 || !cmp.Equal(res.Previous[0].Passages, a.Passages) {
		t.Errorf("previous version = %+v; want the passages of %+v", res.Previous, a.Passages)
	}
	// Storing the same document again is recognised as unchanged.
	res, err = db.ReplaceDocuments(ctx, []pipeline.IngestDocument{b})
	if err != nil || len(res.Unchanged) != 1 {
		t.Errorf("b again: %+v, %v; want it unchanged", res, err)
	}
}

// TestPassageTextMustBeTheDocumentsBytes: a passage whose text is not its
// document's bytes at its offsets (or whose offsets leave the text) is
// refused with an error naming it, and nothing of the batch is stored.
func TestPassageTextMustBeTheDocumentsBytes(t *testing.T) {
	ctx := context.Background()
	for name, spoil := range map[string]func(*pipeline.Passage){
		"other text":       func(p *pipeline.Passage) { p.Text = "something else" },
		"end past text":    func(p *pipeline.Passage) { p.End += 1000 },
		"start after end":  func(p *pipeline.Passage) { p.Start = p.End + 1 },
		"negative start":   func(p *pipeline.Passage) { p.Start = -1 },
		"overlapping":      func(p *pipeline.Passage) { p.Start = 1; p.Text = "" },
		"ordinal repeated": func(p *pipeline.Passage) { p.Ordinal = 0 },
	} {
		t.Run(name, func(t *testing.T) {
			db := mustOpenDB(t)
			good, bad := ingestDoc("good", "G", "one", "two"), utf8Doc("bad", 0)
			spoil(&bad.Passages[1])
			_, err := db.ReplaceDocuments(ctx, []pipeline.IngestDocument{good, bad})
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), bad.Passages[1].ID()) {
				t.Fatalf("err = %v; want ErrInvalid naming %s", err, bad.Passages[1].ID())
			}
			if _, err := db.Document(ctx, "good"); !errors.Is(err, pipeline.ErrNotFound) {
				t.Errorf("the batch's other document was stored: %v", err)
			}
		})
	}
}
