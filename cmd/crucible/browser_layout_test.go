package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The request the browser tests make their report from: on the sample
// corpus the offline engine answers it in four sentences from three
// documents (a report whose sentences must all speak of the tariff or of
// reciprocity; "tariffs and duties" alone gives one).
const (
	reportTitle   = "Tariffs and reciprocity"
	reportProblem = "What did the Presidents tell Congress about the tariff, reciprocity treaties and duties on imports?"
)

// makeReport submits a report request from the form and waits on its job
// page until the report is made.
func makeReport(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), reportTitle),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), reportProblem),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
	)
	if err != nil {
		t.Fatalf("make a report: %v", err)
	}
}

// TestBrowserPagesFitAPhone opens every kind of page at 400 pixels and
// fails when one is wider than the viewport (issue 15: every page must fit
// a phone), then checks at 1,400 pixels that the header keeps the search
// box on the row of the navigation.
func TestBrowserPagesFitAPhone(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

	// A report, so that its page, history and nugget bank exist.
	makeReport(t, ctx, base)
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
		jobURL + "/delete", base + "/admin/audit",
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

// TestBrowserEvidencePane opens a sentence's evidence on a wide screen: it
// shows beside the report, which stays in view; "]" and "[" move between
// sentences, one open at a time, and Escape closes it. On a phone the
// evidence opens in place.
func TestBrowserEvidencePane(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	// Reduced motion: scrolling is instant, so positions can be read at once.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}
	makeReport(t, ctx, base)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-report-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="keys-hint"]`)),
	); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	type pane struct {
		Open      []int   `json:"open"`
		Fixed     bool    `json:"fixed"`
		PaneLeft  float64 `json:"paneLeft"`
		TextRight float64 `json:"textRight"`
		InView    bool    `json:"inView"`
	}
	state := func() pane {
		t.Helper()
		// Wait until report.js has seen the toggle (a details element's
		// toggle event is a task of its own, which a loaded machine may run
		// after the next frames), then two animation frames: report.js
		// scrolls in the next one.
		p, err := chromedp.Run(ctx, chromedp.Evaluate[pane](`new Promise(done => { let frames = 0; const settled = () => {
			const any = [...document.querySelectorAll('details.sentence')].some(d => d.open);
			if (document.body.classList.contains('evidence-pane') !== any && frames++ < 120) { requestAnimationFrame(settled); return; }
			requestAnimationFrame(() => requestAnimationFrame(() => done((() => {
			const ds = [...document.querySelectorAll('details.sentence')];
			const open = ds.map((d, i) => d.open ? i : -1).filter(i => i >= 0);
			const d = ds[open[0] ?? 0];
			const prov = d.querySelector('.provenance').getBoundingClientRect();
			const text = document.querySelector('[data-testid="report-body"]').getBoundingClientRect();
			const sum = d.querySelector('summary').getBoundingClientRect();
			return {open, fixed: getComputedStyle(d.querySelector('.provenance')).position === 'fixed',
				paneLeft: prov.left, textRight: text.right, inView: sum.top >= -1 && sum.bottom <= innerHeight + 1}; // scrolling aligns to a whole pixel
		})()))); }; settled(); })`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`details.sentence summary`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	p := state()
	if len(p.Open) != 1 || p.Open[0] != 0 || !p.Fixed || p.PaneLeft < p.TextRight || !p.InView {
		t.Fatalf("first sentence's evidence: %+v; want it fixed beside the report text, the sentence in view", p)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("]")); err != nil {
		t.Fatal(err)
	}
	if p := state(); len(p.Open) != 1 || p.Open[0] != 1 || !p.InView {
		t.Errorf("after ]: %+v; want the second sentence alone open and in view", p)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("[")); err != nil {
		t.Fatal(err)
	}
	if p := state(); len(p.Open) != 1 || p.Open[0] != 0 {
		t.Errorf("after [: %+v; want the first sentence again", p)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\u001b")); err != nil {
		t.Fatal(err)
	}
	if p := state(); len(p.Open) != 0 {
		t.Errorf("after Escape: %+v; want none open", p)
	}
	// On a phone the evidence opens in place.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800), chromedp.Click(chromedp.CSS(`details.sentence summary`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	if p := state(); p.Fixed {
		t.Errorf("at 400 px the evidence is a fixed pane: %+v", p)
	}
}
