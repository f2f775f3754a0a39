package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// TestReportManifest: crucible report writes each report's run manifest
// into its JSON (crucible.manifest) and Markdown ("How this was made"),
// with the data folder's corpus and index, the offline engine and the
// build; the lead baseline's names itself.
func TestReportManifest(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"m-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":700}`+"\n"), 0o644)
	read := func(dir string) pipeline.Manifest {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "m-1.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Crucible struct {
				Manifest *pipeline.Manifest `json:"manifest"`
			} `json:"crucible"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Crucible.Manifest == nil {
			t.Fatalf("no crucible.manifest in %s", b)
		}
		return *rep.Crucible.Manifest
	}

	out := t.TempDir()
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--markdown"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := read(out)
	if m.Corpus.Documents != 8 || m.Corpus.Passages == 0 || len(m.Corpus.Fingerprint) != 64 {
		t.Errorf("corpus: %+v", m.Corpus)
	}
	if m.Index.Format == "" || m.Index.K1 != 0.9 || m.Index.B != 0.4 {
		t.Errorf("index: %+v", m.Index)
	}
	if m.Engine.ID != "offline" || m.Engine.OfflineVersion != offline.Version || m.Pipeline == "" || len(m.Prompts) == 0 {
		t.Errorf("engine %+v, pipeline %q, %d prompts", m.Engine, m.Pipeline, len(m.Prompts))
	}
	if m.Settings["prefer_period"] != true || m.Software.GoVersion == "" {
		t.Errorf("settings %v, software %+v", m.Settings, m.Software)
	}
	md, err := os.ReadFile(filepath.Join(out, "m-1.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## How this was made") || !strings.Contains(string(md), m.Hash()) {
		t.Errorf("the Markdown export has no manifest appendix:\n%s", md)
	}
	// A second run over the same data folder: the same manifest.
	again := t.TempDir()
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", again); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if h := read(again).Hash(); h != m.Hash() {
		t.Errorf("the second run's manifest %s, the first's %s", h, m.Hash())
	}

	lead := t.TempDir()
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", lead, "--baseline", "lead"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if lm := read(lead); lm.Engine.ID != "lead" || lm.Pipeline == m.Pipeline || lm.Corpus != m.Corpus || len(lm.Prompts) != 0 {
		t.Errorf("lead baseline manifest: %+v", lm)
	}
}
