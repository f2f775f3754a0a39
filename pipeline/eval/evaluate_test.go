package eval

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// Per-query values for testdata/sample.{qrels,run} with cutoffs 2, 3, 10.
//
// q1: qrels d1=1 d3=1 d5=0; run d1 2, then d2 d10 d3 tied at 1, d9 0.5.
// The tie goes by id descending, d3 d2 d10 (the rank column, which puts d3
// fourth, is ignored), so the ranking is d1 d3 d2 d10 d9 with both relevant
// documents on top: map = (1/1 + 2/2)/2 = 1, P_2 = 2/2, P_3 = 2/3,
// P_10 = 2/10, recall and ndcg 1 at every cutoff.
//
// q2: the graded example of measure_test.go (map 17/30, ndcg_cut_10
// 0.5750874, ...).
//
// q3: judged (g=0 h=0) and retrieved, but nothing is relevant: every
// measure 0, and it is still averaged.
//
// q4: judged (m=1) but absent from the run: averaged as 0 only with
// Complete. q5: in the run but not judged: never averaged.
var (
	log2   = math.Log2
	q2NDCG = map[int]float64{
		2:  1 / (3 + 2/log2(3)),                                                   // 0.2346394
		3:  2.5 / (3 + 2/log2(3) + 1),                                             // 0.4751172
		10: (1 + 3/log2(4) + 2/log2(6)) / (3 + 2/log2(3) + 2/log2(4) + 1/log2(5)), // 0.5750874
	}
	sampleQ1 = map[string]float64{
		"map": 1, "recip_rank": 1,
		"P_2": 1, "P_3": 2.0 / 3, "P_10": 0.2,
		"recall_2": 1, "recall_3": 1, "recall_10": 1,
		"ndcg_cut_2": 1, "ndcg_cut_3": 1, "ndcg_cut_10": 1,
	}
	sampleQ2 = map[string]float64{
		"map": 17.0 / 30, "recip_rank": 1,
		"P_2": 0.5, "P_3": 2.0 / 3, "P_10": 0.3,
		"recall_2": 0.25, "recall_3": 0.5, "recall_10": 0.75,
		"ndcg_cut_2": q2NDCG[2], "ndcg_cut_3": q2NDCG[3], "ndcg_cut_10": q2NDCG[10],
	}
	sampleMeasures = []string{"map", "recip_rank", "P_2", "P_3", "P_10",
		"recall_2", "recall_3", "recall_10", "ndcg_cut_2", "ndcg_cut_3", "ndcg_cut_10"}
)

func zeros(names []string) map[string]float64 {
	m := map[string]float64{}
	for _, n := range names {
		m[n] = 0
	}
	return m
}

// meansOf sums each measure over q1 and q2 (q3 and q4 add 0) and divides by
// n: the hand-written means below spell this out.
func meansOf(n float64) map[string]float64 {
	m := map[string]float64{}
	for _, name := range sampleMeasures {
		m[name] = (sampleQ1[name] + sampleQ2[name]) / n
	}
	return m
}

func readSample(t *testing.T) (Qrels, Run) {
	t.Helper()
	q, err := ReadQrelsFile("testdata/sample.qrels")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadRunFile("testdata/sample.run")
	if err != nil {
		t.Fatal(err)
	}
	return q, r
}

func TestEvaluateSample(t *testing.T) {
	qrels, run := readSample(t)
	tests := []struct {
		name      string
		complete  bool
		want      Results
		wantMeans map[string]float64 // written out by hand, checked against want.Mean
	}{
		{
			name:     "intersection of run and qrels",
			complete: false,
			want: Results{
				Measures: sampleMeasures,
				Queries:  []string{"q1", "q2", "q3"},
				PerQuery: map[string]map[string]float64{"q1": sampleQ1, "q2": sampleQ2, "q3": zeros(sampleMeasures)},
				Mean:     meansOf(3),
				Missing:  []string{"q4"},
				Unjudged: []string{"q5"},
			},
			// Over q1 q2 q3: map (1 + 17/30 + 0)/3 = 47/90 = 0.5222;
			// ndcg_cut_10 (1 + 0.5750874)/3 = 0.5250291; P_10 (0.2+0.3)/3.
			wantMeans: map[string]float64{
				"map": 47.0 / 90, "recip_rank": 2.0 / 3, "P_10": 0.5 / 3,
				"recall_2": 1.25 / 3, "ndcg_cut_10": 0.52502912450994,
			},
		},
		{
			name:     "complete: judged query missing from the run scores 0",
			complete: true,
			want: Results{
				Measures: sampleMeasures,
				Queries:  []string{"q1", "q2", "q3", "q4"},
				PerQuery: map[string]map[string]float64{
					"q1": sampleQ1, "q2": sampleQ2, "q3": zeros(sampleMeasures), "q4": zeros(sampleMeasures),
				},
				Mean:     meansOf(4),
				Missing:  []string{"q4"},
				Unjudged: []string{"q5"},
			},
			// Over q1..q4: map (1 + 17/30)/4 = 47/120 = 0.3917;
			// ndcg_cut_10 (1 + 0.5750874)/4 = 0.3937718.
			wantMeans: map[string]float64{
				"map": 47.0 / 120, "recip_rank": 0.5, "P_10": 0.5 / 4,
				"recall_2": 1.25 / 4, "ndcg_cut_10": 0.39377184338246,
			},
		},
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Evaluate(qrels, run, Options{Ks: []int{10, 2, 3}, Complete: tt.complete})
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Evaluate mismatch (-want +got):\n%s", diff)
			}
			for name, want := range tt.wantMeans {
				if math.Abs(got.Mean[name]-want) > 1e-12 {
					t.Errorf("mean %s = %.14f, want %.14f", name, got.Mean[name], want)
				}
			}
			if got.NumQueries() != len(tt.want.Queries) {
				t.Errorf("NumQueries() = %d, want %d", got.NumQueries(), len(tt.want.Queries))
			}
		})
	}
}

func TestEvaluateDoesNotModifyRun(t *testing.T) {
	qrels := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 1, 0.1}, {"b", 2, 0.9}}}
	before := Run{"q": {{"a", 1, 0.1}, {"b", 2, 0.9}}}
	if _, err := Evaluate(qrels, run, Options{Ks: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, run); diff != "" {
		t.Errorf("Evaluate modified the run (-before +after):\n%s", diff)
	}
}

func TestEvaluateEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		q    Qrels
		run  Run
		opts Options
		want map[string]float64 // means
		nq   int
	}{
		{
			// Ranked a (0.7) then b: a counts once at rank 1, map = 1.
			name: "duplicate document in a run built in memory",
			q:    Qrels{"q": {"a": 1}},
			run:  Run{"q": {{"a", 1, 0.2}, {"b", 2, 0.5}, {"a", 3, 0.7}}},
			opts: Options{Ks: []int{3}},
			want: map[string]float64{"map": 1, "recip_rank": 1, "P_3": 1.0 / 3, "recall_3": 1, "ndcg_cut_3": 1},
			nq:   1,
		},
		{
			// A query listed with no entries is missing, like one not listed.
			name: "empty entry list is a missing query",
			q:    Qrels{"q": {"a": 1}, "r": {"b": 1}},
			run:  Run{"q": {{"a", 1, 1}}, "r": {}},
			opts: Options{Ks: []int{1}, Complete: true},
			// q scores 1 everywhere, r 0: means 1/2.
			want: map[string]float64{"map": 0.5, "recip_rank": 0.5, "P_1": 0.5, "recall_1": 0.5, "ndcg_cut_1": 0.5},
			nq:   2,
		},
		{
			// Only queries without relevant documents: averaged, all 0.
			name: "no relevant documents anywhere",
			q:    Qrels{"q": {"a": 0}},
			run:  Run{"q": {{"a", 1, 1}}},
			opts: Options{Ks: []int{5}},
			want: map[string]float64{"map": 0, "recip_rank": 0, "P_5": 0, "recall_5": 0, "ndcg_cut_5": 0},
			nq:   1,
		},
		{
			// Complete with an empty run still has queries to average.
			name: "complete with an empty run",
			q:    Qrels{"q": {"a": 1}},
			run:  Run{},
			opts: Options{Ks: []int{}, Complete: true},
			want: map[string]float64{"map": 0, "recip_rank": 0},
			nq:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Evaluate(tt.q, tt.run, tt.opts)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Mean, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("means mismatch (-want +got):\n%s", diff)
			}
			if got.NumQueries() != tt.nq {
				t.Errorf("NumQueries() = %d, want %d", got.NumQueries(), tt.nq)
			}
		})
	}
}

func TestEvaluateCustomMeasures(t *testing.T) {
	numRet := Measure{Name: "num_ret", Compute: func(r *Ranking) float64 { return float64(len(r.DocIDs)) }}
	qrels := Qrels{"q1": {"a": 1}, "q2": {"b": 1}}
	run := Run{"q1": {{"a", 1, 1}, {"z", 2, 0.5}, {"a", 3, 0.1}}}
	got, err := Evaluate(qrels, run, Options{Measures: []Measure{numRet, MAP()}, Complete: true})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	want := Results{
		Measures: []string{"num_ret", "map"},
		Queries:  []string{"q1", "q2"},
		PerQuery: map[string]map[string]float64{
			"q1": {"num_ret": 2, "map": 1}, // the duplicate a is dropped
			"q2": {"num_ret": 0, "map": 0}, // missing: 0 on every measure
		},
		Mean:    map[string]float64{"num_ret": 1, "map": 0.5},
		Missing: []string{"q2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Evaluate mismatch (-want +got):\n%s", diff)
	}
}

func TestEvaluateErrors(t *testing.T) {
	ok := Measure{Name: "x", Compute: func(*Ranking) float64 { return 0 }}
	qrels := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 1, 1}}}
	tests := []struct {
		name    string
		q       Qrels
		run     Run
		opts    Options
		wantErr string
	}{
		{
			name: "no query in common", q: qrels, run: Run{"other": {{"a", 1, 1}}},
			wantErr: "no query to average: 1 judged queries, 1 run queries, none in common",
		},
		{
			name: "empty qrels with complete", q: Qrels{}, run: run, opts: Options{Complete: true},
			wantErr: "no query to average: 0 judged queries, 1 run queries",
		},
		{name: "bad cutoff", q: qrels, run: run, opts: Options{Ks: []int{0}}, wantErr: "cutoff 0 is not positive"},
		{
			name: "cutoffs and measures", q: qrels, run: run,
			opts:    Options{Ks: []int{10}, Measures: []Measure{ok}},
			wantErr: "options set both cutoffs and measures",
		},
		{
			name: "unnamed measure", q: qrels, run: run,
			opts:    Options{Measures: []Measure{ok, {Compute: ok.Compute}}},
			wantErr: "measure 2 has no name",
		},
		{
			name: "measure name with a space", q: qrels, run: run,
			opts:    Options{Measures: []Measure{{Name: "my map", Compute: ok.Compute}}},
			wantErr: `measure name "my map" contains whitespace`,
		},
		{
			name: "measure without function", q: qrels, run: run,
			opts:    Options{Measures: []Measure{{Name: "y"}}},
			wantErr: `measure "y" has no Compute function`,
		},
		{
			name: "measure twice", q: qrels, run: run,
			opts:    Options{Measures: []Measure{ok, ok}},
			wantErr: `measure "x" given twice`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(tt.q, tt.run, tt.opts)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Evaluate error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	res := Results{
		Measures: []string{"map", "P_10"},
		Queries:  []string{"q1", "q2"},
		PerQuery: map[string]map[string]float64{
			"q1": {"map": 1, "P_10": 0.3},
			"q2": {"map": 0.123456, "P_10": 0},
		},
		Mean: map[string]float64{"map": 0.561728, "P_10": 0.15},
	}
	tests := []struct {
		name     string
		perQuery bool
		want     string
	}{
		{
			name: "summary",
			want: "num_q                 \tall\t2\n" +
				"map                   \tall\t0.5617\n" +
				"P_10                  \tall\t0.1500\n",
		},
		{
			name:     "per query",
			perQuery: true,
			want: "map                   \tq1\t1.0000\n" +
				"P_10                  \tq1\t0.3000\n" +
				"map                   \tq2\t0.1235\n" +
				"P_10                  \tq2\t0.0000\n" +
				"num_q                 \tall\t2\n" +
				"map                   \tall\t0.5617\n" +
				"P_10                  \tall\t0.1500\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := res.WriteTable(&buf, tt.perQuery); err != nil {
				t.Fatalf("WriteTable: %v", err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("WriteTable mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if err := res.WriteTable(failingWriter{}, true); err == nil {
		t.Error("WriteTable to a failing writer returned nil")
	}
}

// TestSampleTable checks the whole path, files to table, against goldens
// whose numbers are the hand-computed values above rounded to 4 places.
func TestSampleTable(t *testing.T) {
	qrels, run := readSample(t)
	tests := []struct {
		name     string
		complete bool
		golden   string
	}{
		{name: "default", complete: false, golden: "sample.golden"},
		{name: "complete", complete: true, golden: "sample-complete.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(qrels, run, Options{Ks: []int{2, 3, 10}, Complete: tt.complete})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := res.WriteTable(&buf, true); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("table mismatch with %s (-want +got):\n%s", path, diff)
			}
		})
	}
}
