package views

import (
	"fmt"
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// NuggetBankPage is the view model of a report's nugget bank: every nugget
// its job drafted, ranked, grouped by paraphrase and set against the
// report.
type NuggetBankPage struct {
	Site   Site
	Report pipeline.Report
	JobID  int64
	// Kept are the nuggets kept after ranking, in rank order.
	Kept []NuggetView
	// Unused are the kept nuggets no sentence of the report answers, in
	// rank order.
	Unused []NuggetView
	// BelowCut are the distinct nuggets ranked below the cut, in ranking
	// order.
	BelowCut []NuggetView
	// Ungrouped are merged-away nuggets no distinct nugget names as its
	// paraphrase.
	Ungrouped []pipeline.Nugget
	// Drafted is the number of nuggets ideation produced, merged ones
	// included.
	Drafted int
	// DocTitles maps document ids to titles, for the sources' links.
	DocTitles map[string]string
	// Ranker names the trained nugget ranker the job ranked with; nil:
	// the default weights (pipeline.DefaultWeights).
	Ranker *BankRanker
	// Authoring, when set, makes Kept the report's editable bank (its
	// newest version) and offers the editing forms the viewer may use.
	Authoring *BankAuthoring
}

// BankRanker is the trained nugget ranker a job used: its id and, when
// still stored, the model.
type BankRanker struct {
	ID    int64
	Model *pipeline.RankerModel
}

// rankerText says how the job ranked its nuggets.
func (vm NuggetBankPage) rankerText() string {
	r := vm.Ranker
	switch {
	case r == nil:
		return "Ranked by the default weights of the quality features, fused with popularity."
	case r.Model == nil:
		return fmt.Sprintf("Ranked by trained nugget ranker %d (no longer stored), fused with popularity.", r.ID)
	}
	m := r.Model
	text := fmt.Sprintf("Ranked by trained nugget ranker %d of the %s, trained on %s", r.ID, m.Engine, m.TrainedOn)
	if m.CV != nil {
		text += fmt.Sprintf(" (leave-one-request-out balanced accuracy %.3f)", m.CV.BalancedAccuracy)
	}
	return text + ", fused with popularity."
}

// NuggetView is a distinct nugget with its paraphrase group and what became
// of it.
type NuggetView struct {
	pipeline.Nugget
	// Group are the nuggets merged into this one, in the order the nugget
	// names them.
	Group []Paraphrase
	// Candidates counts the candidate sentences scanning found for it.
	Candidates int
	// Sentences counts the report's sentences answering it.
	Sentences int
	// Result says what became of it, and why when it has no sentence.
	Result pipeline.NuggetResult
	// Pinned and Changed are the bank's marks (pipeline.DraftNugget).
	Pinned  bool
	Changed bool
}

// Paraphrase is a nugget merged into a distinct one. Found is false when
// the job stored no nugget with the id.
type Paraphrase struct {
	ID     string
	Nugget pipeline.Nugget
	Found  bool
}

// featureGroup is one table of a nugget's quality features in the bank.
type featureGroup struct {
	Caption string
	Names   []string
}

// featureGroups are the quality features in the order the bank shows them:
// the judgements of the nugget, the text measures and the evidence; then
// the question's profile (docs/ranking.md).
var featureGroups = []featureGroup{
	{"The nugget", []string{
		pipeline.FeatureTask,
		pipeline.FeatureBackground,
		pipeline.FeatureRole,
		pipeline.FeatureStyle,
		pipeline.FeatureScope,
		pipeline.FeatureVital,
		pipeline.FeatureResearchy,
		pipeline.FeatureReadability,
		pipeline.FeatureComplexity,
		pipeline.FeatureEvidence,
	}},
	{"Its question", []string{
		pipeline.FeatureAmbiguous,
		pipeline.FeatureIncomplete,
		pipeline.FeatureAssumptive,
		pipeline.FeatureMultifaceted,
		pipeline.FeatureKnowledge,
		pipeline.FeatureSubjective,
		pipeline.FeatureReasoning,
		pipeline.FeatureHarmful,
		pipeline.FeatureDecompositional,
		pipeline.FeatureNonfactoid,
	}},
}

// featureValue shows a feature's value with two decimals, or "–" when the
// nugget has none.
func featureValue(features map[string]float64, name string) string {
	v, ok := features[name]
	if !ok {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// title is the report's title as the bank names it.
func (p NuggetBankPage) title() string {
	if p.Report.Request.Title != "" {
		return p.Report.Request.Title
	}
	return "Report " + strconv.FormatInt(p.Report.ID, 10)
}

// sourceTitle is how the bank names a source document: its title when the
// job's retrieval recorded one, else its id.
func (p NuggetBankPage) sourceTitle(docID string) string {
	if t := p.DocTitles[docID]; t != "" {
		return t
	}
	return docID
}

// countText writes "n noun(s)".
func countText(n int, one, many string) string {
	return formatCount(n) + " " + plural(n, one, many)
}

// sentenceText says how many of the report's sentences answer a nugget,
// or why none does.
func (n NuggetView) sentenceText() string {
	if n.Sentences == 0 {
		if n.Result.Outcome == "" {
			return "no sentence in the report"
		}
		return n.Result.Outcome.Label()
	}
	return countText(n.Sentences, "sentence", "sentences") + " in the report"
}

// reasonText says why a nugget has no sentence, with the counts behind
// it: "no supported sentence (4 of 6 candidates checked, 4 failed)".
func (n NuggetView) reasonText() string {
	r := n.Result
	switch r.Outcome {
	case pipeline.OutcomeNoSupported:
		return r.Outcome.Label() + " (" + formatCount(r.Checked) + " of " + countText(r.Candidates, "candidate", "candidates") +
			" checked, " + formatCount(r.Failed) + " failed)"
	case pipeline.OutcomeLeftOut:
		return r.Outcome.Label() + " (" + countText(n.Candidates, "candidate", "candidates") + ")"
	case "":
		return countText(n.Candidates, "candidate", "candidates")
	}
	return r.Outcome.Label()
}
