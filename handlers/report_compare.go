package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/compare"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/views"
)

// recentReportsLooked is how many recent jobs the compare page looks
// through for other reports of the same request.
const recentReportsLooked = 200

// Compare renders the compare page of the report in the path (side A, at
// version views.ParamVersion, else its current version) with report
// views.ParamWith (side B: the same report when absent) at version
// views.ParamWithVersion (else current): pipeline/compare's comparison of
// the two as the NeuCLIR export has them. With nothing chosen to compare
// with, it offers the report's versions and the other reports of its
// request. With a gold set chosen (views.ParamGold, and its
// views.ParamRequest), the offline judge's metrics of both. Whoever can
// view reports can compare them; an unknown report or version is a 404.
func (h *Reports) Compare(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	aID, err := parseID(c.Param("id"), "report")
	if err != nil {
		return err
	}
	av, err := optionalNumber(q.Get(views.ParamVersion), "version")
	if err != nil {
		return err
	}
	bID := aID
	if raw := strings.TrimSpace(q.Get(views.ParamWith)); raw != "" {
		if bID, err = parseID(raw, "report"); err != nil {
			return err
		}
	}
	bv, err := optionalNumber(q.Get(views.ParamWithVersion), "version")
	if err != nil {
		return err
	}
	a, aSide, err := h.compareSide(ctx, aID, av)
	if err != nil {
		return err
	}
	vm := views.ComparePage{Site: h.Site.WithActive(views.NavReports), ReportID: aID, Title: reportTitleOf(a)}
	choosing := q.Get(views.ParamWith) == "" && q.Get(views.ParamVersion) == "" && q.Get(views.ParamWithVersion) == ""
	if choosing {
		vm.Choosing = true
		if err := h.compareChoices(ctx, &vm, a, aSide); err != nil {
			return err
		}
		return Render(c, http.StatusOK, views.ReportCompare(vm))
	}
	b, bSide, err := h.compareSide(ctx, bID, bv)
	if err != nil {
		return err
	}
	vm.A, vm.B = aSide, bSide
	sa := compare.Side{Label: aSide.Label, Report: export.NeuCLIR(a, nil)}
	sb := compare.Side{Label: bSide.Label, Report: export.NeuCLIR(b, nil)}
	if err := h.compareMetrics(ctx, &vm, &sa, &sb, q.Get(views.ParamGold), q.Get(views.ParamRequest)); err != nil {
		return err
	}
	fillComparison(&vm, compare.Compare(sa, sb))
	return Render(c, http.StatusOK, views.ReportCompare(vm))
}

// optionalNumber reads a version number; "" is 0 (the current version).
func optionalNumber(raw, what string) (int, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("no %s has the number %q: %w", what, raw, pipeline.ErrNotFound)
	}
	return n, nil
}

// compareSide loads report id at version v (0: its current version) and
// describes it.
func (h *Reports) compareSide(ctx context.Context, id int64, v int) (pipeline.Report, views.CompareSide, error) {
	rep, cur, err := h.loadCurrent(ctx, strconv.FormatInt(id, 10))
	if err != nil {
		return rep, views.CompareSide{}, err
	}
	side := views.CompareSide{ReportID: id, Current: true, URL: views.ReportURL(id)}
	switch {
	case v > 0 && h.Authoring == nil:
		return rep, side, fmt.Errorf("report %d has no versions: this portal does not offer report editing: %w", id, pipeline.ErrNotFound)
	case v > 0 && (cur == nil || v != cur.Number):
		ver, err := h.Authoring.Version(ctx, id, v)
		if err != nil {
			return rep, side, err
		}
		rep = ver.Apply(rep)
		side.Version, side.Current = v, false
		side.URL = views.ReportVersionURL(id, v)
	case cur != nil:
		side.Version = cur.Number
	}
	side.Label = fmt.Sprintf("Report %d", id)
	switch {
	case side.Version > 0 && side.Current:
		side.Label += fmt.Sprintf(", current version (%d)", side.Version)
	case side.Version > 0:
		side.Label += fmt.Sprintf(", version %d", side.Version)
	}
	side.RequestID, side.RunID, side.Sentences = rep.Request.ID, rep.RunID, len(rep.Sentences)
	if rep.Manifest != nil {
		side.ManifestHash, side.EditedByHand = rep.Manifest.Hash(), rep.Manifest.EditedByHand
	}
	return rep, side, nil
}

func reportTitleOf(r pipeline.Report) string {
	if t := strings.TrimSpace(r.Request.Title); t != "" {
		return t
	}
	return fmt.Sprintf("Report %d", r.ID)
}

// jobLister lists recent jobs; the SQLite store is one.
type jobLister interface {
	Jobs(ctx context.Context, limit int) ([]pipeline.Job, error)
}

// compareChoices offers the report's earlier versions and the other
// reports of its request (among the recent jobs).
func (h *Reports) compareChoices(ctx context.Context, vm *views.ComparePage, rep pipeline.Report, side views.CompareSide) error {
	if h.Authoring != nil {
		versions, err := h.Authoring.History(ctx, rep.ID)
		if err != nil {
			return fmt.Errorf("versions of report %d: %w", rep.ID, err)
		}
		for _, v := range versions {
			if v.Number == side.Version {
				continue
			}
			label := fmt.Sprintf("Version %d — %s, by %s", v.Number, v.Change, v.Author)
			vm.Versions = append(vm.Versions, views.CompareChoice{Label: label, URL: views.CompareVersionURL(rep.ID, v.Number)})
		}
	}
	if jl, ok := h.PastJobs.(jobLister); ok && rep.Request.ID != "" {
		jobs, err := jl.Jobs(ctx, recentReportsLooked)
		if err != nil {
			return fmt.Errorf("list recent reports: %w", err)
		}
		for _, j := range jobs {
			if j.ReportID == 0 || j.ReportID == rep.ID || j.Request.ID != rep.Request.ID {
				continue
			}
			label := fmt.Sprintf("Report %d — %s, %s", j.ReportID, j.Engine, j.CreatedAt.UTC().Format("2006-01-02 15:04"))
			if j.SubmittedBy != "" {
				label += ", by " + j.SubmittedBy
			}
			vm.Others = append(vm.Others, views.CompareChoice{Label: label, URL: views.CompareReportsURL(rep.ID, 0, j.ReportID, 0)})
		}
	}
	return nil
}

// compareMetrics offers the gold sets and, with one chosen, evaluates
// both reports with the offline judge against the nuggets of the chosen
// request (the report's own when the set has it).
func (h *Reports) compareMetrics(ctx context.Context, vm *views.ComparePage, a, b *compare.Side, goldRaw, requestRaw string) error {
	if h.Gold == nil {
		vm.MetricsNote = "This portal keeps no gold nuggets, so the reports' metrics are not compared."
		return nil
	}
	sets, err := h.Gold.GoldSets(ctx)
	if err != nil {
		return fmt.Errorf("list gold sets: %w", err)
	}
	for _, s := range sets {
		vm.GoldSets = append(vm.GoldSets, goldOption(s))
	}
	goldRaw = strings.TrimSpace(goldRaw)
	if goldRaw == "" {
		vm.MetricsNote = "Choose a set of gold nuggets to compare the two reports' metrics."
		if len(sets) == 0 {
			vm.MetricsNote = "No gold nuggets have been uploaded: upload a set on a report's evaluation page to compare metrics."
		}
		return nil
	}
	goldID, err := parseID(goldRaw, "gold set")
	if err != nil {
		return err
	}
	set, err := h.Gold.GoldSet(ctx, goldID)
	if err != nil {
		if errors.Is(err, pipeline.ErrNotFound) {
			return fmt.Errorf("no gold set has the id %d: %w", goldID, pipeline.ErrNotFound)
		}
		return fmt.Errorf("load gold set %d: %w", goldID, err)
	}
	vm.Gold = set.ID
	vm.Requests = judge.RequestIDs(set.Nuggets)
	choice := chooseRequest(a.Report.RequestID, strings.TrimSpace(requestRaw), vm.Requests)
	switch choice.State {
	case views.RequestNeeded:
		vm.MetricsNote = "The gold set has no nuggets for report A's request: choose the request to judge both reports against."
		return nil
	case views.RequestUnknown:
		vm.Problem = fmt.Sprintf("The gold set has no request %q.", choice.ID)
		return nil
	}
	vm.Request = choice.ID
	gold := judge.ByRequest(set.Nuggets)[choice.ID]
	ev := &judge.Evaluator{Judge: judge.Offline{}, Source: h.Documents}
	for _, s := range []*compare.Side{a, b} {
		rep := s.Report
		rep.RequestID = choice.ID // judged against the chosen request's nuggets
		rr, err := ev.EvaluateReport(ctx, rep, gold)
		if err != nil {
			return fmt.Errorf("evaluate %s: %w", s.Label, err)
		}
		m := rr.Metrics
		s.Metrics, s.Judge = &m, rr.Judge
	}
	return nil
}

// fillComparison copies the comparison into the page.
func fillComparison(vm *views.ComparePage, r compare.Result) {
	vm.Manifest = views.CompareManifest{MissingA: r.Manifest.MissingA, MissingB: r.Manifest.MissingB, Same: r.Manifest.Same}
	for _, f := range r.Manifest.Fields {
		vm.Manifest.Fields = append(vm.Manifest.Fields, views.CompareField{Key: f.Key, A: f.A, B: f.B, InA: f.InA, InB: f.InB})
	}
	for _, s := range r.Sentences {
		cs := views.CompareSentence{Op: string(s.Op), A: s.A, B: s.B, TextA: s.TextA, TextB: s.TextB,
			CiteA: s.CiteA, CiteB: s.CiteB, CitationChanged: s.CitationChanged}
		for _, w := range s.Words {
			cs.Words = append(cs.Words, views.CompareWord{Op: string(w.Op), Text: w.Text})
		}
		vm.Sentences = append(vm.Sentences, cs)
	}
	vm.Kept, vm.Changed, vm.Added, vm.Removed = r.Kept, r.ChangedCount, r.AddedCount, r.RemovedCount
	for _, c := range r.Citations {
		vm.Citations = append(vm.Citations, views.CompareCitation{A: c.A, B: c.B, Text: c.Text, From: c.From, To: c.To, SameText: c.SameText})
	}
	vm.DocsOnlyA, vm.DocsOnlyB = r.DocsOnlyA, r.DocsOnlyB
	vm.Nuggets = views.CompareNuggets{Known: r.Nuggets.Known, ByID: r.Nuggets.ByID, Both: r.Nuggets.Both}
	for _, n := range r.Nuggets.Gained {
		vm.Nuggets.Gained = append(vm.Nuggets.Gained, views.ComparedNugget{ID: n.ID, Question: n.Question, Answer: n.Answer})
	}
	for _, n := range r.Nuggets.Lost {
		vm.Nuggets.Lost = append(vm.Nuggets.Lost, views.ComparedNugget{ID: n.ID, Question: n.Question, Answer: n.Answer})
	}
	vm.Judge = r.Judge
	for _, m := range r.Metrics {
		vm.Metrics = append(vm.Metrics, views.CompareMetric{Name: m.Name,
			A: strconv.FormatFloat(m.A, 'f', 3, 64), B: strconv.FormatFloat(m.B, 'f', 3, 64),
			Delta: fmt.Sprintf("%+.3f", m.Delta), Better: m.Delta > 1e-9, Worse: m.Delta < -1e-9})
	}
	if r.Metrics == nil && vm.MetricsNote == "" && vm.Gold != 0 && vm.Request != "" {
		vm.MetricsNote = "The reports were not both evaluated."
	}
}
