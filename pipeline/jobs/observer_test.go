package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// jobEvents is a pipeline.JobObserver that keeps what it hears.
type jobEvents struct {
	mu      sync.Mutex
	events  []string
	stages  []string
	elapsed []time.Duration
}

func (e *jobEvents) JobStarted(engine string) { e.add("started " + engine) }

func (e *jobEvents) StageDone(engine, stage string, elapsed time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stages = append(e.stages, engine+"/"+stage)
	e.elapsed = append(e.elapsed, elapsed)
}

func (e *jobEvents) JobEnded(engine string, state pipeline.JobState, elapsed time.Duration) {
	e.add("ended " + engine + " " + string(state))
}

func (e *jobEvents) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, s)
}

// stageModel notes the stage (pipeline.StageFrom) of every call per task.
type stageModel struct {
	next   pipeline.Model
	mu     sync.Mutex
	stages map[pipeline.Task]map[string]bool
}

func (m *stageModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	m.mu.Lock()
	if m.stages[req.Task] == nil {
		m.stages[req.Task] = map[string]bool{}
	}
	m.stages[req.Task][pipeline.StageFrom(ctx)] = true
	m.mu.Unlock()
	return m.next.Complete(ctx, req)
}

// TestRunnerObserver: the runner tells its observer when a job starts and
// ends and how long each stage took, and the run's model calls learn their
// stage from the context.
func TestRunnerObserver(t *testing.T) {
	w := newWorld(t)
	model := &stageModel{next: offline.New(analyzer{w.ix}), stages: map[pipeline.Task]map[string]bool{}}
	obs := &jobEvents{}
	failing := w.engine(model)
	failing.Info.ID = "down"
	failing.Check = func(context.Context) error { return errors.New("endpoint unreachable") }
	r := &jobs.Runner{Store: w.db, Available: []jobs.Engine{w.engine(model), failing}, Poll: 10 * time.Millisecond, Observer: obs}
	ctx := startRunner(t, r)

	job, _, err := r.Submit(ctx, request, pipeline.DefaultSettings(), "offline")
	if err != nil {
		t.Fatal(err)
	}
	if j := waitFor(t, w.db, job.ID, finished); j.State != pipeline.JobDone {
		t.Fatalf("job ended %s: %s", j.State, j.Error)
	}
	other := request
	other.ID = "t2"
	job, _, err = r.Submit(ctx, other, pipeline.DefaultSettings(), "down")
	if err != nil {
		t.Fatal(err)
	}
	if j := waitFor(t, w.db, job.ID, finished); j.State != pipeline.JobFailed {
		t.Fatalf("job on the failing engine ended %s", j.State)
	}

	// The runner tells the observer a job ended after it stored the end:
	// wait for the event rather than read the events at once.
	want := []string{"started offline", "ended offline done", "started down", "ended down failed"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		obs.mu.Lock()
		n := len(obs.events)
		obs.mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if diff := cmp.Diff(want, obs.events); diff != "" {
		t.Errorf("job events (-want +got):\n%s", diff)
	}
	// Every stage the run went through, once, in order; none of the job
	// that failed before its first stage.
	wantStages := []string{"offline/retrieve", "offline/ideate", "offline/merge", "offline/rank", "offline/scan", "offline/assemble", "offline/group"}
	if diff := cmp.Diff(wantStages, obs.stages); diff != "" {
		t.Errorf("stages done (-want +got):\n%s", diff)
	}
	for i, d := range obs.elapsed {
		if d < 0 {
			t.Errorf("stage %s took %v", obs.stages[i], d)
		}
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	for task, stage := range map[pipeline.Task]string{prompts.TaskNuggets: "ideate", prompts.TaskExtract: "scan"} {
		if diff := cmp.Diff(map[string]bool{stage: true}, model.stages[task]); diff != "" {
			t.Errorf("stages of %s calls (-want +got):\n%s", task, diff)
		}
	}
	for task, stages := range model.stages {
		if stages[""] {
			t.Errorf("a %s call of the run did not know its stage", task)
		}
	}
}
