package web

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sync"
	"sync/atomic"
)

// Starting answers every request while the portal prepares to serve (it
// ingests the demo corpus, or rebuilds an index out of step with the
// store): 503 with Retry-After, /healthz as JSON {"status":"starting",
// "step", "progress_percent"} and any page as a short page saying what is
// being done and how far it is, which reloads itself. It shows no
// collection data, so it needs no sign-in.
type Starting struct {
	mu    sync.Mutex
	step  string
	done  int64
	total int64
}

// Set records the step under way and its progress (done of total; total
// 0 when unknown).
func (s *Starting) Set(step string, done, total int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step, s.done, s.total = step, done, total
}

// state returns the step and its progress in percent, -1 when unknown.
func (s *Starting) state() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	step := s.step
	if step == "" {
		step = "starting"
	}
	if s.total <= 0 {
		return step, -1
	}
	return step, int(min(100, s.done*100/s.total))
}

// startingRetry is how many seconds clients are told to wait.
const startingRetry = 2

func (s *Starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	step, pct := s.state()
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", fmt.Sprint(startingRetry))
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Path == healthPath {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		body := map[string]any{"status": "starting", "step": step}
		if pct >= 0 {
			body["progress_percent"] = pct
		}
		json.NewEncoder(w).Encode(body)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(http.StatusServiceUnavailable)
	what := html.EscapeString(step)
	if pct >= 0 {
		what += fmt.Sprintf(" (%d%%)", pct)
	}
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="%d">`+
		`<title>Starting · Crucible</title></head><body><h1>Crucible is starting</h1>`+
		`<p data-testid="starting-step">The portal is %s. This page reloads itself until it is ready.</p></body></html>`,
		startingRetry, what)
}

// Switch is an http.Handler whose handler can be replaced while it
// serves: the server listens at once with Starting and switches to the
// portal when it is ready.
type Switch struct {
	h atomic.Pointer[http.Handler]
}

// NewSwitch returns a Switch serving h.
func NewSwitch(h http.Handler) *Switch {
	s := &Switch{}
	s.Set(h)
	return s
}

// Set makes h serve every request from now on.
func (s *Switch) Set(h http.Handler) { s.h.Store(&h) }

func (s *Switch) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }
