package views

import (
	"sort"
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// Field names of the new-report form. They double as the keys of
// pipeline.FieldErrors, so an error from the domain lands next to its field.
const (
	FieldTitle               = "title"
	FieldBackground          = "background"
	FieldProblemStatement    = "problem_statement"
	FieldLimit               = "limit"
	FieldRequestID           = "request_id"
	FieldEngine              = "engine"
	FieldRetrieve            = "retrieve"
	FieldIdeationDocs        = "ideation_docs"
	FieldNuggetsPerDoc       = "nuggets_per_doc"
	FieldTargetNuggets       = "target_nuggets"
	FieldKeepNuggets         = "keep_nuggets"
	FieldScanCandidates      = "scan_candidates"
	FieldConfidenceThreshold = "confidence_threshold"
	FieldSentencesPerNugget  = "sentences_per_nugget"
	FieldConcurrency         = "concurrency"
	FieldVerify              = "verify"
	FieldFullScan            = "full_scan"
	FieldReranker            = "reranker"
	FieldPreferPeriod        = "prefer_period"
	FieldPassageScores       = "passage_scores"
	FieldSpreadSources       = "spread_sources"
	FieldBestPassage         = "best_passage"
	FieldChooseSentences     = "choose_sentences"
	FieldFacetNuggets        = "facet_nuggets"
	FieldFillReport          = "fill_report"
)

// DefaultReportLimit is the report length, in characters, the form
// suggests.
const DefaultReportLimit = pipeline.DefaultReportLimit

// ReportForm is the view model of the new-report form: the values as the
// user typed them, the engines to choose from and, after a rejected
// submission, what was wrong.
type ReportForm struct {
	Site Site
	// Values holds each text and number field's value by field name.
	Values map[string]string
	// Verify is the verification checkbox, FullScan the full scan's.
	Verify   bool
	FullScan bool
	// Engine is the id of the chosen engine.
	Engine  string
	Engines []pipeline.EngineInfo
	// Reranker is the chosen reranking method ("" for none) among
	// Rerankers, the methods on offer (none: the choice is not shown).
	Reranker  string
	Rerankers []RerankerChoice
	// Errors maps a field name to what is wrong with it, worded to follow
	// the field's label ("is required").
	Errors map[string]string
	// Problem is an error that belongs to no field.
	Problem string
	// From is the job the form was filled in from (0: none); FollowUp
	// marks a follow-up request to it.
	From     int64
	FollowUp bool
	// CapsOffered shows the job's caps (Values holds them by
	// FieldMaxCalls...); ServerCaps are the portal's, the most a job may
	// have.
	CapsOffered bool
	ServerCaps  pipeline.Caps
	// CanEstimate offers the "Estimate" button; Estimate is the estimate
	// it asked for, shown below the form.
	CanEstimate bool
	Estimate    *EstimateView
}

// DefaultReportForm is the empty form: the default limit and settings
// (pipeline.DefaultSettings) and the first engine, the default.
func DefaultReportForm(site Site, engines []pipeline.EngineInfo) ReportForm {
	s := pipeline.DefaultSettings()
	f := ReportForm{
		Site:    site,
		Engines: engines,
		Verify:  s.Verify,
		Values: map[string]string{
			FieldLimit:               strconv.Itoa(DefaultReportLimit),
			FieldRetrieve:            strconv.Itoa(s.Retrieve),
			FieldIdeationDocs:        strconv.Itoa(s.IdeationDocs),
			FieldNuggetsPerDoc:       strconv.Itoa(s.NuggetsPerDoc),
			FieldTargetNuggets:       strconv.Itoa(s.TargetNuggets),
			FieldKeepNuggets:         strconv.Itoa(s.KeepNuggets),
			FieldScanCandidates:      strconv.Itoa(s.ScanCandidates),
			FieldConfidenceThreshold: strconv.FormatFloat(s.ConfidenceThreshold, 'g', -1, 64),
			FieldSentencesPerNugget:  strconv.Itoa(s.SentencesPerNugget),
			FieldConcurrency:         strconv.Itoa(s.Concurrency),
		},
	}
	if len(engines) > 0 {
		f.Engine = engines[0].ID
	}
	return f
}

// PrefilledReportForm is the form filled in from an earlier job: its
// request, limit, engine and settings, to edit and submit again. With
// followUp the form is for a new request that follows up the job's
// report: the title says so, the background recalls the earlier request,
// and the problem statement is left for the user to write.
func PrefilledReportForm(site Site, engines []pipeline.EngineInfo, job pipeline.Job, followUp bool) ReportForm {
	f := DefaultReportForm(site, engines)
	r, s := job.Request, job.Settings
	f.Values[FieldTitle] = r.Title
	f.Values[FieldBackground] = r.Background
	f.Values[FieldProblemStatement] = r.ProblemStatement
	f.Values[FieldRequestID] = r.ID
	if followUp {
		f.Values[FieldTitle] = "Follow-up: " + r.Title
		earlier := "This follows up the report on “" + r.Title + "”, which asked: " + r.ProblemStatement
		f.Values[FieldBackground] = strings.TrimSpace(r.Background + "\n\n" + earlier)
		f.Values[FieldProblemStatement] = ""
		f.Values[FieldRequestID] = ""
	}
	if r.Limit > 0 {
		f.Values[FieldLimit] = strconv.Itoa(r.Limit)
	}
	if s.Retrieve > 0 {
		f.Values[FieldRetrieve] = strconv.Itoa(s.Retrieve)
		f.Values[FieldIdeationDocs] = strconv.Itoa(s.IdeationDocs)
		f.Values[FieldNuggetsPerDoc] = strconv.Itoa(s.NuggetsPerDoc)
		f.Values[FieldTargetNuggets] = strconv.Itoa(s.TargetNuggets)
		f.Values[FieldKeepNuggets] = strconv.Itoa(s.KeepNuggets)
		f.Values[FieldScanCandidates] = strconv.Itoa(s.ScanCandidates)
		f.Values[FieldConfidenceThreshold] = strconv.FormatFloat(s.ConfidenceThreshold, 'g', -1, 64)
		f.Values[FieldSentencesPerNugget] = strconv.Itoa(s.SentencesPerNugget)
		f.Values[FieldConcurrency] = strconv.Itoa(s.Concurrency)
	}
	for _, rf := range ruleFields {
		f.Values[rf.Name] = SwitchValue(rf.Setting(s))
	}
	f.Verify, f.FullScan, f.Reranker = s.Verify, s.FullScan, s.Reranker
	f.From, f.FollowUp = job.ID, followUp
	for _, e := range engines {
		if e.ID == job.Engine {
			f.Engine = e.ID
		}
	}
	return f
}

// RerankerChoice is a reranking method the form offers.
type RerankerChoice struct {
	ID    string
	Label string
	// NoOfflineGain marks a method that, with the offline engine, did not
	// match BM25 on every evaluation set (rerank.OfflineGain).
	NoOfflineGain bool
}

// rerankerOption is a reranker's text in the form's list.
func rerankerOption(r RerankerChoice) string {
	if r.NoOfflineGain {
		return r.Label + " — no gain measured offline"
	}
	return r.Label
}

// formField describes one number field of the form's advanced section.
type formField struct {
	Name  string
	Label string
	Help  string
	// InputMode picks the on-screen keyboard: "numeric" or "decimal".
	InputMode string
}

// settingFields are the pipeline settings the form offers, in the order of
// the stages they tune.
var settingFields = []formField{
	{Name: FieldRetrieve, Label: "Documents retrieved (N)", Help: "BM25 retrieves this many documents for the request.", InputMode: "numeric"},
	{Name: FieldIdeationDocs, Label: "Documents for nugget ideation (D)", Help: "Nuggets are drawn from the top D retrieved documents.", InputMode: "numeric"},
	{Name: FieldNuggetsPerDoc, Label: "Nuggets per document", Help: "At most this many question-and-answer nuggets are asked of each document.", InputMode: "numeric"},
	{Name: FieldTargetNuggets, Label: "Nuggets after merging", Help: "Paraphrase merging stops once this many distinct nuggets remain.", InputMode: "numeric"},
	{Name: FieldKeepNuggets, Label: "Nuggets kept after ranking", Help: "Only the top-ranked nuggets are looked for in the passages.", InputMode: "numeric"},
	{Name: FieldScanCandidates, Label: "Candidates per nugget", Help: "Scanning a nugget stops once this many candidate sentences state its answer with the threshold's confidence.", InputMode: "numeric"},
	{Name: FieldConfidenceThreshold, Label: "Confidence threshold", Help: "A number from 0 to 1: candidates at or above it count towards stopping. 0 sets it from the run's own confidences (the median of the first candidates found).", InputMode: "decimal"},
	{Name: FieldSentencesPerNugget, Label: "Sentences per nugget (k)", Help: "The report takes up to this many sentences for each nugget.", InputMode: "numeric"},
	{Name: FieldConcurrency, Label: "Model calls at once", Help: "How many model calls the job may have in flight.", InputMode: "numeric"},
}

// ruleField describes one rule of pipeline.Heuristics the form can switch
// on or off, or leave to the engine (value "").
type ruleField struct {
	Name  string
	Label string
	Help  string
	// Of picks the rule from an engine's defaults, Setting from a job's
	// settings (nil: left to the engine).
	Of      func(pipeline.Heuristics) bool
	Setting func(pipeline.Settings) *bool
}

// ruleFields are the retrieval and ranking rules Crucible adds to the
// papers' method.
var ruleFields = []ruleField{
	{Name: FieldPreferPeriod, Label: "Prefer the request's period",
		Help:    "When the title or problem statement names a period (\"1812-1815\", \"the 1970s\", \"from Kennedy to Obama\"), the documents dated in it are added to those retrieved and their scores tripled.",
		Of:      func(h pipeline.Heuristics) bool { return h.PreferPeriod },
		Setting: func(s pipeline.Settings) *bool { return s.PreferPeriod }},
	{Name: FieldPassageScores, Label: "Score documents by their best passages",
		Help:    "A document scores the decayed sum of its three best passages instead of its best one (MaxP), so one that treats the subject at length ranks higher.",
		Of:      func(h pipeline.Heuristics) bool { return h.PassageScores },
		Setting: func(s pipeline.Settings) *bool { return s.PassageScores }},
	{Name: FieldSpreadSources, Label: "Spread nuggets over documents",
		Help:    "Among the kept nuggets, one document gives at most two before every other document has had its turn.",
		Of:      func(h pipeline.Heuristics) bool { return h.SpreadSources },
		Setting: func(s pipeline.Settings) *bool { return s.SpreadSources }},
	{Name: FieldBestPassage, Label: "Rerankers read the best passage",
		Help:    "With a reranker, its prompts show each document's best passage for the request instead of the document's opening.",
		Of:      func(h pipeline.Heuristics) bool { return h.BestPassage },
		Setting: func(s pipeline.Settings) *bool { return s.BestPassage }},
	{Name: FieldChooseSentences, Label: "Choose sentences by their promise",
		Help:    "Assembly takes the candidates most likely to state a wanted fact for their length (cited passage's rank, the problem statement's words, the nugget's turn and quality), across nuggets, each further sentence of one document weighing less, instead of each nugget's most confident one in rank order.",
		Of:      func(h pipeline.Heuristics) bool { return h.ChooseSentences },
		Setting: func(s pipeline.Settings) *bool { return s.ChooseSentences }},
	{Name: FieldFacetNuggets, Label: "Draw nuggets for every facet",
		Help:    "Besides the top documents, nuggets are drawn from the two best passages for each thing the problem statement asks for, and all of them are scanned for, beyond the nuggets kept.",
		Of:      func(h pipeline.Heuristics) bool { return h.FacetNuggets },
		Setting: func(s pipeline.Settings) *bool { return s.FacetNuggets }},
	{Name: FieldFillReport, Label: "Fill the report's room",
		Help:    "When the nuggets' sentences leave room within the length limit, the best passages' sentences that share most of the request's words and speak of its subject each give a nugget of their own, and their sentences fill the room.",
		Of:      func(h pipeline.Heuristics) bool { return h.FillReport },
		Setting: func(s pipeline.Settings) *bool { return s.FillReport }},
}

// engineDefault describes a rule's default on each engine: "Engine
// default (on for offline engine, off for gpt-4o)".
func engineDefault(engines []pipeline.EngineInfo, f ruleField) string {
	var parts []string
	for _, e := range engines {
		parts = append(parts, onOff(f.Of(e.Defaults))+" for "+e.Label)
	}
	if len(parts) == 0 {
		return "Engine default"
	}
	return "Engine default (" + strings.Join(parts, ", ") + ")"
}

// onOff words a switch.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// SwitchValue is a rule's form value: "" for the engine's default, else
// "on" or "off".
func SwitchValue(v *bool) string {
	if v == nil {
		return ""
	}
	return onOff(*v)
}

// fieldLabels names every field for error messages.
var fieldLabels = func() map[string]string {
	m := map[string]string{
		FieldTitle:            "Title",
		FieldBackground:       "Background",
		FieldProblemStatement: "Problem statement",
		FieldLimit:            "Character limit",
		FieldRequestID:        "Request id",
		FieldEngine:           "Engine",
		FieldVerify:           "Verify sentences",
		FieldFullScan:         "Read every passage",
		FieldReranker:         "Reranker",
	}
	for _, f := range settingFields {
		m[f.Name] = f.Label
	}
	for _, f := range ruleFields {
		m[f.Name] = f.Label
	}
	return m
}()

// fieldLabel is the label of a form field, or the name itself for a field
// the form does not show.
func fieldLabel(name string) string {
	if l, ok := fieldLabels[name]; ok {
		return l
	}
	return name
}

// fieldOrder is the order in which errors are listed: the form's order.
var fieldOrder = func() map[string]int {
	names := []string{FieldTitle, FieldBackground, FieldProblemStatement, FieldLimit, FieldEngine, FieldReranker, FieldRequestID}
	for _, f := range settingFields {
		names = append(names, f.Name)
	}
	names = append(names, FieldVerify, FieldMaxCalls, FieldMaxTokens, FieldMaxTime)
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}()

// fieldError is one entry of the form's error summary.
type fieldError struct {
	Name    string
	Message string
	// Shown is false for a field the form has no input for; the summary
	// is then the only place the message appears.
	Shown bool
}

// errorList is the form's errors in the form's order, fields the form does
// not show last, by name.
func (f ReportForm) errorList() []fieldError {
	out := make([]fieldError, 0, len(f.Errors))
	for name, msg := range f.Errors {
		_, shown := fieldOrder[name]
		out = append(out, fieldError{Name: name, Message: fieldMessage(name, msg), Shown: shown})
	}
	sort.Slice(out, func(i, j int) bool {
		oi, iok := fieldOrder[out[i].Name]
		oj, jok := fieldOrder[out[j].Name]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		default:
			return out[i].Name < out[j].Name
		}
	})
	return out
}

// fieldMessage makes a sentence of a field's error: its label followed by
// the domain's words ("Title is required.").
func fieldMessage(name, msg string) string {
	s := fieldLabel(name) + " " + msg
	if n := len(s); n > 0 && s[n-1] != '.' {
		s += "."
	}
	return s
}

// errorFor is the message shown under a field, "" when it has none.
func (f ReportForm) errorFor(name string) string {
	msg, ok := f.Errors[name]
	if !ok {
		return ""
	}
	return fieldMessage(name, msg)
}

// advancedOpen reports whether the advanced section starts open: when one
// of its fields has an error, so the message is not hidden.
func (f ReportForm) advancedOpen() bool {
	for _, name := range []string{FieldEngine, FieldReranker, FieldRequestID, FieldVerify, FieldFullScan} {
		if _, bad := f.Errors[name]; bad {
			return true
		}
	}
	for _, sf := range settingFields {
		if _, bad := f.Errors[sf.Name]; bad {
			return true
		}
	}
	for _, rf := range ruleFields {
		if _, bad := f.Errors[rf.Name]; bad {
			return true
		}
	}
	for _, cf := range capFields {
		if _, bad := f.Errors[cf.Name]; bad || f.Values[cf.Name] != "" {
			return true
		}
	}
	return false
}

// errorID is the id of the element holding a field's error message.
func errorID(name string) string { return name + "-error" }

// inputID is the id of a field's input.
func inputID(name string) string { return "field-" + name }

// engineInputID is the id of an engine's radio button.
func engineInputID(id string) string { return "engine-" + id }

// engineChoiceLabel is how the form names an engine: its label, and
// "offline engine" for the offline one when the label does not say so.
func engineChoiceLabel(e pipeline.EngineInfo) string {
	return EngineLabelFor([]pipeline.EngineInfo{e}, e.ID).Text()
}

// describedBy is the aria-describedby of a field: its help text, when it
// has one, and its error message, when it has one.
func describedBy(f ReportForm, name string, hasHelp bool) string {
	var ids []string
	if hasHelp {
		ids = append(ids, name+"-help")
	}
	if f.errorFor(name) != "" {
		ids = append(ids, errorID(name))
	}
	return strings.Join(ids, " ")
}
