package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/web"
)

// fakeRankers keeps nugget rankers in memory, one active per engine as the
// SQLite store does.
type fakeRankers struct {
	mu       sync.Mutex
	models   []pipeline.RankerModel
	switches int
	err      error
}

func newFakeRankers() *fakeRankers {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	return &fakeRankers{models: []pipeline.RankerModel{
		{ID: 2, Engine: "offline engine", TrainedOn: "testdata/eval/sotu-nuggets.jsonl", Examples: 420, Positives: 61, CreatedAt: at,
			CV: &pipeline.RankerCV{Requests: 20, BalancedAccuracy: 0.75, K: 20, TopK: 2.27, BaselineTopK: 2.18}},
		{ID: 1, Engine: "offline engine", TrainedOn: "sotu2", Examples: 200, Positives: 30, CreatedAt: at, Active: true},
	}}
}

func (f *fakeRankers) Rankers(context.Context) ([]pipeline.RankerModel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return append([]pipeline.RankerModel(nil), f.models...), nil
}

func (f *fakeRankers) SetRankerActive(_ context.Context, id int64, active bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	at := -1
	for i, m := range f.models {
		if m.ID == id {
			at = i
		}
	}
	if at < 0 {
		return fmt.Errorf("ranker %d: %w", id, pipeline.ErrNotFound)
	}
	f.switches++
	if active {
		for i := range f.models {
			if f.models[i].Engine == f.models[at].Engine {
				f.models[i].Active = false
			}
		}
	}
	f.models[at].Active = active
	return nil
}

func (f *fakeRankers) switched() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.switches
}

func TestRankersPage(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	b := newBrowser(s)
	b.mustLogin(t, adminUser)
	token := b.csrf(t, "/")

	doc := parseHTML(t, b.get("/admin/rankers"))
	if diff := cmp.Diff([]string{"2", "1"}, texts(doc, "ranker-id")); diff != "" {
		t.Errorf("rankers listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"not used", "in use"}, texts(doc, "ranker-state")); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"balanced accuracy 0.750 over 20 requests", "not measured (one request)"}, texts(doc, "ranker-cv")); diff != "" {
		t.Errorf("cross-validation (-want +got):\n%s", diff)
	}
	if got := byTestID(doc, "nav-rankers").Length(); got != 1 {
		t.Errorf("admin navigation has %d Rankers links", got)
	}

	// Use ranker 2: it replaces 1 for the offline engine.
	req, _ := http.NewRequest(http.MethodPost, "/admin/rankers/2/use", strings.NewReader(url.Values{"csrf_token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := b.do(req)
	wantStatus(t, rec, http.StatusSeeOther)
	loc := rec.Header().Get("Location")
	if loc != "/admin/rankers?done=used&id=2" {
		t.Fatalf("Location %q", loc)
	}
	doc = parseHTML(t, b.get(loc))
	if diff := cmp.Diff([]string{"in use", "not used"}, texts(doc, "ranker-state")); diff != "" {
		t.Errorf("states after use (-want +got):\n%s", diff)
	}
	if got, want := textOf(doc, "rankers-notice"), "Ranker 2 now ranks the nuggets of offline engine's new reports."; got != want {
		t.Errorf("notice %q, want %q", got, want)
	}

	// An unknown ranker is a 404 that names it.
	req, _ = http.NewRequest(http.MethodPost, "/admin/rankers/99/stop", strings.NewReader(url.Values{"csrf_token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = b.do(req)
	wantStatus(t, rec, http.StatusNotFound)
	if msg := textOf(parseHTML(t, rec), "error-message"); !strings.Contains(msg, "No nugget ranker has the id 99") {
		t.Errorf("404 message %q", msg)
	}

	// A store that fails is a 500, not a page claiming there are none.
	s.rankers.err = fmt.Errorf("database is locked")
	wantStatus(t, b.get("/admin/rankers"), http.StatusInternalServerError)
}

func TestRankersPageEmpty(t *testing.T) {
	s := newAccountServer(t, web.Config{}, newFakeAccounts(t, adminUser))
	s.rankers.models = nil
	b := newBrowser(s)
	b.mustLogin(t, adminUser)
	doc := parseHTML(t, b.get("/admin/rankers"))
	if !strings.Contains(textOf(doc, "rankers-empty"), "every engine uses the default weights") {
		t.Errorf("empty page: %q", textOf(doc, "rankers-empty"))
	}
}
