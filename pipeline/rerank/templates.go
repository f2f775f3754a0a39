package rerank

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// methodTasks are the prompt tasks each method asks.
var methodTasks = map[string][]pipeline.Task{
	MethodLANCER:    {TaskSubQuestions, TaskRate},
	MethodPointwise: {TaskPointwise},
	MethodListwise:  {TaskListwise},
	MethodSetwise:   {TaskSetwise},
	MethodSetR:      {TaskSetR},
	MethodPureCover: {TaskRequirements, TaskSupport},
	MethodCoRank:    {TaskCoRankFeatures, TaskListwise},
}

// Templates identifies the prompts the reranking method asks
// (pipeline.TemplateOf over each task's request built from a fixed
// specimen input), for run manifests; nil for an unknown method or "".
func Templates(method string) []pipeline.PromptTemplate {
	tasks := methodTasks[strings.ToLower(strings.TrimSpace(method))]
	if len(tasks) == 0 {
		return nil
	}
	req := prompts.RequestInfo{ID: "specimen", Title: "Specimen title", Background: "Specimen background.",
		ProblemStatement: "Specimen problem statement?", Limit: 2000}
	doc := PromptDoc{ID: "doc", Title: "Title", Text: "Specimen passage. It holds the specimen answer."}
	docs := []PromptDoc{doc, {ID: "doc2", Title: "Title 2", Text: "Another specimen passage."}}
	specimen := map[pipeline.Task]pipeline.ModelRequest{
		TaskSubQuestions:   BuildSubQuestions(SubQuestionsInput{Request: req, N: DefaultSubQuestions}),
		TaskRate:           BuildRate(RateInput{Request: req, Question: "Specimen question?", Doc: doc}),
		TaskPointwise:      BuildPointwise(PointwiseInput{Request: req, Doc: doc}),
		TaskListwise:       BuildListwise(ListwiseInput{Request: req, Docs: docs}),
		TaskSetwise:        BuildSetwise(SetwiseInput{Request: req, Docs: docs}),
		TaskSetR:           BuildSetR(SetRInput{Request: req, Docs: docs}),
		TaskRequirements:   BuildRequirements(RequirementsInput{Request: req, Max: DefaultRequirements, Docs: docs}),
		TaskSupport:        BuildSupport(SupportInput{Request: req, Requirement: "Specimen requirement.", Doc: doc}),
		TaskCoRankFeatures: BuildFeatures(FeaturesInput{Doc: doc}),
	}
	out := make([]pipeline.PromptTemplate, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, pipeline.TemplateOf(specimen[t]))
	}
	return out
}
