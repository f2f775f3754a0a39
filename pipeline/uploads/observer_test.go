package uploads_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/uploads"
)

// ingestEvents is a pipeline.IngestObserver that keeps what it hears.
type ingestEvents struct {
	mu     sync.Mutex
	events []string
}

func (e *ingestEvents) UploadReceived(files int, bytes int64) {
	e.add(fmt.Sprintf("received %d files, %d bytes", files, bytes))
}

func (e *ingestEvents) Ingested(source, state string, c pipeline.IngestCounts) {
	e.add(fmt.Sprintf("%s %s: %+v", source, state, c))
}

func (e *ingestEvents) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, s)
}

// TestRunnerObserver: the runner tells its observer when an upload arrives
// and what it stored when it ends, well or not.
func TestRunnerObserver(t *testing.T) {
	ctx := context.Background()
	r, db, ix := testRunner(t, 2)
	obs := &ingestEvents{}
	r.Observer = obs

	good := jsonl(doc("d1", "One."), "bad line", doc("d2", "Two."), doc("d3", "Three."))
	u := submit(t, r, [2]string{"a.jsonl", good}, [2]string{"b.txt", "Some text."})
	if got := step(t, ctx, r, db, u.ID); got.State != uploads.Done {
		t.Fatalf("upload ended %s: %s", got.State, got.Message)
	}
	// The same documents again: unchanged; then an upload whose second
	// batch cannot be indexed (d1 to d3 replaced, d4 added before that).
	u = submit(t, r, [2]string{"a.jsonl", good})
	step(t, ctx, r, db, u.ID)
	ix.failOn = ix.calls + 2
	u = submit(t, r, [2]string{"big.jsonl", fiveDocs()})
	if got := step(t, ctx, r, db, u.ID); got.State != uploads.Failed {
		t.Fatalf("upload ended %s, want failed", got.State)
	}

	want := []string{
		fmt.Sprintf("received 2 files, %d bytes", len(good)+len("Some text.")),
		"upload done: {Added:4 Replaced:0 Unchanged:0 Skipped:1 Passages:4}",
		fmt.Sprintf("received 1 files, %d bytes", len(good)),
		"upload done: {Added:0 Replaced:0 Unchanged:3 Skipped:1 Passages:0}",
		fmt.Sprintf("received 1 files, %d bytes", len(fiveDocs())),
		"upload failed: {Added:1 Replaced:3 Unchanged:0 Skipped:0 Passages:4}",
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if diff := cmp.Diff(want, obs.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
