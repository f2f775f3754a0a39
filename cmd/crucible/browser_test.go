package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/crucible-portal/crucible/pipeline"
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
	if testing.Short() {
		t.Skip("browser test skipped with -short (make test runs it)")
	}
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
		// A desktop's mouse: headless chromium has no pointing device and
		// matches (hover: none), as a touch screen does.
		chromedp.Flag("blink-settings", "primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4"),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	// A ceiling for the whole test, not a measure of speed: a long test
	// (TestBrowserAuthoring signs three people in and out) on a machine
	// shared with other work took 75 s and hit a 90 s ceiling.
	ctx, cancelT := context.WithTimeout(ctx, 180*time.Second)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}

// TestBrowserSearch opens the home page, searches "tariff" from the form
// and checks ranked results with highlighted matches, then follows a
// result to its document page with the passage highlighted.
func TestBrowserSearch(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

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
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

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
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="report-run-notes"]').length`)); n != 0 {
		t.Errorf("a report on a subject most of its best passages speak of shows %d run notes", n)
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
	// The words after the offline engine's attribution ("In 1832, Andrew
	// Jackson reported: “...”") are the cited span's.
	if _, body := pipeline.SplitAttribution(strings.TrimSpace(sentence)); !strings.Contains(normText(marked), strings.TrimSpace(normText(body))) {
		t.Errorf("the marked span %q does not contain the sentence %q", marked, sentence)
	}

	// The sentences stand under the request's facets: each heading is an
	// <h2> that labels its section, so keyboard and screen-reader users
	// reach it as a heading; at 400 pixels nothing runs off the page.
	labelled, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="report-body"] section.facet')]
		.filter(s => { const h = s.querySelector('h2.facet-heading'); return h && h.id && s.getAttribute('aria-labelledby') === h.id; })
		.map(s => s.querySelector('h2').textContent.trim())`))
	if err != nil || len(labelled) == 0 || labelled[0] == "" {
		t.Errorf("no facet section labelled by its heading: %q (%v)", labelled, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 900)); err != nil {
		t.Fatalf("narrow the window: %v", err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	if err != nil || overflow {
		t.Errorf("at 400 pixels the report page is wider than the window (%v)", err)
	}
}

// TestBrowserReportRunNotes: a report whose subject few of the request's
// best passages speak of ("chinese" in five of the sample corpus's 100
// best passages for the request) says so in its header, with the words
// the subject was read from and what may help, and links to the
// request's form filled in; the list of reports marks it and its job
// page lists the notes too.
func TestBrowserReportRunNotes(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	openReportOn(t, ctx, base, "The Chinese exclusion and the Government",
		"What did the Presidents tell Congress about the Chinese, the Government, the people and the States?")
	notes, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="report-run-notes"]`)))
	if err != nil {
		t.Fatalf("the report shows no run notes: %v", err)
	}
	for _, want := range []string{"from the run that made this report", "Subject:", "best passages speak of its subject", `"chinese"`, "may help"} {
		if !strings.Contains(notes, want) {
			t.Errorf("run notes %q lack %q", notes, want)
		}
	}
	// The note's link opens the request's form filled in, to reword it.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="run-notes-resubmit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
	)
	if err != nil {
		t.Fatalf("follow the run notes' link to the form: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#field-title`)))
	if err != nil || title != "The Chinese exclusion and the Government" {
		t.Errorf("the form's title is %q (%v), want the report's request", title, err)
	}
	// The list of reports marks the report, and its job page repeats the
	// notes under the link to it.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-row-notes"]`))); err != nil {
		t.Fatalf("the list of reports marks no report with notes: %v", err)
	}
	mark, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-row-notes"]`)))
	if err != nil || strings.TrimSpace(mark) != "1 note from the run" {
		t.Errorf("the list's marker reads %q (%v)", mark, err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-row-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-run-notes"]`)),
	)
	if err != nil {
		t.Fatalf("the job page shows no run notes: %v", err)
	}
}
