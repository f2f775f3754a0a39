package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func sampleReport() pipeline.Report {
	return pipeline.Report{
		Request: pipeline.Request{ID: "r-7", Title: "Tariffs *then* and now", Limit: 500},
		RunID:   "crucible-offline-engine", Engine: OfflineLabel,
		Sentences: []pipeline.Sentence{
			{Text: "The McKinley Tariff passed in 1890.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 2, Start: 10, End: 45}, NuggetID: "n1.1", Confidence: 0.9, Supported: pipeline.VerdictYes},
			{Text: "Duties <b>rose</b> [sharply].", Citation: pipeline.Citation{DocID: "d2", Ordinal: 0, Start: 0, End: 20}, NuggetID: "n2.1", Confidence: 0.5},
			{Text: "It was repealed in 1894.", Citation: pipeline.Citation{DocID: "d1", Ordinal: 2, Start: 50, End: 74}, NuggetID: "n3.1", Confidence: 0.7},
		},
	}
}

func TestNeuCLIRJSON(t *testing.T) {
	b, err := NeuCLIRJSON(sampleReport(), []string{"sotu"})
	if err != nil {
		t.Fatal(err)
	}
	// The track's readers see exactly their fields.
	var plain struct {
		RequestID     string   `json:"request_id"`
		RunID         string   `json:"run_id"`
		CollectionIDs []string `json:"collection_ids"`
		Sentences     []struct {
			Text      string   `json:"text"`
			Citations []string `json:"citations"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(b, &plain); err != nil {
		t.Fatal(err)
	}
	if plain.RequestID != "r-7" || plain.RunID != "crucible-offline-engine" || !cmp.Equal(plain.CollectionIDs, []string{"sotu"}) {
		t.Errorf("header = %+v", plain)
	}
	if len(plain.Sentences) != 3 || !cmp.Equal(plain.Sentences[1].Citations, []string{"d2"}) || plain.Sentences[1].Text != "Duties <b>rose</b> [sharply]." {
		t.Errorf("sentences = %+v", plain.Sentences)
	}
	var full NeuCLIRReport
	json.Unmarshal(b, &full)
	m := full.Sentences[0].Crucible
	if m == nil || m.PassageID != "d1#2" || m.Start != 10 || m.End != 45 || m.NuggetID != "n1.1" || m.Confidence != 0.9 || m.Supported != "yes" {
		t.Errorf("provenance = %+v", m)
	}
	if full.Crucible == nil || !full.Crucible.Offline {
		t.Errorf("offline label missing: %+v", full.Crucible)
	}
	empty, _ := NeuCLIRJSON(pipeline.Report{Request: pipeline.Request{ID: "x"}}, nil)
	if !strings.Contains(string(empty), `"sentences": []`) || !strings.Contains(string(empty), `"collection_ids": []`) {
		t.Errorf("an empty report must still have its lists:\n%s", empty)
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(sampleReport(), map[string]string{"d1": "Address of 1890", "d2": "Address <script>"})
	for _, want := range []string{
		"# Tariffs \\*then\\* and now",
		"offline engine (no language model)",
		"The McKinley Tariff passed in 1890. [1] Duties \\<b\\>rose\\</b\\> \\[sharply\\]. [2] It was repealed in 1894. [1]",
		"1. Address of 1890 (`d1`, passage 2)",
		"2. Address \\<script\\> (`d2`, passage 0)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, "<b>") {
		t.Errorf("raw HTML in markdown:\n%s", md)
	}
	evil := sampleReport()
	evil.RunID = "run`\n\n<script>x</script>"
	evil.Sentences[0].Citation.DocID = "d1`\n\n<img src=x>"
	if md := Markdown(evil, nil); strings.Contains(md, "\n<script>") || strings.Contains(md, "\n<img") {
		t.Errorf("line breaks or backticks in ids escaped their code spans:\n%s", md)
	}
	none := Markdown(pipeline.Report{Request: pipeline.Request{Title: "Empty", Limit: 100}, Engine: "gpt"}, nil)
	if !strings.Contains(none, "no sentences") || strings.Contains(none, "References") {
		t.Errorf("empty report markdown:\n%s", none)
	}
}

func TestNumberingAndNames(t *testing.T) {
	nums, refs := Numbering(sampleReport(), nil)
	if !cmp.Equal(nums, []int{1, 2, 1}) || len(refs) != 2 || refs[1].DocID != "d2" {
		t.Errorf("numbers %v refs %+v", nums, refs)
	}
	if got := CitedDocIDs(sampleReport()); !cmp.Equal(got, []string{"d1", "d2"}) {
		t.Errorf("cited = %v", got)
	}
	for in, want := range map[string]string{"r1": "r1.json", "a/b": "a_b.json", "..": "report.json", "": "report.json"} {
		if got := FileName(in, ".json"); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownEvidenceAppendix(t *testing.T) {
	a := pipeline.Citation{DocID: "d1", Ordinal: 0, Start: 0, End: 10}
	b := pipeline.Citation{DocID: "d2", Ordinal: 1, Start: 5, End: 20}
	rep := pipeline.Report{
		Request: pipeline.Request{Title: "T", Limit: 500}, RunID: "r",
		Sentences: []pipeline.Sentence{
			{Text: "First.", Citation: a},
			{Text: "Second.", Citation: b},
			{Text: "Again first.", Citation: a}, // the same span is quoted once
		},
	}
	quotes := map[pipeline.Citation]string{a: "the span\n of one", b: "a *second* span"}
	md := MarkdownWithEvidence(rep, map[string]string{"d1": "One", "d2": "Two"}, quotes)
	_, appendix, ok := strings.Cut(md, "\n## Evidence\n")
	if !ok {
		t.Fatalf("no evidence appendix:\n%s", md)
	}
	appendix, _, _ = strings.Cut(appendix, "\n## How this was made\n")
	want := "\n[1]\n\n> the span of one\n\n[2]\n\n> a \\*second\\* span\n"
	if appendix != want {
		t.Errorf("appendix = %q, want %q", appendix, want)
	}
	if strings.Contains(Markdown(rep, nil), "## Evidence") {
		t.Error("Markdown without quotes has an evidence appendix")
	}
}

// TestVerificationCounts: the NeuCLIR JSON's report-level crucible object
// and the Markdown header say how many candidate sentences verification
// dropped and how many sentences are unchecked.
func TestVerificationCounts(t *testing.T) {
	yes, no := pipeline.VerdictYes, pipeline.VerdictNo
	verified := sampleReport()
	verified.Settings.Verify, verified.DroppedUnsupported = true, 3
	verified.Sentences[0].Covers = yes                                      // checked
	verified.Sentences[1].Supported, verified.Sentences[1].Covers = no, yes // failed, swapped in by hand
	// sentence 3 has no verdicts: unchecked (e.g. edited by hand)
	for _, tc := range []struct {
		name     string
		r        pipeline.Report
		want     ReportMeta
		markdown string
	}{
		{"verified", verified, ReportMeta{Verified: true, DroppedUnsupported: 3, Unchecked: 1, FailedCheck: 1},
			"_Verification: 3 candidate sentences dropped as unsupported by verification · 1 of 3 sentences unchecked · 1 failed a check._\n"},
		{"not verified", sampleReport(), ReportMeta{Unchecked: 3},
			"_Verification: 3 of 3 sentences unchecked (verification was off)._\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NeuCLIRJSON(tc.r, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Crucible ReportMeta `json:"crucible"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			got.Crucible.Engine, got.Crucible.Offline, got.Crucible.Title, got.Crucible.Limit = "", false, "", 0
			if diff := cmp.Diff(tc.want, got.Crucible); diff != "" {
				t.Errorf("crucible object (-want +got)\n%s", diff)
			}
			if !strings.Contains(string(b), `"unchecked": `) || !strings.Contains(string(b), `"dropped_unsupported": `) {
				t.Errorf("zero counts must still be written:\n%s", b)
			}
			if md := Markdown(tc.r, nil); !strings.Contains(md, tc.markdown) {
				t.Errorf("Markdown header lacks %q:\n%s", tc.markdown, md)
			}
		})
	}
}

// facetedReport is sampleReport grouped under two facets, the second
// heading hostile.
func facetedReport() pipeline.Report {
	r := sampleReport()
	r.Facets = []pipeline.Facet{{Heading: "The tariff of 1890", Description: "what it changed"}, {Heading: "## Repeal <script>"}}
	r.Sentences[0].Facet = "The tariff of 1890"
	r.Sentences[1].Facet = "The tariff of 1890"
	r.Sentences[2].Facet = "## Repeal <script>"
	return r
}

func TestMarkdownFacetHeadings(t *testing.T) {
	md := MarkdownWithEvidence(facetedReport(), map[string]string{"d1": "Address of 1890"},
		map[pipeline.Citation]string{facetedReport().Sentences[0].Citation: "the span"})
	want := "## The tariff of 1890\n\nThe McKinley Tariff passed in 1890. [1] Duties \\<b\\>rose\\</b\\> \\[sharply\\]. [2]\n\n" +
		"## \\#\\# Repeal \\<script\\>\n\nIt was repealed in 1894. [1]\n\n## References\n\n"
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks the sections\n%q\n%s", want, md)
	}
	// The appendices are as without facets.
	plain := MarkdownWithEvidence(sampleReport(), map[string]string{"d1": "Address of 1890"},
		map[pipeline.Citation]string{sampleReport().Sentences[0].Citation: "the span"})
	_, tailFaceted, _ := strings.Cut(md, "## References")
	_, tailPlain, _ := strings.Cut(plain, "## References")
	if tailFaceted != tailPlain {
		t.Errorf("references and evidence changed with facets:\n%s\nwant\n%s", tailFaceted, tailPlain)
	}
	// A sentence without a facet after a grouped one starts a paragraph
	// of its own, without a heading.
	r := facetedReport()
	r.Sentences[2].Facet = ""
	if md := Markdown(r, nil); !strings.Contains(md, "[2]\n\nIt was repealed in 1894. [1]\n") {
		t.Errorf("an ungrouped sentence after a facet:\n%s", md)
	}
}

func TestNeuCLIRFacets(t *testing.T) {
	r := facetedReport()
	b, err := NeuCLIRJSON(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got NeuCLIRReport
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// A flat list in the report's order, each sentence with its facet.
	var texts, facets []string
	for _, s := range got.Sentences {
		texts = append(texts, s.Text)
		facets = append(facets, s.Crucible.Facet)
	}
	if diff := cmp.Diff([]string{r.Sentences[0].Text, r.Sentences[1].Text, r.Sentences[2].Text}, texts); diff != "" {
		t.Errorf("sentence order (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"The tariff of 1890", "The tariff of 1890", "## Repeal <script>"}, facets); diff != "" {
		t.Errorf("facets (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(r.Facets, got.Crucible.Facets); diff != "" {
		t.Errorf("report facets (-want +got)\n%s", diff)
	}
	// Without facets the fields are left out.
	plain, _ := NeuCLIRJSON(sampleReport(), nil)
	if strings.Contains(string(plain), `"facet`) {
		t.Errorf("an ungrouped report mentions facets:\n%s", plain)
	}
}

func TestCollectionIDs(t *testing.T) {
	got := CollectionIDs([]string{"testdata/corpora/sotu.jsonl.gz", "sotu.jsonl", `C:\data\news.json`, "notes.txt", "plain", ""})
	want := []string{"sotu", "news", "notes", "plain"}
	if !cmp.Equal(got, want) {
		t.Errorf("CollectionIDs = %v, want %v", got, want)
	}
	if got := CollectionIDs(nil); got == nil || len(got) != 0 {
		t.Errorf("no files: %#v, want an empty list", got)
	}
}
