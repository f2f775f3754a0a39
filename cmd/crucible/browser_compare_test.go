package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// manifestFields reads the visible manifest table's rows under sel:
// key → value.
const manifestFields = `((sel) => Object.fromEntries([...document.querySelectorAll(sel + ' [data-testid="manifest-field"]')]
	.map(r => [r.dataset.key, r.querySelector('td').textContent.trim()])))`

// TestBrowserManifestAndCompare makes a report with the offline engine
// and opens its "How this was made" panel, closed at first, which shows
// the run's manifest: the corpus of 8 documents, the offline engine's
// version, the BM25 parameters. It edits a sentence, so the panel says
// the version was edited by hand, then follows the history's "compare
// with current" to the compare page: the edited sentence with its
// removed and added words marked, and the manifests' one difference.
func TestBrowserManifestAndCompare(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}
	openNewReport(t, ctx, base)
	reportURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	reportURL, _, _ = strings.Cut(reportURL, "#")

	// The panel is closed: its table shows once it is opened.
	visible := `(() => { const e = document.querySelector('[data-testid="manifest-table"]'); return !!e && e.checkVisibility(); })()`
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](visible)); err != nil || shown {
		t.Fatalf("the manifest table shows before the panel is opened (%v)", err)
	}
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="manifest"] summary`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="manifest-table"]`)),
	)
	if err != nil {
		t.Fatalf("open the manifest panel: %v", err)
	}
	fields, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](manifestFields+`('[data-testid="manifest"]')`))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"Corpus / documents": "8",
		"Index / bm25_k1":    "0.9",
		"Index / bm25_b":     "0.4",
		"Engine / id":        "offline",
		"Ranking / reranker": "none",
	} {
		if fields[key] != want {
			t.Errorf("%s = %q, want %q", key, fields[key], want)
		}
	}
	if !strings.HasPrefix(fields["Engine / offline_version"], "offline-v") || len(fields["Corpus / fingerprint"]) != 64 ||
		!strings.Contains(fields["Prompts / extract"], "logprobs") {
		t.Errorf("manifest fields: %v", fields)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="manifest-edited"]').length`)); n != 0 {
		t.Error("the generated report says it was edited by hand")
	}

	// An edit by hand, a few words added: the panel says so.
	original, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#s1 [data-testid="sentence-text"]`)))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Join(strings.Fields(original), " ") + " It was said again and again."
	editSentence(t, ctx, 1, edited, 2)
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="manifest"] summary`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="manifest-edited"]`)),
	)
	if err != nil {
		t.Fatalf("the edited version's manifest: %v", err)
	}

	// From the history, compare version 1 with the current version.
	err = do(ctx,
		chromedp.Navigate(reportURL+"/history"),
		chromedp.Click(chromedp.CSS(`[data-testid="history-compare"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cmp-sentences"]`)),
	)
	if err != nil {
		t.Fatalf("compare with current: %v", err)
	}
	side, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="cmp-side-a"]`)))
	sideB, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="cmp-side-b"]`)))
	if !strings.Contains(side, "version 1") || !strings.Contains(sideB, "current version (2)") {
		t.Errorf("sides: A %q, B %q", side, sideB)
	}
	ops, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="cmp-sentence"]')].map(e => e.dataset.op)`))
	if err != nil || len(ops) == 0 || ops[0] != "changed" {
		t.Fatalf("sentence operations %q (%v), want the first changed", ops, err)
	}
	for _, op := range ops[1:] {
		if op != "same" {
			t.Errorf("sentence operations %q: only the first changed", ops)
			break
		}
	}
	added, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="cmp-sentence"] ins')].map(e => e.textContent).join(" ")`))
	if err != nil || !strings.Contains(added, "again and again") {
		t.Errorf("added words %q (%v)", added, err)
	}
	style, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="cmp-word-added"]')).textDecorationLine`))
	if err != nil || !strings.Contains(style, "underline") {
		t.Errorf("added words are not underlined: %q (%v)", style, err)
	}
	diffKeys, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="cmp-manifest-field"]')].map(e => e.dataset.key)`))
	if err != nil || len(diffKeys) != 1 || diffKeys[0] != "Edits / edited_by_hand" {
		t.Errorf("manifest differences %q (%v), want only the edit mark", diffKeys, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 900)); err != nil {
		t.Fatal(err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	if err != nil || overflow {
		t.Errorf("at 400 pixels the compare page is wider than the window (%v)", err)
	}
}
