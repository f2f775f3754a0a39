package prompts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current prompts")

var testRequest = RequestInfo{
	ID:               "req-0042",
	Title:            "Flood defences on the Emscher",
	Background:       "I advise a regional planning office.\nWe need to know what has been decided and what is still disputed.",
	ProblemStatement: "What flood defences have been approved for the Emscher valley since 2020, at what cost, and what objections have been raised?",
	Limit:            2000,
}

var testNugget = QA{Question: "How much did the Dortmund city council approve for the Emscher flood barrier in 2021?", Answer: "12 million euros"}

const testPassage = "The council voted 41 to 12 on Monday. Work on the barrier, which the council approved on 3 May 2021, " +
	"is expected to last three years and cost 12 million euros.\nShop owners remain sceptical."

// builderCase is one builder with realistic inputs, the strings its user
// message must hold, and the request settings it must produce.
type builderCase struct {
	name      string
	req       pipeline.ModelRequest
	input     any
	task      pipeline.Task
	logprobs  bool
	contains  []string
	exampleOK func(string) error // parses the example the prompt shows
}

func builderCases() []builderCase {
	summarize := SummarizeInput{Request: testRequest, DocID: "wdr-2021-0503", DocTitle: "Council backs Emscher barrier",
		DocText: testPassage}
	nuggets := NuggetsInput{Request: testRequest, DocID: "wdr-2021-0503", DocTitle: "Council backs Emscher barrier",
		Summary: "The Dortmund council approved a 12 million euro barrier on 3 May 2021; building takes three years.", Max: 4}
	paraphrase := ParaphraseInput{Request: testRequest, A: testNugget,
		B: QA{Question: "What budget was approved for Dortmund's Emscher flood barrier?", Answer: "€12m"}}
	quality := NuggetQualityInput{Request: testRequest, Nugget: testNugget}
	extract := ExtractInput{Request: testRequest, Nugget: testNugget, DocID: "ruhr-news-77", DocTitle: "Barrier vote",
		DocAuthor: "Ruhr Gazette", DocDate: "2021-05-04", PassageText: testPassage}
	support := VerifySupportInput{
		Sentence:    "The Emscher flood barrier approved by Dortmund's council in May 2021 is expected to cost 12 million euros.",
		SupportText: "Work on the barrier, which the council approved on 3 May 2021, is expected to last three years and cost 12 million euros.",
		PassageText: testPassage,
		DocTitle:    "Barrier vote",
		DocAuthor:   "Ruhr Gazette",
		DocDate:     "2021-05-04",
	}
	facets := FacetsInput{Request: testRequest}
	coverage := VerifyCoverageInput{Nugget: testNugget,
		Sentence: "Dortmund's city council approved 12 million euros for the Emscher flood barrier in May 2021."}
	return []builderCase{
		{
			name: "summarize", req: BuildSummarize(summarize), input: summarize, task: TaskSummarize,
			contains: []string{testRequest.Title, testRequest.ProblemStatement, testRequest.Background, "wdr-2021-0503",
				"Council backs Emscher barrier", testPassage, "SUMMARY: ", "NONE", "at most 8 sentences",
				FormatSummarize(summarizeExample)},
			exampleOK: func(s string) error { _, err := ParseSummarize(s); return err },
		},
		{
			name: "nuggets", req: BuildNuggets(nuggets), input: nuggets, task: TaskNuggets,
			contains: []string{testRequest.Title, testRequest.ProblemStatement, nuggets.Summary, "wdr-2021-0503",
				"at most 4 questions", "N. Q: <question> | A: <answer>", FormatNuggets(nuggetsExample)},
			exampleOK: func(s string) error { _, err := ParseNuggets(s); return err },
		},
		{
			name: "paraphrase", req: BuildParaphrase(paraphrase), input: paraphrase, task: TaskParaphrase, logprobs: true,
			contains: []string{testRequest.ProblemStatement, "Question A: " + paraphrase.A.Question, "Answer A: " + paraphrase.A.Answer,
				"Question B: " + paraphrase.B.Question, "Answer B: " + paraphrase.B.Answer, "either\n\nyes\n\nor\n\nno\n\n"},
			exampleOK: func(s string) error { _, err := ParseParaphrase(s); return err },
		},
		{
			name: "nugget_quality", req: BuildNuggetQuality(quality), input: quality, task: TaskNuggetQuality,
			contains: []string{testRequest.ProblemStatement, "Question: " + testNugget.Question, "Answer: " + testNugget.Answer,
				"- task:", "- background:", "- role:", "- style:", "- scope:", "- vital:", "- researchy:", FormatNuggetQuality(qualityExample)},
			exampleOK: func(s string) error { _, err := ParseNuggetQuality(s); return err },
		},
		{
			name: "extract", req: BuildExtract(extract), input: extract, task: TaskExtract, logprobs: true,
			contains: []string{testRequest.ProblemStatement, "Question: " + testNugget.Question, testNugget.Answer, "ruhr-news-77",
				"Barrier vote", testPassage, "SUPPORT:", "SENTENCE:", "CONFIDENCE:", "NONE", FormatExtract(extractExample)},
			exampleOK: func(s string) error { _, err := ParseExtract(s); return err },
		},
		{
			name: "verify_support", req: BuildVerifySupport(support), input: support, task: TaskVerifySupport, logprobs: true,
			contains:  []string{"Sentence: " + support.Sentence, support.SupportText, testPassage, "either\n\nyes\n\nor\n\nno\n\n"},
			exampleOK: func(s string) error { _, err := ParseVerifySupport(s); return err },
		},
		{
			name: "verify_coverage", req: BuildVerifyCoverage(coverage), input: coverage, task: TaskVerifyCoverage, logprobs: true,
			contains: []string{"Question: " + testNugget.Question, "Reference answer: " + testNugget.Answer,
				"Sentence: " + coverage.Sentence, "either\n\nyes\n\nor\n\nno\n\n"},
			exampleOK: func(s string) error { _, err := ParseVerifyCoverage(s); return err },
		},
		{
			name: "facets", req: BuildFacets(facets), input: facets, task: TaskFacets,
			contains: []string{testRequest.Title, testRequest.ProblemStatement, testRequest.Background, "at most 8.",
				"at most 8 words", "N. <heading> | <what belongs under it>", FormatFacets(facetsExample)},
			exampleOK: func(s string) error {
				out, err := ParseFacets(s)
				if err == nil && (len(out.Facets) != 2 || !out.Report.Empty()) {
					err = fmt.Errorf("the example reads as %+v", out)
				}
				return err
			},
		},
	}
}

// renderRequest writes a request the way the golden files hold it.
func renderRequest(r pipeline.ModelRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "task: %s\nmax_tokens: %d\ntemperature: %g\nlogprobs: %t\n", r.Task, r.MaxTokens, r.Temperature, r.Logprobs)
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "\n===== %s =====\n%s\n", m.Role, m.Content)
	}
	return b.String()
}

func TestBuildGolden(t *testing.T) {
	for _, tc := range builderCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := renderRequest(tc.req)
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run go test -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s prompt changed (-want +got); run go test -update if intended:\n%s", tc.name, diff)
			}
		})
	}
}

func TestBuildRequests(t *testing.T) {
	for _, tc := range builderCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req
			if r.Task != tc.task {
				t.Errorf("Task = %q, want %q", r.Task, tc.task)
			}
			if diff := cmp.Diff(tc.input, r.Input); diff != "" {
				t.Errorf("Input (-want +got):\n%s", diff)
			}
			if r.Temperature != 0 {
				t.Errorf("Temperature = %g, want 0", r.Temperature)
			}
			if r.Logprobs != tc.logprobs {
				t.Errorf("Logprobs = %t, want %t", r.Logprobs, tc.logprobs)
			}
			if r.MaxTokens <= 0 {
				t.Errorf("MaxTokens = %d, want a bound", r.MaxTokens)
			}
			if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
				t.Fatalf("messages are not system + user: %+v", r.Messages)
			}
			if !strings.Contains(r.Messages[0].Content, "English") {
				t.Errorf("system message does not ask for English: %q", r.Messages[0].Content)
			}
			user := r.Messages[1].Content
			for _, want := range append(tc.contains, closingLine) {
				if !strings.Contains(user, want) {
					t.Errorf("user message lacks %q", want)
				}
			}
			if !strings.HasSuffix(user, closingLine) {
				t.Errorf("user message does not end with the closing line")
			}
			// The example shown must be an answer the parser accepts.
			example := exampleIn(t, user)
			if err := tc.exampleOK(example); err != nil {
				t.Errorf("the prompt's example does not parse: %v\nexample:\n%s", err, example)
			}
		})
	}
}

// exampleIn returns the example answer of a user message: the paragraph
// before the closing line.
func exampleIn(t *testing.T, user string) string {
	t.Helper()
	body := strings.TrimSuffix(user, closingLine)
	paras := strings.Split(strings.TrimSpace(body), "\n\n")
	return paras[len(paras)-1]
}

func TestTasksAreDistinct(t *testing.T) {
	seen := map[pipeline.Task]bool{}
	for _, task := range Tasks() {
		if seen[task] || task == "" {
			t.Errorf("task %q repeated or empty", task)
		}
		seen[task] = true
	}
	if len(seen) != 8 {
		t.Errorf("Tasks() has %d tasks, want 8", len(seen))
	}
}

func TestBuildNuggetsDefaultMax(t *testing.T) {
	r := BuildNuggets(NuggetsInput{Request: testRequest, Summary: "x", Max: 0})
	if want := fmt.Sprintf("at most %d questions", DefaultMaxNuggets); !strings.Contains(r.Messages[1].Content, want) {
		t.Errorf("prompt lacks %q", want)
	}
	big := BuildNuggets(NuggetsInput{Request: testRequest, Summary: "x", Max: 20})
	if big.MaxTokens <= r.MaxTokens {
		t.Errorf("MaxTokens for 20 nuggets = %d, not above %d for %d", big.MaxTokens, r.MaxTokens, DefaultMaxNuggets)
	}
}

func TestBuildEmptyRequest(t *testing.T) {
	r := BuildSummarize(SummarizeInput{DocText: "Some text."})
	user := r.Messages[1].Content
	for _, want := range []string{"(The request gives no details.)", "(no id)"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	for _, unwanted := range []string{"Title:", "Problem statement:", "Background:", "titled"} {
		if strings.Contains(user, unwanted) {
			t.Errorf("prompt holds %q for an empty field", unwanted)
		}
	}
}

func TestBuildTruncatesLongText(t *testing.T) {
	word := "Emscher "
	long := strings.Repeat(word, MaxDocChars/len(word)+500) + "TAILMARKER"
	tests := []struct {
		name string
		user string
	}{
		{"summarize", BuildSummarize(SummarizeInput{DocText: long}).Messages[1].Content},
		{"extract", BuildExtract(ExtractInput{PassageText: long}).Messages[1].Content},
		{"verify_support", BuildVerifySupport(VerifySupportInput{PassageText: long}).Messages[1].Content},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.user, "TAILMARKER") {
				t.Errorf("text past %d characters reached the prompt", MaxDocChars)
			}
			if !strings.Contains(tt.user, fmt.Sprintf("Only the first %d characters", MaxDocChars)) {
				t.Errorf("prompt does not say the text was cut")
			}
		})
	}
	short := BuildSummarize(SummarizeInput{DocText: "A short document."}).Messages[1].Content
	if strings.Contains(short, "Only the first") {
		t.Errorf("a short document is said to be cut")
	}
}

func TestTruncateText(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    string
		wantCut bool
	}{
		{"short enough", "one two", 7, "one two", false},
		{"cut at a word boundary", "one two three", 9, "one two", true},
		{"cut counts characters not bytes", "été été été", 7, "été été", true},
		{"one long word is cut inside", "abcdefghij", 4, "abcd", true},
		{"boundary early keeps the long tail", "a bcdefghijkl", 8, "a bcdefg", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := truncateText(tt.in, tt.max)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("truncateText(%q, %d) = %q, %t; want %q, %t", tt.in, tt.max, got, cut, tt.want, tt.wantCut)
			}
			if utf8.RuneCountInString(got) > tt.max {
				t.Errorf("result has %d characters, more than %d", utf8.RuneCountInString(got), tt.max)
			}
		})
	}
}
