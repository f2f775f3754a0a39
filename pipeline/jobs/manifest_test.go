package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/jobs"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// withProvenance gives an engine's runs the world's provenance, as
// `crucible serve` does: the store's corpus fingerprint, the index's
// facts and the engine's.
func (w *world) withProvenance(e jobs.Engine, facts pipeline.EngineFacts) jobs.Engine {
	e.Pipeline.Provenance = func(ctx context.Context) (pipeline.Manifest, error) {
		corpus, err := w.db.CorpusFacts(ctx)
		if err != nil {
			return pipeline.Manifest{}, err
		}
		return pipeline.Manifest{Corpus: corpus, Index: w.ix.Facts(), Engine: facts, Software: pipeline.SoftwareFacts()}, nil
	}
	return e
}

// runTwice runs the request as two jobs, one after the other, and
// returns both reports as stored.
func runTwice(t *testing.T, w *world, e jobs.Engine, between func()) [2]pipeline.Report {
	t.Helper()
	var out [2]pipeline.Report
	for i := range out {
		if i == 1 && between != nil {
			between()
		}
		j := runOne(t, w, e, pipeline.DefaultSettings())
		if j.State != pipeline.JobDone {
			t.Fatalf("run %d ended %s (%s: %s)", i+1, j.State, j.ErrorStage, j.Error)
		}
		rep, err := w.db.Report(context.Background(), j.ReportID)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Manifest == nil {
			t.Fatalf("run %d's report has no manifest", i+1)
		}
		jm, err := w.db.JobManifest(context.Background(), j.ID)
		if err != nil {
			t.Fatalf("run %d's job has no manifest: %v", i+1, err)
		}
		if diff := cmp.Diff(*rep.Manifest, jm); diff != "" {
			t.Errorf("run %d: the job's manifest is not its report's (-report +job):\n%s", i+1, diff)
		}
		out[i] = rep
	}
	return out
}

// sameReports checks that two runs with the same manifest made the same
// report: equal manifests, and byte-identical exports.
func sameReports(t *testing.T, reps [2]pipeline.Report) {
	t.Helper()
	if diff := cmp.Diff(reps[0].Manifest, reps[1].Manifest); diff != "" {
		t.Errorf("the manifests differ (-first +second):\n%s", diff)
	}
	if len(reps[0].Sentences) == 0 {
		t.Fatal("the report has no sentences")
	}
	var enc [2][]byte
	for i, r := range reps {
		b, err := export.NeuCLIRJSON(r, []string{"sotu"})
		if err != nil {
			t.Fatal(err)
		}
		enc[i] = b
	}
	if !bytes.Equal(enc[0], enc[1]) {
		t.Errorf("the same request with the same manifest gave two reports:\n%s\n%s", enc[0], enc[1])
	}
	if diff := cmp.Diff(reps[0].Nuggets, reps[1].Nuggets); diff != "" {
		t.Errorf("the nuggets differ (-first +second):\n%s", diff)
	}
}

// TestSameManifestSameReportOffline: the offline engine, run twice on
// one request, gives the same manifest and the same report; ingesting a
// document between the runs changes the manifest's corpus fingerprint.
func TestSameManifestSameReportOffline(t *testing.T) {
	w := newWorld(t)
	facts := pipeline.EngineFacts{ID: "offline", Label: "offline engine", Offline: true, OfflineVersion: offline.Version}
	e := w.withProvenance(w.engine(w.cached(offline.New(analyzer{w.ix}))), facts)
	reps := runTwice(t, w, e, nil)
	sameReports(t, reps)
	m := reps[0].Manifest
	if m.Corpus.Documents == 0 || m.Corpus.Passages == 0 || len(m.Corpus.Fingerprint) != 64 {
		t.Errorf("corpus facts: %+v", m.Corpus)
	}
	if m.Index != w.ix.Facts() || m.Index.K1 != 0.9 || m.Index.B != 0.4 {
		t.Errorf("index facts: %+v", m.Index)
	}
	if m.Engine.OfflineVersion != offline.Version || m.Engine.Temperature != nil {
		t.Errorf("engine facts: %+v", m.Engine)
	}
	if m.Pipeline == "" || len(m.Prompts) != 6 || fmt.Sprint(m.Settings["retrieve"]) != "100" {
		t.Errorf("run facts: pipeline %q, %d prompts, settings %v", m.Pipeline, len(m.Prompts), m.Settings)
	}

	// Another document: another corpus, so another manifest.
	more := runTwice(t, w, e, func() {
		in := &pipeline.Ingester{Store: w.db, Index: w.ix, Segment: index.Segment}
		ctx := context.Background()
		if err := in.Add(ctx, pipeline.Document{ID: "extra-1", Title: "Extra", Text: "Tariffs on trade were lowered."}); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if more[0].Manifest.Corpus == more[1].Manifest.Corpus {
		t.Error("the corpus fingerprint did not change with an ingested document")
	}
	if more[1].Manifest.Corpus.Documents != more[0].Manifest.Corpus.Documents+1 {
		t.Errorf("documents %d then %d", more[0].Manifest.Corpus.Documents, more[1].Manifest.Corpus.Documents)
	}
}

// TestSameManifestSameReportEndpoint: through a scripted OpenAI-compatible
// endpoint, the second run of a request replays the model cache (no
// request reaches the endpoint) and gives the same manifest and report;
// the manifest names the model and the endpoint's host, never its key.
func TestSameManifestSameReportEndpoint(t *testing.T) {
	w := newWorld(t)
	ep := &scriptedEndpoint{engine: offline.New(analyzer{w.ix}), inputs: map[string]pipeline.ModelRequest{}}
	e := w.openAIEngine(t, ep)
	var requests int32
	reps := runTwice(t, w, w.withProvenance(e, endpointFacts(t, e)), func() { requests = ep.requests.Load() })
	if requests == 0 {
		t.Fatal("the first run asked the endpoint nothing")
	}
	if n := ep.requests.Load(); n != requests {
		t.Errorf("the second run asked the endpoint %d times; a warm cache answers everything", n-requests)
	}
	sameReports(t, reps)
	m := reps[0].Manifest
	if m.Engine.Model != "scripted-1" || !strings.HasPrefix(m.Engine.EndpointHost, "127.0.0.1:") || m.Engine.Calls == nil {
		t.Errorf("engine facts: %+v", m.Engine)
	}
	if m.Engine.Temperature == nil || *m.Engine.Temperature != 0 {
		t.Errorf("temperature: %v", m.Engine.Temperature)
	}
	if b, _ := export.NeuCLIRJSON(reps[0], nil); bytes.Contains(b, []byte(`"k"`)) || bytes.Contains(b, []byte("/v1")) {
		t.Errorf("the export names the endpoint's key or path: %s", b)
	}
}

// TestFailedJobKeepsItsManifest: a job whose model fails still records
// how it was run.
func TestFailedJobKeepsItsManifest(t *testing.T) {
	w := newWorld(t)
	e := w.withProvenance(w.engine(failingModel{}), pipeline.EngineFacts{ID: "offline", Label: "offline engine", Offline: true})
	j := runOne(t, w, e, pipeline.DefaultSettings())
	if j.State != pipeline.JobFailed {
		t.Fatalf("job ended %s", j.State)
	}
	m, err := w.db.JobManifest(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Corpus.Documents == 0 || len(m.Prompts) == 0 {
		t.Errorf("the failed job's manifest: %+v", m)
	}
}

type failingModel struct{}

func (failingModel) Complete(context.Context, pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	return pipeline.ModelResponse{}, errors.Join(pipeline.ErrModel, errors.New("endpoint down"))
}

// endpointFacts are the engine facts of an engine openAIEngine made, as
// `crucible serve` gives them.
func endpointFacts(t *testing.T, e jobs.Engine) pipeline.EngineFacts {
	t.Helper()
	client, ok := e.Pipeline.Model.(recorder).next.(llm.Cached).Next.(*llm.OpenAI)
	if !ok {
		t.Fatalf("the engine's model is %T", e.Pipeline.Model)
	}
	f := client.Facts()
	f.ID = "openai"
	return f
}
