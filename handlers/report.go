package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// Show renders the report whose id is in the path: its sentences with
// numbered citations and, for each, the provenance a reader can open.
// With authoring, it shows the newest version with the editing and review
// forms the viewer may use. An unknown id is a 404.
func (h *Reports) Show(c echo.Context) error {
	return h.showReport(c, http.StatusOK, nil)
}

// showReport renders the report page with the status and, when an action
// was refused, the reason next to the form it came from.
func (h *Reports) showReport(c echo.Context, status int, problem *actionProblem) error {
	ctx := c.Request().Context()
	rep, ver, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	jobID, err := h.jobOf(ctx, rep.ID)
	if err != nil {
		return err
	}
	sources, err := h.loadSources(ctx, rep.Sentences)
	if err != nil {
		return err
	}
	vm := buildReportPage(rep, sources)
	vm.Site = h.Site.WithActive(views.NavReports)
	vm.Engine = views.EngineLabelFor(h.Service.Engines(), rep.Engine)
	vm.JobID = jobID
	vm.ScriptURL = h.ScriptURL
	if vm.Scorecard, err = h.scorecardPanel(ctx, rep, ver); err != nil {
		return err
	}
	if ver != nil {
		if err := h.authoringPage(ctx, &vm, *ver, problem); err != nil {
			return err
		}
	}
	return Render(c, status, views.Report(vm))
}

// loadReport reads the report whose id is raw, as its newest version when
// the portal offers authoring.
func (h *Reports) loadReport(ctx context.Context, raw string) (pipeline.Report, error) {
	rep, _, err := h.loadCurrent(ctx, raw)
	return rep, err
}

// jobOf returns the id of the job that made the report, or 0 when it is
// not known: no finder is configured, or the job is no longer stored.
func (h *Reports) jobOf(ctx context.Context, reportID int64) (int64, error) {
	if h.Jobs == nil {
		return 0, nil
	}
	id, err := h.Jobs.ReportJob(ctx, reportID)
	if errors.Is(err, pipeline.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find the job of report %d: %w", reportID, err)
	}
	return id, nil
}

// citedDocument is what the collection still holds of a cited document.
type citedDocument struct {
	Title string
	// Text is the document's text, which citations' byte offsets index.
	Text string
	// Author and Date are the document's metadata that a sentence's
	// attribution ("In 1903, Theodore Roosevelt reported ...") comes from.
	Author, Date string
	// Missing is set when the document is no longer stored.
	Missing  bool
	Passages map[int]pipeline.Passage
	// Meta is the document's metadata: a paged document's (PDF, Word) page
	// offsets name a citation's page.
	Meta map[string]string
}

// loadSources reads each document the sentences cite, once.
func (h *Reports) loadSources(ctx context.Context, sentences []pipeline.Sentence) (map[string]citedDocument, error) {
	out := map[string]citedDocument{}
	for _, s := range sentences {
		id := s.Citation.DocID
		if _, done := out[id]; done {
			continue
		}
		doc, passages, err := h.Documents.DocumentPassages(ctx, id)
		if errors.Is(err, pipeline.ErrNotFound) {
			out[id] = citedDocument{Missing: true}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load cited document %q: %w", id, err)
		}
		author, _ := pipeline.DocumentAuthor(doc.Metadata)
		cd := citedDocument{Title: doc.Title, Text: doc.Text, Author: author, Date: strings.TrimSpace(doc.Metadata["date"]),
			Passages: make(map[int]pipeline.Passage, len(passages)), Meta: doc.Metadata}
		for _, p := range passages {
			cd.Passages[p.Ordinal] = p
		}
		out[id] = cd
	}
	return out, nil
}

// passageKey identifies a cited passage.
type passageKey struct {
	DocID   string
	Ordinal int
}

// buildReportPage numbers the report's citations, one number per distinct
// cited passage in order of first use, and gathers each sentence's
// provenance: its nugget (from the report's nuggets), its source and the
// cited passage with the supporting span marked.
func buildReportPage(rep pipeline.Report, sources map[string]citedDocument) views.ReportPage {
	nuggets := make(map[string]*pipeline.Nugget, len(rep.Nuggets))
	for i := range rep.Nuggets {
		nuggets[rep.Nuggets[i].ID] = &rep.Nuggets[i]
	}
	vm := views.ReportPage{Report: rep}
	numbers := map[passageKey]int{}
	for _, s := range rep.Sentences {
		key := passageKey{DocID: s.Citation.DocID, Ordinal: s.Citation.Ordinal}
		doc := sources[key.DocID]
		src := views.CitedSource{
			DocID:           key.DocID,
			Title:           doc.Title,
			Author:          doc.Author,
			Date:            doc.Date,
			Ordinal:         key.Ordinal,
			DocumentMissing: doc.Missing,
		}
		passage, stored := doc.Passages[key.Ordinal]
		src.PassageMissing = !doc.Missing && !stored
		n, seen := numbers[key]
		if !seen {
			n = len(numbers) + 1
			numbers[key] = n
			vm.References = append(vm.References, views.Reference{Number: n, Source: src})
		}
		rs := views.ReportSentence{Sentence: s, Ref: n, Nugget: nuggets[s.NuggetID], Source: src,
			Page: pipeline.PageLabel(doc.Meta, s.Citation.Start, s.Citation.End)}
		if stored {
			rs.Passage, rs.SpanShown = citedParts(passage, s.Citation)
		}
		vm.Sentences = append(vm.Sentences, rs)
	}
	return vm
}

// citedParts splits a passage's text around the span a citation marks.
// The citation's offsets are into the document, so the passage's start is
// subtracted; the span is clamped to the passage and widened to whole
// characters should an offset fall inside one, so the parts are always
// valid text. shown is false when no part of the span lies in the
// passage; the text is then one unmarked part.
func citedParts(p pipeline.Passage, c pipeline.Citation) (parts []views.Part, shown bool) {
	text := p.Text
	start := min(max(c.Start-p.Start, 0), len(text))
	end := min(max(c.End-p.Start, 0), len(text))
	if start >= end {
		if text == "" {
			return nil, false
		}
		return []views.Part{{Text: text}}, false
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	if start > 0 {
		parts = append(parts, views.Part{Text: text[:start]})
	}
	parts = append(parts, views.Part{Text: text[start:end], Cite: true})
	if end < len(text) {
		parts = append(parts, views.Part{Text: text[end:]})
	}
	return parts, true
}

// Nuggets renders the nugget bank of the report whose id is in the path:
// the nuggets of the job that made it and, with authoring, the report's
// editable bank. A report whose job is not known is a 404.
func (h *Reports) Nuggets(c echo.Context) error {
	return h.showBank(c, http.StatusOK, nil)
}

// bankProblem is a nugget bank edit refused for bad input.
type bankProblem struct {
	msg              string
	question, answer string
}

// showBank renders the nugget bank page with the status and, when an edit
// was refused, the reason.
func (h *Reports) showBank(c echo.Context, status int, problem *bankProblem) error {
	ctx := c.Request().Context()
	rep, ver, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	jobID, err := h.jobOf(ctx, rep.ID)
	if err != nil {
		return err
	}
	if jobID == 0 {
		return fmt.Errorf("the job that made report %d is no longer stored, so its nuggets are not available: %w",
			rep.ID, pipeline.ErrNotFound)
	}
	all, err := h.Store.Nuggets(ctx, jobID)
	if err != nil {
		return fmt.Errorf("load nuggets of job %d: %w", jobID, err)
	}
	candidates, err := h.Store.Candidates(ctx, jobID)
	if err != nil {
		return fmt.Errorf("load candidates of job %d: %w", jobID, err)
	}
	retrieved, err := h.Store.Retrieval(ctx, jobID)
	if err != nil {
		return fmt.Errorf("load retrieval of job %d: %w", jobID, err)
	}
	var bank []pipeline.DraftNugget
	if ver != nil {
		bank = ver.Nuggets
	}
	vm := buildNuggetBank(rep, all, candidates, retrieved, bank)
	vm.Site = h.Site.WithActive(views.NavReports)
	vm.JobID = jobID
	if id := rep.Settings.Ranker; id != 0 {
		vm.Ranker = &views.BankRanker{ID: id}
		if h.Rankers != nil {
			m, err := h.Rankers.Ranker(ctx, id)
			switch {
			case err == nil:
				vm.Ranker.Model = &m
			case !errors.Is(err, pipeline.ErrNotFound):
				return fmt.Errorf("load ranker %d: %w", id, err)
			}
		}
	}
	if ver != nil {
		st, err := h.Authoring.Status(ctx, rep.ID)
		if err != nil {
			return fmt.Errorf("status of report %d: %w", rep.ID, err)
		}
		a := &views.BankAuthoring{Version: ver.VersionInfo, Status: st}
		a.Changed, a.Orphans = ver.Stale()
		if problem != nil {
			a.Problem, a.Question, a.Answer = problem.msg, problem.question, problem.answer
		}
		vm.Authoring = a
	}
	return Render(c, status, views.NuggetBank(vm))
}

// buildNuggetBank sorts a job's nuggets for the bank: kept nuggets
// (Rank > 0) in rank order, distinct nuggets below the cut (Rank 0,
// Popularity > 0) in stored order, which is ranking order, and each
// distinct nugget's paraphrase group: the merged-away nuggets (Popularity
// 0) its Paraphrases name. It counts each nugget's candidates and the
// report's sentences that answer it, and says what became of it
// (pipeline.OutcomeOf: no candidate found, no supported sentence, left
// out).
//
// With bank (a report version's nuggets, when the portal offers
// authoring), the kept nuggets are the bank's, in its order, with their
// pinned and changed marks, and the job's distinct nuggets not in the
// bank are below the cut.
func buildNuggetBank(rep pipeline.Report, all []pipeline.Nugget, candidates []pipeline.Candidate, retrieved []pipeline.RetrievedDoc, bank []pipeline.DraftNugget) views.NuggetBankPage {
	byID := make(map[string]pipeline.Nugget, len(all))
	for _, n := range all {
		byID[n.ID] = n
	}
	candidatesOf := map[string][]pipeline.Candidate{}
	for _, c := range candidates {
		candidatesOf[c.NuggetID] = append(candidatesOf[c.NuggetID], c)
	}
	sentenceCount := map[string]int{}
	for _, s := range rep.Sentences {
		sentenceCount[s.NuggetID]++
	}
	vm := views.NuggetBankPage{Report: rep, Drafted: len(all), DocTitles: map[string]string{}}
	for _, d := range retrieved {
		if d.Title != "" {
			vm.DocTitles[d.DocID] = d.Title
		}
	}
	grouped := map[string]bool{}
	view := func(n pipeline.Nugget) views.NuggetView {
		nv := views.NuggetView{Nugget: n, Candidates: len(candidatesOf[n.ID]), Sentences: sentenceCount[n.ID],
			Result: pipeline.OutcomeOf(sentenceCount[n.ID], candidatesOf[n.ID], rep.Settings.Verify)}
		for _, id := range n.Paraphrases {
			p, found := byID[id]
			nv.Group = append(nv.Group, views.Paraphrase{ID: id, Nugget: p, Found: found})
			grouped[id] = true
		}
		return nv
	}
	if bank != nil {
		inBank := map[string]bool{}
		for i, n := range bank {
			inBank[n.ID] = true
			n.Rank = i + 1
			nv := view(n.Nugget)
			nv.Pinned, nv.Changed = n.Pinned, n.Changed
			vm.Kept = append(vm.Kept, nv)
		}
		for _, n := range all {
			if n.Popularity > 0 && !inBank[n.ID] {
				n.Rank = 0
				vm.BelowCut = append(vm.BelowCut, view(n))
			}
		}
	} else {
		for _, n := range all {
			switch {
			case n.Rank > 0:
				vm.Kept = append(vm.Kept, view(n))
			case n.Popularity > 0:
				vm.BelowCut = append(vm.BelowCut, view(n))
			}
		}
	}
	sort.SliceStable(vm.Kept, func(i, j int) bool { return vm.Kept[i].Rank < vm.Kept[j].Rank })
	for _, n := range vm.Kept {
		if n.Sentences == 0 {
			vm.Unused = append(vm.Unused, n)
		}
	}
	for _, n := range all {
		if n.Rank == 0 && n.Popularity == 0 && !grouped[n.ID] {
			vm.Ungrouped = append(vm.Ungrouped, n)
		}
	}
	return vm
}
