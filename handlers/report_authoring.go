package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// ReportAuthoring keeps reports' versions, reviews and review statuses,
// and turns authors' and reviewers' actions into them. The pipeline's
// crucible.Editor implements it. Edits name the version they were made
// from (pipeline.Edit.Base): one made from an older version than the
// newest fails with *pipeline.StaleVersionError, an edit of an approved
// report with an error wrapping pipeline.ErrConflict, and bad input with
// an error wrapping pipeline.ErrInvalid; none of them changes anything.
// Sentence indexes are 0-based.
type ReportAuthoring interface {
	// Current returns the report's newest version (the first is the
	// report as generated).
	Current(ctx context.Context, reportID int64) (pipeline.Version, error)
	// Version returns version n, or an error wrapping pipeline.ErrNotFound.
	Version(ctx context.Context, reportID int64, n int) (pipeline.Version, error)
	// History lists the report's versions, newest first.
	History(ctx context.Context, reportID int64) ([]pipeline.VersionInfo, error)
	// Candidates returns the extraction candidates of the report's job;
	// Swap and AddCandidate name them by index.
	Candidates(ctx context.Context, reportID int64) ([]pipeline.Candidate, error)

	EditText(ctx context.Context, e pipeline.Edit, i int, text string) (pipeline.VersionInfo, error)
	Delete(ctx context.Context, e pipeline.Edit, i int) (pipeline.VersionInfo, error)
	Move(ctx context.Context, e pipeline.Edit, i, by int) (pipeline.VersionInfo, error)
	Swap(ctx context.Context, e pipeline.Edit, i, candidate int) (pipeline.VersionInfo, error)
	AddCandidate(ctx context.Context, e pipeline.Edit, candidate int) (pipeline.VersionInfo, error)
	AddQuote(ctx context.Context, e pipeline.Edit, q pipeline.Quote) (pipeline.VersionInfo, error)
	// Verify re-runs verification on sentence i through the model.
	Verify(ctx context.Context, e pipeline.Edit, i int) (pipeline.VersionInfo, error)
	// Restore makes a copy of version n the newest version.
	Restore(ctx context.Context, e pipeline.Edit, n int) (pipeline.VersionInfo, error)

	AddNugget(ctx context.Context, e pipeline.Edit, question, answer string) (pipeline.VersionInfo, error)
	EditNugget(ctx context.Context, e pipeline.Edit, id, question, answer string) (pipeline.VersionInfo, error)
	RemoveNugget(ctx context.Context, e pipeline.Edit, id string) (pipeline.VersionInfo, error)
	PinNugget(ctx context.Context, e pipeline.Edit, id string, pinned bool) (pipeline.VersionInfo, error)
	MoveNugget(ctx context.Context, e pipeline.Edit, id string, by int) (pipeline.VersionInfo, error)
	// Regenerate redoes the sentences of the bank's changed nuggets.
	Regenerate(ctx context.Context, e pipeline.Edit) (pipeline.VersionInfo, error)

	// Review records a verdict on the citation of the sentence with the
	// key, as seen in version seen.
	Review(ctx context.Context, reportID int64, seen int, key string, verdict pipeline.ReviewVerdict, comment, reviewer string) (pipeline.Review, error)
	// Reviews returns the verdicts by sentence key.
	Reviews(ctx context.Context, reportID int64) (map[string]pipeline.Review, error)
	Status(ctx context.Context, reportID int64) (pipeline.StatusRecord, error)
	// StatusChanges lists the report's status changes, newest first.
	StatusChanges(ctx context.Context, reportID int64) ([]pipeline.StatusRecord, error)
	// SetStatus moves the report to a status as of version e.Base.
	SetStatus(ctx context.Context, e pipeline.Edit, to pipeline.ReportStatus) (pipeline.StatusRecord, error)
	// Approve approves the report in review as of version e.Base. A
	// version with citations not reviewed supported needs a's
	// confirmation: without it the approval fails with
	// *pipeline.ApprovalError, which wraps pipeline.ErrInvalid.
	Approve(ctx context.Context, e pipeline.Edit, a pipeline.Approval) (pipeline.StatusRecord, error)
}

// loadCurrent reads the report whose id is raw as its newest version:
// with authoring, the version's sentences and bank replace the report's
// as generated, and the version is returned too (nil without authoring).
func (h *Reports) loadCurrent(ctx context.Context, raw string) (pipeline.Report, *pipeline.Version, error) {
	id, err := parseID(raw, "report")
	if err != nil {
		return pipeline.Report{}, nil, err
	}
	rep, err := h.Store.Report(ctx, id)
	if errors.Is(err, pipeline.ErrNotFound) {
		return pipeline.Report{}, nil, fmt.Errorf("no report has the id %d: %w", id, pipeline.ErrNotFound)
	}
	if err != nil {
		return pipeline.Report{}, nil, fmt.Errorf("load report %d: %w", id, err)
	}
	rep.ID = id
	if rep.Scorecard, err = h.scorecard(ctx, id); err != nil {
		return pipeline.Report{}, nil, err
	}
	if h.Authoring == nil {
		return rep, nil, nil
	}
	v, err := h.Authoring.Current(ctx, id)
	if err != nil {
		return pipeline.Report{}, nil, fmt.Errorf("load the current version of report %d: %w", id, err)
	}
	cur := v.Apply(rep)
	cur.Scorecard = rep.Scorecard
	return cur, &v, nil
}

// authorOf is the user name versions, reviews and statuses record for
// the request's viewer: "local" in single-user local mode.
func authorOf(c echo.Context) string {
	v := views.ViewerFrom(c.Request().Context())
	if v.Name == "" {
		return "local"
	}
	return v.Name
}

// readForm reads a posted form: the body limit's 413 stays as it is, a
// form that cannot be parsed is invalid input.
func readForm(c echo.Context) (url.Values, error) {
	form, err := c.FormParams()
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return nil, err
		}
		return nil, pipeline.Invalidf("the form could not be read: %v", err)
	}
	return form, nil
}

// parseBase reads the version a form was made from.
func parseBase(form url.Values) (int, error) {
	raw := strings.TrimSpace(form.Get(views.FieldBaseVersion))
	n, err := strconv.Atoi(raw)
	if raw == "" || err != nil || n < 1 {
		return 0, pipeline.Invalidf("the form does not say which version of the report it was made from; reload the report and try again")
	}
	return n, nil
}

// parseDirection reads a move form's direction as -1 (up) or +1 (down).
func parseDirection(form url.Values) (int, error) {
	switch strings.TrimSpace(form.Get(views.FieldDirection)) {
	case views.DirectionUp:
		return -1, nil
	case views.DirectionDown:
		return 1, nil
	}
	return 0, pipeline.Invalidf("say whether to move it up or down")
}

// parseIndex reads a non-negative whole number from a form field.
func parseIndex(form url.Values, field, what string) (int, error) {
	raw := strings.TrimSpace(form.Get(field))
	n, err := strconv.Atoi(raw)
	if raw == "" || err != nil || n < 0 {
		return 0, pipeline.Invalidf("choose a %s", what)
	}
	return n, nil
}

// authoringOn answers 404 when the portal offers no authoring (the routes
// are then not registered; this guards a handler mounted by mistake).
func (h *Reports) authoringOn() error {
	if h.Authoring == nil {
		return fmt.Errorf("this portal does not offer report editing: %w", pipeline.ErrNotFound)
	}
	return nil
}

// actionProblem is an edit refused for bad input, to show on the page
// the form came from with 422.
type actionProblem struct {
	msg string
	// sentence is the 1-based sentence whose form it came from, 0 for
	// none; typed is the text typed in its field.
	sentence int
	field    string
	typed    string
}

// edit runs an edit of the report in the path, made from the posted
// form's base version, and answers 303 See Other to target(id, info) on
// success. Input the domain refuses (pipeline.ErrInvalid) re-renders the
// report page with 422 and the reason; a stale version or an approved
// report is the error handler's 409.
func (h *Reports) edit(c echo.Context, num int, typedField string,
	do func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error),
	target func(id int64, info pipeline.VersionInfo) string) error {
	if err := h.authoringOn(); err != nil {
		return err
	}
	id, err := parseID(c.Param("id"), "report")
	if err != nil {
		return err
	}
	form, err := readForm(c)
	if err != nil {
		return err
	}
	var info pipeline.VersionInfo
	base, err := parseBase(form)
	if err == nil {
		info, err = do(c.Request().Context(), pipeline.Edit{Report: id, Base: base, Author: authorOf(c)}, form)
	}
	if errors.Is(err, pipeline.ErrInvalid) {
		p := &actionProblem{msg: reason(err), sentence: num}
		if typedField != "" {
			p.field, p.typed = typedField, form.Get(typedField)
		}
		return h.showReport(c, http.StatusUnprocessableEntity, p)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, target(id, info))
}

// reason words a refused input for the page: the error's message without
// the sentinel's "invalid input: " prefix, capitalised.
func reason(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, pipeline.ErrInvalid.Error()+": "); ok {
		msg = rest
	}
	return sentence(msg)
}

// sentenceNumber reads the 1-based sentence number in the path.
func sentenceNumber(c echo.Context) (int, error) {
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("no sentence has the number %q: %w", c.Param("n"), pipeline.ErrNotFound)
	}
	return n, nil
}

// sentenceEdit is edit for the sentence whose number is in the path; the
// answer returns to that sentence, or to where where(n) says it went.
func (h *Reports) sentenceEdit(c echo.Context, typedField string,
	do func(ctx context.Context, e pipeline.Edit, i int, form url.Values) (pipeline.VersionInfo, error),
	where func(n int, form url.Values) int) error {
	n, err := sentenceNumber(c)
	if err != nil {
		return err
	}
	return h.edit(c, n, typedField,
		func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
			return do(ctx, e, n-1, form)
		},
		func(id int64, _ pipeline.VersionInfo) string {
			to := n
			if where != nil {
				to = where(n, c.Request().PostForm)
			}
			if to < 1 {
				return views.ReportURL(id)
			}
			return views.ReportSentenceURL(id, to)
		})
}

// EditSentence replaces the text of the sentence numbered in the path
// (views.FieldSentenceText); its citation is then marked for re-checking.
func (h *Reports) EditSentence(c echo.Context) error {
	return h.sentenceEdit(c, views.FieldSentenceText,
		func(ctx context.Context, e pipeline.Edit, i int, form url.Values) (pipeline.VersionInfo, error) {
			return h.Authoring.EditText(ctx, e, i, form.Get(views.FieldSentenceText))
		}, nil)
}

// DeleteSentence removes the sentence numbered in the path.
func (h *Reports) DeleteSentence(c echo.Context) error {
	return h.sentenceEdit(c, "",
		func(ctx context.Context, e pipeline.Edit, i int, _ url.Values) (pipeline.VersionInfo, error) {
			return h.Authoring.Delete(ctx, e, i)
		},
		func(n int, _ url.Values) int { return n - 1 })
}

// MoveSentence moves the sentence numbered in the path one place up or
// down (views.FieldDirection).
func (h *Reports) MoveSentence(c echo.Context) error {
	return h.sentenceEdit(c, "",
		func(ctx context.Context, e pipeline.Edit, i int, form url.Values) (pipeline.VersionInfo, error) {
			by, err := parseDirection(form)
			if err != nil {
				return pipeline.VersionInfo{}, err
			}
			return h.Authoring.Move(ctx, e, i, by)
		},
		func(n int, form url.Values) int {
			if by, err := parseDirection(form); err == nil {
				return n + by
			}
			return n
		})
}

// SwapSentence replaces the sentence numbered in the path with another
// candidate of its nugget (views.FieldCandidate).
func (h *Reports) SwapSentence(c echo.Context) error {
	return h.sentenceEdit(c, "",
		func(ctx context.Context, e pipeline.Edit, i int, form url.Values) (pipeline.VersionInfo, error) {
			k, err := parseIndex(form, views.FieldCandidate, "candidate to swap in")
			if err != nil {
				return pipeline.VersionInfo{}, err
			}
			return h.Authoring.Swap(ctx, e, i, k)
		}, nil)
}

// VerifySentence re-runs the support and coverage checks on the sentence
// numbered in the path, through the model of the report's engine.
func (h *Reports) VerifySentence(c echo.Context) error {
	return h.sentenceEdit(c, "",
		func(ctx context.Context, e pipeline.Edit, i int, _ url.Values) (pipeline.VersionInfo, error) {
			return h.Authoring.Verify(ctx, e, i)
		}, nil)
}

// AddSentence adds one of the job's candidates (views.FieldCandidate) to
// the report, placed by its nugget's rank.
func (h *Reports) AddSentence(c echo.Context) error {
	return h.edit(c, 0, "",
		func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
			k, err := parseIndex(form, views.FieldCandidate, "candidate to add")
			if err != nil {
				return pipeline.VersionInfo{}, err
			}
			return h.Authoring.AddCandidate(ctx, e, k)
		}, addedTarget)
}

// QuoteSentence adds a span of a document (views.FieldQuoteDocID,
// FieldQuoteStart, FieldQuoteEnd: byte offsets) to the report as a
// sentence citing it, answering the bank nugget views.FieldNuggetID when
// one is chosen. The document page's "cite this selection" form posts it.
func (h *Reports) QuoteSentence(c echo.Context) error {
	return h.edit(c, 0, "",
		func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
			q := pipeline.Quote{DocID: form.Get(views.FieldQuoteDocID), NuggetID: strings.TrimSpace(form.Get(views.FieldNuggetID))}
			start, err1 := strconv.Atoi(strings.TrimSpace(form.Get(views.FieldQuoteStart)))
			end, err2 := strconv.Atoi(strings.TrimSpace(form.Get(views.FieldQuoteEnd)))
			if q.DocID == "" || err1 != nil || err2 != nil {
				return pipeline.VersionInfo{}, pipeline.Invalidf("select the text to cite on the document's page first")
			}
			q.Start, q.End = start, end
			return h.Authoring.AddQuote(ctx, e, q)
		}, addedTarget)
}

// addedTarget goes to the sentence an edit added, which its change
// description numbers ("added sentence 4 ..."), else to the report.
func addedTarget(id int64, info pipeline.VersionInfo) string {
	if rest, ok := strings.CutPrefix(info.Change, "added sentence "); ok {
		if num, _, ok := strings.Cut(rest, " "); ok {
			if n, err := strconv.Atoi(num); err == nil && n > 0 {
				return views.ReportSentenceURL(id, n)
			}
		}
	}
	return views.ReportURL(id)
}

// ReviewSentence records a reviewer's verdict (views.FieldReviewVerdict)
// and comment on the citation of the sentence whose key the form names
// (views.FieldSentenceKey). A sentence edited since the form was made is
// a 409; bad input re-renders the report with 422.
func (h *Reports) ReviewSentence(c echo.Context) error {
	n, err := sentenceNumber(c)
	if err != nil {
		return err
	}
	return h.edit(c, n, views.FieldReviewComment,
		func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
			_, err := h.Authoring.Review(ctx, e.Report, e.Base, strings.TrimSpace(form.Get(views.FieldSentenceKey)),
				pipeline.ReviewVerdict(form.Get(views.FieldReviewVerdict)), form.Get(views.FieldReviewComment), e.Author)
			return pipeline.VersionInfo{}, err
		},
		func(id int64, _ pipeline.VersionInfo) string { return views.ReportSentenceURL(id, n) })
}

// statusChange moves the report in the path to a status.
func (h *Reports) statusChange(c echo.Context, to pipeline.ReportStatus) error {
	return h.edit(c, 0, "",
		func(ctx context.Context, e pipeline.Edit, _ url.Values) (pipeline.VersionInfo, error) {
			_, err := h.Authoring.SetStatus(ctx, e, to)
			return pipeline.VersionInfo{}, err
		},
		func(id int64, _ pipeline.VersionInfo) string { return views.ReportURL(id) })
}

// SubmitReport moves a draft to review.
func (h *Reports) SubmitReport(c echo.Context) error {
	return h.statusChange(c, pipeline.StatusInReview)
}

// ApproveReport approves a report in review. When citations are
// unreviewed or not (fully) supported, the form must carry the
// confirmation (views.FieldConfirmOpen) and may carry the counts the page
// showed (views.FieldOpenUnreviewed, ...); without it the report page is
// shown again with 422 and the reason, and nothing changes.
func (h *Reports) ApproveReport(c echo.Context) error {
	return h.edit(c, 0, "",
		func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
			a, err := parseApproval(form)
			if err != nil {
				return pipeline.VersionInfo{}, err
			}
			_, err = h.Authoring.Approve(ctx, e, a)
			return pipeline.VersionInfo{}, err
		},
		func(id int64, _ pipeline.VersionInfo) string { return views.ReportURL(id) })
}

// parseApproval reads an approval form: the confirmation checkbox and,
// when all three are sent, the open citations the page showed.
func parseApproval(form url.Values) (pipeline.Approval, error) {
	a := pipeline.Approval{Confirm: form.Get(views.FieldConfirmOpen) == "1"}
	fields := []string{views.FieldOpenUnreviewed, views.FieldOpenPartly, views.FieldOpenUnsupported}
	var counts [3]int
	sent := 0
	for i, f := range fields {
		raw := strings.TrimSpace(form.Get(f))
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return a, pipeline.Invalidf("the approval form's %s count %q is not a whole number; reload the report and try again", f, raw)
		}
		counts[i] = n
		sent++
	}
	switch sent {
	case 0:
	case len(fields):
		a.Shown = &pipeline.OpenCitations{Unreviewed: counts[0], Partly: counts[1], Unsupported: counts[2]}
	default:
		return a, pipeline.Invalidf("the approval form sent %d of the 3 open-citation counts; reload the report and try again", sent)
	}
	return a, nil
}

// ReopenReport moves a report in review or approved back to draft, so it
// can be edited again.
func (h *Reports) ReopenReport(c echo.Context) error {
	return h.statusChange(c, pipeline.StatusDraft)
}

// authoringPage fills in a report page's editing and review state from
// the newest version: each sentence's re-check mark, key, verdict and
// swappable candidates, the unused candidates by nugget, the status and
// the reviewed citation-support figure.
func (h *Reports) authoringPage(ctx context.Context, vm *views.ReportPage, v pipeline.Version, problem *actionProblem) error {
	id := vm.Report.ID
	status, err := h.Authoring.Status(ctx, id)
	if err != nil {
		return fmt.Errorf("status of report %d: %w", id, err)
	}
	reviews, err := h.Authoring.Reviews(ctx, id)
	if err != nil {
		return fmt.Errorf("reviews of report %d: %w", id, err)
	}
	cands, err := h.Authoring.Candidates(ctx, id)
	if err != nil {
		return fmt.Errorf("candidates of report %d: %w", id, err)
	}
	a := &views.Authoring{Version: v.VersionInfo, Status: status, Reviews: pipeline.SummarizeReviews(v.Sentences, reviews)}
	changed, orphans := v.Stale()
	a.Changed, a.Orphans = len(changed), orphans
	if problem != nil {
		a.Problem, a.ProblemSentence, a.ProblemField, a.Typed = problem.msg, problem.sentence, problem.field, problem.typed
	}

	var ids []string
	seenDoc := map[string]bool{}
	for _, c := range cands {
		if !seenDoc[c.Citation.DocID] {
			seenDoc[c.Citation.DocID] = true
			ids = append(ids, c.Citation.DocID)
		}
	}
	titles := map[string]string{}
	if len(ids) > 0 {
		if titles, err = h.titles(ctx, ids); err != nil {
			return err
		}
	}
	used := map[string]bool{}
	for _, s := range v.Sentences {
		used[s.Key()] = true
	}
	byNugget := map[string][]views.CandidateOption{}
	for k, c := range cands {
		if c.Sentence == "" {
			continue
		}
		byNugget[c.NuggetID] = append(byNugget[c.NuggetID], views.CandidateOption{Index: k, Candidate: c, Title: titles[c.Citation.DocID]})
	}
	for _, n := range v.Nuggets {
		g := views.CandidateGroup{Nugget: n.Nugget}
		for _, o := range byNugget[n.ID] {
			if !used[pipeline.SentenceKey(pipeline.FromCandidate(o.Candidate))] {
				g.Candidates = append(g.Candidates, o)
			}
		}
		if len(g.Candidates) > 0 {
			a.Addable = append(a.Addable, g)
		}
	}
	for i := range vm.Sentences {
		s := &vm.Sentences[i]
		ds := v.Sentences[i]
		s.Recheck, s.Key = ds.Recheck, ds.Key()
		if r, ok := reviews[s.Key]; ok {
			s.Review = &r
		}
		for _, o := range byNugget[ds.NuggetID] {
			if pipeline.SentenceKey(pipeline.FromCandidate(o.Candidate)) != s.Key {
				s.Alternatives = append(s.Alternatives, o)
			}
		}
	}
	vm.Authoring = a
	return nil
}
