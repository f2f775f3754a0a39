package corpus

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus/corpustest"
)

func makePDF(t *testing.T, title string, protect bool, pages ...string) []byte {
	t.Helper()
	b, err := corpustest.PDF(title, protect, pages...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func makeDOCX(_ *testing.T, title, body string) []byte { return corpustest.DOCX(title, body) }

var para = corpustest.Para

const pageBreak = corpustest.PageBreak

// walkFolder writes files into a folder and walks it.
func walkFolder(t *testing.T, opts Options, files map[string][]byte) ([]pipeline.Document, []Problem) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var docs []pipeline.Document
	var problems []Problem
	_, err := Walk(context.Background(), []string{dir}, opts, func(d pipeline.Document) error {
		docs = append(docs, d)
		return nil
	}, func(p Problem) { problems = append(problems, p) })
	if err != nil {
		t.Fatal(err)
	}
	return docs, problems
}

// A PDF is one document: its pages' text in order, its title from the
// document information, and the offsets of its pages, so that a passage
// can say which page it is on.
func TestPDFBecomesOneDocumentWithPages(t *testing.T) {
	data := makePDF(t, "Tariffs and the bank", false,
		"The tariff of 1828 raised the duties on imported wool.",
		"",
		"The second bank of the United States held the public deposits.")
	docs, problems := walkFolder(t, Options{}, map[string][]byte{"report.pdf": data})
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("got %d documents and problems %v", len(docs), problems)
	}
	d := docs[0]
	if d.ID != "report.pdf" || d.Title != "Tariffs and the bank" || d.Metadata["format"] != "pdf" || d.Metadata["pages"] != "3" {
		t.Errorf("document = %q %q %v", d.ID, d.Title, d.Metadata)
	}
	for _, c := range []struct{ phrase, page string }{
		{"duties on imported wool", "page 1"},
		{"public deposits", "page 3"},
	} {
		i := strings.Index(d.Text, c.phrase)
		if i < 0 {
			t.Fatalf("text lacks %q:\n%s", c.phrase, d.Text)
		}
		if got := pipeline.PageLabel(d.Metadata, i, i+len(c.phrase)); got != c.page {
			t.Errorf("%q is on %q, want %q (page starts %s)", c.phrase, got, c.page, d.Metadata[pipeline.MetaPageStarts])
		}
	}
}

// Files that cannot be read are skipped, each with a reason a user can act
// on; the rest of the folder is read.
func TestUnreadablePDFsAreSkippedWithAReason(t *testing.T) {
	good := makePDF(t, "", false, "A page of text about the currency.")
	docs, problems := walkFolder(t, Options{}, map[string][]byte{
		"good.pdf":      good,
		"locked.pdf":    makePDF(t, "Locked", true, "Secret text."),
		"scanned.pdf":   makePDF(t, "Scanned", false, "", ""),
		"truncated.pdf": good[:len(good)/3],
		"fake.pdf":      []byte("this is not a PDF at all"),
	})
	if len(docs) != 1 || docs[0].ID != "good.pdf" || docs[0].Title != "A page of text about the currency." {
		t.Fatalf("documents = %+v", docs)
	}
	want := map[string]string{
		"locked.pdf":    "the PDF is encrypted: it needs a password",
		"scanned.pdf":   "no text on any of its 2 page(s): a scanned PDF",
		"truncated.pdf": "not a readable PDF",
		"fake.pdf":      "not a readable PDF",
	}
	if len(problems) != len(want) {
		t.Errorf("problems = %v", problems)
	}
	for _, p := range problems {
		w, ok := want[filepath.Base(p.File)]
		if !ok || !p.Skipped || !strings.Contains(p.Reason, w) {
			t.Errorf("problem %s (skipped %v), want one containing %q", p, p.Skipped, w)
		}
	}
}

// A Word file's paragraphs become the text; its pages are those Word laid
// out (page breaks); deleted revisions are not text; its title is the
// document properties' title.
func TestDOCXBecomesOneDocumentWithPages(t *testing.T) {
	body := para("Message on the tariff") +
		`<w:p><w:r><w:t>Duties on wool</w:t></w:r><w:r><w:tab/><w:t>were raised.</w:t></w:r><w:del><w:r><w:t>Struck out.</w:t></w:r></w:del></w:p>` +
		pageBreak +
		para("The bank held the deposits.") +
		`<w:p><w:r><w:lastRenderedPageBreak/><w:t>The third page speaks of the currency.</w:t></w:r></w:p>`
	docs, problems := walkFolder(t, Options{}, map[string][]byte{"message.docx": makeDOCX(t, "Annual message", body)})
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("got %d documents and problems %v", len(docs), problems)
	}
	d := docs[0]
	wantText := "Message on the tariff\n\nDuties on wool\twere raised.\n\nThe bank held the deposits.\n\nThe third page speaks of the currency."
	if d.Title != "Annual message" || d.Text != wantText || d.Metadata["format"] != "docx" || d.Metadata["pages"] != "3" {
		t.Errorf("document = %q %q %v", d.Title, d.Text, d.Metadata)
	}
	for phrase, page := range map[string]string{"Duties on wool": "page 1", "held the deposits": "page 2", "the currency": "page 3"} {
		i := strings.Index(d.Text, phrase)
		if got := pipeline.PageLabel(d.Metadata, i, i+len(phrase)); got != page {
			t.Errorf("%q is on %q, want %q", phrase, got, page)
		}
	}
	// Without core properties the first short line is the title.
	docs, _ = walkFolder(t, Options{}, map[string][]byte{"n.docx": makeDOCX(t, "", para("Untitled note")+para("Body."))})
	if len(docs) != 1 || docs[0].Title != "Untitled note" {
		t.Errorf("untitled docx: %+v", docs)
	}
}

func TestUnreadableDOCXAreSkippedWithAReason(t *testing.T) {
	huge := makeDOCX(t, "", para(strings.Repeat("wool ", 50000)))
	docs, problems := walkFolder(t, Options{MaxFieldBytes: 1 << 14}, map[string][]byte{
		"zip.docx":   []byte("PK\x03\x04 not really a zip"),
		"old.docx":   append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 100)...),
		"empty.docx": makeDOCX(t, "", `<w:p/>`),
		"huge.docx":  huge,
		"other.docx": func() []byte {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			w, _ := zw.Create("readme.txt")
			w.Write([]byte("hello"))
			zw.Close()
			return buf.Bytes()
		}(),
	})
	if len(docs) != 0 {
		t.Errorf("documents = %+v", docs)
	}
	want := map[string]string{
		"zip.docx":   "not a readable Word (.docx) file",
		"old.docx":   "an OLE compound file, not a .docx zip",
		"empty.docx": "the document holds no text",
		"huge.docx":  "word/document.xml decompresses to more than 64 KiB",
		"other.docx": "it has no word/document.xml",
	}
	if len(problems) != len(want) {
		t.Errorf("problems = %v", problems)
	}
	for _, p := range problems {
		w := want[filepath.Base(p.File)]
		if w == "" || !p.Skipped || !strings.Contains(p.Reason, w) {
			t.Errorf("problem %s, want one containing %q", p, w)
		}
	}
}
