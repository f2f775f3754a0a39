package main

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestMetricsAccess(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
		// want is "" for allowed, "usage" for a usage error, else a part
		// of the refusal.
		want string
	}{
		{addr: "127.0.0.1:9090"},
		{addr: "[::1]:9090"},
		{addr: "localhost:9090"},
		{addr: "0.0.0.0:9090", want: "not a loopback address"},
		{addr: ":9090", want: "not a loopback address"},
		{addr: "192.0.2.10:9090", want: "--metrics-public"},
		{addr: "metrics.example.org:9090", want: "no sign-in"},
		{addr: "0.0.0.0:9090", public: true},
		{addr: "9090", want: "usage"},
	}
	for _, tt := range tests {
		err := metricsAccess(tt.addr, tt.public)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s (public %t): refused: %v", tt.addr, tt.public, err)
		case tt.want == "usage" && !errors.Is(err, errUsage):
			t.Errorf("%s: %v, want a usage error", tt.addr, err)
		case tt.want != "" && tt.want != "usage" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s (public %t): %v, want a refusal saying %q", tt.addr, tt.public, err, tt.want)
		}
	}
}

// TestServeRefusesPublicMetricsAddress: serve does not start when the
// metrics listener, which has no sign-in, would listen on an address
// others can reach, and says why.
func TestServeRefusesPublicMetricsAddress(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		out, stderr, code := runCmd(t, "serve", "--data", t.TempDir(), "--metrics-addr", addr)
		if code != 1 || !strings.Contains(stderr, "refusing to serve metrics on "+addr) ||
			!strings.Contains(stderr, "not a loopback address") || !strings.Contains(stderr, "no sign-in") {
			t.Errorf("--metrics-addr %s: exit %d, stderr %q", addr, code, stderr)
		}
		if strings.Contains(out, "serving") {
			t.Errorf("--metrics-addr %s: the portal started: %q", addr, out)
		}
	}
}

// TestServeMetricsListener: with --metrics-addr on loopback, serve answers
// /metrics there without sign-in, in the Prometheus text format.
func TestServeMetricsListener(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", preparedData(t, sampleCorpus), "--addr", "127.0.0.1:0",
			"--metrics-addr", "127.0.0.1:0", "--log-level", "warn"},
			func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v after shutdown", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop within 20s of cancellation")
		}
	})
	portal := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	scrape := regexp.MustCompile(`metrics without sign-in at (http://127\.0\.0\.1:\d+/metrics)`)
	var base, metricsURL string
	deadline := time.Now().Add(3 * time.Minute)
	for base == "" && time.Now().Before(deadline) {
		if m, s := portal.FindStringSubmatch(out.String()), scrape.FindStringSubmatch(out.String()); m != nil && s != nil {
			if code, _ := get(t, m[1]+"/healthz"); code == http.StatusOK {
				base, metricsURL = m[1], s[1]
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if base == "" {
		t.Fatalf("serve did not start; stdout %q, stderr:\n%s", out.String(), errb.String())
	}
	if code, _ := get(t, base+"/search?q=tariff"); code != http.StatusOK {
		t.Fatalf("search: %d", code)
	}

	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics listener: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	if g := fams["crucible_index_documents"].GetMetric(); len(g) != 1 || g[0].GetGauge().GetValue() != 8 {
		t.Errorf("crucible_index_documents = %v, want 8", g)
	}
	found := false
	for _, m := range fams["crucible_searches_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "source" && l.GetValue() == "portal" && m.GetCounter().GetValue() == 1 {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the portal's search is not counted: %v", fams["crucible_searches_total"])
	}
	// The listener serves nothing but the metrics.
	if code, _ := get(t, strings.TrimSuffix(metricsURL, "/metrics")+"/search?q=tariff"); code != http.StatusNotFound {
		t.Errorf("the metrics listener answered a search with %d", code)
	}
}
