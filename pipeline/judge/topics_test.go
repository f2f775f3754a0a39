package judge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
)

func TestTopicTermMatches(t *testing.T) {
	tests := []struct {
		term, text string
		want       bool
	}{
		// Case.
		{"tariff", "The TARIFF was raised.", true},
		{"McKinley Act", "the mckinley act of 1890", true},
		{"tariff", "Tariff reform", true},
		// Word boundaries: letters and digits glue, everything else separates.
		{"tariff", "tariffs were raised", false},
		{"tariff", "an antitariff league", false},
		{"tariff", "the tariff-makers", true},
		{"tariff", "the anti-tariff league", true},
		{"tariff", "(tariff)", true},
		{"tariff", "the tariff's weight", true},
		{"tariff", "the tariff, the duties", true},
		{"tariff", "tariff.", true},
		{"tariff", "tariff_act", true}, // "_" is not a letter or digit
		{"duties", "duties", true},
		{"café", "un café noir", true},
		{"cafe", "un cafe\u0301 noir", false}, // a combining accent glues
		// Numbers.
		{"1890", "In 1890, Congress", true},
		{"1890", "in 18901", false},
		{"1890", "the 1890s", false},
		{"1890", "FY1890", false},
		{"1890*", "the 1890s", true},
		{"3", "3.5 per cent", true},
		{"1,000", "1,000 men", true},
		{"1,000", "1000 men", false},
		{"$40", "US$40 million", true}, // no boundary to check before "$"
		{"u.s.", "The U.S. Treaty", true},
		// White space.
		{"customs duties", "customs\n\t duties", true},
		{"customs  duties", "customs duties", true},
		{"customs duties", "customs\u00a0duties", true},
		{"customs duties", "customsduties", false},
		{"customs duties", "customs-duties", false}, // "-" is not white space
		{"customs-duties", "customs-duties", true},
		{"customs-duties", "customs\u2011duties", true}, // non-breaking hyphen
		{"customs duties", "excise and customs duties.", true},
		// Wildcard.
		{"tariff*", "tariffs", true},
		{"tariff*", "tariff", true},
		{"tariff*", "Tariffed goods", true},
		{"tariff*", "the tariff-makers", true},
		{"tariff*", "antitariff", false},
		{"customs dut*", "customs duty", true},
		{"customs dut*", "customs, duty", false},
		{"recipro*", "Reciprocity treaties", true},
		// Apostrophes and quotes.
		{"nation's", "the nation’s debt", true},
		{"nation’s", "the nation's debt", true},
		{`"free trade"`, "so-called “free trade” policy", true},
		{"free trade", "so-called “free trade” policy", true},
		// An occurrence glued on the left is skipped and a later,
		// overlapping one still found.
		{"b-b", "ab-b-b", true},
		{"aa", "aaa", false},
	}
	for _, tc := range tests {
		term, err := ParseTopicTerm(tc.term)
		if err != nil {
			t.Fatalf("ParseTopicTerm(%q): %v", tc.term, err)
		}
		if got := term.Matches(tc.text); got != tc.want {
			t.Errorf("%q in %q: %t, want %t", tc.term, tc.text, got, tc.want)
		}
	}
}

func TestParseTopicTermErrors(t *testing.T) {
	for term, want := range map[string]string{
		"":          "is empty",
		"   ":       "is empty",
		"*":         `is only "*"`,
		" ** ":      `is only "*"`,
		"tar*iff":   `"tar*iff": "*" is a wildcard only at the end of a term`,
		"*tariff":   `"*tariff": "*" is a wildcard only at the end of a term`,
		"tariff**":  `"tariff**": "*" is a wildcard only at the end of a term`,
		"customs *": `"customs *": "*" must end a word, not stand alone`,
	} {
		_, err := ParseTopicTerm(term)
		if err == nil || err.Error() != want {
			t.Errorf("ParseTopicTerm(%q): error %v, want %q", term, err, want)
		}
	}
}

func TestReadTopics(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"request_id": "sotu-04", "terms": ["tariff*", "customs duties", " reciprocity ", "McKinley Act"]}` + "\r\n" +
		"\n" +
		`{"request_id": 7, "terms": ["Indian tribe*"], "note": "ignored"}`
	got, err := ReadTopics(strings.NewReader(in), "topics.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"7", "sotu-04"}, got.RequestIDs()); diff != "" {
		t.Errorf("request ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tariff*", "customs duties", "reciprocity", "McKinley Act"}, got.Terms("sotu-04")); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if term, ok := got.Match("sotu-04", "Reciprocity with Brazil lowered the tariffs."); !ok || term != "tariff*" {
		t.Errorf("Match = %q, %t; want the first term in file order, tariff*", term, ok)
	}
	if _, ok := got.Match("sotu-04", "Treaties with the Indian tribes."); ok {
		t.Error("another request's term matched")
	}
	if _, ok := got.Match("unknown", "tariff"); ok || got.Has("unknown") || !got.Has("7") {
		t.Error("a request without terms matched or Has is wrong")
	}
}

func TestReadTopicsErrors(t *testing.T) {
	good := `{"request_id": "r1", "terms": ["a"]}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"bad JSON", good + `{"request_id": "r2", "terms": ["a"]` + "\n",
			"topics.jsonl:2: bad JSON: unexpected end of JSON input (at column 35)"},
		{"not an object", good + `["r2", ["a"]]`, "topics.jsonl:2: not a JSON object"},
		{"missing request_id", `{"terms": ["a"]}`, "topics.jsonl:1: missing request_id"},
		{"blank request_id", `{"request_id": "  ", "terms": ["a"]}`, "topics.jsonl:1: missing request_id"},
		{"request_id of the wrong type", `{"request_id": ["r1"], "terms": ["a"]}`, "topics.jsonl:1: request_id must be a string or an integer"},
		{"missing terms", `{"request_id": "r1"}`, `topics.jsonl:1: request "r1": missing terms`},
		{"null terms", `{"request_id": "r1", "terms": null}`, `topics.jsonl:1: request "r1": missing terms`},
		{"empty terms", `{"request_id": "r1", "terms": []}`, `topics.jsonl:1: request "r1": terms is an empty list`},
		{"terms not a list", `{"request_id": "r1", "terms": "tariff"}`, `topics.jsonl:1: request "r1": terms must be a list of strings`},
		{"a term not a string", `{"request_id": "r1", "terms": ["tariff", 1890]}`, `topics.jsonl:1: request "r1": terms[1] is not a string: 1890`},
		{"a null term", `{"request_id": "r1", "terms": [null]}`, `topics.jsonl:1: request "r1": terms[0] is not a string: null`},
		{"empty term", `{"request_id": "r1", "terms": ["tariff", ""]}`, `topics.jsonl:1: request "r1": terms[1] is empty`},
		{"blank term", `{"request_id": "r1", "terms": [" "]}`, `topics.jsonl:1: request "r1": terms[0] is empty`},
		{"star term", `{"request_id": "r1", "terms": ["*"]}`, `topics.jsonl:1: request "r1": terms[0] is only "*"`},
		{"inner star", `{"request_id": "r1", "terms": ["a*b"]}`, `topics.jsonl:1: request "r1": terms[0] "a*b": "*" is a wildcard only at the end of a term`},
		{"duplicate request_id", good + "\n" + `{"request_id": "r1", "terms": ["b"]}`, `topics.jsonl:3: duplicate request_id "r1" (first on line 1)`},
		{"empty file", "\n\n", "topics.jsonl: no topic lines"},
	}
	for _, tc := range tests {
		_, err := ReadTopics(strings.NewReader(tc.in), "topics.jsonl")
		var pe *ParseError
		if err == nil || err.Error() != tc.want || !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("%s: error %v, want %q (a *ParseError)", tc.name, err, tc.want)
		}
	}
	if _, err := ReadTopicsFile("no/such/topics.jsonl"); err == nil || !strings.Contains(err.Error(), "open topics") {
		t.Errorf("missing file: %v", err)
	}
}

func TestNewTopics(t *testing.T) {
	if _, err := NewTopics(map[string][]string{"r1": {"ok", "*"}}); !errors.Is(err, pipeline.ErrInvalid) ||
		!strings.HasSuffix(err.Error(), `topics: request "r1": terms[1] is only "*"`) {
		t.Errorf("bad term: %v", err)
	}
	if _, err := NewTopics(map[string][]string{"r1": {}}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("no terms: %v", err)
	}
	var none *Topics
	if none.Has("r1") || none.RequestIDs() != nil || none.Mark(&ReportResult{RequestID: "r1"}) {
		t.Error("a nil *Topics measures something")
	}
}

func ptr[T any](v T) *T { return &v }

func TestEvaluateOnTopic(t *testing.T) {
	// testReport's sentences: s0 "... approved the barrier on 3 May 2021
	// ...", s1 "The barrier will cost 12 million euros.", s2
	// "Construction is expected to last three years.", s3 "Shop owners
	// were sceptical."
	topics, err := NewTopics(map[string][]string{
		"r1": {"barrier*", "construction"}, // s0, s1 (barrier), s2 (construction): 3/4
		"r2": {"x"},                        // r2's report is missing: 0/0 = 0, averaged
		"r9": {"never scored"},
	})
	if err != nil {
		t.Fatal(err)
	}
	gold := append(testGold(),
		Nugget{RequestID: "r2", ID: "m1", Answers: []string{"x"}, Importance: Okay},
		Nugget{RequestID: "r3", ID: "k1", Answers: []string{"y"}, Importance: Okay})
	reports := map[string]export.NeuCLIRReport{
		"r1": testReport(),
		"r3": {RequestID: "r3", Sentences: []export.NeuCLIRSentence{{Text: "A barrier.", Citations: []string{}}}},
	}
	e := &Evaluator{Judge: Offline{}, Source: testSource(), Topics: topics}
	got, err := e.Evaluate(context.Background(), gold, reports, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 3 {
		t.Fatalf("requests = %+v", got.Requests)
	}
	r1, r2, r3 := got.Requests[0], got.Requests[1], got.Requests[2]
	if diff := cmp.Diff(ptr(0.75), r1.Metrics.OnTopicSentences); diff != "" {
		t.Errorf("r1 on-topic (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ptr(3), r1.Counts.OnTopicSentences); diff != "" {
		t.Errorf("r1 on-topic count (-want +got):\n%s", diff)
	}
	var marks []string
	for _, s := range r1.Sentences {
		if s.OnTopic == nil {
			t.Fatalf("sentence %d not marked", s.Index)
		}
		marks = append(marks, s.TopicTerm)
		if *s.OnTopic != (s.TopicTerm != "") {
			t.Errorf("sentence %d: on topic %t with term %q", s.Index, *s.OnTopic, s.TopicTerm)
		}
	}
	if diff := cmp.Diff([]string{"barrier*", "barrier*", "construction", ""}, marks); diff != "" {
		t.Errorf("matched terms (-want +got):\n%s", diff)
	}
	if !r2.Missing || r2.Metrics.OnTopicSentences == nil || *r2.Metrics.OnTopicSentences != 0 {
		t.Errorf("missing r2: %+v", r2.Metrics)
	}
	if r3.Metrics.OnTopicSentences != nil || r3.Sentences[0].OnTopic != nil {
		t.Errorf("r3 has no topic terms but was measured: %+v", r3.Metrics)
	}
	// Mean over r1 and r2, the requests with topic terms: (0.75 + 0) / 2.
	if diff := cmp.Diff(ptr(0.375), got.Mean.OnTopicSentences); diff != "" {
		t.Errorf("mean on-topic (-want +got):\n%s", diff)
	}
	wantSummary := &TopicSummary{Requests: 2, NoTopics: []string{"r3"}, Unused: []string{"r9"}}
	if diff := cmp.Diff(wantSummary, got.Topics); diff != "" {
		t.Errorf("topic summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ptr(3), got.Totals.OnTopicSentences); diff != "" {
		t.Errorf("total on-topic (-want +got):\n%s", diff)
	}
	// The other metrics do not change.
	plain, err := (&Evaluator{Judge: Offline{}, Source: testSource()}).Evaluate(context.Background(), gold, reports, nil)
	if err != nil {
		t.Fatal(err)
	}
	withoutTopic := got.Mean
	withoutTopic.OnTopicSentences = nil
	if diff := cmp.Diff(plain.Mean, withoutTopic); diff != "" {
		t.Errorf("topics changed other metrics (-without +with):\n%s", diff)
	}
	if plain.Topics != nil || plain.Mean.OnTopicSentences != nil {
		t.Errorf("measured without topics: %+v", plain.Topics)
	}

	var table strings.Builder
	if err := WriteTable(&table, got); err != nil {
		t.Fatal(err)
	}
	want := `request   sentences  nuggets  citations  recall  vital  density  novelty  relevant  support  on-topic
r1        4          3/4      3/5        0.750   1.000  0.750    0.500    0.750     0.600    0.750
r2        missing    0/1      0/0        0.000   -      0.000    0.000    0.000     0.000    0.000
r3        1          0/1      0/0        0.000   -      0.000    0.000    0.000     0.000    -
mean (3)  5          3/6      3/5        0.250   1.000  0.250    0.167    0.250     0.200    0.375
judge: offline (claim overlap ≥ 0.42, support ≥ 0.60)
vital recall averaged over the 1 of 3 requests with vital nuggets
missing reports (scored 0): r2
on-topic averaged over the 2 of 3 requests with topic terms
no topic terms (on-topic not averaged): r3
topic terms of requests not scored (ignored): r9
`
	if diff := cmp.Diff(want, table.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	var rep strings.Builder
	if err := WriteReport(&rep, r1); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"on-topic sentences 0.750 (3/4)\n", "   on topic: \"barrier*\"\n", "   on topic: \"construction\"\n", "Shop owners were sceptical.\n   off topic\n"} {
		if !strings.Contains(rep.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, rep.String())
		}
	}
}
