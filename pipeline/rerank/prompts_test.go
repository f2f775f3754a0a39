package rerank

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

var update = flag.Bool("update", false, "rewrite testdata/prompts/*.golden from the current prompts")

var promptRequest = RequestInfo(harbourRequest)

var promptDocs = []PromptDoc{
	{ID: "h2", Title: "Dredging budget", Text: "The council set aside 4 million for dredging the harbour channel."},
	{ID: "h4", Title: "Ferry timetable", Text: "The new ferry line will run hourly from the harbour to the island."},
	{ID: "h6", Title: "", Text: ""},
}

// builderCases has one request of every task.
func builderCases() []struct {
	name     string
	req      pipeline.ModelRequest
	task     pipeline.Task
	logprobs bool
	contains []string
} {
	return []struct {
		name     string
		req      pipeline.ModelRequest
		task     pipeline.Task
		logprobs bool
		contains []string
	}{
		{"subquestions", BuildSubQuestions(SubQuestionsInput{Request: promptRequest, N: 3}), TaskSubQuestions, false,
			[]string{"split the request into 3 sub-questions", "3. Which groups object", "Title: Harbour plans"}},
		{"rate", BuildRate(RateInput{Request: promptRequest, Question: "How much will the dredging cost?", Doc: promptDocs[0]}), TaskRate, false,
			[]string{"Question: Harbour plans. What did the council decide about the harbour: the dredging costs and the new ferry line? How much will the dredging cost?",
				`Document (title: "Dredging budget")`, "Rating: 3"}},
		{"pointwise", BuildPointwise(PointwiseInput{Request: promptRequest, Doc: promptDocs[1]}), TaskPointwise, true,
			[]string{"Background: A reporter for the local paper.", "<document>\nThe new ferry line", "either\n\nyes\n\nor\n\nno"}},
		{"listwise", BuildListwise(ListwiseInput{Request: promptRequest, Docs: promptDocs}), TaskListwise, false,
			[]string{"Below are 3 documents", "[3]\n<document>\n(no text)\n</document>", "[2] > [4] > [1] > [3]"}},
		{"setwise", BuildSetwise(SetwiseInput{Request: promptRequest, Docs: promptDocs}), TaskSetwise, false,
			[]string{"labelled A to C", "Document C\n<document>", "a single letter. For example:\n\nB\n"}},
		{"setr", BuildSetR(SetRInput{Request: promptRequest, Docs: promptDocs}), TaskSetR, false,
			[]string{"[1] to [3]", "### Documents per requirement\n1: [2] [5]\n2: [5]\n3: none\n### Final Selection: [5]"}},
		{"requirements", BuildRequirements(RequirementsInput{Request: promptRequest, Max: 4, Docs: promptDocs}), TaskRequirements, false,
			[]string{"Give at most 4", "1. (weight 5) Which flood barrier", "The search found these 3 documents", `[1] (title: "Dredging budget")`,
				"not what one document happens to say"}},
		{"support", BuildSupport(SupportInput{Request: promptRequest, Requirement: "The cost of dredging", Doc: promptDocs[0]}), TaskSupport, true,
			[]string{"One piece of information the report needs: The cost of dredging", "gives that information"}},
	}
}

func TestBuildRequests(t *testing.T) {
	for _, tt := range builderCases() {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			if req.Task != tt.task || req.Logprobs != tt.logprobs || req.Temperature != 0 || req.MaxTokens <= 0 {
				t.Errorf("task %q, logprobs %v, temperature %v, max tokens %d; want %q, %v, 0, > 0",
					req.Task, req.Logprobs, req.Temperature, req.MaxTokens, tt.task, tt.logprobs)
			}
			if req.Input == nil {
				t.Error("the request carries no structured input")
			}
			if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
				t.Fatalf("messages = %+v, want a system and a user message", req.Messages)
			}
			user := req.Messages[1].Content
			for _, s := range tt.contains {
				if !strings.Contains(user, s) {
					t.Errorf("user message lacks %q:\n%s", s, user)
				}
			}
			if !strings.HasSuffix(user, rerankClosingLine) {
				t.Error("user message does not end with the closing line")
			}
			golden := filepath.Join("testdata", "prompts", tt.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(user), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), user); diff != "" {
				t.Errorf("prompt differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func TestTasksAreDistinct(t *testing.T) {
	seen := map[pipeline.Task]bool{}
	for _, task := range append(Tasks(), append(prompts.Tasks(), prompts.JudgeTasks()...)...) {
		if seen[task] {
			t.Errorf("task %q is listed twice", task)
		}
		seen[task] = true
	}
}

func TestBuildClampsCounts(t *testing.T) {
	if in := BuildSubQuestions(SubQuestionsInput{Request: promptRequest, N: 0}).Input.(SubQuestionsInput); in.N != 1 {
		t.Errorf("sub-questions N 0 became %d, want 1", in.N)
	}
	if in := BuildSubQuestions(SubQuestionsInput{Request: promptRequest, N: 99}).Input.(SubQuestionsInput); in.N != MaxSubQuestions {
		t.Errorf("sub-questions N 99 became %d, want %d", in.N, MaxSubQuestions)
	}
	if in := BuildRequirements(RequirementsInput{Request: promptRequest, Max: -4}).Input.(RequirementsInput); in.Max != 1 {
		t.Errorf("requirements Max -4 became %d, want 1", in.Max)
	}
}

func TestParseSubQuestions(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    []string
		skipped int
	}{
		{"canonical", "1. What did it cost?\n2. Who objects?", []string{"What did it cost?", "Who objects?"}, 0},
		{"prose and bullets", "Sure! Here they are:\n\n- **What did it cost?**\n- Who objects?\n\nHope this helps.", []string{"What did it cost?", "Who objects?"}, 0},
		{"labels", "Sub-question 1: What did it cost?\nQ2: Who objects?", []string{"What did it cost?", "Who objects?"}, 0},
		{"code fence and think", "<think>1. wrong?</think>\n```\n1) What did it cost?\n(2) Who objects?\n```", []string{"What did it cost?", "Who objects?"}, 0},
		{"json strings", `["What did it cost?", "Who objects?"]`, []string{"What did it cost?", "Who objects?"}, 0},
		{"json objects", `{"sub_questions": [{"question": "What did it cost?"}, {"id": 2, "text": "Who objects?"}]}`, []string{"What did it cost?", "Who objects?"}, 0},
		{"unlisted questions", "What did it cost?\nThe second one:\nWho objects?", []string{"What did it cost?", "Who objects?"}, 0},
		{"repeats and blanks", "1. What did it cost?\n2. what did it cost?\n3. **  **\n4. Who objects?", []string{"What did it cost?", "Who objects?"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSubQuestions(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Questions); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
			if len(got.Report.Skipped) != tt.skipped {
				t.Errorf("skipped %v, want %d entries", got.Report.Skipped, tt.skipped)
			}
		})
	}
	for _, bad := range []string{"", "   ", "I would rather not.", "```\n```"} {
		if _, err := ParseSubQuestions(bad); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("ParseSubQuestions(%q): err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		answer string
		want   int
	}{
		{"Rating: 4", 4},
		{"rating:0", 0},
		{"**Rating:** 5", 5},
		{"The document mentions 1890 and 42 ships. Score: 3", 3},
		{"My rating is 2 because the document is vague.", 2},
		{"4", 4},
		{"**4**", 4},
		{"4/5", 4},
		{"3 out of 5.", 3},
		{"The document answers most of it.\n\n4", 4},
		{`{"rating": 2, "reason": "partly"}`, 2},
		{`{"answerability": 1}`, 1},
		{`{"rating": "4"}`, 4},
		{"I'd give it a 3 on the 0-5 scale.", 3},
		{"Rating: 3.6", 4},
		{"<think>Rating: 1</think>Rating: 5", 5},
		{"Rating: 2\nAfter more thought, Rating: 3", 3},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			got, err := ParseRate(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rating != tt.want {
				t.Errorf("rating %d, want %d", got.Rating, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "Rating: 7", "The document gives 12 figures and 3 names.", "unclear", "Rating: -1", "Rating: 99999999999999999999999"} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := ParseRate(bad)
			var pe *prompts.ParseError
			if !errors.As(err, &pe) || pe.Task != TaskRate || !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("err = %v, want a rerank_rate *prompts.ParseError", err)
			}
		})
	}
}

func TestParseYesNoTasks(t *testing.T) {
	tests := []struct {
		answer string
		want   bool
	}{
		{"yes", true}, {"No.", false}, {"**Yes**, it does.", true}, {"Answer: no", false}, {`{"relevant": true}`, true},
	}
	for _, tt := range tests {
		p, err := ParsePointwise(tt.answer)
		if err != nil || p.Relevant != tt.want {
			t.Errorf("ParsePointwise(%q) = %v, %v; want %v", tt.answer, p.Relevant, err, tt.want)
		}
		s, err := ParseSupport(tt.answer)
		if err != nil || s.Yes != tt.want {
			t.Errorf("ParseSupport(%q) = %v, %v; want %v", tt.answer, s.Yes, err, tt.want)
		}
	}
	for task, parse := range map[pipeline.Task]func(string) error{
		TaskPointwise: func(s string) error { _, err := ParsePointwise(s); return err },
		TaskSupport:   func(s string) error { _, err := ParseSupport(s); return err },
	} {
		err := parse("Maybe yes, maybe no.")
		var pe *prompts.ParseError
		if !errors.As(err, &pe) || pe.Task != task {
			t.Errorf("%s: err = %v, want a *prompts.ParseError of the task", task, err)
		}
	}
}

func TestParseSetwise(t *testing.T) {
	tests := []struct {
		answer string
		n      int
		want   int
	}{
		{"C", 5, 2},
		{"c", 5, 2},
		{"**B**", 5, 1},
		{"[D].", 5, 3},
		{"(A)", 5, 0},
		{"Document E", 5, 4},
		{"Passage B is the most relevant, more than passage A.", 5, 1},
		{"Answer: D", 5, 3},
		{"The most relevant one is document C.", 5, 2},
		{"A close call, but I pick E.", 5, 4},
		{"I think B.", 5, 1},
		{`{"choice": "C"}`, 5, 2},
		{`{"best": 2}`, 5, 1},
		{"3", 5, 2},
		{"<think>A or B?</think>\nB", 5, 1},
		{"```\nE\n```", 5, 4},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			got, err := ParseSetwise(tt.answer, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if got.Choice != tt.want {
				t.Errorf("choice %d (%s), want %d (%s)", got.Choice, SetwiseLabel(got.Choice), tt.want, SetwiseLabel(tt.want))
			}
		})
	}
	for _, bad := range []struct {
		answer string
		n      int
	}{{"", 5}, {"F", 5}, {"None of them is relevant.", 5}, {"6", 5}, {"A", 0}, {"A", 27}, {"A document about ferries.", 3}} {
		t.Run("bad "+bad.answer, func(t *testing.T) {
			if _, err := ParseSetwise(bad.answer, bad.n); !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestParseSetR(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		n      int
		want   SetROutput
	}{
		{
			name:   "canonical",
			answer: "### Requirements\n1. Cost of dredging\n2. Ferry line\n### Documents per requirement\n1: [2] [5]\n2: none\n### Final Selection: [5] [2]",
			n:      5,
			want: SetROutput{
				Requirements: []SetRRequirement{{Text: "Cost of dredging", Docs: []int{1, 4}}, {Text: "Ferry line"}},
				Selection:    Selection{Order: []int{4, 1}},
			},
		},
		{
			name: "bold headings, labels and unnumbered mapping",
			answer: "**Information requirements:**\n- Requirement 1: Cost of dredging\n- Requirement 2: Ferry line\n\n" +
				"**Passages for each requirement:**\n- Cost of dredging: [1], [3]\n- Ferry line: [2]\n\n**Final Selection:** [1] [2]",
			n: 3,
			want: SetROutput{
				Requirements: []SetRRequirement{{Text: "Cost of dredging", Docs: []int{0, 2}}, {Text: "Ferry line", Docs: []int{1}}},
				Selection:    Selection{Order: []int{0, 1}},
			},
		},
		{
			name:   "combined lines without headings",
			answer: "Let me think.\n1. Cost of dredging → [1], [9]\n2. Ferry line: [2]\n   - Passages: [3]\nFinal selection: 1, 2",
			n:      3,
			want: SetROutput{
				Requirements: []SetRRequirement{{Text: "Cost of dredging", Docs: []int{0}}, {Text: "Ferry line", Docs: []int{1, 2}}},
				Selection:    Selection{Order: []int{0, 1}},
				Report:       prompts.ParseReport{Skipped: []prompts.SkippedEntry{{Text: "1. Cost of dredging → [1], [9]", Reason: "identifier 9 is outside [1]..[3]"}}},
			},
		},
		{
			name:   "selection only",
			answer: "<think>### Final Selection: [3]</think>### Final Selection: [2]",
			n:      3,
			want:   SetROutput{Selection: Selection{Order: []int{1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSetR(tt.answer, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got, err := ParseSetR("### Requirements\n1. Cost\n### Final Selection: none", 3)
	var pe *prompts.ParseError
	if !errors.As(err, &pe) || pe.Task != TaskSetR || !strings.Contains(pe.Reason, "final selection names no passage") {
		t.Errorf("empty selection: err = %v, want a rerank_setr *prompts.ParseError", err)
	}
	if len(got.Requirements) != 1 {
		t.Errorf("requirements read before a failed selection: %v, want 1", got.Requirements)
	}
}

func TestParseRequirements(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    []Requirement
		missing []string
	}{
		{"canonical", "1. (weight 5) Cost of dredging\n2. (weight 2) Ferry line",
			[]Requirement{{"Cost of dredging", 5}, {"Ferry line", 2}}, nil},
		{"weight after", "- Cost of dredging (weight: 4)\n- Ferry line — importance 3/5", []Requirement{{"Cost of dredging", 4}, {"Ferry line", 3}}, nil},
		{"pipes and bare", "1. 5 | Cost of dredging\n2. Ferry line (2)", []Requirement{{"Cost of dredging", 5}, {"Ferry line", 2}}, nil},
		{"labels, clamping, rounding", "Requirement 1: [w=9] Cost of dredging\nRequirement 2: Ferry line, weight 0\nRequirement 3: Tolls (weight 2.6)",
			[]Requirement{{"Cost of dredging", 5}, {"Ferry line", 1}, {"Tolls", 3}}, nil},
		{"missing weight", "1. Cost of dredging\n2. (weight 2) Ferry line", []Requirement{{"Cost of dredging", 3}, {"Ferry line", 2}}, []string{"weight of requirement 1"}},
		{"json", `[{"requirement": "Cost of dredging", "weight": 4}, {"text": "Ferry line", "importance": "2"}, "Tolls (weight 1)"]`,
			[]Requirement{{"Cost of dredging", 4}, {"Ferry line", 2}, {"Tolls", 1}}, nil},
		{"unlisted lines with weights", "Cost of dredging (weight 4)\nSome prose here.\nFerry line (weight 2)",
			[]Requirement{{"Cost of dredging", 4}, {"Ferry line", 2}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequirements(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Requirements); diff != "" {
				t.Errorf("requirements (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.missing, got.Report.Missing, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"", "I don't know.", "[]"} {
		if _, err := ParseRequirements(bad); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("ParseRequirements(%q): err = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestRoundTrips checks that every parser reads its formatter's output
// back, and that formatting again gives the same text.
func TestRoundTrips(t *testing.T) {
	t.Run("subquestions", func(t *testing.T) {
		out := SubQuestionsOutput{Questions: []string{"What did it\ncost?", "Who objects?"}}
		text := FormatSubQuestions(out)
		got, err := ParseSubQuestions(text)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"What did it cost?", "Who objects?"}, got.Questions); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if again := FormatSubQuestions(got); again != text {
			t.Errorf("format again = %q, want %q", again, text)
		}
	})
	t.Run("rate", func(t *testing.T) {
		for r := -1; r <= 6; r++ {
			got, err := ParseRate(FormatRate(RateOutput{Rating: r}))
			if err != nil || got.Rating != min(max(r, 0), 5) {
				t.Errorf("rating %d: got %d, %v", r, got.Rating, err)
			}
		}
	})
	t.Run("yes/no", func(t *testing.T) {
		for _, yes := range []bool{true, false} {
			p, err1 := ParsePointwise(FormatPointwise(PointwiseOutput{Relevant: yes}))
			s, err2 := ParseSupport(FormatSupport(SupportOutput{Yes: yes}))
			if err1 != nil || err2 != nil || p.Relevant != yes || s.Yes != yes {
				t.Errorf("%v: pointwise %v %v, support %v %v", yes, p, err1, s, err2)
			}
		}
	})
	t.Run("listwise", func(t *testing.T) {
		order := []int{2, 0, 3, 1}
		got, err := ParseListwise(FormatListwise(order), 4)
		if err != nil || !got.Complete() {
			t.Fatalf("ParseListwise: %+v, %v", got, err)
		}
		if diff := cmp.Diff(order, got.Order); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("setwise", func(t *testing.T) {
		for n := 1; n <= MaxSetSize; n++ {
			for c := 0; c < n; c++ {
				got, err := ParseSetwise(FormatSetwise(SetwiseOutput{Choice: c}), n)
				if err != nil || got.Choice != c {
					t.Fatalf("n %d choice %d: got %d, %v", n, c, got.Choice, err)
				}
			}
		}
	})
	t.Run("setr", func(t *testing.T) {
		out := SetROutput{
			Requirements: []SetRRequirement{{Text: "Cost of\n dredging", Docs: []int{3, 0}}, {Text: "Ferry line"}, {Text: "Tolls: [who] pays", Docs: []int{1}}},
			Selection:    Selection{Order: []int{3, 1}},
		}
		text := FormatSetR(out)
		got, err := ParseSetR(text, 4)
		if err != nil {
			t.Fatal(err)
		}
		want := SetROutput{
			Requirements: []SetRRequirement{{Text: "Cost of dredging", Docs: []int{3, 0}}, {Text: "Ferry line"}, {Text: "Tolls: (who) pays", Docs: []int{1}}},
			Selection:    Selection{Order: []int{3, 1}},
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s\n%s", diff, text)
		}
		if again := FormatSetR(got); again != text {
			t.Errorf("format again = %q, want %q", again, text)
		}
	})
	t.Run("requirements", func(t *testing.T) {
		out := RequirementsOutput{Requirements: []Requirement{{"Cost of dredging", 5}, {"Ferry line (new)", 1}, {"Tolls", 9}}}
		text := FormatRequirements(out)
		got, err := ParseRequirements(text)
		if err != nil {
			t.Fatal(err)
		}
		want := []Requirement{{"Cost of dredging", 5}, {"Ferry line (new)", 1}, {"Tolls", 5}}
		if diff := cmp.Diff(want, got.Requirements); diff != "" {
			t.Errorf("(-want +got):\n%s\n%s", diff, text)
		}
		if again := FormatRequirements(got); again != text {
			t.Errorf("format again = %q, want %q", again, text)
		}
	})
}

func TestParseSetRTrimsRequirementText(t *testing.T) {
	got, err := ParseSetR("### Requirements\n1. **Cost of dredging:**  , \n### Final Selection: [1]", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requirements) != 1 || got.Requirements[0].Text != "Cost of dredging" {
		t.Errorf("requirements = %+v, want one, \"Cost of dredging\"", got.Requirements)
	}
}
