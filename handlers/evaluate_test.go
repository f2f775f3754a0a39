package handlers

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/views"
)

func TestChooseRequest(t *testing.T) {
	inSet := []string{"r1", "r2", "r3"}
	tests := []struct {
		name  string
		own   string
		asked string
		want  views.RequestChoice
	}{
		{name: "own request in the set", own: "r2",
			want: views.RequestChoice{ID: "r2", State: views.RequestOwn}},
		{name: "own request asked for", own: "r2", asked: "r2",
			want: views.RequestChoice{ID: "r2", State: views.RequestOwn}},
		{name: "another request asked for", own: "r2", asked: "r3",
			want: views.RequestChoice{ID: "r3", State: views.RequestPicked}},
		{name: "own request not in the set", own: "topic-9",
			want: views.RequestChoice{State: views.RequestNeeded}},
		{name: "report without a request id", own: "",
			want: views.RequestChoice{State: views.RequestNeeded}},
		{name: "a request the set lacks", own: "r1", asked: "r9",
			want: views.RequestChoice{ID: "r9", State: views.RequestUnknown}},
		{name: "pick when the own request is missing", own: "topic-9", asked: "r1",
			want: views.RequestChoice{ID: "r1", State: views.RequestPicked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chooseRequest(tt.own, tt.asked, inSet)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chooseRequest(%q, %q) (-want +got)\n%s", tt.own, tt.asked, diff)
			}
		})
	}
}

func TestDisplayFileName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "nuggets.jsonl", "nuggets.jsonl"},
		{"unix path", "/home/ann/gold/nuggets.jsonl", "nuggets.jsonl"},
		{"windows path", `C:\Users\ann\nuggets.jsonl`, "nuggets.jsonl"},
		{"control characters", "nug\x00gets\r\n.jsonl", "nuggets.jsonl"},
		{"invalid UTF-8", "nug\xffgets.jsonl", "nug\uFFFDgets.jsonl"},
		{"empty", "", ""},
		{"only a directory", "gold/", "gold"},
		{"root", "/", ""},
		{"markup kept as text", "<b>x.jsonl", "<b>x.jsonl"},
		{"too long", strings.Repeat("é", 250), strings.Repeat("é", views.MaxGoldNameChars)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := displayFileName(tt.in); got != tt.want {
				t.Errorf("displayFileName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{5 << 20, "5 MiB"},
		{3 << 19, "1.5 MiB"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{100, "100 bytes"},
	}
	for _, tt := range tests {
		if got := byteSize(tt.n); got != tt.want {
			t.Errorf("byteSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestBuildEvaluation(t *testing.T) {
	gold := []judge.Nugget{
		{RequestID: "r", ID: "a", Question: "Q a?", Answers: []string{"x"}, Importance: judge.Okay},
		{RequestID: "r", ID: "b", Text: "claim b", Importance: judge.Okay},
		{RequestID: "r", ID: "c", Question: "Q c?", Answers: []string{"y"}, Importance: judge.Vital},
	}
	yes := judge.Verdict{Yes: true, Score: 1, Reason: `answer "x" found`}
	no := judge.Verdict{Reason: "no answer found"}
	undecided := judge.Verdict{Error: "the answer reads as neither yes nor no"}
	// Sentence 1 covers a; sentence 2 covers a again; the judge could not
	// decide b on sentence 2; c is covered by none.
	rr := judge.ReportResult{
		RequestID: "r", Judge: "test judge",
		Nuggets: []judge.NuggetResult{
			{Nugget: gold[0], Covered: true, Sentences: []int{0, 1}},
			{Nugget: gold[1], Sentences: []int{}},
			{Nugget: gold[2], Sentences: []int{}},
		},
		Coverage: [][]judge.Verdict{{yes, yes}, {no, undecided}, {no, no}},
		Sentences: []judge.SentenceResult{
			{Index: 0, Text: "one", Nuggets: []int{0}, NewNuggets: []int{0}, Novel: true, Citations: []judge.CitationResult{
				{DocID: "d", Evidence: judge.Evidence{DocID: "d", PassageID: "d#3", Basis: judge.BasisBestPassage},
					Verdict: judge.Verdict{Yes: true, Score: 0.8, Reason: "80% of the sentence's content words in the passage"}},
			}},
			{Index: 1, Text: "two", Nuggets: []int{0}, NewNuggets: []int{}, Citations: []judge.CitationResult{
				{DocID: "gone", Evidence: judge.Evidence{DocID: "gone", Basis: judge.BasisMissing},
					Verdict: judge.Verdict{Reason: "document not in the collection"}},
			}},
		},
		Counts: judge.Counts{Nuggets: 3, VitalNuggets: 1, Covered: 1, Sentences: 2, NovelSentences: 1,
			RelevantSentences: 2, Citations: 2, Supported: 1, Undecided: 1},
		Metrics: judge.Metrics{NuggetRecall: 1.0 / 3, NuggetDensity: 0.5, SentenceNovelty: 0.5, RelevantSentences: 1, CitationSupport: 0.5},
	}
	ev := buildEvaluation(rr)

	// Missing: c first (vital), then b.
	var missing []string
	for _, n := range ev.Missing {
		missing = append(missing, n.ID)
	}
	if diff := cmp.Diff([]string{"c", "b"}, missing); diff != "" {
		t.Errorf("missing nuggets (-want +got)\n%s", diff)
	}
	wantCells := []views.CoverageCell{{Reason: "no answer found"}, {Undecided: true, Reason: "the answer reads as neither yes nor no"}}
	if diff := cmp.Diff(wantCells, ev.Nuggets[1].Cells); diff != "" {
		t.Errorf("cells of nugget b (-want +got)\n%s", diff)
	}
	if ev.Nuggets[1].Claim != "claim b" || !ev.Nuggets[2].Vital || ev.Undecided != 1 {
		t.Errorf("rows %+v, undecided %d", ev.Nuggets, ev.Undecided)
	}
	wantSentences := []views.EvaluatedSentence{
		{Number: 1, Text: "one", Nuggets: []string{"a"}, New: []string{"a"}, Citations: []views.CitationVerdict{
			{DocID: "d", Ordinal: 3, HasPassage: true, Supported: true, Score: 0.8,
				Basis:  "the cited document's best-matching passage (passage 3)",
				Reason: "80% of the sentence's content words in the passage"},
		}},
		{Number: 2, Text: "two", Nuggets: []string{"a"}, Citations: []views.CitationVerdict{
			{DocID: "gone", Missing: true, Basis: "nothing: the document is not in the collection",
				Reason: "document not in the collection"},
		}},
	}
	if diff := cmp.Diff(wantSentences, ev.Sentences); diff != "" {
		t.Errorf("sentences (-want +got)\n%s", diff)
	}
	var cards []string
	for _, c := range ev.Cards {
		cards = append(cards, c.Key)
	}
	wantCards := []string{"nugget-recall", "vital-recall", "nugget-density", "sentence-novelty", "relevant-sentences", "citation-support"}
	if diff := cmp.Diff(wantCards, cards); diff != "" {
		t.Errorf("cards (-want +got)\n%s", diff)
	}
	// Vital recall: 0 of the 1 vital nugget.
	if c := ev.Cards[1]; c.Num != 0 || c.Den != 1 || !c.Defined() {
		t.Errorf("vital card = %+v", c)
	}
}

// FuzzDisplayFileName checks that any name a browser may send becomes a
// short, printable name without a path.
func FuzzDisplayFileName(f *testing.F) {
	for _, s := range []string{"nuggets.jsonl", `C:\a\b.jsonl`, "/", "..", "a/../b", "\x00\xff", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := displayFileName(in)
		if !utf8.ValidString(got) {
			t.Fatalf("displayFileName(%q) = %q: not valid UTF-8", in, got)
		}
		if utf8.RuneCountInString(got) > views.MaxGoldNameChars {
			t.Fatalf("displayFileName(%q) has %d characters", in, utf8.RuneCountInString(got))
		}
		if strings.ContainsAny(got, "/\\") || strings.IndexFunc(got, unicode.IsControl) >= 0 {
			t.Fatalf("displayFileName(%q) = %q: a path separator or control character is left", in, got)
		}
	})
}
