package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserEstimateCapResumeScorecard walks a report through the
// portal's costs (issue 16 #3, #4): the form's "Estimate" shows the
// offline engine's calls per stage below the form, the request kept; a
// cap of 10 calls under Advanced stops the job ("Stopped at the cap: 10
// calls, during ..."); "Resume with a higher cap" finishes it; the
// report's scorecard, computed by the offline judge, says it is
// self-judged (offline).
func TestBrowserEstimateCapResumeScorecard(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}

	err := do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs and trade"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents tell Congress about tariffs, duties and trade with other nations?"),
		chromedp.Click(chromedp.CSS(`[data-testid="estimate-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="estimate-table"]`)),
	)
	if err != nil {
		t.Fatalf("estimate: %v", err)
	}
	summary, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="estimate-summary"]`)))
	m := regexp.MustCompile(`About ([\d,]+) model calls`).FindStringSubmatch(summary)
	if m == nil || !strings.Contains(summary, "spends no tokens") {
		t.Fatalf("estimate summary %q", summary)
	}
	estimated, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if estimated < 20 {
		t.Errorf("estimated %d calls", estimated)
	}
	stages, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="estimate-row"]')].map(r => r.dataset.stage)`))
	if strings.Join(stages, " ") != "ideate merge rank scan assemble total" && strings.Join(stages, " ") != "ideate rank scan assemble total" {
		t.Errorf("estimate rows %q", stages)
	}
	if title, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#field-title`))); title != "Tariffs and trade" {
		t.Errorf("the title after the estimate is %q", title)
	}

	// A cap of 10 calls: the job stops, and says where.
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="advanced"] summary`), chromedp.NodeVisible),
		chromedp.SendKeys(chromedp.CSS(`#field-max_calls`), "10", chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-stopped-text"]`)),
	)
	if err != nil {
		t.Fatalf("a capped job: %v", err)
	}
	stopped, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-stopped-text"]`)))
	if !regexp.MustCompile(`^Stopped at the cap: 10 calls, during (ideate|merge|rank|scan)\.$`).MatchString(strings.TrimSpace(stopped)) {
		t.Errorf("stopped %q", stopped)
	}
	if caps, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-caps"]`))); strings.TrimSpace(caps) != "10 calls" {
		t.Errorf("caps %q", caps)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[data-testid="resume-max_calls"]`))); v != "20" {
		t.Errorf("the resume form offers %q calls, want the cap doubled", v)
	}

	// Resumed with room to finish.
	err = do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="resume-max_calls"]`), "100000"),
		chromedp.Click(chromedp.CSS(`[data-testid="job-resume"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
	)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	cached, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-cache-hits"]`)))
	if n, _ := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(cached), ",", "")); n < 10 {
		t.Errorf("the resumed job replayed %q calls from the cache, want the 10 before the cap", cached)
	}

	// The report's scorecard by the offline judge.
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-report-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="scorecard"] summary`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="scorecard-compute"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="scorecard-independence"]`)),
	)
	if err != nil {
		t.Fatalf("scorecard: %v", err)
	}
	label, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="scorecard-independence"]`)))
	support, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="scorecard-citation-support"] dd`)))
	if strings.TrimSpace(label) != "self-judged (offline)" || !strings.Contains(support, "by the judge") {
		t.Errorf("scorecard label %q, citation support %q", label, support)
	}
}
