package static

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

func TestHash(t *testing.T) {
	hex12 := regexp.MustCompile(`^[0-9a-f]{12}$`)
	for _, name := range []string{"style.css", "favicon.svg", "job.js"} {
		if _, err := fs.Stat(FS, name); err != nil {
			t.Errorf("asset %s missing: %v", name, err)
		}
		if h := Hash(name); !hex12.MatchString(h) {
			t.Errorf("Hash(%q) = %q, want 12 hex digits", name, h)
		}
	}
	if Hash("style.css") == Hash("favicon.svg") {
		t.Errorf("different assets share a hash")
	}
	if h := Hash("missing.css"); h != "" {
		t.Errorf("Hash of a missing asset = %q, want empty", h)
	}
}

// TestPrintStylesHideChrome checks that printed pages, the printable
// report above all, leave out the navigation and the on-screen links.
func TestPrintStylesHideChrome(t *testing.T) {
	css, err := fs.ReadFile(FS, "style.css")
	if err != nil {
		t.Fatalf("read style.css: %v", err)
	}
	_, rules, found := strings.Cut(string(css), "@media print {")
	if !found {
		t.Fatal("style.css has no print rules")
	}
	hidden := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*([^{}\n]+)\{\s*display:\s*none;\s*\}`).FindAllStringSubmatch(rules, -1) {
		for _, sel := range strings.Split(m[1], ",") {
			hidden[strings.TrimSpace(sel)] = true
		}
	}
	for _, sel := range []string{".site-header", ".site-footer", ".skip-link", ".breadcrumbs", ".report-links", ".report-exports", ".print-actions"} {
		if !hidden[sel] {
			t.Errorf("print rules do not hide %s", sel)
		}
	}
}
