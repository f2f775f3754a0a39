package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserJobStageOverview submits a report with the offline engine and
// watches its job page: beside the stage's progress it places the stage
// among the run's seven ("stage 5 of 7: scan"), kept live by job.js, and
// ends with "all 7 stages done"; instead of token counters it says the
// offline engine spends none.
func TestBrowserJobStageOverview(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs and the overview"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents say about tariffs and duties on imports?"),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-stage-overview"]`)),
	)
	if err != nil {
		t.Fatalf("submit the form: %v", err)
	}
	valid := regexp.MustCompile(`^(7 stages, not started|7 stages, starting|stage [1-7] of 7: (retrieve|ideate|merge|rank|scan|assemble|group)|all 7 stages done)$`)
	const read = `(() => {
		const o = document.querySelector('[data-testid="job-stage-overview"]');
		const done = document.querySelector('[data-testid="job-report-link"]');
		// A reloading page is read only once parsed: the report link comes
		// before the overview, so a half-parsed page has one without the other.
		if (document.readyState === "loading") return "running|";
		return (done ? "done|" : "running|") + (o ? o.textContent.trim() : "");
	})()`
	var seen []string
	final := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](read))
		if err != nil {
			continue // the page is reloading
		}
		state, text, _ := strings.Cut(v, "|")
		if text != "" && (len(seen) == 0 || seen[len(seen)-1] != text) {
			seen = append(seen, text)
		}
		if state == "done" {
			final = text
			break
		}
	}
	if final == "" {
		t.Fatalf("the job did not finish; overviews seen: %q", seen)
	}
	for _, s := range seen {
		if !valid.MatchString(s) {
			t.Errorf("overview %q is not a stage of the run", s)
		}
	}
	if final != "all 7 stages done" {
		t.Errorf("finished job's overview %q, want all 7 stages done (seen %q)", final, seen)
	}
	tokens, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-tokens"]`)))
	if err != nil || strings.TrimSpace(tokens) != "offline engine: no tokens" {
		t.Errorf("tokens %q (%v), want the offline engine's note", tokens, err)
	}
	counters, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="job-prompt-tokens"], [data-testid="job-completion-tokens"]').length`))
	if err != nil || counters != 0 {
		t.Errorf("%d token counters on an offline job's page (%v)", counters, err)
	}
	stages, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-stages"]`)))
	if !strings.Contains(stages, "retrieve, ideate, merge, rank, scan, assemble and group") {
		t.Errorf("stage list %q", stages)
	}
	t.Logf("overviews seen: %q", seen)
}
