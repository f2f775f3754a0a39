package rerank

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// checkParseError fails unless err is nil or a *prompts.ParseError of the
// task that wraps pipeline.ErrInvalid.
func checkParseError(t *testing.T, task pipeline.Task, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var pe *prompts.ParseError
	if !errors.As(err, &pe) || pe.Task != task || !errors.Is(err, pipeline.ErrInvalid) {
		t.Fatalf("error %v (%T) is not a %s *prompts.ParseError", err, err, task)
	}
}

// checkEntries fails on an entry that is blank, overlong, not valid
// UTF-8 or spread over lines.
func checkEntries(t *testing.T, entries []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range entries {
		if e == "" || len(e) > maxQuestionChars || !utf8.ValidString(e) || strings.ContainsAny(e, "\n\r") {
			t.Fatalf("bad entry %q", e)
		}
		if seen[strings.ToLower(e)] {
			t.Fatalf("repeated entry %q", e)
		}
		seen[strings.ToLower(e)] = true
	}
}

func FuzzParseSubQuestions(f *testing.F) {
	for _, seed := range []string{
		"1. What did it cost?\n2. Who objects?", "- **What?**\n- what?", `["a?", "b?"]`, `{"questions": [{"question": "a?"}]}`,
		"Q1: x\nQ2: y", "<think>1. no</think>", "```\n1) x\n```", "", "\xff\xfe1. ?", "1.\n2.\n3. **  **",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		out, err := ParseSubQuestions(answer)
		checkParseError(t, TaskSubQuestions, err)
		if err == nil && len(out.Questions) == 0 {
			t.Fatal("no error and no question")
		}
		checkEntries(t, out.Questions)
		if err == nil {
			back, err := ParseSubQuestions(FormatSubQuestions(out))
			if err != nil || strings.Join(back.Questions, "\n") != strings.Join(out.Questions, "\n") {
				t.Fatalf("format/parse changed %q into %q (%v)", out.Questions, back.Questions, err)
			}
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, seed := range []string{
		"Rating: 4", "**4**/5", "3 out of 5", `{"rating": 2}`, "score is 1", "I'd give 3 on a 0-5 scale", "Rating: -1",
		"Rating: 1e400", "Rating: 99999999999999999999999", "", "<think>5</think>2",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		out, err := ParseRate(answer)
		checkParseError(t, TaskRate, err)
		if out.Rating < MinRating || out.Rating > MaxRating {
			t.Fatalf("rating %d outside %d..%d", out.Rating, MinRating, MaxRating)
		}
	})
}

func FuzzParseYesNoTasks(f *testing.F) {
	for _, seed := range []string{"yes", "No.", "Answer: yes", `{"yes": false}`, "maybe", "", "yes and no"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		p, err1 := ParsePointwise(answer)
		checkParseError(t, TaskPointwise, err1)
		s, err2 := ParseSupport(answer)
		checkParseError(t, TaskSupport, err2)
		if (err1 == nil) != (err2 == nil) || p.Relevant != s.Yes {
			t.Fatalf("pointwise %v (%v) and support %v (%v) read the same answer differently", p, err1, s, err2)
		}
	})
}

func FuzzParseSetwise(f *testing.F) {
	for _, seed := range []string{"C", "Document B", "Answer: d", `{"choice": "A"}`, "I think B.", "A document.", "", "[3]", "\xffZ"} {
		f.Add(seed, 5)
	}
	f.Fuzz(func(t *testing.T, answer string, n int) {
		n = fuzzItems(n)
		out, err := ParseSetwise(answer, n)
		checkParseError(t, TaskSetwise, err)
		if err == nil && (out.Choice < 0 || out.Choice >= n) {
			t.Fatalf("choice %d outside 0..%d", out.Choice, n-1)
		}
		if n >= 1 && n <= MaxSetSize && err == nil {
			back, err := ParseSetwise(FormatSetwise(out), n)
			if err != nil || back != out {
				t.Fatalf("format/parse changed %+v into %+v (%v)", out, back, err)
			}
		}
	})
}

func FuzzParseSetR(f *testing.F) {
	for _, seed := range []string{
		"### Requirements\n1. a\n### Documents per requirement\n1: [2]\n### Final Selection: [2]",
		"**Requirements:**\n- R1: a\n**Passages:**\n- a: [1], [9]\nFinal selection: 1, 2", "### Final Selection: none", "",
		"1. x → [1]\n   - Passages: [3]\nFinal Selection [1]", "Requirement 999: [1]\n### Final Selection: [1]",
	} {
		f.Add(seed, 4)
	}
	f.Fuzz(func(t *testing.T, answer string, n int) {
		n = fuzzItems(n)
		out, err := ParseSetR(answer, n)
		checkParseError(t, TaskSetR, err)
		inRange := func(ps []int) {
			seen := map[int]bool{}
			for _, p := range ps {
				if p < 0 || p >= n || seen[p] {
					t.Fatalf("positions %v: repeated or outside 0..%d", ps, n-1)
				}
				seen[p] = true
			}
		}
		inRange(out.Selection.Order)
		for _, r := range out.Requirements {
			if r.Text == "" || len(r.Text) > maxQuestionChars {
				t.Fatalf("bad requirement text %q", r.Text)
			}
			inRange(r.Docs)
		}
		if err == nil && n > 0 {
			back, err := ParseSetR(FormatSetR(out), n)
			if err != nil || FormatSetR(back) != FormatSetR(out) {
				t.Fatalf("format/parse is not stable: %q then %q (%v)", FormatSetR(out), FormatSetR(back), err)
			}
		}
	})
}

func FuzzParseRequirements(f *testing.F) {
	for _, seed := range []string{
		"1. (weight 5) a\n2. (weight 2) b", "- a (weight: 4)\n- b — importance 3/5", "1. 5 | a\n2. b (2)", `[{"requirement": "a", "weight": "x"}]`,
		"Requirement 1: [w=9] a", "", "[]", "(weight 1e999) a", "- \n- (weight 2)",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		out, err := ParseRequirements(answer)
		checkParseError(t, TaskRequirements, err)
		if err == nil && len(out.Requirements) == 0 {
			t.Fatal("no error and no requirement")
		}
		texts := make([]string, len(out.Requirements))
		for i, r := range out.Requirements {
			if r.Weight < MinRequirementWeight || r.Weight > MaxRequirementWeight {
				t.Fatalf("weight %d outside 1..5", r.Weight)
			}
			texts[i] = r.Text
		}
		checkEntries(t, texts)
	})
}
