package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// openNewReport submits a report request from the form, waits for the job
// to finish and opens the report, as TestBrowserReport does.
func openNewReport(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	openReportOn(t, ctx, base, reportTitle, reportProblem)
}

// openReportOn makes a report on a title and problem statement from the
// new-report form and opens it when its job is done.
func openReportOn(t *testing.T, ctx context.Context, base, title, statement string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/reports/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#field-title`), title),
		chromedp.SendKeys(chromedp.CSS(`#field-problem_statement`), statement),
		chromedp.Click(chromedp.CSS(`[data-testid="submit-report"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="job-report-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="job-report-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-body"]`)),
	)
	if err != nil {
		t.Fatalf("make a report: %v", err)
	}
}

// TestBrowserEvaluation makes a report with the offline engine, opens its
// evaluation page from the report, uploads a gold nugget file through the
// file input, picks the file's request (the report has no request id) and
// checks the metric cards and the list of missing nuggets.
func TestBrowserEvaluation(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	base := startServe(t, "--data", preparedData(t, sampleCorpus))
	openNewReport(t, ctx, base)

	// A nugget the report covers: its answer is the first three words of
	// the report's first sentence. And one it cannot cover.
	sentence, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="sentence-text"]`)))
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(sentence)
	if len(words) < 3 {
		t.Fatalf("first sentence %q is too short to quote", sentence)
	}
	covered := strings.Join(words[:3], " ")
	lines := []map[string]any{
		{"request_id": "browser-1", "nugget_id": "n1", "question": "What does the report open with?", "answers": []string{covered}, "importance": "vital"},
		{"request_id": "browser-1", "nugget_id": "n2", "question": "Which animal guards the treasury?", "answers": []string{"zebra unicorn marmalade"}},
	}
	var file strings.Builder
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		file.Write(append(b, '\n'))
	}
	path := filepath.Join(t.TempDir(), "browser-gold.jsonl")
	if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="report-evaluation-link"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="gold-upload-form"]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#gold-file`), []string{path}),
		chromedp.Click(chromedp.CSS(`[data-testid="gold-upload-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="request-needed"]`)),
	)
	if err != nil {
		t.Fatalf("upload the gold file: %v", err)
	}
	option, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`[data-testid="gold-option"]`)))
	if !strings.HasPrefix(option, "browser-gold.jsonl — 2 nuggets, 1 request") {
		t.Errorf("gold set listed as %q", option)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="evaluate-offline"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="metrics"]`)),
	)
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}

	card := func(key, part string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="metric-`+key+`"] [data-testid="`+part+`"]`)))
		if err != nil {
			t.Fatalf("metric %s: %v", key, err)
		}
		return strings.TrimSpace(s)
	}
	// n1 is covered by sentence 1 and n2 by none: recall 1/2, vital
	// recall 1/1.
	if v, c := card("nugget-recall", "metric-value"), card("nugget-recall", "metric-counts"); v != "0.500" || c != "1/2 nuggets" {
		t.Errorf("nugget recall card shows %q and %q, want 0.500 and 1/2 nuggets", v, c)
	}
	if v, c := card("vital-recall", "metric-value"), card("vital-recall", "metric-counts"); v != "1.000" || c != "1/1 vital nugget" {
		t.Errorf("vital recall card shows %q and %q, want 1.000 and 1/1 vital nugget", v, c)
	}
	if c := card("citation-support", "metric-counts"); !strings.HasSuffix(c, "citations") && !strings.HasSuffix(c, "citation") {
		t.Errorf("citation support counts %q", c)
	}
	missing, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll(`[data-testid="missing-nugget"]`)))
	if err != nil || len(missing) != 1 {
		t.Fatalf("%d missing nuggets listed (%v), want 1", len(missing), err)
	}
	question, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="missing-question"]`)))
	if strings.TrimSpace(question) != "Which animal guards the treasury?" {
		t.Errorf("missing nugget %q, want the treasury question", question)
	}
	url, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(url, "/evaluation?gold=1&request=browser-1") {
		t.Errorf("the evaluation is at %q, want a link naming the set and request", url)
	}
}
