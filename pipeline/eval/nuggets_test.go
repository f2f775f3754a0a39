package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestReadNuggetQrels(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  NuggetQrels
	}{
		{
			name:  "basic",
			input: "q1 n1 a 1\nq1 n2 a 1\nq1 n1 b 0\nq2 n1 a 3\n",
			want: NuggetQrels{
				"q1": {"a": {"n1": 1, "n2": 1}, "b": {"n1": 0}},
				"q2": {"a": {"n1": 3}},
			},
		},
		{
			name:  "negative grade and explicit plus sign",
			input: "q n a -1\nq n b +2\n",
			want:  NuggetQrels{"q": {"a": {"n": -1}, "b": {"n": 2}}},
		},
		{
			name:  "blank lines comments CRLF and no final newline",
			input: "# qid nugget docid grade\r\n\r\nq n a 1\r\n  \t# indented comment\nq n b 1",
			want:  NuggetQrels{"q": {"a": {"n": 1}, "b": {"n": 1}}},
		},
		{
			name:  "tabs and runs of spaces",
			input: "q\tn1 \t a   1 \t\n",
			want:  NuggetQrels{"q": {"a": {"n1": 1}}},
		},
		{
			// The same document for two nuggets, and the same nugget and
			// document for two queries, are different judgements.
			name:  "same ids in other judgements",
			input: "q n a 1\nq m a 1\nr n a 0\n",
			want:  NuggetQrels{"q": {"a": {"n": 1, "m": 1}}, "r": {"a": {"n": 0}}},
		},
		{
			name:  "empty input",
			input: "",
			want:  NuggetQrels{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadNuggetQrels(strings.NewReader(tt.input), "test.nuggets")
			if err != nil {
				t.Fatalf("ReadNuggetQrels: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadNuggetQrels mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadNuggetQrelsErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr string
		line    int
	}{
		{
			name:    "three fields: a TREC run-less triple",
			input:   "q n a 1\nq n b\n",
			wantErr: "test.nuggets:2: want 4 fields (qid nugget_id docid grade), got 3",
			line:    2,
		},
		{
			name:    "five fields",
			input:   "q n a 1 extra\n",
			wantErr: "test.nuggets:1: want 4 fields (qid nugget_id docid grade), got 5",
			line:    1,
		},
		{
			name:    "single field after comment and blank line",
			input:   "# c\n\nq\n",
			wantErr: "test.nuggets:3: want 4 fields (qid nugget_id docid grade), got 1",
			line:    3,
		},
		{
			name:    "fractional grade",
			input:   "q n a 0.5\n",
			wantErr: `test.nuggets:1: grade "0.5" is not a whole number`,
			line:    1,
		},
		{
			name:    "word for a grade",
			input:   "q n a yes\n",
			wantErr: `test.nuggets:1: grade "yes" is not a whole number`,
			line:    1,
		},
		{
			name:    "grade out of range",
			input:   "q n a 99999999999999999999\n",
			wantErr: `test.nuggets:1: grade "99999999999999999999" is out of range`,
			line:    1,
		},
		{
			name:    "duplicate judgement",
			input:   "q n a 1\nq m a 1\nq n a 0\n",
			wantErr: `test.nuggets:3: document "a" judged again for nugget "n" of query "q" (first on line 1)`,
			line:    3,
		},
		{
			name:    "line too long",
			input:   "q n a 1\n" + strings.Repeat("x", maxLineBytes+1) + "\n",
			wantErr: fmt.Sprintf("test.nuggets:2: line longer than %d bytes", maxLineBytes),
			line:    2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadNuggetQrels(strings.NewReader(tt.input), "test.nuggets")
			if err == nil {
				t.Fatalf("ReadNuggetQrels = %v, want error %q", got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
			checkParseError(t, err, "test.nuggets", tt.line)
		})
	}
}

func TestReadNuggetQrelsReadError(t *testing.T) {
	_, err := ReadNuggetQrels(failingReader{}, "broken.nuggets")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v, want it to wrap io.ErrUnexpectedEOF", err)
	}
	if errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("a read failure %v must not be reported as invalid input", err)
	}
	if !strings.Contains(err.Error(), "broken.nuggets") {
		t.Errorf("error %q does not name the input", err)
	}
}

func TestReadNuggetQrelsFile(t *testing.T) {
	got, err := ReadNuggetQrelsFile("testdata/sample.nuggets")
	if err != nil {
		t.Fatalf("ReadNuggetQrelsFile: %v", err)
	}
	want := NuggetQrels{
		"q1": {"d1": {"n1": 1, "n2": 1}, "d3": {"n2": 1}, "d5": {"n1": 0}, "d9": {"n3": 1}},
		"q3": {"g": {"n1": 0}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadNuggetQrelsFile mismatch (-want +got):\n%s", diff)
	}

	_, err = ReadNuggetQrelsFile("testdata/no-such.nuggets")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "testdata/no-such.nuggets") {
		t.Errorf("missing file: error = %v, want a not-exist error naming the path", err)
	}
}

func TestAddNugget(t *testing.T) {
	n := NuggetQrels{}
	steps := []struct {
		qid, nugget string
		docs        []string
	}{
		{"q", "n1", []string{"a", "b"}},
		{"q", "n2", []string{"b", "b"}}, // repeated document: recorded once
		{"q", "n3", nil},                // no covering document: adds nothing
		{"r", "n1", []string{"a"}},
	}
	for _, s := range steps {
		if err := n.AddNugget(s.qid, s.nugget, s.docs); err != nil {
			t.Fatalf("AddNugget(%q, %q, %q): %v", s.qid, s.nugget, s.docs, err)
		}
	}
	want := NuggetQrels{
		"q": {"a": {"n1": 1}, "b": {"n1": 1, "n2": 1}},
		"r": {"a": {"n1": 1}},
	}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("AddNugget result mismatch (-want +got):\n%s", diff)
	}

	// A covering judgement replaces an earlier non-covering one.
	read, err := ReadNuggetQrels(strings.NewReader("q n a 0\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := read.AddNugget("q", "n", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got := read["q"]["a"]["n"]; got != 1 {
		t.Errorf("grade after AddNugget = %d, want 1", got)
	}
}

func TestAddNuggetRejects(t *testing.T) {
	tests := []struct {
		name        string
		qid, nugget string
		docs        []string
		wantErr     string
	}{
		{name: "empty query id", qid: "", nugget: "n", docs: []string{"a"}, wantErr: "query id is empty"},
		{name: "comment query id", qid: "#q", nugget: "n", docs: []string{"a"}, wantErr: `query id "#q" starts with '#'`},
		{name: "empty nugget id", qid: "q", nugget: "", docs: []string{"a"}, wantErr: `query "q": invalid input: nugget id is empty`},
		{name: "space in nugget id", qid: "q", nugget: "n 1", docs: []string{"a"}, wantErr: `nugget id "n 1" contains whitespace`},
		{
			name: "empty document id after a good one", qid: "q", nugget: "n", docs: []string{"a", ""},
			wantErr: `query "q" nugget "n": invalid input: document id is empty`,
		},
		{name: "tab in document id", qid: "q", nugget: "n", docs: []string{"a\tb"}, wantErr: `document id "a\tb" contains whitespace`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NuggetQrels{}
			err := n.AddNugget(tt.qid, tt.nugget, tt.docs)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("AddNugget error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
			if len(n) != 0 {
				t.Errorf("AddNugget changed the judgements before failing: %v", n)
			}
		})
	}
}

func TestNuggetQrelsNuggets(t *testing.T) {
	n := NuggetQrels{
		"q": {"a": {"n2": 1, "n1": 2}, "b": {"n1": 1, "n3": 0}, "c": {"n4": -1}},
		"z": {"a": {"n1": 0}},
	}
	tests := []struct {
		name string
		qid  string
		want []string
	}{
		// n3 and n4 are judged but never covered: not nuggets of q.
		{name: "covered nuggets in byte order", qid: "q", want: []string{"n1", "n2"}},
		{name: "only non-covering judgements", qid: "z", want: nil},
		{name: "unknown query", qid: "other", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, n.Nuggets(tt.qid)); diff != "" {
				t.Errorf("Nuggets(%q) mismatch (-want +got):\n%s", tt.qid, diff)
			}
		})
	}
}

func TestNuggetQrelsQrels(t *testing.T) {
	n := NuggetQrels{
		"q": {"a": {"n1": 1, "n2": 3}, "b": {"n1": 1, "n3": 0}, "c": {"n1": 0, "n2": -2}},
		"z": {"d": {"n1": 0}},
	}
	// a covers n1 and n2 (3 counts once: coverage is binary): 2; b covers
	// n1: 1; c covers nothing: judged 0.
	want := Qrels{"q": {"a": 2, "b": 1, "c": 0}, "z": {"d": 0}}
	if diff := cmp.Diff(want, n.Qrels()); diff != "" {
		t.Errorf("Qrels mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteNuggetQrels(t *testing.T) {
	n := NuggetQrels{
		"q2":  {"b": {"n2": 1, "n1": 0}, "a": {"n2": -1}},
		"q10": {"z": {"n": 3}},
	}
	var buf bytes.Buffer
	if err := WriteNuggetQrels(&buf, n); err != nil {
		t.Fatalf("WriteNuggetQrels: %v", err)
	}
	// Byte order of query ("q10" < "q2"), then nugget, then document.
	want := "q10 n z 3\nq2 n1 b 0\nq2 n2 a -1\nq2 n2 b 1\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteNuggetQrels mismatch (-want +got):\n%s", diff)
	}
	back, err := ReadNuggetQrels(&buf, "written")
	if err != nil {
		t.Fatalf("ReadNuggetQrels of written judgements: %v", err)
	}
	if diff := cmp.Diff(n, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteNuggetQrelsRejects(t *testing.T) {
	tests := []struct {
		name    string
		n       NuggetQrels
		wantErr string
	}{
		{name: "empty query id", n: NuggetQrels{"": {"a": {"n": 1}}}, wantErr: "query id is empty"},
		{name: "comment query id", n: NuggetQrels{"#1": {"a": {"n": 1}}}, wantErr: `query id "#1" starts with '#'`},
		{name: "space in document id", n: NuggetQrels{"q": {"a b": {"n": 1}}}, wantErr: `document id "a b" contains whitespace`},
		{name: "empty nugget id", n: NuggetQrels{"q": {"a": {"": 1}}}, wantErr: `query "q" document "a": invalid input: nugget id is empty`},
		{
			// The bad id is in the second query: nothing of the first is written.
			name:    "newline in nugget id of a later query",
			n:       NuggetQrels{"a": {"d": {"n": 1}}, "b": {"d": {"x\ny": 1}}},
			wantErr: `nugget id "x\ny" contains whitespace`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteNuggetQrels(&buf, tt.n)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("WriteNuggetQrels error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("WriteNuggetQrels wrote %q before failing", buf.String())
			}
		})
	}
}

func TestWriteNuggetQrelsWriteError(t *testing.T) {
	err := WriteNuggetQrels(failingWriter{}, NuggetQrels{"q": {"a": {"n": 1}}})
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("error = %v, want it to wrap io.ErrClosedPipe", err)
	}
}

func FuzzReadNuggetQrels(f *testing.F) {
	for _, seed := range []string{
		"q n1 a 1\nq n2 a 0\nr n1 b 2\n",
		"# qid nugget docid grade\r\n\r\nq n a -1",
		"q n a\n",
		"q n a 1.5\n",
		"q n a 1\nq n a 1\n",
		"q n a 1 extra\n",
		"\x00 \xff # +7\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		n, err := ReadNuggetQrels(bytes.NewReader(input), "fuzz.input")
		if err != nil {
			checkFuzzError(t, err, input)
			return
		}
		// What was read must write out and read back unchanged.
		var buf bytes.Buffer
		if err := WriteNuggetQrels(&buf, n); err != nil {
			t.Fatalf("WriteNuggetQrels of parsed judgements: %v", err)
		}
		back, err := ReadNuggetQrels(&buf, "rewritten")
		if err != nil {
			t.Fatalf("ReadNuggetQrels of rewritten judgements: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(n, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
		// The nugget measures never panic on what was read, and stay in
		// [0, 1] for coverage.
		for qid, judgements := range n {
			var entries []RunEntry
			for docID := range judgements {
				entries = append(entries, RunEntry{DocID: docID, Score: 1})
			}
			r := NewRankingWithNuggets(qid, nil, judgements, entries)
			for _, m := range []Measure{AlphaNDCG(3, DefaultAlpha), Coverage(3)} {
				v := m.Compute(r)
				if v < 0 || v != v {
					t.Fatalf("%s = %v for query %q", m.Name, v, qid)
				}
			}
			if c := Coverage(len(entries) + 1).Compute(r); hasNuggets(r) && c != 1 {
				t.Fatalf("coverage of every judged document = %v, want 1", c)
			}
		}
	})
}
