package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/views"
)

// GoldStore keeps the gold nugget sets reports are evaluated against. The
// SQLite store implements it.
type GoldStore interface {
	// CreateGoldSet stores nuggets as a gold set called name and returns
	// it with its id. A blank name or no nuggets is an error wrapping
	// pipeline.ErrInvalid.
	CreateGoldSet(ctx context.Context, name string, nuggets []judge.Nugget) (judge.GoldSet, error)
	// GoldSet returns a gold set with its nuggets, or an error wrapping
	// pipeline.ErrNotFound.
	GoldSet(ctx context.Context, id int64) (judge.GoldSet, error)
	// GoldSets lists the stored gold sets without their nuggets, newest
	// first.
	GoldSets(ctx context.Context) ([]judge.GoldSetSummary, error)
}

// DefaultMaxGoldBytes is the largest gold nugget file accepted when
// Evaluations.MaxGoldBytes is not set: 5 MiB. Real files are far smaller
// (SummHay's 336 news insights take 190 KiB).
const DefaultMaxGoldBytes = 5 << 20

// multipartSlack is what an upload's body may hold beyond the file: the
// multipart boundaries and headers and the name field.
const multipartSlack = 64 << 10

// Evaluations serves a report's evaluation page: uploading and picking
// gold nugget sets, and evaluating the report against one of the set's
// requests with the offline judge or, when a model is configured, the
// model judge. Evaluations are computed on request and not stored.
type Evaluations struct {
	Site views.Site
	// Reports reads the report evaluated.
	Reports ReportReader
	Gold    GoldStore
	// Source holds the documents citations are judged against.
	Source judge.Source
	// Model, when set, offers the model judge; ModelLabel names it on the
	// page. Optional: without it only the offline judge is offered.
	Model      pipeline.Model
	ModelLabel string
	// ModelInfo names the model judge's model and endpoint host, which
	// tell whether it wrote the report it judges (pipeline.Independence).
	ModelInfo pipeline.JudgeInfo
	// MaxGoldBytes bounds an uploaded gold file; 0 means
	// DefaultMaxGoldBytes. The upload route must be exempt from the
	// server's general body limit for a larger bound to take effect.
	MaxGoldBytes int64
	// Authoring, when set, makes the evaluated report its newest version
	// and offers to count reviewers' verdicts in the citation-support
	// metric (views.ParamReviewerVerdicts). Optional.
	Authoring ReportAuthoring
}

func (h *Evaluations) maxGoldBytes() int64 {
	if h.MaxGoldBytes > 0 {
		return h.MaxGoldBytes
	}
	return DefaultMaxGoldBytes
}

// Show renders the evaluation page of the report whose id is in the path.
// The query may choose a gold set (views.ParamGold) and its request
// (views.ParamRequest); with a set chosen whose request is known, the page
// shows the offline judge's evaluation. An unknown report or gold set is a
// 404; a request the set does not have re-renders the choice with 422.
func (h *Evaluations) Show(c echo.Context) error {
	return h.evaluate(c, c.QueryParam(views.ParamGold), c.QueryParam(views.ParamRequest), views.JudgeOffline,
		parseFlag(c.QueryParam(views.ParamReviewerVerdicts)))
}

// Evaluate evaluates the report whose id is in the path with the judge
// the form names (views.FieldJudge: offline or model), against the gold
// set and request it names. It answers with the page, as Show does: the
// results are not stored, so there is nothing to redirect to. The model
// judge runs through POST because it spends model calls. A judge the
// portal does not offer re-renders the page with 422.
func (h *Evaluations) Evaluate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return err // the body limit's 413
		}
		return pipeline.Invalidf("the form could not be read: %v", err)
	}
	judgeID := strings.TrimSpace(form.Get(views.FieldJudge))
	if judgeID == "" {
		judgeID = views.JudgeOffline
	}
	return h.evaluate(c, form.Get(views.ParamGold), form.Get(views.ParamRequest), judgeID,
		parseFlag(form.Get(views.ParamReviewerVerdicts)))
}

// evaluate renders the page for the gold set, request and judge asked
// for; useReviews counts reviewers' verdicts where citations have them.
func (h *Evaluations) evaluate(c echo.Context, goldRaw, requestRaw, judgeID string, useReviews bool) error {
	ctx := c.Request().Context()
	st, err := h.setup(c, goldRaw, requestRaw, judgeID)
	if err != nil || st.status != 0 {
		return err
	}
	vm := st.vm
	vm.ReviewerVerdicts = useReviews && vm.ReviewsOffered
	rr, err := st.evaluateOwn(ctx, h.Source)
	if err != nil {
		return err
	}
	var used, partly int
	if vm.ReviewerVerdicts {
		reviews, err := h.Authoring.Reviews(ctx, st.rep.ID)
		if err != nil {
			return fmt.Errorf("reviews of report %d: %w", st.rep.ID, err)
		}
		used, partly = useReviewerVerdicts(&rr, st.rep.Sentences, reviews)
	}
	res := buildEvaluation(rr)
	res.Reviewed = used
	for i := range res.Cards {
		if res.Cards[i].Key == "citation-support" && used > 0 {
			res.Cards[i].Halves = partly
			res.Cards[i].Help += " Reviewers' verdicts replace the judge's where present."
		}
	}
	vm.Result = &res
	return Render(c, http.StatusOK, views.Evaluation(vm))
}

// evalSetup is an evaluation made ready: the report, the page, the
// chosen request's gold nuggets and the judge.
type evalSetup struct {
	rep   pipeline.Report
	vm    views.EvaluationPage
	setID int64
	gold  []judge.Nugget
	judge judge.Judge
	// status is set when the page has been rendered already (nothing
	// chosen yet, or a choice refused).
	status int
}

// setup reads the report and the gold set, request and judge asked for.
// When there is nothing to evaluate yet, or a choice is refused, it
// renders the page and returns its status.
func (h *Evaluations) setup(c echo.Context, goldRaw, requestRaw, judgeID string) (evalSetup, error) {
	ctx := c.Request().Context()
	rep, err := h.loadReport(ctx, c.Param("id"))
	if err != nil {
		return evalSetup{}, err
	}
	vm, err := h.page(ctx, rep)
	if err != nil {
		return evalSetup{}, err
	}
	st := evalSetup{rep: rep}
	render := func(status int) (evalSetup, error) {
		st.vm, st.status = vm, status
		return st, Render(c, status, views.Evaluation(vm))
	}
	goldRaw = strings.TrimSpace(goldRaw)
	if goldRaw == "" {
		return render(http.StatusOK)
	}
	goldID, err := parseID(goldRaw, "gold set")
	if err != nil {
		return evalSetup{}, err
	}
	set, err := h.Gold.GoldSet(ctx, goldID)
	if err != nil {
		if errors.Is(err, pipeline.ErrNotFound) {
			return evalSetup{}, fmt.Errorf("no gold set has the id %d: %w", goldID, pipeline.ErrNotFound)
		}
		return evalSetup{}, fmt.Errorf("load gold set %d: %w", goldID, err)
	}
	sum := goldOption(set.Summary())
	vm.Gold = &sum
	vm.Requests = judge.RequestIDs(set.Nuggets)
	vm.RequestLabels = requestLabels(set.Nuggets)
	vm.Request = chooseRequest(rep.Request.ID, strings.TrimSpace(requestRaw), vm.Requests)
	switch vm.Request.State {
	case views.RequestNeeded:
		return render(http.StatusOK)
	case views.RequestUnknown:
		return render(http.StatusUnprocessableEntity)
	}
	st.setID = set.ID
	st.gold = judge.ByRequest(set.Nuggets)[vm.Request.ID]
	vm.RequestNuggets = len(st.gold)
	vm.ModelCalls = len(st.gold)*len(rep.Sentences) + len(rep.Sentences)
	switch {
	case judgeID == views.JudgeOffline:
		st.judge = judge.Offline{}
	case judgeID == views.JudgeModel && h.Model != nil:
		st.judge = judge.ModelJudge{Model: h.Model, Label: h.ModelLabel, ModelName: h.ModelInfo.Model, Host: h.ModelInfo.EndpointHost}
	case judgeID == views.JudgeModel:
		vm.Problem = "The model judge is not available: this portal has no model endpoint configured. Use the offline judge."
		return render(http.StatusUnprocessableEntity)
	default:
		vm.Problem = fmt.Sprintf("There is no judge called %q: choose the offline or the model judge.", judgeID)
		return render(http.StatusUnprocessableEntity)
	}
	vm.JudgeID = judgeID
	st.vm = vm
	return st, nil
}

// evaluateOwn judges the report as the NeuCLIR export presents it, under
// the request chosen, which may differ from its own id.
func (st evalSetup) evaluateOwn(ctx context.Context, source judge.Source) (judge.ReportResult, error) {
	neu := export.NeuCLIR(st.rep, nil)
	neu.RequestID = st.vm.Request.ID
	ev := judge.Evaluator{Judge: st.judge, Source: source}
	rr, err := ev.EvaluateReport(ctx, neu, st.gold)
	if err != nil {
		return rr, fmt.Errorf("evaluate report %d against gold set %d, request %q: %w", st.rep.ID, st.setID, st.vm.Request.ID, err)
	}
	return rr, nil
}

// Compare evaluates another system's run beside the report whose id is
// in the path: a multipart form with the gold set, request and judge of
// the evaluation (views.ParamGold, views.ParamRequest, views.FieldJudge)
// and the run file (views.FieldRunFile) in any format judge.ReadReports
// reads. The run's report for the chosen request (or the file's only
// report) is judged with the same judge and nuggets, and the page shows
// the two side by side. Nothing is stored. A file that cannot be read, or
// holds no report for the request, re-renders the page with 422 and the
// reason; one over MaxGoldBytes gets 413.
func (h *Evaluations) Compare(c echo.Context) error {
	ctx := c.Request().Context()
	limit := h.maxGoldBytes()
	tooLarge := fmt.Sprintf("The run file is larger than %s, the largest this portal accepts. Keep only the report for this request and upload that.", byteSize(limit))
	up, status, problem := readMultipart(c, views.FieldRunFile, []string{views.ParamGold, views.ParamRequest, views.FieldJudge}, limit, tooLarge, "run file")
	if status == http.StatusRequestEntityTooLarge && up.fields == nil {
		return echo.NewHTTPError(status, problem)
	}
	judgeID := strings.TrimSpace(up.fields[views.FieldJudge])
	if judgeID == "" {
		judgeID = views.JudgeOffline
	}
	st, err := h.setup(c, up.fields[views.ParamGold], up.fields[views.ParamRequest], judgeID)
	if err != nil || st.status != 0 {
		return err
	}
	vm := st.vm
	rr, err := st.evaluateOwn(ctx, h.Source)
	if err != nil {
		return err
	}
	res := buildEvaluation(rr)
	vm.Result = &res
	refuse := func(status int, problem string) error {
		vm.CompareError = problem
		return Render(c, status, views.Evaluation(vm))
	}
	if problem != "" {
		return refuse(status, problem)
	}
	reps, err := judge.ReadReports(bytes.NewReader(up.data), up.fileName)
	if err != nil {
		if errors.Is(err, pipeline.ErrInvalid) {
			return refuse(http.StatusUnprocessableEntity, err.Error())
		}
		return fmt.Errorf("read uploaded run %q: %w", up.fileName, err)
	}
	other, ok := pickRunReport(reps, vm.Request.ID)
	if !ok {
		ids := make([]string, 0, len(reps))
		for _, r := range reps {
			ids = append(ids, r.RequestID)
		}
		return refuse(http.StatusUnprocessableEntity, fmt.Sprintf("%s holds no report for request %s; it answers %s.",
			up.fileName, vm.Request.ID, listSome(ids, 8)))
	}
	ownID := other.RequestID
	other.RequestID = vm.Request.ID
	ev := judge.Evaluator{Judge: st.judge, Source: h.Source}
	orr, err := ev.EvaluateReport(ctx, other, st.gold)
	if err != nil {
		return fmt.Errorf("evaluate the run %q against gold set %d, request %q: %w", up.fileName, st.setID, vm.Request.ID, err)
	}
	info, _ := other.Format.Info()
	vm.Compared = &views.ComparedRun{FileName: up.fileName, RunID: other.RunID, RequestID: ownID,
		Format: info.Label, Result: buildEvaluation(orr)}
	return Render(c, http.StatusOK, views.Evaluation(vm))
}

// pickRunReport finds a run's report for the request: the one with its
// id, or the run's only report.
func pickRunReport(reps []export.NeuCLIRReport, requestID string) (export.NeuCLIRReport, bool) {
	for _, r := range reps {
		if r.RequestID == requestID {
			return r, true
		}
	}
	if len(reps) == 1 {
		return reps[0], true
	}
	return export.NeuCLIRReport{}, false
}

// listSome lists up to n items and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// Upload stores an uploaded gold nugget file (multipart form: the file in
// views.FieldGoldFile, an optional name in views.FieldGoldName) as a gold
// set and answers 303 See Other to the report's evaluation against it.
//
// The file is read with judge.ReadNuggets. A malformed file is refused
// whole: the page is rendered again with 422 and the reader's
// "FILE:LINE: reason", and nothing is stored. So is an upload without a
// file or with no nuggets. A file over MaxGoldBytes gets 413 with the
// page saying so.
func (h *Evaluations) Upload(c echo.Context) error {
	ctx := c.Request().Context()
	rep, err := h.loadReport(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	up, status, problem := h.readUpload(c)
	if problem == "" {
		nuggets, perr := judge.ReadNuggets(bytes.NewReader(up.data), up.fileName)
		switch {
		case errors.Is(perr, pipeline.ErrInvalid):
			status, problem = http.StatusUnprocessableEntity, perr.Error()
		case perr != nil:
			return fmt.Errorf("read uploaded gold file %q: %w", up.fileName, perr)
		case len(nuggets) == 0:
			status, problem = http.StatusUnprocessableEntity, up.fileName+": the file holds no nuggets"
		default:
			name := up.name
			if name == "" {
				name = up.fileName
			}
			set, err := h.Gold.CreateGoldSet(ctx, name, nuggets)
			if err != nil {
				return fmt.Errorf("store gold set %q: %w", name, err)
			}
			return c.Redirect(http.StatusSeeOther, views.EvaluationResultURL(rep.ID, set.ID, ""))
		}
	}
	vm, err := h.page(ctx, rep)
	if err != nil {
		return err
	}
	vm.UploadError = problem
	vm.UploadName = up.name
	return Render(c, status, views.Evaluation(vm))
}

// upload is a file upload as read from a form.
type upload struct {
	// fileName names the file in messages and, by default, a gold set:
	// the base of the name the browser sent, made safe for display.
	fileName string
	// name is the set's name the user typed, trimmed; may be empty.
	name string
	data []byte
	// fields are the form's other text fields asked for, trimmed.
	fields map[string]string
}

// readUpload reads the gold upload form. problem, when not empty, says
// what was wrong, and status is the answer's code: 413 for a file over
// the limit, else 422.
func (h *Evaluations) readUpload(c echo.Context) (up upload, status int, problem string) {
	limit := h.maxGoldBytes()
	tooLarge := fmt.Sprintf("The file is larger than %s, the largest gold nugget file this portal accepts. Split it by request and upload the parts.", byteSize(limit))
	up, status, problem = readMultipart(c, views.FieldGoldFile, []string{views.FieldGoldName}, limit, tooLarge, "gold nugget file")
	up.name = up.fields[views.FieldGoldName]
	if problem != "" {
		return up, status, problem
	}
	if n := utf8.RuneCountInString(up.name); n > views.MaxGoldNameChars {
		return up, http.StatusUnprocessableEntity,
			fmt.Sprintf("The name is %d characters long; the limit is %d.", n, views.MaxGoldNameChars)
	}
	return up, 0, ""
}

// readMultipart reads a multipart form of one file (in fileField, at most
// limit bytes) and the text fields named. problem, when not empty, says
// what was wrong, and status is the answer's code: 413 for a file over
// the limit (tooLarge says so; fields is nil when the body was refused
// before it was read), else 422. noun names the file in messages.
func readMultipart(c echo.Context, fileField string, fields []string, limit int64, tooLarge, noun string) (up upload, status int, problem string) {
	req := c.Request()
	if req.ContentLength > limit+multipartSlack {
		return up, http.StatusRequestEntityTooLarge, tooLarge
	}
	up.fields = map[string]string{}
	if mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEMultipartForm {
		return up, http.StatusUnprocessableEntity, "The upload must be sent as a form with a file (multipart/form-data)."
	}
	req.Body = http.MaxBytesReader(c.Response(), req.Body, limit+multipartSlack)
	mr, err := req.MultipartReader()
	if err != nil {
		return up, http.StatusUnprocessableEntity, "The upload could not be read: " + err.Error() + "."
	}
	var sawFile bool
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			status, problem = readFailure(err, tooLarge)
			return up, status, problem
		}
		switch name := part.FormName(); {
		case name == fileField:
			if sawFile {
				return up, http.StatusUnprocessableEntity, "Upload one " + noun + " at a time."
			}
			sawFile = true
			up.fileName = displayFileName(part.FileName())
			up.data, err = io.ReadAll(io.LimitReader(part, limit+1))
			if err != nil {
				status, problem = readFailure(err, tooLarge)
				return up, status, problem
			}
			if int64(len(up.data)) > limit {
				return up, http.StatusRequestEntityTooLarge, tooLarge
			}
		case slices.Contains(fields, name):
			b, err := io.ReadAll(io.LimitReader(part, 4*views.MaxGoldNameChars+1))
			if err != nil {
				status, problem = readFailure(err, tooLarge)
				return up, status, problem
			}
			up.fields[name] = strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				status, problem = readFailure(err, tooLarge)
				return up, status, problem
			}
		}
	}
	if !sawFile || (up.fileName == "" && len(up.data) == 0) {
		return up, http.StatusUnprocessableEntity, "Choose a " + noun + " to upload."
	}
	if up.fileName == "" {
		up.fileName = "upload"
	}
	return up, 0, ""
}

// readFailure words an error reading the upload: the body limit's 413, or
// 422 for a broken form.
func readFailure(err error, tooLarge string) (int, string) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, tooLarge
	}
	return http.StatusUnprocessableEntity, "The upload could not be read: " + err.Error() + "."
}

// displayFileName is the base of an uploaded file's name as a browser
// sent it, made fit to show and to name a set: valid UTF-8 without
// control characters, at most views.MaxGoldNameChars characters. It is
// "" when nothing is left.
func displayFileName(name string) string {
	name = strings.ReplaceAll(strings.ToValidUTF8(name, "\uFFFD"), `\`, "/")
	name = path.Base(name)
	if name == "." || name == "/" {
		return ""
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > views.MaxGoldNameChars {
		name = string([]rune(name)[:views.MaxGoldNameChars])
	}
	return name
}

// byteSize words a size in bytes: "5 MiB", "512 KiB", "100 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// loadReport reads the report whose id is raw, as the report pages do.
func (h *Evaluations) loadReport(ctx context.Context, raw string) (pipeline.Report, error) {
	r := Reports{Store: h.Reports, Authoring: h.Authoring}
	return r.loadReport(ctx, raw)
}

// page is the evaluation page of a report with the gold sets to pick
// from and nothing chosen.
func (h *Evaluations) page(ctx context.Context, rep pipeline.Report) (views.EvaluationPage, error) {
	sets, err := h.Gold.GoldSets(ctx)
	if err != nil {
		return views.EvaluationPage{}, fmt.Errorf("list gold sets: %w", err)
	}
	vm := views.EvaluationPage{
		Site:      h.Site.WithActive(views.NavReports),
		Report:    rep,
		MaxUpload: byteSize(h.maxGoldBytes()),
		// Reviewers' verdicts are kept with the report's versions.
		ReviewsOffered: h.Authoring != nil,
	}
	for _, s := range sets {
		vm.GoldSets = append(vm.GoldSets, goldOption(s))
	}
	if h.Model != nil {
		vm.ModelJudge = judge.ModelJudge{Model: h.Model, Label: h.ModelLabel}.Name()
	}
	return vm, nil
}

func goldOption(s judge.GoldSetSummary) views.GoldSetOption {
	return views.GoldSetOption{ID: s.ID, Name: s.Name, Nuggets: s.NuggetCount, Requests: s.RequestCount, CreatedAt: s.CreatedAt}
}

// chooseRequest decides which of a gold set's requests (inSet, sorted) a
// report whose own request id is own is evaluated against, given the
// request asked for (empty when none was):
//
//   - a request asked for that the set has is used: RequestOwn when it is
//     the report's own, else RequestPicked;
//   - one the set does not have is RequestUnknown, and the page asks
//     again;
//   - with none asked for, the report's own request is used when the set
//     has it (RequestOwn); otherwise the page asks (RequestNeeded).
func chooseRequest(own, asked string, inSet []string) views.RequestChoice {
	has := func(id string) bool {
		_, found := slices.BinarySearch(inSet, id)
		return id != "" && found
	}
	switch {
	case asked != "" && has(asked) && asked == own:
		return views.RequestChoice{ID: asked, State: views.RequestOwn}
	case asked != "" && has(asked):
		return views.RequestChoice{ID: asked, State: views.RequestPicked}
	case asked != "":
		return views.RequestChoice{ID: asked, State: views.RequestUnknown}
	case has(own):
		return views.RequestChoice{ID: own, State: views.RequestOwn}
	}
	return views.RequestChoice{State: views.RequestNeeded}
}

// Metric explanations on the cards.
var (
	nuggetNoun   = views.Noun{One: "nugget", Many: "nuggets"}
	vitalNoun    = views.Noun{One: "vital nugget", Many: "vital nuggets"}
	sentenceNoun = views.Noun{One: "sentence", Many: "sentences"}
	citationNoun = views.Noun{One: "citation", Many: "citations"}
)

// buildEvaluation turns the judge's result into the page's: metric cards
// with their counts, the nugget × sentence matrix, the missing nuggets
// (vital first, then in file order) and the citation verdicts.
func buildEvaluation(rr judge.ReportResult) views.EvaluationResult {
	c, m := rr.Counts, rr.Metrics
	ev := views.EvaluationResult{
		Judge:        rr.Judge,
		Independence: rr.Independence,
		RequestID:    rr.RequestID,
		Undecided:    c.Undecided,
		Cards: []views.MetricCard{
			{Key: "nugget-recall", Label: "Nugget recall", Value: m.NuggetRecall, Num: c.Covered, Den: c.Nuggets,
				DenNoun: nuggetNoun, Help: "Gold nuggets some sentence covers, out of all gold nuggets."},
			{Key: "vital-recall", Label: "Vital nugget recall", Value: m.VitalRecall, Num: c.VitalCovered, Den: c.VitalNuggets,
				DenNoun: vitalNoun, Help: "The same over the vital nuggets; undefined when none is vital."},
			{Key: "nugget-density", Label: "Nugget density", Value: m.NuggetDensity, Num: c.Covered, Den: c.Sentences,
				NumNoun: nuggetNoun, DenNoun: sentenceNoun, Help: "Covered gold nuggets per sentence."},
			{Key: "sentence-novelty", Label: "Sentence novelty", Value: m.SentenceNovelty, Num: c.NovelSentences, Den: c.Sentences,
				DenNoun: sentenceNoun, Help: "Sentences covering a nugget no earlier sentence covers."},
			{Key: "relevant-sentences", Label: "Relevant sentences", Value: m.RelevantSentences, Num: c.RelevantSentences, Den: c.Sentences,
				DenNoun: sentenceNoun, Help: "Sentences covering any gold nugget."},
			{Key: "citation-support", Label: "Citation support", Value: m.CitationSupport, Num: c.Supported, Den: c.Citations,
				DenNoun: citationNoun, Help: "Citations whose cited text supports their sentence."},
		},
	}
	for i, nr := range rr.Nuggets {
		n := nr.Nugget
		row := views.GoldNuggetRow{
			ID: n.ID, Question: n.Question, Answers: n.Answers, Claim: n.Text, Name: n.Name,
			Vital: n.Importance == judge.Vital, DocIDs: n.DocIDs, Covered: nr.Covered,
		}
		for _, v := range rr.Coverage[i] {
			cell := views.CoverageCell{Covered: v.Yes, Undecided: v.Error != "", Reason: v.Reason, Score: v.Score}
			if cell.Undecided {
				cell.Reason = v.Error
			}
			row.Cells = append(row.Cells, cell)
		}
		ev.Nuggets = append(ev.Nuggets, row)
		if !nr.Covered {
			ev.Missing = append(ev.Missing, row)
		}
	}
	sort.SliceStable(ev.Missing, func(a, b int) bool { return ev.Missing[a].Vital && !ev.Missing[b].Vital })
	for _, s := range rr.Sentences {
		es := views.EvaluatedSentence{Number: s.Index + 1, Text: s.Text}
		for _, i := range s.Nuggets {
			es.Nuggets = append(es.Nuggets, rr.Nuggets[i].Nugget.ID)
		}
		for _, i := range s.NewNuggets {
			es.New = append(es.New, rr.Nuggets[i].Nugget.ID)
		}
		for _, cit := range s.Citations {
			es.Citations = append(es.Citations, citationVerdict(cit))
		}
		ev.Sentences = append(ev.Sentences, es)
	}
	return ev
}

// citationVerdict describes a judged citation for the page.
func citationVerdict(cit judge.CitationResult) views.CitationVerdict {
	v := views.CitationVerdict{
		DocID:     cit.DocID,
		Supported: cit.Verdict.Yes,
		Undecided: cit.Verdict.Error != "",
		Reason:    cit.Verdict.Reason,
		Score:     cit.Verdict.Score,
		Missing:   cit.Evidence.Basis == judge.BasisMissing,
	}
	if v.Undecided {
		v.Reason = cit.Verdict.Error
	}
	if cit.Evidence.PassageID != "" {
		if _, ord, err := pipeline.ParsePassageID(cit.Evidence.PassageID); err == nil {
			v.Ordinal, v.HasPassage = ord, true
		}
	}
	switch cit.Evidence.Basis {
	case judge.BasisProvenance:
		v.Basis = "the passage the report cites (passage " + strconv.Itoa(v.Ordinal) + ")"
	case judge.BasisBestPassage:
		v.Basis = "the cited document's best-matching passage (passage " + strconv.Itoa(v.Ordinal) + ")"
	case judge.BasisDocument:
		v.Basis = "the cited document's whole text (it has no stored passages)"
	case judge.BasisMissing:
		v.Basis = "nothing: the document is not in the collection"
	default:
		v.Basis = cit.Evidence.Basis
	}
	return v
}

// useReviewerVerdicts replaces the judge's verdict on each citation of a
// sentence a reviewer has judged with the reviewer's (supported: yes;
// partly or not supported: no, partly getting half credit), and recounts
// the citation-support metric as (supported + partly/2) / citations. It
// returns how many citations took a reviewer's verdict and how many of
// them were partly supported. Sentences are matched by their key
// (pipeline.SentenceKey), so a verdict on an edited sentence no longer
// counts.
func useReviewerVerdicts(rr *judge.ReportResult, sentences []pipeline.Sentence, reviews map[string]pipeline.Review) (used, partly int) {
	supported := 0
	for j := range rr.Sentences {
		s := &rr.Sentences[j]
		var r pipeline.Review
		ok := false
		if s.Index >= 0 && s.Index < len(sentences) {
			r, ok = reviews[pipeline.SentenceKey(sentences[s.Index])]
		}
		for k := range s.Citations {
			cit := &s.Citations[k]
			if ok {
				if cit.Verdict.Error != "" {
					rr.Counts.Undecided-- // the reviewer decided it
				}
				reason := "reviewer " + r.Reviewer + ": " + r.Verdict.Label()
				if r.Comment != "" {
					reason += " — " + r.Comment
				}
				cit.Verdict = judge.Verdict{Yes: r.Verdict == pipeline.ReviewSupported, Score: r.Verdict.Credit(), Reason: reason}
				used++
				if r.Verdict == pipeline.ReviewPartly {
					partly++
				}
			}
			if cit.Verdict.Yes {
				supported++
			}
		}
	}
	rr.Counts.Supported = supported
	if rr.Counts.Citations > 0 {
		rr.Metrics.CitationSupport = (float64(supported) + 0.5*float64(partly)) / float64(rr.Counts.Citations)
	}
	return used, partly
}

// requestPreviewChars bounds the first nugget quoted in a request's label.
const requestPreviewChars = 70

// requestLabels describes each request of a gold set for the picker, since
// gold files carry no request titles: its id, how many nuggets it has,
// and its first nugget ("sotu-01 — 10 nuggets, first: “On what date …”").
func requestLabels(nuggets []judge.Nugget) map[string]string {
	by := judge.ByRequest(nuggets)
	out := make(map[string]string, len(by))
	for id, ns := range by {
		label := fmt.Sprintf("%s — %d %s", id, len(ns), map[bool]string{true: "nugget", false: "nuggets"}[len(ns) == 1])
		if len(ns) > 0 {
			first := []rune(strings.Join(strings.Fields(ns[0].Label()), " "))
			if len(first) > requestPreviewChars {
				first = append(first[:requestPreviewChars], '…')
			}
			label += ", first: “" + string(first) + "”"
		}
		out[id] = label
	}
	return out
}
