package prompts

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
)

// wantParseError checks that err is a *ParseError of task wrapping
// pipeline.ErrInvalid whose reason mentions reasonPart.
func wantParseError(t *testing.T, err error, task pipeline.Task, reasonPart string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *ParseError", err, err)
	}
	if !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("err %v does not wrap pipeline.ErrInvalid", err)
	}
	if pe.Task != task {
		t.Errorf("ParseError.Task = %q, want %q", pe.Task, task)
	}
	if !strings.Contains(pe.Reason, reasonPart) {
		t.Errorf("ParseError.Reason = %q, want it to mention %q", pe.Reason, reasonPart)
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseNuggets("I'm sorry, I cannot help with that request.\nIt is outside my abilities.")
	want := `parse nuggets answer: no question and answer found (answer begins "I'm sorry, I cannot help with that request. It is outside my abilities.")`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant  %s", err, want)
	}
	_, err = ParseSummarize("")
	wantParseError(t, err, TaskSummarize, "empty")
	long := strings.Repeat("é", 400)
	_, err = ParseParaphrase(long)
	var pe *ParseError
	if !errors.As(err, &pe) || len(pe.Snippet) > snippetBytes+len("…") || !strings.HasSuffix(pe.Snippet, "…") {
		t.Errorf("snippet of a long answer = %q, want at most %d bytes ending in …", pe.Snippet, snippetBytes)
	}
}

func TestParseSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want SummarizeOutput
	}{
		{"canonical", "SUMMARY: The council approved the barrier in 2021.",
			SummarizeOutput{Summary: "The council approved the barrier in 2021.", Relevant: true}},
		{"no label", "The council approved the barrier in 2021. It cost 12 million euros.",
			SummarizeOutput{Summary: "The council approved the barrier in 2021. It cost 12 million euros.", Relevant: true}},
		{"introduction then text over lines", "Here is a focused summary of the document:\n\nThe council approved the barrier\nin 2021.",
			SummarizeOutput{Summary: "The council approved the barrier in 2021.", Relevant: true}},
		{"bold label and trailing remark after a blank line", "**Summary:** The council approved the barrier.\n\nLet me know if you need more.",
			SummarizeOutput{Summary: "The council approved the barrier.", Relevant: true}},
		{"label alone on its line", "Summary:\n\nThe council approved the barrier.",
			SummarizeOutput{Summary: "The council approved the barrier.", Relevant: true}},
		{"fenced and bulleted", "```\n- The council approved the barrier.\n- It cost 12 million euros.\n```",
			SummarizeOutput{Summary: "The council approved the barrier. It cost 12 million euros.", Relevant: true}},
		{"json", `{"summary": "The council approved the barrier."}`,
			SummarizeOutput{Summary: "The council approved the barrier.", Relevant: true}},
		{"think section dropped", "<think>The user wants a summary. NONE?</think>\nSUMMARY: The barrier costs 12 million euros.",
			SummarizeOutput{Summary: "The barrier costs 12 million euros.", Relevant: true}},
		{"NONE", "NONE", SummarizeOutput{}},
		{"none in bold with period", "**None.**", SummarizeOutput{}},
		{"NONE with reason", "NONE - the document is about football.", SummarizeOutput{}},
		{"labelled NONE", "SUMMARY: NONE", SummarizeOutput{}},
		{"None of is a sentence", "None of the councillors opposed the barrier.",
			SummarizeOutput{Summary: "None of the councillors opposed the barrier.", Relevant: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSummarize(tt.in)
			if err != nil {
				t.Fatalf("ParseSummarize: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseSummarize(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	for _, bad := range []string{"", "  \n\t", "```\n```"} {
		_, err := ParseSummarize(bad)
		wantParseError(t, err, TaskSummarize, "empty")
	}
}

func TestParseNuggets(t *testing.T) {
	barrier := QA{Question: "When did the Dortmund council approve the Emscher barrier?", Answer: "3 May 2021"}
	cost := QA{Question: "How much will the Emscher barrier cost?", Answer: "12 million euros"}
	tests := []struct {
		name     string
		in       string
		want     []QA
		wantSkip []SkippedEntry
	}{
		{
			name: "canonical",
			in:   "1. Q: When did the Dortmund council approve the Emscher barrier? | A: 3 May 2021\n2. Q: How much will the Emscher barrier cost? | A: 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "prose around, no numbering",
			in: "Sure! Here are the nuggets based on the summary:\n\nQ: When did the Dortmund council approve the Emscher barrier? | A: 3 May 2021\n" +
				"Q: How much will the Emscher barrier cost? | A: 12 million euros\n\nI hope these help with your report.",
			want: []QA{barrier, cost},
		},
		{
			name: "Q and A on separate lines with bold and blank lines",
			in: "**Question 1:** When did the Dortmund council approve the Emscher barrier?\n**Answer:** 3 May 2021\n\n" +
				"**Question 2:** How much will the Emscher barrier cost?\n**Answer:** 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "bulleted Q and A lines",
			in:   "- Q: When did the Dortmund council approve the Emscher barrier?\n  A: 3 May 2021\n- Q: How much will the Emscher barrier cost?\n  A: **12 million euros**",
			want: []QA{barrier, cost},
		},
		{
			name: "inline answer without pipe",
			in:   "1) Q: When did the Dortmund council approve the Emscher barrier? A: 3 May 2021\n2) Q: How much will the Emscher barrier cost? - A: 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "bracketed numbers look like JSON",
			in:   "[1] Q: When did the Dortmund council approve the Emscher barrier? | A: 3 May 2021\n[2] Q: How much will the Emscher barrier cost? | A: 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "bold numbers",
			in: "**1. Q:** When did the Dortmund council approve the Emscher barrier? | **A:** 3 May 2021\n" +
				"**2.** Q: How much will the Emscher barrier cost? | A: 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "json array in a code fence",
			in: "```json\n[\n  {\"question\": \"When did the Dortmund council approve the Emscher barrier?\", \"answer\": \"3 May 2021\"},\n" +
				"  {\"Question\": \"How much will the Emscher barrier cost?\", \"Answer\": \"12 million euros\"}\n]\n```",
			want: []QA{barrier, cost},
		},
		{
			name: "json object holding the list, a number answer and a missing answer",
			in: `{"nuggets": [{"q": "How many councillors voted for the Emscher barrier?", "a": 41},` +
				` {"q": "Who opposed the Emscher barrier?"}]}`,
			want:     []QA{{Question: "How many councillors voted for the Emscher barrier?", Answer: "41"}},
			wantSkip: []SkippedEntry{{Text: `{"q":"Who opposed the Emscher barrier?"}`, Reason: reasonNoAnswer}},
		},
		{
			name: "markdown table",
			in: "| # | Question | Answer |\n|---|----------|--------|\n| 1 | When did the Dortmund council approve the Emscher barrier? | 3 May 2021 |\n" +
				"| 2 | How much will the Emscher barrier cost? | 12 million euros |",
			want: []QA{barrier, cost},
		},
		{
			name: "unlabeled list entries",
			in:   "1. When did the Dortmund council approve the Emscher barrier? - 3 May 2021\n2. How much will the Emscher barrier cost? | 12 million euros",
			want: []QA{barrier, cost},
		},
		{
			name: "entries without an answer are dropped and reported",
			in: "1. Q: When did the Dortmund council approve the Emscher barrier? | A: 3 May 2021\n2. Q: Who designed the barrier?\n" +
				"3. Q: How much will the Emscher barrier cost? | A: 12 million euros\n4. Q: Where is it built? | A:   ",
			want: []QA{barrier, cost},
			wantSkip: []SkippedEntry{
				{Text: "2. Q: Who designed the barrier?", Reason: reasonNoAnswer},
				{Text: "4. Q: Where is it built? | A:", Reason: reasonBlank},
			},
		},
		{
			name:     "answer without a question",
			in:       "A: 1999\nQ: How much will the Emscher barrier cost? | A: 12 million euros",
			want:     []QA{cost},
			wantSkip: []SkippedEntry{{Text: "A: 1999", Reason: reasonNoQuestion}},
		},
		{
			name: "question carried over two lines",
			in:   "Q: How much will the Emscher\nbarrier cost?\nA: 12 million euros",
			want: []QA{cost},
		},
		{
			name: "pipe inside the answer is kept",
			in:   "1. Q: How much will the Emscher barrier cost? | A: 12 million euros | about 13 million dollars",
			want: []QA{{Question: cost.Question, Answer: "12 million euros | about 13 million dollars"}},
		},
		{
			name: "reasoning model",
			in:   "<think>\nLet me find questions. Q: maybe? | A: no\n</think>\n\n1. Q: How much will the Emscher barrier cost? | A: 12 million euros",
			want: []QA{cost},
		},
		{"NONE", "NONE", nil, nil},
		{"NONE with a reason", "NONE. The summary has nothing relevant.", nil, nil},
		{"empty json list", "[]", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNuggets(tt.in)
			if err != nil {
				t.Fatalf("ParseNuggets: %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Nuggets, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("nuggets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkip, got.Report.Skipped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNuggetsErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{"empty", "", "empty"},
		{"refusal", "I cannot produce questions for this summary.", "no question and answer found"},
		{"only questions", "1. Q: Who designed the barrier?\n2. Q: When will it open?", "2 entries dropped, the first because it had a question but no answer"},
		{"json without the fields", `[{"foo": 1}]`, "no question and answer fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNuggets(tt.in)
			wantParseError(t, err, TaskNuggets, tt.reason)
		})
	}
}

func TestParseYesNo(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"yes", "yes", true},
		{"no", "no", false},
		{"Yes with period", "Yes.", true},
		{"bold No", "**No**", false},
		{"upper case", "YES", true},
		{"answer label", "Answer: yes", true},
		{"bold answer label", "**Answer:** No", false},
		{"first word then reasons", "No, the first question asks for the cost and the second for the date.", false},
		{"reasons then final answer", "Both questions ask about the cost, although one says budget. Is there any difference? No real one.\n\nFinal answer: yes", true},
		{"answer is phrase", "The answer is no.", false},
		{"last line alone", "The questions look alike but one is about 2020, the other about 2021.\nNo", false},
		{"only one of the words in prose", "I would say they are the same, so yes.", true},
		{"code fence", "```\nyes\n```", true},
		{"json bool", `{"same": true}`, true},
		{"json string", `{"answer": "No"}`, false},
		{"true alone", "True", true},
		{"quoted", `"yes"`, true},
		{"think section", "<think>no wait, maybe yes</think>\nno", false},
		{"trailing punctuation and spaces", "  yes!  \n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseParaphrase(tt.in)
			if err != nil || p.Same != tt.want {
				t.Errorf("ParseParaphrase(%q) = %+v, %v; want %t", tt.in, p, err, tt.want)
			}
			s, err := ParseVerifySupport(tt.in)
			if err != nil || s.Yes != tt.want {
				t.Errorf("ParseVerifySupport(%q) = %+v, %v; want %t", tt.in, s, err, tt.want)
			}
			c, err := ParseVerifyCoverage(tt.in)
			if err != nil || c.Yes != tt.want {
				t.Errorf("ParseVerifyCoverage(%q) = %+v, %v; want %t", tt.in, c, err, tt.want)
			}
		})
	}
}

func TestParseYesNoErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{"empty", "  ", "empty"},
		{"neither", "The questions are similar in part.", "no yes or no"},
		{"both without a mark", "Some would say yes, others no, depending on the reading.", "both yes and no"},
		{"not is not no", "Not the same information.", "no yes or no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVerifySupport(tt.in)
			wantParseError(t, err, TaskVerifySupport, tt.reason)
			_, err = ParseParaphrase(tt.in)
			wantParseError(t, err, TaskParaphrase, tt.reason)
			_, err = ParseVerifyCoverage(tt.in)
			wantParseError(t, err, TaskVerifyCoverage, tt.reason)
		})
	}
}

func TestParseNuggetQuality(t *testing.T) {
	profile := QuestionProfile{Ambiguous: 1, Incomplete: 0, Assumptive: 2, Multifaceted: 3, Knowledge: 4, Subjective: 0,
		Reasoning: 3, Harmful: 0, Decompositional: 2, Nonfactoid: 5}
	full := NuggetQualityOutput{Task: 4, Background: 3, Role: 2, Style: 5, Scope: 3, Vital: true, Researchy: false, Question: profile}
	// The question's profile as lines, and as a JSON object's members, for
	// the cases about how the seven judgements are written.
	const lines = "\nambiguous: 1\nincomplete: 0\nassumptive: 2\nmultifaceted: 3\nknowledge: 4\nsubjective: 0\n" +
		"reasoning: 3\nharmful: 0\ndecompositional: 2\nnonfactoid: 5"
	const members = `"ambiguous": 1, "incomplete": 0, "assumptive": 2, "multifaceted": 3, "knowledge": 4, "subjective": 0, ` +
		`"reasoning": 3, "harmful": 0, "decompositional": 2, "nonfactoid": 5`
	noProfile := QuestionFields()
	tests := []struct {
		name string
		in   string
		want NuggetQualityOutput
	}{
		{"canonical", "task: 4\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: yes\nresearchy: no" + lines, full},
		{"seven lines without the question's profile", "task: 4\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: yes\nresearchy: no",
			NuggetQualityOutput{Task: 4, Background: 3, Role: 2, Style: 5, Scope: 3, Vital: true, Report: ParseReport{Missing: noProfile}}},
		{"the profile as the data set names it",
			"task: 4\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: yes\nresearchy: no\nAmbiguity: 1\nIncompleteness: 0\nAssumptive: 2\n" +
				"Multi-faceted: 3\nKnowledge-intensive: 4\nSubjective: 0\nReasoning-intensive: 3\nHarmful: 0\nDecompositional score: 2\nNon-factoid: 10/10",
			full},
		{"capitalised bold bullets and fractions",
			"Here is my assessment:\n- **Task:** 4/5\n- **Background:** 3/5\n- **Role**: 2 out of 5\n- **Style:** 5/5\n- **Scope:** 3/5\n- **Vital:** Yes\n- **Researchy:** No" + lines,
			full},
		{"numbered, other order, explanations",
			"1. Vital: yes - the cost is central.\n2. Researchy: no, it is a single figure.\n3. Task: 4 (directly answers the cost part)\n" +
				"4. Background (0-5): 3\n5. Role: 2\n6. Communication style: 5\n7. Scope score: 3" + lines,
			full},
		{"json", "```json\n{\"task\": 4, \"background\": \"3\", \"role\": 2, \"style\": 5.0, \"scope\": \"3/5\", \"vital\": true, \"researchy\": \"no\", " + members + "}\n```", full},
		{"nested json", `{"scores": {"task": 4, "background": 3, "role": 2, "style": 5, "scope": 3}, "vital": 1, "researchy": false, "question": {` + members + `}}`, full},
		{"one line", "task: 4 | background: 3 | role: 2 | style: 5 | scope: 3 | vital: yes | researchy: no" + lines, full},
		{"equals and ten-point scale", "task = 8/10\nbackground = 6/10\nrole = 4/10\nstyle = 10/10\nscope = 6/10\nvital = true\nresearchy = false" + lines, full},
		{"rounding and clamping", "task: 4.5\nbackground: 7\nrole: -2\nstyle: 2.4\nscope: 0\nvital: y\nresearchy: YES" + lines,
			NuggetQualityOutput{Task: 5, Background: 5, Role: 0, Style: 2, Scope: 0, Vital: true, Researchy: true, Question: profile}},
		{"missing fields reported",
			"task: 4\nbackground: 3\nvital: yes" + lines,
			NuggetQualityOutput{Task: 4, Background: 3, Vital: true, Question: profile, Report: ParseReport{Missing: []string{"role", "style", "scope", "researchy"}}}},
		{"unreadable values reported",
			"task: high\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: maybe\nresearchy: no" + lines,
			NuggetQualityOutput{Background: 3, Role: 2, Style: 5, Scope: 3, Question: profile, Report: ParseReport{
				Skipped: []SkippedEntry{{Text: "task: high", Reason: "no score from 0 to 5"}, {Text: "vital: maybe", Reason: "no yes or no"}},
				Missing: []string{"task", "vital"},
			}}},
		{"first of a repeated field counts", "task: 4\ntask: 1\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: yes\nresearchy: no" + lines, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNuggetQuality(tt.in)
			if err != nil {
				t.Fatalf("ParseNuggetQuality: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseNuggetQuality(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	errs := []struct {
		name   string
		in     string
		reason string
	}{
		{"empty", "", "empty"},
		{"prose", "This nugget is quite good overall.", "none of the fields"},
		{"json without the fields", `{"quality": "good"}`, "none of the fields"},
		{"no readable value", "task: high\nvital: perhaps", "no field has a readable value"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNuggetQuality(tt.in)
			wantParseError(t, err, TaskNuggetQuality, tt.reason)
		})
	}
}

func TestParseExtract(t *testing.T) {
	const support = "Work on the barrier, which the council approved on 3 May 2021, is expected to last three years."
	const sentence = "Construction of the Emscher barrier, approved in May 2021, is expected to take three years."
	found := ExtractOutput{Found: true, Support: support, Sentence: sentence, Confidence: 0.85}
	tests := []struct {
		name string
		in   string
		want ExtractOutput
	}{
		{"canonical", "SUPPORT: " + support + "\nSENTENCE: " + sentence + "\nCONFIDENCE: 85", found},
		{"quotes, bold labels and percent",
			"**SUPPORT:** \"" + support + "\"\n**SENTENCE:** \"" + sentence + "\"\n**CONFIDENCE:** 85%", found},
		{"lower case, numbered, prose around",
			"Here is what I found.\n1. support: " + support + "\n2. sentence: " + sentence + "\n3. confidence: 0.85\nLet me know if you need anything else.", found},
		{"support over two lines",
			"SUPPORT: Work on the barrier, which the council approved on 3 May 2021,\nis expected to last three years.\nSENTENCE: " + sentence + "\nCONFIDENCE: 85/100", found},
		{"other order, fenced",
			"```\nSENTENCE: " + sentence + "\nSUPPORT: " + support + "\nCONFIDENCE: 85\n```", found},
		{"json", `{"support": "` + support + `", "sentence": "` + sentence + `", "confidence": 85}`, found},
		{"confidence out of ten words", "SUPPORT: " + support + "\nSENTENCE: " + sentence + "\nConfidence: 8.5 out of 10", found},
		{"missing confidence",
			"SUPPORT: " + support + "\nSENTENCE: " + sentence,
			ExtractOutput{Found: true, Support: support, Sentence: sentence, Report: ParseReport{Missing: []string{"confidence"}}}},
		{"unreadable confidence",
			"SUPPORT: " + support + "\nSENTENCE: " + sentence + "\nCONFIDENCE: high",
			ExtractOutput{Found: true, Support: support, Sentence: sentence, Report: ParseReport{
				Skipped: []SkippedEntry{{Text: "confidence: high", Reason: "no number"}}, Missing: []string{"confidence"}}}},
		{"support NONE",
			"SUPPORT: NONE\nSENTENCE: " + sentence + "\nCONFIDENCE: 40",
			ExtractOutput{Found: true, Sentence: sentence, Confidence: 0.4, Report: ParseReport{Missing: []string{"support"}}}},
		{"text of the treaty is allowed",
			"SUPPORT: s\nSENTENCE: The text of the 2021 agreement sets the cost at 12 million euros.\nCONFIDENCE: 70",
			ExtractOutput{Found: true, Support: "s", Sentence: "The text of the 2021 agreement sets the cost at 12 million euros.", Confidence: 0.7}},
		{"NONE", "NONE", ExtractOutput{}},
		{"NONE with reason", "NONE — the passage does not mention the cost.", ExtractOutput{}},
		{"bold NONE", "**NONE**", ExtractOutput{}},
		{"sentence NONE", "SUPPORT: NONE\nSENTENCE: NONE\nCONFIDENCE: 0", ExtractOutput{}},
		{"only support NONE", "SUPPORT: none", ExtractOutput{}},
		{"json not found", `{"found": false}`, ExtractOutput{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseExtract(tt.in)
			if err != nil {
				t.Fatalf("ParseExtract: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("ParseExtract(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseExtractErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string
	}{
		{"empty", "", "empty"},
		{"no labels", "The barrier will take three years to build.", "no SENTENCE line and no NONE"},
		{"empty sentence", "SUPPORT: something\nSENTENCE:\n\nCONFIDENCE: 50", "SENTENCE line is empty"},
		{"refers to the passage", "SUPPORT: x\nSENTENCE: The passage states that the barrier costs 12 million euros.\nCONFIDENCE: 90", `refers to "The passage"`},
		{"according to the article", "SUPPORT: x\nSENTENCE: According to the article, the barrier costs 12 million euros.", `refers to "the article"`},
		{"the author", "SUPPORT: x\nSENTENCE: The author argues that the barrier is too expensive.", `refers to "The author"`},
		{"the provided text", "SUPPORT: x\nSENTENCE: In the provided text, the cost is 12 million euros.", `refers to "the provided text"`},
		{"this document", "SENTENCE: This document reports a cost of 12 million euros.", `refers to "This document"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseExtract(tt.in)
			wantParseError(t, err, TaskExtract, tt.reason)
		})
	}
}

func TestSourceReference(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"stands alone", "The Dortmund council approved the barrier in 2021.", ""},
		{"the document", "The document says the barrier was approved.", "The document"},
		{"these passages", "As these passages show, costs rose.", "these passages"},
		{"the passage of a bill", "The passage of the flood bill took two years.", ""},
		{"the author of a report", "The author of the 2020 flood report, Ann Weber, opposed it.", ""},
		{"the text of", "The text of the treaty was published in May.", ""},
		{"word inside another word", "The contextual analysis held.", ""},
		{"later reference after an allowed one", "The text of the law, as the article notes, is short.", "the article"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SourceReference(tt.in); got != tt.want {
				t.Errorf("SourceReference(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseConfidence(t *testing.T) {
	tests := []struct {
		in     string
		want   float64
		wantOK bool
	}{
		{"85", 0.85, true},
		{"85%", 0.85, true},
		{"85 %", 0.85, true},
		{"0.85", 0.85, true},
		{".9", 0.9, true},
		{"0,85", 0.85, true},
		{"1", 0.01, true},
		{"1.0", 1, true},
		{"100", 1, true},
		{"150", 1, true},
		{"9/10", 0.9, true},
		{"85/100", 0.85, true},
		{"90 out of 100", 0.9, true},
		{"about 70, since the figure is explicit", 0.7, true},
		{"high", 0, false},
		{"5/0", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseConfidence(tt.in)
		if ok != tt.wantOK || (ok && !approx(got, tt.want)) {
			t.Errorf("parseConfidence(%q) = %g, %t; want %g, %t", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestIsNoneMarker(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"NONE", true},
		{"none", true},
		{"None.", true},
		{"**NONE**", true},
		{"`none`", true},
		{`"NONE"`, true},
		{"N/A", true},
		{"NONE: nothing relevant", true},
		{"NONE (the document is about sport)", true},
		{"None of the councillors objected.", false},
		{"NONE of the councillors objected.", false},
		{"Nonetheless, it passed.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isNoneMarker(tt.in); got != tt.want {
			t.Errorf("isNoneMarker(%q) = %t, want %t", tt.in, got, tt.want)
		}
	}
}
