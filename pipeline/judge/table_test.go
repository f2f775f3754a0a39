package judge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline/export"
)

func testResults(t *testing.T) Results {
	t.Helper()
	gold := append(testGold(), Nugget{RequestID: "r2", ID: "m1", Answers: []string{"x"}, Importance: Okay})
	reports := map[string]export.NeuCLIRReport{"r1": testReport(), "r3": {RequestID: "r3"}}
	res, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).Evaluate(context.Background(), gold, reports, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	if err := WriteTable(&b, testResults(t)); err != nil {
		t.Fatal(err)
	}
	// Figures as computed in TestEvaluate.
	want := `request   sentences  nuggets  citations  recall  vital  density  novelty  relevant  support
r1        4          3/4      3/5        0.750   1.000  0.750    0.500    0.750     0.600
r2        missing    0/1      0/0        0.000   -      0.000    0.000    0.000     0.000
mean (2)  4          3/5      3/5        0.375   1.000  0.375    0.250    0.375     0.300
judge: offline (claim overlap ≥ 0.42, support ≥ 0.60)
vital recall averaged over the 1 of 2 requests with vital nuggets
missing reports (scored 0): r2
no gold nuggets (not scored): r3
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestWriteReport(t *testing.T) {
	res := testResults(t)
	var b strings.Builder
	if err := WriteReport(&b, res.Requests[0]); err != nil {
		t.Fatal(err)
	}
	want := `request r1, run run-a
judge: offline (claim overlap ≥ 0.42, support ≥ 0.60)
nugget recall 0.750 (3/4), vital 1.000 (2/2)
nugget density 0.750, sentence novelty 0.500 (2/4), relevant sentences 0.750 (3/4)
citation support 0.600 (3/5)

coverage (nugget × sentence):
nugget 1 2 3 4
n1*    x x . .
n2*    x . . .
n3     . . x .
n4     . . . .

nuggets (* vital; covering sentences in brackets):
n1* [1 2] What will the barrier cost? — 12 million euros
n2* [1] When was it approved? — 3 May 2021
n3 [3] How long will building take? — three years
n4 [] Shop owners in Dortmund oppose the barrier.

1. The council approved the barrier on 3 May 2021 at a cost of 12 million euros.
   [d1#0] supported (provenance): 100% of the sentence's content words in the passage

2. The barrier will cost 12 million euros.
   [d1#0] supported (best passage): 100% of the sentence's content words in the passage
   [d2] unsupported (missing document): document not in the collection

3. Construction is expected to last three years.
   [d3#0] unsupported (best passage): 0% of the sentence's content words in the passage

4. Shop owners were sceptical.
   [d1#1] supported (best passage): 100% of the sentence's content words in the passage
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}

	b.Reset()
	if err := WriteReport(&b, res.Requests[1]); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "request r2: no report\n") || strings.Contains(got, "coverage (") ||
		!strings.Contains(got, "m1 [] x\n") {
		t.Errorf("missing report:\n%s", got)
	}
}

func TestWriteReportUndecided(t *testing.T) {
	unreadable := errors.New("unreadable")
	e := &Evaluator{Judge: failingJudge{marker: "Shop owners", err: wrapInvalid(unreadable)}, Source: testSource()}
	rr, err := e.EvaluateReport(context.Background(), testReport(), testGold())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReport(&b, rr); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"undecided verdicts (counted as no): 5\n", "n1*    x x . ?\n", "[d1#1] undecided (best passage): "} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteTableError(t *testing.T) {
	if err := WriteTable(errWriter{}, testResults(t)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error = %v", err)
	}
}
