package handlers

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

func TestCitedParts(t *testing.T) {
	// The passage is bytes 100-117 of its document; "é" is two bytes
	// (passage offsets 4-6).
	p := pipeline.Passage{DocID: "d", Ordinal: 2, Start: 100, End: 117, Text: "The é fact holds"}
	tests := []struct {
		name      string
		start     int
		end       int
		want      []views.Part
		wantShown bool
	}{
		{name: "inside", start: 107, end: 111, wantShown: true,
			want: []views.Part{{Text: "The é "}, {Text: "fact", Cite: true}, {Text: " holds"}}},
		{name: "whole passage", start: 100, end: 117, wantShown: true,
			want: []views.Part{{Text: "The é fact holds", Cite: true}}},
		{name: "starts before the passage", start: 90, end: 103, wantShown: true,
			want: []views.Part{{Text: "The", Cite: true}, {Text: " é fact holds"}}},
		{name: "ends after the passage", start: 112, end: 400, wantShown: true,
			want: []views.Part{{Text: "The é fact "}, {Text: "holds", Cite: true}}},
		{name: "start inside a character widens to it", start: 105, end: 107, wantShown: true,
			want: []views.Part{{Text: "The "}, {Text: "é ", Cite: true}, {Text: "fact holds"}}},
		{name: "end inside a character widens to it", start: 100, end: 105, wantShown: true,
			want: []views.Part{{Text: "The é", Cite: true}, {Text: " fact holds"}}},
		{name: "empty inside a character", start: 105, end: 105, want: []views.Part{{Text: "The é fact holds"}}},
		{name: "empty at the end", start: 117, end: 117, want: []views.Part{{Text: "The é fact holds"}}},
		{name: "before the passage", start: 10, end: 50, want: []views.Part{{Text: "The é fact holds"}}},
		{name: "after the passage", start: 200, end: 250, want: []views.Part{{Text: "The é fact holds"}}},
		{name: "reversed", start: 110, end: 104, want: []views.Part{{Text: "The é fact holds"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, shown := citedParts(p, pipeline.Citation{DocID: "d", Ordinal: 2, Start: tt.start, End: tt.end})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if shown != tt.wantShown {
				t.Errorf("shown = %t, want %t", shown, tt.wantShown)
			}
			joined := ""
			for _, part := range got {
				joined += part.Text
			}
			if joined != p.Text {
				t.Errorf("parts spell %q, want the passage %q", joined, p.Text)
			}
		})
	}
}

func TestBuildReportPageNumbersPassages(t *testing.T) {
	cite := func(doc string, ordinal int) pipeline.Sentence {
		return pipeline.Sentence{Citation: pipeline.Citation{DocID: doc, Ordinal: ordinal}}
	}
	rep := pipeline.Report{Sentences: []pipeline.Sentence{
		cite("a", 1), cite("b", 0), cite("a", 1), cite("a", 2), cite("b", 0), cite("c", 0),
	}}
	vm := buildReportPage(rep, map[string]citedDocument{"a": {Title: "A", Author: "Ada Lovelace", Date: "1843"}, "b": {Missing: true}})
	var refs []int
	for _, s := range vm.Sentences {
		refs = append(refs, s.Ref)
	}
	if diff := cmp.Diff([]int{1, 2, 1, 3, 2, 4}, refs); diff != "" {
		t.Errorf("citation numbers (-want +got):\n%s", diff)
	}
	want := []views.Reference{
		{Number: 1, Source: views.CitedSource{DocID: "a", Title: "A", Author: "Ada Lovelace", Date: "1843", Ordinal: 1, PassageMissing: true}},
		{Number: 2, Source: views.CitedSource{DocID: "b", Ordinal: 0, DocumentMissing: true}},
		{Number: 3, Source: views.CitedSource{DocID: "a", Title: "A", Author: "Ada Lovelace", Date: "1843", Ordinal: 2, PassageMissing: true}},
		{Number: 4, Source: views.CitedSource{DocID: "c", Ordinal: 0, PassageMissing: true}},
	}
	if diff := cmp.Diff(want, vm.References); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
}

func TestBuildNuggetBank(t *testing.T) {
	all := []pipeline.Nugget{
		{ID: "b", Rank: 2, Popularity: 1},
		{ID: "a", Rank: 1, Popularity: 2, Paraphrases: []string{"a2", "missing"}},
		{ID: "c", Popularity: 1, Paraphrases: []string{"c2"}},
		{ID: "a2"},
		{ID: "c2"},
		{ID: "orphan"},
	}
	rep := pipeline.Report{Sentences: []pipeline.Sentence{{NuggetID: "a"}, {NuggetID: "a"}}}
	cands := []pipeline.Candidate{{NuggetID: "b"}, {NuggetID: "a"}, {NuggetID: "b"}}
	vm := buildNuggetBank(rep, all, cands, []pipeline.RetrievedDoc{{DocID: "d", Title: "D"}, {DocID: "e"}}, nil)

	ids := func(ns []views.NuggetView) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids(vm.Kept)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, ids(vm.Unused)); diff != "" {
		t.Errorf("unused (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c"}, ids(vm.BelowCut)); diff != "" {
		t.Errorf("below the cut (-want +got):\n%s", diff)
	}
	if got := []int{vm.Kept[0].Sentences, vm.Kept[0].Candidates, vm.Kept[1].Sentences, vm.Kept[1].Candidates}; !cmp.Equal(got, []int{2, 1, 0, 2}) {
		t.Errorf("a's sentences and candidates, b's = %v, want [2 1 0 2]", got)
	}
	wantGroup := []views.Paraphrase{{ID: "a2", Nugget: pipeline.Nugget{ID: "a2"}, Found: true}, {ID: "missing"}}
	if diff := cmp.Diff(wantGroup, vm.Kept[0].Group); diff != "" {
		t.Errorf("a's group (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pipeline.Nugget{{ID: "orphan"}}, vm.Ungrouped); diff != "" {
		t.Errorf("ungrouped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"d": "D"}, vm.DocTitles); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
	if vm.Drafted != 6 {
		t.Errorf("drafted = %d, want 6", vm.Drafted)
	}
}

func TestParseReportForm(t *testing.T) {
	engines := []pipeline.EngineInfo{{ID: "offline", Offline: true}, {ID: "openai"}}
	tests := []struct {
		name       string
		form       string
		engines    []pipeline.EngineInfo
		wantReq    pipeline.Request
		wantSet    func(*pipeline.Settings)
		wantEngine string
		wantErrors pipeline.FieldErrors
	}{
		{
			name:       "nothing posted takes the defaults",
			form:       "",
			wantReq:    pipeline.Request{Limit: views.DefaultReportLimit},
			wantEngine: "offline",
		},
		{
			name:       "text trimmed and line breaks made LF",
			form:       "title=+T+&background=a%0D%0Ab%0Dc&problem_statement=%0D%0AP%0D%0A&request_id=+x+",
			wantReq:    pipeline.Request{ID: "x", Title: "T", Background: "a\nb\nc", ProblemStatement: "P", Limit: views.DefaultReportLimit},
			wantEngine: "offline",
		},
		{
			name:    "numbers and checkbox",
			form:    "limit=+300+&retrieve=7&ideation_docs=3&confidence_threshold=.25&verify=on&engine=openai",
			wantReq: pipeline.Request{Limit: 300},
			wantSet: func(s *pipeline.Settings) {
				s.Retrieve, s.IdeationDocs, s.ConfidenceThreshold, s.Verify = 7, 3, 0.25, true
			},
			wantEngine: "openai",
		},
		{
			name:    "bad numbers",
			form:    "limit=1.5&retrieve=&scan_candidates=3x&confidence_threshold=Inf&sentences_per_nugget=-",
			wantReq: pipeline.Request{Limit: views.DefaultReportLimit},
			wantErrors: pipeline.FieldErrors{
				"limit":                "must be a whole number, such as 2000",
				"retrieve":             "is required",
				"scan_candidates":      "must be a whole number, such as 3",
				"confidence_threshold": "must be a number from 0 to 1, such as 0.6 (0 sets it from the run's own confidences)",
				"sentences_per_nugget": "must be a whole number, such as 1",
			},
			wantEngine: "offline",
		},
		{
			name:       "verify off",
			form:       "verify=0",
			wantReq:    pipeline.Request{Limit: views.DefaultReportLimit},
			wantEngine: "offline",
		},
		{
			name:       "no engines",
			form:       "engine=offline",
			engines:    []pipeline.EngineInfo{},
			wantReq:    pipeline.Request{Limit: views.DefaultReportLimit},
			wantEngine: "offline",
			wantErrors: pipeline.FieldErrors{"engine": "is not available: no report engine is configured"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, err := url.ParseQuery(tt.form)
			if err != nil {
				t.Fatal(err)
			}
			e := engines
			if tt.engines != nil {
				e = tt.engines
			}
			sub := parseReportForm(form, e)
			if diff := cmp.Diff(tt.wantReq, sub.Request); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			wantSet := pipeline.DefaultSettings()
			if tt.wantSet != nil {
				tt.wantSet(&wantSet)
			}
			if diff := cmp.Diff(wantSet, sub.Settings); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if sub.Engine != tt.wantEngine {
				t.Errorf("engine = %q, want %q", sub.Engine, tt.wantEngine)
			}
			if diff := cmp.Diff(tt.wantErrors, sub.Errors, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStageClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	job := func(id int64, state pipeline.JobState, stage string, done, total int) pipeline.Job {
		return pipeline.Job{ID: id, State: state, Progress: pipeline.Progress{Stage: stage, Done: done, Total: total}}
	}
	type step struct {
		job  pipeline.Job
		at   time.Duration
		want views.StageEstimate
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "rate since first seen",
			steps: []step{
				{job(1, pipeline.JobRunning, "scan", 0, 10), 0, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "scan", 0, 10), 5 * time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "scan", 2, 10), 10 * time.Second, views.StageEstimate{Remaining: 40 * time.Second, Known: true}},
				{job(1, pipeline.JobRunning, "scan", 8, 10), 20 * time.Second, views.StageEstimate{Remaining: 5 * time.Second, Known: true}},
				{job(1, pipeline.JobRunning, "scan", 10, 10), 25 * time.Second, views.StageEstimate{Known: true}},
			},
		},
		{
			name: "first seen mid-stage",
			steps: []step{
				{job(1, pipeline.JobRunning, "rank", 30, 40), 0, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "rank", 35, 40), 10 * time.Second, views.StageEstimate{Remaining: 10 * time.Second, Known: true}},
			},
		},
		{
			name: "a new stage, a new total or going back starts over",
			steps: []step{
				{job(1, pipeline.JobRunning, "scan", 0, 10), 0, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "scan", 5, 10), 10 * time.Second, views.StageEstimate{Remaining: 10 * time.Second, Known: true}},
				{job(1, pipeline.JobRunning, "verify", 1, 4), 11 * time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "verify", 1, 6), 12 * time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "verify", 0, 6), 13 * time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "verify", 3, 6), 16 * time.Second, views.StageEstimate{Remaining: 3 * time.Second, Known: true}},
			},
		},
		{
			name: "jobs are apart; unfinished states other than running have no estimate",
			steps: []step{
				{job(1, pipeline.JobRunning, "scan", 0, 10), 0, views.StageEstimate{}},
				{job(2, pipeline.JobRunning, "scan", 0, 4), 0, views.StageEstimate{}},
				{job(2, pipeline.JobRunning, "scan", 1, 4), 3 * time.Second, views.StageEstimate{Remaining: 9 * time.Second, Known: true}},
				{job(1, pipeline.JobRunning, "scan", 1, 10), 4 * time.Second, views.StageEstimate{Remaining: 36 * time.Second, Known: true}},
				{job(3, pipeline.JobQueued, "", 0, 0), 4 * time.Second, views.StageEstimate{}},
			},
		},
		{
			name: "a finished job is forgotten",
			steps: []step{
				{job(1, pipeline.JobRunning, "scan", 0, 10), 0, views.StageEstimate{}},
				{job(1, pipeline.JobDone, "scan", 10, 10), 5 * time.Second, views.StageEstimate{}},
				// Requeued after a restart and running again: a fresh start.
				{job(1, pipeline.JobRunning, "scan", 4, 10), 6 * time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "scan", 6, 10), 8 * time.Second, views.StageEstimate{Remaining: 4 * time.Second, Known: true}},
			},
		},
		{
			name: "an idle job is forgotten",
			steps: []step{
				{job(1, pipeline.JobRunning, "scan", 0, 10), 0, views.StageEstimate{}},
				{job(2, pipeline.JobRunning, "scan", 0, 10), stageMarkTTL + time.Second, views.StageEstimate{}},
				{job(1, pipeline.JobRunning, "scan", 5, 10), stageMarkTTL + 2*time.Second, views.StageEstimate{}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c stageClock
			for i, s := range tt.steps {
				if got := c.observe(s.job, t0.Add(s.at)); got != s.want {
					t.Errorf("step %d: estimate = %+v, want %+v", i+1, got, s.want)
				}
			}
		})
	}
}
