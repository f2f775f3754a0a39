package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/views"
)

// EngineLister lists the engines reports can be made with.
type EngineLister interface {
	// Engines lists the available engines, the default first.
	Engines() []pipeline.EngineInfo
}

// ReportSubmitter queues report jobs.
type ReportSubmitter interface {
	EngineLister
	// Submit validates and queues a report job; existing is true when an
	// unfinished job with the same request, settings and engine was
	// returned instead. Bad input gives pipeline.FieldErrors.
	Submit(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string) (job pipeline.Job, existing bool, err error)
}

// ReportEstimator estimates report jobs before they start: a dry run of
// the request's retrieval and of the stages before the scan, no model
// call made (jobs.Runner). Optional: without it the form has no
// "Estimate" button.
type ReportEstimator interface {
	// Estimate says what a job of req with settings s on the engine named
	// would cost, stage by stage. Bad input gives pipeline.FieldErrors.
	Estimate(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string) (pipeline.CostEstimate, error)
}

// CapService runs report jobs under caps on their model calls, tokens and
// wall time (jobs.Runner). Optional: without it the form offers no caps
// and stopped jobs cannot be resumed.
type CapService interface {
	// JobCaps are the portal's caps: the most a job may have.
	JobCaps() pipeline.Caps
	// SubmitCapped is Submit with the job's own caps, none above the
	// portal's (pipeline.FieldErrors otherwise); zero ones take the
	// portal's.
	SubmitCapped(ctx context.Context, req pipeline.Request, s pipeline.Settings, engine string, caps pipeline.Caps) (job pipeline.Job, existing bool, err error)
	// Resume queues a job stopped at a cap again under caps that let it
	// past that cap: pipeline.FieldErrors when they do not, or exceed
	// the portal's; pipeline.ErrConflict when the job is not stopped.
	Resume(ctx context.Context, id int64, caps pipeline.Caps) (pipeline.Job, error)
}

// ReportReader reads reports and the artefacts of the jobs that made them.
// RankerReader reads a stored nugget ranker (pipeline.RankerModel); an
// unknown id is an error wrapping pipeline.ErrNotFound. The SQLite store
// implements it.
type RankerReader interface {
	Ranker(ctx context.Context, id int64) (pipeline.RankerModel, error)
}

type ReportReader interface {
	// Report returns a report with its sentences and kept nuggets, or an
	// error wrapping pipeline.ErrNotFound.
	Report(ctx context.Context, id int64) (pipeline.Report, error)
	// Nuggets returns every nugget a job stored: kept ones (Rank > 0),
	// those ranked below the cut (Rank 0) and merged-away paraphrases
	// (Popularity 0).
	Nuggets(ctx context.Context, jobID int64) ([]pipeline.Nugget, error)
	// Candidates returns a job's candidate sentences.
	Candidates(ctx context.Context, jobID int64) ([]pipeline.Candidate, error)
	// Retrieval returns a job's first-stage ranking.
	Retrieval(ctx context.Context, jobID int64) ([]pipeline.RetrievedDoc, error)
}

// RerankerLister is implemented by report services that offer reranking:
// the methods a request may name, the default first or none.
type RerankerLister interface {
	RerankMethods() []string
}

// rerankChoices lists the reranking methods the service offers.
func rerankChoices(service any) []views.RerankerChoice {
	rl, ok := service.(RerankerLister)
	if !ok {
		return nil
	}
	var out []views.RerankerChoice
	for _, m := range rl.RerankMethods() {
		gain, _ := rerank.OfflineGain(m)
		out = append(out, views.RerankerChoice{ID: m, Label: MethodLabel(m), NoOfflineGain: !gain})
	}
	return out
}

// ReportJobFinder finds the job that made a report. pipeline.Report does
// not carry its job's id; the store links them.
type ReportJobFinder interface {
	// ReportJob returns the id of the job that produced the report, or an
	// error wrapping pipeline.ErrNotFound when no report has the id or its
	// job is no longer stored.
	ReportJob(ctx context.Context, reportID int64) (int64, error)
}

// Reports serves the new-report form, reports and their nugget banks.
type Reports struct {
	Site      views.Site
	Service   ReportSubmitter
	Store     ReportReader
	Documents DocumentReader
	// Jobs links reports to their jobs. Optional: without it a report
	// page links to neither its job nor its nugget bank, and the nugget
	// bank is not found.
	Jobs ReportJobFinder
	// Titles looks up the titles of cited documents in one call for the
	// Markdown export. Optional: without it each title is read through
	// Documents.
	Titles TitleReader
	// Authoring keeps versions, reviews and statuses and makes the edits.
	// Optional: without it reports are read-only and shown as generated.
	Authoring ReportAuthoring
	// Rankers reads the trained nugget rankers, for the nugget bank's
	// line on how its nuggets were ranked. Optional: without it a bank
	// ranked by a trained ranker names only its id.
	Rankers RankerReader
	// PrintCSS is the style sheet inlined into the printable page of the
	// "download all" archive, which must read well without the portal.
	PrintCSS string
	// ScriptURL is report.js, the report page's evidence pane and
	// keyboard navigation; "" leaves the page without it.
	ScriptURL string
	// PastJobs reads earlier jobs, to fill the form in from one (views.
	// ResubmitURL, views.FollowUpURL). Optional.
	PastJobs interface {
		Job(ctx context.Context, id int64) (pipeline.Job, error)
	}
	// Collection names the collection in exports (NeuCLIR
	// "collection_ids"). Optional: without it the list is empty.
	Collection func(ctx context.Context) ([]string, error)
	// TeamID is the team the TREC formats name (export.DefaultTeamID
	// when empty).
	TeamID string
	// Gold keeps the gold nugget sets the compare page judges both
	// reports against, and scorecards count the nuggets of. Optional:
	// without it the page compares no metrics and scorecards no recall.
	Gold GoldStore
	// Scorecards computes, keeps and shows reports' scorecards, which
	// every export then carries. Optional: without it reports have none.
	Scorecards *Scorecards
}

// collectionIDs names the collection for an export.
func (h *Reports) collectionIDs(ctx context.Context) ([]string, error) {
	if h.Collection == nil {
		return nil, nil
	}
	ids, err := h.Collection(ctx)
	if err != nil {
		return nil, fmt.Errorf("name the collection: %w", err)
	}
	return ids, nil
}

// New renders the new-report form: empty with the default settings, or,
// with ?from=JOB, filled in from that job's request and settings (with
// &follow=1, for a follow-up request to it). An unknown job is a 404.
func (h *Reports) New(c echo.Context) error {
	site := h.Site.WithActive(views.NavNewReport)
	vm := views.DefaultReportForm(site, h.Service.Engines())
	if raw := c.QueryParam(views.ParamFrom); raw != "" && h.PastJobs != nil {
		id, err := parseID(raw, "job")
		if err != nil {
			return err
		}
		job, err := h.PastJobs.Job(c.Request().Context(), id)
		if errors.Is(err, pipeline.ErrNotFound) {
			return fmt.Errorf("no job has the id %d to fill the form from: %w", id, pipeline.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("load job %d: %w", id, err)
		}
		vm = views.PrefilledReportForm(site, h.Service.Engines(), job, c.QueryParam(views.ParamFollowUp) == "1")
	}
	vm.Rerankers = rerankChoices(h.Service)
	h.offerCosts(&vm)
	return Render(c, http.StatusOK, views.NewReport(vm))
}

// offerCosts shows the caps and the "Estimate" button when the service
// has them.
func (h *Reports) offerCosts(vm *views.ReportForm) {
	if cs, ok := h.Service.(CapService); ok {
		vm.CapsOffered, vm.ServerCaps = true, cs.JobCaps()
	}
	_, vm.CanEstimate = h.Service.(ReportEstimator)
}

// Estimate reads the new-report form as Create does and shows it again
// with the estimate of the job it describes below it (200), without
// starting it: calls and tokens per stage and, when the engine's prices
// are known, what they cost. Fields that do not parse or that the domain
// rejects re-render the form with 422, as Create does.
func (h *Reports) Estimate(c echo.Context) error {
	est, ok := h.Service.(ReportEstimator)
	if !ok {
		return fmt.Errorf("this portal offers no estimates: %w", pipeline.ErrNotFound)
	}
	form, err := c.FormParams()
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return err
		}
		return pipeline.Invalidf("the form could not be read: %v", err)
	}
	engines := h.Service.Engines()
	sub := parseReportForm(form, engines)
	vm := h.formAgain(sub, engines)
	if len(sub.Errors) > 0 {
		vm.Errors = sub.withDomainErrors()
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	}
	e, err := est.Estimate(c.Request().Context(), sub.Request, sub.Settings, sub.Engine)
	var fe pipeline.FieldErrors
	switch {
	case errors.As(err, &fe):
		vm.Errors = map[string]string(fe)
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	case errors.Is(err, pipeline.ErrInvalid) || errors.Is(err, pipeline.ErrNotFound):
		vm.Problem = "No estimate: " + err.Error()
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	case err != nil:
		return fmt.Errorf("estimate report request %q: %w", sub.Request.Title, err)
	}
	info := engineInfo(engines, sub.Engine)
	vm.Estimate = &views.EstimateView{Engine: views.EngineLabelFor(engines, sub.Engine), Estimate: e, Prices: info.Prices}
	return Render(c, http.StatusOK, views.NewReport(vm))
}

// engineInfo is the engine with the id, zero when none has it.
func engineInfo(engines []pipeline.EngineInfo, id string) pipeline.EngineInfo {
	for _, e := range engines {
		if e.ID == id {
			return e
		}
	}
	return pipeline.EngineInfo{}
}

// formAgain is the form showing a submission again.
func (h *Reports) formAgain(sub reportSubmission, engines []pipeline.EngineInfo) views.ReportForm {
	vm := views.ReportForm{
		Site:   h.Site.WithActive(views.NavNewReport),
		Values: sub.Values,
		Verify: sub.Settings.Verify, FullScan: sub.Settings.FullScan,
		Engine:  sub.Engine,
		Engines: engines,
		// What the user chose is shown again even if the service no
		// longer offers it; Submit then names the problem.
		Reranker:  sub.Settings.Reranker,
		Rerankers: rerankChoices(h.Service),
	}
	h.offerCosts(&vm)
	return vm
}

// Create reads the new-report form and queues the report job.
//
// It answers 303 See Other to the job's page on success, with the
// "existing" flag when the request was already queued or running. Fields
// that do not parse and fields the domain rejects (pipeline.FieldErrors)
// re-render the form with 422 Unprocessable Entity, a message next to each
// field and what the user typed kept.
func (h *Reports) Create(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return err // the body limit's 413
		}
		return pipeline.Invalidf("the form could not be read: %v", err)
	}
	engines := h.Service.Engines()
	sub := parseReportForm(form, engines)
	vm := h.formAgain(sub, engines)
	if len(sub.Errors) > 0 {
		vm.Errors = sub.withDomainErrors()
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	}

	ctx := pipeline.WithActor(c.Request().Context(), actorName(c.Request().Context()))
	var job pipeline.Job
	var existing bool
	if cs, ok := h.Service.(CapService); ok {
		job, existing, err = cs.SubmitCapped(ctx, sub.Request, sub.Settings, sub.Engine, sub.Caps)
	} else {
		job, existing, err = h.Service.Submit(ctx, sub.Request, sub.Settings, sub.Engine)
	}
	var fe pipeline.FieldErrors
	switch {
	case errors.As(err, &fe):
		vm.Errors = map[string]string(fe)
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	case errors.Is(err, pipeline.ErrInvalid):
		vm.Problem = sentence(err.Error())
		return Render(c, http.StatusUnprocessableEntity, views.NewReport(vm))
	case err != nil:
		return fmt.Errorf("submit report request %q: %w", sub.Request.Title, err)
	}
	target := views.JobURL(job.ID)
	if existing {
		target = views.ExistingJobURL(job.ID)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// reportSubmission is a new-report form as parsed.
type reportSubmission struct {
	Request  pipeline.Request
	Settings pipeline.Settings
	Engine   string
	// Caps are the job's own caps (zero ones: the portal's).
	Caps pipeline.Caps
	// Values are the text and number fields as the form shows them again:
	// what the user typed, trimmed.
	Values map[string]string
	// Errors names the fields that could not be parsed; the request and
	// settings then hold defaults in their place.
	Errors pipeline.FieldErrors
}

// intSettings are the form's whole-number settings and where they go.
var intSettings = []struct {
	name string
	ptr  func(*pipeline.Settings) *int
}{
	{views.FieldRetrieve, func(s *pipeline.Settings) *int { return &s.Retrieve }},
	{views.FieldIdeationDocs, func(s *pipeline.Settings) *int { return &s.IdeationDocs }},
	{views.FieldNuggetsPerDoc, func(s *pipeline.Settings) *int { return &s.NuggetsPerDoc }},
	{views.FieldTargetNuggets, func(s *pipeline.Settings) *int { return &s.TargetNuggets }},
	{views.FieldKeepNuggets, func(s *pipeline.Settings) *int { return &s.KeepNuggets }},
	{views.FieldScanCandidates, func(s *pipeline.Settings) *int { return &s.ScanCandidates }},
	{views.FieldSentencesPerNugget, func(s *pipeline.Settings) *int { return &s.SentencesPerNugget }},
	{views.FieldConcurrency, func(s *pipeline.Settings) *int { return &s.Concurrency }},
}

// ruleSettings are the form's switches of pipeline.Heuristics and where
// they go.
var ruleSettings = []struct {
	name string
	ptr  func(*pipeline.Settings) **bool
}{
	{views.FieldPreferPeriod, func(s *pipeline.Settings) **bool { return &s.PreferPeriod }},
	{views.FieldPassageScores, func(s *pipeline.Settings) **bool { return &s.PassageScores }},
	{views.FieldSpreadSources, func(s *pipeline.Settings) **bool { return &s.SpreadSources }},
	{views.FieldBestPassage, func(s *pipeline.Settings) **bool { return &s.BestPassage }},
	{views.FieldChooseSentences, func(s *pipeline.Settings) **bool { return &s.ChooseSentences }},
	{views.FieldFacetNuggets, func(s *pipeline.Settings) **bool { return &s.FacetNuggets }},
	{views.FieldFillReport, func(s *pipeline.Settings) **bool { return &s.FillReport }},
}

// parseReportForm reads a new-report form. Text is trimmed, with CRLF line
// breaks (as browsers send them) made LF. A number field that is absent
// takes its default (pipeline.DefaultSettings, views.DefaultReportLimit),
// so a client may post only the request; one that is present but empty or
// not a number is an error. A rule of pipeline.Heuristics is "on", "off"
// or empty (the engine's default). An absent engine means the default (first)
// engine; one the portal does not offer is an error. The checkbox "verify"
// is on for "1", "on", "true" and "yes".
func parseReportForm(form url.Values, engines []pipeline.EngineInfo) reportSubmission {
	sub := reportSubmission{
		Settings: pipeline.DefaultSettings(),
		Values:   map[string]string{},
		Errors:   pipeline.FieldErrors{},
	}
	text := func(name string) string {
		v := strings.ReplaceAll(form.Get(name), "\r\n", "\n")
		v = strings.TrimSpace(strings.ReplaceAll(v, "\r", "\n"))
		sub.Values[name] = v
		return v
	}
	sub.Request.Title = text(views.FieldTitle)
	sub.Request.Background = text(views.FieldBackground)
	sub.Request.ProblemStatement = text(views.FieldProblemStatement)
	sub.Request.ID = text(views.FieldRequestID)

	wholeNumber := func(name string, def int) int {
		raw, present := form[name]
		if !present {
			sub.Values[name] = strconv.Itoa(def)
			return def
		}
		v := strings.TrimSpace(raw[0])
		sub.Values[name] = v
		if v == "" {
			sub.Errors[name] = "is required"
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			sub.Errors[name] = fmt.Sprintf("must be a whole number, such as %d", def)
			return def
		}
		return n
	}
	sub.Request.Limit = wholeNumber(views.FieldLimit, views.DefaultReportLimit)
	defaults := pipeline.DefaultSettings()
	for _, f := range intSettings {
		*f.ptr(&sub.Settings) = wholeNumber(f.name, *f.ptr(&defaults))
	}

	threshold := defaults.ConfidenceThreshold
	if raw, present := form[views.FieldConfidenceThreshold]; !present {
		sub.Values[views.FieldConfidenceThreshold] = strconv.FormatFloat(threshold, 'g', -1, 64)
	} else {
		v := strings.TrimSpace(raw[0])
		sub.Values[views.FieldConfidenceThreshold] = v
		x, err := strconv.ParseFloat(v, 64)
		switch {
		case v == "":
			sub.Errors[views.FieldConfidenceThreshold] = "is required"
		case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
			sub.Errors[views.FieldConfidenceThreshold] = "must be a number from 0 to 1, such as 0.6 (0 sets it from the run's own confidences)"
		default:
			threshold = x
		}
	}
	sub.Settings.ConfidenceThreshold = threshold
	for _, f := range ruleSettings {
		v := strings.ToLower(strings.TrimSpace(form.Get(f.name)))
		sub.Values[f.name] = v
		switch v {
		case "":
		case "on", "off":
			on := v == "on"
			*f.ptr(&sub.Settings) = &on
		default:
			sub.Errors[f.name] = fmt.Sprintf("must be on, off, or empty for the engine's default, not %q", v)
		}
	}
	sub.Settings.Verify = parseFlag(form.Get(views.FieldVerify))
	sub.Settings.FullScan = parseFlag(form.Get(views.FieldFullScan))
	sub.Settings.Reranker = strings.TrimSpace(form.Get(views.FieldReranker))

	sub.Caps = parseCaps(form, sub.Values, sub.Errors)

	sub.Engine = strings.TrimSpace(form.Get(views.FieldEngine))
	switch {
	case len(engines) == 0:
		sub.Errors[views.FieldEngine] = "is not available: no report engine is configured"
	case sub.Engine == "":
		sub.Engine = engines[0].ID
	case !offers(engines, sub.Engine):
		sub.Errors[views.FieldEngine] = fmt.Sprintf("%q is not one of the engines this portal offers", sub.Engine)
	}
	return sub
}

// parseCaps reads a job's caps from a form (views.FieldMaxCalls,
// FieldMaxTokens, FieldMaxTime): empty or absent is no cap of the job's
// own; calls and tokens are whole numbers, 0 or more; the time is a
// duration such as "30m" or "1h30m", or a whole number of minutes. What
// was typed goes to values, what is wrong to errs.
func parseCaps(form url.Values, values map[string]string, errs pipeline.FieldErrors) pipeline.Caps {
	var caps pipeline.Caps
	count := func(name string) int {
		v := strings.ReplaceAll(strings.TrimSpace(form.Get(name)), ",", "")
		values[name] = v
		if v == "" {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs[name] = "must be a whole number, such as 500, or empty"
			return 0
		}
		return n
	}
	caps.Calls = count(views.FieldMaxCalls)
	caps.Tokens = count(views.FieldMaxTokens)
	v := strings.TrimSpace(form.Get(views.FieldMaxTime))
	values[views.FieldMaxTime] = v
	if v != "" {
		d, err := time.ParseDuration(v)
		if n, nerr := strconv.Atoi(v); nerr == nil {
			d, err = time.Duration(n)*time.Minute, nil
		}
		if err != nil || d < 0 {
			errs[views.FieldMaxTime] = "must be a length of time such as 30m or 2h, or empty"
		} else {
			caps.Time = d
		}
	}
	return caps
}

// offers reports whether an engine with the id is among engines.
func offers(engines []pipeline.EngineInfo, id string) bool {
	for _, e := range engines {
		if e.ID == id {
			return true
		}
	}
	return false
}

// withDomainErrors returns the parse errors together with what the
// domain's validation says about the fields that did parse, so one answer
// names every problem. The check that ideation draws on no more documents
// than are retrieved is left out when either number did not parse: it
// would compare with a default the user did not choose.
func (sub reportSubmission) withDomainErrors() map[string]string {
	out := map[string]string{}
	for k, v := range sub.Errors {
		out[k] = v
	}
	_, badRetrieve := sub.Errors[views.FieldRetrieve]
	_, badIdeation := sub.Errors[views.FieldIdeationDocs]
	for _, err := range []error{sub.Request.Validate(), sub.Settings.Validate()} {
		var fe pipeline.FieldErrors
		if !errors.As(err, &fe) {
			continue
		}
		for k, v := range fe {
			if _, taken := out[k]; taken {
				continue
			}
			if k == views.FieldIdeationDocs && (badRetrieve || badIdeation) {
				continue
			}
			out[k] = v
		}
	}
	return out
}

// sentence capitalises a message's first letter for a page.
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// parseID reads a positive numeric id from a path parameter. Anything else
// names no object: an error wrapping pipeline.ErrNotFound.
func parseID(raw, what string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("no %s has the id %q: %w", what, raw, pipeline.ErrNotFound)
	}
	return id, nil
}
