package corpus

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// result is what one Walk produced, with the test's temporary folder
// removed from every path so expectations can name files relatively.
type result struct {
	Docs     []pipeline.Document
	Problems []string
	Summary  Summary
}

// runWalk walks paths (relative to root) and collects the documents and
// problems.
func runWalk(t *testing.T, root string, opts Options, paths ...string) (result, error) {
	t.Helper()
	full := make([]string, len(paths))
	for i, p := range paths {
		full[i] = filepath.Join(root, p)
	}
	prefix := root + string(filepath.Separator)
	var res result
	sum, err := Walk(context.Background(), full, opts, func(d pipeline.Document) error {
		d.Source = strings.TrimPrefix(d.Source, prefix)
		res.Docs = append(res.Docs, d)
		return nil
	}, func(p Problem) {
		res.Problems = append(res.Problems, strings.TrimPrefix(p.String(), prefix))
	})
	res.Summary = sum
	return res, err
}

// writeFile writes data to root/name, creating folders as needed.
func writeFile(t *testing.T, root, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gzipped compresses data.
func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jdoc builds the document expected from line line of in.jsonl.
func jdoc(line int, id, title, text string, meta map[string]string) pipeline.Document {
	if meta == nil {
		meta = map[string]string{}
	}
	return pipeline.Document{ID: id, Title: title, Text: text, Metadata: meta, Source: fmt.Sprintf("in.jsonl:%d", line)}
}

func TestWalkJSONL(t *testing.T) {
	longID := strings.Repeat("x", MaxIDBytes+1)
	tests := []struct {
		name     string
		content  string
		opts     Options
		want     []pipeline.Document
		problems []string
		// sum is the expected Summary; Files and Bytes are filled in.
		sum Summary
	}{
		{
			name:    "id title text",
			content: `{"id":"d1","title":"  First  ","text":"Hello world."}` + "\n",
			want:    []pipeline.Document{jdoc(1, "d1", "First", "Hello world.", nil)},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "contents alias",
			content: `{"id":"d1","contents":"From contents."}`,
			want:    []pipeline.Document{jdoc(1, "d1", "", "From contents.", nil)},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "body alias",
			content: `{"id":"d1","body":"From body."}`,
			want:    []pipeline.Document{jdoc(1, "d1", "", "From body.", nil)},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "text preferred over aliases, which stay metadata",
			content: `{"id":"d1","body":"B","text":"T","contents":"C"}`,
			want:    []pipeline.Document{jdoc(1, "d1", "", "T", map[string]string{"body": "B", "contents": "C"})},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "blank text falls back to contents",
			content: `{"id":"d1","text":"  ","contents":"C"}`,
			want:    []pipeline.Document{jdoc(1, "d1", "", "C", map[string]string{"text": "  "})},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name: "metadata keeps every other field with its type",
			content: `{"id":"d1","text":"x","date":"1996-01-23","year":1996,"score":1.50,"ok":true,"none":null,` +
				`"tags":[ "a", "b" ],"author":{ "name": "Ann", "born": 1950 }}`,
			want: []pipeline.Document{jdoc(1, "d1", "", "x", map[string]string{
				"date":   "1996-01-23",
				"year":   "1996",
				"score":  "1.50",
				"ok":     "true",
				"none":   "null",
				"tags":   `["a","b"]`,
				"author": `{"name":"Ann","born":1950}`,
			})},
			sum: Summary{Records: 1, Documents: 1},
		},
		{
			name:    "numeric ids become decimal text",
			content: `{"id":1996,"text":"a"}` + "\n" + `{"id":1e3,"text":"b"}` + "\n" + `{"id":2.50,"text":"c"}` + "\n" + `{"id":-7,"text":"d"}`,
			want: []pipeline.Document{
				jdoc(1, "1996", "", "a", nil),
				jdoc(2, "1000", "", "b", nil),
				jdoc(3, "2.5", "", "c", nil),
				jdoc(4, "-7", "", "d", nil),
			},
			sum: Summary{Records: 4, Documents: 4},
		},
		{
			name:    "numeric title",
			content: `{"id":"b","title":1984,"text":"Big Brother."}`,
			want:    []pipeline.Document{jdoc(1, "b", "1984", "Big Brother.", nil)},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "byte order mark, CRLF, blank lines and no final newline",
			content: "\xEF\xBB\xBF" + `{"id":"a","text":"A"}` + "\r\n\r\n  \t \n" + `{"id":"b","text":"B"}`,
			want:    []pipeline.Document{jdoc(1, "a", "", "A", nil), jdoc(4, "b", "", "B", nil)},
			sum:     Summary{Records: 2, Documents: 2},
		},
		{
			name:    "text kept exactly",
			content: `{"id":"a","text":"  line one\nline two\t \u00e9\u0000 "}`,
			want:    []pipeline.Document{jdoc(1, "a", "", "  line one\nline two\t é\x00 ", nil)},
			sum:     Summary{Records: 1, Documents: 1},
		},
		{
			name:    "duplicate id delivers both with a notice",
			content: `{"id":"a","text":"1"}` + "\n" + `{"id":"b","text":"2"}` + "\n" + `{"id":"a","text":"3"}` + "\n" + `{"id":"a","text":"4"}` + "\n",
			want: []pipeline.Document{
				jdoc(1, "a", "", "1", nil), jdoc(2, "b", "", "2", nil),
				jdoc(3, "a", "", "3", nil), jdoc(4, "a", "", "4", nil),
			},
			problems: []string{
				`in.jsonl:3: duplicate id "a" (first at line 1); the later record replaces it`,
				`in.jsonl:4: duplicate id "a" (first at line 1); the later record replaces it`,
			},
			sum: Summary{Records: 4, Documents: 4, Notices: 2},
		},
		{
			name:     "empty file",
			content:  "",
			problems: []string{"in.jsonl: empty file"},
			sum:      Summary{Notices: 1},
		},
		{
			name:     "only blank lines",
			content:  "\n \n\r\n",
			problems: []string{"in.jsonl: empty file: only blank lines"},
			sum:      Summary{Notices: 1},
		},
		{
			name:     "invalid JSON",
			content:  `{"id": "a", "text": }` + "\n" + `{"id":"b","text":"ok"}`,
			want:     []pipeline.Document{jdoc(2, "b", "", "ok", nil)},
			problems: []string{`in.jsonl:1: invalid JSON at column 21: a value is missing or starts with "}" (text needs double quotes): {"id": "a", "text": }`},
			sum:      Summary{Records: 2, Documents: 1, Skipped: 1},
		},
		{
			name:     "cut JSON",
			content:  `{"id":"a"`,
			problems: []string{`in.jsonl:1: invalid JSON at column 9: the line ends before the JSON object is closed (a missing "}", "]" or closing quote?): {"id":"a"`},
			sum:      Summary{Records: 1, Skipped: 1},
		},
		{
			name:     "two objects on one line",
			content:  `{"id":"a","text":"x"} {"id":"b","text":"y"}`,
			problems: []string{`in.jsonl:1: invalid JSON at column 23: more text after the end of the JSON object (one object per line): …id":"a","text":"x"} {"id":"b","text":"y"…`},
			sum:      Summary{Records: 1, Skipped: 1},
		},
		{
			name:    "JSON but not an object",
			content: "[1,2]\n\"text\"\n42\ntrue\nnull\n",
			problems: []string{
				"in.jsonl:1: not a JSON object: the line holds an array",
				"in.jsonl:2: not a JSON object: the line holds a string",
				"in.jsonl:3: not a JSON object: the line holds a number",
				"in.jsonl:4: not a JSON object: the line holds a boolean",
				"in.jsonl:5: not a JSON object: the line holds null",
			},
			sum: Summary{Records: 5, Skipped: 5},
		},
		{
			name: "bad ids",
			content: strings.Join([]string{
				`{"text":"x"}`,
				`{"id":null,"text":"x"}`,
				`{"id":"","text":"x"}`,
				`{"id":" \t","text":"x"}`,
				`{"id":true,"text":"x"}`,
				`{"id":["a"],"text":"x"}`,
				`{"id":"a\nb","text":"x"}`,
				`{"id":"a\u0085b","text":"x"}`,
				`{"id":"` + longID + `","text":"x"}`,
				`{"id":1e999,"text":"x"}`,
			}, "\n"),
			problems: []string{
				`in.jsonl:1: missing "id" field`,
				`in.jsonl:2: "id" is null`,
				`in.jsonl:3: "id" is empty`,
				`in.jsonl:4: "id" is blank (only white space)`,
				`in.jsonl:5: "id" must be a string or a number, not a boolean`,
				`in.jsonl:6: "id" must be a string or a number, not an array`,
				`in.jsonl:7: "id" contains a control character (U+000A)`,
				`in.jsonl:8: "id" contains a control character (U+0085)`,
				`in.jsonl:9: "id" is too long: 513 bytes (limit 512)`,
				`in.jsonl:10: "id" is a number too large to use as an id: 1e999`,
			},
			sum: Summary{Records: 10, Skipped: 10},
		},
		{
			name: "empty text names the fields looked at",
			content: `{"id":"a","title":"No text"}` + "\n" +
				`{"id":"b","text":" \n","contents":null,"body":""}` + "\n" +
				`{"id":"c","text":["para"],"body":{"x":1}}`,
			problems: []string{
				`in.jsonl:1: empty text: "text" is missing, "contents" is missing, "body" is missing`,
				`in.jsonl:2: empty text: "text" is blank, "contents" is null, "body" is empty`,
				`in.jsonl:3: empty text: "text" is an array, not a string, "contents" is missing, "body" is an object, not a string`,
			},
			sum: Summary{Records: 3, Skipped: 3},
		},
		{
			name:     "title of the wrong type",
			content:  `{"id":"a","title":{"main":"T"},"text":"x"}`,
			problems: []string{`in.jsonl:1: "title" must be a string, not an object`},
			sum:      Summary{Records: 1, Skipped: 1},
		},
		{
			name: "invalid UTF-8 is found on the raw bytes",
			content: "{\"id\":\"a\",\"text\":\"caf\xe9\"}\n" +
				"{\"id\":\"b\",\"te\xffxt\":\"x\",\"text\":\"y\"}\n" +
				"{\"id\":\"c\",\xff}\n" +
				"{\"id\":\"d\",\"text\":\"fine\",\"author\":\"\xc3\"}\n" +
				`{"id":"e","text":"caf\u00e9 ok"}`,
			want: []pipeline.Document{jdoc(5, "e", "", "café ok", nil)},
			problems: []string{
				`in.jsonl:1: invalid UTF-8 in field "text" at column 22`,
				`in.jsonl:2: invalid UTF-8 in a field name at column 14`,
				`in.jsonl:3: invalid UTF-8 at column 11`,
				`in.jsonl:4: invalid UTF-8 in field "author" at column 35`,
			},
			sum: Summary{Records: 5, Documents: 1, Skipped: 4},
		},
		{
			name: "field larger than MaxFieldBytes",
			opts: Options{MaxFieldBytes: 10},
			content: `{"id":"a","text":"0123456789"}` + "\n" +
				`{"id":"b","text":"0123456789X"}` + "\n" +
				`{"id":"c","text":"short","url":"http://example.com/"}` + "\n" +
				`{"id":"d","title":"A long title","text":"short"}` + "\n" +
				`{"id":"e","text":"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}`,
			want: []pipeline.Document{jdoc(1, "a", "", "0123456789", nil)},
			problems: []string{
				`in.jsonl:2: field "text" is too large: 11 bytes (limit 10 bytes)`,
				`in.jsonl:3: field "url" is too large: 19 bytes (limit 10 bytes)`,
				`in.jsonl:4: field "title" is too large: 12 bytes (limit 10 bytes)`,
				`in.jsonl:5: field "text" is too large: 12 bytes (limit 10 bytes)`,
			},
			sum: Summary{Records: 5, Documents: 1, Skipped: 4},
		},
		{
			name: "line longer than MaxLineBytes",
			opts: Options{MaxLineBytes: 40},
			content: `{"id":"a","text":"short"}` + "\r\n" +
				`{"id":"b","text":"` + strings.Repeat("long ", 20) + `"}` + "\r\n" +
				`{"id":"c","text":"` + strings.Repeat("z", 40-20) + `"}` + "\r\n" +
				`{"id":"d","text":"` + strings.Repeat("z", 41-20) + `"}`,
			want: []pipeline.Document{jdoc(1, "a", "", "short", nil), jdoc(3, "c", "", strings.Repeat("z", 20), nil)},
			problems: []string{
				"in.jsonl:2: line is too long: 120 bytes (limit 40 bytes)",
				"in.jsonl:4: line is too long: 41 bytes (limit 40 bytes)",
			},
			sum: Summary{Records: 4, Documents: 2, Skipped: 2},
		},
		{
			name:    "lines longer than the read buffer",
			content: `{"id":"big","text":"` + strings.Repeat("a", 300_000) + `"}` + "\n" + `{"id":"next","text":"n"}`,
			want:    []pipeline.Document{jdoc(1, "big", "", strings.Repeat("a", 300_000), nil), jdoc(2, "next", "", "n", nil)},
			sum:     Summary{Records: 2, Documents: 2},
		},
		{
			name:     "too long line bigger than the read buffer",
			opts:     Options{MaxLineBytes: 100_000},
			content:  `{"id":"big","text":"` + strings.Repeat("a", 300_000) + `"}` + "\n" + `{"id":"next","text":"n"}`,
			want:     []pipeline.Document{jdoc(2, "next", "", "n", nil)},
			problems: []string{"in.jsonl:1: line is too long: 300022 bytes (limit 100000 bytes)"},
			sum:      Summary{Records: 2, Documents: 1, Skipped: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "in.jsonl", []byte(tt.content))
			got, err := runWalk(t, dir, tt.opts, "in.jsonl")
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			want := result{Docs: tt.want, Problems: tt.problems, Summary: tt.sum}
			want.Summary.Files = 1
			want.Summary.Bytes = int64(len(tt.content))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Walk (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWalkJSONLExtensions(t *testing.T) {
	line := []byte(`{"id":"x","text":"y"}` + "\n")
	tests := []struct {
		name string
		data []byte
	}{
		{"a.jsonl", line},
		{"a.json", line},
		{"a.ndjson", line},
		{"A.JSONL", line},
		{"a.jsonl.gz", gzipped(t, line)},
		{"a.json.gz", gzipped(t, line)},
		{"a.ndjson.gz", gzipped(t, line)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, tt.name, tt.data)
			got, err := runWalk(t, dir, Options{}, tt.name)
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			want := result{
				Docs:    []pipeline.Document{{ID: "x", Text: "y", Metadata: map[string]string{}, Source: tt.name + ":1"}},
				Summary: Summary{Files: 1, Records: 1, Documents: 1, Bytes: int64(len(tt.data))},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Walk (-want +got):\n%s", diff)
			}
		})
	}
}

// numberedLines returns n JSON Lines records "d1"..."dn" with text that
// compresses poorly, so a cut in the gzip stream falls among the records.
func numberedLines(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"id":"d%d","text":"`, i)
		for range 200 {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		b.WriteString("\"}\n")
	}
	return b.Bytes()
}

func TestWalkGzipDamage(t *testing.T) {
	full := gzipped(t, numberedLines(300))
	badChecksum := bytes.Clone(full)
	badChecksum[len(badChecksum)-8] ^= 0xFF // the CRC-32 in the trailer
	badBlock := bytes.Clone(full)
	badBlock[10] = 0x07 // the first deflate block: final, reserved type 3
	const some = -1
	tests := []struct {
		name string
		data []byte
		// docs is the number of documents expected before the damage, or
		// some: at least one and fewer than all.
		docs    int
		wantErr string
	}{
		{name: "truncated", data: full[:len(full)/2], docs: some, wantErr: "unexpected EOF"},
		{name: "cut inside the header", data: full[:5], docs: 0, wantErr: "unexpected EOF"},
		{name: "bad block", data: badBlock, docs: 0, wantErr: "flate: corrupt input before offset 1"},
		// Records are delivered as they are decompressed, so all of them are
		// in before the trailer shows the damage.
		{name: "bad checksum", data: badChecksum, docs: 300, wantErr: "gzip: invalid checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "in.jsonl.gz", tt.data)
			got, err := runWalk(t, dir, Options{}, "in.jsonl.gz")
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if tt.docs == some {
				if len(got.Docs) == 0 || len(got.Docs) >= 300 {
					t.Errorf("got %d documents, want some but not all 300", len(got.Docs))
				}
			} else if len(got.Docs) != tt.docs {
				t.Errorf("got %d documents, want %d", len(got.Docs), tt.docs)
			}
			for i, d := range got.Docs {
				if want := fmt.Sprintf("d%d", i+1); d.ID != want || len(d.Text) != 200 {
					t.Fatalf("document %d: id %q with %d bytes of text, want %q with 200", i, d.ID, len(d.Text), want)
				}
			}
			want := []string{fmt.Sprintf("in.jsonl.gz: gzip stream truncated or corrupt after line %d: %s", len(got.Docs), tt.wantErr)}
			if diff := cmp.Diff(want, got.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			wantSum := Summary{Files: 1, Records: len(got.Docs), Documents: len(got.Docs), Skipped: 1, Bytes: int64(len(tt.data))}
			if diff := cmp.Diff(wantSum, got.Summary); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWalkGzipFileProblems(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []string
		sum  Summary
	}{
		{name: "empty file", data: nil, want: []string{"in.jsonl.gz: empty file"}, sum: Summary{Notices: 1}},
		{name: "empty stream", data: gzipped(t, nil), want: []string{"in.jsonl.gz: empty file"}, sum: Summary{Notices: 1}},
		{name: "not gzip", data: []byte(`{"id":"a","text":"x"}`), want: []string{"in.jsonl.gz: not a gzip file: gzip: invalid header"}, sum: Summary{Skipped: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "in.jsonl.gz", tt.data)
			got, err := runWalk(t, dir, Options{}, "in.jsonl.gz")
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			want := result{Problems: tt.want, Summary: tt.sum}
			want.Summary.Files, want.Summary.Bytes = 1, int64(len(tt.data))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Walk (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWalkFolder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	files := map[string]string{
		"a.txt":                   "  \nFirst line title\n\nThe body of a.\n",
		"long.txt":                strings.Repeat("word ", 41) + "\nmore",
		"crlf.TXT":                "Windows title\r\nsecond line\r\n",
		"empty.md":                "",
		"blank.txt":               " \n\t\n",
		"bad.txt":                 "caf\xe9 latin-1",
		"nul.txt":                 "abc\x00def",
		"image.png":               "\x89PNG\r\n\x1a\n\x00\x00",
		"notes":                   "no extension",
		".git/config":             "[core]",
		"sub/b.md":                "Intro text\n\n## Heading B ##\n\nBody.",
		"sub/deeper/c.markdown":   "Setext title\n============\n\nBody of c.",
		"sub/deeper/plain.md":     "No heading here.\n\n    # indented code\n",
		"sub/page.html":           `<html><head><title>Page &amp; title</title><style>p{color:red}</style></head><body><h1>Heading</h1><p>Some   <b>bold</b>` + "\n" + `text.</p><script>var x = 1;</script></body></html>`,
		"sub/untitled.htm":        `<body><div><h1>The <i>H1</i> title</h1>Text.</div></body>`,
		"sub/records.jsonl":       `{"id":"r1","text":"From a JSON Lines file in the folder."}`,
		"sub/with space/é/d.html": `<p>Unicode path.</p>`,
	}
	for name, content := range files {
		writeFile(t, root, name, []byte(content))
	}

	got, err := runWalk(t, dir, Options{}, "docs")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	fdoc := func(id, title, text, format string) pipeline.Document {
		return pipeline.Document{ID: id, Title: title, Text: text, Source: filepath.Join("docs", filepath.FromSlash(id)),
			Metadata: map[string]string{"path": id, "format": format}}
	}
	want := result{
		Docs: []pipeline.Document{
			fdoc("a.txt", "First line title", "  \nFirst line title\n\nThe body of a.\n", "txt"),
			fdoc("crlf.TXT", "Windows title", "Windows title\nsecond line\n", "txt"),
			fdoc("long.txt", "long.txt", strings.Repeat("word ", 41)+"\nmore", "txt"),
			fdoc("sub/b.md", "Heading B", "Intro text\n\n## Heading B ##\n\nBody.", "md"),
			fdoc("sub/deeper/c.markdown", "Setext title", "Setext title\n============\n\nBody of c.", "md"),
			fdoc("sub/deeper/plain.md", "plain.md", "No heading here.\n\n    # indented code\n", "md"),
			fdoc("sub/page.html", "Page & title", "Heading\n\nSome bold text.", "html"),
			{ID: "r1", Text: "From a JSON Lines file in the folder.", Metadata: map[string]string{}, Source: filepath.Join("docs", "sub", "records.jsonl") + ":1"},
			fdoc("sub/untitled.htm", "The H1 title", "The H1 title\n\nText.", "html"),
			fdoc("sub/with space/é/d.html", "d.html", "Unicode path.", "html"),
		},
		Problems: []string{
			"docs/.git: skipped: hidden folder",
			"docs/bad.txt: binary or non-UTF-8 content: invalid UTF-8 at offset 3",
			"docs/blank.txt: empty text: the file holds only white space",
			"docs/empty.md: empty file",
			"docs/image.png: skipped: not a .txt/.md/.html/.pdf/.docx file",
			"docs/notes: skipped: not a .txt/.md/.html/.pdf/.docx file",
			"docs/nul.txt: binary or non-UTF-8 content: NUL byte at offset 3",
		},
		Summary: Summary{Files: 14, Records: 13, Documents: 10, Skipped: 3, Notices: 4},
	}
	for name, content := range files {
		if kind, _ := classify(name); kind != kindUnknown && !strings.HasPrefix(name, ".") {
			want.Summary.Bytes += int64(len(content))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}

func TestWalkFolderTooLarge(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "f/big.txt", []byte("0123456789A"))
	writeFile(t, dir, "f/fits.txt", []byte("0123456789"))
	// Raw HTML may exceed the field limit as long as its text does not.
	writeFile(t, dir, "f/page.html", []byte("<p><b>0123456789</b></p>"))
	writeFile(t, dir, "f/wordy.html", []byte("<p>0123456789 X</p>"))
	got, err := runWalk(t, dir, Options{MaxFieldBytes: 10, MaxLineBytes: 30}, "f")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	var ids []string
	for _, d := range got.Docs {
		ids = append(ids, d.ID)
	}
	if diff := cmp.Diff([]string{"fits.txt", "page.html"}, ids); diff != "" {
		t.Errorf("document ids (-want +got):\n%s", diff)
	}
	wantProblems := []string{
		"f/big.txt: file is too large: 11 bytes (limit 10 bytes)",
		`f/wordy.html: field "text" is too large: 12 bytes (limit 10 bytes)`,
	}
	if diff := cmp.Diff(wantProblems, got.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestWalkPathsGivenDirectly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "sub/note.md", []byte("# Note\n\nText."))
	writeFile(t, dir, "slides.pptx", []byte("PK"))
	writeFile(t, dir, "a.jsonl", []byte(`{"id":"j","text":"t"}`))

	got, err := runWalk(t, dir, Options{}, "sub/note.md", "slides.pptx", "a.jsonl", "sub/note.md")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	note := pipeline.Document{ID: "note.md", Title: "Note", Text: "# Note\n\nText.", Source: filepath.Join("sub", "note.md"),
		Metadata: map[string]string{"path": "note.md", "format": "md"}}
	want := result{
		Docs: []pipeline.Document{
			note,
			{ID: "j", Text: "t", Metadata: map[string]string{}, Source: "a.jsonl:1"},
			note,
		},
		Problems: []string{"slides.pptx: " + reasonUnsupported},
		Summary:  Summary{Files: 3, Records: 3, Documents: 3, Skipped: 1, Bytes: 13 + 21 + 13},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}

func TestWalkErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "a.jsonl", []byte(`{"id":"a","text":"1"}`+"\n"+`{"id":"b","text":"2"}`+"\n"))
	errStop := errors.New("store is full")

	t.Run("missing path stops before reading", func(t *testing.T) {
		calls := 0
		_, err := Walk(context.Background(), []string{good, filepath.Join(dir, "nope.jsonl")}, Options{},
			func(pipeline.Document) error { calls++; return nil }, nil)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("err = %v, want one matching fs.ErrNotExist", err)
		}
		if want := "corpus path " + filepath.Join(dir, "nope.jsonl") + ": no such file or directory"; err.Error() != want {
			t.Errorf("err = %q, want %q", err, want)
		}
		if calls != 0 {
			t.Errorf("fn called %d times before the missing path was reported", calls)
		}
	})
	t.Run("no paths", func(t *testing.T) {
		_, err := Walk(context.Background(), nil, Options{}, nil, nil)
		if !errors.Is(err, pipeline.ErrInvalid) {
			t.Fatalf("err = %v, want one matching pipeline.ErrInvalid", err)
		}
	})
	t.Run("fn error stops the walk", func(t *testing.T) {
		sum, err := Walk(context.Background(), []string{good, good}, Options{},
			func(pipeline.Document) error { return errStop }, nil)
		if !errors.Is(err, errStop) {
			t.Fatalf("err = %v, want errStop", err)
		}
		if want := good + ":1: store is full"; err.Error() != want {
			t.Errorf("err = %q, want %q", err, want)
		}
		if sum.Documents != 1 || sum.Files != 1 {
			t.Errorf("Summary = %+v, want 1 file and 1 document", sum)
		}
	})
	t.Run("cancelled during the walk", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ids []string
		_, err := Walk(ctx, []string{good, good}, Options{}, func(d pipeline.Document) error {
			ids = append(ids, d.ID)
			cancel()
			return nil
		}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if diff := cmp.Diff([]string{"a"}, ids); diff != "" {
			t.Errorf("documents read (-want +got):\n%s", diff)
		}
	})
	t.Run("unreadable file is a problem", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root: file permissions are not enforced")
		}
		locked := writeFile(t, dir, "locked/x.txt", []byte("secret"))
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		var problems []string
		sum, err := Walk(context.Background(), []string{filepath.Dir(locked)}, Options{}, nil,
			func(p Problem) { problems = append(problems, p.String()) })
		if err != nil {
			t.Fatalf("Walk: %v", err)
		}
		want := []string{locked + ": cannot open file: permission denied"}
		if diff := cmp.Diff(want, problems); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
		if sum.Skipped != 1 {
			t.Errorf("Skipped = %d, want 1", sum.Skipped)
		}
	})
}

func TestProgressAddsUpToTotalBytes(t *testing.T) {
	dir := t.TempDir()
	records := numberedLines(50)
	sizes := map[string]int{}
	add := func(name string, data []byte) {
		writeFile(t, dir, name, data)
		sizes[name] = len(data)
	}
	add("c/a.jsonl", records)
	add("c/b.jsonl.gz", gzipped(t, records))
	add("c/cut.jsonl.gz", gzipped(t, records)[:300])
	add("c/notes/x.txt", []byte("Title\n\nBody."))
	add("c/notes/big.md", []byte(strings.Repeat("m", 100)))
	add("c/empty.html", nil)
	add("single.ndjson", records[:500])
	writeFile(t, dir, "c/photo.jpg", []byte("not counted"))

	var want int64
	for _, n := range sizes {
		want += int64(n)
	}
	paths := []string{filepath.Join(dir, "c"), filepath.Join(dir, "single.ndjson")}
	total, err := TotalBytes(paths)
	if err != nil {
		t.Fatalf("TotalBytes: %v", err)
	}
	if total != want {
		t.Errorf("TotalBytes = %d, want %d (the sum of the corpus files' sizes)", total, want)
	}
	var progress int64
	calls := 0
	sum, err := Walk(context.Background(), paths, Options{MaxFieldBytes: 64, Progress: func(n int64) {
		if n <= 0 {
			t.Errorf("Progress(%d): want a positive count", n)
		}
		progress += n
		calls++
	}}, nil, nil)
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if progress != want || sum.Bytes != want {
		t.Errorf("Progress total = %d, Summary.Bytes = %d, want both %d", progress, sum.Bytes, want)
	}
	if calls < len(sizes)-1 {
		t.Errorf("Progress called %d times, want at least once per non-empty file", calls)
	}

	if _, err := TotalBytes([]string{filepath.Join(dir, "missing")}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TotalBytes(missing) error = %v, want one matching fs.ErrNotExist", err)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"with line", Problem{File: "a.jsonl", Line: 12, Reason: "invalid JSON"}, "a.jsonl:12: invalid JSON"},
		{"whole file", Problem{File: "b.jsonl.gz", Reason: "empty file"}, "b.jsonl.gz: empty file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := tt.p.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWalkSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "outside/real.txt", []byte("Real\n\nLinked text."))
	writeFile(t, dir, "outside/more/x.md", []byte("# X"))
	writeFile(t, dir, "c/own.txt", []byte("Own text."))
	for link, target := range map[string]string{
		"c/link.txt":    filepath.Join(dir, "outside", "real.txt"),
		"c/linkdir":     filepath.Join(dir, "outside", "more"),
		"c/broken.txt":  filepath.Join(dir, "outside", "missing.txt"),
		"c/linkpng.png": filepath.Join(dir, "outside", "real.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	got, err := runWalk(t, dir, Options{}, "c")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	var ids []string
	for _, d := range got.Docs {
		ids = append(ids, d.ID+" "+d.Title)
	}
	if diff := cmp.Diff([]string{"link.txt Real", "own.txt Own text."}, ids); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	wantProblems := []string{
		"c/broken.txt: skipped: broken symbolic link",
		"c/linkdir: skipped: symbolic link to a folder (not followed)",
		"c/linkpng.png: skipped: not a .txt/.md/.html/.pdf/.docx file",
	}
	if diff := cmp.Diff(wantProblems, got.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	total, err := TotalBytes([]string{filepath.Join(dir, "c")})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len("Real\n\nLinked text.") + len("Own text.")); total != want || got.Summary.Bytes != want {
		t.Errorf("TotalBytes = %d, Summary.Bytes = %d, want both %d (the linked file's size counts)", total, got.Summary.Bytes, want)
	}
}

func TestWalkDeeplyNestedHTMLIsANotice(t *testing.T) {
	dir := t.TempDir()
	page := "<title>Deep</title>" + strings.Repeat("<div>", 600) + "<p>Still read.</p>"
	writeFile(t, dir, "deep.html", []byte(page))
	got, err := runWalk(t, dir, Options{}, "deep.html")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	want := result{
		Docs: []pipeline.Document{{ID: "deep.html", Title: "Deep", Text: "Still read.", Source: "deep.html",
			Metadata: map[string]string{"path": "deep.html", "format": "html"}}},
		Problems: []string{"deep.html: page read token by token, without its structure: html: open stack of elements exceeds 512 nodes"},
		Summary:  Summary{Files: 1, Records: 1, Documents: 1, Notices: 1, Bytes: int64(len(page))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
}

// A gzip bomb: a small .gz of many megabytes of blank lines and zeros is
// read only up to the content limit, with a Problem naming the file, the
// line it stopped after and the limit; the records before it are kept.
func TestWalkStopsAtTheFileContentLimit(t *testing.T) {
	dir := t.TempDir()
	var data bytes.Buffer
	data.Write(numberedLines(3)) // 3 records of ~215 bytes
	data.Write(bytes.Repeat([]byte("\n"), 8<<20))
	data.Write(numberedLines(3))
	bomb := gzipped(t, data.Bytes())
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes compressed; the test wants a small one", len(bomb))
	}
	writeFile(t, dir, "bomb.jsonl.gz", bomb)
	got, err := runWalk(t, dir, Options{MaxFileBytes: 1 << 20}, "bomb.jsonl.gz")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if len(got.Docs) != 3 {
		t.Errorf("got %d documents, want the 3 before the limit", len(got.Docs))
	}
	want := []string{"bomb.jsonl.gz: reading stopped after line " + strconv.Itoa(1<<20-3*215+3) +
		": the file's content passed the limit of 1 MiB per file (decompressed); the rest of the file was not read"}
	if len(got.Problems) != 1 || !strings.HasPrefix(got.Problems[0], "bomb.jsonl.gz: reading stopped after line ") ||
		!strings.HasSuffix(got.Problems[0], want[0][strings.Index(want[0], ": the file's"):]) {
		t.Errorf("problems %q, want one like %q", got.Problems, want)
	}
	if got.Summary.Skipped != 1 {
		t.Errorf("summary %+v, want one skipped", got.Summary)
	}
}

// A limit on all files together stops the walk: the file that passes it
// ends with a Problem and the files after it are not read.
func TestWalkStopsAtTheTotalContentLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.jsonl", numberedLines(10)) // about 2.1 KiB
	writeFile(t, dir, "b.jsonl.gz", gzipped(t, numberedLines(20)))
	writeFile(t, dir, "c.txt", []byte("A note about canals."))
	got, err := runWalk(t, dir, Options{MaxTotalBytes: 3 << 10}, "a.jsonl", "b.jsonl.gz", "c.txt")
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if len(got.Docs) < 10 || len(got.Docs) >= 30 {
		t.Errorf("got %d documents, want a.jsonl's 10 and some of b's", len(got.Docs))
	}
	if len(got.Problems) != 2 ||
		!strings.Contains(got.Problems[0], "b.jsonl.gz: reading stopped after line ") ||
		!strings.Contains(got.Problems[0], "the limit of 3 KiB for all files together") ||
		got.Problems[1] != "c.txt: not read: the content read passed the limit of 3 KiB for all files together" {
		t.Errorf("problems %q", got.Problems)
	}
}

func TestJSONSyntaxReasonInWords(t *testing.T) {
	for line, want := range map[string]string{
		`{"id": "a", "text": no}`:   `invalid JSON at column 22: a bare word where a value should be (text needs double quotes; only true, false and null go without): …"id": "a", "text": no}`,
		`{id: "a"}`:                 `invalid JSON at column 2: a field name must be in double quotes, found "i": {id: "a"}`,
		`{"id" "a"}`:                `invalid JSON at column 7: expected ":" after a field name, found "\"": {"id" "a"}`,
		`{"id": "a" "text": "b"}`:   `invalid JSON at column 12: expected "," or "}" after a field's value, found "\"": {"id": "a" "text": "b"}`,
		"{\"id\": \"a\tb\"}":        "invalid JSON at column 10: a line break or control character inside quotes (write it as \\n or \\t): {\"id\": \"a\tb\"}",
		`{"id": "a\qb", "text": 1}`: `invalid JSON at column 11: a backslash escape JSON does not have ("q"): {"id": "a\qb", "text": 1}`,
	} {
		var v any
		err := json.Unmarshal([]byte(line), &v)
		var syn *json.SyntaxError
		if !errors.As(err, &syn) {
			t.Fatalf("%s: %v is not a syntax error", line, err)
		}
		if got := jsonSyntaxReason([]byte(line), syn); got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
}
