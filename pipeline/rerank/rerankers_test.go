package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestLANCERSum(t *testing.T) {
	model := &scriptedModel{}
	r := mustNew(t, MethodLANCER, model, Options{})
	res := mustRerank(t, r, harbourInput())
	// Ratings (dredging, ferry): a covered topic 5, a mention of the
	// harbour 1, else 0. h1 (1,1)=2, h2 (5,1)=6, h3 (5,1)=6, h6 0, h4
	// (1,5)=6, h7 (0,5)=5 (no harbour), h8 0, h5 (5,5)=10. Sum with τ = 1
	// keeps every rating ≥ 1; ties keep first-stage order.
	want := []string{"h5", "h2", "h3", "h4", "h7", "h1", "h6", "h8"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	tr, ok := res.Trace.(LANCERTrace)
	if !ok {
		t.Fatalf("trace is %T, want LANCERTrace", res.Trace)
	}
	wantTrace := LANCERTrace{
		Aggregation: "sum",
		Questions:   []string{"How much will the dredging of the harbour cost?", "When will the new ferry line start?"},
		Depth:       8,
		Prefix:      8,
		Rows: []LANCERRow{
			{DocID: "h1", Title: "Harbour history", FirstStageRank: 1, Rank: 6, Ratings: []int{1, 1}, Score: 2},
			{DocID: "h2", Title: "Dredging budget", FirstStageRank: 2, Rank: 2, Ratings: []int{5, 1}, Score: 6},
			{DocID: "h3", Title: "Dredging delays", FirstStageRank: 3, Rank: 3, Ratings: []int{5, 1}, Score: 6},
			{DocID: "h6", Title: "Football", FirstStageRank: 4, Rank: 7, Ratings: []int{0, 0}, Score: 0},
			{DocID: "h4", Title: "Ferry timetable", FirstStageRank: 5, Rank: 4, Ratings: []int{1, 5}, Score: 6},
			{DocID: "h7", Title: "Ferry operator", FirstStageRank: 6, Rank: 5, Ratings: []int{0, 5}, Score: 5},
			{DocID: "h8", Title: "Weather", FirstStageRank: 7, Rank: 8, Ratings: []int{0, 0}, Score: 0},
			{DocID: "h5", Title: "Council decisions", FirstStageRank: 8, Rank: 1, Ratings: []int{5, 5}, Score: 10},
		},
	}
	if diff := cmp.Diff(wantTrace, tr); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	// One sub-question call, then 8 documents × 2 questions.
	if got, want := res.Usage, (pipeline.Usage{Calls: 17, PromptTokens: 170, CompletionTokens: 34}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
	if tasks := model.tasks(); tasks[0] != TaskSubQuestions || len(tasks) != 17 {
		t.Errorf("tasks = %v, want the sub-questions first and 17 calls", tasks)
	}
}

func TestLANCERGreedyCoverage(t *testing.T) {
	r := mustNew(t, MethodLANCER, &scriptedModel{}, Options{Aggregation: "greedy-coverage:tau=3"})
	res := mustRerank(t, r, harbourInput())
	// Cells [r ≥ 3]: h2, h3 (1,0); h4, h7 (0,1); h5 (1,1); others (0,0).
	// The queue is the stable ascending argsort of S reversed: h5, h7, h4,
	// h3, h2, h8, h6, h1. h5 gains 2 and covers both questions; nothing
	// else gains, so the queue follows.
	want := []string{"h5", "h7", "h4", "h3", "h2", "h8", "h6", "h1"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	tr := res.Trace.(LANCERTrace)
	if tr.Prefix != 1 || tr.Aggregation != "greedy-coverage:tau=3" {
		t.Errorf("prefix %d, aggregation %q; want 1, greedy-coverage:tau=3", tr.Prefix, tr.Aggregation)
	}
	for _, row := range tr.Rows {
		wantGain := 0.0
		if row.DocID == "h5" {
			wantGain = 2
		}
		if row.Gain != wantGain {
			t.Errorf("row %s gain %v, want %v", row.DocID, row.Gain, wantGain)
		}
	}
}

func TestLANCEROracle(t *testing.T) {
	model := &scriptedModel{}
	oracle := map[string][]string{"harbour-1": {"Who pays for the ferry line?", "  ", "What does the dredging cost?", "What else?"}}
	r := mustNew(t, MethodLANCER, model, Options{OracleQuestions: oracle, SubQuestions: 2})
	res := mustRerank(t, r, harbourInput())
	tr := res.Trace.(LANCERTrace)
	// Every non-blank oracle question is used, whatever n says.
	if diff := cmp.Diff([]string{"Who pays for the ferry line?", "What does the dredging cost?", "What else?"}, tr.Questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if !tr.Oracle {
		t.Error("trace does not say oracle")
	}
	if slices.Contains(model.tasks(), TaskSubQuestions) {
		t.Error("oracle mode asked the model for sub-questions")
	}
	if res.Usage.Calls != 8*3 {
		t.Errorf("calls = %d, want 24 (8 documents × 3 questions)", res.Usage.Calls)
	}
	if got := rankingIDs(res.Ranking)[0]; got != "h5" {
		t.Errorf("top document %s, want h5", got)
	}

	other := harbourInput()
	other.Request.ID = "unknown-request"
	_, err := r.Rerank(context.Background(), other)
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), `no oracle questions for request "unknown-request"`) {
		t.Errorf("request without oracle questions: err = %v, want ErrInvalid naming the request", err)
	}
}

func TestLANCERUnparsableAnswers(t *testing.T) {
	model := &scriptedModel{
		malformed: map[string]string{"h5": "I cannot tell from this document.", "h2": "**4**/5"},
		override:  map[pipeline.Task]string{TaskSubQuestions: "Here are the questions:\n- How much will the dredging cost?\n- How much will the dredging cost?\n- When will the ferry line start?\n- Who voted?"},
	}
	r := mustNew(t, MethodLANCER, model, Options{})
	res := mustRerank(t, r, harbourInput())
	tr := res.Trace.(LANCERTrace)
	if diff := cmp.Diff([]string{"How much will the dredging cost?", "When will the ferry line start?"}, tr.Questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	// h5's two answers are unreadable and count 0; h2 answers "**4**/5".
	if tr.Unparsable != 2 || len(tr.Failures) != 2 {
		t.Fatalf("unparsable %d, failures %v; want 2 and 2", tr.Unparsable, tr.Failures)
	}
	if f := tr.Failures[0]; f.Call != "rate h5 for sub-question 1" || f.Answer != "I cannot tell from this document." || !strings.Contains(f.Error, "no rating found") {
		t.Errorf("first failure = %+v", f)
	}
	rows := map[string][]int{}
	for _, row := range tr.Rows {
		rows[row.DocID] = row.Ratings
	}
	if diff := cmp.Diff(map[string][]int{"h5": {0, 0}, "h2": {4, 4}}, map[string][]int{"h5": rows["h5"], "h2": rows["h2"]}); diff != "" {
		t.Errorf("ratings (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"the model gave 3 sub-questions; the first 2 are used",
		"sub-question entry dropped (repeats an earlier entry): How much will the dredging cost?",
	}
	if diff := cmp.Diff(wantNotes, tr.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	// h2 (4,4)=8 now leads; h5 (0,0) sinks to the zeros, after h6 and
	// before h8 by first-stage order.
	want := []string{"h2", "h3", "h4", "h7", "h1", "h6", "h8", "h5"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
}

func TestLANCERNoSubQuestions(t *testing.T) {
	model := &scriptedModel{override: map[pipeline.Task]string{TaskSubQuestions: ""}}
	res := mustRerank(t, mustNew(t, MethodLANCER, model, Options{}), harbourInput())
	tr := res.Trace.(LANCERTrace)
	want := []string{"Harbour plans. What did the council decide about the harbour: the dredging costs and the new ferry line?"}
	if diff := cmp.Diff(want, tr.Questions); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if len(tr.Failures) != 1 || tr.Failures[0].Call != "sub-questions" || len(tr.Notes) != 1 {
		t.Errorf("failures %v, notes %v; want the sub-question failure and its note", tr.Failures, tr.Notes)
	}
}

func TestPointwise(t *testing.T) {
	tests := []struct {
		name       string
		model      *scriptedModel
		want       []string
		wantScores map[string]float64
		wantCounts [3]int // from logprobs, from answer, unparsable
	}{
		{
			// p = 0.2 + 0.3·topics: h5 0.8; h2, h3, h4, h7 0.5 (first-stage
			// order among them); h1, h6, h8 0.2.
			name:       "log-probabilities",
			model:      &scriptedModel{},
			want:       []string{"h5", "h2", "h3", "h4", "h7", "h1", "h6", "h8"},
			wantScores: map[string]float64{"h5": 0.8, "h2": 0.5, "h1": 0.2},
			wantCounts: [3]int{8, 0, 0},
		},
		{
			// Without log-probabilities the stated answers count: yes (p ≥
			// 0.5) is 1 for h2, h3, h4, h7, h5 in first-stage order.
			name:       "no log-probabilities",
			model:      &scriptedModel{noLogprobs: true},
			want:       []string{"h2", "h3", "h4", "h7", "h5", "h1", "h6", "h8"},
			wantScores: map[string]float64{"h5": 1, "h2": 1, "h1": 0},
			wantCounts: [3]int{0, 8, 0},
		},
		{
			// h2's answer is unreadable and has no log-probabilities: 0.
			name:       "unparsable",
			model:      &scriptedModel{malformed: map[string]string{"h2": "It depends on what the reporter wants."}},
			want:       []string{"h5", "h3", "h4", "h7", "h1", "h6", "h8", "h2"},
			wantScores: map[string]float64{"h2": 0},
			wantCounts: [3]int{7, 0, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRerank(t, mustNew(t, MethodPointwise, tt.model, Options{}), harbourInput())
			if diff := cmp.Diff(tt.want, rankingIDs(res.Ranking)); diff != "" {
				t.Errorf("ranking (-want +got):\n%s", diff)
			}
			tr := res.Trace.(PointwiseTrace)
			for _, row := range tr.Rows {
				if want, ok := tt.wantScores[row.DocID]; ok && math.Abs(row.Score-want) > 1e-9 {
					t.Errorf("%s score %v, want %v", row.DocID, row.Score, want)
				}
			}
			if got := [3]int{tr.FromLogprobs, tr.FromAnswer, tr.Unparsable}; got != tt.wantCounts {
				t.Errorf("sources (logprobs, answer, unparsable) = %v, want %v", got, tt.wantCounts)
			}
			if tt.wantCounts[2] != len(tr.Failures) {
				t.Errorf("failures %v, want %d", tr.Failures, tt.wantCounts[2])
			}
		})
	}
}

func TestListwiseWindowsBottomUp(t *testing.T) {
	model := &scriptedModel{}
	res := mustRerank(t, mustNew(t, MethodListwise, model, Options{WindowSize: 4, WindowStride: 2}), harbourInput())
	// Windows of 8 with size 4, stride 2: [4,8), [2,6), [0,4). The judge
	// orders by topic count, stably.
	//   [h1 h2 h3 h6 | h4 h7 h8 h5] → window [4,8) → h5 h4 h7 h8
	//   [h1 h2 | h3 h6 h5 h4 | h7 h8] → window [2,6) → h5 h3 h4 h6
	//   [h1 h2 h5 h3 | h4 h6 h7 h8] → window [0,4) → h5 h2 h3 h1
	want := []string{"h5", "h2", "h3", "h1", "h4", "h6", "h7", "h8"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	var shown [][]string
	for _, req := range model.requests {
		var ids []string
		for _, d := range req.Input.(ListwiseInput).Docs {
			ids = append(ids, d.ID)
		}
		shown = append(shown, ids)
	}
	wantShown := [][]string{{"h4", "h7", "h8", "h5"}, {"h3", "h6", "h5", "h4"}, {"h1", "h2", "h5", "h3"}}
	if diff := cmp.Diff(wantShown, shown); diff != "" {
		t.Errorf("windows shown to the model (-want +got):\n%s", diff)
	}
	wantTrace := ListwiseTrace{Depth: 8, WindowSize: 4, WindowStride: 2, Windows: []ListwiseWindow{
		{Start: 4, End: 8, Before: []string{"h4", "h7", "h8", "h5"}, After: []string{"h5", "h4", "h7", "h8"}, Ranked: 4, Complete: true},
		{Start: 2, End: 6, Before: []string{"h3", "h6", "h5", "h4"}, After: []string{"h5", "h3", "h4", "h6"}, Ranked: 4, Complete: true},
		{Start: 0, End: 4, Before: []string{"h1", "h2", "h5", "h3"}, After: []string{"h5", "h2", "h3", "h1"}, Ranked: 4, Complete: true},
	}}
	if diff := cmp.Diff(wantTrace, res.Trace); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestListwiseUnparsableWindowKeepsOrder(t *testing.T) {
	model := &scriptedModel{override: map[pipeline.Task]string{TaskListwise: "These documents are all equally useful."}}
	res := mustRerank(t, mustNew(t, MethodListwise, model, Options{}), harbourInput())
	if diff := cmp.Diff(harbourFirstStage, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	tr := res.Trace.(ListwiseTrace)
	if len(tr.Windows) != 1 || tr.Windows[0].Ranked != 0 || tr.Windows[0].Complete || len(tr.Failures) != 1 {
		t.Errorf("trace = %+v, want one incomplete window and one failure", tr)
	}
}

func TestSetwiseTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct{ m, setSize, topK int }{
		{8, 3, 3}, {30, 5, 10}, {30, 5, 30}, {17, 2, 5}, {1, 5, 10}, {5, 5, 1}, {50, 4, 7},
	} {
		t.Run(fmt.Sprintf("m%d_set%d_top%d", tc.m, tc.setSize, tc.topK), func(t *testing.T) {
			docs := make([]pipeline.Document, tc.m)
			cands := make([]Candidate, tc.m)
			score := map[string]float64{}
			for i, v := range rng.Perm(tc.m) {
				id := fmt.Sprintf("d%02d", i)
				docs[i] = pipeline.Document{ID: id, Title: id, Text: "text " + id}
				cands[i] = Candidate{ID: id}
				score[id] = float64(v)
			}
			model := &scriptedModel{setwiseScore: score}
			r := mustNew(t, MethodSetwise, model, Options{SetSize: tc.setSize, TopK: tc.topK})
			res := mustRerank(t, r, Input{Request: harbourRequest, Candidates: cands, Docs: newMemDocs(docs)})
			byScore := candidateIDs(cands)
			slices.SortStableFunc(byScore, func(a, b string) int { return int(score[b] - score[a]) })
			k := min(tc.topK, tc.m)
			got := rankingIDs(res.Ranking)
			if diff := cmp.Diff(byScore[:k], got[:k]); diff != "" {
				t.Errorf("top %d (-want +got):\n%s", k, diff)
			}
			// The rest keep first-stage order.
			var rest []string
			for _, c := range cands {
				if !slices.Contains(byScore[:k], c.ID) {
					rest = append(rest, c.ID)
				}
			}
			if diff := cmp.Diff(rest, got[k:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
			tr := res.Trace.(SetwiseTrace)
			if len(tr.Comparisons) != res.Usage.Calls {
				t.Errorf("%d comparisons traced, %d calls made", len(tr.Comparisons), res.Usage.Calls)
			}
			for _, c := range tr.Comparisons {
				if len(c.Docs) < 2 || len(c.Docs) > tc.setSize {
					t.Errorf("comparison of %d documents, want 2..%d", len(c.Docs), tc.setSize)
				}
			}
			for _, req := range model.requests {
				if n := len(req.Input.(SetwiseInput).Docs); n > tc.setSize {
					t.Errorf("a prompt showed %d documents, more than %d", n, tc.setSize)
				}
			}
		})
	}
}

func TestSetwiseHarbour(t *testing.T) {
	model := &scriptedModel{}
	res := mustRerank(t, mustNew(t, MethodSetwise, model, Options{TopK: 1}), harbourInput())
	// Arity 4 over 8: node 1 has children 5..7 (h7 h8 h5) and node 0 has
	// 1..4. Build: node 1 shows [h2 h7 h8 h5]; h5 (2 topics) wins and
	// swaps into node 1; h2 moves to node 7, a leaf. Node 0 shows [h1 h5
	// h3 h6 h4]; h5 wins and h1 sinks to node 1, which shows [h1 h7 h8
	// h2]: h7, the first with a topic, wins. Top 1 needs no extraction
	// sift.
	if got := rankingIDs(res.Ranking)[0]; got != "h5" {
		t.Errorf("top = %s, want h5", got)
	}
	wantComparisons := []SetwiseComparison{
		{Phase: "build", Docs: []string{"h2", "h7", "h8", "h5"}, Winner: "h5"},
		{Phase: "build", Docs: []string{"h1", "h5", "h3", "h6", "h4"}, Winner: "h5"},
		{Phase: "build", Docs: []string{"h1", "h7", "h8", "h2"}, Winner: "h7"},
	}
	tr := res.Trace.(SetwiseTrace)
	if diff := cmp.Diff(wantComparisons, tr.Comparisons); diff != "" {
		t.Errorf("comparisons (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"h5", "h1", "h2", "h3", "h6", "h4", "h7", "h8"}, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
}

func TestSetwiseUnparsableKeepsNode(t *testing.T) {
	model := &scriptedModel{override: map[pipeline.Task]string{TaskSetwise: "Both seem relevant to me."}}
	res := mustRerank(t, mustNew(t, MethodSetwise, model, Options{TopK: 2}), harbourInput())
	// No comparison moves anything: the heap stays in first-stage order,
	// h1 is taken first; h5 (last) replaces it at the root and stays.
	if diff := cmp.Diff([]string{"h1", "h5"}, rankingIDs(res.Ranking)[:2]); diff != "" {
		t.Errorf("top 2 (-want +got):\n%s", diff)
	}
	if tr := res.Trace.(SetwiseTrace); len(tr.Failures) != res.Usage.Calls || len(tr.Failures) == 0 {
		t.Errorf("%d failures for %d calls; want one per call", len(tr.Failures), res.Usage.Calls)
	}
}

func TestSetR(t *testing.T) {
	model := &scriptedModel{}
	res := mustRerank(t, mustNew(t, MethodSetR, model, Options{}), harbourInput())
	if res.Selected != 1 {
		t.Errorf("selected %d, want 1", res.Selected)
	}
	// h5 covers both requirements; the rest follow in first-stage order.
	want := []string{"h5", "h1", "h2", "h3", "h6", "h4", "h7", "h8"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	wantTrace := SetRTrace{
		Depth: 8,
		Requirements: []SetRTraceRequirement{
			{Text: "The cost of dredging", DocIDs: []string{"h2", "h3", "h5"}},
			{Text: "The new ferry line", DocIDs: []string{"h4", "h7", "h5"}},
		},
		Selected: []string{"h5"},
	}
	if diff := cmp.Diff(wantTrace, res.Trace); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if n := len(model.requests); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
}

func TestSetRSelectionProblems(t *testing.T) {
	tests := []struct {
		name         string
		answer       string
		wantSelected int
		wantTop      []string
		wantFailures int
		wantRepeated int
	}{
		{"no selection line", "### Requirements\n1. Dredging\n### Documents per requirement\n1: [2]", 0, []string{"h1", "h2"}, 1, 0},
		{"none selected", "### Final Selection: none", 0, []string{"h1", "h2"}, 1, 0},
		{"repeats and out of range", "**Final selection:** [5], [2], [5], [12]", 2, []string{"h4", "h2", "h1"}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &scriptedModel{override: map[pipeline.Task]string{TaskSetR: tt.answer}}
			res := mustRerank(t, mustNew(t, MethodSetR, model, Options{}), harbourInput())
			if res.Selected != tt.wantSelected {
				t.Errorf("selected %d, want %d", res.Selected, tt.wantSelected)
			}
			if diff := cmp.Diff(tt.wantTop, rankingIDs(res.Ranking)[:len(tt.wantTop)]); diff != "" {
				t.Errorf("top (-want +got):\n%s", diff)
			}
			tr := res.Trace.(SetRTrace)
			if len(tr.Failures) != tt.wantFailures || tr.Repeated != tt.wantRepeated {
				t.Errorf("failures %v, repeated %d; want %d and %d", tr.Failures, tr.Repeated, tt.wantFailures, tt.wantRepeated)
			}
		})
	}
}

func TestPureCover(t *testing.T) {
	// Requirements: dredging weight 4, ferry weight 2: P(e|q) = 2/3, 1/3.
	// Judgements p = 0.95 for a covering document, else 0.05, so the
	// log-odds are ±ln 19 and at temperature 1 (the default) P(d|e) is the
	// odds share:
	// dredging is covered by h2, h3, h5 (odds 19 each) against five
	// documents of odds 1/19: P = 19/(57 + 5/19) = 0.331803 for the
	// three, 0.000919 for the others; the ferry likewise with h4, h7, h5.
	const (
		sup   = 19 / (57 + 5.0/19)
		other = (1.0 / 19) / (57 + 5.0/19)
		wA    = 2.0 / 3
		wB    = 1.0 / 3
	)
	// h5's noise: 1 − max(sup·2/3, sup·1/3) = 1 − sup·2/3.
	noise5 := 1 - sup*wA
	lambda0, lambda3 := 0.0, 0.3
	tests := []struct {
		name      string
		opts      Options
		wantIDs   []string
		wantSteps []PureCoverStep
		stopped   bool
	}{
		{
			// λ = 0.3: h5 gains sup·(2/3 + 1/3) − 0.3·noise5 = 0.331803 −
			// 0.233618 = 0.098185. Then h2 would gain (2/3)(1 − sup)·sup +
			// (1/3)(1 − sup)·other − 0.3·(1 − sup·2/3) < 0: stop.
			name:    "lambda 0.3",
			opts:    Options{Lambda: &lambda3},
			wantIDs: []string{"h5"},
			wantSteps: []PureCoverStep{
				{DocID: "h5", Gain: sup - 0.3*noise5, Coverage: sup, Noise: noise5, Objective: sup - 0.3*noise5},
			},
			stopped: true,
		},
		{
			// λ = 0, K = 2: h5 gains sup; then h2 and h3 tie on the
			// dredging residual (1 − sup)·sup·2/3 plus (1 − sup)·other/3
			// and the earlier, h2, wins over h4's (1 − sup)·sup/3.
			name:    "pure coverage",
			opts:    Options{Lambda: &lambda0, CoverK: 2, Temperature: 1},
			wantIDs: []string{"h5", "h2"},
			wantSteps: []PureCoverStep{
				{DocID: "h5", Gain: sup, Coverage: sup, Noise: noise5, Objective: sup},
				{
					DocID: "h2", Gain: (1-sup)*sup*wA + (1-sup)*other*wB,
					Coverage:  wA*(1-(1-sup)*(1-sup)) + wB*(1-(1-sup)*(1-other)),
					Noise:     noise5 + 1 - sup*wA,
					Objective: wA*(1-(1-sup)*(1-sup)) + wB*(1-(1-sup)*(1-other)),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRerank(t, mustNew(t, MethodPureCover, &scriptedModel{}, tt.opts), harbourInput())
			if diff := cmp.Diff(tt.wantIDs, rankingIDs(res.Ranking)[:res.Selected]); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
			tr := res.Trace.(PureCoverTrace)
			if diff := cmp.Diff(tt.wantSteps, tr.Steps, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if tr.StoppedEarly != tt.stopped {
				t.Errorf("stopped early = %v, want %v", tr.StoppedEarly, tt.stopped)
			}
			wantReqs := []PureCoverRequirement{
				{Text: "The cost of dredging the harbour", Weight: 4, P: wA},
				{Text: "The new ferry line", Weight: 2, P: wB},
			}
			if diff := cmp.Diff(wantReqs, tr.Requirements, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("requirements (-want +got):\n%s", diff)
			}
			if tr.FromLogprobs != 16 || tr.Unparsable != 0 {
				t.Errorf("judgements from logprobs %d, unparsable %d; want 16 and 0", tr.FromLogprobs, tr.Unparsable)
			}
			for _, row := range tr.Rows {
				if row.DocID != "h5" {
					continue
				}
				want := PureCoverRow{DocID: "h5", Title: "Council decisions", FirstStageRank: 8, Rank: 1,
					Yes: []float64{0.95, 0.95}, Support: []float64{sup, sup}, Noise: noise5, Selected: true}
				if diff := cmp.Diff(want, row, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
					t.Errorf("h5 row (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestPureCoverDefaultLambda(t *testing.T) {
	// The judgements of TestPureCover: sup = 0.331801 for a covering
	// document, other = 0.000919; P(e|q) = 2/3 (dredging: h2, h3, h5) and
	// 1/3 (ferry: h4, h7, h5). λ = 0.05; a document's noise is 1 −
	// max_e P(d|e)·P(e|q): 0.778799 for h2, h3, h5, 0.889400 for h4, h7.
	//   1. h5: sup − 0.05·0.778799 = 0.292862.
	//   2. h2 (first of h2, h3): (2/3)(1 − sup)·sup + (1/3)(1 − sup)·other
	//      − 0.038940 = 0.148011 − 0.038940 = 0.109071; h4 only 0.074312
	//      − 0.044470 = 0.029842.
	//   3. h3: (2/3)(1 − sup)²·sup + … = 0.098968 − 0.038940 = 0.060028.
	//   4. h4 (before h7): the ferry residual is (1 − sup)(1 − other)² =
	//      0.666972: (1/3)·0.666972·sup + (2/3)(1 − sup)³·other = 0.073767
	//      + 0.000183 − 0.044470 = 0.029480.
	//   5. h7: (1/3)·0.666972·(1 − sup)·sup + … = 0.049291 + 0.000183 −
	//      0.044470 = 0.005004 > 0. K = 5 ends the set; h1, h6 and h8
	//      would lose about λ.
	res := mustRerank(t, mustNew(t, MethodPureCover, &scriptedModel{}, Options{}), harbourInput())
	if diff := cmp.Diff([]string{"h5", "h2", "h3", "h4", "h7"}, rankingIDs(res.Ranking)[:res.Selected]); diff != "" {
		t.Errorf("selection (-want +got):\n%s", diff)
	}
	tr := res.Trace.(PureCoverTrace)
	if len(tr.Steps) != 5 || math.Abs(tr.Steps[3].Gain-0.029480) > 1e-6 || math.Abs(tr.Steps[4].Gain-0.005004) > 1e-6 {
		t.Errorf("steps %+v; want five, the last two gaining 0.029480 and 0.005004", tr.Steps)
	}
}

func TestPureCoverFallbacks(t *testing.T) {
	model := &scriptedModel{
		override:   map[pipeline.Task]string{TaskRequirements: "- dredging costs\n- (weight 2) ferry line"},
		noLogprobs: true,
		malformed:  map[string]string{"h6": "unclear"},
	}
	res := mustRerank(t, mustNew(t, MethodPureCover, model, Options{}), harbourInput())
	tr := res.Trace.(PureCoverTrace)
	if tr.K != DefaultCoverK || tr.Lambda != DefaultCoverLambda || tr.Temperature != DefaultSupportTemperature || tr.Depth != 8 {
		t.Errorf("trace settings K %d, λ %v, T %v, depth %d; want the defaults 5, 0.05, 1 and 8", tr.K, tr.Lambda, tr.Temperature, tr.Depth)
	}
	// The first requirement has no weight: 3, so P = 3/5 and 2/5.
	wantReqs := []PureCoverRequirement{{Text: "dredging costs", Weight: 3, P: 0.6}, {Text: "ferry line", Weight: 2, P: 0.4}}
	if diff := cmp.Diff(wantReqs, tr.Requirements, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("requirements (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"weight of requirement 1 was missing; it was set to the default weight"}, tr.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	// 16 judgements: h6's two are unreadable, the rest fall back to the
	// stated answers.
	if tr.FromLogprobs != 0 || tr.FromAnswer != 14 || tr.Unparsable != 2 || len(tr.Failures) != 2 {
		t.Errorf("sources %d/%d/%d, failures %d; want 0/14/2 and 2", tr.FromLogprobs, tr.FromAnswer, tr.Unparsable, len(tr.Failures))
	}
	if res.Selected < 1 || res.Ranking[0].ID != "h5" {
		t.Errorf("selection %v (%d), want h5 first", rankingIDs(res.Ranking)[:res.Selected], res.Selected)
	}
}

func TestPureCoverNoRequirements(t *testing.T) {
	model := &scriptedModel{override: map[pipeline.Task]string{TaskRequirements: "Sorry, I can't help with that."}}
	res := mustRerank(t, mustNew(t, MethodPureCover, model, Options{}), harbourInput())
	tr := res.Trace.(PureCoverTrace)
	want := []PureCoverRequirement{{
		Text:   "Harbour plans. What did the council decide about the harbour: the dredging costs and the new ferry line?",
		Weight: DefaultRequirementWeight, P: 1,
	}}
	if diff := cmp.Diff(want, tr.Requirements); diff != "" {
		t.Errorf("requirements (-want +got):\n%s", diff)
	}
	if len(tr.Failures) != 1 || tr.Failures[0].Call != "requirements" {
		t.Errorf("failures = %v, want the requirements failure", tr.Failures)
	}
}

// TestCoverageMethodsPutBothTopicsFirst checks, on the harbour set, that
// the coverage methods rank the one document covering both sub-topics
// first although the first stage ranked it last.
func TestCoverageMethodsPutBothTopicsFirst(t *testing.T) {
	for _, method := range []string{MethodLANCER, MethodSetR, MethodPureCover, MethodPointwise, MethodListwise, MethodSetwise} {
		t.Run(method, func(t *testing.T) {
			res := mustRerank(t, mustNew(t, method, &scriptedModel{}, Options{}), harbourInput())
			if got := res.Ranking[0].ID; got != "h5" {
				t.Errorf("top document %s, want h5", got)
			}
			if res.Method != method {
				t.Errorf("result method %q, want %q", res.Method, method)
			}
		})
	}
}

func TestModelErrorsNameMethodAndDocument(t *testing.T) {
	tests := []struct {
		method string
		want   string
	}{
		{MethodLANCER, `lancer: rate document "h3" for sub-question `},
		{MethodPointwise, `pointwise: judge document "h3": model call failed: HTTP 500`},
		{MethodListwise, `listwise: window [0,8): rank documents "h1" … "h5" (8 documents): model call failed`},
		{MethodSetwise, `setwise: compare documents "h1" … "h4" (5 documents): model call failed`},
		{MethodSetR, `setr: select among documents "h1" … "h5" (8 documents): model call failed`},
		{MethodPureCover, `purecover: judge document "h3" for requirement `},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			model := &scriptedModel{failDoc: "h3"}
			_, err := mustNew(t, tt.method, model, Options{}).Rerank(context.Background(), harbourInput())
			if !errors.Is(err, pipeline.ErrModel) {
				t.Fatalf("err = %v, want one wrapping ErrModel", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSetwiseErrorNamesFailingComparison(t *testing.T) {
	// h8 is first shown in the build's first comparison, node 1's.
	_, err := mustNew(t, MethodSetwise, &scriptedModel{failDoc: "h8"}, Options{}).Rerank(context.Background(), harbourInput())
	want := `setwise: compare documents "h2" … "h5" (4 documents): model call failed: HTTP 500 from the endpoint`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestCancellation(t *testing.T) {
	for _, method := range Methods() {
		t.Run(method, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			model := &scriptedModel{onCall: func() {
				calls++
				cancel()
			}}
			r := mustNew(t, method, model, Options{Concurrency: 1})
			_, err := r.Rerank(ctx, harbourInput())
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if !strings.HasPrefix(err.Error(), method+":") {
				t.Errorf("err = %q, want it to name the method", err)
			}
			if calls != 1 {
				t.Errorf("%d model calls after cancellation, want 1 (the call that cancelled)", calls)
			}
		})
	}
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		model := &scriptedModel{}
		_, err := mustNew(t, MethodPointwise, model, Options{}).Rerank(ctx, harbourInput())
		if !errors.Is(err, context.Canceled) || len(model.requests) != 0 {
			t.Errorf("err = %v after %d calls, want context.Canceled and no call", err, len(model.requests))
		}
	})
}

func TestInvalidInput(t *testing.T) {
	r := mustNew(t, MethodPointwise, &scriptedModel{}, Options{})
	tests := []struct {
		name   string
		edit   func(*Input)
		target error
		want   string
	}{
		{"no request text", func(in *Input) { in.Request.Title, in.Request.ProblemStatement = " ", "" }, pipeline.ErrInvalid, "neither title nor problem statement"},
		{"no document source", func(in *Input) { in.Docs = nil }, pipeline.ErrInvalid, "no document source"},
		{"repeated candidate", func(in *Input) { in.Candidates[3].ID = "h1" }, pipeline.ErrInvalid, `candidate id "h1" appears at positions 0 and 3`},
		{"missing document", func(in *Input) { in.Candidates[2].ID = "gone" }, pipeline.ErrNotFound, `pointwise: load document "gone"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harbourInput()
			tt.edit(&in)
			_, err := r.Rerank(context.Background(), in)
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %v containing %q", err, tt.target, tt.want)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	negative := -0.1
	tests := []struct {
		name   string
		method string
		opts   Options
		want   string
	}{
		{"unknown method", "bm25", Options{}, `unknown reranker "bm25"`},
		{"aggregation", MethodLANCER, Options{Aggregation: "mean"}, `unknown aggregation strategy "mean"`},
		{"sub-questions", MethodLANCER, Options{SubQuestions: 11}, "sub-question count 11"},
		{"stride", MethodListwise, Options{WindowSize: 5, WindowStride: 6}, "stride 6"},
		{"set size", MethodSetwise, Options{SetSize: 27}, "set size 27"},
		{"top k", MethodSetwise, Options{TopK: -1}, "top k -1"},
		{"lambda", MethodPureCover, Options{Lambda: &negative}, "lambda -0.1"},
		{"temperature", MethodPureCover, Options{Temperature: -1}, "temperature -1"},
		{"depth", MethodSetR, Options{Depth: -3}, "depth -3"},
		{"requirements", MethodPureCover, Options{Requirements: 11}, "requirement count 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.method, &scriptedModel{}, tt.opts)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	if _, err := New(MethodLANCER, nil, Options{}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("nil model: err = %v, want ErrInvalid", err)
	}
	// Options of other methods are not read: a bad set size does not stop
	// LANCER.
	if _, err := New(" LANCER ", &scriptedModel{}, Options{SetSize: 99}); err != nil {
		t.Errorf("LANCER with a setwise option out of range: %v", err)
	}
}

func TestDepthBudgetAndPassages(t *testing.T) {
	model := &scriptedModel{}
	in := harbourInput()
	in.Passages = map[string]string{"h6": "The ferry line and the dredging of the harbour were not discussed at the match."}
	var progress [][2]int
	in.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
	res := mustRerank(t, mustNew(t, MethodPointwise, model, Options{Depth: 4, DocChars: 40}), in)
	// Only h1, h2, h3, h6 are judged; with its passage h6 covers both
	// topics and leads; h4, h7, h8, h5 keep their order.
	want := []string{"h6", "h2", "h3", "h1", "h4", "h7", "h8", "h5"}
	if diff := cmp.Diff(want, rankingIDs(res.Ranking)); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	shown := map[string]string{}
	for _, req := range model.requests {
		d := req.Input.(PointwiseInput).Doc
		shown[d.ID] = d.Text
	}
	// 40 characters, cut back to a word boundary, marked " …".
	wantShown := map[string]string{
		"h1": "The harbour was built in 1820 and has …",
		"h2": "The council set aside 4 million for …",
		"h3": "Dredging of the harbour will start late …",
		"h6": "The ferry line and the dredging of the …",
	}
	if diff := cmp.Diff(wantShown, shown); diff != "" {
		t.Errorf("texts shown (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestNoCandidates(t *testing.T) {
	for _, method := range Methods() {
		t.Run(method, func(t *testing.T) {
			model := &scriptedModel{}
			in := harbourInput()
			in.Candidates = nil
			res := mustRerank(t, mustNew(t, method, model, Options{}), in)
			if len(res.Ranking) != 0 || res.Usage.Calls != 0 || len(model.requests) != 0 {
				t.Errorf("result %+v after %d calls, want an empty ranking and no call", res, len(model.requests))
			}
		})
	}
}

func TestTraceJSONRoundTrip(t *testing.T) {
	for _, method := range Methods() {
		t.Run(method, func(t *testing.T) {
			res := mustRerank(t, mustNew(t, method, &scriptedModel{malformed: map[string]string{"h1": "??"}}, Options{}), harbourInput())
			data, err := json.Marshal(res.Trace)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeTrace(method, data)
			if err != nil {
				t.Fatalf("DecodeTrace: %v", err)
			}
			if diff := cmp.Diff(res.Trace, back, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(data), `"depth":`) {
				t.Errorf("JSON %s has no snake_case depth key", data)
			}
		})
	}
	if _, err := DecodeTrace(MethodSetR, []byte(`{"depth": 3, "rows": []}`)); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("a LANCER-shaped trace decoded as SetR: err = %v, want ErrInvalid", err)
	}
	if _, err := DecodeTrace("bm25", []byte(`{}`)); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("unknown method: err = %v, want ErrInvalid", err)
	}
}
