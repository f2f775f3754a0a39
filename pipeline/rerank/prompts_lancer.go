package rerank

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// MaxSubQuestions bounds LANCER's n.
const MaxSubQuestions = 10

// maxQuestionChars bounds one parsed sub-question or requirement; longer
// entries are prose, not a question.
const maxQuestionChars = 400

// SubQuestionsInput asks for n sub-questions of a request (LANCER).
type SubQuestionsInput struct {
	Request prompts.RequestInfo
	// N is the number of sub-questions asked for, 1..MaxSubQuestions.
	N int
}

// SubQuestionsOutput is a list of sub-questions.
type SubQuestionsOutput struct {
	// Questions are the distinct questions in answer order. The parser
	// keeps every one it reads; the reranker uses the first N.
	Questions []string
	// Report lists dropped entries (blank, repeated, overlong).
	Report prompts.ParseReport
}

// subQuestionExamples illustrate the format with a request that has
// nothing to do with any real one, so the example cannot leak into the
// answer.
var subQuestionExamples = []string{
	"What flood barrier did the city council approve, and when?",
	"How much will the barrier cost, and who pays for it?",
	"Which groups object to the barrier, and on what grounds?",
	"How often has the river flooded the city since 2000?",
	"What damage did the most recent flood cause?",
	"How long will construction take, and what disruption will it bring?",
	"What alternatives to a barrier were considered?",
	"What do engineers expect the barrier to protect against?",
	"How have neighbouring towns defended themselves against floods?",
	"What happens to the project if its funding falls short?",
}

// BuildSubQuestions builds the rerank_subquestions request. N is clamped
// to 1..MaxSubQuestions.
func BuildSubQuestions(in SubQuestionsInput) pipeline.ModelRequest {
	n := min(max(in.N, 1), MaxSubQuestions)
	in.N = n
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	fmt.Fprintf(&b, "\nBefore the collection is searched, split the request into %d sub-questions that together cover what a complete report must answer. ", n)
	b.WriteString("Make them differ from one another: each should ask about a separate aspect, party, period or consequence, " +
		"so that a document could answer one of them without answering the others. Each sub-question must make sense on its own " +
		"(name its subject instead of writing \"it\" or \"this\"), must be answerable from a single document, and must be one " +
		"question of at most 25 words.\n\n")
	fmt.Fprintf(&b, "Output format: %d lines numbered 1 to %d, one question per line. For example, for a request about a city's flood defences:\n\n", n, n)
	b.WriteString(FormatSubQuestions(SubQuestionsOutput{Questions: subQuestionExamples[:n]}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskSubQuestions,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   subQuestionsMaxTokens * n,
		Temperature: 0,
	}
}

// FormatSubQuestions writes numbered lines "1. question", each question
// flattened to one line; blank questions are left out.
func FormatSubQuestions(out SubQuestionsOutput) string {
	var lines []string
	for _, q := range out.Questions {
		if q = formatLine(q); q != "" {
			lines = append(lines, fmt.Sprintf("%d. %s", len(lines)+1, q))
		}
	}
	return strings.Join(lines, "\n")
}

// reQuestionLabel opens a line labelled "Sub-question 1:", "Q2.",
// "**Question 3:**" or "Question:" (without a number, only a colon).
var reQuestionLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?\s*(?:sub[\s-]*question|question|q)\s*(?:\d{1,3}\s*(?:\*\*|__)?\s*[:.)：]|(?:\*\*|__)?\s*[:：])\s*(?:\*\*|__)?`)

// ParseSubQuestions reads a list of questions: numbered or bulleted lines
// (prose around them ignored), lines labelled "Sub-question 1:", "Q2:",
// a JSON array of strings or of objects with a "question" field (or an
// object holding such an array), or, when nothing is listed, the lines
// ending in '?'. Markdown, quotes and code fences are removed; blank,
// repeated (ignoring case) and overlong entries are dropped and reported.
// An answer with no question is a *prompts.ParseError.
func ParseSubQuestions(text string) (SubQuestionsOutput, error) {
	clean := cleanText(text)
	if clean == "" {
		return SubQuestionsOutput{}, parseErrorf(TaskSubQuestions, text, "the answer is empty")
	}
	var out SubQuestionsOutput
	entries := jsonStrings(clean, "question", "questions", "sub_questions", "subquestions")
	if len(entries) == 0 {
		entries = listedLines(clean, reQuestionLabel, func(t string) bool { return strings.HasSuffix(t, "?") })
	}
	out.Questions = distinctEntries(entries, &out.Report)
	if len(out.Questions) == 0 {
		return out, parseErrorf(TaskSubQuestions, text, "no question found")
	}
	return out, nil
}

// jsonStrings reads the first JSON value of the answer as a list of
// entries: an array of strings, an array of objects (the field named
// field, else the first string field), or an object holding such an array
// under one of keys (else its first array). Anything else gives nil.
func jsonStrings(clean, field string, keys ...string) []string {
	js := firstJSONValue(clean)
	if js == "" {
		return nil
	}
	var v any
	if err := json.NewDecoder(strings.NewReader(js)).Decode(&v); err != nil {
		return nil
	}
	if obj, ok := v.(map[string]any); ok {
		v = nil
		for _, k := range keys {
			if arr, ok := obj[k].([]any); ok {
				v = arr
				break
			}
		}
		if v == nil {
			for _, k := range sortedKeys(obj) {
				if arr, ok := obj[k].([]any); ok {
					v = arr
					break
				}
			}
		}
	}
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, item := range arr {
		switch x := item.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			if s, ok := x[field].(string); ok {
				out = append(out, s)
				continue
			}
			for _, k := range sortedKeys(x) {
				if s, ok := x[k].(string); ok {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

// firstJSONValue returns the text from the first line that opens a JSON
// array or object ("[1] ..." lines included; the decoder rejects them).
func firstJSONValue(s string) string {
	off := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			return strings.TrimSpace(s[off:])
		}
		off += len(line)
	}
	return ""
}

// sortedKeys returns the keys of m sorted, for a deterministic reading of
// a decoded JSON object (whose key order is lost).
func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// listedLines returns the entries of a list answer: the lines opened by a
// list marker or by label, with the marker removed, when there are any;
// else the lines fallback accepts.
func listedLines(clean string, label *regexp.Regexp, fallback func(string) bool) []string {
	var listed, other []string
	for _, line := range strings.Split(clean, "\n") {
		t, isListed := stripListMarker(line)
		for loc := label.FindStringIndex(t); loc != nil && loc[1] > 0; loc = label.FindStringIndex(t) {
			t, isListed = strings.TrimSpace(t[loc[1]:]), true
		}
		t = unwrapEmphasis(t)
		if t == "" {
			if isListed {
				listed = append(listed, "") // a blank entry, reported
			}
			continue
		}
		if isListed {
			listed = append(listed, t)
		} else if fallback(t) {
			other = append(other, t)
		}
	}
	if len(listed) > 0 {
		return listed
	}
	return other
}

// distinctEntries cleans entries and drops blank, overlong and repeated
// ones, recording them in report.
func distinctEntries(entries []string, report *prompts.ParseReport) []string {
	seen := map[string]bool{}
	var out []string
	for _, raw := range entries {
		e := unwrapEmphasis(formatLine(raw))
		switch key := strings.ToLower(e); {
		case e == "":
			report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: "blank entry"})
		case len(e) > maxQuestionChars:
			report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: "longer than a question"})
		case seen[key]:
			report.Skipped = append(report.Skipped, prompts.SkippedEntry{Text: snippet(raw), Reason: "repeats an earlier entry"})
		default:
			seen[key] = true
			out = append(out, e)
		}
	}
	return out
}

// RateInput asks how well one document answers one sub-question, read
// together with the request (LANCER's answerability rating).
type RateInput struct {
	Request  prompts.RequestInfo
	Question string
	Doc      PromptDoc
}

// RateOutput is an answerability rating, MinRating..MaxRating.
type RateOutput struct {
	Rating int
}

// BuildRate builds the rerank_rate request. The query it shows is the
// request's title and problem statement followed by the sub-question.
func BuildRate(in RateInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report and needs documents that answer the question below. " +
		"The question is the report request followed by one of its sub-questions; judge the sub-question in the light of the request.\n\n")
	b.WriteString("Question: " + flatten(requestQuery(in.Request)+" "+in.Question) + "\n\n")
	writeDocBlock(&b, "Document", in.Doc)
	b.WriteString("\nHow well does this document answer the question? Rate it on this scale:\n" +
		"5 = it answers the question fully and directly;\n" +
		"4 = it answers most of the question;\n" +
		"3 = it answers part of the question;\n" +
		"2 = it gives related facts that help only a little;\n" +
		"1 = it touches the subject but does not answer;\n" +
		"0 = it has nothing to do with the question.\n" +
		"Use only what the document says.\n\n")
	b.WriteString("Output format: one line with the rating, a whole number from 0 to 5. For example:\n\n")
	b.WriteString(FormatRate(RateOutput{Rating: 3}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskRate,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   rateMaxTokens,
		Temperature: 0,
	}
}

// FormatRate writes "Rating: N", the rating clamped to 0..5.
func FormatRate(out RateOutput) string {
	return "Rating: " + strconv.Itoa(min(max(out.Rating, MinRating), MaxRating))
}

var (
	reRatingLabel = regexp.MustCompile(`(?i)\b(?:rating|score|answerability|grade)\b["']?\s*(?:\*\*|__)?\s*(?:is\s*|of\s*)?[:：=]?\s*(?:\*\*|__)?\s*["']?\s*(-?\d+(?:\.\d+)?)`)
	reRatingLine  = regexp.MustCompile(`(?i)^(-?\d+(?:\.\d+)?)\s*(?:/\s*5|out\s+of\s+5)?\s*[.!]?$`)
	reOutOfFive   = regexp.MustCompile(`(?i)(?:/\s*5|out\s+of\s+5|0\s*(?:-|–|to)\s*5)\b`)
	reNumber      = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
)

// ParseRate reads a 0–5 rating. In order of trust: a JSON object's
// "rating" (or "score", else its first number); the last "Rating: N"
// style label ("score", "answerability" and "grade" count too, "is" and
// "of" may follow); a first line that is only the number ("4", "**4**",
// "4/5", "4 out of 5"); the last such line; the only number of the answer
// once "/5", "out of 5" and "0-5" are removed. Decimals round to the
// nearest whole number. A rating outside 0..5 or no rating is a
// *prompts.ParseError: LANCER then counts the rating as 0.
func ParseRate(text string) (RateOutput, error) {
	clean := cleanText(text)
	if clean == "" {
		return RateOutput{}, parseErrorf(TaskRate, text, "the answer is empty")
	}
	value, ok := ratingValue(clean)
	if !ok {
		return RateOutput{}, parseErrorf(TaskRate, text, "no rating found")
	}
	f, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(f) {
		return RateOutput{}, parseErrorf(TaskRate, text, "rating %q is not a number", value)
	}
	r := math.Round(f)
	if r < MinRating || r > MaxRating {
		return RateOutput{}, parseErrorf(TaskRate, text, "rating %s is outside %d..%d", value, MinRating, MaxRating)
	}
	return RateOutput{Rating: int(r)}, nil
}

// ratingValue finds the rating's digits in a cleaned answer.
func ratingValue(clean string) (string, bool) {
	if js := firstJSONValue(clean); strings.HasPrefix(js, "{") {
		var obj map[string]any
		if err := json.NewDecoder(strings.NewReader(js)).Decode(&obj); err == nil {
			for _, k := range []string{"rating", "score"} {
				if f, ok := obj[k].(float64); ok {
					return strconv.FormatFloat(f, 'f', -1, 64), true
				}
			}
			for _, k := range sortedKeys(obj) {
				if f, ok := obj[k].(float64); ok {
					return strconv.FormatFloat(f, 'f', -1, 64), true
				}
			}
		}
	}
	if m := reRatingLabel.FindAllStringSubmatch(clean, -1); len(m) > 0 {
		return m[len(m)-1][1], true
	}
	lines := strings.Split(clean, "\n")
	lineValue := func(line string) (string, bool) {
		t, _ := stripListMarker(line)
		if m := reRatingLine.FindStringSubmatch(unwrapEmphasis(t)); m != nil {
			return m[1], true
		}
		return "", false
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if v, ok := lineValue(l); ok {
			return v, true
		}
		break
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if v, ok := lineValue(lines[i]); ok {
			return v, true
		}
	}
	if nums := reNumber.FindAllString(reOutOfFive.ReplaceAllString(clean, " "), 2); len(nums) == 1 {
		return nums[0], true
	}
	return "", false
}
