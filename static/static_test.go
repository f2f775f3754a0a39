package static

import (
	"io/fs"
	"regexp"
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
