package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/crucible"
)

// crucible report --choices writes every candidate the sentence choice
// weighed, with its features by name and its score; the report's
// sentences are among them. With the choice off nothing is written, and
// a --choices file that cannot be made fails before any report.
func TestReportChoices(t *testing.T) {
	t.Parallel()
	data, out := preparedData(t, sampleCorpus), t.TempDir()
	reqs := filepath.Join(t.TempDir(), "requests.jsonl")
	os.WriteFile(reqs, []byte(`{"request_id":"t-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":900}`+"\n"), 0o644)
	choices := filepath.Join(t.TempDir(), "choices.jsonl")

	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--choices", choices); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	raw, err := os.ReadFile(choices)
	if err != nil {
		t.Fatal(err)
	}
	weighed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var c choiceLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if c.RequestID != "t-1" || c.Sentence == "" || c.DocID == "" || c.Score <= 0 || c.Score >= 1 {
			t.Errorf("line %+v", c)
		}
		names := append(append([]string(nil), crucible.ChoiceFeatures...), crucible.TopicFeatures...)
		if len(c.Features) != len(names) {
			t.Errorf("features %v, want %v", c.Features, names)
		}
		for _, name := range names {
			if _, ok := c.Features[name]; !ok {
				t.Errorf("feature %s missing from %v", name, c.Features)
			}
		}
		weighed[c.Sentence] = true
	}
	var rep struct {
		Sentences []struct {
			Text     string `json:"text"`
			Crucible struct {
				NuggetID string `json:"nugget_id"`
			} `json:"crucible"`
		} `json:"sentences"`
	}
	b, err := os.ReadFile(filepath.Join(out, "t-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sentences) == 0 {
		t.Fatal("the report has no sentence")
	}
	for _, s := range rep.Sentences {
		if strings.HasPrefix(s.Crucible.NuggetID, crucible.FillNuggetPrefix) {
			continue // the fill's sentences come after the choice (fill_report)
		}
		if !weighed[s.Text] {
			t.Errorf("report sentence %q was not among the candidates written", s.Text)
		}
	}

	off := filepath.Join(t.TempDir(), "off.jsonl")
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", t.TempDir(), "--choices", off, "--choose-sentences", "off"); code != 0 {
		t.Fatalf("report with the choice off: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(off); len(b) != 0 {
		t.Errorf("with the choice off --choices holds %d bytes", len(b))
	}

	_, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", t.TempDir(), "--choices", filepath.Join(t.TempDir(), "no", "such", "dir", "c.jsonl"))
	if code == 0 || !strings.Contains(stderr, "--choices") {
		t.Errorf("an unwritable --choices: exit %d, %s", code, stderr)
	}
}
