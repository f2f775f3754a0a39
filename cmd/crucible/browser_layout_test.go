package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserPagesFitAPhone opens every kind of page at 400 pixels and
// fails when one is wider than the viewport (issue 15: every page must fit
// a phone), then checks at 1,400 pixels that the header keeps the search
// box on the row of the navigation.
func TestBrowserPagesFitAPhone(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

	// A report, so that its page, history and nugget bank exist.
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs and trade"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents tell Congress about tariffs and duties?"),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
	)
	if err != nil {
		t.Fatalf("make a report: %v", err)
	}
	jobURL, _ := chromedp.Run(ctx, chromedp.Location())
	reportURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="job-report-link"]').href`))
	if err != nil {
		t.Fatal(err)
	}
	docURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/search?q=tariff').then(r => r.text()).then(t => {
		const d = new DOMParser().parseFromString(t, 'text/html');
		return d.querySelector('a[data-testid="result-title"]').href; })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}

	pages := []string{
		base + "/", base + "/search?q=tariff+duties", base + "/search?q=tariff&docs=1", docURL,
		base + "/reports/new", base + "/jobs", jobURL, reportURL, reportURL + "/nuggets", reportURL + "/history",
		reportURL + "/retrieval", reportURL + "/print", reportURL + "/evaluation", base + "/admin/upload", base + "/admin/rankers",
		base + "/no/such/page",
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800)); err != nil {
		t.Fatal(err)
	}
	for _, u := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS(`body`))); err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		// Open every disclosure, so that what it hides is measured too.
		w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => {
			document.querySelectorAll('details').forEach(d => d.open = true);
			return document.documentElement.scrollWidth; })()`))
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if w > 400 {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('body *')]
				.filter(e => e.getBoundingClientRect().right > 401).slice(0, 3)
				.map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + (e.dataset.testid ? '[' + e.dataset.testid + ']' : ''))
				.join(', ')`))
			t.Errorf("%s is %d px wide at a 400 px viewport (widest: %s)", strings.TrimPrefix(u, base), w, wide)
		}
	}

	// On a wide screen the header is one row: the search box sits level
	// with the navigation.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/jobs"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="header-search"]`))); err != nil {
		t.Fatal(err)
	}
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const nav = document.querySelector('.site-header nav').getBoundingClientRect();
		const search = document.querySelector('[data-testid="header-search"]').getBoundingClientRect();
		return search.top < nav.bottom && nav.top < search.bottom; })()`))
	if err != nil || !same {
		t.Errorf("at 1,400 px the header search box is not on the navigation's row (%v)", err)
	}
}
