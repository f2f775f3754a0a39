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

// The golden files pipeline/export writes (testdata/formats) read back,
// whatever their format, as the same report: its request, run, sentences,
// cited documents and Crucible's provenance.
func TestReadReportsEveryFormat(t *testing.T) {
	dir := filepath.Join("..", "export", "testdata", "formats")
	want := []export.NeuCLIRSentence{
		{Text: "The tariff was raised in 1890.", Citations: []string{"1890-harrison"},
			Crucible: &export.SentenceMeta{PassageID: "1890-harrison#4", Start: 120, End: 150, NuggetID: "n1", Confidence: 0.75, Facet: "Arguments"}},
		{Text: "Duties fell on raw materials.", Citations: []string{"1913-wilson"},
			Crucible: &export.SentenceMeta{PassageID: "1913-wilson#2", Start: 40, End: 69, NuggetID: "n2", Confidence: 0.5, Facet: "Arguments"}},
		{Text: "Revenue rose with the new schedule.", Citations: []string{"1890-harrison"},
			Crucible: &export.SentenceMeta{PassageID: "1890-harrison#6", Start: 300, End: 335, NuggetID: "n3", Confidence: 0.625}},
	}
	for _, f := range export.Formats() {
		t.Run(string(f.ID), func(t *testing.T) {
			reps, err := ReadReportFile(filepath.Join(dir, string(f.ID)+f.Ext))
			if err != nil {
				t.Fatal(err)
			}
			if len(reps) != 1 {
				t.Fatalf("read %d reports, want 1", len(reps))
			}
			got := reps[0]
			if got.Format != f.ID || got.RequestID != "sotu-tariffs" || got.RunID != "crucible-offline" {
				t.Errorf("format %q, request %q, run %q", got.Format, got.RequestID, got.RunID)
			}
			if diff := cmp.Diff(want, got.Sentences); diff != "" {
				t.Errorf("sentences (-want +got):\n%s", diff)
			}
			if got.Crucible == nil || !got.Crucible.Offline || got.Crucible.Limit != 600 {
				t.Errorf("provenance = %+v", got.Crucible)
			}
			if f.ID != export.FormatRAG24 && f.ID != export.FormatRAG25 && !cmp.Equal(got.CollectionIDs, []string{"sotu"}) {
				t.Errorf("collection ids = %v", got.CollectionIDs)
			}
		})
	}
}

// Runs of other systems: a JSON Lines run file of several reports in
// different forms, with numeric ids, several citations a sentence and no
// Crucible provenance.
func TestReadReportsOtherSystems(t *testing.T) {
	in := strings.Join([]string{
		// RAGTIME with confidences: most confident first.
		`{"metadata": {"team_id": "t", "run_id": "r1", "topic_id": "101", "task": "multilingual"}, "responses": [{"text": "A.", "citations": {"d2": 0.2, "d1": 0.9, "d3": 0.2}}], "references": ["d1", "d2", "d3"]}`,
		// The Auto-Judge tooling's own example shape: metadata with
		// responses citing lists of document ids.
		`{"metadata": {"team_id": "t", "run_id": "r1", "topic_id": 28}, "responses": [{"text": "B.", "citations": []}, {"text": "C.", "citations": ["279"]}], "references": ["279"]}`,
		// RAG 2024: a flat object, indices into references.
		`{"run_id": "r1", "topic_id": "2027497", "topic": "q", "references": ["s0", "s1", "s2"], "response_length": 2, "answer": [{"text": "D.", "citations": [2, 0]}]}`,
		// RAG 2025, an integer narrative id, citations as document ids.
		`{"metadata": {"team_id": "t", "run_id": "r1", "type": "automatic", "narrative_id": 7, "narrative": "n"}, "references": ["x"], "answer": [{"text": "E.", "citations": ["x"]}]}`,
	}, "\n") + "\n"
	reps, err := ReadReports(strings.NewReader(in), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type short struct {
		ID, Run string
		Format  export.Format
		Cites   [][]string
	}
	var got []short
	for _, r := range reps {
		s := short{ID: r.RequestID, Run: r.RunID, Format: r.Format}
		for _, x := range r.Sentences {
			s.Cites = append(s.Cites, x.Citations)
		}
		got = append(got, s)
	}
	want := []short{
		{"101", "r1", export.FormatRAGTIME, [][]string{{"d1", "d2", "d3"}}},
		{"28", "r1", export.FormatRAGTIME, [][]string{{}, {"279"}}},
		{"2027497", "r1", export.FormatRAG24, [][]string{{"s2", "s0"}}},
		{"7", "r1", export.FormatRAG25, [][]string{{"x"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestReadReportsErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"index past the references", `{"topic_id": "1", "references": ["a"], "answer": [{"text": "x", "citations": [1]}]}`,
			"run.jsonl: sentence 1: citation 1 is reference number 1; the report has references 0 to 0"},
		{"index without references", `{"topic_id": "1", "answer": [{"text": "x", "citations": [0]}]}`,
			"run.jsonl: sentence 1: citation 1 is reference number 0, but the report has no references"},
		{"ids that disagree", `{"metadata": {"topic_id": "1", "narrative_id": "2"}, "answer": []}`,
			`run.jsonl: metadata.topic_id "1" and metadata.narrative_id "2" name different requests`},
		{"confidence not a number", `{"metadata": {"topic_id": "1"}, "responses": [{"text": "x", "citations": {"d": "high"}}]}`,
			"run.jsonl: sentence 1: citations: an object must map document ids to confidence numbers"},
		{"second report broken", "{\"request_id\": \"a\"}\n{\"request_id\": \"b\", \"sentences\": [{\"text\": \"x\", \"citations\": [true]}]}",
			"run.jsonl:2: sentence 1: citation 1 is true: neither a document id nor a reference number"},
		{"not an object", "{\"request_id\": \"a\"}\n[]", "run.jsonl:2: not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReports(strings.NewReader(tt.in), "run.jsonl")
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
			if err != nil && !errors.Is(err, pipeline.ErrInvalid) {
				t.Error("error does not wrap pipeline.ErrInvalid")
			}
		})
	}
}

func TestReadReportsPath(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.jsonl")
	writeFile(t, run, `{"topic_id": "1", "references": ["a"], "answer": [{"text": "x", "citations": [0]}]}`+"\n"+
		`{"topic_id": "2", "references": [], "answer": []}`+"\n")
	got, err := ReadReportsPath(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["1"].Sentences[0].Citations[0] != "a" {
		t.Errorf("run file read as %+v", got)
	}
	// A folder holds run files and single reports side by side.
	writeFile(t, filepath.Join(dir, "3.json"), `{"request_id": "3", "sentences": []}`)
	got, err = ReadReportsPath(dir)
	if err != nil || len(got) != 3 {
		t.Errorf("folder read as %d reports, %v", len(got), err)
	}
	writeFile(t, filepath.Join(dir, "again.jsonl"), `{"topic_id": "2", "answer": []}`)
	if _, err := ReadReportsPath(dir); err == nil || !strings.Contains(err.Error(), "run.jsonl") {
		t.Errorf("a request answered twice: error = %v, want one naming both files", err)
	}
	if err := os.Remove(filepath.Join(dir, "again.jsonl")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, run, `{"topic_id": "1", "answer": []}`+"\n"+`{"topic_id": "1", "answer": []}`+"\n")
	if _, err := ReadReportsPath(run); err == nil || !strings.Contains(err.Error(), "two reports in the file") {
		t.Errorf("a request twice in one file: error = %v", err)
	}
	if _, err := ReadReportsPath(filepath.Join(dir, "absent.jsonl")); err == nil || !strings.Contains(err.Error(), "absent.jsonl") {
		t.Errorf("a missing file: error = %v", err)
	}
}
