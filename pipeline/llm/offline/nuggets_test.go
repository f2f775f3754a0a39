package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// nuggetsOf runs the nuggets task on a summary and parses the answer.
func nuggetsOf(t *testing.T, e *Engine, req prompts.RequestInfo, summary string, max int) []prompts.QA {
	t.Helper()
	resp := complete(t, e, prompts.BuildNuggets(prompts.NuggetsInput{Request: req, DocID: "doc", Summary: summary, Max: max}))
	out, err := prompts.ParseNuggets(resp.Text)
	if err != nil {
		t.Fatalf("ParseNuggets(%q): %v", resp.Text, err)
	}
	if !out.Report.Empty() {
		t.Errorf("the parser dropped parts of the answer %q: %+v", resp.Text, out.Report)
	}
	return out.Nuggets
}

func TestNuggetQuestionsRestateTheClause(t *testing.T) {
	tests := []struct {
		name     string
		sentence string
		want     []prompts.QA
	}{
		{"fronted year", "In 1890 Congress passed the McKinley Tariff.", []prompts.QA{
			{Question: "In what year did Congress pass the McKinley Tariff?", Answer: "1890"}}},
		{"percentage with do-support", "The tariff raised duties on wool by 3 percent.", []prompts.QA{
			{Question: "By what percentage did the tariff raise duties on wool?", Answer: "3 percent"}}},
		{"subject name and year", "The Treaty of Ghent ended the war with Great Britain in 1815.", []prompts.QA{
			{Question: "In what year did the Treaty of Ghent end the war with Great Britain?", Answer: "1815"},
			{Question: "Which treaty ended the war with Great Britain in 1815?", Answer: "Treaty of Ghent"}}},
		{"place", "Troops landed in Cuba in June 1898.", []prompts.QA{
			{Question: "In what month did Troops land in Cuba?", Answer: "June 1898"},
			{Question: "Where did Troops land in June 1898?", Answer: "Cuba"}}},
		{"speaker's proposal asked by template", "I recommend that Congress appropriate $2,000,000 for the coast defenses of New York.", []prompts.QA{
			{Question: "What amount of money is given for the coast defenses of New York?", Answer: "$2,000,000"}}},
		{"parenthetical year moved", "Congress, in 1894, lowered the duties on wool.", []prompts.QA{
			{Question: "In what year did Congress lower the duties on wool?", Answer: "1894"}}},
		{"counted noun with its preposition", "The Secretary of the Navy asks for 12,000 more seamen.", []prompts.QA{
			{Question: "For how many more seamen does the Secretary of the Navy ask?", Answer: "12,000 more seamen"}}},
		{"date keeps its comma", "President Harrison signed the McKinley Tariff on October 1, 1890, after a long debate in the Senate.", []prompts.QA{
			{Question: "On what date did President Harrison sign the McKinley Tariff?", Answer: "October 1, 1890"},
			{Question: "Who signed the McKinley Tariff on October 1, 1890?", Answer: "President Harrison"}}},
		{"a relative clause makes no readable question", "Revenue from customs, which had reached $229,000,000, fell sharply after the tariff took effect.", nil},
		{"a template's phrase ends before a name it would cut at its end", "He said the value of the grain crop of the United States was $500,000,000.", []prompts.QA{
			{Question: "What amount of money is given for the value of the grain crop?", Answer: "$500,000,000"}}},
		{"a template's phrase ends before a name it would cut", "He said $8,000,000 went to the gradual improvement of the Navy of the United States.", []prompts.QA{
			{Question: "What amount of money is given for the gradual improvement?", Answer: "$8,000,000"}}},
		{"a verb in -s after a noun ends no template's phrase", "History records the power of the ideas of liberty that brought us here those 7 years ago.", []prompts.QA{
			{Question: "How many years are given for the power of the ideas of liberty?", Answer: "7 years"}}},
		{"a stretch of time is no template's subject", "We spent $20,000,000 in the past year on new lighthouses.", []prompts.QA{
			{Question: "What amount of money is given for new lighthouses?", Answer: "$20,000,000"}}},
		{"a template with only a stretch of time asks nothing", "We have spent $20,000,000 over the past year.", nil},
		{"a template's phrase from the sentence's start takes the summary's case", "Fortification works were completed by him on March 1, 1946. He spoke of fortification.", []prompts.QA{
			{Question: "What date is given for fortification works?", Answer: "March 1, 1946"}}},
		{"a name opening the sentence keeps its capital", "Organization of American States members met with him in 1948.", []prompts.QA{
			{Question: "What year is given for Organization of American States?", Answer: "1948"}}},
		{"pronoun subject gives a template", "He signed the tariff bill in 1890.", []prompts.QA{
			{Question: "What year is given for the tariff bill?", Answer: "1890"}}},
		{"modifier year is not asked in place", "The 1890 census counted 62 million people.", []prompts.QA{
			{Question: "How many people did the 1890 census count?", Answer: "62 million people"}}},
		{"a phrase from the sentence's start keeps no capital article", "The crime bill of 1994 was signed into law by the President.", []prompts.QA{
			{Question: "What year is given for the crime bill?", Answer: "1994"}}},
		{"a clause opened by whereas gives a template", "Whereas the Congress of the United States, by its joint resolution of April 20, 1898, declared the island free.", []prompts.QA{
			{Question: "What date is given for the joint resolution?", Answer: "April 20, 1898"}}},
		{"a number opens a subject", "And in the 1970's three American Presidents negotiated with the Soviet leaders.", []prompts.QA{
			{Question: "In what decade did three American Presidents negotiate with the Soviet leaders?", Answer: "1970's"}}},
		{"modal verb", "The surplus in the Treasury will reach $140,000,000.", []prompts.QA{
			{Question: "How much will the surplus in the Treasury reach?", Answer: "$140,000,000"}}},
		{"long parenthetical dropped", "The treaty between the United States and the Republic of Panama, under which the construction of the Panama Canal " +
			"was made possible by the long and patient labour of many diplomats and engineers over the years, went into effect on February 23, 1904.", []prompts.QA{
			{Question: "On what date did the treaty between the United States and the Republic of Panama go into effect?", Answer: "February 23, 1904"}}},
		{"contracted pronoun gives a template", "He's a veteran who has worked for the Social Security Administration for 22 years now.", []prompts.QA{
			{Question: "How many years are given for the Social Security Administration?", Answer: "22 years"}}},
		{"a name with no question to ask it in gives none", "Puerto Rico and the Philippines hold a different relation to the United States.", nil},
		{"verbs coordinated after the fact are left out", "The vessels had reached Lake Ontario and were there awaiting the opening of navigation.", []prompts.QA{
			{Question: "What had the vessels reached?", Answer: "Lake Ontario"}}},
		{"a fragment gives none", "Except, possibly, a few engaged in the trade between the two sections.", nil},
		{"no fact", "The tariff is a matter for the people.", nil},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nuggetsOf(t, e, tariffRequest, tt.sentence, 10)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nuggets of %q (-want +got)\n%s", tt.sentence, diff)
			}
		})
	}
}

func TestNuggetsFromASummary(t *testing.T) {
	e := newTestEngine()
	summary := summarizeOf(t, e, tariffRequest, tariffAddress).Summary
	got := nuggetsOf(t, e, tariffRequest, summary, prompts.DefaultMaxNuggets)
	if len(got) < 3 || len(got) > prompts.DefaultMaxNuggets {
		t.Fatalf("%d nuggets, want 3 to %d: %+v", len(got), prompts.DefaultMaxNuggets, got)
	}
	answers := map[string]bool{}
	for _, qa := range got {
		if answers[qa.Answer] {
			t.Errorf("answer %q given twice", qa.Answer)
		}
		answers[qa.Answer] = true
		if !strings.Contains(summary, qa.Answer) {
			t.Errorf("answer %q is not in the summary", qa.Answer)
		}
		if n := len(strings.Fields(qa.Answer)); n > 8 {
			t.Errorf("answer %q has %d words; answers are short", qa.Answer, n)
		}
		if !strings.HasSuffix(qa.Question, "?") || strings.Contains(qa.Question, qa.Answer) {
			t.Errorf("question %q: not a question, or it gives its answer %q away", qa.Question, qa.Answer)
		}
		// Self-contained: it names what it is about, in the summary's words.
		shared := 0
		for _, term := range distinct(e.questionTerms(qa.Question)) {
			if strings.Contains(strings.ToLower(summary), term) {
				shared++
			}
		}
		if shared < 2 {
			t.Errorf("question %q shares %d terms with the summary", qa.Question, shared)
		}
	}
	// The first nuggets come from the most relevant sentences: the one
	// about the McKinley Tariff's duties is among them.
	if !answers["49.5 percent"] && !answers["1890"] {
		t.Errorf("no nugget about the McKinley Tariff's passage or duties: %+v", got)
	}
}

func TestNuggetsSpreadOverSentencesAndRespectMax(t *testing.T) {
	e := newTestEngine()
	summary := "In 1890 Congress passed the McKinley Tariff, which raised duties by 49.5 percent and cut revenue by $50,000,000. " +
		"The tariff on tin plate took effect in July 1891."
	got := nuggetsOf(t, e, tariffRequest, summary, 2)
	if len(got) != 2 {
		t.Fatalf("%d nuggets with Max 2: %+v", len(got), got)
	}
	if got[1].Answer != "July 1891" && got[0].Answer != "July 1891" {
		t.Errorf("both nuggets come from the first sentence: %+v", got)
	}
	if n := len(nuggetsOf(t, e, tariffRequest, summary, 0)); n > prompts.DefaultMaxNuggets {
		t.Errorf("Max 0 gave %d nuggets, more than the default %d", n, prompts.DefaultMaxNuggets)
	}
}

func TestNuggetsLeaveOutTheRequestsOwnSubject(t *testing.T) {
	// "McKinley Tariff" is what the request is about; asking which tariff
	// the sentence names is no news.
	got := nuggetsOf(t, newTestEngine(), tariffRequest, "The McKinley Tariff angered farmers in Kansas.", 10)
	for _, qa := range got {
		if qa.Answer == "McKinley Tariff" {
			t.Errorf("nugget %+v answers with the request's subject", qa)
		}
	}
}

func TestNuggetsNoneForEmptySummary(t *testing.T) {
	resp := complete(t, newTestEngine(), prompts.BuildNuggets(prompts.NuggetsInput{Request: tariffRequest, Summary: "  "}))
	if resp.Text != "NONE" {
		t.Errorf("answer %q, want NONE", resp.Text)
	}
}

func TestNuggetsSkipAnswersTheRequestStates(t *testing.T) {
	req := tariffRequest
	req.Title = "The McKinley Tariff of 1890"
	got := nuggetsOf(t, newTestEngine(), req, "In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 49.5 percent.", 5)
	if len(got) == 0 {
		t.Fatal("no nugget at all")
	}
	for _, qa := range got {
		if qa.Answer == "1890" {
			t.Errorf("nugget %+v answers with what the request already says", qa)
		}
	}
}

func TestNuggetsKeepNamesTheRequestOnlyDescribes(t *testing.T) {
	// The request asks about "Carter's new department" of an energy
	// crisis: every word of "Department of Energy" is a request term, yet
	// the name is what the requester wants to learn. "1980", which the
	// request writes out ("1973-1980"), is still no news.
	req := prompts.RequestInfo{
		Title:            "The energy crisis of the 1970s",
		ProblemStatement: "Report on the energy crisis of 1973-1980: the embargo, Carter's new department and the synthetic fuels program.",
	}
	got := nuggetsOf(t, newTestEngine(), req, "In 1977 Congress created the Department of Energy. The goal was to end imports by 1980.", 10)
	var answers []string
	for _, qa := range got {
		answers = append(answers, qa.Answer)
	}
	has := func(a string) bool { return slices.Contains(answers, a) }
	if !has("Department of Energy") {
		t.Errorf("answers %q lack the department's name", answers)
	}
	if has("1980") {
		t.Errorf("answers %q include 1980, which the request states", answers)
	}
}

func TestTemplateKeyphraseOpensAfterUpon(t *testing.T) {
	// The clause leans on "we", so the question is a template; its topic
	// is the phrase after "upon".
	got := nuggetsOf(t, newTestEngine(), tariffRequest, "In 1973 we were dependent upon foreign oil imports for 36 percent of our needs.", 10)
	want := prompts.QA{Question: "What percentage is given for foreign oil imports?", Answer: "36 percent"}
	if !slices.Contains(got, want) {
		t.Errorf("nuggets %+v lack %+v", got, want)
	}
}

// The part of the request a topic question names reads as a noun phrase
// or as the clause a heading is: "the surplus that drove the debate",
// "whether the United States joined" (not "the whether ...").
func TestTopicOf(t *testing.T) {
	terms := testAnalyzer{}.Terms
	facets := []pipeline.Facet{
		{Heading: "Surplus that drove the debate", Description: "the surplus revenue"},
		{Heading: "Whether the United States joined", Description: "the League of Nations covenant"},
		{Heading: "How and when Louisiana was acquired", Description: "the purchase treaty"},
	}
	m := pipeline.NewFacetMatcher(facets, terms)
	for _, tc := range []struct{ sentence, want string }{
		{"The surplus revenue grew again.", "the surplus that drove the debate"},
		{"The covenant of the League of Nations was not ratified.", "whether the United States joined"},
		{"The purchase treaty was signed in Paris.", "how and when Louisiana was acquired"},
	} {
		if got := topicOf(m, facets, tc.sentence); got != tc.want {
			t.Errorf("topicOf(%q) = %q, want %q", tc.sentence, got, tc.want)
		}
	}
	// A name keeps its capital: the description writes it so inside a
	// phrase ("the Seminole war"); a common word does not ("Surplus").
	named := []pipeline.Facet{
		{Heading: "Seminole war", Description: "The Seminole war and the pursuit into Florida"},
		{Heading: "American attitude to German reparations", Description: "The American attitude to German reparations"},
	}
	m = pipeline.NewFacetMatcher(named, terms)
	for _, tc := range []struct{ sentence, want string }{
		{"The Seminole war was carried into Florida.", "the Seminole war"},
		{"German reparations were reduced again.", "the American attitude to German reparations"},
	} {
		if got := topicOf(m, named, tc.sentence); got != tc.want {
			t.Errorf("topicOf(%q) = %q, want %q", tc.sentence, got, tc.want)
		}
	}
}

// A heading whose pronoun has nothing in it to stand for is no topic: a
// question asked "regarding the treaty made with it" could not be read
// without its sentence.
func TestTopicOfDanglingHeading(t *testing.T) {
	facets := []pipeline.Facet{
		{Heading: "Treaty made with it", Description: "the treaty made with it"},
		{Heading: "Commercial treaties and their renewal", Description: "the commercial treaties and their renewal"},
	}
	m := pipeline.NewFacetMatcher(facets, testAnalyzer{}.Terms)
	if got := topicOf(m, facets, "The treaty made with Korea was signed."); got != "" {
		t.Errorf("topicOf = %q, want none for a dangling heading", got)
	}
	if got := topicOf(m, facets, "The commercial treaties were renewed for ten years."); got != "the commercial treaties and their renewal" {
		t.Errorf("topicOf = %q, want the heading whose pronoun has its noun", got)
	}
	if q := topicQuestion(fact{kind: factName, head: "treaty"}, "", nil); q != "" {
		t.Errorf("topicQuestion without a topic = %q, want none", q)
	}
}

// A heading that says what its facet is about is asked regarding that
// ("federal taxes", not "the on federal taxes"); one that opens with no
// noun (a preposition, "such", participles standing alone) is no topic,
// and a participle before its noun is.
func TestTopicOfHeadingWithoutNoun(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"On federal taxes", "federal taxes"},
		{"About the continuing Soviet war in Afghanistan", "the continuing Soviet war in Afghanistan"},
		{"About how United States attorneys", ""},
		{"Under Taft", ""},
		{"In which field each record was claimed", ""},
		{"Such as American help for a Peruvian port", ""},
		{"Conveyed and still due", ""},
		{"Ceded, approved and patented under the grants", ""},
		{"Dedicated or proposed", ""},
		{"Reduced duties on wool", "the reduced duties on wool"},
		{"On-site inspection and international inspectors", "the on-site inspection and international inspectors"},
		{"How and when Louisiana was acquired", "how and when Louisiana was acquired"},
	} {
		facets := []pipeline.Facet{{Heading: tc.heading, Description: tc.heading}}
		m := pipeline.NewFacetMatcher(facets, testAnalyzer{}.Terms)
		if got := topicOf(m, facets, "An unrelated sentence about nothing here."); got != tc.want {
			t.Errorf("topicOf with heading %q = %q, want %q", tc.heading, got, tc.want)
		}
	}
	f := fact{kind: factYear}
	if q := topicQuestion(f, "federal taxes", nil); q != "What year is given regarding federal taxes?" {
		t.Errorf("topicQuestion = %q", q)
	}
}

// A plural kind of name is asked with "are".
func TestMentionQuestionAgreement(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{"islands", "Which islands are mentioned regarding the cable across the Pacific?"},
		{"treaty", "Which treaty is mentioned regarding the cable across the Pacific?"},
		{"address", "Which address is mentioned regarding the cable across the Pacific?"},
	} {
		if got := mentionQuestion(fact{head: tc.head}, "the cable across the Pacific", " regarding "); got != tc.want {
			t.Errorf("mentionQuestion(%q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

// A name with no head but a kind (a country, a government, a State) is
// asked by its kind, even where it stood after "in"; one with neither is
// asked for as a name.
func TestMentionQuestionKinds(t *testing.T) {
	for _, tc := range []struct {
		f    fact
		want string
	}{
		{fact{sort: "country", place: true}, "Which country is mentioned regarding the tariff?"},
		{fact{sort: "State"}, "Which State is mentioned regarding the tariff?"},
		{fact{place: true}, "Which place is mentioned regarding the tariff?"},
		{fact{}, "What name is mentioned regarding the tariff?"},
	} {
		if got := mentionQuestion(tc.f, "the tariff", " regarding "); got != tc.want {
			t.Errorf("mentionQuestion(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestSharedHeadEnd: a phrase ending on a word that "and" joins to the
// head both share takes that head in; other coordinations are left.
func TestSharedHeadEnd(t *testing.T) {
	tests := []struct {
		text, last, want string
	}{
		{"the conduct of the Diplomatic and Consular Services in the last four years", "Diplomatic", "Services"},
		{"enforcing the various Federal trust and interstate-commerce laws, the sum", "trust", "laws"},
		{"the treaty with France and Great Britain was signed", "France", "France"},
		{"the ships and the crews were lost", "ships", "ships"},
		{"the price of wheat and cotton exports fell", "wheat", "exports"},
		{"the price of wheat and cotton fell", "wheat", "wheat"},
	}
	for _, tt := range tests {
		toks := tokenize(tt.text)
		content := make([]bool, len(toks))
		end := -1
		for i, tok := range toks {
			content[i] = tok.kind == tokWord && !articles[tok.lower()] && !prepositions[tok.lower()] &&
				!tok.is("and") && !tok.is("or") && !auxiliaries[tok.lower()] && tok.lower() != "fell"
			if tok.text == tt.last && end < 0 {
				end = i
			}
		}
		if got := toks[sharedHeadEnd(toks, content, end)].text; got != tt.want {
			t.Errorf("%q: the phrase ending at %q ends at %q, want %q", tt.text, tt.last, got, tt.want)
		}
	}
}

// A template question names a noun phrase with a head: not a quantity
// word alone ("the sum", "the total") nor an adjective or number word
// that wants its noun ("an additional", "the next", "the wealthiest").
func TestNounPhraseWantsAHead(t *testing.T) {
	e := newTestEngine()
	wt := e.newWordTerms()
	for _, tc := range []struct {
		phrase string
		want   bool
	}{
		{"the sum", false},
		{"the total", false},
		{"an additional", false},
		{"the next", false},
		{"the wealthiest", false},
		{"several", false},
		{"the sum of the claims", true},
		{"the additional duties", true},
		{"the public debt", true},
		{"the largest steamers", true},
	} {
		if got := nounPhrase(tc.phrase, wt); got != tc.want {
			t.Errorf("nounPhrase(%q) = %v, want %v", tc.phrase, got, tc.want)
		}
	}
}
