package eval

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestReadRun(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Run
	}{
		{
			name:  "file order is kept",
			input: "1 Q0 b 1 2.5 tag\n1 Q0 a 2 2.5 tag\n2 Q0 a 1 -1 tag\n",
			want: Run{
				"1": {{DocID: "b", Rank: 1, Score: 2.5}, {DocID: "a", Rank: 2, Score: 2.5}},
				"2": {{DocID: "a", Rank: 1, Score: -1}},
			},
		},
		{
			name:  "score notations",
			input: "q Q0 a 0 1e-3 t\nq Q0 b 0 +7 t\nq Q0 c 0 -Inf t\nq Q0 d 0 1e999 t\n",
			want: Run{"q": {
				{DocID: "a", Score: 0.001},
				{DocID: "b", Score: 7},
				{DocID: "c", Score: math.Inf(-1)},
				// Too large for a float64: saturates like C's strtod.
				{DocID: "d", Score: math.Inf(1)},
			}},
		},
		{
			name:  "blank lines comments and CRLF",
			input: "# run\r\n\r\nq Q0 a 1 0.5 t\r\n  # note\r\nq Q0 b 2 0.25 t",
			want:  Run{"q": {{DocID: "a", Rank: 1, Score: 0.5}, {DocID: "b", Rank: 2, Score: 0.25}}},
		},
		{
			name:  "same document in two queries",
			input: "q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\n",
			want:  Run{"q1": {{DocID: "a", Rank: 1, Score: 1}}, "q2": {{DocID: "a", Rank: 1, Score: 1}}},
		},
		{
			name:  "empty input",
			input: "",
			want:  Run{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRun(strings.NewReader(tt.input), "test.run")
			if err != nil {
				t.Fatalf("ReadRun: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadRun mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr string
		line    int
	}{
		{
			name:    "five fields",
			input:   "q Q0 a 1 0.5 t\nq Q0 b 2 0.4\n",
			wantErr: "test.run:2: want 6 fields (qid Q0 docid rank score tag), got 5",
			line:    2,
		},
		{
			name:    "seven fields",
			input:   "q Q0 a 1 0.5 t extra\n",
			wantErr: "test.run:1: want 6 fields (qid Q0 docid rank score tag), got 7",
			line:    1,
		},
		{
			name:    "qrels line in a run",
			input:   "\n\nq 0 a 1\n",
			wantErr: "test.run:3: want 6 fields (qid Q0 docid rank score tag), got 4",
			line:    3,
		},
		{
			name:    "fractional rank",
			input:   "q Q0 a 1.0 0.5 t\n",
			wantErr: `test.run:1: rank "1.0" is not a whole number`,
			line:    1,
		},
		{
			name:    "rank out of range",
			input:   "q Q0 a 99999999999999999999 0.5 t\n",
			wantErr: `test.run:1: rank "99999999999999999999" is out of range`,
			line:    1,
		},
		{
			name:    "score not a number",
			input:   "q Q0 a 1 high t\n",
			wantErr: `test.run:1: score "high" is not a number`,
			line:    1,
		},
		{
			name:    "NaN score",
			input:   "q Q0 a 1 NaN t\n",
			wantErr: `test.run:1: score "NaN" is not a number`,
			line:    1,
		},
		{
			name:    "duplicate document",
			input:   "q Q0 a 1 0.9 t\nq Q0 b 2 0.8 t\nq Q0 a 3 0.7 t\n",
			wantErr: `test.run:3: document "a" retrieved again for query "q" (first on line 1)`,
			line:    3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadRun(strings.NewReader(tt.input), "test.run")
			if err == nil {
				t.Fatalf("ReadRun = %v, want error %q", got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
			checkParseError(t, err, "test.run", tt.line)
		})
	}
}

func TestReadRunReadError(t *testing.T) {
	_, err := ReadRun(io.MultiReader(strings.NewReader("q Q0 a 1 1 t\n"), failingReader{}), "broken.run")
	if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pipeline.ErrInvalid) {
		t.Fatalf("error = %v, want a read error wrapping io.ErrUnexpectedEOF", err)
	}
}

func TestReadRunFile(t *testing.T) {
	got, err := ReadRunFile("testdata/sample.run")
	if err != nil {
		t.Fatalf("ReadRunFile: %v", err)
	}
	want := Run{
		"q1": {{"d1", 1, 2}, {"d2", 2, 1}, {"d10", 3, 1}, {"d3", 4, 1}, {"d9", 5, 0.5}},
		"q2": {{"c", 1, 0.9}, {"e", 2, 0.8}, {"a", 3, 0.7}, {"x", 4, 0.6}, {"b", 5, 0.5}, {"d", 6, 0.4}},
		"q3": {{"g", 1, 1}, {"z", 2, 0.5}},
		"q5": {{"y", 1, 3}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadRunFile mismatch (-want +got):\n%s", diff)
	}

	_, err = ReadRunFile("testdata/no-such.run")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "testdata/no-such.run") {
		t.Errorf("missing file: error = %v, want a not-exist error naming the path", err)
	}
}

func TestWriteRun(t *testing.T) {
	entries := []RunEntry{
		{DocID: "d1", Rank: 1, Score: 12.25},
		{DocID: "d2", Rank: 2, Score: math.Nextafter(0.3, 1)}, // 0.30000000000000004
		{DocID: "d3", Rank: 3, Score: 1e-7},
		{DocID: "d4", Rank: 4, Score: -3},
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, "q7", entries, "bm25"); err != nil {
		t.Fatalf("WriteRun: %v", err)
	}
	want := "q7 Q0 d1 1 12.25 bm25\n" +
		"q7 Q0 d2 2 0.30000000000000004 bm25\n" +
		"q7 Q0 d3 3 1e-07 bm25\n" +
		"q7 Q0 d4 4 -3 bm25\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteRun mismatch (-want +got):\n%s", diff)
	}

	// Scores survive exactly, so a re-read run ranks the same way.
	back, err := ReadRun(&buf, "written")
	if err != nil {
		t.Fatalf("ReadRun of written run: %v", err)
	}
	if diff := cmp.Diff(Run{"q7": entries}, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteRunRejects(t *testing.T) {
	ok := []RunEntry{{DocID: "d", Rank: 1, Score: 1}}
	tests := []struct {
		name    string
		qid     string
		entries []RunEntry
		tag     string
		wantErr string
	}{
		{name: "empty query id", qid: "", entries: ok, tag: "t", wantErr: "query id is empty"},
		{name: "space in query id", qid: "q 1", entries: ok, tag: "t", wantErr: `query id "q 1" contains whitespace`},
		{name: "comment query id", qid: "#q", entries: ok, tag: "t", wantErr: `query id "#q" starts with '#'`},
		{name: "empty tag", qid: "q", entries: ok, tag: "", wantErr: "run tag is empty"},
		{name: "newline in tag", qid: "q", entries: ok, tag: "a\nb", wantErr: `run tag "a\nb" contains whitespace`},
		{
			name: "space in document id", qid: "q", tag: "t",
			entries: []RunEntry{{DocID: "ok"}, {DocID: "bad id"}},
			wantErr: `query "q" entry 2: invalid input: document id "bad id" contains whitespace`,
		},
		{
			name: "NaN score", qid: "q", tag: "t",
			entries: []RunEntry{{DocID: "d", Score: math.NaN()}},
			wantErr: `query "q" document "d": score is NaN`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteRun(&buf, tt.qid, tt.entries, tt.tag)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("WriteRun error = %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("WriteRun wrote %q before failing", buf.String())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriteRunWriteError(t *testing.T) {
	err := WriteRun(failingWriter{}, "q", []RunEntry{{DocID: "d", Rank: 1, Score: 1}}, "t")
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("error = %v, want it to wrap io.ErrClosedPipe", err)
	}
}

func TestRanked(t *testing.T) {
	tests := []struct {
		name    string
		entries []RunEntry
		want    []string
	}{
		{
			name: "score descending, rank column ignored",
			entries: []RunEntry{
				{DocID: "a", Rank: 1, Score: 0.1},
				{DocID: "b", Rank: 2, Score: 0.9},
				{DocID: "c", Rank: 3, Score: 0.5},
			},
			want: []string{"b", "c", "a"},
		},
		{
			// strcmp descending: "d9" > "d3" > "d2" > "d10" byte by byte.
			name: "ties by document id descending",
			entries: []RunEntry{
				{DocID: "d10", Score: 1}, {DocID: "d2", Score: 1},
				{DocID: "d9", Score: 1}, {DocID: "d3", Score: 1},
				{DocID: "top", Score: 2},
			},
			want: []string{"top", "d9", "d3", "d2", "d10"},
		},
		{
			name:    "ties compare bytes, so lower case ranks above upper case",
			entries: []RunEntry{{DocID: "B", Score: 0}, {DocID: "a", Score: 0}, {DocID: "A", Score: 0}},
			want:    []string{"a", "B", "A"},
		},
		{
			name:    "negative zero ties with zero",
			entries: []RunEntry{{DocID: "a", Score: math.Copysign(0, -1)}, {DocID: "b", Score: 0}},
			want:    []string{"b", "a"},
		},
		{
			// The duplicate's best entry (0.7) stands; the 0.2 one is dropped.
			name: "duplicate document keeps its highest score",
			entries: []RunEntry{
				{DocID: "a", Score: 0.2}, {DocID: "b", Score: 0.5},
				{DocID: "a", Score: 0.7}, {DocID: "c", Score: 0.3},
			},
			want: []string{"a", "b", "c"},
		},
		{
			name:    "NaN last",
			entries: []RunEntry{{DocID: "n", Score: math.NaN()}, {DocID: "m", Score: -1}},
			want:    []string{"m", "n"},
		},
		{
			name:    "empty",
			entries: nil,
			want:    []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := append([]RunEntry(nil), tt.entries...)
			ranked := Ranked(tt.entries)
			got := []string{}
			for _, e := range ranked {
				got = append(got, e.DocID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Ranked order mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(input, tt.entries, cmp.Comparer(sameFloat)); diff != "" {
				t.Errorf("Ranked modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// sameFloat compares floats treating NaN as equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestRankedKeepsBestDuplicateScore(t *testing.T) {
	got := Ranked([]RunEntry{{DocID: "a", Rank: 9, Score: 0.2}, {DocID: "a", Rank: 1, Score: 0.7}})
	want := []RunEntry{{DocID: "a", Rank: 1, Score: 0.7}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Ranked mismatch (-want +got):\n%s", diff)
	}
}

func TestEntriesFromHits(t *testing.T) {
	hits := []pipeline.Hit{
		{Rank: 1, Score: 9, DocID: "a", PassageID: "a#2"},
		{Rank: 2, Score: 8, DocID: "b", PassageID: "b#0"},
		{Rank: 3, Score: 7, DocID: "a", PassageID: "a#0"},
		{Rank: 4, Score: 6, DocID: "c", PassageID: "c#1"},
	}
	want := []RunEntry{
		{DocID: "a", Rank: 1, Score: 9},
		{DocID: "b", Rank: 2, Score: 8},
		{DocID: "c", Rank: 3, Score: 6},
	}
	if diff := cmp.Diff(want, EntriesFromHits(hits)); diff != "" {
		t.Errorf("EntriesFromHits mismatch (-want +got):\n%s", diff)
	}
	if got := EntriesFromHits(nil); len(got) != 0 {
		t.Errorf("EntriesFromHits(nil) = %v, want empty", got)
	}
}

func FuzzReadRun(f *testing.F) {
	for _, seed := range []string{
		"q Q0 a 1 0.5 t\nq Q0 b 2 0.5 t\n",
		"# c\r\n\r\nq Q0 a 1 -Inf t",
		"q Q0 a 1 0.5\n",
		"q Q0 a x 0.5 t\n",
		"q Q0 a 1 NaN t\n",
		"q Q0 a 1 1 t\nq Q0 a 2 1 t\n",
		"q Q0 a 1 0x1p-2 t extra\n",
		"\x00 Q0 \xff -0 -0 t\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		run, err := ReadRun(bytes.NewReader(input), "fuzz.input")
		if err != nil {
			checkFuzzError(t, err, input)
			return
		}
		// What was read must write out and read back unchanged.
		var buf bytes.Buffer
		for _, qid := range sortedKeys(run) {
			if err := WriteRun(&buf, qid, run[qid], "fuzz"); err != nil {
				t.Fatalf("WriteRun of parsed query %q: %v", qid, err)
			}
		}
		back, err := ReadRun(&buf, "rewritten")
		if err != nil {
			t.Fatalf("ReadRun of rewritten run: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(run, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
		// Ranking never panics and never keeps a document twice.
		for qid, entries := range run {
			seen := map[string]bool{}
			for _, e := range Ranked(entries) {
				if seen[e.DocID] {
					t.Fatalf("query %q: Ranked kept %q twice", qid, e.DocID)
				}
				seen[e.DocID] = true
			}
		}
	})
}

func TestRankedByRank(t *testing.T) {
	tests := []struct {
		name    string
		entries []RunEntry
		want    []string
	}{
		{
			name: "rank ascending, scores ignored",
			entries: []RunEntry{
				{DocID: "a", Rank: 3, Score: 0.9},
				{DocID: "b", Rank: 1, Score: 0.1},
				{DocID: "c", Rank: 2, Score: 0.5},
			},
			want: []string{"b", "c", "a"},
		},
		{
			// Rank 1 twice: score descending, then id descending ("d9" > "d10").
			name: "equal ranks in trec_eval order",
			entries: []RunEntry{
				{DocID: "d10", Rank: 1, Score: 1}, {DocID: "low", Rank: 1, Score: 0.5},
				{DocID: "d9", Rank: 1, Score: 1}, {DocID: "first", Rank: 0, Score: -1},
			},
			want: []string{"first", "d9", "d10", "low"},
		},
		{
			// a's rank 1 entry stands; its rank 4 copy is dropped.
			name: "duplicate document keeps its lowest rank",
			entries: []RunEntry{
				{DocID: "a", Rank: 4, Score: 0.9}, {DocID: "b", Rank: 2, Score: 0.5},
				{DocID: "a", Rank: 1, Score: 0.1},
			},
			want: []string{"a", "b"},
		},
		{
			name:    "empty",
			entries: nil,
			want:    []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := append([]RunEntry(nil), tt.entries...)
			got := []string{}
			for _, e := range RankedByRank(tt.entries) {
				got = append(got, e.DocID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RankedByRank order mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(input, tt.entries); diff != "" {
				t.Errorf("RankedByRank modified its input (-before +after):\n%s", diff)
			}
		})
	}
}
