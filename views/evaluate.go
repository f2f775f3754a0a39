package views

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// Query parameters and form fields of the evaluation page.
const (
	// ParamGold names the chosen gold set by its id; ParamRequest the gold
	// set's request the report is evaluated against.
	ParamGold    = "gold"
	ParamRequest = "request"
	// FieldJudge names the judge: JudgeOffline or JudgeModel.
	FieldJudge = "judge"
	// FieldGoldFile is the upload form's file input, FieldGoldName its
	// optional name for the set.
	FieldGoldFile = "nuggets"
	FieldGoldName = "name"
	// FieldRunFile is the compare form's file input: another system's
	// run or report.
	FieldRunFile = "run"
)

// Judges the evaluation form offers.
const (
	JudgeOffline = "offline"
	JudgeModel   = "model"
)

// MaxGoldNameChars bounds the name of a gold set.
const MaxGoldNameChars = 200

// EvaluationPage is the view model of a report's evaluation page: the
// gold sets to evaluate against, an upload form for another, the choice
// of the gold set's request and judge and, once those are chosen, the
// results.
type EvaluationPage struct {
	Site   Site
	Report pipeline.Report
	// GoldSets lists the stored gold sets, newest first.
	GoldSets []GoldSetOption
	// Gold is the chosen set; nil when none is chosen yet.
	Gold *GoldSetOption
	// Requests are the chosen set's request ids, sorted; RequestLabels
	// describe them for the picker (id → "sotu-01 — 10 nuggets, first: …").
	Requests      []string
	RequestLabels map[string]string
	// Request is the request the report is evaluated against, and how it
	// was chosen.
	Request RequestChoice
	// ModelJudge names the model judge; empty when the portal has no model
	// endpoint, and the page then offers only the offline judge.
	ModelJudge string
	// ModelCalls estimates the model calls a model-judge evaluation makes:
	// one per nugget and sentence and one per citation.
	ModelCalls int
	// RequestNuggets is the number of the set's nuggets of the chosen
	// request.
	RequestNuggets int
	// MaxUpload is the largest gold file accepted, in words ("5 MiB").
	MaxUpload string
	// UploadError says why an upload was refused ("FILE:LINE: reason" for
	// a malformed line); UploadName is the name the user typed.
	UploadError string
	UploadName  string
	// JudgeID is the judge of the evaluation shown (JudgeOffline or
	// JudgeModel), which a comparison uses too.
	JudgeID string
	// CompareError says why a run uploaded for comparison was refused.
	CompareError string
	// Compared is another system's run judged beside the report; nil when
	// none was uploaded.
	Compared *ComparedRun
	// Problem says why the evaluation form was refused (an unknown judge).
	Problem string
	// Result is the evaluation; nil until a gold set and request are
	// chosen.
	Result *EvaluationResult
	// ReviewsOffered is set when reports have reviewer verdicts the
	// citation-support metric can use; ReviewerVerdicts when the form asks
	// for them (ParamReviewerVerdicts).
	ReviewsOffered   bool
	ReviewerVerdicts bool
}

// requestLabel is a request's text in the picker: its label, or its id.
func (p EvaluationPage) requestLabel(id string) string {
	if l := p.RequestLabels[id]; l != "" {
		return l
	}
	return id
}

// GoldSetOption is a stored gold set as the picker lists it.
type GoldSetOption struct {
	ID        int64
	Name      string
	Nuggets   int
	Requests  int
	CreatedAt time.Time
}

// label is the picker's text for the set: its name, counts and upload
// time.
func (g GoldSetOption) label() string {
	return g.Name + " — " + countText(g.Nuggets, "nugget", "nuggets") + ", " +
		countText(g.Requests, "request", "requests") + ", uploaded " + formatTime(g.CreatedAt)
}

// RequestState says how the request the report is evaluated against was
// chosen.
type RequestState string

const (
	// RequestOwn: the gold set has the report's own request, and it is
	// used.
	RequestOwn RequestState = "own"
	// RequestPicked: the user picked one of the gold set's requests.
	RequestPicked RequestState = "picked"
	// RequestNeeded: the gold set lacks the report's request (or the
	// report has none) and none was picked, so the page asks which.
	RequestNeeded RequestState = "needed"
	// RequestUnknown: the user asked for a request the set does not have.
	RequestUnknown RequestState = "unknown"
)

// RequestChoice is the gold set's request a report is evaluated against.
type RequestChoice struct {
	// ID is the chosen request; for RequestUnknown the one asked for, and
	// empty for RequestNeeded.
	ID    string
	State RequestState
}

// Chosen reports whether a request of the set was chosen, so the report
// can be evaluated.
func (r RequestChoice) Chosen() bool {
	return r.State == RequestOwn || r.State == RequestPicked
}

// EvaluationResult is a report's evaluation against the gold nuggets of one
// request.
type EvaluationResult struct {
	// Judge names the judge and its settings; Independence how it stands
	// to the report's maker (pipeline.Independence: "independent",
	// "self-judged", "self-judged (offline)", "generator unknown").
	Judge        string
	Independence string
	RequestID    string
	Cards        []MetricCard
	// Nuggets are the request's gold nuggets in file order, each with its
	// row of the nugget × sentence matrix.
	Nuggets []GoldNuggetRow
	// Missing are the nuggets no sentence covers, the vital ones first.
	Missing []GoldNuggetRow
	// Sentences are the report's sentences with their citation verdicts.
	Sentences []EvaluatedSentence
	// Undecided counts the verdicts the judge could not give.
	Undecided int
	// Reviewed counts the citations whose reviewer verdict replaced the
	// judge's; 0 when reviewer verdicts were not asked for.
	Reviewed int
}

// MetricCard is one metric with the counts it divides.
type MetricCard struct {
	// Key names the card in data-testid attributes: "metric-" + Key.
	Key   string
	Label string
	Value float64
	// Num / Den is the metric; Den 0 leaves it undefined ("–").
	Num, Den int
	// Halves counts items credited one half beside Num (citations a
	// reviewer found partly supported): the metric is then
	// (Num + Halves/2) / Den.
	Halves int
	// NumNoun and DenNoun name what is counted; NumNoun is empty when it
	// is the same as DenNoun ("4/10 nuggets").
	NumNoun, DenNoun Noun
	// Help says what the metric measures.
	Help string
}

// Noun is a noun's singular and plural forms.
type Noun struct{ One, Many string }

// Defined reports whether the metric has a denominator.
func (m MetricCard) Defined() bool { return m.Den > 0 }

// valueText shows the metric to three decimals, or "–" when undefined.
func (m MetricCard) valueText() string {
	if !m.Defined() {
		return "–"
	}
	return strconv.FormatFloat(m.Value, 'f', 3, 64)
}

// countsText shows the counts: "4/10 nuggets", or "4 nuggets / 5
// sentences" when they count different things.
func (m MetricCard) countsText() string {
	if m.NumNoun == (Noun{}) {
		s := strconv.Itoa(m.Num) + "/" + strconv.Itoa(m.Den) + " " + plural(m.Den, m.DenNoun.One, m.DenNoun.Many)
		if m.Halves > 0 {
			s += ", and " + strconv.Itoa(m.Halves) + " partly (½ each)"
		}
		return s
	}
	return countText(m.Num, m.NumNoun.One, m.NumNoun.Many) + " / " + countText(m.Den, m.DenNoun.One, m.DenNoun.Many)
}

// GoldNuggetRow is a gold nugget with the judge's verdict on each
// sentence.
type GoldNuggetRow struct {
	ID       string
	Question string
	// Answers are the acceptable answers; empty for a claim nugget.
	Answers []string
	// Claim is a claim nugget's text.
	Claim string
	// Name is the nugget's optional short label.
	Name  string
	Vital bool
	// DocIDs are the documents the gold file says hold the nugget.
	DocIDs  []string
	Covered bool
	// Cells are the verdicts on the report's sentences, in report order.
	Cells []CoverageCell
}

// label is the nugget's text for the matrix: its question, else its claim,
// else its answers.
func (n GoldNuggetRow) label() string {
	switch {
	case n.Question != "":
		return n.Question
	case n.Claim != "":
		return n.Claim
	}
	return strings.Join(n.Answers, " | ")
}

// CoverageCell is the judge's verdict on a nugget and a sentence.
type CoverageCell struct {
	Covered bool
	// Undecided is set when the judge could not decide; Reason then says
	// why.
	Undecided bool
	Reason    string
	// Score is the judge's graded view in [0, 1]: for a claim, the share
	// of its words the sentence holds.
	Score float64
}

// showReason reports whether the cell shows the judge's reason on hover:
// for a verdict that is yes, undecided or partly met. A plain "no" (an
// answer not found) says nothing the matrix does not, and large matrices
// would repeat it thousands of times.
func (c CoverageCell) showReason() bool {
	return c.Reason != "" && (c.Covered || c.Undecided || c.Score > 0)
}

// EvaluatedSentence is one report sentence as the judge saw it.
type EvaluatedSentence struct {
	// Number is the sentence's 1-based position in the report.
	Number int
	Text   string
	// Nuggets are the ids of the gold nuggets it covers; New those of
	// them no earlier sentence covers.
	Nuggets []string
	New     []string
	// Citations are the verdicts on its citations.
	Citations []CitationVerdict
}

// CitationVerdict is the judge's verdict on one citation of a sentence.
type CitationVerdict struct {
	DocID string
	// Ordinal is the passage judged against; HasPassage is false when the
	// document's whole text was used or the document is missing.
	Ordinal    int
	HasPassage bool
	// Missing is set when the cited document is not in the collection.
	Missing   bool
	Supported bool
	Undecided bool
	// Basis says what the citation was judged against, in words.
	Basis string
	// Reason is the judge's reason; Score its graded view in [0, 1].
	Reason string
	Score  float64
}

// evidenceURL links to the passage (or document) the citation was judged
// against.
func (c CitationVerdict) evidenceURL() string {
	if c.HasPassage {
		return DocumentPassageURL(c.DocID, c.Ordinal)
	}
	return DocumentURL(c.DocID, nil, "")
}

// verdictText is what the page says of the citation.
func (c CitationVerdict) verdictText() string {
	switch {
	case c.Undecided:
		return "undecided"
	case c.Supported:
		return "supported"
	}
	return "not supported"
}

// verdictClass styles the citation's verdict.
func (c CitationVerdict) verdictClass() string {
	switch {
	case c.Undecided:
		return "verdict verdict-unchecked"
	case c.Supported:
		return "verdict verdict-yes"
	}
	return "verdict verdict-no"
}

// title is the page's title.
func (p EvaluationPage) title() string {
	return "Evaluation – " + reportTitle(p.Report)
}

// showUpload reports whether the upload form starts open: when there is
// no set to pick yet, or an upload just failed.
func (p EvaluationPage) showUpload() bool {
	return len(p.GoldSets) == 0 || p.UploadError != ""
}

// goldLineExample is one line of a gold nugget file, for the upload form's
// help.
const goldLineExample = `{"request_id": "r1", "nugget_id": "n1", "question": "Who won?", "answers": ["Ann", "Ann Lee"], "importance": "vital"}`

// maxNuggetDocs bounds the documents listed for a missing nugget; gold
// files may name dozens.
const maxNuggetDocs = 5

// firstN returns at most the first n elements of xs.
func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

// joinIDs lists nugget ids: "n1, n3".
func joinIDs(ids []string) string {
	return strings.Join(ids, ", ")
}

// sentenceCase capitalises the first letter of a judge's reason, which
// the page shows as a sentence.
func sentenceCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// evaluateMethod is the evaluate form's method: "get" with the offline
// judge alone, "post" when the model judge is offered (see evaluateForm).
func (p EvaluationPage) evaluateMethod() string {
	if p.ModelJudge != "" {
		return "post"
	}
	return "get"
}

// ComparedRun is another system's report for the same request, judged
// by the same judge against the same gold nuggets.
type ComparedRun struct {
	// FileName is the uploaded file's name; RunID the run's own id.
	FileName, RunID string
	// RequestID is the request id the run's report gave itself, which may
	// differ from the request it was judged against.
	RequestID string
	// Format names the format the file was written in ("RAGTIME 2025").
	Format string
	Result EvaluationResult
}

// ComparedMetric is one metric of the side-by-side table.
type ComparedMetric struct {
	Label        string
	Key          string
	Own, Other   MetricCard
	Diff         string // other minus own, signed, or "–"
	OtherIsAhead bool
}

// Metrics pairs the report's metrics with the run's, in the report's
// order.
func (c ComparedRun) Metrics(own EvaluationResult) []ComparedMetric {
	byKey := map[string]MetricCard{}
	for _, m := range c.Result.Cards {
		byKey[m.Key] = m
	}
	var out []ComparedMetric
	for _, m := range own.Cards {
		o := byKey[m.Key]
		cm := ComparedMetric{Label: m.Label, Key: m.Key, Own: m, Other: o, Diff: "–"}
		if m.Defined() && o.Defined() {
			d := o.Value - m.Value
			cm.Diff = strconv.FormatFloat(d, 'f', 3, 64)
			if d > 0 {
				cm.Diff = "+" + cm.Diff
			}
			cm.OtherIsAhead = d > 0
		}
		out = append(out, cm)
	}
	return out
}

// name is how the page calls the run.
func (c ComparedRun) name() string {
	if c.RunID != "" {
		return c.RunID
	}
	return c.FileName
}

// independenceHelp explains an independence label.
func independenceHelp(label string) string {
	switch label {
	case pipeline.Independent:
		return "The judge is not the model that wrote the report."
	case pipeline.SelfJudged:
		return "The model that wrote the report judged it: its scores may favour it. Configure a judge model apart from it (serve --judge-model-url) for independent scores."
	case pipeline.SelfJudgedOffline:
		return "The offline judge scored a report of the offline engine: both read text lexically, so the scores may favour it."
	case pipeline.GeneratorUnknown:
		return "The report does not record what made it, so whether the judge is independent of it is not known."
	}
	return ""
}

// independenceClass is the label's style: independent scores stand out
// from self-judged ones.
func independenceClass(label string) string {
	if label == pipeline.Independent {
		return "badge independence independent"
	}
	return "badge independence self-judged"
}
