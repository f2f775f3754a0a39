package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

const demoCorpus = "../../testdata/corpora/sotu.jsonl.gz"

// TestHelperProcess is not a test: it is the crucible command run as a
// separate process by the tests below (so that they can kill it).
func TestHelperProcess(t *testing.T) {
	env := os.Getenv("CRUCIBLE_HELPER_ARGS")
	if env == "" {
		t.Skip("runs only as a helper process of another test")
	}
	var args []string
	if err := json.Unmarshal([]byte(env), &args); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}

// helperCmd is the crucible command line args as a child process.
func helperCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	j, _ := json.Marshal(args)
	cmd.Env = append(os.Environ(), "CRUCIBLE_HELPER_ARGS="+string(j))
	return cmd
}

// dropLast is an index that loses the batches after the first keep, as an
// index does whose last batches were not yet on disk when the process died.
type dropLast struct {
	pipeline.PassageIndexer
	keep, seen int
}

func (d *dropLast) IndexBatch(ctx context.Context, b pipeline.IndexBatch) error {
	d.seen++
	if d.seen > d.keep {
		return nil
	}
	return d.PassageIndexer.IndexBatch(ctx, b)
}

// An ingest whose last batches reached the store but not the index: the
// next reader indexes exactly those batches from the store's journal and
// answers as an index built whole from the store does, scores included.
func TestReaderIndexesTheBatchesAnInterruptedIngestLeftOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	// The first version of two documents is indexed, so the batches the
	// index lacks replace documents it holds.
	if _, stderr, code := runCmd(t, "ingest", "--data", data, "--batch-documents", "3", sampleCorpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, stderr)
	}
	a, err := openApp(ctx, commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	idx := &dropLast{PassageIndexer: a.index, keep: 1}
	in := &pipeline.Ingester{Store: a.db, Index: idx, Segment: index.Segment, BatchDocs: 2}
	for i, d := range sampleDocs(t) {
		if i < 5 {
			d.Text += " A later paragraph on the protective tariff and the revenue."
		}
		if err := in.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if idx.seen < 3 {
		t.Fatalf("only %d batches written; the test needs some after the first", idx.seen)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	// The reference: the same store, its index rebuilt whole.
	ref := t.TempDir()
	copyDir(t, data, ref)
	if _, stderr, code := runCmd(t, "reindex", "--data", ref); code != 0 {
		t.Fatalf("reindex: exit %d\n%s", code, stderr)
	}
	want, _, _ := runCmd(t, "search", "--data", ref, "--k", "8", "--json", "protective tariff revenue")

	got, stderr, code := runCmd(t, "search", "--data", data, "--k", "8", "--json", "protective tariff revenue")
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "an earlier ingest was interrupted: the index lacks the store's batches") ||
		!strings.Contains(stderr, "the index has caught up with the store") || strings.Contains(stderr, "rebuilding") {
		t.Errorf("stderr does not say the left-out batches were indexed (and only that):\n%s", stderr)
	}
	if got != want || !strings.Contains(got, "later paragraph") {
		t.Errorf("search after catching up:\n%s\nwant (index rebuilt whole)\n%s", got, want)
	}
	if _, stderr, _ := runCmd(t, "search", "--data", data, "protective tariff"); stderr != "" {
		t.Errorf("an index caught up is reported again: %q", stderr)
	}
}

// sampleDocs reads the sample corpus as documents, as ingest does.
func sampleDocs(t *testing.T) []pipeline.Document {
	t.Helper()
	wd, _ := os.Getwd()
	var docs []pipeline.Document
	_, err := corpus.Walk(context.Background(), []string{sampleCorpus}, corpus.Options{}, func(d pipeline.Document) error {
		d.Source = pipeline.RelativeSource(d.Source, wd)
		docs = append(docs, d)
		return nil
	}, func(p corpus.Problem) { t.Errorf("sample corpus: %s", p) })
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// copyDir copies the files of a data folder.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// latestBatch reads the store's latest batch from outside the process
// writing it (-1 while the database is not readable yet).
func latestBatch(path string) int64 {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		return -1
	}
	defer db.Close()
	var n int64
	err = db.QueryRow(`SELECT seq FROM sqlite_sequence WHERE name = 'ingest_batches'`).Scan(&n)
	if err == sql.ErrNoRows {
		return 0
	}
	if err != nil {
		return -1
	}
	return n
}

// kill -9 of `crucible ingest` at several points, then `search`: the
// answer is the one an index rebuilt whole from what the store holds gives
// (never a partial one), and the next ingest (checked after the last
// point) finishes the collection without writing again what was stored.
func TestIngestKilledAtSeveralPointsNeverAnswersPartially(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real ingest processes; skipped with -short")
	}
	const query = "tariff on imports"
	for _, after := range []int64{0, 1, 12} {
		t.Run(fmt.Sprintf("after batch %d", after), func(t *testing.T) {
			data := t.TempDir()
			cmd := helperCmd(t, "ingest", "--data", data, "--batch-documents", "10", demoCorpus)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			deadline := time.After(2 * time.Minute)
		poll:
			for {
				select {
				case err := <-exited:
					t.Fatalf("the ingest ended (%v) before batch %d was stored", err, after)
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("batch %d not stored within 2 minutes", after)
				case <-time.After(2 * time.Millisecond):
					if latestBatch(dbPath(data)) >= after {
						break poll
					}
				}
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-exited
			stored := latestBatch(dbPath(data))

			ref := t.TempDir()
			copyDir(t, data, ref)
			if _, stderr, code := runCmd(t, "reindex", "--data", ref); code != 0 {
				t.Fatalf("reindex of a copy: exit %d\n%s", code, stderr)
			}
			want, _, _ := runCmd(t, "search", "--data", ref, "--k", "10", "--json", query)

			got, stderr, code := runCmd(t, "search", "--data", data, "--k", "10", "--json", query)
			if code != 0 {
				t.Fatalf("search: exit %d\n%s", code, stderr)
			}
			t.Logf("killed after batch %d of the store; search said: %q", stored, stderr)
			if got != want {
				t.Errorf("killed after batch %d of the store: search answered\n%s\nbut the stored documents give\n%s\nstderr: %s", stored, got, want, stderr)
			}
			a, err := openApp(context.Background(), commonFlags{data: data, k1: 0.9, b: 0.4})
			if err != nil {
				t.Fatal(err)
			}
			st, _, ok, err := a.indexInStep(context.Background())
			wm, _ := a.index.Watermark()
			latest, _ := a.db.LatestBatch(context.Background())
			a.Close()
			if err != nil || !ok || wm != latest {
				t.Errorf("after search: in step %v (%d stored passages, err %v), watermark %d of latest batch %d", ok, st, err, wm, latest)
			}

			if after < 12 {
				return // the next ingest is checked once, below (it is slow under -race)
			}
			out, stderr, code := runCmd(t, "ingest", "--data", data, "--batch-documents", "10", demoCorpus)
			if code != 0 {
				t.Fatalf("the next ingest: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(out, "ingested 233 documents") {
				t.Errorf("the next ingest: %s", out)
			}
			if stored > 0 && strings.Contains(out, " 0 unchanged") {
				t.Errorf("the next ingest wrote again what the killed one stored: %s", out)
			}
			if stats := mustStats(t, data); stats.Documents != 233 {
				t.Errorf("after the next ingest the store holds %d documents, want 233", stats.Documents)
			}
		})
	}
}

func mustStats(t *testing.T, data string) pipeline.CollectionStats {
	t.Helper()
	a, err := openApp(context.Background(), commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	st, err := a.db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := a.indexInStep(context.Background()); !ok {
		t.Error("index out of step after the next ingest")
	}
	return st
}

// An index folder damaged on disk is named with the command that repairs
// it, and reindex rebuilds it from the store without needing to open it.
func TestDamagedIndexIsRebuiltByReindex(t *testing.T) {
	t.Parallel()
	data := preparedData(t, sampleCorpus)
	want, _, _ := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff")
	if err := os.WriteFile(filepath.Join(indexPath(data), "index_meta.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, "search", "--data", data, "protective tariff")
	if code != 1 || !strings.Contains(stderr, "the store is intact: run crucible reindex --data "+data) {
		t.Errorf("search over a damaged index: exit %d\n%s", code, stderr)
	}
	out, stderr, code := runCmd(t, "reindex", "--data", data)
	if code != 0 || !strings.Contains(stderr, "the index cannot be opened") || !strings.Contains(out, "reindexed 320 passages of 8 documents") {
		t.Fatalf("reindex of a damaged index: exit %d\n%s%s", code, out, stderr)
	}
	if got, _, _ := runCmd(t, "search", "--data", data, "--k", "3", "--json", "protective tariff"); got != want {
		t.Errorf("search after reindex:\n%s\nwant\n%s", got, want)
	}
}
