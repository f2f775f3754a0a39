package offline

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// yesNo runs a yes/no request and returns the parsed answer and the
// probability its log-probabilities give; it checks that they agree.
func yesNo(t *testing.T, e *Engine, req pipeline.ModelRequest, parse func(string) (bool, error)) (bool, float64) {
	t.Helper()
	resp := complete(t, e, req)
	yes, err := parse(resp.Text)
	if err != nil {
		t.Fatalf("parse %q: %v", resp.Text, err)
	}
	p, ok := prompts.YesProbability(resp)
	if !ok {
		t.Fatalf("YesProbability: no yes/no token in %+v", resp.TokenLogprobs)
	}
	if yes != (p >= 0.5) {
		t.Errorf("answer %q disagrees with its probability %g", resp.Text, p)
	}
	return yes, p
}

func paraphraseYes(t *testing.T, e *Engine, a, b prompts.QA) (bool, float64) {
	t.Helper()
	return yesNo(t, e, prompts.BuildParaphrase(prompts.ParaphraseInput{Request: tariffRequest, A: a, B: b}),
		func(s string) (bool, error) { out, err := prompts.ParseParaphrase(s); return out.Same, err })
}

func TestParaphrase(t *testing.T) {
	passed := tariffNugget
	tests := []struct {
		name string
		a, b prompts.QA
		want bool
	}{
		{"same nugget", passed, passed, true},
		{"reworded question, same answer", passed,
			prompts.QA{Question: "In what year did Congress enact the McKinley Tariff?", Answer: "in 1890"}, true},
		{"template and clause question, same answer", passed,
			prompts.QA{Question: "What year is given for the McKinley Tariff passed by Congress?", Answer: "1890"}, true},
		{"same number written differently",
			prompts.QA{Question: "The new tariff act reduced the revenue from sugar by how much?", Answer: "$50,000,000"},
			prompts.QA{Question: "By how much did the tariff act reduce sugar revenue?", Answer: "50000000 dollars"}, true},
		{"different fact of the same law", passed,
			prompts.QA{Question: "The McKinley Tariff raised duties on imports to an average of what percentage?", Answer: "49.5 percent"}, false},
		{"same answer, different events", passed,
			prompts.QA{Question: "The census counted the people of Idaho in what year?", Answer: "1890"}, false},
		{"same words, different kind of answer",
			prompts.QA{Question: "What year is given for the tariff on tin plate?", Answer: "1891"},
			prompts.QA{Question: "What amount of money is given for the tariff on tin plate?", Answer: "$2,000,000"}, false},
		{"same words, one asks who and one which law",
			prompts.QA{Question: "Who is named in connection with the tariff on tin plate?", Answer: "President Harrison"},
			prompts.QA{Question: "Which act is named in connection with the tariff on tin plate?", Answer: "McKinley Act"}, false},
		{"unrelated", passed,
			prompts.QA{Question: "How many cruisers did the Navy complete?", Answer: "three"}, false},
		{"blank question", passed, prompts.QA{Question: "?", Answer: "1890"}, false},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, p := paraphraseYes(t, e, tt.a, tt.b)
			if got != tt.want {
				t.Errorf("same = %v (p %.2f), want %v", got, p, tt.want)
			}
			back, q := paraphraseYes(t, e, tt.b, tt.a)
			if back != got || math.Abs(p-q) > 1e-9 {
				t.Errorf("not symmetric: p(A,B) = %g, p(B,A) = %g", p, q)
			}
		})
	}
}

func TestParaphraseConfidenceOrdersPairs(t *testing.T) {
	e := newTestEngine()
	_, same := paraphraseYes(t, e, tariffNugget, tariffNugget)
	_, reworded := paraphraseYes(t, e, tariffNugget, prompts.QA{Question: "In what year did Congress enact the McKinley Tariff?", Answer: "1890"})
	_, other := paraphraseYes(t, e, tariffNugget, prompts.QA{Question: "Which country signed a reciprocity treaty in 1891?", Answer: "Brazil"})
	if !(same > reworded && reworded > other) {
		t.Errorf("p(same) = %.3f, p(reworded) = %.3f, p(other) = %.3f; want them in decreasing order", same, reworded, other)
	}
}

func qualityOf(t *testing.T, e *Engine, req prompts.RequestInfo, qa prompts.QA) prompts.NuggetQualityOutput {
	t.Helper()
	resp := complete(t, e, prompts.BuildNuggetQuality(prompts.NuggetQualityInput{Request: req, Nugget: qa}))
	out, err := prompts.ParseNuggetQuality(resp.Text)
	if err != nil {
		t.Fatalf("ParseNuggetQuality(%q): %v", resp.Text, err)
	}
	if !out.Report.Empty() {
		t.Errorf("parse report of %q: %+v", resp.Text, out.Report)
	}
	return out
}

func TestNuggetQuality(t *testing.T) {
	tests := []struct {
		name string
		qa   prompts.QA
		want prompts.NuggetQualityOutput
	}{
		{"on the task, a date", prompts.QA{Question: "Congress passed the McKinley Tariff raising import duties in what year?", Answer: "1890"},
			prompts.NuggetQualityOutput{Task: 5, Background: 3, Role: 5, Style: 5, Scope: 5, Vital: true, Researchy: false}},
		{"on the task, how it worked", prompts.QA{Question: "How did the McKinley Tariff change the prices of wool and tin plate?", Answer: "the prices rose sharply after the tariff"},
			prompts.NuggetQualityOutput{Task: 5, Background: 3, Role: 4, Style: 5, Scope: 5, Vital: false, Researchy: true}},
		{"off the subject", prompts.QA{Question: "How many new cruisers did the Navy complete this year?", Answer: "three new cruisers"},
			prompts.NuggetQualityOutput{Task: 0, Background: 0, Role: 1, Style: 5, Scope: 0, Vital: false, Researchy: false}},
		{"template question, long answer", prompts.QA{Question: "What is named in connection with the tariff?",
			Answer: "the reciprocity clause that opens the way to a large trade with Brazil and Cuba and several other republics"},
			prompts.NuggetQualityOutput{Task: 3, Background: 3, Role: 3, Style: 1, Scope: 3, Vital: false, Researchy: true}},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := qualityOf(t, e, tariffRequest, tt.qa)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(prompts.NuggetQualityOutput{}, "Report", "Question")); diff != "" {
				t.Errorf("quality (-want +got)\n%s", diff)
			}
		})
	}
}

// TestQuestionProfile checks the offline question profile (questionProfile)
// through the nugget_quality prompt: each case states what its profile
// must show, by the rules the profile documents.
func TestQuestionProfile(t *testing.T) {
	e := newTestEngine()
	tests := []struct {
		name  string
		qa    prompts.QA
		check func(p prompts.QuestionProfile) bool
	}{
		{"a named date is a plain factoid",
			prompts.QA{Question: "Congress passed the McKinley Tariff raising import duties in what year?", Answer: "1890"},
			func(p prompts.QuestionProfile) bool {
				return p.Nonfactoid == 0 && p.Reasoning == 0 && p.Decompositional == 0 && p.Subjective == 0 &&
					p.Harmful == 0 && p.Assumptive == 0 && p.Incomplete <= 2 && p.Ambiguous <= 1 && p.Knowledge >= 2
			}},
		{"a why question of two parts and a value",
			prompts.QA{Question: "Why should Congress have repealed the tariff, and what did the repeal do to prices and wages?",
				Answer: "the duties raised the cost of living for every family"},
			func(p prompts.QuestionProfile) bool {
				return p.Subjective >= 2 && p.Assumptive >= 2 && p.Reasoning >= 4 && p.Decompositional >= 4 &&
					p.Multifaceted >= 3 && p.Nonfactoid == 5
			}},
		{"asking how to do harm",
			prompts.QA{Question: "How can a bomb be made from fertiliser?", Answer: "a mixture of fuel oil and nitrate"},
			func(p prompts.QuestionProfile) bool { return p.Harmful >= 4 }},
		{"asking what harm was done",
			prompts.QA{Question: "Which attack on the embassy did the President describe in 1998?", Answer: "the bombing in Nairobi"},
			func(p prompts.QuestionProfile) bool { return p.Harmful == 1 }},
		{"a vague question",
			prompts.QA{Question: "What did it do to them?", Answer: "a great deal of good"},
			func(p prompts.QuestionProfile) bool { return p.Ambiguous == 5 && p.Incomplete == 4 && p.Knowledge == 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := qualityOf(t, e, tariffRequest, tt.qa).Question
			if !tt.check(got) {
				t.Errorf("profile of %q: %+v", tt.qa.Question, got)
			}
		})
	}
}

func TestNuggetQualityWithoutBackground(t *testing.T) {
	req := tariffRequest
	req.Background = ""
	got := qualityOf(t, newTestEngine(), req, tariffNugget)
	if got.Background != got.Task {
		t.Errorf("background %d without a background, want the task score %d", got.Background, got.Task)
	}
}

func verifySupportYes(t *testing.T, e *Engine, sentence, passage string) (bool, float64) {
	t.Helper()
	return yesNo(t, e, prompts.BuildVerifySupport(prompts.VerifySupportInput{Sentence: sentence, PassageText: passage}),
		func(s string) (bool, error) { out, err := prompts.ParseVerifySupport(s); return out.Yes, err })
}

func TestVerifySupport(t *testing.T) {
	tests := []struct {
		name, sentence, passage string
		want                    bool
	}{
		{"verbatim", "In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 49.5 percent.", tariffAddress, true},
		{"reworded with the passage's words", "Congress passed the McKinley Tariff in 1890.", tariffAddress, true},
		{"a number the passage does not give", "In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 60 percent.", tariffAddress, false},
		{"a claim the passage does not make", "The McKinley Tariff caused a financial panic and mass unemployment in the cities.", tariffAddress, false},
		{"unrelated", "Four new battleships were launched at Philadelphia.", tariffAddress, false},
		{"no passage, only the support", "Congress passed the McKinley Tariff in 1890.", "", false},
		{"empty sentence", "", tariffAddress, false},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, p := verifySupportYes(t, e, tt.sentence, tt.passage); got != tt.want {
				t.Errorf("supported = %v (p %.2f), want %v", got, p, tt.want)
			}
		})
	}
	// Without a passage, the cited support is read.
	got, _ := yesNo(t, e, prompts.BuildVerifySupport(prompts.VerifySupportInput{Sentence: "Congress passed the McKinley Tariff in 1890.",
		SupportText: "In 1890 Congress passed the McKinley Tariff."}),
		func(s string) (bool, error) { out, err := prompts.ParseVerifySupport(s); return out.Yes, err })
	if !got {
		t.Error("a sentence its cited support states is not supported when the passage is missing")
	}
}

// TestVerifySupportShortName: an attribution by surname is supported by
// the byline's full name as well as the full name would be, also where
// the metadata writes the surname in two words ("William Mc Kinley",
// McKinley); a name the byline does not hold is not.
func TestVerifySupportShortName(t *testing.T) {
	e := newTestEngine()
	passage := "Hawaii was annexed."
	support := func(sentence, author string) float64 {
		t.Helper()
		got, p := yesNo(t, e, prompts.BuildVerifySupport(prompts.VerifySupportInput{Sentence: sentence, SupportText: passage,
			PassageText: passage, DocAuthor: author, DocDate: "1898-12-05"}),
			func(s string) (bool, error) { out, err := prompts.ParseVerifySupport(s); return out.Yes, err })
		if !got {
			t.Errorf("%q by %s: not supported (p %.2f)", sentence, author, p)
		}
		return p
	}
	full := support("In 1898, William Mc Kinley reported that Hawaii was annexed.", "William Mc Kinley")
	for _, s := range []string{"In 1898, McKinley reported that Hawaii was annexed.", "In 1898, Mc Kinley reported that Hawaii was annexed."} {
		if p := support(s, "William Mc Kinley"); p < full {
			t.Errorf("%q: p %.2f, below the full name's %.2f", s, p, full)
		}
	}
	if p := support("In 1898, McKinley reported that Hawaii was annexed.", "Abraham Lincoln"); p >= full {
		t.Errorf("a name the byline does not hold: p %.2f, not below the full name's %.2f", p, full)
	}
}

func TestVerifyCoverage(t *testing.T) {
	tests := []struct {
		name     string
		nugget   prompts.QA
		sentence string
		want     bool
	}{
		{"answers", tariffNugget, "In 1890 Congress passed the McKinley Tariff.", true},
		{"answers with another number format", prompts.QA{Question: "The new tariff act reduced the revenue from sugar by how much?", Answer: "$50,000,000"},
			"Sugar revenue was reduced by 50000000 dollars under the new tariff act.", true},
		{"answers differently", prompts.QA{Question: "The Secretary of the Navy asks for how many more seamen?", Answer: "12,000 more seamen"},
			"The Secretary of the Navy asks for 15,000 more seamen.", true},
		{"same year, other event", tariffNugget, "In 1890 the census counted the people of Idaho.", false},
		{"subject without the answer", tariffNugget, "The McKinley Tariff was debated for months.", false},
		{"unrelated", tariffNugget, "Four new battleships were launched at Philadelphia.", false},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := prompts.BuildVerifyCoverage(prompts.VerifyCoverageInput{Nugget: tt.nugget, Sentence: tt.sentence})
			got, p := yesNo(t, e, req, func(s string) (bool, error) { out, err := prompts.ParseVerifyCoverage(s); return out.Yes, err })
			if got != tt.want {
				t.Errorf("covers = %v (p %.2f), want %v", got, p, tt.want)
			}
		})
	}
}

func TestYesNoProbabilitiesAreTheEnginesOwn(t *testing.T) {
	e := newTestEngine()
	para := prompts.ParaphraseInput{Request: tariffRequest, A: tariffNugget, B: prompts.QA{Question: "In what year did Congress enact the McKinley Tariff?", Answer: "1890"}}
	support := prompts.VerifySupportInput{Sentence: "Congress passed the McKinley Tariff in 1890.", PassageText: tariffAddress}
	coverage := prompts.VerifyCoverageInput{Nugget: tariffNugget, Sentence: "Wool prices rose in 1890."}
	tests := []struct {
		name string
		req  pipeline.ModelRequest
		want float64
	}{
		{"paraphrase", prompts.BuildParaphrase(para), e.paraphrase(para)},
		{"verify_support", prompts.BuildVerifySupport(support), e.verifySupport(support)},
		{"verify_coverage", prompts.BuildVerifyCoverage(coverage), e.verifyCoverage(coverage)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := prompts.YesProbability(complete(t, e, tt.req))
			if !ok || math.Abs(got-tt.want) > 0.01 {
				t.Errorf("YesProbability = %g (%v), the engine computed %g", got, ok, tt.want)
			}
		})
	}
}
