package pipeline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleManifest() Manifest {
	t := 0.0
	s := DefaultSettings()
	on, off := true, false
	s.PreferPeriod, s.PassageScores, s.SpreadSources, s.BestPassage = &on, &off, &off, &on
	s.CalibratedThreshold = 0.625
	return Manifest{
		ManifestVersion: ManifestVersion,
		Corpus:          CorpusFacts{Fingerprint: strings.Repeat("ab", 32), Documents: 3, Passages: 12},
		Index:           IndexFacts{Format: "2", K1: 0.9, B: 0.4, TitleInPassages: true},
		Engine: EngineFacts{ID: "openai", Label: "llama", Model: "llama", EndpointHost: "10.0.0.5:8000",
			EmbeddingModel: "bge", Temperature: &t, Calls: &CallParams{Timeout: "1m0s", MaxRetries: 4, MaxConcurrent: 8}},
		Prompts:  []PromptTemplate{TemplateOf(ModelRequest{Task: "extract", Messages: []Message{{Role: "user", Content: "x"}}, MaxTokens: 400, Logprobs: true})},
		Pipeline: "crucible-pipeline-v1",
		Settings: SettingsOf(s),
		Ranker:   7,
		Reranker: "lancer",
		Software: Software{Module: "m", Version: "v1.0.0", Revision: "abc", Modified: true, GoVersion: "go1.26"},
	}
}

// TestManifestRoundTrip: a manifest reads back from its JSON exactly, and
// its hash and fields with it.
func TestManifestRoundTrip(t *testing.T) {
	m := sampleManifest()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got Manifest
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if m.Hash() != got.Hash() || len(m.Hash()) != 16 {
		t.Errorf("hash %q after the round trip, %q before", got.Hash(), m.Hash())
	}
	b2, _ := json.Marshal(got)
	if string(b) != string(b2) {
		t.Errorf("JSON changed in the round trip:\n%s\n%s", b, b2)
	}
	for _, secret := range []string{"key", "sk-", "password"} {
		if strings.Contains(strings.ToLower(string(b)), secret) {
			t.Errorf("the manifest's JSON mentions %q: %s", secret, b)
		}
	}
}

// TestSettingsOfEverySetting: every field of Settings is in the
// manifest's settings (or, the ranker and reranker, beside them), so a
// setting added later cannot be left out of manifests.
func TestSettingsOfEverySetting(t *testing.T) {
	on := true
	s := Settings{PreferPeriod: &on, PassageScores: &on, SpreadSources: &on, BestPassage: &on, ChooseSentences: &on, FacetNuggets: &on, FillReport: &on}
	got := SettingsOf(s)
	typ := reflect.TypeOf(s)
	for i := 0; i < typ.NumField(); i++ {
		name := snakeCase(typ.Field(i).Name)
		_, ok := got[name]
		if name == "ranker" || name == "reranker" {
			if ok {
				t.Errorf("%s is in the settings; the manifest has it apart", name)
			}
			continue
		}
		if !ok {
			t.Errorf("setting %s is missing from %v", name, got)
		}
	}
	if got["ideation_docs"] != json.Number("0") || got["prefer_period"] != true {
		t.Errorf("values: %v", got)
	}
	if _, ok := SettingsOf(DefaultSettings())["prefer_period"]; ok {
		t.Error("a rule left to the engine (nil) is listed")
	}
}

func TestTemplateOf(t *testing.T) {
	base := ModelRequest{Task: "extract", Messages: []Message{{Role: "system", Content: "a"}, {Role: "user", Content: "b"}}, MaxTokens: 10}
	h := TemplateOf(base).Hash
	if TemplateOf(base).Hash != h {
		t.Fatal("not deterministic")
	}
	changes := map[string]ModelRequest{}
	r := base
	r.Messages = []Message{{Role: "system", Content: "a"}, {Role: "user", Content: "b!"}}
	changes["wording"] = r
	r = base
	r.Messages = []Message{{Role: "system", Content: "ab"}, {Role: "user", Content: ""}}
	changes["boundary"] = r
	r = base
	r.Temperature = 0.7
	changes["temperature"] = r
	r = base
	r.MaxTokens = 11
	changes["max tokens"] = r
	r = base
	r.Logprobs = true
	changes["logprobs"] = r
	for name, r := range changes {
		if TemplateOf(r).Hash == h {
			t.Errorf("changing the %s keeps the hash", name)
		}
	}
}

func TestCorpusHasher(t *testing.T) {
	docs := []Document{{ID: "a", Title: "A", Text: "one"}, {ID: "b", Text: "two", Metadata: map[string]string{"date": "1900"}}}
	facts := func(ds []Document) CorpusFacts {
		var h CorpusHasher
		for _, d := range ds {
			h.Add(d.ID, DocumentContentHash(d))
		}
		return h.Facts(5)
	}
	base := facts(docs)
	if base.Documents != 2 || base.Passages != 5 || len(base.Fingerprint) != 64 {
		t.Fatalf("facts = %+v", base)
	}
	if facts(docs) != base {
		t.Error("not deterministic")
	}
	changed := []Document{docs[0], {ID: "b", Text: "two", Metadata: map[string]string{"date": "1901"}}}
	if facts(changed).Fingerprint == base.Fingerprint {
		t.Error("a metadata change keeps the fingerprint")
	}
	if facts(docs[:1]).Fingerprint == base.Fingerprint {
		t.Error("a removed document keeps the fingerprint")
	}
	renamed := []Document{docs[0], {ID: "c", Text: "two", Metadata: map[string]string{"date": "1900"}}}
	if facts(renamed).Fingerprint == base.Fingerprint {
		t.Error("a renamed document keeps the fingerprint")
	}
	// The source file is not content.
	d := docs[0]
	d.Source = "other.jsonl:4"
	if DocumentContentHash(d) != DocumentContentHash(docs[0]) {
		t.Error("the source changes the content hash")
	}
	var empty CorpusHasher
	if f := empty.Facts(0); f.Documents != 0 || len(f.Fingerprint) != 64 {
		t.Errorf("empty facts = %+v", f)
	}
}

func TestForVersion(t *testing.T) {
	m := sampleManifest()
	for _, tc := range []struct {
		name string
		v    VersionInfo
		want bool
	}{
		{"generated", VersionInfo{Number: 1}, false},
		{"edited", VersionInfo{Number: 2}, true},
		{"restored generated", VersionInfo{Number: 3, RestoredFrom: 1}, false},
		{"restored edit", VersionInfo{Number: 4, RestoredFrom: 2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ForVersion(&m, tc.v)
			if got.EditedByHand != tc.want {
				t.Errorf("EditedByHand = %t, want %t", got.EditedByHand, tc.want)
			}
			if m.EditedByHand {
				t.Error("ForVersion changed the job's manifest")
			}
			got.EditedByHand = false
			if diff := cmp.Diff(m, *got); diff != "" {
				t.Errorf("beyond the edit mark (-job +version):\n%s", diff)
			}
		})
	}
	if ForVersion(nil, VersionInfo{Number: 2}) != nil {
		t.Error("no manifest became one")
	}
	edited := ForVersion(&m, VersionInfo{Number: 2})
	if edited.Hash() == m.Hash() {
		t.Error("an edited version has its job's manifest hash")
	}
	last := edited.Fields()[len(edited.Fields())-1]
	if last.Key() != "Edits / edited_by_hand" {
		t.Errorf("last field = %+v", last)
	}
}

func TestManifestFields(t *testing.T) {
	m := sampleManifest()
	seen := map[string]string{}
	for _, f := range m.Fields() {
		if _, dup := seen[f.Key()]; dup {
			t.Errorf("field %s twice", f.Key())
		}
		seen[f.Key()] = f.Value
	}
	for key, want := range map[string]string{
		"Corpus / documents":              "3",
		"Index / bm25_k1":                 "0.9",
		"Engine / endpoint_host":          "10.0.0.5:8000",
		"Engine / temperature":            "0",
		"Settings / retrieve":             "100",
		"Settings / prefer_period":        "true",
		"Ranking / ranker":                "trained ranker 7",
		"Ranking / reranker":              "lancer",
		"Software / revision":             "abc (modified)",
		"Prompts / extract":               TemplateOf(ModelRequest{Task: "extract", Messages: []Message{{Role: "user", Content: "x"}}, MaxTokens: 400, Logprobs: true}).Hash + " (max_tokens 400, temperature 0, logprobs)",
		"Settings / calibrated_threshold": "0.625",
	} {
		if seen[key] != want {
			t.Errorf("%s = %q, want %q", key, seen[key], want)
		}
	}
}
