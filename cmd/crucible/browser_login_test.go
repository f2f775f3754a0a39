package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLogin signs a reviewer in on a portal with accounts: a page
// asked for before signing in leads to the sign-in form and, after it, back
// to the page; the header names the user and role and offers no new
// report; signing out leads back to the sign-in form.
func TestBrowserLogin(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	data := preparedData(t, sampleCorpus)
	if _, stderr, code := runCmdInput(t, "correct horse battery\n", "user", "add", "--data", data, "--role", "reviewer", "grace"); code != 0 {
		t.Fatalf("user add: %s", stderr)
	}
	base := startServe(t, "--data", data)

	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/search?q=tariff"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#login-name`), "grace"),
		chromedp.SendKeys(chromedp.CSS(`#login-password`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="results"]`)),
	)
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	for id, want := range map[string]string{"account-name": "grace", "account-role": "reviewer"} {
		got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="`+id+`"]`)))
		if err != nil || strings.TrimSpace(got) != want {
			t.Errorf("header %s = %q (%v), want %q", id, got, err, want)
		}
	}
	nav, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="nav"]`)))
	if err != nil || !strings.Contains(nav, "Reports") || strings.Contains(nav, "New report") {
		t.Errorf("a reviewer's navigation reads %q (%v): want Reports and no New report", nav, err)
	}

	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="logout"]`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.Navigate(base+"/jobs"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	)
	if err != nil {
		t.Fatalf("sign out: %v", err)
	}
}
