package prompts

import (
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// VerifySupportInput asks whether a passage supports a report sentence.
type VerifySupportInput struct {
	Sentence string
	// SupportText is the part of the passage cited for the sentence.
	SupportText string
	// PassageText is the whole passage; the prompt carries at most
	// MaxDocChars characters of it.
	PassageText string
	// DocTitle, DocAuthor and DocDate describe the cited document: a
	// sentence may attribute what it reports to the document's author
	// and date ("In 1903, Theodore Roosevelt reported that ..."), and the
	// document itself supports that attribution.
	DocTitle  string
	DocAuthor string
	DocDate   string
}

// VerifySupportOutput is the support judgement.
type VerifySupportOutput struct {
	// Yes is true when the passage supports the sentence.
	Yes bool
}

// BuildVerifySupport builds the verify_support request, with token
// log-probabilities for YesProbability.
func BuildVerifySupport(in VerifySupportInput) pipeline.ModelRequest {
	passage, cut := truncateText(strings.TrimSpace(in.PassageText), MaxDocChars)
	var b strings.Builder
	b.WriteString("A report sentence cites the passage below. Check the citation: does the passage support the sentence, " +
		"that is, does it state or plainly imply everything the sentence claims? Answer no if the sentence adds a fact, " +
		"a number, a date, a name or a certainty that the passage does not give, or if it contradicts the passage. " +
		"Who said it and when, where the sentence says so, may come from the document's title, author and date.\n\n")
	b.WriteString("Sentence: " + flatten(in.Sentence) + "\n\n")
	if s := flatten(in.SupportText); s != "" {
		b.WriteString("Part of the passage cited for it: " + s + "\n\n")
	}
	if t := flatten(in.DocTitle); t != "" {
		fmt.Fprintf(&b, "The passage is from the document titled %q.\n", t)
	}
	writeDocByline(&b, in.DocAuthor, in.DocDate)
	b.WriteString("Passage:\n")
	if cut {
		fmt.Fprintf(&b, "(Only the first %d characters of the passage are shown; the rest was cut.)\n", MaxDocChars)
	}
	b.WriteString("<passage>\n" + passage + "\n</passage>\n\n")
	writeYesNoFormat(&b, "the passage supports the sentence")
	return pipeline.ModelRequest{
		Task:        TaskVerifySupport,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatVerifySupport writes "yes" or "no".
func FormatVerifySupport(out VerifySupportOutput) string { return formatYesNo(out.Yes) }

// ParseVerifySupport reads a verify_support answer by the yes/no rules of
// the package documentation.
func ParseVerifySupport(text string) (VerifySupportOutput, error) {
	yes, err := parseYesNo(TaskVerifySupport, text)
	if err != nil {
		return VerifySupportOutput{}, err
	}
	return VerifySupportOutput{Yes: yes}, nil
}

// VerifyCoverageInput asks whether a report sentence answers a nugget's
// question.
type VerifyCoverageInput struct {
	Nugget   QA
	Sentence string
}

// VerifyCoverageOutput is the coverage judgement.
type VerifyCoverageOutput struct {
	// Yes is true when the sentence answers the nugget's question.
	Yes bool
}

// BuildVerifyCoverage builds the verify_coverage request, with token
// log-probabilities for YesProbability.
func BuildVerifyCoverage(in VerifyCoverageInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("Does the sentence below answer the question? It does when it gives the information the question asks for, " +
		"about the same people, things, places and time. Its answer may be worded differently from the reference answer " +
		"and may even disagree with it, since sources can differ; it does not answer the question if it only touches " +
		"the topic or gives some other information.\n\n")
	b.WriteString("Question: " + flatten(in.Nugget.Question) + "\n")
	b.WriteString("Reference answer: " + flatten(in.Nugget.Answer) + "\n")
	b.WriteString("Sentence: " + flatten(in.Sentence) + "\n\n")
	writeYesNoFormat(&b, "the sentence answers the question")
	return pipeline.ModelRequest{
		Task:        TaskVerifyCoverage,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatVerifyCoverage writes "yes" or "no".
func FormatVerifyCoverage(out VerifyCoverageOutput) string { return formatYesNo(out.Yes) }

// ParseVerifyCoverage reads a verify_coverage answer by the yes/no rules of
// the package documentation.
func ParseVerifyCoverage(text string) (VerifyCoverageOutput, error) {
	yes, err := parseYesNo(TaskVerifyCoverage, text)
	if err != nil {
		return VerifyCoverageOutput{}, err
	}
	return VerifyCoverageOutput{Yes: yes}, nil
}
