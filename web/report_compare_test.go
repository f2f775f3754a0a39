package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/web"
)

// testRunManifest is a run manifest with every part filled in.
func testRunManifest() *pipeline.Manifest {
	t := 0.0
	return &pipeline.Manifest{
		ManifestVersion: pipeline.ManifestVersion,
		Corpus:          pipeline.CorpusFacts{Fingerprint: strings.Repeat("c0ffee", 10) + "beef", Documents: 2, Passages: 3},
		Index:           pipeline.IndexFacts{Format: "2", K1: 0.9, B: 0.4, TitleInPassages: true},
		Engine: pipeline.EngineFacts{ID: "openai", Label: "llama-3.3-70b", Model: "llama-3.3-70b", EndpointHost: "vllm.internal:8000",
			Temperature: &t, Calls: &pipeline.CallParams{Timeout: "1m0s", MaxRetries: 4, MaxConcurrent: 8}},
		Prompts:  []pipeline.PromptTemplate{{Task: "extract", Hash: "0123456789abcdef", MaxTokens: 400, Logprobs: true}},
		Pipeline: "crucible-pipeline-v1",
		Settings: pipeline.SettingsOf(pipeline.DefaultSettings()),
		Reranker: "lancer",
		Software: pipeline.Software{Module: "github.com/crucible-portal/crucible", Version: "v1.2.3", Revision: "abc123", GoVersion: "go1.26"},
	}
}

// fieldsOf reads a manifest table's rows: key → value.
func fieldsOf(sel *goquery.Selection) map[string]string {
	out := map[string]string{}
	sel.Find(`[data-testid="manifest-field"]`).Each(func(_ int, r *goquery.Selection) {
		out[r.AttrOr("data-key", "")] = strings.TrimSpace(r.Find("td").Text())
	})
	return out
}

// TestManifestPanel: the report page's "How this was made" holds the
// run's manifest, closed until opened, and links to the compare page;
// the printable page, the Markdown and the JSON exports carry it too; a
// report without one says so.
func TestManifestPanel(t *testing.T) {
	s := newReportServer(t, reportStore(), web.Config{})
	rep := sampleReport()
	rep.Manifest = testRunManifest()
	withReport(s, rep)
	doc := parseHTML(t, s.get(t, "/reports/9"))
	panel := byTestID(doc, "manifest")
	if goquery.NodeName(panel) != "details" || panel.AttrOr("open", "closed") != "closed" {
		t.Fatalf("the manifest panel is not a closed <details>")
	}
	if got := strings.TrimSpace(panel.Find("summary").Text()); got != "How this was made" {
		t.Errorf("panel summary %q", got)
	}
	if got := textOf(doc, "manifest-hash"); got != rep.Manifest.Hash() {
		t.Errorf("hash %q, want %q", got, rep.Manifest.Hash())
	}
	fields := fieldsOf(panel)
	for key, want := range map[string]string{
		"Corpus / fingerprint":   rep.Manifest.Corpus.Fingerprint,
		"Index / bm25_k1":        "0.9",
		"Engine / endpoint_host": "vllm.internal:8000",
		"Engine / temperature":   "0",
		"Prompts / extract":      "0123456789abcdef (max_tokens 400, temperature 0, logprobs)",
		"Settings / retrieve":    "100",
		"Ranking / reranker":     "lancer",
		"Software / revision":    "abc123",
	} {
		if fields[key] != want {
			t.Errorf("%s = %q, want %q", key, fields[key], want)
		}
	}
	if href := byTestID(doc, "manifest-compare-link").AttrOr("href", ""); href != "/reports/9/compare" {
		t.Errorf("compare link %q", href)
	}

	print := parseHTML(t, s.get(t, "/reports/9/print"))
	if got := fieldsOf(byTestID(print, "print-manifest")); got["Engine / model"] != "llama-3.3-70b" {
		t.Errorf("printable manifest: %v", got)
	}
	md := s.get(t, "/reports/9/export.md").Body.String()
	if !strings.Contains(md, "## How this was made") || !strings.Contains(md, rep.Manifest.Hash()) || !strings.Contains(md, "endpoint\\_host `vllm.internal:8000`") {
		t.Errorf("Markdown appendix missing:\n%s", md)
	}
	if js := s.get(t, "/reports/9/export.json").Body.String(); !strings.Contains(js, `"manifest": {`) || !strings.Contains(js, `"endpoint_host": "vllm.internal:8000"`) {
		t.Errorf("JSON export without crucible.manifest:\n%s", js)
	}

	rep.Manifest = nil
	withReport(s, rep)
	doc = parseHTML(t, s.get(t, "/reports/9"))
	if !strings.Contains(textOf(doc, "manifest-missing"), "before Crucible kept run manifests") {
		t.Errorf("a report without a manifest: %q", textOf(doc, "manifest-missing"))
	}
}

// opsOf lists the compare page's sentence operations.
func opsOf(doc *goquery.Document) []string {
	var out []string
	byTestID(doc, "cmp-sentence").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-op", "")) })
	return out
}

// TestCompareVersions: the history offers to compare each old version
// with the current one; the compare page shows the manifests' difference
// (the edited version is marked), the changed words, the removed sentence
// and the nugget it answered; the chooser lists the versions and the
// other reports of the request; gold nuggets compare the metrics.
func TestCompareVersions(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser, analystUser, reviewerUser))
	rep := s.jobs.reports[12]
	rep.Manifest = testRunManifest()
	s.jobs.reports[12] = rep
	other := evalReport()
	other.ID = 14
	other.Sentences = other.Sentences[:3]
	other.Sentences[2].Text = "Steel prices fell sharply in 2020."
	s.jobs.reports[14] = other
	done := sampleJob(20, pipeline.JobDone)
	done.Request, done.ReportID, done.SubmittedBy = rep.Request, 14, "ana"
	s.jobs.put(done)

	b, token := authorBrowser(t, s, analystUser)
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/1/text", formOf("version", "1", "text", "Tariffs on steel rose to 30 percent in 2018.")), "/reports/12#s1")
	wantRedirect(t, postWith(b, token, "/reports/12/sentences/2/delete", formOf("version", "2")), "/reports/12#s1")

	history := reportPage(t, b, "/reports/12/history")
	var links []string
	byTestID(history, "history-compare").Each(func(_ int, a *goquery.Selection) { links = append(links, a.AttrOr("href", "")) })
	if diff := cmp.Diff([]string{"/reports/12/compare?v=2", "/reports/12/compare?v=1"}, links); diff != "" {
		t.Errorf("compare-with-current links (-want +got):\n%s", diff)
	}

	doc := reportPage(t, b, "/reports/12/compare?v=1")
	if got := textOf(doc, "cmp-side-a"); !strings.Contains(got, "Report 12, version 1") {
		t.Errorf("side A: %q", got)
	}
	if got := textOf(doc, "cmp-side-b"); !strings.Contains(got, "Report 12, current version (3)") || !strings.Contains(got, "(edited by hand)") {
		t.Errorf("side B: %q", got)
	}
	if diff := cmp.Diff([]string{"changed", "removed", "same", "same"}, opsOf(doc)); diff != "" {
		t.Errorf("sentences (-want +got):\n%s", diff)
	}
	if got, want := texts(doc, "cmp-word-removed"), []string{"25"}; !cmp.Equal(got, want) {
		t.Errorf("removed words %q, want %q", got, want)
	}
	if got, want := texts(doc, "cmp-word-added"), []string{"30"}; !cmp.Equal(got, want) {
		t.Errorf("added words %q, want %q", got, want)
	}
	keys := texts(doc, "cmp-manifest-field")
	if len(keys) != 1 || !strings.Contains(keys[0], "Edits / edited_by_hand") {
		t.Errorf("manifest differences: %q", keys)
	}
	if n := byTestID(doc, "cmp-nugget-lost").Length(); n != 1 || !strings.HasPrefix(textOf(doc, "cmp-nuggets-note"), "0 gained, 1 lost") {
		t.Errorf("%d nuggets lost; note %q", n, textOf(doc, "cmp-nuggets-note"))
	}

	// The chooser: the report's other versions and report 14.
	choose := reportPage(t, b, "/reports/12/compare")
	if n := byTestID(choose, "cmp-version-choice").Length(); n != 2 {
		t.Errorf("%d versions offered, want 2 (the current one is not)", n)
	}
	var others []string
	byTestID(choose, "cmp-other-choice").Each(func(_ int, a *goquery.Selection) { others = append(others, a.AttrOr("href", "")) })
	if diff := cmp.Diff([]string{"/reports/12/compare?with=14"}, others); diff != "" {
		t.Errorf("other reports (-want +got):\n%s", diff)
	}

	// Another report, judged against gold nuggets.
	nuggets, err := judge.ReadNuggets(strings.NewReader(evalGold), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	set, err := s.gold.CreateGoldSet(context.Background(), "steel", nuggets)
	if err != nil {
		t.Fatal(err)
	}
	doc = reportPage(t, b, "/reports/12/compare?with=14&gold="+strconv.FormatInt(set.ID, 10))
	// 12 is now [edited 1, 3, 4], 14 is [1, 2, edited 3].
	if diff := cmp.Diff([]string{"changed", "added", "changed", "removed"}, opsOf(doc)); diff != "" {
		t.Errorf("report 12 against 14 (-want +got):\n%s", diff)
	}
	if n := byTestID(doc, "cmp-metric").Length(); n != 6 {
		t.Errorf("%d metrics, want 6:\n%s", n, textOf(doc, "cmp-metrics"))
	}
	if !strings.Contains(textOf(doc, "cmp-judge"), "request r1") {
		t.Errorf("judge line %q", textOf(doc, "cmp-judge"))
	}

	// A reviewer, who can view both, compares too; unknown reports and
	// versions are not found.
	r := newBrowser(s)
	r.mustLogin(t, reviewerUser)
	wantStatus(t, r.get("/reports/12/compare?with=14"), http.StatusOK)
	wantStatus(t, r.get("/reports/12/compare?with=999"), http.StatusNotFound)
	wantStatus(t, r.get("/reports/12/compare?v=9"), http.StatusNotFound)
	wantStatus(t, r.get("/reports/12/compare?v=x"), http.StatusNotFound)
	if rec := newBrowser(s).get("/reports/12/compare?with=14"); rec.Code != http.StatusSeeOther && rec.Code != http.StatusFound {
		t.Errorf("signed out: status %d, want a redirect to sign in", rec.Code)
	}
}
