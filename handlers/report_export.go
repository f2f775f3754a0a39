package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/views"
)

// Content types of the report exports.
const (
	jsonContentType     = "application/json"
	markdownContentType = "text/markdown; charset=utf-8"
	// jsonLinesContentType is the TREC formats' JSON Lines.
	jsonLinesContentType = "application/jsonl"
)

// TitleReader looks up document titles in bulk.
type TitleReader interface {
	// Titles returns the titles of the documents with the ids; ids of
	// documents not stored are absent from the map.
	Titles(ctx context.Context, ids []string) (map[string]string, error)
}

// ExportJSON sends the report whose id is in the path as a download: by
// default in the TREC NeuCLIR 2024 report format, with Crucible's
// provenance in the extra "crucible" objects; with the query's
// views.ParamFormat in that TREC format (export.Format: RAGTIME 2025, TREC
// RAG 2024 or 2025) as one JSON line, the team named by TeamID. The
// collection is named by Collection. An unknown id is a 404; an unknown
// format is refused with a message naming the known ones.
func (h *Reports) ExportJSON(c echo.Context) error {
	format, err := export.ParseFormat(c.QueryParam(views.ParamFormat))
	if err != nil {
		return pipeline.Invalidf("%v", err)
	}
	rep, err := h.loadReport(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	cols, err := h.collectionIDs(c.Request().Context())
	if err != nil {
		return err
	}
	b, err := export.Encode(format, rep, export.Run{TeamID: h.TeamID, CollectionIDs: cols})
	if err != nil {
		return fmt.Errorf("export report %d as %s: %w", rep.ID, format, err)
	}
	name, ctype := exportFileName(rep, ".json"), jsonContentType
	if format != export.FormatNeuCLIR {
		info, _ := format.Info()
		name, ctype = exportFileName(rep, "."+string(format)+info.Ext), jsonLinesContentType
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, attachment(name))
	return c.Blob(http.StatusOK, ctype, b)
}

// ExportMarkdown sends the report whose id is in the path as a Markdown
// download: its sentences with numbered citations and the references,
// titled as the collection titles the cited documents. An unknown id is a
// 404.
func (h *Reports) ExportMarkdown(c echo.Context) error {
	ctx := c.Request().Context()
	rep, err := h.loadReport(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	titles, err := h.titles(ctx, export.CitedDocIDs(rep))
	if err != nil {
		return fmt.Errorf("export report %d as Markdown: %w", rep.ID, err)
	}
	sources, err := h.loadSources(ctx, rep.Sentences)
	if err != nil {
		return err
	}
	md := export.MarkdownWithEvidence(rep, titles, citedQuotes(rep.Sentences, sources))
	c.Response().Header().Set(echo.HeaderContentDisposition, attachment(exportFileName(rep, ".md")))
	return c.Blob(http.StatusOK, markdownContentType, []byte(md))
}

// Print renders the report whose id is in the path as a page made for
// printing: the request, the text with numbered citations and an
// evidence appendix quoting every cited span. An unknown id is a 404.
func (h *Reports) Print(c echo.Context) error {
	ctx := c.Request().Context()
	rep, err := h.loadReport(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	sources, err := h.loadSources(ctx, rep.Sentences)
	if err != nil {
		return err
	}
	vm := buildReportPrint(rep, sources)
	vm.Site = h.Site.WithActive(views.NavReports)
	vm.Engine = views.EngineLabelFor(h.Service.Engines(), rep.Engine)
	return Render(c, http.StatusOK, views.ReportPrint(vm))
}

// zipContentType is the content type of the "download all" archive.
const zipContentType = "application/zip"

// DownloadAll sends the report whose id is in the path, as its newest
// version, as one zip archive: export.json (NeuCLIR), export.md,
// print.html (the printable page with its style sheet inlined) and
// nuggets.json (the report's nugget bank). An unknown id is a 404.
func (h *Reports) DownloadAll(c echo.Context) error {
	ctx := c.Request().Context()
	rep, ver, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	v := pipeline.Version{Draft: pipeline.NewDraft(rep)}
	if ver != nil {
		v = *ver
	}
	cols, err := h.collectionIDs(ctx)
	if err != nil {
		return err
	}
	neu, err := export.NeuCLIRJSON(rep, cols)
	if err != nil {
		return fmt.Errorf("export report %d as JSON: %w", rep.ID, err)
	}
	titles, err := h.titles(ctx, export.CitedDocIDs(rep))
	if err != nil {
		return fmt.Errorf("export report %d as Markdown: %w", rep.ID, err)
	}
	bank, err := export.NuggetBankJSON(rep.Request.ID, v)
	if err != nil {
		return fmt.Errorf("export the nugget bank of report %d: %w", rep.ID, err)
	}
	sources, err := h.loadSources(ctx, rep.Sentences)
	if err != nil {
		return err
	}
	pvm := buildReportPrint(rep, sources)
	pvm.Engine = views.EngineLabelFor(h.Service.Engines(), rep.Engine)
	page := templ.GetBuffer()
	defer templ.ReleaseBuffer(page)
	if err := views.ReportPrintFile(pvm, h.PrintCSS).Render(ctx, page); err != nil {
		return fmt.Errorf("render the printable page of report %d: %w", rep.ID, err)
	}
	modified := v.At
	if modified.IsZero() {
		modified = rep.CreatedAt
	}
	var buf bytes.Buffer
	err = export.Zip(&buf, modified, []export.File{
		{Name: "export.json", Body: neu},
		{Name: "export.md", Body: []byte(export.MarkdownWithEvidence(rep, titles, citedQuotes(rep.Sentences, sources)))},
		{Name: "print.html", Body: page.Bytes()},
		{Name: "nuggets.json", Body: bank},
	})
	if err != nil {
		return fmt.Errorf("archive report %d: %w", rep.ID, err)
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, attachment(exportFileName(rep, ".zip")))
	return c.Blob(http.StatusOK, zipContentType, buf.Bytes())
}

// titles returns the titles of the documents with the ids: through Titles
// when it is set, else one document at a time through Documents. Documents
// no longer stored are left out.
func (h *Reports) titles(ctx context.Context, ids []string) (map[string]string, error) {
	if h.Titles != nil {
		t, err := h.Titles.Titles(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("load the titles of %d cited documents: %w", len(ids), err)
		}
		return t, nil
	}
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		doc, err := h.Documents.Document(ctx, id)
		if errors.Is(err, pipeline.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load cited document %q: %w", id, err)
		}
		out[id] = doc.Title
	}
	return out, nil
}

// exportFileName is the download name of a report's export: its request
// id made safe for a file name, or "report-<id>" when the request has
// none, with the extension.
func exportFileName(rep pipeline.Report, ext string) string {
	base := rep.Request.ID
	if base == "" {
		base = "report-" + strconv.FormatInt(rep.ID, 10)
	}
	return export.FileName(base, ext)
}

// attachment is a Content-Disposition value that makes the response a
// download called name. mime.FormatMediaType quotes and escapes the name,
// and writes names with characters outside printable ASCII in the
// percent-encoded form of RFC 2231 (the filename* parameter), so no name
// can break out of the header. Should it refuse a name all the same, the
// download goes without one rather than with a broken header.
func attachment(name string) string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}

// buildReportPrint lays out the printable page: the report page's
// sentences and numbering, and for each reference the distinct spans its
// sentences cite, in order of first citation, quoted from the document.
func buildReportPrint(rep pipeline.Report, sources map[string]citedDocument) views.ReportPrintPage {
	page := buildReportPage(rep, sources)
	vm := views.ReportPrintPage{Report: rep}
	evidence := make(map[int]*views.Evidence, len(page.References))
	for _, ref := range page.References {
		vm.Evidence = append(vm.Evidence, views.Evidence{Reference: ref})
	}
	for i := range vm.Evidence {
		evidence[vm.Evidence[i].Number] = &vm.Evidence[i]
	}
	type spanKey struct {
		ref, start, end int
	}
	seen := map[spanKey]bool{}
	for _, s := range page.Sentences {
		vm.Sentences = append(vm.Sentences, views.PrintSentence{Text: s.Text, Ref: s.Ref, Facet: s.Facet})
		ev := evidence[s.Ref]
		key := spanKey{ref: s.Ref, start: s.Citation.Start, end: s.Citation.End}
		if ev == nil || ev.Source.DocumentMissing || seen[key] {
			continue
		}
		seen[key] = true
		text, ok := quoteSpan(sources[s.Citation.DocID].Text, s.Citation)
		ev.Spans = append(ev.Spans, views.QuotedSpan{
			Start: s.Citation.Start, End: s.Citation.End, Text: text, Outside: !ok,
			Page: pipeline.PageLabel(sources[s.Citation.DocID].Meta, s.Citation.Start, s.Citation.End),
		})
	}
	return vm
}

// citedQuotes quotes every cited span from its document, for the Markdown
// export's evidence appendix; spans of missing documents are left out.
func citedQuotes(sentences []pipeline.Sentence, sources map[string]citedDocument) map[pipeline.Citation]string {
	out := make(map[pipeline.Citation]string, len(sentences))
	for _, s := range sentences {
		src, ok := sources[s.Citation.DocID]
		if !ok || src.Missing {
			continue
		}
		if q, ok := quoteSpan(src.Text, s.Citation); ok {
			out[s.Citation] = q
		}
	}
	return out
}

// quoteSpan returns the text a citation's byte offsets mark in its
// document's text. The offsets are clamped to the text and widened to
// whole characters should one fall inside a character, so the quote is
// always valid text, and matches what the report page marks. ok is false
// when no part of the span lies in the text.
func quoteSpan(text string, c pipeline.Citation) (quote string, ok bool) {
	start := min(max(c.Start, 0), len(text))
	end := min(max(c.End, 0), len(text))
	if start >= end {
		return "", false
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	return text[start:end], true
}
