// Package prompts is the one place where Crucible's model prompts live.
//
// Every task of the report pipeline has, side by side in its own file
// (verify.go holds both verification tasks):
//
//   - its task name (a pipeline.Task constant),
//   - a typed input (XInput) and a builder BuildX that turns it into a
//     pipeline.ModelRequest carrying both the chat messages and the input,
//   - a typed output (XOutput), a tolerant parser ParseX that reads a
//     model's answer, and a formatter FormatX that writes an output in the
//     canonical answer format.
//
// The OpenAI-compatible client sends the messages; the offline engine reads
// the structured input and answers through FormatX, so the same ParseX reads
// both kinds of answer. ParseX(FormatX(out)) gives back out, up to the
// flattening that FormatX documents (whitespace collapsed to single spaces,
// confidences as whole percentages, ...), and FormatX(ParseX(FormatX(out)))
// is FormatX(out).
//
// Parsers accept the usual deviations of real models: prose before or after
// the answer, markdown (code fences, bold, bullets, numbering, headings),
// JSON instead of lines, other capitalisation, trailing punctuation and
// <think> sections of reasoning models. When nothing usable is found they
// return a *ParseError, which wraps pipeline.ErrInvalid; when only part of an
// answer is unusable they return what they could read and list the rest in
// the output's ParseReport.
//
// # Yes/no answers
//
// The paraphrase and verification tasks answer "yes" or "no". Their
// parsers trust, in this order: a JSON object (its first boolean, or string
// reading yes or no, in key order); a first word that is yes or no ("Yes.",
// "**No**, because ..."); the last label such as "Answer: no" or "the final
// answer is **yes**"; the last line that is only yes or no; the only one of
// the two words the answer uses; an answer that is only "true" or "false".
// Prose that uses both words with none of these marks is a *ParseError.
// YesProbability reads the same answers' token log-probabilities.
package prompts

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// The tasks of the report pipeline, one per kind of model request.
const (
	// TaskSummarize asks for a request-focused summary of one document.
	TaskSummarize pipeline.Task = "summarize"
	// TaskNuggets asks for question-and-answer nuggets from a summary.
	TaskNuggets pipeline.Task = "nuggets"
	// TaskParaphrase asks whether two nuggets ask for the same information.
	TaskParaphrase pipeline.Task = "paraphrase"
	// TaskNuggetQuality asks for the quality judgements of one nugget.
	TaskNuggetQuality pipeline.Task = "nugget_quality"
	// TaskExtract asks for a supported, self-contained answer sentence from
	// one passage.
	TaskExtract pipeline.Task = "extract"
	// TaskVerifySupport asks whether a passage supports a sentence.
	TaskVerifySupport pipeline.Task = "verify_support"
	// TaskVerifyCoverage asks whether a sentence answers a nugget's question.
	TaskVerifyCoverage pipeline.Task = "verify_coverage"
	// TaskFacets asks for the facets of a request: the things its problem
	// statement asks for, each with a short heading the report's sentences
	// are grouped under.
	TaskFacets pipeline.Task = "facets"
)

// Tasks lists every task of the package, in pipeline order.
func Tasks() []pipeline.Task {
	return []pipeline.Task{
		TaskSummarize, TaskNuggets, TaskParaphrase, TaskNuggetQuality,
		TaskExtract, TaskVerifySupport, TaskVerifyCoverage, TaskFacets,
	}
}

// MaxDocChars bounds the document or passage text a prompt carries, in
// characters (runes). Longer texts are cut at a word boundary and the prompt
// says so.
const MaxDocChars = 12000

// RequestInfo is the report request as the prompts show it.
type RequestInfo struct {
	ID               string
	Title            string
	Background       string
	ProblemStatement string
	// Limit is the report's length limit as the request states it. No
	// prompt of this package writes the report, so none shows it.
	Limit int
}

// QA is a nugget: a question and its short answer.
type QA struct {
	Question string
	Answer   string
}

// ParseError reports a model answer from which nothing usable could be
// read. It wraps pipeline.ErrInvalid.
type ParseError struct {
	Task pipeline.Task
	// Reason says what was missing or wrong.
	Reason string
	// Snippet is the start of the answer, flattened to one line.
	Snippet string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("parse %s answer: %s (answer begins %q)", e.Task, e.Reason, e.Snippet)
}

// Unwrap makes errors.Is(err, pipeline.ErrInvalid) true.
func (e *ParseError) Unwrap() error { return pipeline.ErrInvalid }

// snippetBytes bounds ParseError.Snippet and SkippedEntry.Text.
const snippetBytes = 160

func parseErrorf(task pipeline.Task, text, format string, args ...any) *ParseError {
	return &ParseError{Task: task, Reason: fmt.Sprintf(format, args...), Snippet: snippet(text)}
}

// snippet flattens s to one line and cuts it to about snippetBytes bytes
// without splitting a character.
func snippet(s string) string {
	s = flatten(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= snippetBytes {
		return s
	}
	cut := snippetBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ParseReport lists what a parser read but could not use. An empty report
// means the whole answer was understood.
type ParseReport struct {
	// Skipped lists entries that were dropped (for example a nugget with no
	// answer), in answer order.
	Skipped []SkippedEntry
	// Missing names the fields that were absent or unreadable and were given
	// their documented default, in canonical field order.
	Missing []string
}

// SkippedEntry is one dropped piece of an answer.
type SkippedEntry struct {
	// Text is the entry as it appeared, flattened and shortened.
	Text string
	// Reason says why it was dropped.
	Reason string
}

// Empty reports whether nothing was skipped or missing.
func (r ParseReport) Empty() bool { return len(r.Skipped) == 0 && len(r.Missing) == 0 }

func (r *ParseReport) skip(text, reason string) {
	r.Skipped = append(r.Skipped, SkippedEntry{Text: snippet(text), Reason: reason})
}

// systemPrompt opens every conversation.
const systemPrompt = "You assist an analyst who writes cited reports from a collection of documents. " +
	"Follow the instructions of each message exactly and use only the material it gives you. " +
	"Always write in English, whatever the language of the material. " +
	"Reply in the output format you are asked for and nothing else: no introduction, no explanation, no closing remarks."

// closingLine ends every user message.
const closingLine = "Answer in English, in exactly this format, with nothing before or after it."

func messages(user string) []pipeline.Message {
	return []pipeline.Message{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: user},
	}
}

// writeRequest writes the request block of a prompt. Empty fields are left
// out; single-line fields are flattened so they cannot break the layout.
func writeRequest(b *strings.Builder, r RequestInfo) {
	b.WriteString("Report request\n")
	wrote := false
	if t := flatten(r.Title); t != "" {
		fmt.Fprintf(b, "Title: %s\n", t)
		wrote = true
	}
	if p := strings.TrimSpace(r.ProblemStatement); p != "" {
		fmt.Fprintf(b, "Problem statement: %s\n", p)
		wrote = true
	}
	if g := strings.TrimSpace(r.Background); g != "" {
		fmt.Fprintf(b, "Background: %s\n", g)
		wrote = true
	}
	if !wrote {
		b.WriteString("(The request gives no details.)\n")
	}
}

// writeDocHeader names a document in a prompt.
func writeDocHeader(b *strings.Builder, kind, id, title string) {
	fmt.Fprintf(b, "%s %s", kind, orDash(flatten(id)))
	if t := flatten(title); t != "" {
		fmt.Fprintf(b, ", titled %q", t)
	}
	b.WriteString(":\n")
}

// writeDocByline writes the document's author and date, the attribution
// of what it says, when either is known.
func writeDocByline(b *strings.Builder, author, date string) {
	author, date = flatten(author), flatten(date)
	switch {
	case author != "" && date != "":
		fmt.Fprintf(b, "Author: %s. Date: %s.\n", author, date)
	case author != "":
		fmt.Fprintf(b, "Author: %s. Date: unknown.\n", author)
	case date != "":
		fmt.Fprintf(b, "Author: unknown. Date: %s.\n", date)
	}
}

func orDash(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}

// truncateText cuts s to at most max runes, at the last word boundary
// before the limit when there is one, and reports whether it cut.
func truncateText(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	cut, n := 0, 0
	for i := range s {
		if n == max {
			cut = i
			break
		}
		n++
	}
	head := s[:cut]
	// Back up to the last whitespace so no word is split, unless that would
	// throw away most of the text (one enormous "word").
	if i := strings.LastIndexFunc(head, isSpace); i > len(head)/2 {
		head = head[:i]
	}
	return strings.TrimSpace(head), true
}
