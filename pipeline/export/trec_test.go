package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/formats")

// formatsReport is the report the golden files of testdata/formats hold:
// three sentences citing two documents, the first cited twice.
func formatsReport() pipeline.Report {
	return pipeline.Report{
		Request: pipeline.Request{ID: "sotu-tariffs", Title: "Tariffs",
			ProblemStatement: "How did presidents  argue\nabout tariffs?", Limit: 600},
		RunID:  "crucible-offline",
		Engine: OfflineLabel,
		Sentences: []pipeline.Sentence{
			{Text: "The tariff was raised in 1890.", Citation: pipeline.Citation{DocID: "1890-harrison", Ordinal: 4, Start: 120, End: 150}, NuggetID: "n1", Confidence: 0.75, Facet: "Arguments"},
			{Text: "Duties fell on raw materials.", Citation: pipeline.Citation{DocID: "1913-wilson", Ordinal: 2, Start: 40, End: 69}, NuggetID: "n2", Confidence: 0.5, Facet: "Arguments"},
			{Text: "Revenue rose with the new schedule.", Citation: pipeline.Citation{DocID: "1890-harrison", Ordinal: 6, Start: 300, End: 335}, NuggetID: "n3", Confidence: 0.625},
		},
		Nuggets: []pipeline.Nugget{
			{ID: "n1", Question: "When was the tariff raised?", Answer: "1890", Rank: 1},
			{ID: "n2", Question: "What did duties fall on?", Answer: "raw materials", Rank: 2},
			{ID: "n4", Question: "Who answered no sentence?", Answer: "nobody", Rank: 3},
		},
		Manifest: testManifest(),
	}
}

// testManifest is a run manifest with every part filled in, fixed so that
// golden files do not depend on the build.
func testManifest() *pipeline.Manifest {
	return &pipeline.Manifest{
		ManifestVersion: pipeline.ManifestVersion,
		Corpus:          pipeline.CorpusFacts{Fingerprint: "5f0c2a7e9b1d4c3a8e6f0b2d4a6c8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d", Documents: 233, Passages: 9120},
		Index:           pipeline.IndexFacts{Format: "2", K1: 0.9, B: 0.4, TitleInPassages: true},
		Engine:          pipeline.EngineFacts{ID: "offline", Label: OfflineLabel, Offline: true, OfflineVersion: "offline-v15"},
		Prompts: []pipeline.PromptTemplate{
			{Task: "summarize", Hash: "0123456789abcdef", MaxTokens: 400},
			{Task: "extract", Hash: "fedcba9876543210", MaxTokens: 400, Logprobs: true},
		},
		Pipeline: "crucible-pipeline-v1",
		Settings: pipeline.SettingsOf(pipeline.DefaultSettings()),
		Software: pipeline.Software{Module: "github.com/crucible-portal/crucible", Version: "v1.2.3", Revision: "0a1b2c3d", GoVersion: "go1.26.8"},
	}
}

func TestEncodeGolden(t *testing.T) {
	run := Run{CollectionIDs: []string{"sotu"}}
	for _, f := range Formats() {
		t.Run(string(f.ID), func(t *testing.T) {
			got, err := Encode(f.ID, formatsReport(), run)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "formats", string(f.ID)+f.Ext)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file:\n got %s\nwant %s", f.ID, got, want)
			}
			if f.Ext == ".jsonl" && bytes.Count(got, []byte("\n")) != 1 {
				t.Errorf("%s is not one line of JSON", f.ID)
			}
		})
	}
}

func TestEncodeTrackRules(t *testing.T) {
	r := formatsReport()
	// RAGTIME: every cited document is a reference and every reference
	// is cited; confidences stay within the track's 0–100.
	rt := RAGTIME(r, Run{})
	if got := strings.Join(rt.References, ","); got != "1890-harrison,1913-wilson" {
		t.Errorf("RAGTIME references = %s", got)
	}
	for _, s := range rt.Responses {
		if len(s.Citations) != 1 {
			t.Errorf("sentence %q cites %v, want one document", s.Text, s.Citations)
		}
		for _, c := range s.Citations {
			if c < 0 || c > 100 {
				t.Errorf("confidence %v outside 0–100", c)
			}
		}
	}
	if rt.Metadata.TeamID != DefaultTeamID || rt.Metadata.Task != "english" || rt.Metadata.TopicID != "sotu-tariffs" {
		t.Errorf("RAGTIME metadata = %+v", rt.Metadata)
	}
	// RAG: citations index references; the topic is the request's
	// problem statement on one line; response_length counts words.
	r24 := RAG24(r, Run{})
	if r24.Topic != "How did presidents argue about tariffs?" || r24.ResponseLength != 17 {
		t.Errorf("RAG 2024 topic %q, length %d", r24.Topic, r24.ResponseLength)
	}
	for i, s := range r24.Answer {
		if r24.References[s.Citations[0]] != r.Sentences[i].Citation.DocID {
			t.Errorf("sentence %d cites reference %d = %s, want %s", i, s.Citations[0], r24.References[s.Citations[0]], r.Sentences[i].Citation.DocID)
		}
	}
	r25 := RAG25(r, Run{TeamID: "hltcoe", Type: "manual"})
	if r25.Metadata.TeamID != "hltcoe" || r25.Metadata.Type != "manual" || r25.Metadata.NarrativeID != "sotu-tariffs" || r25.Metadata.Narrative != r24.Topic {
		t.Errorf("RAG 2025 metadata = %+v", r25.Metadata)
	}
	// A request with no problem statement is named by its title.
	r.Request.ProblemStatement = ""
	if got := RAG24(r, Run{}).Topic; got != "Tariffs" {
		t.Errorf("topic without a problem statement = %q", got)
	}
	// An empty report is valid in every form: empty lists, not null.
	empty := pipeline.Report{Request: pipeline.Request{ID: "e", Title: "E", Limit: 10}}
	for _, f := range Formats() {
		b, err := Encode(f.ID, empty, Run{})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("null")) {
			t.Errorf("%s of an empty report has a null: %s", f.ID, b)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s: %v", f.ID, err)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatNeuCLIR, " RAGTIME ": FormatRAGTIME, "rag24": FormatRAG24, "Rag25": FormatRAG25} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseFormat("trec")
	if err == nil || !strings.Contains(err.Error(), `"trec"`) || !strings.Contains(err.Error(), "ragtime") {
		t.Errorf("unknown format: error = %v, want one naming it and the known formats", err)
	}
	if _, err := Encode("trec", formatsReport(), Run{}); err == nil {
		t.Error("Encode accepted an unknown format")
	}
}
