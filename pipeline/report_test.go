package pipeline_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestRequestValidate(t *testing.T) {
	good := pipeline.Request{ID: "r1", Title: "Tariffs", ProblemStatement: "How did tariff policy change?", Limit: 2000}
	if err := good.Validate(); err != nil {
		t.Fatalf("good request: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*pipeline.Request)
		fields []string
	}{
		{"empty title and statement", func(r *pipeline.Request) { r.Title, r.ProblemStatement = " ", "" }, []string{"problem_statement", "title"}},
		{"limit zero", func(r *pipeline.Request) { r.Limit = 0 }, []string{"limit"}},
		{"limit absurd", func(r *pipeline.Request) { r.Limit = 1 << 30 }, []string{"limit"}},
		{"huge background", func(r *pipeline.Request) { r.Background = strings.Repeat("x", pipeline.MaxRequestFieldChars+1) }, []string{"background"}},
		{"bad id", func(r *pipeline.Request) { r.ID = "a/b" }, []string{"request_id"}},
		{"invalid utf8", func(r *pipeline.Request) { r.Title = "caf\xe9" }, []string{"title"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			tc.mutate(&r)
			err := r.Validate()
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			var fe pipeline.FieldErrors
			if !errors.As(err, &fe) {
				t.Fatalf("err %T is not FieldErrors", err)
			}
			var got []string
			for k := range fe {
				got = append(got, k)
			}
			if diff := cmp.Diff(tc.fields, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("fields (-want +got)\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := pipeline.DefaultSettings().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	s := pipeline.DefaultSettings()
	s.IdeationDocs = 200
	s.ConfidenceThreshold = 2
	err := s.Validate()
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), "ideation_docs") || !strings.Contains(err.Error(), "confidence_threshold") {
		t.Errorf("err = %v", err)
	}
}

func TestReportLengthAndUsage(t *testing.T) {
	r := pipeline.Report{Sentences: []pipeline.Sentence{{Text: "Ab."}, {Text: "Çd."}}}
	if got := r.Length(); got != 7 {
		t.Errorf("Length = %d, want 7", got)
	}
	var u pipeline.Usage
	u.Add(pipeline.ModelResponse{PromptTokens: 10, CompletionTokens: 2})
	u.Add(pipeline.ModelResponse{PromptTokens: 10, CompletionTokens: 2, Cached: true})
	if u != (pipeline.Usage{Calls: 2, CacheHits: 1, PromptTokens: 20, CompletionTokens: 4}) {
		t.Errorf("usage = %+v", u)
	}
}

func TestSettingsHeuristics(t *testing.T) {
	on, off := true, false
	def := pipeline.Heuristics{PreferPeriod: true}
	s := pipeline.DefaultSettings()
	if got := s.Heuristics(def); got != def {
		t.Errorf("unset rules = %+v, want the engine's %+v", got, def)
	}
	s.PreferPeriod, s.SpreadSources = &off, &on
	if got, want := s.Heuristics(def), (pipeline.Heuristics{SpreadSources: true}); got != want {
		t.Errorf("chosen rules = %+v, want %+v", got, want)
	}
	r := pipeline.DefaultSettings().WithHeuristics(def)
	if r.PreferPeriod == nil || !*r.PreferPeriod || r.PassageScores == nil || *r.PassageScores || r.SpreadSources == nil {
		t.Errorf("WithHeuristics left %+v", r)
	}
	// Settings stored before the rules existed read as the engine's
	// default, and unset rules are not written.
	var old pipeline.Settings
	if err := json.Unmarshal([]byte(`{"Retrieve":100,"KeepNuggets":20}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.PreferPeriod != nil || old.PassageScores != nil || old.SpreadSources != nil {
		t.Errorf("old settings decode with rules set: %+v", old)
	}
	b, _ := json.Marshal(pipeline.DefaultSettings())
	if strings.Contains(string(b), "PreferPeriod") {
		t.Errorf("unset rule written: %s", b)
	}
}

// TestRunNotes: a report's problems read as notes with their stage and
// text capitalised; a problem without a one-word stage stays whole.
func TestRunNotes(t *testing.T) {
	r := pipeline.Report{Problems: []string{
		"subject: only 9 of the request's 100 best passages speak of its subject",
		"assemble: none of the 4 candidate sentences cites one of the request's best passages: the report is empty",
		"Extract 2: no stage here",
		"no colon at all",
		"asked: is it a question?",
	}}
	want := []pipeline.RunNote{
		{Stage: "Subject", Text: "Only 9 of the request's 100 best passages speak of its subject."},
		{Stage: "Assemble", Text: "None of the 4 candidate sentences cites one of the request's best passages: the report is empty."},
		{Text: "Extract 2: no stage here."},
		{Text: "no colon at all."},
		{Stage: "Asked", Text: "Is it a question?"},
	}
	if got := r.RunNotes(); !cmp.Equal(got, want) {
		t.Errorf("RunNotes() = %+v\nwant %+v", got, want)
	}
	if got := (pipeline.Report{}).RunNotes(); len(got) != 0 {
		t.Errorf("RunNotes() of a report without problems = %+v", got)
	}
}
