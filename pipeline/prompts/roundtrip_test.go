package prompts

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The round-trip tests format a few hundred random outputs full of awkward
// text and check that parsing gives them back, flattened as FormatX
// documents, and that formatting the result again changes nothing.

const roundTrips = 300

// awkwardPieces are the fragments random fields are built from: unicode,
// the format's own separators and labels, markdown, line breaks, quotes.
var awkwardPieces = []string{
	"river", "council", "barrier", "Dortmund", "1994", "12.5", "million", "euros", "approved", "why?",
	"café", "naïve", "日本語の文", "Ελληνικά", "שלום", "🙂", "İstanbul", "\u00a0", "\u2028",
	"|", " | ", " | A: ", "Q:", "A:", ":", "::", "a:b", "SUPPORT:", "SENTENCE:", "CONFIDENCE: 12", "SUMMARY:",
	"task: 3", "vital: yes", "NONE", "none", "yes", "no",
	"\n", "\r\n", "\n\n", "\t", "   ",
	"\"", "“quoted”", "'", "**", "__", "`", "```", "~~~", "1.", "2)", "- ", "* ", "# ", "> ",
	"{", "}", "[", "]", "<think>", "</think>", "%", "\xff\xfe", "\x00",
}

func randText(r *rand.Rand) string {
	var b strings.Builder
	for n := 1 + r.IntN(8); n > 0; n-- {
		b.WriteString(awkwardPieces[r.IntN(len(awkwardPieces))])
		if r.IntN(2) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

var testThinkTag = regexp.MustCompile(`(?i)</?think(?:ing)?>`)

// flat is the documented flattening of a text field: valid UTF-8, <think>
// tags removed, whitespace runs collapsed to one space, ends trimmed, and
// wrapping "**", "__" or "`" removed until none is left.
func flat(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = testThinkTag.ReplaceAllString(s, " ")
	s = strings.Join(strings.Fields(s), " ")
	for changed := true; changed; {
		changed = false
		for _, w := range []string{"**", "__", "`"} {
			if len(s) > 2*len(w) && strings.HasPrefix(s, w) && strings.HasSuffix(s, w) {
				s = strings.TrimSpace(s[len(w) : len(s)-len(w)])
				changed = true
			}
		}
	}
	return s
}

// flatQuoted is flat plus the removal of wrapping double quotes that hold
// no other quote of their kind, until neither applies.
func flatQuoted(s string) string {
	s = flat(s)
	for {
		next := s
		for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"„", "“"}, {"«", "»"}, {"「", "」"}} {
			if len(next) > len(q[0])+len(q[1]) && strings.HasPrefix(next, q[0]) && strings.HasSuffix(next, q[1]) {
				inner := next[len(q[0]) : len(next)-len(q[1])]
				if !strings.Contains(inner, q[0]) && !strings.Contains(inner, q[1]) {
					next = strings.TrimSpace(inner)
				}
			}
		}
		next = flat(next)
		if next == s {
			return s
		}
		s = next
	}
}

func newRand(t *testing.T) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(20260101, uint64(len(t.Name()))))
}

func TestSummarizeRoundTrip(t *testing.T) {
	r := newRand(t)
	for i := 0; i < roundTrips; i++ {
		in := SummarizeOutput{Summary: randText(r), Relevant: r.IntN(5) > 0}
		want := SummarizeOutput{}
		if s := flat(in.Summary); in.Relevant && s != "" && !isNoneMarker(s) {
			want = SummarizeOutput{Summary: s, Relevant: true}
		}
		formatted := FormatSummarize(in)
		got, err := ParseSummarize(formatted)
		if err != nil {
			t.Fatalf("ParseSummarize(FormatSummarize(%q)): %v\nformatted: %q", in.Summary, err, formatted)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s\nformatted: %q", in.Summary, diff, formatted)
		}
		if again := FormatSummarize(got); again != formatted {
			t.Fatalf("FormatSummarize is not a fixed point: %q then %q", formatted, again)
		}
	}
}

func TestNuggetsRoundTrip(t *testing.T) {
	r := newRand(t)
	for i := 0; i < roundTrips; i++ {
		var in NuggetsOutput
		var want []QA
		for n := r.IntN(6); n > 0; n-- {
			qa := QA{Question: randText(r), Answer: randText(r)}
			if r.IntN(10) == 0 {
				qa.Answer = " \n "
			}
			in.Nuggets = append(in.Nuggets, qa)
			q, a := flat(strings.ReplaceAll(qa.Question, "|", "/")), flat(qa.Answer)
			if q != "" && a != "" {
				want = append(want, QA{Question: q, Answer: a})
			}
		}
		formatted := FormatNuggets(in)
		got, err := ParseNuggets(formatted)
		if err != nil {
			t.Fatalf("ParseNuggets(FormatNuggets(%q)): %v\nformatted:\n%s", in.Nuggets, err, formatted)
		}
		if diff := cmp.Diff(want, got.Nuggets, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s\nformatted:\n%s", in.Nuggets, diff, formatted)
		}
		if !got.Report.Empty() {
			t.Fatalf("canonical answer gave a report %+v\nformatted:\n%s", got.Report, formatted)
		}
		if again := FormatNuggets(got); again != formatted {
			t.Fatalf("FormatNuggets is not a fixed point:\n%s\nthen\n%s", formatted, again)
		}
	}
}

func TestNuggetsFormatFlattens(t *testing.T) {
	in := NuggetsOutput{Nuggets: []QA{
		{Question: "Which river | which valley?\nAsked twice", Answer: "the Emscher | the Ruhr\n(both)"},
		{Question: "   ", Answer: "dropped"},
		{Question: "**Bold question?**", Answer: "`code`"},
	}}
	want := "1. Q: Which river / which valley? Asked twice | A: the Emscher | the Ruhr (both)\n" +
		"2. Q: Bold question? | A: code"
	if got := FormatNuggets(in); got != want {
		t.Errorf("FormatNuggets =\n%s\nwant\n%s", got, want)
	}
	if got := FormatNuggets(NuggetsOutput{}); got != "NONE" {
		t.Errorf("FormatNuggets(no nuggets) = %q, want NONE", got)
	}
}

func TestParaphraseAndVerifyRoundTrip(t *testing.T) {
	for _, yes := range []bool{true, false} {
		if got, err := ParseParaphrase(FormatParaphrase(ParaphraseOutput{Same: yes})); err != nil || got.Same != yes {
			t.Errorf("paraphrase %t: got %+v, %v", yes, got, err)
		}
		if got, err := ParseVerifySupport(FormatVerifySupport(VerifySupportOutput{Yes: yes})); err != nil || got.Yes != yes {
			t.Errorf("verify_support %t: got %+v, %v", yes, got, err)
		}
		if got, err := ParseVerifyCoverage(FormatVerifyCoverage(VerifyCoverageOutput{Yes: yes})); err != nil || got.Yes != yes {
			t.Errorf("verify_coverage %t: got %+v, %v", yes, got, err)
		}
	}
}

func TestNuggetQualityRoundTrip(t *testing.T) {
	r := newRand(t)
	score := func() int { return r.IntN(12) - 3 }
	for i := 0; i < roundTrips; i++ {
		in := NuggetQualityOutput{Task: score(), Background: score(), Role: score(), Style: score(), Scope: score(),
			Vital: r.IntN(2) == 0, Researchy: r.IntN(2) == 0}
		clamp := func(s int) int { return max(0, min(5, s)) }
		want := NuggetQualityOutput{Task: clamp(in.Task), Background: clamp(in.Background), Role: clamp(in.Role),
			Style: clamp(in.Style), Scope: clamp(in.Scope), Vital: in.Vital, Researchy: in.Researchy}
		wantScores := want.Question.scores()
		for j, p := range in.Question.scores() {
			*p = score()
			*wantScores[j] = clamp(*p)
		}
		formatted := FormatNuggetQuality(in)
		got, err := ParseNuggetQuality(formatted)
		if err != nil {
			t.Fatalf("ParseNuggetQuality(%q): %v", formatted, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %+v (-want +got):\n%s", in, diff)
		}
		if again := FormatNuggetQuality(got); again != formatted {
			t.Fatalf("FormatNuggetQuality is not a fixed point: %q then %q", formatted, again)
		}
	}
}

func TestNuggetQualityFormat(t *testing.T) {
	got := FormatNuggetQuality(NuggetQualityOutput{Task: 4, Background: 3, Role: 9, Style: -1, Scope: 5, Vital: true,
		Question: QuestionProfile{Ambiguous: 7, Multifaceted: 2, Nonfactoid: -3, Knowledge: 4}})
	want := "task: 4\nbackground: 3\nrole: 5\nstyle: 0\nscope: 5\nvital: yes\nresearchy: no\n" +
		"ambiguous: 5\nincomplete: 0\nassumptive: 0\nmultifaceted: 2\nknowledge: 4\nsubjective: 0\n" +
		"reasoning: 0\nharmful: 0\ndecompositional: 0\nnonfactoid: 0"
	if got != want {
		t.Errorf("FormatNuggetQuality =\n%s\nwant\n%s", got, want)
	}
}

func TestExtractRoundTrip(t *testing.T) {
	r := newRand(t)
	for i := 0; i < roundTrips; i++ {
		in := ExtractOutput{Found: r.IntN(6) > 0, Support: randText(r), Sentence: randText(r), Confidence: r.Float64()*1.4 - 0.2}
		switch r.IntN(12) {
		case 0:
			in.Confidence = math.NaN()
		case 1:
			in.Support = ""
		case 2:
			in.Support = `"` + in.Support + `"`
		case 3:
			in.Sentence = "“" + in.Sentence + "”"
		}
		var want ExtractOutput
		sentence := flatQuoted(in.Sentence)
		if in.Found && sentence != "" && !isNoneMarker(sentence) {
			support := flatQuoted(in.Support)
			if isNoneMarker(support) {
				support = ""
			}
			c := in.Confidence
			if math.IsNaN(c) {
				c = 0
			}
			want = ExtractOutput{Found: true, Support: support, Sentence: sentence,
				Confidence: math.Round(max(0, min(1, c))*100) / 100}
			if support == "" {
				want.Report.Missing = []string{FieldSupport}
			}
		}
		formatted := FormatExtract(in)
		got, err := ParseExtract(formatted)
		if err != nil {
			t.Fatalf("ParseExtract(FormatExtract(%+v)): %v\nformatted:\n%s", in, err, formatted)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %+v (-want +got):\n%s\nformatted:\n%s", in, diff, formatted)
		}
		if again := FormatExtract(got); again != formatted {
			t.Fatalf("FormatExtract is not a fixed point:\n%s\nthen\n%s", formatted, again)
		}
	}
}

func TestExtractFormat(t *testing.T) {
	tests := []struct {
		name string
		in   ExtractOutput
		want string
	}{
		{"found", ExtractOutput{Found: true, Support: "Work is expected\nto last three years.", Sentence: "\"The barrier takes three years.\"", Confidence: 0.856},
			"SUPPORT: Work is expected to last three years.\nSENTENCE: The barrier takes three years.\nCONFIDENCE: 86"},
		{"not found", ExtractOutput{Found: false, Sentence: "ignored"}, "NONE"},
		{"blank sentence", ExtractOutput{Found: true, Support: "x", Sentence: " "}, "NONE"},
		{"confidence clamped", ExtractOutput{Found: true, Support: "s", Sentence: "A sentence.", Confidence: 3},
			"SUPPORT: s\nSENTENCE: A sentence.\nCONFIDENCE: 100"},
		{"no support", ExtractOutput{Found: true, Sentence: "A sentence.", Confidence: 0.5},
			"SUPPORT:\nSENTENCE: A sentence.\nCONFIDENCE: 50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatExtract(tt.in); got != tt.want {
				t.Errorf("FormatExtract =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
