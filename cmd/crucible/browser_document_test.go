package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLongDocumentWindows opens a document of 450 passages: the page
// shows 200 at a time with links to the others, and a cited span far into
// the document opens the window holding it, with the span marked.
func TestBrowserLongDocumentWindows(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	var text strings.Builder
	for i := range 450 {
		if i > 0 {
			text.WriteString("\n\n")
		}
		// About 900 characters: one passage per paragraph.
		fmt.Fprintf(&text, "Paragraph %d on the harbour works. %s", i, strings.Repeat("The engineers dredged the channel and built the pier. ", 16))
	}
	rec, _ := json.Marshal(map[string]string{"id": "long", "title": "Harbour works", "text": text.String()})
	corpus := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(corpus, append(rec, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--data", t.TempDir(), "--ingest-if-empty", corpus)

	var rng, first string
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/documents/long"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="passage-window-range"]`)),
	)
	if err != nil {
		t.Fatalf("document page: %v", err)
	}
	rng, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="passage-window-range"]`)))
	nodes, _ := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="doc-text"] [data-testid="passage"]`)))
	first, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="passage-anchor"]`)))
	if !strings.HasPrefix(rng, "Passages 0–199 of ") || len(nodes) != 200 || !strings.Contains(first, "¶ 0") {
		t.Fatalf("first window: %q, %d passages shown, first %q", rng, len(nodes), first)
	}
	total := strings.TrimPrefix(rng, "Passages 0–199 of ")

	// The next window is a page of its own: wait for its range, not only
	// for its "previous" link, which a loaded machine may show before the
	// rest of a 200-passage page is parsed.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="passage-window-next"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="passage-window-prev"]`)),
		waitTrue("the second window's range", `(() => { const e = document.querySelector('[data-testid="passage-window-range"]'); return !!e && e.textContent.trim().startsWith("Passages 200"); })()`),
	)
	if err != nil {
		t.Fatalf("later passages: %v", err)
	}
	rng, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="passage-window-range"]`)))
	if rng != "Passages 200–399 of "+total {
		t.Errorf("second window: %q", rng)
	}

	// A span in paragraph 449 opens the last window, marked.
	i := strings.Index(text.String(), "Paragraph 449 ")
	err = chromedp.Do(ctx,
		chromedp.Navigate(fmt.Sprintf("%s/documents/long?span=%d-%d", base, i, i+len("Paragraph 449"))),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="span-status"]`)),
	)
	if err != nil {
		t.Fatalf("document page with a span: %v", err)
	}
	rng, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="passage-window-range"]`)))
	if !strings.HasPrefix(rng, "Passages 400–") {
		t.Errorf("window for a span in paragraph 449: %q", rng)
	}
	marked, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#cite`)))
	if err != nil || !strings.Contains(marked, "Paragraph 449") {
		t.Errorf("cited span marked %q (%v)", marked, err)
	}
}
