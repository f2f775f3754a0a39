package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// signIn signs in on the sign-in page the browser is at (or is sent to
// when it opens next) and waits for the page it returns to to show sel.
func signIn(t *testing.T, ctx context.Context, base, next, name, password, sel string) {
	t.Helper()
	err := do(ctx,
		chromedp.Navigate(base+next),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#login-name`), name),
		chromedp.SendKeys(chromedp.CSS(`#login-password`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(sel)),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", name, err)
	}
}

// waitVersion waits for the report page to show version n: the page an
// edit's redirect leads to.
func waitVersion(n int) chromedp.Action[chromedp.Void] {
	return waitText(`[data-testid="version-number"]`, strconv.Itoa(n))
}

// waitText waits until the element sel reads text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	return waitTrue(fmt.Sprintf("%s to read %q", sel, text),
		fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.trim() === %q; })()`, sel, text))
}

// waitTrue waits until the script expr is true, looking again every
// 100 ms: across the navigation a form's post and redirect make, which
// ends the page's script context, so a poll inside the page would not do.
// Waiting for something only the next page shows (a query in its
// address, say) keeps a test from acting on the page it is leaving.
func waitTrue(what, expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		for {
			if ok, err := chromedp.Evaluate[bool](expr)(ctx, tg); err == nil && ok {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// waitAddress waits until the page's address holds part: the page a
// form's GET leads to, not the one it was sent from.
func waitAddress(part string) chromedp.Action[chromedp.Void] {
	return waitTrue("the address to hold "+part, fmt.Sprintf(`location.href.includes(%q)`, part))
}

// check clicks the radio button or check box sel until it is checked: a
// click that lands while the page is still laying itself out (a sentence
// just opened moves the evidence pane in) can miss it, and a form with a
// required choice left unchecked is never sent.
func check(sel string) chromedp.Action[chromedp.Void] {
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.checked; })()`, sel)
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for try := 0; ; try++ {
			if _, err := chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)(ctx, tg); err != nil {
				return chromedp.Void{}, err
			}
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := waitTrue(sel+" to be checked", expr)(wctx, tg)
			cancel()
			if err == nil || try == 3 || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
		}
	}
}

// do runs the steps with a time limit of their own, so that a step that
// never completes leaves the browser alive to say where it is.
func do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	sctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		return fmt.Errorf("%w; the page reads:\n%s", err, pageText(ctx))
	}
	return nil
}

// pageText is the start of the page's main text, for failure messages.
func pageText(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + Array.from(document.querySelectorAll('[role="alert"]')).map(e => e.innerText).join("\n") + "\n" + document.querySelector("main").innerText.slice(0, 1500)`))
	if err != nil {
		return err.Error()
	}
	return text
}

// reduceMotion makes the tab prefer reduced motion, which turns off the
// style sheet's smooth scrolling: a click scrolls its target into view
// and must not land while the page is still gliding.
func reduceMotion(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
	_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
	})
	return chromedp.Void{}, err
}

// editSentence opens sentence n, replaces its text and saves it, then
// waits for the page of the version the edit makes and checks that the
// sentence reads text and is marked for re-check.
func editSentence(t *testing.T, ctx context.Context, n int, text string, version int) {
	t.Helper()
	id := "#s" + strconv.Itoa(n)
	err := do(ctx,
		chromedp.Click(chromedp.CSS(id+` summary`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(id+` [data-testid="edit-text"]`)),
		chromedp.SetValue(chromedp.CSS(id+` [data-testid="edit-text"]`), text),
		chromedp.Click(chromedp.CSS(id+` [data-testid="edit-save"]`), chromedp.NodeVisible),
		waitVersion(version),
		chromedp.WaitVisible(chromedp.CSS(id+` [data-testid="sentence-recheck"]`)),
	)
	if err != nil {
		t.Fatalf("edit sentence %d: %v", n, err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(id+` [data-testid="sentence-text"]`))); got != text {
		t.Errorf("sentence %d reads %q after the edit, want %q", n, got, text)
	}
}

// openAll opens every disclosure widget of the page, so forms inside the
// sentences' provenance can be clicked as a reader would after opening
// them.
const openAll = `document.querySelectorAll("details").forEach(d => { d.open = true }); true`

// TestBrowserAuthoring follows a report from analyst to reviewer with two
// accounts made with "crucible user add": alan (analyst) makes a report,
// edits a sentence's text (the sentence is then marked for re-check),
// swaps a candidate into it instead, edits another sentence and submits
// the report for review; grace (reviewer) records a verdict on that
// sentence's citation and tries to approve the report: with the other
// citations unreviewed the approval is refused until she ticks the
// confirmation, which the history then records; the Markdown export then
// holds alan's words.
func TestBrowserAuthoring(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	data := preparedData(t, sampleCorpus)
	for _, u := range []struct{ role, name string }{{"analyst", "alan"}, {"reviewer", "grace"}} {
		if _, stderr, code := runCmdInput(t, "correct horse battery\n", "user", "add", "--data", data, "--role", u.role, u.name); code != 0 {
			t.Fatalf("user add %s: %s", u.name, stderr)
		}
	}
	base := startServe(t, "--data", data)
	// The first action starts the browser, on the test's context: the
	// steps after it run with time limits of their own (do).
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login"), reduceMotion); err != nil {
		t.Fatal(err)
	}

	signIn(t, ctx, base, "/reports/new", "alan", "correct horse battery", `[data-testid="report-form"]`)
	openNewReport(t, ctx, base)
	reportURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	reportURL, _, _ = strings.Cut(reportURL, "#")

	// Edit the first sentence's text: it is marked for re-check.
	editSentence(t, ctx, 1, "The Presidents asked Congress to act on the tariff.", 2)

	// Swap a candidate of its nugget into it instead: the offline engine
	// keeps one candidate per nugget, the one the sentence was, so after
	// the edit that candidate is the other one on offer.
	type swapTarget struct {
		Text  string `json:"text"`
		Index string `json:"index"`
	}
	target, err := chromedp.Run(ctx, chromedp.Evaluate[swapTarget](`(() => {
		const li = document.querySelector('#s1 [data-testid="alternative"]');
		if (!li) return {text: "", index: ""};
		return {text: li.querySelector('[data-testid="alternative-text"]').textContent,
			index: li.querySelector('input[name="candidate"]').value};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if target.Text == "" {
		t.Fatal("sentence 1 offers no candidate to swap in")
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](openAll)); err != nil {
		t.Fatal(err)
	}
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`#s1 [data-testid="swap"]`), chromedp.NodeVisible),
		waitVersion(3),
	)
	if err != nil {
		t.Fatalf("swap candidate %s into sentence 1: %v", target.Index, err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#s1 [data-testid="sentence-text"]`))); normText(got) != normText(target.Text) {
		t.Errorf("sentence 1 reads %q after the swap, want the candidate %q", got, target.Text)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#s1 [data-testid="sentence-recheck"]').length`)); n != 0 {
		t.Error("the swapped-in candidate is still marked for re-check")
	}

	// Edit the second sentence: the text the export must hold.
	const edited = "The Presidents asked Congress, again and again, to revise the tariff."
	editSentence(t, ctx, 2, edited, 4)

	// Submit for review, then sign out.
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="submit-review"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="reopen"]`)),
		waitText(`[data-testid="status-label"]`, "in review"),
		chromedp.Click(chromedp.CSS(`[data-testid="logout"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	)
	if err != nil {
		t.Fatalf("submit for review: %v", err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(got, "/login") {
		t.Errorf("after signing out the browser is at %s", got)
	}

	// grace reviews the edited sentence's citation and approves.
	path := strings.TrimPrefix(reportURL, base)
	signIn(t, ctx, base, path, "grace", "correct horse battery", `[data-testid="report-body"]`)
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="edit-form"]').length`)); err != nil || n != 0 {
		t.Errorf("a reviewer sees %d editing forms (%v)", n, err)
	}
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`#s2 summary`), chromedp.NodeVisible),
		waitTrue("sentence 2 to open beside the report", `document.querySelector("#s2").open && document.body.classList.contains("evidence-pane")`),
		check(`#s2 [data-testid="review-partly"]`),
		chromedp.SendKeys(chromedp.CSS(`#s2 [data-testid="review-comment-input"]`), "The span names the tariff, not the Presidents' requests."),
		chromedp.Click(chromedp.CSS(`#s2 [data-testid="review-save"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`#s2 [data-testid="sentence-review"]`)),
	)
	if err != nil {
		t.Fatalf("review a citation: %v", err)
	}
	// One citation reviewed, partly supported: 0.5 / 1.
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="review-support"]`))); got != "0.500" {
		t.Errorf("reviewed citation support %q, want 0.500", got)
	}
	// The other citations are unreviewed: approving without ticking the
	// confirmation beside the button is refused, and the page says why.
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="approve-confirm-label"]`)))
	if err != nil || !strings.Contains(label, "unreviewed and 1 is partly supported") {
		t.Fatalf("confirmation beside Approve reads %q (%v)", label, err)
	}
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-problem"]`)),
	)
	if err != nil {
		t.Fatalf("approve without the confirmation: %v", err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="action-problem"]`))); !strings.Contains(got, "Approving needs a confirmation") {
		t.Errorf("refusal reads %q", got)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="status-label"]`))); got != "in review" {
		t.Errorf("status %q after a refused approval", got)
	}
	// Ticked, the approval goes through and the history records it.
	err = do(ctx,
		check(`[data-testid="approve-confirm"]`),
		chromedp.Click(chromedp.CSS(`[data-testid="approve"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="approved-notice"]`)),
	)
	if err != nil {
		t.Fatalf("approve with the confirmation: %v", err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="status-label"]`))); got != "approved" {
		t.Errorf("status %q after approving", got)
	}
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="history-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="status-changes"]`)),
	)
	if err != nil {
		t.Fatalf("open the history: %v", err)
	}
	entry, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="status-change-text"]`)))
	if err != nil || !strings.HasPrefix(entry, "approved with ") || !strings.HasSuffix(entry, " unreviewed and 1 partly supported citations, confirmed by grace") {
		t.Errorf("newest status change reads %q (%v)", entry, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(reportURL), chromedp.WaitVisible(chromedp.CSS(`[data-testid="approved-notice"]`))); err != nil {
		t.Fatal(err)
	}

	// The Markdown export holds the edited sentence.
	md, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('[data-testid="export-markdown"]').href, {credentials: "same-origin"}).then(r => r.ok ? r.text() : "HTTP " + r.status)`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, edited+" [") || !strings.HasPrefix(md, "# "+reportTitle) {
		t.Errorf("the Markdown export does not hold the edited second sentence:\n%s", md)
	}
}

// TestBrowserCiteSelection adds a sentence from a document page: on a
// portal in local mode, the report's first cited document is opened from
// the report's "Add a sentence" section, words of a passage are selected,
// cite.js turns the selection into byte offsets, and "Cite this selection"
// adds the words to the report as a sentence citing exactly them.
func TestBrowserCiteSelection(t *testing.T) {
	t.Parallel()
	ctx, before := startCiting(t)
	var err error
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="cite-document-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cite-form"]`)),
	)
	if err != nil {
		t.Fatalf("open a cited document for citing: %v", err)
	}
	// Select the first three words of the second passage, as a mouse would.
	type selection struct {
		Text  string `json:"text"`
		Start int    `json:"start"`
	}
	sel, err := chromedp.Run(ctx, chromedp.Evaluate[selection](`(() => {
		const p = document.querySelectorAll('.passage-text[data-start]')[1];
		const node = p.firstChild;
		const m = node.textContent.match(/^\s*\S+\s+\S+\s+\S+/);
		const r = document.createRange();
		r.setStart(node, 0);
		r.setEnd(node, m[0].length);
		const s = window.getSelection();
		s.removeAllRanges();
		s.addRange(r);
		return {text: m[0].trim(), start: parseInt(p.getAttribute('data-start'), 10)};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	err = do(ctx,
		waitText(`[data-testid="cite-preview"]`, "Selected: \u201c"+sel.Text+"\u201d"),
		chromedp.Click(chromedp.CSS(`[data-testid="cite-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
		waitVersion(2),
	)
	if err != nil {
		t.Fatalf("cite the selection %q: %v", sel.Text, err)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="sentence-text"]')).map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != before+1 || texts[len(texts)-1] != sel.Text {
		t.Fatalf("after citing, the report's sentences end %q (of %d, was %d); want the selection %q", texts[len(texts)-1], len(texts), before, sel.Text)
	}
	// The new sentence's citation marks exactly the selected words.
	marked, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#s`+strconv.Itoa(len(texts))+` [data-testid="prov-passage"] mark`)))
	if err != nil || marked != sel.Text {
		t.Errorf("the citation marks %q (%v), want %q", marked, err, sel.Text)
	}
}

// startCiting starts a portal with a new report open, reduced motion on,
// and returns the browser and the report's sentence count.
func startCiting(t *testing.T) (context.Context, int) {
	t.Helper()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}
	openNewReport(t, ctx, base)
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="sentence"]').length`))
	if err != nil {
		t.Fatal(err)
	}
	return ctx, before
}

// TestBrowserCiteFromTheSelection selects words far down a long document:
// the "Cite this selection" button appears beside them, not only at the
// top of the page, and pressing it cites them.
func TestBrowserCiteFromTheSelection(t *testing.T) {
	t.Parallel()
	ctx, before := startCiting(t)
	var err error
	if err := do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="cite-document-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cite-form"]`)),
	); err != nil {
		t.Fatal(err)
	}
	type placed struct {
		Text     string  `json:"text"`
		Gap      float64 `json:"gap"`
		InView   bool    `json:"inView"`
		Hidden   bool    `json:"hidden"`
		FormSeen bool    `json:"formSeen"`
	}
	// Select the first words of the last passage, scrolled into view.
	got, err := chromedp.Run(ctx, chromedp.Evaluate[placed](`new Promise(done => {
		const ps = document.querySelectorAll('.passage-text[data-start]');
		const p = ps[ps.length - 1];
		p.scrollIntoView({block: 'center'});
		const node = p.firstChild;
		const m = node.textContent.match(/^\s*\S+\s+\S+\s+\S+/);
		const r = document.createRange();
		r.setStart(node, 0);
		r.setEnd(node, m[0].length);
		const s = window.getSelection();
		s.removeAllRanges();
		s.addRange(r);
		setTimeout(() => {
			const b = document.querySelector('[data-testid="cite-float"]').getBoundingClientRect();
			const sel = r.getBoundingClientRect();
			const form = document.querySelector('[data-testid="cite-form"]').getBoundingClientRect();
			done({text: m[0].trim(), gap: Math.abs(b.top - sel.bottom), inView: b.top >= 0 && b.bottom <= innerHeight,
				hidden: document.querySelector('[data-testid="cite-float"]').hidden, formSeen: form.bottom > 0});
		}, 100);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got.Hidden || !got.InView || got.Gap > 40 || got.FormSeen {
		t.Fatalf("the cite button beside the selection: %+v; want it shown in view just below the words, with the form scrolled away", got)
	}
	if err := do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="cite-float"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
		waitVersion(2),
	); err != nil {
		t.Fatalf("cite from the button beside the selection: %v", err)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="sentence-text"]')).map(e => e.textContent)`))
	if err != nil || len(texts) != before+1 || texts[len(texts)-1] != got.Text {
		t.Fatalf("after citing: %d sentences (was %d), last %q; want the selection %q (%v)", len(texts), before, texts[len(texts)-1], got.Text, err)
	}
}

// TestBrowserCiteFromSearch adds a sentence from a passage no sentence
// cites yet: "Search to cite" on the report, a result's "Cite from this
// passage", a selection there, and the button beside it.
func TestBrowserCiteFromSearch(t *testing.T) {
	t.Parallel()
	ctx, before := startCiting(t)
	var err error
	if err := do(ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="cite-search-q"]`), "navy ships"),
		chromedp.Click(chromedp.CSS(`[data-testid="cite-search-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="result-cite"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="result-cite"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="cite-form"]`)),
	); err != nil {
		t.Fatalf("search to cite: %v", err)
	}
	words, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise(done => {
		const p = document.getElementById(location.hash.slice(1)).querySelector('.passage-text[data-start]');
		p.scrollIntoView({block: 'center'});
		const node = p.firstChild;
		const m = node.textContent.match(/^\s*\S+\s+\S+\s+\S+\s+\S+/);
		const r = document.createRange();
		r.setStart(node, 0);
		r.setEnd(node, m[0].length);
		const s = window.getSelection();
		s.removeAllRanges();
		s.addRange(r);
		setTimeout(() => done(m[0].trim()), 100);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if err := do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="cite-float"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
		waitVersion(2),
	); err != nil {
		t.Fatalf("cite the searched passage: %v", err)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="sentence-text"]')).map(e => e.textContent)`))
	if err != nil || len(texts) != before+1 || texts[len(texts)-1] != words {
		t.Fatalf("after citing: %d sentences (was %d), want the last to be %q: %v (%v)", len(texts), before, words, texts, err)
	}
}
