package rerank

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// This file holds what the prompts of the model-driven rerankers share:
// their task names, the documents they show, and the text handling of
// their builders and parsers. Each task has, as in package prompts, a typed
// input (XInput) that its request carries beside the chat messages, a
// builder BuildX, a tolerant parser ParseX and a formatter FormatX that
// writes an answer in the canonical format, so the offline engine
// (pipeline/llm/offline) answers through FormatX and the reranker reads
// its answers with the same ParseX it uses for a model's.

// The reranking tasks, one per kind of model request.
const (
	// TaskSubQuestions asks LANCER's n sub-questions of a request.
	TaskSubQuestions pipeline.Task = "rerank_subquestions"
	// TaskRate asks LANCER's 0–5 answerability rating of one document for
	// one sub-question.
	TaskRate pipeline.Task = "rerank_rate"
	// TaskPointwise asks whether one document is relevant to the request.
	TaskPointwise pipeline.Task = "rerank_pointwise"
	// TaskListwise asks for a ranking of a window of documents.
	TaskListwise pipeline.Task = "rerank_listwise"
	// TaskSetwise asks which of a few documents is the most relevant.
	TaskSetwise pipeline.Task = "rerank_setwise"
	// TaskSetR asks SetR's requirements, the documents meeting each and the
	// selected set, in one answer.
	TaskSetR pipeline.Task = "rerank_setr"
	// TaskRequirements asks PureCover's weighted information requirements.
	TaskRequirements pipeline.Task = "rerank_requirements"
	// TaskSupport asks whether one document meets one requirement.
	TaskSupport pipeline.Task = "rerank_support"
)

// Tasks lists the reranking tasks.
func Tasks() []pipeline.Task {
	return []pipeline.Task{
		TaskSubQuestions, TaskRate, TaskPointwise, TaskListwise,
		TaskSetwise, TaskSetR, TaskRequirements, TaskSupport, TaskCoRankFeatures,
	}
}

// PromptDoc is a candidate document as a prompt shows it: the reranker
// has already cut Text to its budget (see Options.DocChars), so the
// offline engine reads exactly what a model is shown.
type PromptDoc struct {
	ID    string
	Title string
	Text  string
}

// RequestInfo converts a report request to the form the prompts show.
func RequestInfo(r pipeline.Request) prompts.RequestInfo {
	return prompts.RequestInfo{ID: r.ID, Title: r.Title, Background: r.Background, ProblemStatement: r.ProblemStatement, Limit: r.Limit}
}

// Answer sizes, in tokens.
const (
	yesNoMaxTokens        = 16
	rateMaxTokens         = 24
	setwiseMaxTokens      = 24
	subQuestionsMaxTokens = 60 // per question
	listwiseMaxTokens     = 8  // per document
	requirementsMaxTokens = 60 // per requirement
	setrMaxTokens         = 1200
)

const rerankSystemPrompt = "You help an analyst find the documents a cited report should draw on. " +
	"Judge only from the material each message gives you, not from what you know. " +
	"Always write in English, whatever the language of the material. " +
	"Reply in the output format you are asked for and nothing else: no introduction, no explanation, no closing remarks."

const rerankClosingLine = "Answer in English, in exactly this format, with nothing before or after it."

func rerankMessages(user string) []pipeline.Message {
	return []pipeline.Message{
		{Role: "system", Content: rerankSystemPrompt},
		{Role: "user", Content: user},
	}
}

// writeRequestBlock writes the report request. Empty fields are left out.
func writeRequestBlock(b *strings.Builder, r prompts.RequestInfo) {
	b.WriteString("Report request\n")
	wrote := false
	if t := flatten(r.Title); t != "" {
		fmt.Fprintf(b, "Title: %s\n", t)
		wrote = true
	}
	if p := flatten(r.ProblemStatement); p != "" {
		fmt.Fprintf(b, "Problem statement: %s\n", p)
		wrote = true
	}
	if g := flatten(r.Background); g != "" {
		fmt.Fprintf(b, "Background: %s\n", g)
		wrote = true
	}
	if !wrote {
		b.WriteString("(The request gives no details.)\n")
	}
}

// requestQuery is the request as one line: title and problem statement.
func requestQuery(r prompts.RequestInfo) string {
	t, p := flatten(r.Title), flatten(r.ProblemStatement)
	switch {
	case t == "":
		return p
	case p == "":
		return t
	}
	if !strings.ContainsAny(t[len(t)-1:], ".?!:") {
		t += "."
	}
	return t + " " + p
}

// writeDocBlock writes one document under a heading such as "Document" or
// "[3]".
func writeDocBlock(b *strings.Builder, heading string, d PromptDoc) {
	b.WriteString(heading)
	if t := flatten(d.Title); t != "" {
		fmt.Fprintf(b, " (title: %q)", t)
	}
	b.WriteString("\n")
	text := strings.TrimSpace(strings.ToValidUTF8(d.Text, "\uFFFD"))
	if text == "" {
		text = "(no text)"
	}
	b.WriteString("<document>\n" + text + "\n</document>\n")
}

// writeYesNo ends a yes/no prompt: the format and both possible answers.
func writeYesNo(b *strings.Builder, yesMeans string) {
	b.WriteString("Output format: one word, yes if " + yesMeans + " and no otherwise. That is, either\n\nyes\n\nor\n\nno\n\n")
	b.WriteString(rerankClosingLine)
}

func formatYesNo(yes bool) string {
	if yes {
		return "yes"
	}
	return "no"
}

// parseYesNo reads a yes/no answer by the rules package prompts documents
// for its yes/no tasks (a JSON boolean, a leading yes or no, an "Answer:"
// label, a last line of yes or no, the only one of the two words used),
// reporting failures as the given task's *prompts.ParseError.
func parseYesNo(task pipeline.Task, text string) (bool, error) {
	out, err := prompts.ParseJudgeSupport(text)
	if err != nil {
		var pe *prompts.ParseError
		if errors.As(err, &pe) {
			renamed := *pe
			renamed.Task = task
			return false, &renamed
		}
		return false, err
	}
	return out.Yes, nil
}

// parseErrorf builds a *prompts.ParseError for a reranking task.
func parseErrorf(task pipeline.Task, text, format string, args ...any) *prompts.ParseError {
	return &prompts.ParseError{Task: task, Reason: fmt.Sprintf(format, args...), Snippet: snippet(text)}
}

// snippet flattens s to one line of at most about 160 bytes.
func snippet(s string) string {
	s = flatten(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= 160 {
		return s
	}
	cut := 160
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// flatten collapses every run of whitespace to one space and trims.
func flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

// cutText cuts s to at most max runes at the last word boundary before the
// limit (unless that loses more than half), and reports whether it cut.
func cutText(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	cut, n := len(s), 0
	for i := range s {
		if n == max {
			cut = i
			break
		}
		n++
	}
	head := s[:cut]
	if i := strings.LastIndexFunc(head, unicode.IsSpace); i > len(head)/2 {
		head = head[:i]
	}
	return strings.TrimSpace(head), true
}

// cleanText prepares a model answer for line parsing: cleanAnswer (valid
// UTF-8, "\n" line ends, no <think> section), code-fence lines removed
// (their content kept), ends trimmed.
func cleanText(s string) string {
	lines := strings.Split(cleanAnswer(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// stripListMarker removes the markdown that opens a line: heading and
// quote markers, one bullet and one list number ("1.", "2)", "(3)",
// "**4.**", "Q1:"-style labels are left alone). It reports whether a
// bullet or number was removed.
func stripListMarker(line string) (string, bool) {
	t := strings.TrimSpace(line)
	t = strings.TrimSpace(strings.TrimLeft(t, "#>"))
	listed := false
	for _, b := range []string{"- ", "* ", "+ ", "• ", "· ", "– ", "— "} {
		if strings.HasPrefix(t, b) {
			t = strings.TrimSpace(t[len(b):])
			listed = true
			break
		}
	}
	bold := ""
	for _, w := range []string{"**", "__"} {
		if strings.HasPrefix(t, w) {
			bold = w
			break
		}
	}
	rest := t[len(bold):]
	open := byte(0)
	i := 0
	if i < len(rest) && (rest[i] == '(' || rest[i] == '[') {
		open = rest[i]
		i++
	}
	j := i
	for j < len(rest) && j-i < 3 && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j > i && j < len(rest) {
		ok := false
		switch {
		case open == '(' && rest[j] == ')', open == '[' && rest[j] == ']':
			ok = true
		case open == 0 && (rest[j] == '.' || rest[j] == ')' || rest[j] == ':'):
			ok = true
		}
		after := rest[j+1:]
		if ok && bold != "" && strings.HasPrefix(after, bold) {
			after = after[len(bold):]
			bold = ""
		}
		if ok && (after == "" || after[0] == ' ' || after[0] == '\t') {
			t = bold + strings.TrimSpace(after)
			listed = true
		}
	}
	return t, listed
}

// unwrapEmphasis removes markdown emphasis or quotes wrapping all of s.
func unwrapEmphasis(s string) string {
	s = strings.TrimSpace(s)
	for {
		prev := s
		for _, w := range [][2]string{{"**", "**"}, {"__", "__"}, {"`", "`"}, {`"`, `"`}, {"“", "”"}} {
			if len(s) >= len(w[0])+len(w[1])+1 && strings.HasPrefix(s, w[0]) && strings.HasSuffix(s, w[1]) {
				s = strings.TrimSpace(s[len(w[0]) : len(s)-len(w[1])])
			}
		}
		if s == prev {
			return s
		}
	}
}

var reThinkTag = regexp.MustCompile(`(?i)</?think(?:ing)?>`)

// formatLine prepares a text value for a one-line canonical answer:
// valid UTF-8, no <think> tags, whitespace flattened, wrapping emphasis
// removed.
func formatLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for reThinkTag.MatchString(s) {
		s = reThinkTag.ReplaceAllString(s, " ")
	}
	return unwrapEmphasis(flatten(s))
}
