package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/auth"
	"github.com/crucible-portal/crucible/views"
)

// DocumentReader reads stored documents and their passages.
type DocumentReader interface {
	// Document returns the document with the id, or an error wrapping
	// pipeline.ErrNotFound.
	Document(ctx context.Context, id string) (pipeline.Document, error)
	// Passages returns the document's passages in order, or an error
	// wrapping pipeline.ErrNotFound when the document does not exist.
	Passages(ctx context.Context, docID string) ([]pipeline.Passage, error)
	// DocumentPassages returns the document with the id and its passages
	// in order in one read, or an error wrapping pipeline.ErrNotFound.
	DocumentPassages(ctx context.Context, id string) (pipeline.Document, []pipeline.Passage, error)
}

// Marker finds query-term matches in text, analysing the query the way the
// search does.
type Marker interface {
	// Mark returns the whole of text split into parts, with the parts that
	// match a term of query marked.
	Mark(text, query string) pipeline.Fragment
}

// Documents serves document pages.
type Documents struct {
	Site  views.Site
	Store DocumentReader
	// Marker highlights ?hl= queries; when nil, the parameter is ignored.
	Marker Marker
	// Reports, when it offers authoring, lets a document page opened for
	// a report (views.ParamCiteReport) add a selection of the text to it.
	// Optional: without it the parameter is ignored. CiteScriptURL is the
	// script that turns a selection into the form's byte offsets.
	Reports       *Reports
	CiteScriptURL string
	// Citing lists the report sentences that cite a document, for the
	// page's "Cited in" section. Optional: without it the section is left
	// out.
	Citing CitingReader
}

// CitingReader finds the sentences of reports that cite a document.
type CitingReader interface {
	// CitingSentences returns at most limit of the sentences of the
	// reports' newest versions that cite the document, those citing the
	// span first (an empty span for none), with how many cite it in all.
	// A document nobody cites has none, and no error.
	CitingSentences(ctx context.Context, docID string, first pipeline.Span, limit int) (pipeline.CitingSentences, error)
}

// Show renders the document whose id follows views.DocumentsPrefix in the
// path (URL-escaped, slashes allowed), or is given by the id parameter when
// the path ends at the prefix. The hl parameter highlights a query's
// matches; span=START-END highlights a cited byte range of the text.
// Unusable hl and span values are ignored with a notice on the page. An
// unknown id is a 404.
func (h *Documents) Show(c echo.Context) error {
	id, err := documentID(c.Request().URL)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	doc, passages, err := h.Store.DocumentPassages(ctx, id)
	if errors.Is(err, pipeline.ErrNotFound) {
		// The page shows this message; the store's words name the id again.
		return fmt.Errorf("no document has the id %q: %w", id, pipeline.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("load document %q: %w", id, err)
	}

	doc.Source = pipeline.ShownSource(doc.Source) // never a server path
	vm := views.DocumentPage{
		Site:     h.Site.WithActive(views.NavNone),
		Document: doc,
	}
	hl, notice := parseHighlight(c.QueryParam(views.ParamHighlight))
	if notice != "" {
		vm.Notices = append(vm.Notices, notice)
	}
	if h.Marker == nil {
		hl = ""
	}
	vm.Highlight = hl
	if raw := c.QueryParam(views.ParamSpan); raw != "" {
		span, problem := parseSpan(raw, doc.Text)
		if problem != "" {
			vm.Notices = append(vm.Notices, problem)
		} else {
			vm.Span = &span
		}
	}
	if len(passages) == 0 {
		// Ingest stores at least one passage per document; show the text
		// anyway should one have none.
		passages = []pipeline.Passage{{DocID: doc.ID, Start: 0, End: len(doc.Text), Text: doc.Text}}
		vm.Whole = true
	}
	if len(passages) > views.PassageWindowSize {
		var from int
		from, vm.Window = passageWindow(c, doc, passages, vm.Span)
		passages = passages[from:vm.Window.To]
	}
	vm.Passages = markPassages(passages, h.Marker, hl, vm.Span)
	if h.Citing != nil && views.ViewerFrom(ctx).Can(auth.PermView) {
		if vm.CitedIn, err = h.citedIn(ctx, doc.ID, vm.Span); err != nil {
			return err
		}
	}
	if raw := c.QueryParam(views.ParamCiteReport); raw != "" {
		if err := h.citeForm(c, raw, &vm); err != nil {
			return err
		}
	}
	return Render(c, http.StatusOK, views.Document(vm))
}

// citedIn reads the report sentences that cite the document, those that
// cite the highlighted span (nil for none) first and marked.
func (h *Documents) citedIn(ctx context.Context, docID string, span *pipeline.Span) (*views.CitedIn, error) {
	var first pipeline.Span
	if span != nil {
		first = *span
	}
	got, err := h.Citing.CitingSentences(ctx, docID, first, views.CitedInLimit)
	if err != nil {
		return nil, fmt.Errorf("reports citing document %q: %w", docID, err)
	}
	out := &views.CitedIn{Total: got.Total}
	for _, s := range got.Sentences {
		cited := pipeline.Citation{DocID: docID, Start: first.Start, End: first.End}
		out.Sentences = append(out.Sentences, views.CitingSentence{CitingSentence: s, Current: span != nil && s.Citation.Overlaps(cited)})
	}
	return out, nil
}

// passageWindow chooses the window of a long document's passages a page
// shows (views.PassageWindowSize at a time, aligned so each passage has
// one window): the one holding the cited span, else the passage the at
// parameter names, else the first. Its links keep the page's other
// parameters (the highlighted query, the report a selection is cited
// into) but not the span, which belongs to its own window.
func passageWindow(c echo.Context, doc pipeline.Document, passages []pipeline.Passage, span *pipeline.Span) (int, *views.PassageWindow) {
	at := 0
	if span != nil {
		for i, p := range passages {
			if p.Start <= span.Start && span.Start < p.End {
				at = i
				break
			}
		}
	} else if n, err := strconv.Atoi(c.QueryParam(views.ParamAt)); err == nil && n >= 0 && n < len(passages) {
		at = n
	}
	size := views.PassageWindowSize
	from := at / size * size
	w := &views.PassageWindow{From: from, To: min(from+size, len(passages)), Total: len(passages)}
	link := func(ordinal int) string {
		params := url.Values{}
		for _, k := range []string{views.ParamHighlight, views.ParamCiteReport} {
			if v := c.QueryParam(k); v != "" {
				params.Set(k, v)
			}
		}
		params.Set(views.ParamAt, strconv.Itoa(ordinal))
		return views.DocumentURL(doc.ID, params, views.PassageAnchor(ordinal))
	}
	if from > 0 {
		w.PrevURL = link(from - size)
	}
	if w.To < len(passages) {
		w.NextURL = link(w.To)
	}
	return from, w
}

// citeForm offers, on a document page opened for the report whose id is
// raw, the form that adds a selection of the text to the report. It is
// left out, with a notice saying why, when the viewer may not edit the
// report, the report is approved or unknown, or the document has no
// passages to cite.
func (h *Documents) citeForm(c echo.Context, raw string, vm *views.DocumentPage) error {
	if h.Reports == nil || h.Reports.Authoring == nil || !views.ViewerFrom(c.Request().Context()).Can(auth.PermEditReport) {
		return nil
	}
	ctx := c.Request().Context()
	rep, ver, err := h.Reports.loadCurrent(ctx, raw)
	switch {
	case errors.Is(err, pipeline.ErrNotFound):
		vm.Notices = append(vm.Notices, "There is no report "+strconv.Quote(raw)+" to add a selection of this document to.")
		return nil
	case err != nil:
		return err
	}
	st, err := h.Reports.Authoring.Status(ctx, rep.ID)
	if err != nil {
		return fmt.Errorf("status of report %d: %w", rep.ID, err)
	}
	switch {
	case st.Status == pipeline.StatusApproved:
		vm.Notices = append(vm.Notices, fmt.Sprintf("Report %d is approved: reopen it as a draft to add sentences to it.", rep.ID))
		return nil
	case vm.Whole:
		vm.Notices = append(vm.Notices, "This document has no passages, so no selection of it can be cited.")
		return nil
	}
	form := &views.CiteForm{ReportID: rep.ID, Title: rep.Request.Title, Version: ver.Number, ScriptURL: h.CiteScriptURL}
	for _, n := range ver.Nuggets {
		form.Nuggets = append(form.Nuggets, n.Nugget)
	}
	vm.Cite = form
	return nil
}

// documentID extracts the document id from a request URL: the escaped path
// after views.DocumentsPrefix, unescaped once, or the id query parameter
// when the path ends at the prefix. Using the escaped path keeps "%2F" in an
// id from being confused with a separator no matter how the client encoded
// it.
func documentID(u *url.URL) (string, error) {
	rest, ok := strings.CutPrefix(u.EscapedPath(), views.DocumentsPrefix)
	if !ok {
		return "", fmt.Errorf("path %q is not under %s: %w", u.EscapedPath(), views.DocumentsPrefix, pipeline.ErrNotFound)
	}
	if rest == "" {
		id := u.Query().Get(views.ParamID)
		if id == "" {
			return "", fmt.Errorf("no document id in the URL: %w", pipeline.ErrNotFound)
		}
		return id, nil
	}
	id, err := url.PathUnescape(rest)
	if err != nil {
		return "", pipeline.Invalidf("document id %q is not correctly URL-escaped", rest)
	}
	return id, nil
}

// parseHighlight validates the hl parameter. It returns the trimmed query
// to highlight, or "" and a notice saying why it was ignored.
func parseHighlight(raw string) (query, notice string) {
	q := strings.TrimSpace(raw)
	switch {
	case q == "":
		return "", ""
	case !utf8.ValidString(q):
		return "", "The highlight query was ignored: it is not valid UTF-8 text."
	case utf8.RuneCountInString(q) > pipeline.MaxQueryChars:
		return "", fmt.Sprintf("The highlight query was ignored: it is longer than %d characters.", pipeline.MaxQueryChars)
	}
	return q, ""
}

// parseSpan reads a span parameter "START-END" of byte offsets into text.
// A usable span is non-empty, lies within the text and starts and ends on
// character boundaries; otherwise problem says, for the page, why it was
// ignored.
func parseSpan(raw, text string) (span pipeline.Span, problem string) {
	ignored := func(why string) (pipeline.Span, string) {
		shown := raw
		if utf8.RuneCountInString(shown) > 40 || !utf8.ValidString(shown) {
			shown = "given"
		} else {
			shown = strconv.Quote(shown)
		}
		return pipeline.Span{}, fmt.Sprintf("The span %s was ignored: %s.", shown, why)
	}
	a, b, ok := strings.Cut(strings.TrimSpace(raw), "-")
	if !ok {
		return ignored("expected START-END byte offsets, such as 120-245")
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil || start < 0 || end < 0:
		return ignored("expected START-END byte offsets, such as 120-245")
	case start >= end:
		return ignored("it must start before it ends")
	case end > len(text):
		return ignored(fmt.Sprintf("the document's text is only %d bytes long", len(text)))
	case !onBoundary(text, start) || !onBoundary(text, end):
		return ignored("it does not start and end on character boundaries")
	}
	return pipeline.Span{Start: start, End: end}, ""
}

// onBoundary reports whether byte offset i of text starts a character (or is
// the end of the text).
func onBoundary(text string, i int) bool {
	return i == len(text) || utf8.RuneStart(text[i])
}

// markPassages splits each passage's text into parts, marking the matches
// of query (when marker is not nil and query not empty) and the pieces of
// the cited span (when span is not nil). The first cited piece gets the
// views.CiteAnchor id.
func markPassages(passages []pipeline.Passage, marker Marker, query string, span *pipeline.Span) []views.PassageView {
	out := make([]views.PassageView, 0, len(passages))
	anchored := false
	for _, p := range passages {
		var frag pipeline.Fragment
		if marker != nil && query != "" {
			frag = marker.Mark(p.Text, query)
		}
		var cite pipeline.Span
		if span != nil {
			cite = relativeSpan(p, *span)
		}
		parts := markText(p.Text, frag, cite)
		if !anchored {
			for i := range parts {
				if parts[i].Cite {
					parts[i].ID = views.CiteAnchor
					anchored = true
					break
				}
			}
		}
		out = append(out, views.PassageView{Ordinal: p.Ordinal, Start: p.Start, End: p.End, Parts: parts})
	}
	return out
}

// relativeSpan is the part of span (document offsets) inside the passage,
// in offsets relative to the passage's text; empty when they do not meet.
func relativeSpan(p pipeline.Passage, span pipeline.Span) pipeline.Span {
	start := max(span.Start, p.Start) - p.Start
	end := min(span.End, p.End) - p.Start
	start = min(max(start, 0), len(p.Text))
	end = min(max(end, 0), len(p.Text))
	if start >= end {
		return pipeline.Span{}
	}
	return pipeline.Span{Start: start, End: end}
}

// markText splits text into parts: the fragment's matches marked Match and
// the bytes within cite marked Cite. The fragment must spell out the whole
// text; one that does not (a marker bug) is ignored rather than allowed to
// drop or duplicate text.
func markText(text string, frag pipeline.Fragment, cite pipeline.Span) []views.Part {
	var parts []views.Part
	if spellsOut(frag, text) {
		for _, fp := range frag {
			if fp.Text != "" {
				parts = append(parts, views.Part{Text: fp.Text, Match: fp.Match})
			}
		}
	} else if text != "" {
		parts = []views.Part{{Text: text}}
	}
	if cite.Start >= cite.End {
		return mergeParts(parts)
	}
	out := make([]views.Part, 0, len(parts)+2)
	off := 0
	for _, p := range parts {
		pStart, pEnd := off, off+len(p.Text)
		off = pEnd
		// Cut the part where the cited span starts and ends inside it.
		cuts := []int{pStart}
		if cite.Start > pStart && cite.Start < pEnd {
			cuts = append(cuts, cite.Start)
		}
		if cite.End > pStart && cite.End < pEnd {
			cuts = append(cuts, cite.End)
		}
		cuts = append(cuts, pEnd)
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			out = append(out, views.Part{
				Text:  p.Text[a-pStart : b-pStart],
				Match: p.Match,
				Cite:  a >= cite.Start && b <= cite.End,
			})
		}
	}
	return mergeParts(out)
}

// mergeParts joins neighbouring parts marked alike, so a page gets one
// element per marked run rather than one per word.
func mergeParts(parts []views.Part) []views.Part {
	var out []views.Part
	for _, p := range parts {
		if n := len(out); n > 0 && out[n-1].Match == p.Match && out[n-1].Cite == p.Cite {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
	return out
}

// spellsOut reports whether the fragment's parts, joined, are exactly text.
func spellsOut(frag pipeline.Fragment, text string) bool {
	if len(frag) == 0 {
		return false
	}
	rest := text
	for _, p := range frag {
		var ok bool
		if rest, ok = strings.CutPrefix(rest, p.Text); !ok {
			return false
		}
	}
	return rest == ""
}
