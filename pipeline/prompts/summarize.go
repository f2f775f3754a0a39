package prompts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// SummarizeInput asks for a request-focused summary of one document.
type SummarizeInput struct {
	Request  RequestInfo
	DocID    string
	DocTitle string
	// DocText is the document's text; the prompt carries at most
	// MaxDocChars characters of it.
	DocText string
}

// SummarizeOutput is a document summary.
type SummarizeOutput struct {
	// Summary holds what the document says that bears on the request, as
	// one paragraph; empty when the document is not relevant.
	Summary string
	// Relevant is false when the document holds nothing for the request.
	Relevant bool
}

// MaxSummarySentences is how many sentences a summary may have.
const MaxSummarySentences = 8

const summarizeMaxTokens = 400

var summarizeExample = SummarizeOutput{
	Relevant: true,
	Summary: "The Dortmund city council approved a 12 million euro flood barrier on 3 May 2021, after the river burst its banks twice in 2020. " +
		"Engineers from the regional water board expect construction to take three years. " +
		"Local shop owners doubt that the barrier will be finished before the next flood season.",
}

// BuildSummarize builds the summarize request. The document text is cut to
// MaxDocChars characters at a word boundary, and the prompt says so when
// it was cut.
func BuildSummarize(in SummarizeInput) pipeline.ModelRequest {
	text, cut := truncateText(strings.TrimSpace(in.DocText), MaxDocChars)
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nRead the document that follows and summarise only what it says that matters for this request: " +
		"facts, figures, names, dates, events, and who claims what. Leave out everything unrelated to the request " +
		"and do not add knowledge of your own. ")
	fmt.Fprintf(&b, "Write one paragraph of at most %d sentences. ", MaxSummarySentences)
	b.WriteString("If nothing in the document matters for the request, reply with the single word NONE.\n\n")
	writeDocHeader(&b, "Document", in.DocID, in.DocTitle)
	if cut {
		fmt.Fprintf(&b, "(Only the first %d characters of the document are shown; the rest was cut.)\n", MaxDocChars)
	}
	b.WriteString("<document>\n")
	b.WriteString(text)
	b.WriteString("\n</document>\n\n")
	b.WriteString("Output format: a single line that starts with \"SUMMARY: \" and holds the whole summary, " +
		"or the single word NONE. For example:\n\n")
	b.WriteString(FormatSummarize(summarizeExample))
	b.WriteString("\n\n")
	b.WriteString(closingLine)
	return pipeline.ModelRequest{
		Task:        TaskSummarize,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   summarizeMaxTokens,
		Temperature: 0,
	}
}

// FormatSummarize writes a summary in the canonical format: "SUMMARY: "
// and the summary flattened to one line (every run of whitespace becomes
// one space, <think> tags removed), or "NONE" when the output is not relevant, its summary is
// blank, or the summary itself reads as NONE.
func FormatSummarize(out SummarizeOutput) string {
	s := formatValue(out.Summary)
	if !out.Relevant || s == "" || isNoneMarker(s) {
		return "NONE"
	}
	return "SUMMARY: " + s
}

func matchSummaryKey(k string) (string, bool) {
	switch k {
	case "summary", "query focused summary", "focused summary", "relevant summary":
		return "summary", true
	}
	return "", false
}

// ParseSummarize reads a summarize answer. It takes the text after a
// "SUMMARY:" label up to the first blank line; without a label, the whole
// answer minus an introductory line ending in ':'; or the "summary" field
// of a JSON object. List markers are removed and lines joined into one
// paragraph. NONE (see FormatSummarize) gives Relevant false and an empty
// summary. An empty answer is a *ParseError.
func ParseSummarize(text string) (SummarizeOutput, error) {
	clean := cleanAnswer(text)
	if clean == "" {
		return SummarizeOutput{}, parseErrorf(TaskSummarize, text, "the answer is empty")
	}
	summary, found := summaryFromJSON(clean)
	if !found {
		summary, found = summaryFromLabel(clean)
	}
	if !found {
		summary = summaryFromProse(clean)
	}
	summary = cleanValue(summary)
	if summary == "" || isNoneMarker(summary) {
		return SummarizeOutput{}, nil
	}
	return SummarizeOutput{Summary: summary, Relevant: true}, nil
}

func summaryFromJSON(clean string) (string, bool) {
	js := firstJSON(clean)
	if !strings.HasPrefix(js, "{") {
		return "", false
	}
	var obj map[string]any
	if err := json.NewDecoder(strings.NewReader(js)).Decode(&obj); err != nil {
		return "", false
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		if _, ok := matchSummaryKey(normalizeKey(k)); ok {
			switch v := v.(type) {
			case string:
				return v, true
			case nil:
				return "", true
			}
		}
	}
	return "", false
}

func summaryFromLabel(clean string) (string, bool) {
	lines := strings.Split(clean, "\n")
	for i, line := range lines {
		t, _ := stripLineMarkup(line)
		_, value, ok := cutLabel(t, false, matchSummaryKey)
		if !ok {
			continue
		}
		parts := []string{value}
		for _, next := range lines[i+1:] {
			n, _ := stripLineMarkup(next)
			if n == "" {
				if flatten(strings.Join(parts, " ")) == "" {
					continue // "SUMMARY:" alone, the text after a blank line
				}
				break
			}
			parts = append(parts, n)
		}
		return strings.Join(parts, " "), true
	}
	return "", false
}

func summaryFromProse(clean string) string {
	lines := strings.Split(clean, "\n")
	// An opening line such as "Here is the summary:" is not the summary.
	if len(lines) > 1 {
		first := strings.TrimSpace(lines[0])
		if strings.HasSuffix(unwrapMarkup(first), ":") && len(first) <= 120 {
			lines = lines[1:]
		}
	}
	parts := make([]string, 0, len(lines))
	for _, line := range lines {
		t, _ := stripLineMarkup(line)
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}
