package compare

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
)

// report builds a NeuCLIR report of sentences "text|doc|nugget" (doc and
// nugget optional).
func report(sentences ...string) export.NeuCLIRReport {
	r := export.NeuCLIRReport{RequestID: "r1", RunID: "run"}
	for _, s := range sentences {
		parts := strings.Split(s, "|")
		ns := export.NeuCLIRSentence{Text: parts[0], Citations: []string{"d1"}}
		if len(parts) > 1 {
			ns.Citations = []string{parts[1]}
		}
		if len(parts) > 2 {
			ns.Crucible = &export.SentenceMeta{PassageID: ns.Citations[0] + "#0", End: 10, NuggetID: parts[2]}
		}
		r.Sentences = append(r.Sentences, ns)
	}
	return r
}

func ops(cs []SentenceChange) string {
	var b strings.Builder
	for _, c := range cs {
		switch c.Op {
		case Same:
			b.WriteString("=")
		case Changed:
			b.WriteString("~")
		case Added:
			b.WriteString("+")
		case Removed:
			b.WriteString("-")
		}
	}
	return b.String()
}

func TestAlignSentences(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b export.NeuCLIRReport
		want string
	}{
		{"equal", report("One fact here.", "Two facts here."), report("One fact here.", "Two facts here."), "=="},
		{"empty both", report(), report(), ""},
		{"all added", report(), report("A new fact.", "Another."), "++"},
		{"all removed", report("Gone fact.", "Also gone."), report(), "--"},
		{"spacing is no change", report("One  fact\nhere."), report("One fact here."), "="},
		{"reworded", report("The tariff was raised in 1890 by Congress."), report("The tariff was lowered in 1890 by Congress."), "~"},
		{"unrelated is remove and add", report("The tariff was raised in 1890."), report("Gold flowed out of the Treasury."), "-+"},
		{"middle edit", report("First stays.", "The debt fell to seven million dollars.", "Last stays."),
			report("First stays.", "The debt fell to nearly seven million dollars.", "Last stays."), "=~="},
		{"moved", report("Alpha one.", "Beta two.", "Gamma three."), report("Gamma three.", "Alpha one.", "Beta two."), "+==-"},
		{"insert before change", report("Keep.", "The bank charter was vetoed in 1832."),
			report("Keep.", "A wholly new sentence arrives.", "The bank charter was vetoed in July 1832."), "=+~"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ops(alignSentences(tc.a, tc.b)); got != tc.want {
				t.Errorf("alignment %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWordDiff(t *testing.T) {
	got := wordDiff("The tariff was raised in 1890.", "The tariff was lowered sharply in 1890.")
	want := []Word{{Same, "The tariff was"}, {Removed, "raised"}, {Added, "lowered sharply"}, {Same, "in 1890."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("word diff (-want +got):\n%s", diff)
	}
	if got := markedWords(got); got != "The tariff was [-raised-] {+lowered sharply+} in 1890." {
		t.Errorf("marked: %s", got)
	}
}

func TestCitationsAndDocuments(t *testing.T) {
	a := report("Same text.|d1|n1", "Other text.|d2|n2")
	b := report("Same text.|d3|n1", "Other text.|d2|n2")
	b.Sentences[1].Crucible.End = 20
	res := Compare(Side{Label: "a", Report: a}, Side{Label: "b", Report: b})
	if len(res.Citations) != 2 {
		t.Fatalf("citations changed: %+v", res.Citations)
	}
	if c := res.Citations[0]; !c.SameText || !c.DocChanged || c.From != "d1#0 bytes 0–10" || c.To != "d3#0 bytes 0–10" {
		t.Errorf("first change: %+v", c)
	}
	if c := res.Citations[1]; c.DocChanged || c.To != "d2#0 bytes 0–20" {
		t.Errorf("second change: %+v", c)
	}
	if diff := cmp.Diff([]string{"d1"}, res.DocsOnlyA); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"d3"}, res.DocsOnlyB); diff != "" {
		t.Error(diff)
	}
}

func TestNuggets(t *testing.T) {
	a := report("One.|d1|n1", "Two.|d1|n2")
	b := report("One.|d1|n1", "Three.|d1|n3")
	// Without questions, by id.
	d := Compare(Side{Report: a}, Side{Report: b}).Nuggets
	if !d.Known || !d.ByID || len(d.Gained) != 1 || d.Gained[0].ID != "n3" || len(d.Lost) != 1 || d.Lost[0].ID != "n2" || d.Both != 1 {
		t.Errorf("by id: %+v", d)
	}
	// With questions: two runs' ids mean nothing, questions match.
	a.Crucible = &export.ReportMeta{Nuggets: []export.NuggetMeta{{ID: "n1", Question: "When?", Answer: "1890"}, {ID: "n2", Question: "Who?", Answer: "Harrison"}}}
	b.Crucible = &export.ReportMeta{Nuggets: []export.NuggetMeta{{ID: "n1", Question: "Where?", Answer: "Ohio"}, {ID: "n3", Question: " when? ", Answer: "1890"}}}
	d = Compare(Side{Report: a}, Side{Report: b}).Nuggets
	if d.ByID || d.Both != 1 || len(d.Gained) != 1 || d.Gained[0].Question != "Where?" || len(d.Lost) != 1 || d.Lost[0].Question != "Who?" {
		t.Errorf("by question: %+v", d)
	}
	// Without provenance: not compared.
	if d := Compare(Side{Report: report("One.")}, Side{Report: b}).Nuggets; d.Known {
		t.Errorf("without provenance: %+v", d)
	}
}

func TestManifestAndMetrics(t *testing.T) {
	m := pipeline.Manifest{Pipeline: "p1", Settings: pipeline.SettingsOf(pipeline.DefaultSettings())}
	m2 := m.Clone()
	m2.Settings["retrieve"] = pipeline.SettingsOf(pipeline.Settings{Retrieve: 50})["retrieve"]
	m2.Engine.Model = "llama"
	a, b := report("One."), report("One.")
	a.Crucible = &export.ReportMeta{Manifest: &m}
	b.Crucible = &export.ReportMeta{Manifest: &m2}
	ma, mb := judge.Metrics{NuggetRecall: 0.25}, judge.Metrics{NuggetRecall: 0.5}
	res := Compare(Side{Report: a, Metrics: &ma, Judge: "offline"}, Side{Report: b, Metrics: &mb, Judge: "offline"})
	want := []FieldChange{
		{Key: "Engine / model", B: "llama", InB: true},
		{Key: "Settings / retrieve", A: "100", B: "50", InA: true, InB: true},
	}
	if diff := cmp.Diff(want, res.Manifest.Fields); diff != "" {
		t.Errorf("manifest differences (-want +got):\n%s", diff)
	}
	if res.Manifest.Same || res.A.ManifestHash == res.B.ManifestHash {
		t.Errorf("manifests: %+v", res.Manifest)
	}
	if len(res.Metrics) != 6 || res.Metrics[0].Delta != 0.25 || res.Judge != "offline" {
		t.Errorf("metrics: %+v (%s)", res.Metrics, res.Judge)
	}
	if Compare(Side{Report: a, Metrics: &ma}, Side{Report: b}).Metrics != nil {
		t.Error("metrics compared with one side unevaluated")
	}
	if d := Compare(Side{Report: report("x")}, Side{Report: b}).Manifest; !d.MissingA || d.MissingB {
		t.Errorf("missing manifest: %+v", d)
	}
}
