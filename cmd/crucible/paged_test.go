package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/corpus/corpustest"
)

// PDF and Word files ingest from a folder with the CLI: they are searched
// like any document, unreadable ones are skipped with the reason, and the
// portal's document page names each passage's page.
func TestIngestPDFAndWordFilesWithPages(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	pdf, err := corpustest.PDF("Message on the tariff", false,
		"The tariff of 1828 raised the duties on imported wool.",
		"The second bank of the United States held the public deposits.")
	if err != nil {
		t.Fatal(err)
	}
	locked, err := corpustest.PDF("Locked", true, "Secret.")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"message.pdf": pdf,
		"locked.pdf":  locked,
		"memo.docx": corpustest.DOCX("Memo on the currency",
			corpustest.Para("Paper money and the gold standard.")+corpustest.PageBreak+corpustest.Para("The mint coined silver dollars.")),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(docs, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	out, stderr, code := runCmd(t, "ingest", "--data", data, docs)
	if code != 3 || !strings.Contains(out, "ingested 2 documents") ||
		!strings.Contains(stderr, "locked.pdf: the PDF is encrypted: it needs a password") {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = runCmd(t, "search", "--data", data, "--k", "1", "--json", "silver dollars")
	var hits []searchHitJSON
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 1 || hits[0].DocID != "memo.docx" {
		t.Fatalf("search: %v %s", err, out)
	}

	span := spanOf(t, data, "message.pdf", "The second bank") // before serve holds the index
	base := startServe(t, "--data", data)
	code, body := get(t, base+"/documents/message.pdf")
	if code != 200 || !strings.Contains(body, `data-testid="passage-page">page 1<`) || !strings.Contains(body, "Message on the tariff") {
		t.Errorf("document page of a PDF: %d\n%s", code, body)
	}
	i := strings.Index(body, "public deposits")
	if i < 0 || !strings.Contains(body, `data-testid="passage-page">page 2<`) {
		t.Errorf("the PDF's second page is not named on its passage")
	}
	// A cited span names its page.
	code, body = get(t, base+"/documents/message.pdf?span="+url.QueryEscape(span))
	if code != 200 || !strings.Contains(body, `data-testid="span-page">page 2<`) {
		t.Errorf("cited span on page 2: %d\n%s", code, body)
	}
}

// spanOf is the START-END span of text in a stored document.
func spanOf(t *testing.T, data, id, text string) string {
	t.Helper()
	a, err := openApp(t.Context(), commonFlags{data: data, k1: 0.9, b: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	d, err := a.db.Document(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(d.Text, text)
	if i < 0 {
		t.Fatalf("%s lacks %q", id, text)
	}
	return strconv.Itoa(i) + "-" + strconv.Itoa(i+len(text))
}
