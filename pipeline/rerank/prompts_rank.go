package rerank

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// PointwiseInput asks whether one document is relevant to the request.
type PointwiseInput struct {
	Request prompts.RequestInfo
	Doc     PromptDoc
}

// PointwiseOutput is the relevance judgement.
type PointwiseOutput struct {
	// Relevant is true when the document holds information the report
	// needs.
	Relevant bool
}

// BuildPointwise builds the rerank_pointwise request, with token
// log-probabilities: the document's score is the probability of "yes"
// (prompts.YesProbability).
func BuildPointwise(in PointwiseInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	b.WriteString("\n")
	writeDocBlock(&b, "Document", in.Doc)
	b.WriteString("\nDoes this document give information that the report should use: facts, figures, events or views that bear " +
		"on what the request asks? A document that only shares some words with the request, or only mentions its subject in passing, does not.\n\n")
	writeYesNo(&b, "the report should use the document")
	return pipeline.ModelRequest{
		Task:        TaskPointwise,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatPointwise writes "yes" or "no".
func FormatPointwise(out PointwiseOutput) string { return formatYesNo(out.Relevant) }

// ParsePointwise reads a yes/no answer by the rules of package prompts
// ("yes", "**No**, because ...", "Answer: yes", {"relevant": true}, ...).
func ParsePointwise(text string) (PointwiseOutput, error) {
	yes, err := parseYesNo(TaskPointwise, text)
	if err != nil {
		return PointwiseOutput{}, err
	}
	return PointwiseOutput{Relevant: yes}, nil
}

// ListwiseInput asks for a ranking of a window of documents, identified
// [1]..[n] in the order given.
type ListwiseInput struct {
	Request prompts.RequestInfo
	Docs    []PromptDoc
}

// BuildListwise builds the rerank_listwise request. Its answer is read by
// ParseListwise(answer, len(in.Docs)).
func BuildListwise(in ListwiseInput) pipeline.ModelRequest {
	n := len(in.Docs)
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	fmt.Fprintf(&b, "\nBelow are %d documents, each marked with an identifier in brackets, [1] to [%d]. ", n, n)
	b.WriteString("Rank them by how much information the report needs each one gives: first the document that gives the most, " +
		"last the one that gives the least. Judge what the documents say about the request, not their length or the order they come in.\n\n")
	for i, d := range in.Docs {
		writeDocBlock(&b, fmt.Sprintf("[%d]", i+1), d)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Output format: all %d identifiers, each exactly once, the most useful first, separated by \" > \". For example, for four documents:\n\n", n)
	b.WriteString(FormatListwise([]int{1, 3, 0, 2}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskListwise,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   listwiseMaxTokens*n + 16,
		Temperature: 0,
	}
}

// FormatListwise writes a ranking of 0-based positions as "[2] > [4] >
// [1] > [3]" (1-based identifiers).
func FormatListwise(order []int) string {
	parts := make([]string, len(order))
	for k, i := range order {
		parts[k] = "[" + strconv.Itoa(i+1) + "]"
	}
	return strings.Join(parts, " > ")
}

// MaxSetSize bounds the documents of one setwise comparison: they are
// labelled with the letters A to Z.
const MaxSetSize = 26

// SetwiseInput asks which of a few documents (2..MaxSetSize), labelled
// A, B, C ... in the order given, is the most relevant.
type SetwiseInput struct {
	Request prompts.RequestInfo
	Docs    []PromptDoc
}

// SetwiseOutput is the chosen document.
type SetwiseOutput struct {
	// Choice is the chosen document's 0-based position.
	Choice int
}

// SetwiseLabel is the label of the document at 0-based position i: "A"
// for 0, "B" for 1, ...
func SetwiseLabel(i int) string {
	if i < 0 || i >= MaxSetSize {
		return "?"
	}
	return string(rune('A' + i))
}

// BuildSetwise builds the rerank_setwise request. Its answer is read by
// ParseSetwise(answer, len(in.Docs)).
func BuildSetwise(in SetwiseInput) pipeline.ModelRequest {
	n := len(in.Docs)
	var b strings.Builder
	b.WriteString("An analyst is preparing a cited report for the request below.\n\n")
	writeRequestBlock(&b, in.Request)
	fmt.Fprintf(&b, "\nBelow are %d documents labelled %s to %s. Which one of them gives the most information that the report needs? "+
		"Judge what the documents say about the request, not their length or the order they come in.\n\n", n, SetwiseLabel(0), SetwiseLabel(n-1))
	for i, d := range in.Docs {
		writeDocBlock(&b, "Document "+SetwiseLabel(i), d)
		b.WriteString("\n")
	}
	b.WriteString("Output format: the label of that one document, a single letter. For example:\n\n")
	b.WriteString(FormatSetwise(SetwiseOutput{Choice: min(1, max(n-1, 0))}))
	b.WriteString("\n\n")
	b.WriteString(rerankClosingLine)
	return pipeline.ModelRequest{
		Task:        TaskSetwise,
		Input:       in,
		Messages:    rerankMessages(b.String()),
		MaxTokens:   setwiseMaxTokens,
		Temperature: 0,
	}
}

// FormatSetwise writes the chosen label, "A" to "Z".
func FormatSetwise(out SetwiseOutput) string { return SetwiseLabel(out.Choice) }

var (
	reSetwiseNamed  = regexp.MustCompile(`(?i)\b(?:passage|document|doc|option|label)\s*[\[(]?\s*([a-z]|\d{1,2})\s*[\])]?(?:[^\p{L}\p{N}]|$)`)
	reSetwiseAnswer = regexp.MustCompile(`(?i)\b(?:answer|choice|selection|pick|most relevant(?: one)?)\b\s*(?:\*\*|__)?\s*(?:is\s*)?[:：=]?\s*(?:\*\*|__)?\s*(?:(?:passage|document|doc)\s*)?[\[(]?\s*([a-z]|\d{1,2})\s*[\])]?(?:[^\p{L}\p{N}]|$)`)
)

// ParseSetwise reads the label of the chosen document among n (1..26),
// labelled A, B, .... In order of trust: an answer that is only a label
// ("C", "**C**", "(C)", "[C]", "C.", "Document C", or a number 1..n); a
// JSON object's first string or number that reads as a label; the last
// "Answer: C" style label; the first "Document C" or "Passage C"; the
// first capital letter standing alone within range (not the words "A" and
// "I" before a lower-case word). A reasoning model's <think> section and
// code fences are ignored. Nothing usable, or a label outside the n
// documents, is a *prompts.ParseError: the caller keeps its order.
func ParseSetwise(text string, n int) (SetwiseOutput, error) {
	if n < 1 || n > MaxSetSize {
		return SetwiseOutput{}, parseErrorf(TaskSetwise, text, "document count %d is outside 1..%d", n, MaxSetSize)
	}
	clean := cleanText(text)
	if clean == "" {
		return SetwiseOutput{}, parseErrorf(TaskSetwise, text, "the answer is empty")
	}
	if i, ok := setwiseOnly(clean, n); ok {
		return SetwiseOutput{Choice: i}, nil
	}
	if js := firstJSONValue(clean); strings.HasPrefix(js, "{") {
		var obj map[string]any
		if err := json.NewDecoder(strings.NewReader(js)).Decode(&obj); err == nil {
			for _, k := range sortedKeys(obj) {
				var s string
				switch v := obj[k].(type) {
				case string:
					s = v
				case float64:
					s = strconv.FormatFloat(v, 'f', -1, 64)
				default:
					continue
				}
				if i, ok := setwiseOnly(s, n); ok {
					return SetwiseOutput{Choice: i}, nil
				}
			}
		}
	}
	if m := reSetwiseAnswer.FindAllStringSubmatch(clean, -1); len(m) > 0 {
		if i, ok := setwiseToken(m[len(m)-1][1], n, true); ok {
			return SetwiseOutput{Choice: i}, nil
		}
	}
	for _, m := range reSetwiseNamed.FindAllStringSubmatch(clean, -1) {
		if i, ok := setwiseToken(m[1], n, true); ok {
			return SetwiseOutput{Choice: i}, nil
		}
	}
	if i, ok := loneCapital(clean, n); ok {
		return SetwiseOutput{Choice: i}, nil
	}
	return SetwiseOutput{}, parseErrorf(TaskSetwise, text, "no label among %s..%s", SetwiseLabel(0), SetwiseLabel(n-1))
}

// setwiseOnly reads s as nothing but a label, possibly wrapped in
// markdown, brackets or punctuation, or named "Document C".
func setwiseOnly(s string, n int) (int, bool) {
	t, _ := stripListMarker(flatten(s))
	t = unwrapEmphasis(strings.TrimRight(strings.TrimSpace(t), ".!:;,"))
	t = strings.Trim(unwrapEmphasis(t), "[]() ")
	for _, p := range []string{"passage ", "document ", "doc ", "option ", "label "} {
		if len(t) > len(p) && strings.EqualFold(t[:len(p)], p) {
			t = strings.Trim(strings.TrimSpace(t[len(p):]), "[]() ")
			return setwiseToken(t, n, true)
		}
	}
	return setwiseToken(t, n, true)
}

// setwiseToken reads a label letter (lower case too when anyCase) or a
// 1-based number.
func setwiseToken(t string, n int, anyCase bool) (int, bool) {
	if k, err := strconv.Atoi(t); err == nil {
		if k >= 1 && k <= n {
			return k - 1, true
		}
		return 0, false
	}
	if utf8.RuneCountInString(t) != 1 {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(t)
	if anyCase {
		r = unicode.ToUpper(r)
	}
	if r >= 'A' && r < 'A'+rune(n) {
		return int(r - 'A'), true
	}
	return 0, false
}

// loneCapital finds the first capital letter that stands alone as a word
// and names one of the n documents. "A" and "I" followed by a lower-case
// word are read as the English words.
func loneCapital(s string, n int) (int, bool) {
	runes := []rune(s)
	isWordRune := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' }
	for i, r := range runes {
		if r < 'A' || r >= 'A'+rune(n) {
			continue
		}
		if (i > 0 && isWordRune(runes[i-1])) || (i+1 < len(runes) && isWordRune(runes[i+1])) {
			continue
		}
		if r == 'A' || r == 'I' {
			j := i + 1
			for j < len(runes) && runes[j] == ' ' {
				j++
			}
			if j > i+1 && j < len(runes) && unicode.IsLower(runes[j]) {
				continue
			}
		}
		return int(r - 'A'), true
	}
	return 0, false
}
