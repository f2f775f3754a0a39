package prompts

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// ParaphraseInput asks whether two nuggets ask for the same information.
type ParaphraseInput struct {
	Request RequestInfo
	A, B    QA
}

// ParaphraseOutput is the paraphrase judgement.
type ParaphraseOutput struct {
	// Same is true when both nuggets ask for the same information.
	Same bool
}

// BuildParaphrase builds the paraphrase request. It asks for token
// log-probabilities: the merging stage reads the merge confidence from
// YesProbability.
func BuildParaphrase(in ParaphraseInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("An analyst is writing a report for the request below.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nTwo questions were written for this report, each with the answer one document gave. " +
		"Decide whether the two questions ask for the same piece of information, so that a single answer would settle both. " +
		"Wording does not matter. They are different when one is broader or narrower than the other, or when they concern " +
		"a different person, organisation, place, time, quantity or aspect. The answers may disagree, since documents can; " +
		"use them only to understand what each question is after.\n\n")
	b.WriteString("Question A: " + flatten(in.A.Question) + "\n")
	b.WriteString("Answer A: " + flatten(in.A.Answer) + "\n\n")
	b.WriteString("Question B: " + flatten(in.B.Question) + "\n")
	b.WriteString("Answer B: " + flatten(in.B.Answer) + "\n\n")
	writeYesNoFormat(&b, "the two questions ask for the same information")
	return pipeline.ModelRequest{
		Task:        TaskParaphrase,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatParaphrase writes "yes" or "no".
func FormatParaphrase(out ParaphraseOutput) string { return formatYesNo(out.Same) }

// ParseParaphrase reads a paraphrase answer by the yes/no rules of the
// package documentation ("yes", "Yes.", "**No**", "Answer: yes",
// {"same": true}, ...).
func ParseParaphrase(text string) (ParaphraseOutput, error) {
	yes, err := parseYesNo(TaskParaphrase, text)
	if err != nil {
		return ParaphraseOutput{}, err
	}
	return ParaphraseOutput{Same: yes}, nil
}
