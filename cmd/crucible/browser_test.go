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
