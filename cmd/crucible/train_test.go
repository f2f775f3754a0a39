package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/handlers"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// firstLines writes the first n lines of a file to a new file in dir.
func firstLines(t *testing.T, src, dir string, n int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	out := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(out, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTrainRanker trains the offline engine's nugget ranker on four gold
// requests of the demo corpus, stores it as the engine's active ranker,
// and checks that a report then records it and ranks its nuggets by it,
// differently from the default weights.
func TestTrainRanker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the pipeline for four requests; skipped in -short mode")
	}
	data := preparedData(t, demoCorpus)
	reqs := firstLines(t, "../../testdata/eval/sotu-requests.jsonl", t.TempDir(), 4)
	gold := "../../testdata/eval/sotu-nuggets.jsonl"

	stdout, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--requests", reqs, "--nuggets", gold, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"nugget ranker for the offline engine", "leave-one-request-out over 4 requests", "evidence", "nonfactoid", "dry run: nothing stored"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	// A chosen subset of the features is learned alone.
	stdout, stderr, code = runCmd(t, "train", "ranker", "--data", data, "--requests", reqs, "--nuggets", gold, "--dry-run", "--features", "task,evidence")
	if code != 0 || !strings.Contains(stdout, "evidence") || strings.Contains(stdout, "nonfactoid") || strings.Contains(stdout, "scope") {
		t.Errorf("--features task,evidence: exit %d: %s\n%s", code, stdout, stderr)
	}

	// The default weights first, for comparison.
	req := readRequestLine(t, reqs)
	before := rankedQuestions(t, data, req)

	stdout, stderr, code = runCmd(t, "train", "ranker", "--data", data, "--requests", reqs, "--nuggets", gold)
	if code != 0 || !strings.Contains(stdout, "stored ranker 1; the offline engine ranks nuggets with it") {
		t.Fatalf("train: exit %d: %s\n%s", code, stdout, stderr)
	}
	ctx := context.Background()
	a, err := openApp(ctx, commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.db.ActiveRanker(ctx, "offline engine")
	a.Close()
	if err != nil || m == nil || m.ID != 1 || m.Positives == 0 || !strings.Contains(m.TrainedOn, "sotu-nuggets.jsonl (4 requests") {
		t.Fatalf("active ranker: %+v, %v", m, err)
	}
	after := rankedQuestions(t, data, req)
	if strings.Join(before, "\n") == strings.Join(after, "\n") {
		t.Errorf("the trained ranker kept the default weights' order of all %d nuggets", len(after))
	}

	// Stopping it puts the engine back on the default weights; an
	// unknown id is refused.
	if stdout, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--stop", "1", "--list"); code != 0 || !strings.Contains(stdout, "ranker 1 is no longer used") {
		t.Fatalf("--stop: exit %d: %s %s", code, stdout, stderr)
	}
	if again := rankedQuestions(t, data, req); strings.Join(again, "\n") != strings.Join(before, "\n") {
		t.Error("after --stop the nuggets are not in the default weights' order")
	}
	if _, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--use", "42"); code == 0 || !strings.Contains(stderr, "ranker 42: not found") {
		t.Errorf("--use 42: exit %d, stderr %q", code, stderr)
	}
}

// readRequestLine parses the first request of a requests file.
func readRequestLine(t *testing.T, path string) pipeline.Request {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	req, _, err := parseRequest([]byte(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// rankedQuestions runs the offline engine on the data folder up to nugget
// ranking and returns the kept nuggets' questions in rank order; it
// checks that the run records the ranker it used.
func rankedQuestions(t *testing.T, data string, req pipeline.Request) []string {
	t.Helper()
	ctx := context.Background()
	a, err := openApp(ctx, commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	engines, err := a.engines(modelFlags{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	active, err := a.db.ActiveRanker(ctx, "offline engine")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engines[0].Pipeline.Generate(ctx, req, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(0)
	if active != nil {
		want = active.ID
	}
	if rep.Settings.Ranker != want {
		t.Errorf("report records ranker %d, want %d", rep.Settings.Ranker, want)
	}
	var qs []string
	for _, n := range rep.Nuggets {
		qs = append(qs, n.Question)
	}
	return qs
}

func TestTrainRankerBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reqs := firstLines(t, "../../testdata/eval/sotu-requests.jsonl", dir, 1)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no kind", []string{"train"}, 2, "train needs ranker"},
		{"unknown kind", []string{"train", "reranker"}, 2, `unknown train kind "reranker"`},
		{"no gold", []string{"train", "ranker", "--data", dir, "--requests", reqs}, 2, "one gold file for each requests file (got 1 and 0)"},
		{"bad k", []string{"train", "ranker", "--data", dir, "--requests", reqs, "--nuggets", reqs, "--k", "0"}, 2, "--k is 0"},
		{"unknown feature", []string{"train", "ranker", "--data", dir, "--requests", reqs, "--nuggets", reqs, "--features", "task,popularity"},
			2, `--features names "popularity", which is no nugget feature`},
		{"feature twice", []string{"train", "ranker", "--data", dir, "--requests", reqs, "--nuggets", reqs, "--features", "task, task"},
			2, `--features names "task" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q lacks %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

// Labels of one class teach nothing: training says so and stores nothing.
func TestTrainRankerOneClass(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the pipeline; skipped in -short mode")
	}
	data := preparedData(t, demoCorpus)
	dir := t.TempDir()
	reqs := firstLines(t, "../../testdata/eval/sotu-requests.jsonl", dir, 1)
	// A gold nugget whose answer no nugget can hold.
	gold := filepath.Join(dir, "gold.jsonl")
	if err := os.WriteFile(gold, []byte(`{"request_id":"sotu-01","nugget_id":"x","question":"Which word?","answers":["zzqx unfindable"],"importance":"vital"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--requests", reqs, "--nuggets", gold)
	if code == 0 || !strings.Contains(stderr, "all of one class") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	ctx := context.Background()
	a, err := openApp(ctx, commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if all, err := a.db.Rankers(ctx); err != nil || len(all) != 0 {
		t.Errorf("stored after a failed training: %+v, %v", all, err)
	}
}

// The portal's rankers page is served from the SQLite store (web.Deps.Jobs).
var _ handlers.RankerStore = (*sqlite.DB)(nil)

// TestTrainRankerFromReports labels nuggets from what an analyst and a
// reviewer did to a stored report: a pinned nugget and the nugget of a
// sentence reviewed as supported are positive, a removed one negative.
func TestTrainRankerFromReports(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	// Nobody has judged anything yet: a clear refusal, nothing stored.
	_, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--from-reports")
	if code == 0 || !strings.Contains(stderr, "no labelled nuggets") {
		t.Fatalf("no judged reports: exit %d, %s", code, stderr)
	}

	ctx := context.Background()
	a, err := openApp(ctx, commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	engines, err := a.engines(modelFlags{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := pipeline.Request{ID: "tariffs", Title: "Tariffs", ProblemStatement: "What did the addresses say about tariffs and duties on imports?", Limit: 1500}
	// The fill's nuggets are not ranked (no features to learn from): the
	// nuggets the analyst removes below must be ranked ones.
	settings, off := pipeline.DefaultSettings(), false
	settings.FillReport = &off
	obs := &rankObserver{}
	all, err := func() ([]pipeline.Nugget, error) {
		_, err := engines[0].Pipeline.Generate(ctx, req, settings, obs)
		if err != nil && !errors.Is(err, errStopAfterRank) {
			return nil, err
		}
		return obs.nuggets, nil
	}()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engines[0].Pipeline.Generate(ctx, req, settings, nil)
	if err != nil {
		t.Fatal(err)
	}
	job, _, err := a.db.CreateJob(ctx, pipeline.Job{Request: req, Settings: settings, Engine: "offline"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.db.SaveNuggets(ctx, job.ID, all); err != nil {
		t.Fatal(err)
	}
	reportID, err := a.db.SaveReport(ctx, job.ID, rep)
	if err != nil {
		t.Fatal(err)
	}
	first := pipeline.NewDraft(rep)
	if len(first.Nuggets) < 3 || len(first.Sentences) == 0 {
		t.Fatalf("report too small to judge: %d nuggets, %d sentences", len(first.Nuggets), len(first.Sentences))
	}
	if _, err := a.db.SaveVersion(ctx, reportID, 0, pipeline.VersionInfo{Author: "ana", At: time.Now()}, first); err != nil {
		t.Fatal(err)
	}
	edited := first.Clone()
	edited.Nuggets[0].Pinned = true
	removed := edited.Nuggets[len(edited.Nuggets)-1]
	edited.Nuggets = edited.Nuggets[:len(edited.Nuggets)-1]
	if _, err := a.db.SaveVersion(ctx, reportID, 1, pipeline.VersionInfo{Author: "ana", At: time.Now(), Change: "pinned, removed"}, edited); err != nil {
		t.Fatal(err)
	}
	if err := a.db.SaveReview(ctx, pipeline.Review{Report: reportID, Key: pipeline.SentenceKey(edited.Sentences[0].Sentence),
		Verdict: pipeline.ReviewSupported, Reviewer: "rev", Version: 2, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	a.Close()

	stdout, stderr, code := runCmd(t, "train", "ranker", "--data", data, "--from-reports", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantPos := 1
	if edited.Sentences[0].NuggetID != edited.Nuggets[0].ID && edited.Sentences[0].NuggetID != removed.ID {
		wantPos = 2
	}
	want := fmt.Sprintf("from reports: %d nuggets labelled by analysts and reviewers in 1 report(s), %d positive", wantPos+1, wantPos)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "analysts' and reviewers' judgements (1 reports") || !strings.Contains(stdout, "dry run: nothing stored") {
		t.Errorf("output:\n%s", stdout)
	}
}
