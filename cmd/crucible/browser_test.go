package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds the browser for the browser tests; CI installs
// Debian's chromium, so there the tests always run.
func chromiumPath() string {
	if p := os.Getenv("CRUCIBLE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts headless chromium and returns a browser context.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on a CI machine: .ci/run must install it")
		}
		t.Skip("browser test skipped: no chromium installed (apt-get install chromium)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}

// TestBrowserSearch opens the home page, searches "tariff" from the form
// and checks ranked results with highlighted matches, then follows a
// result to its document page with the passage highlighted.
func TestBrowserSearch(t *testing.T) {
	ctx := newBrowser(t)
	base := startServe(t, "--data", t.TempDir(), "--ingest-if-empty", sampleCorpus)

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="stats-documents"]`)),
	)
	if err != nil {
		t.Fatalf("home page: %v", err)
	}
	docs, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats-documents"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(docs, "8") {
		t.Errorf("home page shows %q documents, want 8", docs)
	}

	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#home-q`), "tariff"),
		chromedp.Submit(chromedp.CSS(`[data-testid="home-search-form"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)),
	)
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	ranks, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="result-rank"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ranks) < 2 {
		t.Fatalf("got %d ranked results, want several", len(ranks))
	}
	marks, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="result-fragment"] mark`)))
	if err != nil || len(marks) == 0 {
		t.Fatalf("no highlighted matches in the result fragments (%v)", err)
	}
	markText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="result-fragment"] mark`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(markText), "tariff") {
		t.Errorf("first highlight is %q, want tariff", markText)
	}
	rank1, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="result-rank"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rank1, "1") {
		t.Errorf("first result's rank reads %q", rank1)
	}

	// Follow the first result: the document page highlights the query.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[data-testid="result-title"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-text"]`)),
	)
	if err != nil {
		t.Fatalf("document page: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(url, "/documents/") || !strings.Contains(url, "#p") {
		t.Errorf("result link went to %s, want a document page anchored at the passage", url)
	}
	docMarks, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="doc-text"] mark`)))
	if err != nil || len(docMarks) == 0 {
		t.Errorf("document page does not highlight the query terms (%v)", err)
	}
}

// TestBrowserReport submits a report request from the form, watches the
// job page until the job is done (live updates reload the page), opens
// the report and expands a sentence's provenance.
func TestBrowserReport(t *testing.T) {
	ctx := newBrowser(t)
	base := startServe(t, "--data", t.TempDir(), "--ingest-if-empty", sampleCorpus)

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs and trade"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents tell Congress about tariffs, duties and trade with other nations?"),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-state"]`)),
	)
	if err != nil {
		t.Fatalf("submit the form: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(url, "/jobs/") {
		t.Fatalf("after submitting, the browser is at %q (%v), want a job page", url, err)
	}
	// The job page updates itself; the report link appears when done.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`))); err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-state"]`)))
		t.Fatalf("the job page never showed the report link (state %q): %v", state, err)
	}
	calls, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-calls"]`)))
	if strings.TrimSpace(calls) == "" || strings.TrimSpace(calls) == "0" {
		t.Errorf("job page shows %q model calls", calls)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-report-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
	)
	if err != nil {
		t.Fatalf("open the report: %v", err)
	}
	engine, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="report-engine"]`)))
	if !strings.Contains(engine, "offline engine") {
		t.Errorf("report engine label %q, want the offline engine named", engine)
	}
	sentences, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="sentence"]`)))
	if err != nil || len(sentences) == 0 {
		t.Fatalf("no sentences in the report (%v)", err)
	}
	// Open the first sentence: its provenance shows the nugget and the
	// passage with the cited span marked.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="sentence"] summary`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="provenance"] [data-testid="prov-question"]`)),
	)
	if err != nil {
		t.Fatalf("open a sentence's provenance: %v", err)
	}
	question, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="prov-question"]`)))
	marked, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="prov-passage"] mark`)))
	if err != nil || strings.TrimSpace(marked) == "" || strings.TrimSpace(question) == "" {
		t.Errorf("provenance: question %q, marked span %q (%v)", question, marked, err)
	}
	sentence, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="sentence-text"]`)))
	if norm := normText(sentence); !strings.Contains(normText(marked), strings.TrimSpace(norm)) {
		t.Errorf("the marked span %q does not contain the sentence %q", marked, sentence)
	}
}
