package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRerunAndReportList covers two of the analyst's workflows
// (issue 15 #3): a cancelled job is no dead end — "Run again" starts a new
// job with the same request — and the report list filters by job state
// and by the request's words. The job runs on a model endpoint that never
// answers, so it is still running when the analyst cancels it.
func TestBrowserRerunAndReportList(t *testing.T) {
	t.Parallel()
	// An endpoint that holds every call until the caller gives up: a job on
	// it stays in its first model stage until it is cancelled.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus),
		"--model-url", hang.URL+"/v1", "--model", "silent-model")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), reduceMotion); err != nil {
		t.Fatal(err)
	}

	err := do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Canals and waterways"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents tell Congress about canals and inland waterways?"),
		chromedp.Click(chromedp.CSS(`[data-testid="advanced"] summary`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`#engine-openai`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-cancel"]`)),
	)
	if err != nil {
		t.Fatalf("submit a job on the silent model: %v", err)
	}
	first, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-id"]`)))

	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-cancel"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-cancelled"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-rerun"]`)),
	)
	if err != nil {
		t.Fatalf("cancel the job: %v", err)
	}

	// Run again: a new job, the same request.
	err = do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="job-rerun"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-cancel"]`)),
	)
	if err != nil {
		t.Fatalf("run the cancelled job again: %v", err)
	}
	second, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-id"]`)))
	if first == "" || second == "" || first == second {
		t.Fatalf("run again: job %q, then job %q; want a new job", first, second)
	}
	if title, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="job-title"]`))); strings.TrimSpace(title) != "Canals and waterways" {
		t.Errorf("the new job's title %q", title)
	}
	if problem, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="request-problem"]').textContent`)); !strings.Contains(problem, "inland waterways") {
		t.Errorf("the new job's problem statement %q", problem)
	}
	if err := do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="job-cancel"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-cancelled"]`))); err != nil {
		t.Fatalf("cancel the second job: %v", err)
	}

	// A third, finished job with other words, so the filters have
	// something to leave out.
	err = do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), "Tariffs"),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), "What did the Presidents say about tariffs?"),
		chromedp.Click(chromedp.CSS(`[data-testid="advanced"] summary`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`#engine-offline`), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
	)
	if err != nil {
		t.Fatalf("an offline report: %v", err)
	}

	rows := func() []string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="job-row"]')].map(r =>
			r.querySelector('[data-testid="job-row-link"]').textContent.trim() + " " +
			r.querySelector('[data-testid="job-row-state"]').textContent.trim())`))
		if err != nil {
			t.Fatalf("read the report list: %v", err)
		}
		return v
	}
	if err := do(ctx, chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="jobs-filter"]`))); err != nil {
		t.Fatal(err)
	}
	if got := rows(); len(got) != 3 {
		t.Fatalf("unfiltered list %q, want 3 jobs", got)
	}
	// By state: the two cancelled jobs.
	err = do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="jobs-state"]`), "cancelled"),
		chromedp.Click(chromedp.CSS(`[data-testid="jobs-filter-submit"]`), chromedp.NodeVisible),
		waitAddress("state=cancelled"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="jobs-filter-clear"]`)),
	)
	if err != nil {
		t.Fatalf("filter by state: %v", err)
	}
	got := rows()
	if len(got) != 2 || !strings.HasSuffix(got[0], " Cancelled") || !strings.HasSuffix(got[1], " Cancelled") {
		t.Errorf("cancelled jobs listed %q", got)
	}
	// By words of the request, any state: the two canal jobs, not tariffs.
	err = do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="jobs-state"]`), ""),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="jobs-q"]`), "waterways"),
		chromedp.Click(chromedp.CSS(`[data-testid="jobs-filter-submit"]`), chromedp.NodeVisible),
		waitAddress("q=waterways"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="jobs-filter-clear"]`)),
	)
	if err != nil {
		t.Fatalf("filter by words: %v", err)
	}
	got = rows()
	if len(got) != 2 || !strings.HasPrefix(got[0], second+" ") || !strings.HasPrefix(got[1], first+" ") {
		t.Errorf("jobs about waterways %q, want %s then %s", got, second, first)
	}
	// Nothing matches: the list says so and offers the whole list.
	err = do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="jobs-q"]`), "zeppelins"),
		chromedp.Click(chromedp.CSS(`[data-testid="jobs-filter-submit"]`), chromedp.NodeVisible),
		waitAddress("q=zeppelins"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="jobs-none-match"]`)),
	)
	if err != nil {
		t.Errorf("a filter nothing matches: %v", err)
	}
}
