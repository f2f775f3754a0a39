package judge

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// summhayDir is the SummHay news data set, relative to this package.
const summhayDir = "../../../shared/datasets/summhay-news/"

func TestReadNuggets(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"request_id": "r1", "nugget_id": "n1", "question": " How much? ", "answers": ["12 million euros", "€12m"], "importance": "vital"}` + "\r\n" +
		"\n" +
		`{"qid": "r1", "nugget_id": "n2", "name": "Closure", "text": "Foot Locker closes its Hong Kong stores.", "docids": ["d1", "d2"]}` + "\n" +
		`{"request_id": 300, "qid": "300", "nugget_id": 7, "answers": "1803", "importance": "OKAY"}` + "\n" +
		`{"request_id": "r2", "nugget_id": "n1", "question": "When?", "answers": ["1803"], "text": "It was 1803.", "importance": null, "extra": {"x": 1}}`
	got, err := ReadNuggets(strings.NewReader(in), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Nugget{
		{RequestID: "r1", ID: "n1", Question: "How much?", Answers: []string{"12 million euros", "€12m"}, Importance: Vital},
		{RequestID: "r1", ID: "n2", Name: "Closure", Text: "Foot Locker closes its Hong Kong stores.", Importance: Okay, DocIDs: []string{"d1", "d2"}},
		{RequestID: "300", ID: "7", Answers: []string{"1803"}, Importance: Okay},
		{RequestID: "r2", ID: "n1", Question: "When?", Answers: []string{"1803"}, Text: "It was 1803.", Importance: Okay},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nuggets (-want +got):\n%s", diff)
	}
	if got[0].IsClaim() || !got[1].IsClaim() || got[3].IsClaim() {
		t.Errorf("IsClaim wrong: %t %t %t", got[0].IsClaim(), got[1].IsClaim(), got[3].IsClaim())
	}
	if diff := cmp.Diff([]string{"300", "r1", "r2"}, RequestIDs(got)); diff != "" {
		t.Errorf("RequestIDs (-want +got):\n%s", diff)
	}
	by := ByRequest(got)
	if len(by["r1"]) != 2 || by["r1"][1].ID != "n2" || len(by["r2"]) != 1 {
		t.Errorf("ByRequest = %+v", by)
	}
}

func TestReadNuggetsErrors(t *testing.T) {
	good := `{"request_id": "r1", "nugget_id": "n1", "answers": ["a"]}` + "\n"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"bad JSON", good + `{"request_id": "r1", "nugget_id": "n2", "answers": ["a"]` + "\n",
			"gold.jsonl:2: bad JSON: unexpected end of JSON input (at column 56)"},
		{"not an object", good + "\n" + `["r1", "n2"]`, "gold.jsonl:3: not a JSON object"},
		{"null line", `null`, "gold.jsonl:1: not a JSON object"},
		{"missing request_id", `{"nugget_id": "n1", "answers": ["a"]}`, "gold.jsonl:1: missing request_id (or qid)"},
		{"blank request_id", `{"request_id": " ", "nugget_id": "n1", "answers": ["a"]}`, "gold.jsonl:1: missing request_id (or qid)"},
		{"request_id of the wrong type", `{"request_id": 1.5, "nugget_id": "n1", "answers": ["a"]}`,
			"gold.jsonl:1: request_id must be a string or an integer"},
		{"request_id and qid disagree", `{"request_id": "r1", "qid": "r2", "nugget_id": "n1", "answers": ["a"]}`,
			`gold.jsonl:1: request_id "r1" and qid "r2" disagree`},
		{"missing nugget_id", good + `{"request_id": "r1", "answers": ["a"]}`, "gold.jsonl:2: missing nugget_id"},
		{"nugget_id of the wrong type", `{"request_id": "r1", "nugget_id": ["n1"], "answers": ["a"]}`,
			"gold.jsonl:1: nugget_id must be a string or an integer"},
		{"neither answers nor text", `{"request_id": "r1", "nugget_id": "n1", "question": "Why?"}`,
			`gold.jsonl:1: nugget "n1" has neither answers nor text`},
		{"empty answers and blank text", `{"request_id": "r1", "nugget_id": "n1", "answers": [], "text": "  "}`,
			`gold.jsonl:1: nugget "n1" has neither answers nor text`},
		{"blank answer", `{"request_id": "r1", "nugget_id": "n1", "answers": ["a", " "]}`, "gold.jsonl:1: answers[1] is blank"},
		{"answers of the wrong type", `{"request_id": "r1", "nugget_id": "n1", "answers": [1, 2]}`,
			"gold.jsonl:1: answers must be a list of strings"},
		{"bad importance", `{"request_id": "r1", "nugget_id": "n1", "answers": ["a"], "importance": "high"}`,
			`gold.jsonl:1: importance "high" is neither "vital" nor "okay"`},
		{"duplicate nugget_id", good + "\n" + `{"qid": "r1", "nugget_id": "n1", "text": "x"}`,
			`gold.jsonl:3: duplicate nugget_id "n1" for request "r1" (first on line 1)`},
		{"field of the wrong type", `{"request_id": "r1", "nugget_id": "n1", "question": 5, "answers": ["a"]}`,
			"gold.jsonl:1: bad JSON: field question has a JSON number where a string belongs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadNuggets(strings.NewReader(tt.in), "gold.jsonl")
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err.Error(), tt.want)
			}
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("error does not wrap pipeline.ErrInvalid")
			}
		})
	}
}

func TestReadNuggetsSameIDInTwoRequests(t *testing.T) {
	in := `{"request_id": "r1", "nugget_id": "1", "answers": ["a"]}` + "\n" + `{"request_id": "r2", "nugget_id": "1", "answers": ["b"]}`
	got, err := ReadNuggets(strings.NewReader(in), "gold.jsonl")
	if err != nil {
		t.Fatalf("nugget ids are per request: %v", err)
	}
	if len(got) != 2 {
		t.Errorf("read %d nuggets, want 2", len(got))
	}
}

func TestReadNuggetsEmpty(t *testing.T) {
	got, err := ReadNuggets(strings.NewReader("\n \n"), "gold.jsonl")
	if err != nil || len(got) != 0 {
		t.Errorf("ReadNuggets(blank) = %v, %v; want no nuggets and no error", got, err)
	}
}

func TestReadNuggetsFileMissing(t *testing.T) {
	_, err := ReadNuggetsFile("testdata/no-such-file.jsonl")
	if err == nil || !strings.Contains(err.Error(), "no-such-file.jsonl") {
		t.Errorf("error = %v, want one naming the file", err)
	}
}

func TestReadNuggetsSummHay(t *testing.T) {
	path := summhayDir + "nuggets.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("SummHay news nuggets not available at %s: %v", path, err)
	}
	got, err := ReadNuggetsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The README: 336 insights over 42 subtopics, each with its documents.
	if len(got) != 336 {
		t.Errorf("read %d nuggets, want 336", len(got))
	}
	if n := len(RequestIDs(got)); n != 42 {
		t.Errorf("%d requests, want 42", n)
	}
	for _, n := range got {
		if !n.IsClaim() || n.Importance != Okay || len(n.DocIDs) == 0 || n.Name == "" {
			t.Fatalf("nugget %+v: want a named claim nugget of importance okay with documents", n)
		}
	}
}

func FuzzReadNuggets(f *testing.F) {
	f.Add(`{"request_id": "r1", "nugget_id": "n1", "question": "q", "answers": ["a"], "importance": "vital"}`)
	f.Add(`{"qid": 3, "nugget_id": 4, "text": "claim", "docids": ["d"]}` + "\n" + `{"qid": 3, "nugget_id": 4, "text": "x"}`)
	f.Add(`{"request_id": "r1", "nugget_id": "n1", "answers": "a", "importance": null}`)
	f.Add("\xef\xbb\xbf{\"request_id\":\"r\"}\r\n\r\n[1]")
	f.Add(`{"request_id": "r1", "nugget_id": "n1", "answers": [" "]}`)
	f.Fuzz(func(t *testing.T, in string) {
		ns, err := ReadNuggets(strings.NewReader(in), "f.jsonl")
		if err != nil {
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.HasPrefix(err.Error(), "f.jsonl:") {
				t.Fatalf("error %q does not wrap ErrInvalid or name the file", err)
			}
			return
		}
		for _, n := range ns {
			if n.RequestID == "" || n.ID == "" || (len(n.Answers) == 0 && n.Text == "") ||
				(n.Importance != Vital && n.Importance != Okay) {
				t.Fatalf("accepted an invalid nugget %+v", n)
			}
		}
	})
}
