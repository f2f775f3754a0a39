package judge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

func TestReadReportExported(t *testing.T) {
	// A report as the pipeline writes it reads back as it was.
	rep := pipeline.Report{
		Request: pipeline.Request{ID: "r1", Title: "Barrier", Limit: 500},
		RunID:   "run-1",
		Engine:  export.OfflineLabel,
		Sentences: []pipeline.Sentence{{
			Text:     "The council approved 12 million euros.",
			Citation: pipeline.Citation{DocID: "d1", Ordinal: 2, Start: 10, End: 48},
			NuggetID: "n1", Confidence: 0.8,
		}},
	}
	b, err := export.NeuCLIRJSON(rep, []string{"news"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(strings.NewReader(string(b)), "r1.json")
	if err != nil {
		t.Fatal(err)
	}
	want := export.NeuCLIR(rep, []string{"news"})
	want.Format = export.FormatNeuCLIR
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestReadReportOtherSystems(t *testing.T) {
	in := `{"request_id": " 300 ", "run_id": "x", "sentences": [
	  {"text": "One.", "citations": [" d1 ", "d2"], "score": 3},
	  {"text": "Two."}
	], "extra": true}`
	got, err := ReadReport(strings.NewReader(in), "300.json")
	if err != nil {
		t.Fatal(err)
	}
	want := export.NeuCLIRReport{RequestID: "300", RunID: "x", CollectionIDs: []string{}, Format: export.FormatNeuCLIR,
		Sentences: []export.NeuCLIRSentence{{Text: "One.", Citations: []string{"d1", "d2"}}, {Text: "Two.", Citations: []string{}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	empty, err := ReadReport(strings.NewReader(`{"request_id": "r"}`), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if empty.Sentences == nil || len(empty.Sentences) != 0 {
		t.Errorf("a report without sentences has Sentences %#v, want an empty list", empty.Sentences)
	}
}

func TestReadReportErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", " \n", "r.json: empty file"},
		{"not an object", "\n[1, 2]", "r.json:2: not a JSON object"},
		{"syntax error on line 3", "{\n  \"request_id\": \"r\",\n  \"sentences\": [}\n", "r.json:3: bad JSON: invalid character '}' looking for beginning of value (at column 17)"},
		{"cut short", "{\n\"request_id\": \"r\",\n", "r.json:3: bad JSON: unexpected EOF"},
		{"wrong type", "{\"request_id\": \"r\",\n\"sentences\": [{\"text\": \"a\", \"citations\": \"d1\"}]}",
			"r.json: sentence 1: citations are a string: a list of document ids or reference numbers, or an object of document ids and confidences, belongs there"},
		{"missing request_id", `{"sentences": []}`, "r.json: missing request_id (or topic_id, or narrative_id in metadata)"},
		{"data after the object", "{\"request_id\": \"r\"}\n{\"request_id\": \"s\"}", "r.json:2: data after the report object"},
		{"blank citation", `{"request_id": "r", "sentences": [{"text": "a", "citations": []}, {"text": "b", "citations": ["d1", ""]}]}`,
			"r.json: sentence 2: citation 2 is blank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReport(strings.NewReader(tt.in), "r.json")
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err.Error(), tt.want)
			}
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("error does not wrap pipeline.ErrInvalid")
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadReportDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "r1.json"), `{"request_id": "r1", "sentences": [{"text": "a", "citations": ["d1"]}]}`)
	// The file name need not be the request id (export.FileName changes
	// some characters).
	writeFile(t, filepath.Join(dir, "r_2.JSON"), `{"request_id": "r/2", "sentences": []}`)
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a report")
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReportDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got["r1"].Sentences) != 1 || got["r/2"].RequestID != "r/2" {
		t.Errorf("ReadReportDir = %+v", got)
	}

	writeFile(t, filepath.Join(dir, "r1-again.json"), `{"request_id": "r1", "sentences": []}`)
	_, err = ReadReportDir(dir)
	if err == nil || !strings.Contains(err.Error(), "r1.json") || !strings.Contains(err.Error(), "r1-again.json") {
		t.Errorf("duplicate request: error = %v, want one naming both files", err)
	}
	if err := os.Remove(filepath.Join(dir, "r1-again.json")); err != nil {
		t.Fatal(err)
	}

	writeFile(t, filepath.Join(dir, "broken.json"), `{"request_id": `)
	_, err = ReadReportDir(dir)
	if want := filepath.Join(dir, "broken.json") + ":1: bad JSON"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("broken file: error = %v, want it to start %q", err, want)
	}
}

func TestReadReportDirEmpty(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadReportDir(dir)
	if err == nil || err.Error() != dir+": no .json or .jsonl report files" {
		t.Errorf("error = %v", err)
	}
	_, err = ReadReportDir(filepath.Join(dir, "absent"))
	if err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("missing directory: error = %v", err)
	}
}

func FuzzReadReport(f *testing.F) {
	f.Add(`{"request_id": "r", "run_id": "x", "collection_ids": ["c"], "sentences": [{"text": "a", "citations": ["d"], "crucible": {"passage_id": "d#0", "start": 0, "end": 1}}]}`)
	f.Add("{\n\"request_id\": 3}")
	f.Add(`{"request_id": "r"} x`)
	f.Add(`{"request_id": "r", "sentences": null}`)
	f.Add("\xef\xbb\xbf  ")
	f.Add(`{"metadata": {"topic_id": 1}, "responses": [{"text": "a", "citations": {"d": 0.5}}], "references": ["d"]}`)
	f.Add(`{"topic_id": "1", "references": ["d"], "answer": [{"text": "a", "citations": [0, -1]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		rep, err := ReadReport(strings.NewReader(in), "f.json")
		if err != nil {
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error %q does not wrap ErrInvalid or name the file", err)
			}
			return
		}
		if rep.RequestID == "" || rep.Sentences == nil {
			t.Fatalf("accepted %+v", rep)
		}
		for _, s := range rep.Sentences {
			if s.Citations == nil {
				t.Fatalf("nil citations in %+v", rep)
			}
		}
	})
}
