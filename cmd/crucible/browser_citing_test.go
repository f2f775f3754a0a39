package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// previewState is what a page shows of sentence 2's citation preview.
type previewState struct {
	Shown     bool    `json:"shown"`
	InView    bool    `json:"inView"`
	Above     bool    `json:"above"`
	Marked    string  `json:"marked"`
	Evidence  string  `json:"evidence"`
	ScrollY   float64 `json:"scrollY"`
	Open      bool    `json:"open"`
	Focused   bool    `json:"focused"`
	Location  string  `json:"location"`
	MarkerTop float64 `json:"markerTop"`
}

// readPreview reads sentence 2's preview two animation frames on, once
// hover styles and report.js have done their work.
const readPreview = `new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
	const s = document.querySelector('#s2');
	const a = s.querySelector('[data-testid="sentence-ref"]');
	const p = s.querySelector('[data-testid="ref-preview"]');
	const r = p.getBoundingClientRect();
	done({shown: getComputedStyle(p).display !== 'none' && r.height > 0,
		inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth,
		above: r.bottom <= a.getBoundingClientRect().top + 1,
		marked: Array.from(p.querySelectorAll('mark.cite')).map(m => m.textContent).join(''),
		evidence: Array.from(s.querySelectorAll('[data-testid="prov-passage"] mark.cite')).map(m => m.textContent).join(''),
		scrollY: scrollY, open: s.open, focused: document.activeElement === a, location: location.href,
		markerTop: a.getBoundingClientRect().top});
})))`

// TestBrowserCitationPreviewAndBacklink points at a sentence's citation
// marker on a wide screen: the cited passage shows beside it with the
// cited span marked, the report staying where it is (above the marker
// near the window's bottom); focusing the marker from the keyboard shows
// it too, and Escape hides it. The marker's link opens the document at
// the span, whose "Cited in" list puts the sentence first; its link
// leads back to the sentence, marked as the link's target.
func TestBrowserCitationPreviewAndBacklink(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}
	makeReport(t, ctx, base)
	reportURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="job-report-link"]').href`))
	if err != nil {
		t.Fatal(err)
	}
	if err := do(ctx, chromedp.Navigate(reportURL), chromedp.WaitVisible(chromedp.CSS(`#s2 [data-testid="sentence-ref"]`))); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	state := func() previewState {
		t.Helper()
		p, err := chromedp.Run(ctx, chromedp.Evaluate[previewState](readPreview, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// marker scrolls sentence 2's marker to where block says and returns
	// its centre.
	marker := func(block string) (x, y float64) {
		t.Helper()
		c, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const a = document.querySelector('#s2 [data-testid="sentence-ref"]');
			a.scrollIntoView({block: '`+block+`'});
			const r = a.getBoundingClientRect();
			return [r.left + r.width / 2, r.top + r.height / 2]; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return c[0], c[1]
	}

	// Pointing at the marker shows the preview, in view, the span marked
	// as the evidence marks it; nothing scrolls or opens.
	x, y := marker("center")
	before := state()
	if before.Shown {
		t.Fatalf("the preview shows before anything points at it: %+v", before)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y)); err != nil {
		t.Fatal(err)
	}
	p := state()
	if !p.Shown || !p.InView || p.Marked == "" || p.Marked != p.Evidence || p.ScrollY != before.ScrollY || p.Open || p.Location != reportURL {
		t.Fatalf("pointing at the marker: %+v; want the preview in view with the cited span marked, the report unmoved", p)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, 5, 5)); err != nil {
		t.Fatal(err)
	}
	if p := state(); p.Shown {
		t.Errorf("the preview stays after the pointer left: %+v", p)
	}

	// Near the window's bottom it opens above the sentence.
	x, y = marker("end")
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y)); err != nil {
		t.Fatal(err)
	}
	if p := state(); !p.Shown || !p.InView || !p.Above {
		t.Errorf("pointing at a marker at the window's bottom: %+v; want the preview above it, in view", p)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, 5, 5)); err != nil {
		t.Fatal(err)
	}

	// From the keyboard: Tab from the sentence reaches its marker, which
	// shows the preview; Escape hides it.
	marker("center")
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#s2 summary`)), chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	if p := state(); !p.Focused || !p.Shown || !p.InView || p.Marked != p.Evidence || p.Open {
		t.Errorf("the marker focused from the keyboard: %+v; want its preview shown", p)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\u001b")); err != nil {
		t.Fatal(err)
	}
	if p := state(); p.Shown {
		t.Errorf("after Escape the preview still shows: %+v", p)
	}

	// The marker links to the document at the span; its "Cited in" puts
	// this sentence first, and the link leads back to it.
	if err := do(ctx,
		chromedp.Click(chromedp.CSS(`#s2 [data-testid="sentence-ref"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cited-in"]`)),
	); err != nil {
		t.Fatalf("follow the citation: %v", err)
	}
	u, _ := url.Parse(reportURL)
	want := u.Path + "#s2"
	type docState struct {
		Location string `json:"location"`
		Marked   string `json:"marked"`
		First    string `json:"first"`
		Current  bool   `json:"current"`
		CitedBy  string `json:"citedBy"`
	}
	d, err := chromedp.Run(ctx, chromedp.Evaluate[docState](`(() => {
		const li = document.querySelector('[data-testid="cited-in-item"]');
		const by = document.querySelector('[data-testid="span-cited-by"]');
		return {location: location.href, marked: document.querySelector('mark.cite').textContent,
			first: li.querySelector('[data-testid="cited-in-link"]').getAttribute('href'), current: li.classList.contains('current'),
			citedBy: by ? by.getAttribute('href') : ''}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Location, "span=") || d.First != want || !d.Current || d.CitedBy != want || !strings.Contains(p.Evidence, strings.TrimSpace(d.Marked)) {
		t.Errorf("the document opened from sentence 2's citation: %+v; want the span marked and %s first, marked current", d, want)
	}
	if err := do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="cited-in-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`#s2:target`)),
	); err != nil {
		t.Fatalf("follow the backlink: %v", err)
	}
	type back struct {
		Location string `json:"location"`
		Target   bool   `json:"target"`
		Marked   bool   `json:"marked"`
		InView   bool   `json:"inView"`
	}
	b, err := chromedp.Run(ctx, chromedp.Evaluate[back](`new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
		const s = document.querySelector('#s2');
		const r = s.querySelector('summary').getBoundingClientRect();
		done({location: location.href, target: s.matches(':target'), inView: r.top >= -1 && r.bottom <= innerHeight + 1,
			marked: getComputedStyle(s.querySelector('summary')).boxShadow !== 'none'});
	})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.Location, want) || !b.Target || !b.Marked || !b.InView {
		t.Errorf("after the backlink: %+v; want sentence 2 of the report targeted, marked and in view", b)
	}
}
