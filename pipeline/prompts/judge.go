package prompts

import (
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// The evaluation tasks: a model judging a finished report against gold
// nuggets (pipeline/judge). They are not steps of the report pipeline, so
// Tasks does not list them; JudgeTasks does.
const (
	// TaskJudgeCovers asks whether a report sentence covers a gold nugget.
	TaskJudgeCovers pipeline.Task = "judge_covers"
	// TaskJudgeSupport asks whether a cited passage supports a report
	// sentence.
	TaskJudgeSupport pipeline.Task = "judge_support"
)

// JudgeTasks lists the evaluation tasks.
func JudgeTasks() []pipeline.Task {
	return []pipeline.Task{TaskJudgeCovers, TaskJudgeSupport, TaskJudgeOnTopic}
}

// JudgeCoversInput asks whether a report sentence covers a gold nugget.
// The nugget is a question with the answers that count (Answers not
// empty), or else a claim.
type JudgeCoversInput struct {
	Question string
	Answers  []string
	Claim    string
	Sentence string
}

// JudgeCoversOutput is the coverage judgement.
type JudgeCoversOutput struct {
	// Yes is true when the sentence covers the nugget.
	Yes bool
}

// BuildJudgeCovers builds the judge_covers request, with token
// log-probabilities for YesProbability. An answer nugget is shown as its
// question (when it has one) and its list of accepted answers; a claim
// nugget as its claim. Blank answers are left out.
func BuildJudgeCovers(in JudgeCoversInput) pipeline.ModelRequest {
	var answers []string
	for _, a := range in.Answers {
		if a = flatten(a); a != "" {
			answers = append(answers, a)
		}
	}
	var b strings.Builder
	b.WriteString("You are grading a report against facts that a good report on its subject should contain. " +
		"Below are one of those facts and one sentence taken from the report.\n\n")
	if len(answers) > 0 {
		b.WriteString("The fact is an answer to a question. Decide whether the sentence, read on its own, answers the question " +
			"with one of the accepted answers. Other wording, units or number formats are fine, and so is a more precise " +
			"answer that agrees with an accepted one. It does not count when the sentence only mentions the subject of the " +
			"question, answers a different question, or gives an answer that disagrees with every accepted answer.\n\n")
		if q := flatten(in.Question); q != "" {
			b.WriteString("Question: " + q + "\n")
		}
		b.WriteString("Accepted answers:\n")
		for _, a := range answers {
			b.WriteString("- " + a + "\n")
		}
		if c := flatten(in.Claim); c != "" {
			b.WriteString("The fact in full: " + c + "\n")
		}
	} else {
		b.WriteString("The fact is a claim. Decide whether the sentence, read on its own, states the claim's central point. " +
			"Other wording is fine and minor details of the claim may be missing. It does not count when the sentence " +
			"only mentions the same subject, states a different fact about it, gives only a side detail of the claim, " +
			"or contradicts the claim.\n\n")
		claim := flatten(in.Claim)
		if claim == "" {
			claim = "(no claim was given)"
		}
		b.WriteString("Claim: " + claim + "\n")
	}
	b.WriteString("Sentence: " + flatten(in.Sentence) + "\n\n")
	writeYesNoFormat(&b, "the sentence covers the fact")
	return pipeline.ModelRequest{
		Task:        TaskJudgeCovers,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatJudgeCovers writes "yes" or "no".
func FormatJudgeCovers(out JudgeCoversOutput) string { return formatYesNo(out.Yes) }

// ParseJudgeCovers reads a judge_covers answer by the yes/no rules of the
// package documentation.
func ParseJudgeCovers(text string) (JudgeCoversOutput, error) {
	yes, err := parseYesNo(TaskJudgeCovers, text)
	if err != nil {
		return JudgeCoversOutput{}, err
	}
	return JudgeCoversOutput{Yes: yes}, nil
}

// JudgeSupportInput asks whether a cited passage supports a report
// sentence.
type JudgeSupportInput struct {
	Sentence string
	// Span is the part of the passage the report names as its source, when
	// it names one.
	Span string
	// PassageText is the cited passage (or document); the prompt carries at
	// most MaxDocChars characters of it.
	PassageText string
	// Byline is the cited document's title, author and date, when known:
	// it supports a sentence's saying who said what it reports and when.
	Byline string
}

// JudgeSupportOutput is the support judgement.
type JudgeSupportOutput struct {
	// Yes is true when the passage supports the sentence.
	Yes bool
}

// BuildJudgeSupport builds the judge_support request, with token
// log-probabilities for YesProbability.
func BuildJudgeSupport(in JudgeSupportInput) pipeline.ModelRequest {
	passage, cut := truncateText(strings.TrimSpace(in.PassageText), MaxDocChars)
	var b strings.Builder
	b.WriteString("You are checking the citations of a report. The sentence below cites the passage below as its source. " +
		"Decide whether the passage supports the sentence: everything the sentence asserts must be said in the passage " +
		"or follow plainly from it. Answer no when the sentence adds a fact, figure, date, name or degree of certainty " +
		"that the passage lacks, or when it contradicts the passage. Whether the sentence is important or well written " +
		"does not matter.\n\n")
	b.WriteString("Sentence: " + flatten(in.Sentence) + "\n\n")
	if s := flatten(in.Span); s != "" {
		b.WriteString("The report names this part of the passage as its source: " + s + "\n\n")
	}
	if s := flatten(in.Byline); s != "" {
		b.WriteString("The passage is from: " + s + ". A sentence may take who said it and when from this.\n\n")
	}
	b.WriteString("Passage:\n")
	if cut {
		fmt.Fprintf(&b, "(Only the first %d characters of the passage are shown; the rest was cut.)\n", MaxDocChars)
	}
	b.WriteString("<passage>\n" + passage + "\n</passage>\n\n")
	writeYesNoFormat(&b, "the passage supports the sentence")
	return pipeline.ModelRequest{
		Task:        TaskJudgeSupport,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatJudgeSupport writes "yes" or "no".
func FormatJudgeSupport(out JudgeSupportOutput) string { return formatYesNo(out.Yes) }

// ParseJudgeSupport reads a judge_support answer by the yes/no rules of
// the package documentation.
func ParseJudgeSupport(text string) (JudgeSupportOutput, error) {
	yes, err := parseYesNo(TaskJudgeSupport, text)
	if err != nil {
		return JudgeSupportOutput{}, err
	}
	return JudgeSupportOutput{Yes: yes}, nil
}
