package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// summarizeOf runs the summarize task and parses its answer.
func summarizeOf(t *testing.T, e *Engine, req prompts.RequestInfo, doc string) prompts.SummarizeOutput {
	t.Helper()
	resp := complete(t, e, prompts.BuildSummarize(prompts.SummarizeInput{Request: req, DocID: "doc", DocText: doc}))
	out, err := prompts.ParseSummarize(resp.Text)
	if err != nil {
		t.Fatalf("ParseSummarize(%q): %v", resp.Text, err)
	}
	return out
}

// summarySentences splits a summary back into its sentences.
func summarySentences(e *Engine, summary string) []string {
	var out []string
	for _, sp := range e.an.Sentences(summary) {
		out = append(out, summary[sp.Start:sp.End])
	}
	return out
}

func TestSummarizePicksTheRequestsSentencesInDocumentOrder(t *testing.T) {
	e := newTestEngine()
	out := summarizeOf(t, e, tariffRequest, tariffAddress)
	if !out.Relevant {
		t.Fatal("the tariff address was judged not relevant to a tariff request")
	}
	want := []string{
		"In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 49.5 percent.",
		"The new tariff act reduced the revenue from sugar by $50,000,000, since raw sugar now enters free of duty.",
		"Critics of the tariff claim that the prices of wool and tin plate rose sharply after October 6, 1890.",
		"The reciprocity clause of the tariff act opens the way to a large trade with Brazil and Cuba.",
	}
	if diff := cmp.Diff(want, summarySentences(e, out.Summary)); diff != "" {
		t.Errorf("summary sentences (-want +got)\n%s", diff)
	}
}

func TestSummarizeFollowsTheRequest(t *testing.T) {
	e := newTestEngine()
	navy := prompts.RequestInfo{Title: "Naval expansion", ProblemStatement: "How did the Navy fleet grow, and how many vessels and cruisers did it have?"}
	out := summarizeOf(t, e, navy, tariffAddress)
	got := summarySentences(e, out.Summary)
	want := []string{"The Navy has completed three new cruisers this year, and the fleet now numbers 42 vessels."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary sentences for a navy request (-want +got)\n%s", diff)
	}
}

func TestSummarizeNoneWhenNothingMatches(t *testing.T) {
	req := prompts.RequestInfo{Title: "Polar exploration", ProblemStatement: "Which expeditions reached the Antarctic ice shelf?"}
	out := summarizeOf(t, newTestEngine(), req, tariffAddress)
	if out.Relevant || out.Summary != "" {
		t.Errorf("summary = %+v, want NONE", out)
	}
	resp := complete(t, newTestEngine(), prompts.BuildSummarize(prompts.SummarizeInput{Request: req, DocText: ""}))
	if resp.Text != "NONE" {
		t.Errorf("empty document: answer %q, want NONE", resp.Text)
	}
}

func TestSummarizeBackgroundAloneIsNotEnough(t *testing.T) {
	// The background names the navy, but the title and problem statement
	// do not: a navy sentence alone does not make the document relevant.
	req := prompts.RequestInfo{Title: "Polar exploration", ProblemStatement: "Which expeditions reached the Antarctic?",
		Background: "A historian of the Navy and its cruisers."}
	if out := summarizeOf(t, newTestEngine(), req, navyAddress+" "+tariffAddress); out.Relevant {
		t.Errorf("summary = %q, want NONE", out.Summary)
	}
}

func TestSummarizeSkipsNearDuplicatesAndCapsSentences(t *testing.T) {
	e := newTestEngine()
	var doc strings.Builder
	// Twelve tariff sentences, two of them near copies of others: more
	// than a summary may hold.
	for _, s := range []string{
		"The tariff on wool was raised to 40 percent in 1890.",
		"The tariff on wool was raised to 40 percent in 1890, as expected.",
		"The tariff on tin plate took effect in July 1891.",
		"Import duties on sugar were removed by the tariff act.",
		"The tariff act increased duties on imports of linen.",
		"The tariff act increased duties on imports of linen and lace.",
		"Revenue from the tariff fell by $50,000,000.",
		"Tariff reciprocity treaties were signed with Brazil and Spain.",
		"The tariff commission heard the wool growers of Ohio in March.",
		"Customs houses collected the new tariff duties at twelve ports.",
		"The tariff on steel rails stayed at 17 dollars a ton.",
		"Farmers petitioned Congress against the tariff on binding twine.",
		"The weather was mild in the capital.",
	} {
		doc.WriteString(s + " ")
	}
	out := summarizeOf(t, e, tariffRequest, doc.String())
	got := summarySentences(e, out.Summary)
	if len(got) != prompts.MaxSummarySentences {
		t.Fatalf("summary has %d sentences, want %d: %q", len(got), prompts.MaxSummarySentences, got)
	}
	for i, a := range got {
		for _, b := range got[i+1:] {
			if j := jaccard(e.an.Terms(a), e.an.Terms(b)); j >= nearDuplicate {
				t.Errorf("near duplicates in the summary (Jaccard %.2f): %q and %q", j, a, b)
			}
		}
		if strings.Contains(a, "weather") {
			t.Errorf("unrelated sentence in the summary: %q", a)
		}
	}
}

func TestSummarizeDropsSalutationsAndHeadings(t *testing.T) {
	e := newTestEngine()
	doc := "Mr. Speaker, Mr. President, Members of Congress: The McKinley Tariff raised import duties sharply. " +
		"TARIFFS The tariff act cut the revenue from sugar."
	got := summarySentences(e, summarizeOf(t, e, tariffRequest, doc).Summary)
	want := []string{"The McKinley Tariff raised import duties sharply.", "The tariff act cut the revenue from sugar."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary sentences (-want +got)\n%s", diff)
	}
}

func TestSummarizeHonoursCancellationOfLongDocuments(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newTestEngine().summarize(ctx, prompts.SummarizeInput{Request: tariffRequest, DocText: strings.Repeat(tariffAddress+" ", 100)})
	if err == nil {
		t.Error("summarize of a long document ignored a cancelled context")
	}
}

func TestStandAlone(t *testing.T) {
	tests := []struct{ in, want string }{
		{"RAILWAYS We have determined upon a national policy.", "We have determined upon a national policy."},
		{"6. SOCIAL SECURITY AND HEALTH Benefit payments are estimated at 407 million dollars.", "Benefit payments are estimated at 407 million dollars."},
		{"We must reconcile the needs of social security with full employment. (k) Education.", "We must reconcile the needs of social security with full employment."},
		{"Mr. President, Mr. Speaker, Members of the Congress: For the first time a President delivers his message.", "For the first time a President delivers his message."},
		{"NATO members agreed.", "NATO members agreed."},
		{"THE ECONOMIC IMPACT Of THE LIQUIDATION OF THE WAR PROGRAM Government programs are of such importance.",
			"Government programs are of such importance."},
		{"OF INTERNATIONAL JUSTICE Pending before the Senate for nearly three years is the proposal.",
			"Pending before the Senate for nearly three years is the proposal."},
		{"Rural electrification.-It is proposed that the loan authorization be increased.", "It is proposed that the loan authorization be increased."},
		{"ART.-All the arts are thriving.", "All the arts are thriving."},
		{"U.S.-Soviet relations improved.", "U.S.-Soviet relations improved."}, // an abbreviation before a dash is no heading
		{"The program of conservation, development and use of land and water resources.-It continues.",
			"The program of conservation, development and use of land and water resources.-It continues."}, // too long for a heading
		{"A New Deal was proposed.", "A New Deal was proposed."}, // a one-letter word is no heading
		{"U.S. Steel was named.", "U.S. Steel was named."},       // nor an abbreviation
		{"(12) Legislation for the domestic use and control of atomic energy.", "Legislation for the domestic use and control of atomic energy."},
		{"1933. That year the banks closed.", "1933. That year the banks closed."}, // a year is no list number
		{"Mr. Mizner exceeded his authority.", "Mr. Mizner exceeded his authority."},
		{"To the Senate and House of Representatives: Peace.", "To the Senate and House of Representatives: Peace."},
		// "I" and "A" open the sentence after a heading (Coolidge, 1924;
		// Taft, 1912; the two dozen others like them in the demo corpus).
		{"IMMIGRATION AND DEPORTATION I recommend that immigration restriction be placed upon a more definite basis.",
			"I recommend that immigration restriction be placed upon a more definite basis."},
		{"OUR BANKING AND CURRENCY SYSTEM A time when panics seem far removed is the best time to prepare.",
			"A time when panics seem far removed is the best time to prepare."},
		{"PHILIPPINES A bill is pending in Congress.", "A bill is pending in Congress."},
		{"I AM glad.", "I AM glad."}, // no heading before the "I"
		{"THE TARIFF I have regarded it as my duty.", "I have regarded it as my duty."},
	}
	for _, tt := range tests {
		if got := standAlone(tt.in); got != tt.want {
			t.Errorf("standAlone(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEditorialNote(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{`[Footnote 1: The report dated January 1, 1946, is printed in House Document 398 (79th Cong., 2d sess.).]`, true},
		{"[Applause]", true},
		{"[Note: figures are preliminary", true},
		{"I request funding for NASA [National Aeronautics and Space Administration] and a strong space program.", false},
		{"[The President] spoke of the tariff, and Congress listened.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := editorialNote(tt.s); got != tt.want {
			t.Errorf("editorialNote(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestSummaryAndExtractionSkipEditorialNotes(t *testing.T) {
	e := newTestEngine()
	doc := "The tariff on wool was raised to 40 percent in 1890. " +
		"[Footnote 1: The tariff report of 1890 is printed in House Document 398.]"
	out := summarizeOf(t, e, tariffRequest, doc)
	if strings.Contains(out.Summary, "Footnote") {
		t.Errorf("summary %q quotes an editorial note", out.Summary)
	}
	got, _ := extractOf(t, e, prompts.QA{Question: "In which House Document is the tariff report of 1890 printed?", Answer: "House Document 398"},
		"[Footnote 1: The tariff report of 1890 is printed in House Document 398.]")
	if got.Found {
		t.Errorf("extraction cites an editorial note: %+v", got)
	}
}

// TestSummarizeLeavesOutAHeadingAlone: a heading in capitals on its own
// (between two sentences, as the written messages set them) holds the
// request's words but is no sentence of the summary.
func TestSummarizeLeavesOutAHeadingAlone(t *testing.T) {
	e := newTestEngine()
	doc := "THE TARIFF AND THE MCKINLEY TARIFF ACT. In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 49.5 percent. The Navy bought coal."
	for _, s := range summarySentences(e, summarizeOf(t, e, tariffRequest, doc).Summary) {
		if strings.Contains(s, "ACT") {
			t.Errorf("summary sentence %q is the heading", s)
		}
	}
}
