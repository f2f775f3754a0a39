package prompts

import "github.com/crucible-portal/crucible/pipeline"

// specimen inputs: one fixed input per task, whose built request stands
// for the task's prompt template in run manifests (Templates). Changing
// them changes every manifest's prompt hashes, so they stay as they are.
var (
	specimenRequest = RequestInfo{ID: "specimen", Title: "Specimen title", Background: "Specimen background.",
		ProblemStatement: "Specimen problem statement?", Limit: 2000}
	specimenNugget  = QA{Question: "Specimen question?", Answer: "specimen answer"}
	specimenPassage = "Specimen passage. It holds the specimen answer."
)

// specimens builds every task's request from its specimen input, in
// Tasks order.
func specimens() []pipeline.ModelRequest {
	return []pipeline.ModelRequest{
		BuildSummarize(SummarizeInput{Request: specimenRequest, DocID: "doc", DocTitle: "Title", DocText: specimenPassage}),
		BuildNuggets(NuggetsInput{Request: specimenRequest, DocID: "doc", DocTitle: "Title", Summary: specimenPassage, Max: 5}),
		BuildParaphrase(ParaphraseInput{Request: specimenRequest, A: specimenNugget, B: specimenNugget}),
		BuildNuggetQuality(NuggetQualityInput{Request: specimenRequest, Nugget: specimenNugget}),
		BuildExtract(ExtractInput{Request: specimenRequest, Nugget: specimenNugget, DocID: "doc", DocTitle: "Title",
			DocAuthor: "Author", DocDate: "2000-01-01", PassageText: specimenPassage}),
		BuildVerifySupport(VerifySupportInput{Sentence: specimenPassage, SupportText: specimenPassage, PassageText: specimenPassage,
			DocTitle: "Title", DocAuthor: "Author", DocDate: "2000-01-01"}),
		BuildVerifyCoverage(VerifyCoverageInput{Nugget: specimenNugget, Sentence: specimenPassage}),
		BuildFacets(FacetsInput{Request: specimenRequest}),
	}
}

// Templates identifies the prompts of the tasks named
// (pipeline.TemplateOf over each task's specimen request), in the order
// given; a task this package does not have is left out. With no task
// named, every task's, in Tasks order.
func Templates(tasks ...pipeline.Task) []pipeline.PromptTemplate {
	byTask := map[pipeline.Task]pipeline.PromptTemplate{}
	for _, r := range specimens() {
		byTask[r.Task] = pipeline.TemplateOf(r)
	}
	if len(tasks) == 0 {
		tasks = Tasks()
	}
	out := make([]pipeline.PromptTemplate, 0, len(tasks))
	for _, t := range tasks {
		if p, ok := byTask[t]; ok {
			out = append(out, p)
		}
	}
	return out
}
