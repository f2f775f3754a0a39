package judge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

// TestReadJudged: judged sentences are looked up by request and trimmed
// text; a sentence judged both ways, in one file or two, is off topic and
// disputed.
func TestReadJudged(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte("\xef\xbb\xbf"+`{"request_id": "r1", "text": "The tariff rose. ", "on_topic_judge": true, "why": "tariff"}`+"\r\n\n"+
		`{"request_id": 7, "text": "Wool duties.", "on_topic_judge": false}`+"\n"+
		`{"request_id": "r1", "text": "The Navy grew.", "on_topic_judge": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(`{"request_id": "r1", "text": "The Navy grew.", "on_topic_judge": false}`+"\n"+
		`{"request_id": "r1", "text": "The tariff rose.", "on_topic_judge": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := ReadJudgedFiles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if n := j.Sentences(); n != 3 {
		t.Errorf("%d distinct sentences, want 3", n)
	}
	for _, tc := range []struct {
		req, text            string
		on, judged, disputed bool
	}{
		{"r1", "The tariff rose.", true, true, false},
		{"r1", "  The tariff rose.\n", true, true, false},
		{"7", "Wool duties.", false, true, false},
		{"r1", "The Navy grew.", false, true, true},
		{"r2", "The tariff rose.", false, false, false},
		{"r1", "The tariff fell.", false, false, false},
	} {
		on, judged, disputed := j.Lookup(tc.req, tc.text)
		if on != tc.on || judged != tc.judged || disputed != tc.disputed {
			t.Errorf("Lookup(%q, %q) = %t, %t, %t; want %t, %t, %t", tc.req, tc.text, on, judged, disputed, tc.on, tc.judged, tc.disputed)
		}
	}
	var none *Judged
	if _, judged, _ := none.Lookup("r1", "The tariff rose."); judged || none.Sentences() != 0 {
		t.Error("a nil Judged judges something")
	}
}

func TestReadJudgedErrors(t *testing.T) {
	good := `{"request_id": "r1", "text": "a", "on_topic_judge": true}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"bad JSON", good + `{"request_id": "r2", "text": "a"` + "\n", "judged.jsonl:2: bad JSON: unexpected end of JSON input (at column 32)"},
		{"not an object", good + `["r2", "a", true]`, "judged.jsonl:2: not a JSON object"},
		{"missing request_id", `{"text": "a", "on_topic_judge": true}`, "judged.jsonl:1: missing request_id"},
		{"request_id of the wrong type", `{"request_id": ["r1"], "text": "a", "on_topic_judge": true}`, "judged.jsonl:1: request_id must be a string or an integer"},
		{"missing text", `{"request_id": "r1", "on_topic_judge": true}`, `judged.jsonl:1: request "r1": missing text`},
		{"blank text", `{"request_id": "r1", "text": " ", "on_topic_judge": true}`, `judged.jsonl:1: request "r1": missing text`},
		{"missing judgement", `{"request_id": "r1", "text": "a"}`, `judged.jsonl:1: request "r1": missing on_topic_judge (true or false)`},
		{"judgement not a boolean", `{"request_id": "r1", "text": "a", "on_topic_judge": "yes"}`, "judged.jsonl:1: bad JSON"},
		{"empty file", "\n\n", "judged.jsonl: no judged sentences"},
	}
	for _, tc := range tests {
		err := (&Judged{}).ReadJudged(strings.NewReader(tc.in), "judged.jsonl")
		var pe *ParseError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("%s: error %v, want %q (a *ParseError)", tc.name, err, tc.want)
		}
	}
	if _, err := ReadJudgedFiles("no/such/judged.jsonl"); err == nil || !strings.Contains(err.Error(), "open judged sentences") {
		t.Errorf("missing file: %v", err)
	}
}

// TestJudgedMark: Mark sets each judged sentence's JudgedOnTopic and
// pools the share over the reports it is given.
func TestJudgedMark(t *testing.T) {
	j := &Judged{}
	if err := j.ReadJudged(strings.NewReader(`{"request_id": "r1", "text": "On.", "on_topic_judge": true}`+"\n"+
		`{"request_id": "r1", "text": "Off.", "on_topic_judge": false}`+"\n"+
		`{"request_id": "r2", "text": "On too.", "on_topic_judge": true}`+"\n"), "j"); err != nil {
		t.Fatal(err)
	}
	var s JudgedSummary
	r1 := ReportResult{RequestID: "r1", Sentences: []SentenceResult{{Text: "On."}, {Text: "Off."}, {Text: "Unjudged."}}}
	r2 := ReportResult{RequestID: "r2", Sentences: []SentenceResult{{Text: "On too."}}}
	j.Mark(&r1, &s)
	j.Mark(&r2, &s)
	if s.Sentences != 4 || s.Judged != 3 || s.OnTopic != 2 || s.Share == nil || *s.Share != 2.0/3 {
		t.Errorf("summary %+v", s)
	}
	got := r1.Sentences
	if got[0].JudgedOnTopic == nil || !*got[0].JudgedOnTopic || got[1].JudgedOnTopic == nil || *got[1].JudgedOnTopic || got[2].JudgedOnTopic != nil {
		t.Errorf("sentences %+v", got)
	}
	var empty JudgedSummary
	(&Judged{}).Mark(&ReportResult{RequestID: "r1", Sentences: []SentenceResult{{Text: "On."}}}, &empty)
	if empty.Share != nil || empty.Sentences != 1 || empty.Judged != 0 {
		t.Errorf("nothing judged: %+v", empty)
	}
}
