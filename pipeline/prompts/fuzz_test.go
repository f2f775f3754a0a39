package prompts

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// The fuzz targets feed arbitrary answers to each parser and check that it
// never panics, that every error is a *ParseError wrapping
// pipeline.ErrInvalid, and that whatever it reads survives a trip through
// the canonical format: FormatX of the result parses again, and formatting
// that gives the same text.

// seedAnswers are realistic answers of every task, good and bad, shared by
// the fuzz targets as their seed corpus.
var seedAnswers = []string{
	"",
	"NONE",
	"**None.**",
	"SUMMARY: The council approved the barrier in 2021.",
	"Here is a focused summary:\n\n- The council approved it.\n- It cost 12 million euros.",
	`{"summary": "The council approved the barrier."}`,
	"1. Q: When did the council approve the barrier? | A: 3 May 2021\n2. Q: How much? | A: 12 million euros",
	"**Question 1:** When?\n**Answer:** 2021\n\nQ: Who?\n",
	"```json\n[{\"question\": \"When?\", \"answer\": 2021}, {\"q\": \"Who?\"}]\n```",
	"| # | Question | Answer |\n|---|---|---|\n| 1 | When? | 2021 |",
	"yes", "No.", "**Answer:** yes", "The answer is no.", `{"same": true}`, "<think>hmm</think>\nyes",
	"task: 4\nbackground: 3\nrole: 2\nstyle: 5\nscope: 3\nvital: yes\nresearchy: no",
	"- **Task:** 4/5\n- **Vital:** Yes | researchy: no; scope = 8/10",
	`{"scores": {"task": 4}, "vital": 1}`,
	"SUPPORT: Work on the barrier is expected to last three years.\nSENTENCE: The barrier takes three years.\nCONFIDENCE: 85",
	"**SUPPORT:** \"x\"\n**SENTENCE:**\n\"The Emscher barrier costs 12 million euros.\"\n\nCONFIDENCE: 0.9",
	"SENTENCE: The passage states it.",
	`{"found": false}`,
	"SUPPORT: a | b\nSENTENCE: ::\nCONFIDENCE: 1e999",
	"\xff\xfe\x00Q:\r\nA:\r\n",
	"<think>unclosed\nSENTENCE: x",
	"1.\n2)\n(3)\n[4]\n- \n* \n# \n> ",
	"1. The Treasury surplus | The surplus that drove the debate\n2. Reciprocity arrangements",
	"## **Tariff laws:** their features\nThe dates of each law\nHeading: x | y\nDescription: z",
	`{"sections": [{"title": "Surplus", "summary": "x"}, "Reciprocity", 3]}`,
	"- Imports — exports | a\n| Heading | Description |\n| Surplus | x |",
}

// checkErr fails unless err is nil or a *ParseError of task wrapping
// pipeline.ErrInvalid with a valid snippet.
func checkErr(t *testing.T, task pipeline.Task, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrInvalid) {
		t.Fatalf("error %v (%T) is not a *ParseError wrapping ErrInvalid", err, err)
	}
	if pe.Task != task || pe.Reason == "" || !utf8.ValidString(pe.Snippet) || len(pe.Snippet) > snippetBytes+len("…") {
		t.Fatalf("malformed ParseError %#v", pe)
	}
}

func addSeeds(f *testing.F) {
	for _, s := range seedAnswers {
		f.Add(s)
	}
}

func FuzzParseSummarize(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseSummarize(text)
		checkErr(t, TaskSummarize, err)
		if err != nil {
			return
		}
		if out.Relevant != (out.Summary != "") || strings.ContainsAny(out.Summary, "\n\r") {
			t.Fatalf("inconsistent output %+v", out)
		}
		formatted := FormatSummarize(out)
		again, err := ParseSummarize(formatted)
		if err != nil || FormatSummarize(again) != formatted {
			t.Fatalf("canonical answer %q does not round-trip: %+v, %v", formatted, again, err)
		}
	})
}

func FuzzParseNuggets(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseNuggets(text)
		checkErr(t, TaskNuggets, err)
		if err != nil {
			return
		}
		for _, qa := range out.Nuggets {
			if qa.Question == "" || qa.Answer == "" || strings.ContainsAny(qa.Question+qa.Answer, "\n\r") {
				t.Fatalf("bad nugget %+v", qa)
			}
		}
		formatted := FormatNuggets(out)
		again, err := ParseNuggets(formatted)
		if err != nil || FormatNuggets(again) != formatted || !again.Report.Empty() {
			t.Fatalf("canonical answer %q does not round-trip: %+v, %v", formatted, again, err)
		}
	})
}

// fuzzYesNo is the body of the yes/no targets.
func fuzzYesNo(f *testing.F, task pipeline.Task, parse func(string) (bool, error), format func(bool) string) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		yes, err := parse(text)
		checkErr(t, task, err)
		if err != nil {
			return
		}
		if again, err := parse(format(yes)); err != nil || again != yes {
			t.Fatalf("canonical answer %q reads %t, %v", format(yes), again, err)
		}
	})
}

func FuzzParseParaphrase(f *testing.F) {
	fuzzYesNo(f, TaskParaphrase,
		func(s string) (bool, error) { o, err := ParseParaphrase(s); return o.Same, err },
		func(b bool) string { return FormatParaphrase(ParaphraseOutput{Same: b}) })
}

func FuzzParseVerifySupport(f *testing.F) {
	fuzzYesNo(f, TaskVerifySupport,
		func(s string) (bool, error) { o, err := ParseVerifySupport(s); return o.Yes, err },
		func(b bool) string { return FormatVerifySupport(VerifySupportOutput{Yes: b}) })
}

func FuzzParseVerifyCoverage(f *testing.F) {
	fuzzYesNo(f, TaskVerifyCoverage,
		func(s string) (bool, error) { o, err := ParseVerifyCoverage(s); return o.Yes, err },
		func(b bool) string { return FormatVerifyCoverage(VerifyCoverageOutput{Yes: b}) })
}

func FuzzParseNuggetQuality(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseNuggetQuality(text)
		checkErr(t, TaskNuggetQuality, err)
		if err != nil {
			return
		}
		for _, s := range append([]int{out.Task, out.Background, out.Role, out.Style, out.Scope}, profileScores(out.Question)...) {
			if s < 0 || s > MaxQualityScore {
				t.Fatalf("score out of range in %+v", out)
			}
		}
		if len(out.Report.Missing) == len(qualityFields) {
			t.Fatalf("every field missing but no error: %+v", out)
		}
		formatted := FormatNuggetQuality(out)
		again, err := ParseNuggetQuality(formatted)
		if err != nil || FormatNuggetQuality(again) != formatted || !again.Report.Empty() {
			t.Fatalf("canonical answer %q does not round-trip: %+v, %v", formatted, again, err)
		}
	})
}

// profileScores lists a question profile's scores.
func profileScores(q QuestionProfile) []int {
	var out []int
	for _, p := range q.scores() {
		out = append(out, *p)
	}
	return out
}

func FuzzParseExtract(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseExtract(text)
		checkErr(t, TaskExtract, err)
		if err != nil {
			return
		}
		if out.Confidence < 0 || out.Confidence > 1 {
			t.Fatalf("confidence out of range in %+v", out)
		}
		if out.Found && (out.Sentence == "" || SourceReference(out.Sentence) != "") {
			t.Fatalf("found without a usable sentence: %+v", out)
		}
		if !out.Found && (out.Sentence != "" || out.Support != "" || out.Confidence != 0) {
			t.Fatalf("not found but fields set: %+v", out)
		}
		formatted := FormatExtract(out)
		again, err := ParseExtract(formatted)
		if err != nil || FormatExtract(again) != formatted {
			t.Fatalf("canonical answer %q does not round-trip: %+v, %v", formatted, again, err)
		}
	})
}

func FuzzLocateSupport(f *testing.F) {
	f.Add("The council voted 41 to 12 on Monday.", "the council VOTED")
	f.Add("市议会通过了防洪屏障的建设。", "通过了防洪墙障")
	f.Add("a\xffb c d e f", "“b c d”…")
	f.Add("", "")
	f.Add("one two three four five six", "two three four five six seven eight")
	f.Fuzz(func(t *testing.T, passage, support string) {
		start, end, ok := LocateSupport(passage, support)
		if !ok {
			s := strings.TrimSpace(support)
			if s != "" && utf8.ValidString(s) && utf8.ValidString(passage) && strings.Contains(passage, s) {
				t.Fatalf("support %q occurs in the passage but was not found", s)
			}
			return
		}
		if start < 0 || start > end || end > len(passage) {
			t.Fatalf("span [%d, %d) outside a passage of %d bytes", start, end, len(passage))
		}
		if start == end {
			t.Fatalf("empty span found for %q", support)
		}
		// The span begins and ends with whole characters.
		if r, size := utf8.DecodeRuneInString(passage[start:end]); r == utf8.RuneError && size <= 1 {
			t.Fatalf("span [%d, %d) of %q does not begin with a character", start, end, passage)
		}
		if r, size := utf8.DecodeLastRuneInString(passage[start:end]); r == utf8.RuneError && size <= 1 {
			t.Fatalf("span [%d, %d) of %q does not end with a character", start, end, passage)
		}
	})
}

func FuzzParseFacets(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseFacets(text)
		checkErr(t, TaskFacets, err)
		if err != nil {
			return
		}
		if len(out.Facets) == 0 || len(out.Facets) > pipeline.MaxFacets {
			t.Fatalf("%d facets without an error", len(out.Facets))
		}
		for _, fc := range out.Facets {
			if n := len(strings.Fields(fc.Heading)); n == 0 || n > pipeline.MaxFacetHeadingWords ||
				strings.ContainsAny(fc.Heading+fc.Description, "\n\r") || strings.Contains(fc.Heading, "|") {
				t.Fatalf("bad facet %+v", fc)
			}
		}
		formatted := FormatFacets(out)
		again, err := ParseFacets(formatted)
		if err != nil || FormatFacets(again) != formatted || len(again.Report.Skipped) > 0 {
			t.Fatalf("canonical answer %q does not round-trip: %+v, %v", formatted, again, err)
		}
	})
}
