package export_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

func TestNuggetBankJSON(t *testing.T) {
	v := pipeline.Version{
		VersionInfo: pipeline.VersionInfo{Number: 4},
		Draft: pipeline.Draft{
			Sentences: []pipeline.DraftSentence{
				{Sentence: pipeline.Sentence{Text: "x", NuggetID: "n2"}},
				{Sentence: pipeline.Sentence{Text: "y", NuggetID: "n1"}},
				{Sentence: pipeline.Sentence{Text: "z", NuggetID: "n2"}},
			},
			Nuggets: []pipeline.DraftNugget{
				{Nugget: pipeline.Nugget{ID: "n2", Question: "Q2 <b>?", Answer: "A2", Sources: []string{"d1"}, Popularity: 2}, Pinned: true},
				{Nugget: pipeline.Nugget{ID: "n1", Question: "Q1", Answer: "A1", QualityScore: 0.5, Popularity: 1}},
				{Nugget: pipeline.Nugget{ID: "a1", Question: "Q3", Answer: "A3"}, Changed: true},
			},
		},
	}
	b, err := export.NuggetBankJSON("r7", v)
	if err != nil {
		t.Fatal(err)
	}
	var got export.NuggetBank
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	want := export.NuggetBank{RequestID: "r7", Version: 4, Nuggets: []export.BankNugget{
		{ID: "n2", Rank: 1, Question: "Q2 <b>?", Answer: "A2", Pinned: true, Sources: []string{"d1"}, Popularity: 2, Sentences: []int{1, 3}},
		{ID: "n1", Rank: 2, Question: "Q1", Answer: "A1", Sources: []string{}, Quality: 0.5, Popularity: 1, Sentences: []int{2}},
		{ID: "a1", Rank: 3, Question: "Q3", Answer: "A3", Changed: true, Sources: []string{}, Sentences: []int{}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bank (-want +got)\n%s", diff)
	}
	if !bytes.HasSuffix(b, []byte("}\n")) {
		t.Error("no final newline")
	}
}

func TestZip(t *testing.T) {
	var buf bytes.Buffer
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	files := []export.File{{Name: "export.md", Body: []byte("# T\n")}, {Name: "export.json", Body: []byte("{}\n")}}
	if err := export.Zip(&buf, at, files); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var got []export.File
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !f.Modified.Equal(at) {
			t.Errorf("%s modified %v, want %v", f.Name, f.Modified, at)
		}
		got = append(got, export.File{Name: f.Name, Body: body})
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("archive (-want +got)\n%s", diff)
	}
	if err := export.Zip(io.Discard, at, append(files, files[0])); err == nil {
		t.Error("a duplicate name was accepted")
	}
}
