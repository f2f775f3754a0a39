package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/web"
)

func TestStarting(t *testing.T) {
	var st web.Starting
	sw := web.NewSwitch(&st)
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		sw.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec
	}
	st.Set("rebuilding the index", 250, 1000)
	rec := get("/healthz")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("healthz while starting: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"status": "starting", "step": "rebuilding the index", "progress_percent": 25.0}, body); diff != "" {
		t.Errorf("healthz body (-want +got)\n%s", diff)
	}
	rec = get("/search?q=tariff")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "The portal is rebuilding the index (25%).") ||
		rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("page while starting: %d %q", rec.Code, rec.Body.String())
	}
	st.Set("ingesting <b>the demo corpus</b>", 0, 0)
	if body := get("/").Body.String(); !strings.Contains(body, "ingesting &lt;b&gt;the demo corpus&lt;/b&gt;.") {
		t.Errorf("a step of unknown length is not shown, or not escaped: %q", body)
	}
	// Ready: the portal's own handler takes over.
	sw.Set(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("portal")) }))
	if rec := get("/healthz"); rec.Code != http.StatusOK || rec.Body.String() != "portal" {
		t.Errorf("after the switch: %d %q", rec.Code, rec.Body.String())
	}
}
