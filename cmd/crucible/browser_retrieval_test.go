package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRetrievalView submits a report with the LANCER reranker,
// opens the report's retrieval view and checks the first-stage and
// reranked rankings and LANCER's question × document grid.
func TestBrowserRetrievalView(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs and trade"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents say about tariffs and duties, and about trade with other nations?"),
		chromedp.Click(chromedp.CSS(`[data-testid="advanced"] summary`), chromedp.NodeVisible),
		chromedp.SetValue(chromedp.CSS(`#field-reranker`), "lancer"),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="job-report-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-retrieval-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="report-retrieval-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="retrieval-trace"]`)),
	)
	if err != nil {
		t.Fatalf("submit a LANCER report and open its retrieval view: %v", err)
	}
	method, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="retrieval-method"]`)))
	if !strings.HasPrefix(method, "LANCER") {
		t.Errorf("method %q, want LANCER", method)
	}
	rows, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="retrieval-row"]`)))
	if err != nil || len(rows) == 0 {
		t.Fatalf("no ranking rows (%v)", err)
	}
	grid, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="trace-table"] caption`)))
	if err != nil || !strings.Contains(grid, "Sub-question × document") {
		t.Errorf("first trace table %q (%v), want LANCER's rating grid", grid, err)
	}
	head, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="trace-table"] thead`)))
	if !strings.Contains(head, "Q1:") || !strings.Contains(head, "Q2:") {
		t.Errorf("grid header %q, want two sub-question columns", head)
	}
}
