package prompts

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// NuggetsInput asks for question-and-answer nuggets drawn from one
// document's summary.
type NuggetsInput struct {
	Request  RequestInfo
	DocID    string
	DocTitle string
	Summary  string
	// Max is the most nuggets to ask for; 0 or less means DefaultMaxNuggets.
	Max int
}

// NuggetsOutput is the nuggets of one answer.
type NuggetsOutput struct {
	Nuggets []QA
	// Report lists the entries that were dropped (a question without an
	// answer, an answer without a question, a blank question).
	Report ParseReport
}

// DefaultMaxNuggets is the number of nuggets asked for when
// NuggetsInput.Max is not set.
const DefaultMaxNuggets = 5

// nuggetsTokensEach and nuggetsTokensBase size MaxTokens for Max nuggets.
const (
	nuggetsTokensEach = 80
	nuggetsTokensBase = 64
)

var nuggetsExample = NuggetsOutput{Nuggets: []QA{
	{Question: "How much did the city council of Dortmund approve for the flood barrier in May 2021?", Answer: "12 million euros"},
	{Question: "How long do engineers expect construction of the Dortmund flood barrier to take?", Answer: "three years"},
}}

// BuildNuggets builds the nuggets request.
func BuildNuggets(in NuggetsInput) pipeline.ModelRequest {
	max := in.Max
	if max <= 0 {
		max = DefaultMaxNuggets
	}
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nBelow is a summary of one document, written with this request in mind. ")
	fmt.Fprintf(&b, "Turn what it says into at most %d questions, each with its answer, "+
		"that a good report on the request should be able to answer.\n", max)
	b.WriteString("- Every question must make sense on its own, to someone who has not seen the summary: " +
		"name the people, organisations, places, events and dates it is about instead of writing \"he\", \"it\", " +
		"\"the event\" or \"the document\".\n")
	b.WriteString("- Every answer is short: a name, a number, a date or a few words taken from the summary, never a whole sentence.\n")
	b.WriteString("- Ask only what the summary answers, and do not ask the same thing twice.\n")
	b.WriteString("- Do not put a line break or the character | inside a question.\n")
	b.WriteString("If the summary holds nothing that matters for the request, reply with the single word NONE.\n\n")
	writeDocHeader(&b, "Summary of document", in.DocID, in.DocTitle)
	b.WriteString("<summary>\n")
	b.WriteString(strings.TrimSpace(in.Summary))
	b.WriteString("\n</summary>\n\n")
	b.WriteString("Output format: one question per line, numbered from 1, each written as\n" +
		"N. Q: <question> | A: <answer>\nor the single word NONE. For example:\n\n")
	b.WriteString(FormatNuggets(nuggetsExample))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
	return pipeline.ModelRequest{
		Task:        TaskNuggets,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   nuggetsTokensBase + nuggetsTokensEach*max,
		Temperature: 0,
	}
}

// FormatNuggets writes nuggets in the canonical format: one line per
// nugget, "N. Q: <question> | A: <answer>", numbered from 1. Both fields
// are flattened to one line (whitespace runs become one space, wrapping
// markdown is removed) and a '|' inside a question becomes '/', so the
// first "| A:" of a line always separates the two. Nuggets whose question
// or answer is blank are left out; with none left it writes "NONE".
func FormatNuggets(out NuggetsOutput) string {
	var b strings.Builder
	n := 0
	for _, qa := range out.Nuggets {
		q := formatQuestion(qa.Question)
		a := formatValue(qa.Answer)
		if q == "" || a == "" {
			continue
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		n++
		fmt.Fprintf(&b, "%d. Q: %s | A: %s", n, q, a)
	}
	if n == 0 {
		return "NONE"
	}
	return b.String()
}

func formatQuestion(q string) string {
	return formatValue(strings.ReplaceAll(q, "|", "/"))
}

func matchQuestionKey(k string) (string, bool) {
	if k == "q" || k == "question" || k == "nugget question" {
		return "question", true
	}
	if rest, ok := strings.CutPrefix(k, "question "); ok && isDigits(rest) {
		return "question", true
	}
	if rest, ok := strings.CutPrefix(k, "q"); ok && isDigits(strings.TrimSpace(rest)) {
		return "question", true
	}
	return "", false
}

func matchAnswerKey(k string) (string, bool) {
	if k == "a" || k == "answer" || k == "short answer" || k == "nugget answer" {
		return "answer", true
	}
	if rest, ok := strings.CutPrefix(k, "answer "); ok && isDigits(rest) {
		return "answer", true
	}
	if rest, ok := strings.CutPrefix(k, "a"); ok && isDigits(strings.TrimSpace(rest)) {
		return "answer", true
	}
	return "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// reInlineAnswer finds an answer label inside a question line that has no
// '|' before it: "Q: When? A: 1994", "Q: When? - Answer: 1994".
var reInlineAnswer = regexp.MustCompile(`(?i)(?:\s+|\s*[;,–—-]\s*)(\*\*|__)?(?:a|answer)(?:\s*\d{1,3})?(?:\*\*|__)?\s*[:：]`)

// splitQA splits the rest of a question line into question and answer:
// at the first '|' followed by an answer label, else at an inline answer
// label, else at the first '|'.
func splitQA(rest string) (q, a string, ok bool) {
	for i := 0; i < len(rest); i++ {
		if rest[i] != '|' {
			continue
		}
		if _, v, ok := cutLabel(strings.TrimSpace(rest[i+1:]), false, matchAnswerKey); ok {
			return rest[:i], v, true
		}
	}
	if loc := reInlineAnswer.FindStringSubmatchIndex(rest); loc != nil && loc[0] > 0 {
		after := rest[loc[1]:]
		if loc[2] >= 0 {
			after = strings.TrimPrefix(after, rest[loc[2]:loc[3]])
		}
		return rest[:loc[0]], after, true
	}
	if i := strings.IndexByte(rest, '|'); i >= 0 {
		return rest[:i], rest[i+1:], true
	}
	return "", "", false
}

// ParseNuggets reads a nuggets answer. It accepts the canonical lines and
// also: "Q:" and "A:" on separate lines ("Question 1:", "**Answer:**" ...),
// "Q: ... A: ..." without the '|', a JSON array of objects with
// question/answer fields (or an object holding such an array), markdown
// tables, unlabeled list entries "What ...? - answer", with or without
// numbering, bullets, bold and code fences, and ignores prose around them.
// Entries with no answer, answers with no question and blank entries are
// dropped and listed in Report.Skipped. "NONE" gives no nuggets and no
// error; an answer with no complete nugget otherwise is a *ParseError.
func ParseNuggets(text string) (NuggetsOutput, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return NuggetsOutput{}, parseErrorf(TaskNuggets, text, "the answer is empty")
	}
	// JSON first; lines when the JSON gives nothing (a line such as
	// "[1] Q: ..." also opens like JSON).
	var jsonReport ParseReport
	emptyJSON := false
	if js := firstJSON(clean); js != "" {
		nuggets, ok := nuggetsFromJSON(js, &jsonReport)
		if len(nuggets) > 0 {
			return NuggetsOutput{Nuggets: nuggets, Report: jsonReport}, nil
		}
		emptyJSON = ok && len(jsonReport.Skipped) == 0
	}
	var out NuggetsOutput
	out.Nuggets = nuggetsFromLines(clean, &out.Report)
	if len(out.Nuggets) > 0 {
		return out, nil
	}
	if len(out.Report.Skipped) == 0 {
		out.Report = jsonReport
	}
	if first, _ := stripLineMarkup(strings.SplitN(clean, "\n", 2)[0]); isNoneMarker(first) || emptyJSON {
		// NONE, or an empty JSON list: the document gave no nuggets.
		return NuggetsOutput{Report: out.Report}, nil
	}
	if n := len(out.Report.Skipped); n > 0 {
		return out, parseErrorf(TaskNuggets, text, "no complete question and answer; %d entries dropped, the first because it had %s",
			n, out.Report.Skipped[0].Reason)
	}
	return out, parseErrorf(TaskNuggets, text, "no question and answer found")
}

// Reasons for dropping a nugget entry.
const (
	reasonNoAnswer   = "a question but no answer"
	reasonNoQuestion = "an answer but no question"
	reasonBlank      = "a blank question or answer"
)

// nuggetCollector gathers nuggets and what was dropped.
type nuggetCollector struct {
	report  *ParseReport
	nuggets []QA
}

func (c *nuggetCollector) add(q, a, raw string) {
	q, a = cleanValue(q), cleanValue(a)
	if q == "" || a == "" {
		c.report.skip(raw, reasonBlank)
		return
	}
	c.nuggets = append(c.nuggets, QA{Question: q, Answer: a})
}

func nuggetsFromLines(clean string, report *ParseReport) []QA {
	c := nuggetCollector{report: report}
	var pending, pendingRaw string // a question waiting for its answer line
	hasPending := false
	flush := func() {
		if hasPending {
			c.report.skip(pendingRaw, reasonNoAnswer)
		}
		hasPending = false
	}
	for _, line := range strings.Split(clean, "\n") {
		t, listed := stripLineMarkup(line)
		if t == "" {
			continue
		}
		if _, rest, ok := cutLabel(t, false, matchQuestionKey); ok {
			flush()
			if q, a, ok := splitQA(rest); ok {
				c.add(q, a, line)
			} else {
				pending, pendingRaw, hasPending = rest, line, true
			}
			continue
		}
		if _, a, ok := cutLabel(t, false, matchAnswerKey); ok {
			if hasPending {
				c.add(pending, a, pendingRaw+" "+line)
				hasPending = false
			} else {
				c.report.skip(line, reasonNoQuestion)
			}
			continue
		}
		if cells, ok := tableCells(t); ok {
			flush()
			if len(cells) == 2 && !isTableHeader(cells) {
				c.add(cells[0], cells[1], line)
			}
			continue
		}
		if listed || strings.Contains(t, "|") {
			if q, a, ok := splitUnlabeled(t); ok {
				flush()
				if a == "" {
					pending, pendingRaw, hasPending = q, line, true
				} else {
					c.add(q, a, line)
				}
				continue
			}
		}
		// A line that continues a question which has not ended yet.
		if hasPending && !strings.HasSuffix(strings.TrimSpace(pending), "?") && !listed {
			pending += " " + t
			pendingRaw += " " + line
		}
	}
	flush()
	return c.nuggets
}

// splitUnlabeled reads a list entry with no labels: "What ...? | answer",
// "What ...? - answer", "What ...? answer", or a bare question "What ...?"
// (answer ""). The question ends at the first '|' or the last '?'.
func splitUnlabeled(t string) (q, a string, ok bool) {
	if i := strings.IndexByte(t, '|'); i >= 0 {
		return t[:i], strings.TrimSpace(t[i+1:]), true
	}
	i := strings.LastIndexAny(t, "?？")
	if i < 0 {
		return "", "", false
	}
	_, size := utf8.DecodeRuneInString(t[i:])
	end := i + size
	a = strings.TrimSpace(t[end:])
	a = strings.TrimSpace(strings.TrimLeft(a, "-–—:→>= "))
	if _, v, ok := cutLabel(a, false, matchAnswerKey); ok {
		a = v
	}
	return t[:end], a, true
}

// tableCells splits a markdown table row "| a | b |" into its non-empty
// cells, leaving out cells that only number the row. Separator rows
// ("|---|---|") give no cells.
func tableCells(t string) ([]string, bool) {
	if len(t) < 2 || t[0] != '|' || t[len(t)-1] != '|' {
		return nil, false
	}
	var cells []string
	for _, cell := range strings.Split(t[1:len(t)-1], "|") {
		cell = strings.TrimSpace(cell)
		if cell == "" || isDigits(strings.TrimRight(cell, ".")) || strings.Trim(cell, "-: ") == "" {
			continue
		}
		cells = append(cells, cell)
	}
	return cells, true
}

func isTableHeader(cells []string) bool {
	_, q := matchQuestionKey(normalizeKey(cells[0]))
	_, a := matchAnswerKey(normalizeKey(cells[1]))
	return q && a
}

// nuggetsFromJSON reads a JSON array of nugget objects, or an object that
// holds one (under any key) or is one. It reports false when js is not
// JSON of that shape.
func nuggetsFromJSON(js string, report *ParseReport) ([]QA, bool) {
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	items, ok := jsonNuggetItems(v, 0)
	if !ok {
		return nil, false
	}
	c := nuggetCollector{report: report}
	for _, item := range items {
		obj, ok := item.(map[string]any)
		if !ok {
			c.report.skip(jsonText(item), "no question and answer fields")
			continue
		}
		var q, a string
		var hasQ, hasA bool
		for _, k := range sortedKeys(obj) {
			v := obj[k]
			key := normalizeKey(k)
			if _, ok := matchQuestionKey(key); ok && !hasQ {
				q, hasQ = jsonScalar(v), true
			} else if _, ok := matchAnswerKey(key); ok && !hasA {
				a, hasA = jsonScalar(v), true
			}
		}
		switch {
		case hasQ && hasA:
			c.add(q, a, jsonText(item))
		case hasQ:
			c.report.skip(jsonText(item), reasonNoAnswer)
		case hasA:
			c.report.skip(jsonText(item), reasonNoQuestion)
		default:
			c.report.skip(jsonText(item), "no question and answer fields")
		}
	}
	return c.nuggets, true
}

// jsonNuggetItems finds the list of nugget objects in a decoded JSON value.
func jsonNuggetItems(v any, depth int) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case map[string]any:
		if depth > 4 {
			return nil, false
		}
		keys := sortedKeys(v)
		for _, k := range keys {
			if _, ok := matchQuestionKey(normalizeKey(k)); ok {
				return []any{v}, true
			}
		}
		for _, k := range keys {
			if items, ok := jsonNuggetItems(v[k], depth+1); ok {
				return items, true
			}
		}
	}
	return nil, false
}

// jsonScalar renders a JSON string, number or boolean as text; other
// values (null, arrays, objects) as "".
func jsonScalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// sortedKeys returns the keys of m in order, so JSON objects are read the
// same way every time.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
