// Package corpustest writes small PDF and Word files for tests: ingest's
// readers are tested on files generated in the test, never on files
// fetched or shipped.
package corpustest

import (
	"archive/zip"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strconv"

	"github.com/go-pdf/fpdf"
)

// PDF writes a PDF whose pages hold the given text; a page "" holds only a
// picture, as a scanned page does. title, when not "", is the document
// information's title; protect sets a user password.
func PDF(title string, protect bool, pages ...string) ([]byte, error) {
	p := fpdf.New("P", "mm", "A4", "")
	if title != "" {
		p.SetTitle(title, true)
	}
	if protect {
		p.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
	}
	p.SetFont("Helvetica", "", 12)
	for i, text := range pages {
		p.AddPage()
		if text != "" {
			p.MultiCell(0, 6, text, "", "", false)
			continue
		}
		img := image.NewGray(image.Rect(0, 0, 40, 20))
		for x := 0; x < 40; x += 3 {
			img.SetGray(x, 10, color.Gray{Y: 200})
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		name := "scan" + strconv.Itoa(i)
		opts := fpdf.ImageOptions{ImageType: "PNG"}
		p.RegisterImageOptionsReader(name, opts, &buf)
		p.ImageOptions(name, 10, 10, 100, 50, false, opts, 0, "")
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DOCX writes a .docx whose document body is body (WordprocessingML, see
// Para and PageBreak) and, when title is not "", whose core properties
// hold the title.
func DOCX(title, body string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, content string) {
		w, _ := zw.Create(name)
		w.Write([]byte(content))
	}
	add("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`)
	add("word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body+`</w:body></w:document>`)
	if title != "" {
		add("docProps/core.xml", `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>`+title+`</dc:title></cp:coreProperties>`)
	}
	zw.Close()
	return buf.Bytes()
}

// Para is a Word paragraph of text (XML-escaped by the caller).
func Para(text string) string {
	return `<w:p><w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// PageBreak is a Word paragraph holding an explicit page break.
const PageBreak = `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`
