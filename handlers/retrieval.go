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
	"github.com/crucible-portal/crucible/pipeline/rerank"
	"github.com/crucible-portal/crucible/views"
)

// RerankReader reads the rerank stage's record of a job.
type RerankReader interface {
	// Rerank returns the record, or an error wrapping pipeline.ErrNotFound
	// when the job did not rerank.
	Rerank(ctx context.Context, jobID int64) (pipeline.RerankRecord, error)
}

// Retrieval serves a report's retrieval view.
type Retrieval struct {
	Site    views.Site
	Reports ReportReader
	Jobs    ReportJobFinder
	// Reranks is optional: without it every report shows its first-stage
	// ranking only.
	Reranks RerankReader
	// Authors is optional: with it, the periods a request names by a
	// range of the collection's authors ("from Kennedy to Obama") are
	// shown beside those it names by years, as the pipeline reads them.
	Authors pipeline.AuthorLister
}

// Show renders the first-stage ranking beside the reranked one and the
// reranker's trace. Unknown reports are 404; a report whose job is gone is
// 404 too, with a message saying so.
func (h *Retrieval) Show(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("report %q: %w", c.Param("id"), pipeline.ErrNotFound)
	}
	rep, err := h.Reports.Report(ctx, id)
	if err != nil {
		return err
	}
	jobID, err := h.Jobs.ReportJob(ctx, id)
	if err != nil {
		return fmt.Errorf("the job that made report %d is no longer stored, so its retrieval is not available: %w", id, err)
	}
	retrieved, err := h.Reports.Retrieval(ctx, jobID)
	if err != nil {
		return fmt.Errorf("load retrieval of job %d: %w", jobID, err)
	}
	var rec pipeline.RerankRecord
	if h.Reranks != nil {
		rec, err = h.Reranks.Rerank(ctx, jobID)
		if err != nil && !errors.Is(err, pipeline.ErrNotFound) {
			return fmt.Errorf("load rerank of job %d: %w", jobID, err)
		}
	}
	var authors map[string]pipeline.Period
	if h.Authors != nil {
		if authors, err = h.Authors.AuthorYears(ctx); err != nil {
			return fmt.Errorf("read the collection's authors for the periods report %d names: %w", id, err)
		}
	}
	vm := buildRetrievalPage(rep, retrieved, rec, authors)
	vm.Site = h.Site.WithActive(views.NavReports)
	return Render(c, http.StatusOK, views.Retrieval(vm))
}

// methodLabels name the rerankers for people.
var methodLabels = map[string]string{
	rerank.MethodLANCER:    "LANCER (sub-question coverage)",
	rerank.MethodPointwise: "pointwise relevance",
	rerank.MethodListwise:  "listwise sliding windows",
	rerank.MethodSetwise:   "setwise heap sort",
	rerank.MethodSetR:      "SetR (set selection)",
	rerank.MethodPureCover: "PureCover (coverage minus noise)",
	rerank.MethodCoRank:    "CoRank (compact features, coarse then fine)",
}

// MethodLabel names a reranker for people; unknown names stand as they are.
func MethodLabel(method string) string {
	if l, ok := methodLabels[method]; ok {
		return l
	}
	return method
}

// buildRetrievalPage lays out the rankings and the trace. Without a rerank
// record (rec.Method == ""), retrieved is the first-stage ranking; with
// one, rec.FirstStage is, and retrieved is the reranked order. authors
// are the collection's (nil when not known), for the periods the request
// names.
func buildRetrievalPage(rep pipeline.Report, retrieved []pipeline.RetrievedDoc, rec pipeline.RerankRecord, authors map[string]pipeline.Period) views.RetrievalPage {
	vm := views.RetrievalPage{ReportID: rep.ID, Title: rep.Request.Title, Method: rec.Method}
	for _, p := range pipeline.NamedPeriods(rep.Request.Title+"\n"+rep.Request.ProblemStatement, authors) {
		vm.Periods = append(vm.Periods, fmt.Sprintf("%d–%d", p.From, p.To))
	}
	doc := func(d pipeline.RetrievedDoc) views.RetrievalRow {
		title := d.Title
		if strings.TrimSpace(title) == "" {
			title = d.DocID
		}
		return views.RetrievalRow{DocID: d.DocID, Title: title, DocURL: views.DocumentURL(d.DocID, nil, ""), FirstRank: d.Rank, Score: d.Score}
	}
	if rec.Method == "" {
		for _, d := range retrieved {
			vm.Rows = append(vm.Rows, doc(d))
		}
		return vm
	}
	vm.MethodLabel = MethodLabel(rec.Method)
	vm.Selected = rec.Selected
	vm.Calls, vm.CacheHits = rec.Usage.Calls, rec.Usage.CacheHits
	newRank := make(map[string]int, len(rec.Order))
	for i, id := range rec.Order {
		newRank[id] = i + 1
	}
	titles := make(map[string]string, len(rec.FirstStage))
	for _, d := range rec.FirstStage {
		row := doc(d)
		row.Reranked = newRank[d.DocID]
		row.InSelected = rec.Selected > 0 && row.Reranked > 0 && row.Reranked <= rec.Selected
		vm.Rows = append(vm.Rows, row)
		titles[d.DocID] = row.Title
	}
	trace, err := rerank.DecodeTrace(rec.Method, rec.Trace)
	if err != nil {
		vm.Notes = append(vm.Notes, "The trace could not be read: "+err.Error())
		return vm
	}
	describeTrace(&vm, trace, func(id string) string {
		if t, ok := titles[id]; ok {
			return t
		}
		return id
	})
	return vm
}

// describeTrace turns a method's trace into facts and tables.
func describeTrace(vm *views.RetrievalPage, trace any, title func(string) string) {
	f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	itoa := strconv.Itoa
	fact := func(name, value string) { vm.Facts = append(vm.Facts, views.TraceFact{Name: name, Value: value}) }
	failures := func(fs []rerank.ParseFailure) {
		for _, f := range fs {
			vm.Notes = append(vm.Notes, fmt.Sprintf("%s: %s (answer %q)", f.Call, f.Error, f.Answer))
		}
	}
	titles := func(ids []string) string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = title(id)
		}
		return strings.Join(out, "; ")
	}
	switch t := trace.(type) {
	case rerank.LANCERTrace:
		fact("Aggregation", t.Aggregation)
		fact("Documents rated", itoa(t.Depth))
		if t.Oracle {
			fact("Sub-questions", "oracle (given)")
		}
		cols := []string{"Document", "First stage", "Reranked"}
		for i, q := range t.Questions {
			cols = append(cols, fmt.Sprintf("Q%d: %s", i+1, q))
		}
		cols = append(cols, "Score")
		tab := views.TraceTable{Caption: "Sub-question × document answerability ratings (0–5)", Columns: cols,
			Note: "Each document was rated for how well it answers each sub-question; the aggregation combines the ratings into the new order."}
		for _, r := range t.Rows {
			row := []string{title(r.DocID), itoa(r.FirstStageRank), itoa(r.Rank)}
			for _, v := range r.Ratings {
				row = append(row, itoa(v))
			}
			tab.Rows = append(tab.Rows, append(row, f2(r.Score)))
		}
		vm.Tables = append(vm.Tables, tab)
		vm.Notes = append(vm.Notes, t.Notes...)
		failures(t.Failures)
	case rerank.PointwiseTrace:
		fact("Documents judged", itoa(t.Depth))
		fact("Scores from log-probabilities", itoa(t.FromLogprobs))
		tab := views.TraceTable{Caption: "Relevance judgements", Columns: []string{"Document", "First stage", "Reranked", "P(relevant)", "From"}}
		for _, r := range t.Rows {
			tab.Rows = append(tab.Rows, []string{title(r.DocID), itoa(r.FirstStageRank), itoa(r.Rank), f3(r.Score), r.Source})
		}
		vm.Tables = append(vm.Tables, tab)
		failures(t.Failures)
	case rerank.ListwiseTrace:
		fact("Window", fmt.Sprintf("%d documents, stride %d, from the bottom up", t.WindowSize, t.WindowStride))
		tab := views.TraceTable{Caption: "Windows in the order ranked", Columns: []string{"Positions", "Before", "After", "Answer complete"}}
		for _, w := range t.Windows {
			tab.Rows = append(tab.Rows, []string{fmt.Sprintf("%d–%d", w.Start+1, w.End), titles(w.Before), titles(w.After), yesNo(w.Complete)})
		}
		vm.Tables = append(vm.Tables, tab)
		failures(t.Failures)
	case rerank.SetwiseTrace:
		fact("Set size", itoa(t.SetSize))
		fact("Top", titles(t.Top))
		tab := views.TraceTable{Caption: "Comparisons", Columns: []string{"Phase", "Documents shown", "Judged best"}}
		for _, c := range t.Comparisons {
			tab.Rows = append(tab.Rows, []string{c.Phase, titles(c.Docs), title(c.Winner)})
		}
		vm.Tables = append(vm.Tables, tab)
		failures(t.Failures)
	case rerank.SetRTrace:
		fact("Documents shown", itoa(t.Depth))
		fact("Selection", titles(t.Selected))
		tab := views.TraceTable{Caption: "Requirements and the passages that meet them", Columns: []string{"Requirement", "Documents"}}
		for _, r := range t.Requirements {
			tab.Rows = append(tab.Rows, []string{r.Text, titles(r.DocIDs)})
		}
		vm.Tables = append(vm.Tables, tab)
		failures(t.Failures)
	case rerank.PureCoverTrace:
		fact("Budget K", itoa(t.K))
		fact("Noise penalty λ", f2(t.Lambda))
		fact("Temperature", f2(t.Temperature))
		if t.StoppedEarly {
			fact("Stopped early", "no further document raised the objective")
		}
		req := views.TraceTable{Caption: "Requirements", Columns: []string{"Requirement", "Weight", "P(requirement | request)"}}
		for _, r := range t.Requirements {
			req.Rows = append(req.Rows, []string{r.Text, itoa(r.Weight), f3(r.P)})
		}
		steps := views.TraceTable{Caption: "Objective by step", Columns: []string{"Step", "Document added", "Gain", "Coverage", "Noise", "Objective"},
			Note: "Objective = coverage − λ · noise; greedy selection adds the document with the largest gain while the gain is positive."}
		for i, s := range t.Steps {
			steps.Rows = append(steps.Rows, []string{itoa(i + 1), title(s.DocID), f3(s.Gain), f3(s.Coverage), f3(s.Noise), f3(s.Objective)})
		}
		cols := []string{"Document", "First stage"}
		for i := range t.Requirements {
			cols = append(cols, fmt.Sprintf("P(d | R%d)", i+1))
		}
		support := views.TraceTable{Caption: "Document support per requirement", Columns: append(cols, "Noise"), Marked: map[int]bool{}}
		for i, r := range t.Rows {
			row := []string{title(r.DocID), itoa(r.FirstStageRank)}
			for _, p := range r.Support {
				row = append(row, f3(p))
			}
			support.Rows = append(support.Rows, append(row, f3(r.Noise)))
			support.Marked[i] = r.Selected
		}
		vm.Tables = append(vm.Tables, req, steps, support)
		vm.Notes = append(vm.Notes, t.Notes...)
		failures(t.Failures)
	case rerank.CoRankTrace:
		fact("Coarse ranking over", itoa(t.Depth)+" compact representations")
		fact("Fine ranking over", itoa(t.FineDepth)+" full texts")
		fact("Feature matching", t.Similarity)
		tab := views.TraceTable{Caption: "Compact representations", Columns: []string{"Document", "First stage", "Coarse", "Final", "Representation"}}
		for _, r := range t.Rows {
			tab.Rows = append(tab.Rows, []string{title(r.DocID), itoa(r.FirstStageRank), itoa(r.CoarseRank), itoa(r.Rank), r.Compact})
		}
		vm.Tables = append(vm.Tables, tab)
		failures(t.Failures)
	default:
		vm.Notes = append(vm.Notes, fmt.Sprintf("No readable form for a trace of type %T.", trace))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
