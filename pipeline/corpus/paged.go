package corpus

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus/pdftext"
)

// readPagedFile reads one .pdf or .docx file as one document whose text is
// its pages' text, each page starting a paragraph, with the offsets at
// which pages begin kept as metadata (pipeline.MetaPageStarts) so that a
// passage's provenance can name its page. The raw file is held to
// MaxLineBytes, its text to MaxFieldBytes.
func (w *walker) readPagedFile(e entry, r io.Reader) error {
	data, skip, ok := w.readWhole(e, r, w.opts.MaxLineBytes)
	if !ok {
		return nil
	}

	var title string
	var pages []string
	switch e.kind {
	case kindPDF:
		doc, err := pdftext.Read(w.ctx, data)
		if err != nil {
			if w.ctx.Err() != nil {
				return w.ctx.Err()
			}
			return skip(err.Error())
		}
		title, pages = doc.Title, doc.Pages
	case kindDOCX:
		doc, err := readDOCX(data, w.opts.MaxFieldBytes)
		if err != nil {
			return skip(err.Error())
		}
		title, pages = doc.title, doc.pages
	}

	text, starts := joinPages(pages)
	if w.content += int64(len(text)); w.opts.MaxTotalBytes > 0 && w.content > w.opts.MaxTotalBytes {
		w.full = true
		reason, _ := w.limitReason(errTotalLimit)
		return skip(reason)
	}
	if strings.TrimSpace(text) == "" {
		if e.kind == kindPDF {
			return skip(fmt.Sprintf("no text on any of its %d page(s): a scanned PDF (images of pages) needs OCR first, which ingest does not do", len(pages)))
		}
		return skip("empty text: the document holds no text")
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if int64(len(text)) > w.opts.MaxFieldBytes {
		return skip(fieldTooLarge("text", len(text), w.opts.MaxFieldBytes))
	}
	if reason := checkID(e.id); reason != "" {
		return skip("file path cannot be a document id: " + strings.TrimPrefix(reason, `"id" `))
	}
	if title == "" {
		title = textTitle(text)
	}
	if title == "" {
		title = filepath.Base(e.path)
	}
	return w.deliver(pipeline.Document{
		ID:    e.id,
		Title: title,
		Text:  text,
		Metadata: map[string]string{
			"path":                  e.id,
			"format":                e.kind.formatName(),
			"pages":                 fmt.Sprint(len(pages)),
			pipeline.MetaPageStarts: pipeline.PageStarts(starts),
		},
		Source: e.path,
	})
}

// joinPages joins pages into one text, a blank line between pages, and
// returns the offsets at which pages 2, 3, … begin. A page without text
// begins where the next one does.
func joinPages(pages []string) (string, []int) {
	var sb strings.Builder
	var starts []int
	for i, p := range pages {
		p = strings.TrimSpace(normalizeNewlines(p))
		if i > 0 {
			if sb.Len() > 0 && p != "" {
				sb.WriteString("\n\n")
			}
			starts = append(starts, sb.Len())
		}
		sb.WriteString(p)
	}
	return sb.String(), starts
}

// docxDoc is what a Word file holds for ingest.
type docxDoc struct {
	title string
	pages []string
}

// errDOCX prefixes what is wrong with a .docx file.
var errDOCX = errors.New("not a readable Word (.docx) file")

// readDOCX reads the paragraphs of a .docx file (a zip of XML parts). Its
// pages are those Word last laid out (w:lastRenderedPageBreak) and
// explicit page breaks; a file never laid out by Word is one page. The
// title is the document properties' title. The main part's decompressed
// size is held to maxBytes×4 (its markup outweighs its text).
func readDOCX(data []byte, maxBytes int64) (docxDoc, error) {
	var out docxDoc
	if bytes.HasPrefix(data, oleMagic) {
		return out, errors.New("the file is an OLE compound file, not a .docx zip: a password-protected Word file or an old .doc renamed, which ingest cannot read; save an unprotected .docx")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return out, fmt.Errorf("%w: %v", errDOCX, err)
	}
	var main, core *zip.File
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			main = f
		case "docProps/core.xml":
			core = f
		}
	}
	if main == nil {
		return out, fmt.Errorf("%w: it has no word/document.xml (a .doc file renamed, or another zip?)", errDOCX)
	}
	limit := maxBytes * 4
	body, err := readZipPart(main, limit)
	if err != nil {
		return out, err
	}
	if out.pages, err = docxPages(body); err != nil {
		return out, fmt.Errorf("%w: word/document.xml: %v", errDOCX, err)
	}
	if core != nil {
		if b, err := readZipPart(core, 1<<20); err == nil {
			out.title = coreTitle(b)
		}
	}
	return out, nil
}

// oleMagic begins an OLE compound file: Word's encrypted files and old
// .doc files, neither of which is a .docx zip.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// readZipPart reads a part of the zip, refusing one that decompresses to
// more than limit bytes (a zip bomb stops at the limit).
func readZipPart(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errDOCX, f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errDOCX, f.Name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s decompresses to more than %s: not read", f.Name, sizeText(limit))
	}
	return b, nil
}

// wordNS is the namespace of WordprocessingML's main elements.
const wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// docxPages walks document.xml: text runs (w:t), tabs and line breaks
// inside paragraphs (w:p), a blank line between paragraphs, and a new page
// at each page break.
func docxPages(body []byte) ([]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var pages []string
	var page, para strings.Builder
	inText := false
	depthDeleted := 0 // inside w:del (tracked deletions are not text)
	endPara := func() {
		if p := strings.TrimSpace(para.String()); p != "" {
			if page.Len() > 0 {
				page.WriteString("\n\n")
			}
			page.WriteString(p)
		}
		para.Reset()
	}
	newPage := func() {
		endPara()
		pages = append(pages, page.String())
		page.Reset()
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "cr":
				para.WriteByte('\n')
			case "br":
				if attr(t, "type") == "page" {
					newPage()
				} else {
					para.WriteByte('\n')
				}
			case "lastRenderedPageBreak":
				// Word marks where its last layout began a page; at the
				// very start of a page already begun by a break, it is the
				// same page.
				if page.Len() > 0 || strings.TrimSpace(para.String()) != "" {
					newPage()
				}
			case "del":
				depthDeleted++
			}
		case xml.EndElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				endPara()
			case "del":
				depthDeleted--
			}
		case xml.CharData:
			if inText && depthDeleted == 0 {
				para.Write(t)
			}
		}
	}
	endPara()
	pages = append(pages, page.String())
	return pages, nil
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// coreTitle is dc:title of docProps/core.xml, "" when absent.
func coreTitle(b []byte) string {
	var core struct {
		Title string `xml:"http://purl.org/dc/elements/1.1/ title"`
	}
	if xml.Unmarshal(b, &core) != nil {
		return ""
	}
	return strings.TrimSpace(core.Title)
}
