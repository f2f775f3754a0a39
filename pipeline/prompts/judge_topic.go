package prompts

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// TaskJudgeOnTopic asks whether a report sentence speaks of its request's
// subject: the share of on-topic sentences of a report's scorecard
// (pipeline.Scorecard), by a model judge.
const TaskJudgeOnTopic pipeline.Task = "judge_on_topic"

// JudgeOnTopicInput asks whether a sentence speaks of a request's subject.
type JudgeOnTopicInput struct {
	Request  RequestInfo
	Sentence string
}

// JudgeOnTopicOutput is the judgement.
type JudgeOnTopicOutput struct {
	// Yes is true when the sentence speaks of the request's subject.
	Yes bool
}

// BuildJudgeOnTopic builds the judge_on_topic request, with token
// log-probabilities for YesProbability.
func BuildJudgeOnTopic(in JudgeOnTopicInput) pipeline.ModelRequest {
	var b strings.Builder
	b.WriteString("You are grading a report written for the request below. Decide whether one of its sentences, " +
		"read on its own, speaks of what the request is about: its subject, or a part of it that the problem statement " +
		"asks for. A sentence about something else — another subject, another period or place than the request's, " +
		"or only the speaker or the document — is off topic, however true or well written.\n\n")
	writeRequest(&b, in.Request)
	b.WriteString("\nSentence: " + flatten(in.Sentence) + "\n\n")
	writeYesNoFormat(&b, "the sentence speaks of the request's subject")
	return pipeline.ModelRequest{
		Task:        TaskJudgeOnTopic,
		Input:       in,
		Messages:    messages(b.String()),
		MaxTokens:   yesNoMaxTokens,
		Temperature: 0,
		Logprobs:    true,
	}
}

// FormatJudgeOnTopic writes "yes" or "no".
func FormatJudgeOnTopic(out JudgeOnTopicOutput) string { return formatYesNo(out.Yes) }

// ParseJudgeOnTopic reads a judge_on_topic answer by the yes/no rules of
// the package documentation.
func ParseJudgeOnTopic(text string) (JudgeOnTopicOutput, error) {
	yes, err := parseYesNo(TaskJudgeOnTopic, text)
	if err != nil {
		return JudgeOnTopicOutput{}, err
	}
	return JudgeOnTopicOutput{Yes: yes}, nil
}
