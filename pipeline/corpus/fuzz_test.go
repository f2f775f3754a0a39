package corpus

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// FuzzJSONLLine feeds arbitrary file content to the JSON Lines reader and
// checks that it never panics and that every line gets exactly the outcome
// it should: a line longer than the limit one skipped Problem, a blank line
// nothing, any other line either one document or one skipped Problem.
func FuzzJSONLLine(f *testing.F) {
	for _, seed := range []string{
		`{"id":"d1","title":"T","text":"Hello."}`,
		`{"id":7,"contents":"x","year":1996,"tags":["a"]}` + "\n" + `{"id":7,"body":"y"}`,
		"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"b\"}\r\n\r\n",
		"{\"id\":\"a\",\"text\":\"caf\xe9\"}",
		`{"id":"","text":"x"}` + "\n[1]\nnull\n{\"id\":\"a\\u0000\",\"text\":\"x\"}",
		`{"id":1e999,"text":"x"}`,
		`{"id":"a","text":"` + strings.Repeat("x", 100) + `"}`,
		"\n\n \t\n",
		`{"id":"a","text":"x"} trailing`,
		`{"id":"a","te` + "\xff" + `xt":"y"}`,
	} {
		f.Add([]byte(seed))
	}
	const maxLine, maxField = 120, 48
	f.Fuzz(func(t *testing.T, data []byte) {
		docsAt := make(map[int]int)
		skippedAt := make(map[int]int)
		var fileProblems []Problem
		w := &walker{
			ctx:  context.Background(),
			opts: Options{MaxFieldBytes: maxField, MaxLineBytes: maxLine}.withDefaults(),
			fn: func(d pipeline.Document) error {
				checkDocument(t, d, maxField)
				line, err := strconv.Atoi(strings.TrimPrefix(d.Source, "in.jsonl:"))
				if err != nil {
					t.Fatalf("document source %q is not in.jsonl:LINE", d.Source)
				}
				docsAt[line]++
				return nil
			},
			problem: func(p Problem) {
				switch {
				case p.File != "in.jsonl" || p.Reason == "":
					t.Errorf("malformed problem %#v", p)
				case p.Line == 0:
					fileProblems = append(fileProblems, p)
				case p.Skipped:
					skippedAt[p.Line]++
				}
			},
		}
		if err := w.readJSONL("in.jsonl", bytes.NewReader(data), "read error"); err != nil {
			t.Fatalf("readJSONL: %v", err)
		}

		parts := bytes.Split(data, []byte("\n"))
		lines, records := 0, 0
		for i, p := range parts {
			last := i == len(parts)-1
			if last && len(p) == 0 {
				break
			}
			lines++
			if !last {
				p = bytes.TrimSuffix(p, []byte("\r"))
			}
			want := 1
			switch {
			case len(p) > maxLine:
			case isBlank(bytes.TrimPrefix(p, bom)) && (i == 0 || isBlank(p)):
				want = 0
			}
			records += want
			if got := docsAt[i+1] + skippedAt[i+1]; got != want {
				t.Errorf("line %d (%q): %d documents and %d skipped problems, want %d outcome", i+1, p, docsAt[i+1], skippedAt[i+1], want)
			}
		}
		if records == 0 && len(fileProblems) != 1 || records > 0 && len(fileProblems) != 0 {
			t.Errorf("file problems %v for %d records in %d lines", fileProblems, records, lines)
		}
		if w.sum.Records != records || w.sum.Documents+w.sum.Skipped != records {
			t.Errorf("Summary %+v, want %d records, each a document or skipped", w.sum, records)
		}
	})
}

// checkDocument asserts what every delivered document guarantees.
func checkDocument(t *testing.T, d pipeline.Document, maxField int) {
	t.Helper()
	if reason := checkID(d.ID); reason != "" {
		t.Errorf("document id %q delivered although %s", d.ID, reason)
	}
	if strings.TrimSpace(d.Text) == "" {
		t.Errorf("document %q has blank text", d.ID)
	}
	fields := map[string]string{"id": d.ID, "title": d.Title, "text": d.Text}
	for k, v := range d.Metadata {
		fields["metadata "+k] = v
	}
	for name, v := range fields {
		if !utf8.ValidString(v) {
			t.Errorf("document %q: %s is not valid UTF-8: %q", d.ID, name, v)
		}
		if len(v) > maxField {
			t.Errorf("document %q: %s has %d bytes, over the %d-byte limit", d.ID, name, len(v), maxField)
		}
	}
}

// FuzzExtractHTML checks that any valid UTF-8 page yields valid UTF-8 text
// without panicking.
func FuzzExtractHTML(f *testing.F) {
	for _, seed := range []string{
		"<title>T</title><p>a<br>b</p>",
		"<pre>\n x</pre><table><tr><td>1<td>2</table>",
		"<div hidden><p>x</div><script>y</script>",
		strings.Repeat("<b>", 600) + "deep",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return
		}
		text, title, _ := extractHTML(src)
		if !utf8.ValidString(text) || !utf8.ValidString(title) {
			t.Errorf("extractHTML(%q) = %q, %q: invalid UTF-8", src, text, title)
		}
		if text != strings.TrimSpace(text) && !strings.Contains(src, "pre") && !strings.Contains(src, "listing") && !strings.Contains(src, "plaintext") {
			t.Errorf("extractHTML(%q) text %q has white space around it", src, text)
		}
	})
}
