package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestReadQrels(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Qrels
	}{
		{
			name:  "basic",
			input: "1 0 doc1 1\n1 0 doc2 0\n2 0 doc1 2\n",
			want:  Qrels{"1": {"doc1": 1, "doc2": 0}, "2": {"doc1": 2}},
		},
		{
			name:  "negative grade and explicit plus sign",
			input: "q 0 a -1\nq 0 b +2\n",
			want:  Qrels{"q": {"a": -1, "b": 2}},
		},
		{
			name:  "blank lines comments and no final newline",
			input: "\n# header\nq 0 a 1\n   \n\t# indented comment\nq 0 b 0",
			want:  Qrels{"q": {"a": 1, "b": 0}},
		},
		{
			name:  "CRLF line ends",
			input: "q 0 a 1\r\nq 0 b 2\r\n\r\n",
			want:  Qrels{"q": {"a": 1, "b": 2}},
		},
		{
			name:  "tabs and runs of spaces",
			input: "q\tQ0\t a   3 \t\n",
			want:  Qrels{"q": {"a": 3}},
		},
		{
			// Only ASCII whitespace separates fields, as with C isspace.
			name:  "non-breaking space stays inside an id",
			input: "q 0 a\u00a0b 1\n",
			want:  Qrels{"q": {"a\u00a0b": 1}},
		},
		{
			name:  "empty input",
			input: "",
			want:  Qrels{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadQrels(strings.NewReader(tt.input), "test.qrels")
			if err != nil {
				t.Fatalf("ReadQrels: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadQrels mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadQrelsErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr string
		line    int
	}{
		{
			name:    "three fields",
			input:   "q 0 a 1\nq 0 b\n",
			wantErr: "test.qrels:2: want 4 fields (qid iter docid grade), got 3",
			line:    2,
		},
		{
			name:    "five fields",
			input:   "q 0 a 1 extra\n",
			wantErr: "test.qrels:1: want 4 fields (qid iter docid grade), got 5",
			line:    1,
		},
		{
			name:    "single field after a blank line",
			input:   "q 0 a 1\n\nq\n",
			wantErr: "test.qrels:3: want 4 fields (qid iter docid grade), got 1",
			line:    3,
		},
		{
			name:    "fractional grade",
			input:   "q 0 a 1.5\n",
			wantErr: `test.qrels:1: grade "1.5" is not a whole number`,
			line:    1,
		},
		{
			name:    "word for a grade",
			input:   "q 0 a rel\n",
			wantErr: `test.qrels:1: grade "rel" is not a whole number`,
			line:    1,
		},
		{
			name:    "grade out of range",
			input:   "q 0 a 99999999999999999999\n",
			wantErr: `test.qrels:1: grade "99999999999999999999" is out of range`,
			line:    1,
		},
		{
			name:    "duplicate judgement",
			input:   "q 0 a 1\nq 0 b 0\nq 0 a 1\n",
			wantErr: `test.qrels:3: document "a" judged again for query "q" (first on line 1)`,
			line:    3,
		},
		{
			name:    "line too long",
			input:   "q 0 a 1\n" + strings.Repeat("x", maxLineBytes+1) + "\n",
			wantErr: fmt.Sprintf("test.qrels:2: line longer than %d bytes", maxLineBytes),
			line:    2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadQrels(strings.NewReader(tt.input), "test.qrels")
			if err == nil {
				t.Fatalf("ReadQrels = %v, want error %q", got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
			checkParseError(t, err, "test.qrels", tt.line)
		})
	}
}

// checkParseError asserts err is a *ParseError for file and line that
// wraps pipeline.ErrInvalid.
func checkParseError(t *testing.T, err error, file string, line int) {
	t.Helper()
	if !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.File != file || pe.Line != line {
		t.Errorf("ParseError at %s:%d, want %s:%d", pe.File, pe.Line, file, line)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestReadQrelsReadError(t *testing.T) {
	_, err := ReadQrels(failingReader{}, "broken.qrels")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v, want it to wrap io.ErrUnexpectedEOF", err)
	}
	if errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("a read failure %v must not be reported as invalid input", err)
	}
	if !strings.Contains(err.Error(), "broken.qrels") {
		t.Errorf("error %q does not name the input", err)
	}
}

func TestReadQrelsFile(t *testing.T) {
	got, err := ReadQrelsFile("testdata/sample.qrels")
	if err != nil {
		t.Fatalf("ReadQrelsFile: %v", err)
	}
	want := Qrels{
		"q1": {"d1": 1, "d3": 1, "d5": 0},
		"q2": {"a": 3, "b": 2, "c": 1, "d": 0, "e": -1, "f": 2},
		"q3": {"g": 0, "h": 0},
		"q4": {"m": 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadQrelsFile mismatch (-want +got):\n%s", diff)
	}

	_, err = ReadQrelsFile("testdata/no-such.qrels")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "testdata/no-such.qrels") {
		t.Errorf("missing file: error = %v, want a not-exist error naming the path", err)
	}
}

func TestQrelsNumRelevant(t *testing.T) {
	q := Qrels{"q": {"a": 2, "b": 1, "c": 0, "d": -1}}
	tests := []struct {
		name string
		qid  string
		want int
	}{
		{name: "grades 1 and above count", qid: "q", want: 2},
		{name: "unknown query", qid: "other", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := q.NumRelevant(tt.qid); got != tt.want {
				t.Errorf("NumRelevant(%q) = %d, want %d", tt.qid, got, tt.want)
			}
		})
	}
}

func TestWriteQrels(t *testing.T) {
	q := Qrels{"q2": {"b": 0, "a": -1}, "q10": {"z": 3}}
	var buf bytes.Buffer
	if err := WriteQrels(&buf, q); err != nil {
		t.Fatalf("WriteQrels: %v", err)
	}
	// Byte order: "q10" < "q2".
	want := "q10 0 z 3\nq2 0 a -1\nq2 0 b 0\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteQrels mismatch (-want +got):\n%s", diff)
	}
	back, err := ReadQrels(&buf, "written")
	if err != nil {
		t.Fatalf("ReadQrels of written qrels: %v", err)
	}
	if diff := cmp.Diff(q, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteQrelsRejects(t *testing.T) {
	tests := []struct {
		name    string
		qrels   Qrels
		wantErr string
	}{
		{name: "empty query id", qrels: Qrels{"": {"a": 1}}, wantErr: "query id is empty"},
		{name: "space in query id", qrels: Qrels{"a b": {"a": 1}}, wantErr: `query id "a b" contains whitespace`},
		{name: "comment query id", qrels: Qrels{"#1": {"a": 1}}, wantErr: `query id "#1" starts with '#'`},
		{name: "tab in document id", qrels: Qrels{"q": {"a\tb": 1}}, wantErr: `document id "a\tb" contains whitespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteQrels(&buf, tt.qrels)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("WriteQrels error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("WriteQrels wrote %q before failing", buf.String())
			}
		})
	}
}

// parseErrorPrefix matches the FILE:LINE: prefix of every parse error.
var parseErrorPrefix = regexp.MustCompile(`^fuzz\.input:([0-9]+): \S`)

// checkFuzzError asserts a reader error is a well-formed parse error whose
// line exists in input.
func checkFuzzError(t *testing.T, err error, input []byte) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrInvalid) {
		t.Fatalf("error %v (%T) is not a ParseError wrapping ErrInvalid", err, err)
	}
	if !parseErrorPrefix.MatchString(err.Error()) {
		t.Fatalf("error %q does not start with FILE:LINE: reason", err)
	}
	lines := bytes.Count(input, []byte("\n")) + 1
	if pe.Line < 1 || pe.Line > lines {
		t.Fatalf("error line %d outside the input's %d lines", pe.Line, lines)
	}
}

func FuzzReadQrels(f *testing.F) {
	for _, seed := range []string{
		"1 0 doc1 1\n1 0 doc2 0\n",
		"q 0 a -1\r\nq 0 b 2\r\n",
		"# c\n\nq 0 a 1",
		"q 0 a\n",
		"q 0 a 1.5\n",
		"q 0 a 1\nq 0 a 2\n",
		"q 0 a 1 x\n",
		"\x00 0 \xff 7\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		q, err := ReadQrels(bytes.NewReader(input), "fuzz.input")
		if err != nil {
			checkFuzzError(t, err, input)
			return
		}
		// What was read must write out and read back unchanged.
		var buf bytes.Buffer
		if err := WriteQrels(&buf, q); err != nil {
			t.Fatalf("WriteQrels of parsed qrels: %v", err)
		}
		back, err := ReadQrels(&buf, "rewritten")
		if err != nil {
			t.Fatalf("ReadQrels of rewritten qrels: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(q, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}
