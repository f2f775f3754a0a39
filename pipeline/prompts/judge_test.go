package prompts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// checkYesNoRequest checks what every judge request shares: task, input,
// settings, messages and a parsable example at the end.
func checkYesNoRequest(t *testing.T, r pipeline.ModelRequest, task pipeline.Task, input any, parse func(string) error) string {
	t.Helper()
	if r.Task != task {
		t.Errorf("Task = %q, want %q", r.Task, task)
	}
	if diff := cmp.Diff(input, r.Input); diff != "" {
		t.Errorf("Input (-want +got):\n%s", diff)
	}
	if r.Temperature != 0 || !r.Logprobs || r.MaxTokens != yesNoMaxTokens {
		t.Errorf("settings: temperature %g, logprobs %t, max tokens %d", r.Temperature, r.Logprobs, r.MaxTokens)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[0].Content != systemPrompt || r.Messages[1].Role != "user" {
		t.Fatalf("messages are not the system prompt + user: %+v", r.Messages)
	}
	user := r.Messages[1].Content
	if !strings.HasSuffix(user, closingLine) || !strings.Contains(user, "either\n\nyes\n\nor\n\nno\n\n") {
		t.Errorf("user message does not end with the yes/no format:\n%s", user)
	}
	if err := parse(exampleIn(t, user)); err != nil {
		t.Errorf("the prompt's example does not parse: %v", err)
	}
	return user
}

func TestBuildJudgeCovers(t *testing.T) {
	sentence := "Dortmund's council approved 12 million euros for the barrier in 2021."
	tests := []struct {
		name      string
		in        JudgeCoversInput
		contains  []string
		forbidden []string
	}{
		{
			name: "question and answers",
			in:   JudgeCoversInput{Question: testNugget.Question, Answers: []string{"12 million euros", " €12m\n"}, Sentence: sentence},
			contains: []string{"Question: " + testNugget.Question + "\n", "Accepted answers:\n- 12 million euros\n- €12m\n",
				"Sentence: " + sentence + "\n", "answers the question with one of the accepted answers"},
			forbidden: []string{"Claim:", "The fact in full"},
		},
		{
			name:      "answers without a question",
			in:        JudgeCoversInput{Answers: []string{"12 million euros"}, Sentence: sentence},
			contains:  []string{"Accepted answers:\n- 12 million euros\n"},
			forbidden: []string{"Question:", "Claim:"},
		},
		{
			name:      "claim",
			in:        JudgeCoversInput{Claim: "The Dortmund council\napproved the Emscher barrier.", Sentence: sentence},
			contains:  []string{"Claim: The Dortmund council approved the Emscher barrier.\n", "states the claim's central point", "Sentence: " + sentence},
			forbidden: []string{"Accepted answers", "Question:"},
		},
		{
			name:     "answers and claim",
			in:       JudgeCoversInput{Question: "How much?", Answers: []string{"12 million euros"}, Claim: "The barrier costs 12 million euros.", Sentence: sentence},
			contains: []string{"Question: How much?\n", "- 12 million euros\n", "The fact in full: The barrier costs 12 million euros.\n"},
		},
		{
			name:      "blank answers are left out",
			in:        JudgeCoversInput{Answers: []string{" ", ""}, Claim: "A claim.", Sentence: sentence},
			contains:  []string{"Claim: A claim.\n"},
			forbidden: []string{"Accepted answers", "\n- \n"},
		},
		{
			name:     "nothing given",
			in:       JudgeCoversInput{Sentence: sentence},
			contains: []string{"Claim: (no claim was given)\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := checkYesNoRequest(t, BuildJudgeCovers(tt.in), TaskJudgeCovers, tt.in,
				func(s string) error { _, err := ParseJudgeCovers(s); return err })
			for _, want := range tt.contains {
				if !strings.Contains(user, want) {
					t.Errorf("prompt lacks %q:\n%s", want, user)
				}
			}
			for _, unwanted := range tt.forbidden {
				if strings.Contains(user, unwanted) {
					t.Errorf("prompt holds %q:\n%s", unwanted, user)
				}
			}
		})
	}
}

func TestBuildJudgeSupport(t *testing.T) {
	in := JudgeSupportInput{Sentence: "The barrier costs 12 million euros.", Span: "cost 12 million euros", PassageText: testPassage}
	user := checkYesNoRequest(t, BuildJudgeSupport(in), TaskJudgeSupport, in,
		func(s string) error { _, err := ParseJudgeSupport(s); return err })
	for _, want := range []string{"Sentence: " + in.Sentence + "\n", "names this part of the passage as its source: " + in.Span + "\n",
		"<passage>\n" + testPassage + "\n</passage>", "the passage supports the sentence"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "Only the first") {
		t.Errorf("a short passage is said to be cut")
	}

	noSpan := BuildJudgeSupport(JudgeSupportInput{Sentence: "s", PassageText: "p"}).Messages[1].Content
	if strings.Contains(noSpan, "names this part") {
		t.Errorf("prompt names a span that was not given:\n%s", noSpan)
	}

	long := strings.Repeat("Emscher ", MaxDocChars/len("Emscher ")+500) + "TAILMARKER"
	cut := BuildJudgeSupport(JudgeSupportInput{Sentence: "s", PassageText: long}).Messages[1].Content
	if strings.Contains(cut, "TAILMARKER") || !strings.Contains(cut, fmt.Sprintf("Only the first %d characters", MaxDocChars)) {
		t.Errorf("a long passage is not cut, or the cut is not said")
	}
}

func TestParseJudge(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"yes", "yes", true},
		{"No with reasons", "No, the sentence is about the date.", false},
		{"bold", "**Yes**", true},
		{"label after reasoning", "The sentence gives the cost in other words.\n\nAnswer: yes", true},
		{"JSON", `{"covers": false}`, false},
		{"think section", "<think>yes? no.</think>\nYes.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseJudgeCovers(tt.in)
			if err != nil || c.Yes != tt.want {
				t.Errorf("ParseJudgeCovers(%q) = %+v, %v; want %t", tt.in, c, err, tt.want)
			}
			s, err := ParseJudgeSupport(tt.in)
			if err != nil || s.Yes != tt.want {
				t.Errorf("ParseJudgeSupport(%q) = %+v, %v; want %t", tt.in, s, err, tt.want)
			}
		})
	}
}

func TestParseJudgeErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{"empty", "", "empty"},
		{"neither", "The sentence is partly relevant.", "no yes or no"},
		{"both without a mark", "Some would say yes, others no.", "both yes and no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJudgeCovers(tt.in)
			wantParseError(t, err, TaskJudgeCovers, tt.reason)
			_, err = ParseJudgeSupport(tt.in)
			wantParseError(t, err, TaskJudgeSupport, tt.reason)
		})
	}
}

func TestJudgeRoundTrip(t *testing.T) {
	for _, yes := range []bool{true, false} {
		c, err := ParseJudgeCovers(FormatJudgeCovers(JudgeCoversOutput{Yes: yes}))
		if err != nil || c.Yes != yes {
			t.Errorf("covers %t: %+v, %v", yes, c, err)
		}
		s, err := ParseJudgeSupport(FormatJudgeSupport(JudgeSupportOutput{Yes: yes}))
		if err != nil || s.Yes != yes {
			t.Errorf("support %t: %+v, %v", yes, s, err)
		}
	}
}

func TestJudgeTasks(t *testing.T) {
	if diff := cmp.Diff([]pipeline.Task{"judge_covers", "judge_support", "judge_on_topic"}, JudgeTasks()); diff != "" {
		t.Errorf("JudgeTasks (-want +got):\n%s", diff)
	}
	for _, pipelineTask := range Tasks() {
		for _, judgeTask := range JudgeTasks() {
			if pipelineTask == judgeTask {
				t.Errorf("task %q is both a pipeline and a judge task", judgeTask)
			}
		}
	}
}

func FuzzParseJudgeCovers(f *testing.F) {
	fuzzYesNo(f, TaskJudgeCovers,
		func(s string) (bool, error) { o, err := ParseJudgeCovers(s); return o.Yes, err },
		func(b bool) string { return FormatJudgeCovers(JudgeCoversOutput{Yes: b}) })
}

func FuzzParseJudgeSupport(f *testing.F) {
	fuzzYesNo(f, TaskJudgeSupport,
		func(s string) (bool, error) { o, err := ParseJudgeSupport(s); return o.Yes, err },
		func(b bool) string { return FormatJudgeSupport(JudgeSupportOutput{Yes: b}) })
}

func FuzzParseJudgeOnTopic(f *testing.F) {
	fuzzYesNo(f, TaskJudgeOnTopic,
		func(s string) (bool, error) { o, err := ParseJudgeOnTopic(s); return o.Yes, err },
		func(b bool) string { return FormatJudgeOnTopic(JudgeOnTopicOutput{Yes: b}) })
}

func TestBuildJudgeOnTopic(t *testing.T) {
	in := JudgeOnTopicInput{Request: RequestInfo{Title: "Tariffs", ProblemStatement: "What was said of duties on imports?"},
		Sentence: "In 1890, Benjamin Harrison reported that\nthe tariff was raised."}
	user := checkYesNoRequest(t, BuildJudgeOnTopic(in), TaskJudgeOnTopic, in,
		func(s string) error { _, err := ParseJudgeOnTopic(s); return err })
	for _, want := range []string{"Title: Tariffs", "Problem statement: What was said of duties on imports?",
		"Sentence: In 1890, Benjamin Harrison reported that the tariff was raised.", "off topic"} {
		if !strings.Contains(user, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, user)
		}
	}
	for _, yes := range []bool{true, false} {
		o, err := ParseJudgeOnTopic(FormatJudgeOnTopic(JudgeOnTopicOutput{Yes: yes}))
		if err != nil || o.Yes != yes {
			t.Errorf("on topic %t: %+v, %v", yes, o, err)
		}
	}
}
