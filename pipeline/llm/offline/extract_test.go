package offline

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

var tariffNugget = prompts.QA{Question: "Congress passed the McKinley Tariff in what year?", Answer: "1890"}

// extractOf runs the extract task and parses its answer.
func extractOf(t *testing.T, e *Engine, nugget prompts.QA, passage string) (prompts.ExtractOutput, pipeline.ModelResponse) {
	t.Helper()
	resp := complete(t, e, prompts.BuildExtract(prompts.ExtractInput{Request: tariffRequest, Nugget: nugget, DocID: "doc", PassageText: passage}))
	out, err := prompts.ParseExtract(resp.Text)
	if err != nil {
		t.Fatalf("ParseExtract(%q): %v", resp.Text, err)
	}
	return out, resp
}

func TestExtractCitesTheAnsweringSentence(t *testing.T) {
	tests := []struct {
		name         string
		nugget       prompts.QA
		passage      string
		wantSupport  string
		wantSentence string
		// disagrees marks a sentence that answers with another figure:
		// its confidence stays below the default threshold.
		disagrees bool
	}{
		{
			name:   "answer in another wording",
			nugget: tariffNugget,
			passage: "The session was long. The McKinley Tariff, which Congress passed in 1890, was replaced four years later.\n" +
				"In 1894 the Wilson-Gorman Act lowered the rates.",
			wantSupport:  "The McKinley Tariff, which Congress passed in 1890, was replaced four years later.",
			wantSentence: "The McKinley Tariff, which Congress passed in 1890, was replaced four years later.",
		},
		{
			name:         "connective dropped and full stop added",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. But in 1890 Congress passed the McKinley Tariff over the objections of importers",
			wantSupport:  "But in 1890 Congress passed the McKinley Tariff over the objections of importers",
			wantSentence: "In 1890 Congress passed the McKinley Tariff over the objections of importers.",
		},
		{
			name:   "a sentence about its source is passed over",
			nugget: tariffNugget,
			passage: "This document states that Congress passed the McKinley Tariff in 1890. " +
				"Congress passed the McKinley Tariff in 1890 after a long debate.",
			wantSupport:  "Congress passed the McKinley Tariff in 1890 after a long debate.",
			wantSentence: "Congress passed the McKinley Tariff in 1890 after a long debate.",
		},
		{
			name:         "number written differently",
			nugget:       prompts.QA{Question: "The new tariff act reduced the revenue from sugar by how much?", Answer: "$50,000,000"},
			passage:      "Sugar came in free. Revenue from sugar was reduced by 50000000 dollars under the new tariff act. Wool did not.",
			wantSupport:  "Revenue from sugar was reduced by 50000000 dollars under the new tariff act.",
			wantSentence: "Revenue from sugar was reduced by 50000000 dollars under the new tariff act.",
		},
		{
			name:         "sources that disagree",
			nugget:       prompts.QA{Question: "The Secretary of the Navy asks for how many more seamen?", Answer: "12,000 more seamen"},
			passage:      "The Secretary of the Navy asks for 15,000 more seamen. The fleet is at sea.",
			wantSupport:  "The Secretary of the Navy asks for 15,000 more seamen.",
			wantSentence: "The Secretary of the Navy asks for 15,000 more seamen.",
			disagrees:    true,
		},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, resp := extractOf(t, e, tt.nugget, tt.passage)
			if !out.Found {
				t.Fatalf("NONE (%q); want the sentence %q", resp.Text, tt.wantSentence)
			}
			if diff := cmp.Diff(tt.wantSupport, out.Support); diff != "" {
				t.Errorf("support (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSentence, out.Sentence); diff != "" {
				t.Errorf("sentence (-want +got)\n%s", diff)
			}
			start, end, ok := prompts.LocateSupport(tt.passage, out.Support)
			if !ok || tt.passage[start:end] != tt.wantSupport {
				t.Errorf("LocateSupport finds %q (%v), want the cited sentence", tt.passage[start:end], ok)
			}
			if ref := prompts.SourceReference(out.Sentence); ref != "" {
				t.Errorf("sentence refers to its source: %q", ref)
			}
			switch {
			case tt.disagrees && (out.Confidence <= 0 || out.Confidence >= 0.5):
				t.Errorf("confidence %g for a sentence that gives another figure, want it in (0, 0.5)", out.Confidence)
			case !tt.disagrees && (out.Confidence < 0.5 || out.Confidence > 1):
				t.Errorf("confidence %g for a sentence that answers the question", out.Confidence)
			}
		})
	}
}

func TestExtractNoneForUnrelatedPassages(t *testing.T) {
	tests := []struct {
		name    string
		nugget  prompts.QA
		passage string
	}{
		{"other subject", tariffNugget, navyAddress},
		{"same year, other event", tariffNugget, "In 1890 the census counted the people of Idaho. The Navy bought coal."},
		{"subject without the answer", tariffNugget, "The McKinley Tariff was debated in the newspapers for months."},
		{"scattered numbers", prompts.QA{Question: "How many years will the Social Security trust fund last?", Answer: "15 years"},
			"Each year the Government spends $15 billion on schools."},
		{"empty passage", tariffNugget, ""},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, resp := extractOf(t, e, tt.nugget, tt.passage)
			if out.Found {
				t.Errorf("found %q in an unrelated passage (answer %q)", out.Sentence, resp.Text)
			}
		})
	}
}

func TestExtractPrefersShortSentences(t *testing.T) {
	long := "In 1890, after a debate that " + strings.Repeat("lasted through many long and tiring sessions of both houses and ", 8) +
		"ended in the summer, Congress passed the McKinley Tariff."
	short := "Congress passed the McKinley Tariff in 1890."
	out, _ := extractOf(t, newTestEngine(), tariffNugget, long+" "+short)
	if out.Sentence != short {
		t.Errorf("sentence = %q, want the short one", out.Sentence)
	}
	out, _ = extractOf(t, newTestEngine(), tariffNugget, long)
	if !out.Found {
		t.Error("a long sentence is not taken when it is the only one")
	}
}

func TestExtractConfidenceReadsBackFromLogprobs(t *testing.T) {
	e := newTestEngine()
	for _, passage := range []string{
		"Congress passed the McKinley Tariff in 1890.",
		"It is said that in 1890 Congress passed a tariff named for McKinley.",
		"The McKinley Tariff was passed in the autumn of 1890 by Congress, to the dismay of importers.",
	} {
		out, resp := extractOf(t, e, tariffNugget, passage)
		if !out.Found {
			t.Fatalf("NONE for %q", passage)
		}
		got, ok := prompts.SentenceLikelihood(resp)
		if !ok {
			t.Fatalf("SentenceLikelihood found no SENTENCE tokens in %+v", resp.TokenLogprobs)
		}
		if math.Abs(got-out.Confidence) > 0.01 {
			t.Errorf("%q: token likelihood %g, stated confidence %g", passage, got, out.Confidence)
		}
	}
	// NONE carries the engine's confidence that nothing answers.
	_, resp := extractOf(t, e, tariffNugget, navyAddress)
	if len(resp.TokenLogprobs) != 1 || resp.TokenLogprobs[0].Token != "NONE" || resp.TokenLogprobs[0].Logprob > 0 {
		t.Errorf("NONE answer log-probabilities = %+v", resp.TokenLogprobs)
	}
}

func TestExtractConfidenceOrdersCandidates(t *testing.T) {
	e := newTestEngine()
	exact, _ := extractOf(t, e, tariffNugget, "Congress passed the McKinley Tariff in 1890.")
	weaker, _ := extractOf(t, e, tariffNugget, "It was in 1890 that the tariff passed.")
	if !exact.Found || !weaker.Found {
		t.Fatalf("found: %v, %v", exact.Found, weaker.Found)
	}
	if exact.Confidence <= weaker.Confidence {
		t.Errorf("confidence of a full restatement %g ≤ that of a vague pronoun sentence %g", exact.Confidence, weaker.Confidence)
	}
}

// withFullStop looks past closing quotes and brackets: a clause cut from
// Andrew Johnson's 1865 sentence ended "... the whole subject."" and was
// given a second full stop.
func TestWithFullStop(t *testing.T) {
	for in, want := range map[string]string{
		`until Congress should have "an opportunity to act on the whole subject."`: `until Congress should have "an opportunity to act on the whole subject."`,
		`until Congress should have "an opportunity"`:                              `until Congress should have "an opportunity".`,
		"the duties were raised (sharply)":                                         "the duties were raised (sharply).",
		"Was it law?”":                                                             "Was it law?”",
		"":                                                                         "",
	} {
		if got := withFullStop(in); got != want {
			t.Errorf("withFullStop(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  and   the tariff\nwas passed  ", "The tariff was passed."},
		{"Moreover, duties rose;", "Duties rose."},
		{"Also, it passed!", "It passed!"},
		{`He said "the tariff is law."`, `He said "the tariff is law."`},
		{"However, in addition, wool rose (sharply)", "Wool rose (sharply)."},
		{"Mr. Speaker, Members of Congress: The tariff passed in 1890.", "The tariff passed in 1890."},
		{"• 12 percent of imports were taxed", "12 percent of imports were taxed."},
		// A phrase that opens like an opener but leads a prepositional
		// phrase stays (Taft 1912: "As a result of the efforts ...").
		{"As a result of the efforts of this Government, a loan was made", "As a result of the efforts of this Government, a loan was made."},
		{"As a result, a loan was made", "A loan was made."},
		{"In addition to the tariff, duties rose", "In addition to the tariff, duties rose."},
		{"Besides the treaty, a convention was signed", "Besides the treaty, a convention was signed."},
		{"In addition the Senate ratified it", "The Senate ratified it."},
		{"In addition thereto two new reserves were created", "Two new reserves were created."},
		{"In addition thereto, two new reserves were created", "Two new reserves were created."},
		// "So" without its comma links before a pronoun or "tonight",
		// and leads a phrase before other words.
		{"So tonight I propose a trust for energy research", "Tonight I propose a trust for energy research."},
		{"So I ask Congress to double the funds", "I ask Congress to double the funds."},
		{"So let's act", "Let's act."},
		{"So here's my plan: more teachers", "Here's my plan: more teachers."},
		{"So many ships were lost that the trade stopped", "So many ships were lost that the trade stopped."},
		// Contractions link too (George W Bush, 2001); "And," and "But,"
		// with their comma, "Therefore" and "Indeed" without theirs and
		// "By the way," are openers (Biden, 2021; Lyndon B Johnson, 1968;
		// Eisenhower, 1954).
		{"So I've asked the Secretary of Defense to review the Armed Forces", "I've asked the Secretary of Defense to review the Armed Forces."},
		{"And, by the way, it will lower prescription drug costs", "It will lower prescription drug costs."},
		{"Therefore we must start building 300,000 housing units", "We must start building 300,000 housing units."},
		{"Indeed we shall be glad to confer", "We shall be glad to confer."},
		{"So long as the war lasts, duties stay", "So long as the war lasts, duties stay."},
	}
	for _, tt := range tests {
		if got := cleanSentence(tt.in); got != tt.want {
			t.Errorf("cleanSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	e := newTestEngine()
	req := prompts.BuildExtract(prompts.ExtractInput{Request: tariffRequest, Nugget: tariffNugget, DocID: "doc", PassageText: tariffAddress})
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Complete(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// Length below 400 characters does not lower confidence: a shorter
// sentence elsewhere that repeats the answer is no better than one that
// states it in context. Beyond 400 characters it does.
func TestExtractConfidenceAndSentenceLength(t *testing.T) {
	e := newTestEngine()
	concise := "Congress passed the McKinley Tariff in 1890."
	wordy := "Congress passed the McKinley Tariff in 1890, after a debate of many months in both houses on the rates of duty " +
		"on wool, tin plate, sugar and a great many other articles of import, with amendments offered on every schedule."
	overlong := wordy[:len(wordy)-1] + ", and the debate went on through the summer while the Senate finance committee heard " +
		"the manufacturers of every state and the importers of the great ports, and then again in conference between the two houses."
	short, _ := extractOf(t, e, tariffNugget, concise)
	mid, _ := extractOf(t, e, tariffNugget, wordy)
	long, _ := extractOf(t, e, tariffNugget, overlong)
	if !short.Found || !mid.Found || !long.Found {
		t.Fatalf("found: %v, %v, %v", short.Found, mid.Found, long.Found)
	}
	if d := math.Abs(mid.Confidence - short.Confidence); d > 0.05 {
		t.Errorf("confidence %g for %d characters, %g for %d: length under 400 should not count",
			mid.Confidence, len(wordy), short.Confidence, len(concise))
	}
	if len(overlong) <= extractLongChars || long.Confidence >= mid.Confidence {
		t.Errorf("confidence %g for %d characters, not below %g for %d", long.Confidence, len(overlong), mid.Confidence, len(wordy))
	}
}

// TestExtractSkipsAHeadingAlone: a heading in capitals that sentence
// splitting left on its own holds the words of a nugget drawn from it
// (the fill's claim nugget, answered by the heading) but states nothing:
// it is never extracted.
func TestExtractSkipsAHeadingAlone(t *testing.T) {
	claim := prompts.QA{Question: "What did the President say on the McKinley Tariff act?", Answer: "THE MCKINLEY TARIFF ACT OF 1890."}
	for _, passage := range []string{
		"THE MCKINLEY TARIFF ACT OF 1890.",
		"THE MCKINLEY TARIFF ACT OF 1890. The Navy bought coal.",
	} {
		if out, _ := extractOf(t, newTestEngine(), claim, passage); out.Found {
			t.Errorf("extracted %q from %q: a heading alone", out.Sentence, passage)
		}
	}
}

// TestDropMarks checks that a transcript's stage directions and page or
// footnote numbers leave a report sentence, and nothing else does.
func TestDropMarks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[Applause] It is time to reverse the decline in defense spending", "It is time to reverse the decline in defense spending."},
		{"It's always a pleasure. [Laughter] Now, there's a new face here", "It's always a pleasure. Now, there's a new face here."},
		{"We cut the deficit in half. (Applause.)", "We cut the deficit in half."},
		{"While you're thinking about my desk—(laughs)—let's raise the minimum wage", "While you're thinking about my desk—let's raise the minimum wage."},
		{"I have, therefore, by Executive Order,[1] established the Committee", "I have, therefore, by Executive Order, established the Committee."},
		{"the Kappel[1] report is before you", "The Kappel report is before you."},
		{"as the report shows [p.6] the debt fell", "As the report shows the debt fell."},
		// An editor's words in brackets, a list number in parentheses and
		// a sum stay.
		{"the people of [the States] will decide", "The people of [the States] will decide."},
		{"two rules: (1) free ships make free goods", "Two rules: (1) free ships make free goods."},
		{"almost [$]1.1 billion in overpayments", "Almost [$]1.1 billion in overpayments."},
	}
	for _, tc := range tests {
		if got := cleanSentence(tc.in); got != tc.want {
			t.Errorf("cleanSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
