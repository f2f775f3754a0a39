package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserUpload uploads a small JSON Lines file through the upload
// page of a portal in local mode (the visitor acts as an administrator),
// watches the upload's page refresh itself until the background worker is
// done, checks the counts and the bad line listed, and finds the new
// document with the search form.
func TestBrowserUpload(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", t.TempDir())

	content := `{"id":"airship-1","title":"Airships over the Atlantic","text":"A zeppelin crossed the Atlantic with mail and passengers."}` + "\n" +
		`{"id":"airship-2","title":"Broken","text":` + "\n"
	path := filepath.Join(t.TempDir(), "airships.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS(`[data-testid="nav-upload"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#upload-files`), []string{path}),
		chromedp.Click(chromedp.CSS(`[data-testid="upload-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-status"]`)),
	)
	if err != nil {
		t.Fatalf("upload the file: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(url, "/admin/uploads/") {
		t.Fatalf("after uploading, the browser is at %q (%v), want the upload's page", url, err)
	}
	// The page refreshes itself until the worker has read the file.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-done"]`))); err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="upload-state"]`)))
		t.Fatalf("the upload never finished (state %q): %v", state, err)
	}
	field := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="`+id+`"]`)))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return strings.TrimSpace(s)
	}
	// One good record, one cut short.
	if added, skipped := field("upload-added"), field("upload-skipped"); added != "1" || skipped != "1" {
		t.Errorf("upload page shows %s added and %s skipped, want 1 and 1", added, skipped)
	}
	if p := field("upload-problem-text"); !strings.HasPrefix(p, "airships.jsonl:2: ") {
		t.Errorf("problem listed as %q, want it to name airships.jsonl line 2", p)
	}

	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#header-q`), "zeppelin"),
		chromedp.Submit(chromedp.CSS(`[data-testid="header-search"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)),
	)
	if err != nil {
		t.Fatalf("search for the new document: %v", err)
	}
	if title := field("result-title"); title != "Airships over the Atlantic" {
		t.Errorf("first search result %q, want the uploaded document", title)
	}
}
