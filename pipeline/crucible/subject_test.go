package crucible

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
)

// fakeDocFreq is a collection of 1,000 passages in which each listed term
// occurs as often as given; every other term occurs in 10.
func fakeDocFreq(df map[string]int) DocFreq {
	return func(_ context.Context, terms []string) (int, map[string]int, error) {
		out := map[string]int{}
		for _, t := range terms {
			if n, ok := df[t]; ok {
				out[t] = n
			} else {
				out[t] = 10
			}
		}
		return 1000, out, nil
	}
}

// fakePairFreq counts the passages holding both words of each listed
// pair as given; none hold both words of any other pair.
func fakePairFreq(both map[[2]string]int) PairFreq {
	return func(_ context.Context, pairs [][2]string) (map[[2]string]int, error) {
		out := map[[2]string]int{}
		for _, p := range pairs {
			out[p] = both[p]
		}
		return out, nil
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestSubject(t *testing.T) {
	req := pipeline.Request{
		Title:            "Tariff debates from Cleveland to Taft, 1887-1910",
		ProblemStatement: "Trace the tariff acts and the reciprocity treaties. Describe the social security of workers and the HIV/AIDS programs.",
	}
	// The request's best passages: "tariff" everywhere, "reciprocity"
	// in a few, "social security" written together in several, the
	// speakers' names nowhere.
	best := append(repeat("the tariff raised duties on imports", 60),
		"reciprocity with brazil", "reciprocity with cuba", "reciprocity with spain",
		"social security for workers", "social security for the aged", "social security taxes",
		"the acts of congress")
	df := fakeDocFreq(map[string]int{
		"tariff": 25, "reciprocity": 5, "cleveland": 63, "taft": 41, "acts": 150, "treaties": 87,
		"social": 32, "security": 148, "workers": 300, "programs": 67, "aids": 49,
	})
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text        string
		anchorsOnly bool
		want        bool
	}{
		{"The tariff of 1890 raised duties.", false, true},              // an anchor
		{"A reciprocity arrangement with Brazil.", false, true},         // an anchor in three best passages
		{"Taft sent a message to Congress in 1909.", false, false},      // a speaker the request names, not its subject
		{"The acts of 1890 and the treaties.", false, false},            // request terms too common to anchor
		{"Social security benefits were raised.", false, true},          // a phrase
		{"Social security benefits were raised.", true, false},          // a phrase does not count out of period
		{"Security and social order were restored.", false, false},      // the phrase's words apart
		{"Funding for AIDS research doubled.", false, true},             // an acronym as written
		{"Foreign aids to Cuba were sent.", false, false},               // "aids" in lower case is no acronym
		{"Trace and describe the debates from 1887.", false, false},     // request words and years
		{"The TARIFF was debated.", true, true},                         // anchors match in any case
		{"Programs for workers grew under the new plan.", false, false}, // common request terms
	}
	for _, tt := range tests {
		if got := s.covers(tt.text, tt.anchorsOnly); got != tt.want {
			t.Errorf("covers(%q, anchorsOnly=%v) = %v, want %v", tt.text, tt.anchorsOnly, got, tt.want)
		}
	}
	// What an empty report's problem names as the subject: the anchors and
	// the phrases' words as the request writes them, then its acronyms;
	// not the speakers, the request words or the common terms.
	if got, want := quotedWords(s.names(req)), `"tariff", "reciprocity", "social", "security", "HIV", "AIDS"`; got != want {
		t.Errorf("names = %s, want %s", got, want)
	}
}

func TestSubjectWithoutStatistics(t *testing.T) {
	req := pipeline.Request{Title: "Panama Canal", ProblemStatement: "How was the canal built?"}
	best := append(repeat("the panama canal was dug", 5), "locks")
	s, err := newSubject(context.Background(), req, best, words, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.covers("Work on the canal began.", false) || s.covers("The locks were built.", false) {
		t.Error("without statistics, the request terms in three of its best passages should be its subject")
	}
	// An analyzer-less engine holds no sentence to a subject.
	none, err := newSubject(context.Background(), req, best, nil, nil, nil)
	if err != nil || !none.covers("anything at all", true) || !none.empty() {
		t.Errorf("a subject without an analyzer should cover everything (err %v)", err)
	}
	// A request whose terms never occur in its passages has an empty
	// subject: every text speaks of it.
	empty, err := newSubject(context.Background(), req, []string{"nothing here"}, words, fakeDocFreq(nil), nil)
	if err != nil || !empty.empty() || !empty.covers("The locks were built.", false) {
		t.Errorf("an empty subject should cover everything (err %v)", err)
	}
}

func TestSubjectStatisticsError(t *testing.T) {
	boom := errors.New("index closed")
	_, err := newSubject(context.Background(), pipeline.Request{Title: "Panama Canal", ProblemStatement: "x"},
		repeat("panama canal", 5), words, func(context.Context, []string) (int, map[string]int, error) { return 0, nil, boom }, nil)
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the statistics' error", err)
	}
}

func TestOnTopicKeepsCandidatesOfTheSubject(t *testing.T) {
	r := &run{e: &Engine{Terms: words},
		subject: &subject{terms: words, anchors: map[string]bool{"tariff": true, "wool": true},
			phrases: map[[2]string]bool{{"protective", "duties"}: true}, acronyms: map[string]bool{},
			words: map[string]bool{"duties": true, "imports": true}},
		query:        analysis.NewSet([]string{"tariff", "debates"}),
		inPeriod:     map[string]bool{"in": true},
		bestPassages: map[string]bool{pipeline.PassageID("in", 0): true, pipeline.PassageID("out", 0): true}}
	// quoted is the sentence the offline engine writes from a span:
	// an attribution, then the span's words.
	quoted := func(label, span string) string { return "In 1890, Harrison " + label + " reported: “" + span + "”" }
	cand := func(nugget, label, support, doc string, ordinal int) pipeline.Candidate {
		return pipeline.Candidate{NuggetID: nugget, Sentence: quoted(label, support), Support: support,
			Citation: pipeline.Citation{DocID: doc, Ordinal: ordinal}}
	}
	cands := []pipeline.Candidate{
		cand("n1", "A", "The tariff raised the duties.", "in", 0),                                                              // an anchor and a favoured word of the request
		cand("n1", "B", "The tariff rose.", "in", 0),                                                                           // an anchor alone
		cand("n2", "C", "The tariff on wool rose.", "in", 0),                                                                   // two anchors
		cand("n2", "D", "Protective duties were kept.", "in", 0),                                                               // a phrase
		{NuggetID: "n2", Sentence: "E: the tariff duties", Support: "Harrison won.", Citation: pipeline.Citation{DocID: "in"}}, // the cited text must speak of the subject
		cand("n3", "F", "The tariff raised the duties.", "out", 0),                                                             // outside the period: a second anchor needed
		cand("n3", "G", "The tariff on wool rose again.", "out", 0),                                                            // which it has
		cand("n3", "H", "Protective duties were kept again.", "out", 0),                                                        // a phrase is not enough there
		cand("n4", "I", "The tariff on wool rose.", "in", 7),                                                                   // not one of the request's best passages
		// The cited text speaks of the subject, but the sentence, a clause
		// cut from it, does not name it: the attribution's words do not count.
		{NuggetID: "n5", Sentence: quoted("J", "Wheat fell by a third."), Support: "The tariff raised the duties; wheat fell by a third.",
			Citation: pipeline.Citation{DocID: "in"}},
		{NuggetID: "n5", Sentence: "In 1890, Tariff K reported that wheat fell.", Support: "The tariff raised the duties; wheat fell.",
			Citation: pipeline.Citation{DocID: "in"}},
		// A sentence that reports what the span says names it in its own words.
		{NuggetID: "n5", Sentence: "In 1890, Harrison L reported that the tariff raised the duties.", Support: "The tariff raised the duties.",
			Citation: pipeline.Citation{DocID: "in"}},
	}
	var got []string
	for _, c := range r.onTopic(cands) {
		lead, _ := pipeline.SplitAttribution(c.Sentence)
		got = append(got, strings.Fields(lead)[3])
	}
	if strings.Join(got, ",") != "A,C,D,G,L" {
		t.Errorf("kept %v, want [A C D G L]", got)
	}
	// The fill holds its candidates to the same.
	for _, c := range cands {
		lead, _ := pipeline.SplitAttribution(c.Sentence)
		if label := strings.Fields(lead + " - - - -")[3]; (label == "J" || label == "K") && r.fillOnTopic(c) {
			t.Errorf("the fill may assemble %q, whose words do not name the subject", c.Sentence)
		}
	}
}

// A candidate whose cited text speaks of what the request leaves out is
// not assembled, though it speaks of the subject too.
func TestOnTopicLeavesOutWhatTheRequestExcludes(t *testing.T) {
	r := &run{e: &Engine{Terms: words},
		subject: &subject{terms: words, anchors: map[string]bool{"tariff": true, "wool": true},
			phrases: map[[2]string]bool{}, acronyms: map[string]bool{}, words: map[string]bool{"duties": true},
			leftOut: map[string]bool{"hawaii": true}, leftOutPairs: map[[2]string]bool{{"sugar", "bounty"}: true}}}
	cands := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "A: The tariff raised the duties on wool.", Support: "The tariff raised the duties on wool.", Citation: pipeline.Citation{DocID: "d"}},
		{NuggetID: "n1", Sentence: "B: The tariff on wool from Hawaii fell.", Support: "The tariff on wool from Hawaii fell.", Citation: pipeline.Citation{DocID: "d"}},
		{NuggetID: "n2", Sentence: "C: The tariff repealed the sugar bounty on wool.", Support: "The tariff repealed the sugar bounty on wool.", Citation: pipeline.Citation{DocID: "d"}},
		{NuggetID: "n2", Sentence: "D: The bounty on sugar and the tariff on wool.", Support: "The bounty on sugar and the tariff on wool.", Citation: pipeline.Citation{DocID: "d"}},
	}
	var got []string
	for _, c := range r.onTopic(cands) {
		got = append(got, c.Sentence[:1])
	}
	if strings.Join(got, ",") != "A,D" {
		t.Errorf("kept %v, want [A D]", got)
	}
}

func TestSubjectOfAFocusedCollection(t *testing.T) {
	// A collection about one car: every request term is common, so none
	// anchors by rarity; the two rarest that the best passages use do.
	req := pipeline.Request{Title: "Fuel types and their impact on performance", ProblemStatement: "How does fuel change performance?"}
	best := append(repeat("racing fuel raised performance", 40), repeat("engine performance", 40)...)
	df := fakeDocFreq(map[string]int{"fuel": 200, "types": 150, "impact": 300, "performance": 600, "change": 400})
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.covers("Racing fuel costs more.", false) || !s.covers("Engine performance rose.", false) || s.covers("The car is red.", false) {
		t.Errorf("anchors %v: the rarest request terms its passages use should anchor the subject", s.anchors)
	}
}

func TestSubjectNamedByAcronyms(t *testing.T) {
	req := pipeline.Request{Title: "HIV/AIDS in presidential addresses",
		ProblemStatement: "Cover the funding requests for research and the emergency relief plan."}
	best := append(repeat("emergency relief for research", 20), repeat("AIDS relief in Africa", 20)...)
	s, err := newSubject(context.Background(), req, best, words, fakeDocFreq(map[string]int{"aids": 60}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.covers("The Emergency Plan for AIDS Relief treats 1.4 million people.", false) {
		t.Error("a sentence naming AIDS is off the subject")
	}
	if s.covers("The emergency relief of citizens in Cuba was funded.", false) {
		t.Error("a sentence on emergency relief without the title's acronyms is on the subject")
	}
	if got := quotedWords(s.names(req)); got != `"HIV", "AIDS"` {
		t.Errorf("a subject named by acronyms is named %s, want the acronyms alone", got)
	}
}

func TestSubjectAcronymAmongOtherWords(t *testing.T) {
	req := pipeline.Request{Title: "Nuclear arms control from the test ban treaty to SDI", ProblemStatement: "Cover the test ban treaty."}
	best := repeat("the nuclear test ban treaty", 20)
	s, err := newSubject(context.Background(), req, best, words, fakeDocFreq(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.covers("The nuclear test ban treaty was signed in 1963.", false) {
		t.Error("a title that names its subject in words besides an acronym should not need the acronym")
	}
}

// A term the request writes only inside a hyphenated compound anchors
// nothing alone: "lend-lease" holds sentences to the phrase, so the
// leasing of coal lands is not about it; a term also written alone
// ("harbor") still anchors.
func TestSubjectHyphenatedCompound(t *testing.T) {
	req := pipeline.Request{
		Title:            "America in the Second World War, 1941-1946",
		ProblemStatement: "The attack on Pearl Harbor and the harbor defenses, and the winding down of lend-lease.",
	}
	best := append(repeat("lend-lease aid to Britain", 20), repeat("the attack on Pearl Harbor", 20)...)
	best = append(best, repeat("the harbor defenses", 5)...)
	df := fakeDocFreq(map[string]int{"lend": 12, "lease": 15, "pearl": 8, "harbor": 30, "attack": 40, "war": 160, "world": 120})
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"The Administration revised the federal coal lease program.", false},
		{"We shall lend our support to the farmers.", false},
		{"Lend-lease shipments to Russia doubled.", true},
		{"The lend lease accounts were settled.", true},
		{"The harbor of Honolulu was attacked.", true},
	} {
		if got := s.covers(tc.text, false); got != tc.want {
			t.Errorf("covers(%q) = %v, want %v (anchors %v, phrases %v)", tc.text, got, tc.want, s.anchors, s.phrases)
		}
	}
}

// A title term too common to anchor the subject ("war", in 16% of the
// passages) is a second word beside an anchor in the sentences of the
// title's period when the request's best passages use it four times as
// often as the collection does, never the subject alone; a common title
// word they do not favour ("first") is neither.
func TestSubjectTitleTermsWithinThePeriod(t *testing.T) {
	req := pipeline.Request{
		Title:            "The First World War and the peace, 1915-1923",
		ProblemStatement: "Describe the preparedness program and the peace conference.",
	}
	best := append(repeat("the war in Europe and the preparedness program", 80), repeat("the first conference", 20)...)
	df := fakeDocFreq(map[string]int{"war": 164, "first": 113, "world": 140, "peace": 126, "europe": 40,
		"preparedness": 3, "program": 67, "conference": 60})
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text          string
		covers, scope bool
	}{
		{"The preparedness of the Army was urged.", true, false},            // an anchor alone
		{"The preparedness of the troops for the war went on.", true, true}, // with a title term beside it
		{"We declared war on Austria-Hungary.", false, false},               // a title term alone
		{"For the first time the budget balanced.", false, false},
	} {
		if got := s.covers(tc.text, false); got != tc.covers {
			t.Errorf("covers(%q) = %v, want %v", tc.text, got, tc.covers)
		}
		if got := s.speaks(tc.text, false, true); got != tc.scope {
			t.Errorf("speaks(%q) in scope = %v, want %v (titled %v, words %v)", tc.text, got, tc.scope, s.titled, s.words)
		}
	}
}

// A lone anchor speaks of the subject with a second word of the request
// only when it is strong: the title writes it, or the best passages favour
// it twice as much as an anchor must be favoured. While no anchor is
// strong, every anchor is.
func TestSubjectStrongAnchors(t *testing.T) {
	best := append(append(append(repeat("bosnia and the troops were sent", 10), repeat("bosnia peace talks", 30)...),
		repeat("the airlift was sent", 5)...), repeat("nothing of note", 55)...)
	df := fakeDocFreq(map[string]int{"bosnia": 5, "troops": 15, "airlift": 2, "sent": 60, "peacekeeping": 3})
	req := pipeline.Request{Title: "Peacekeeping in Bosnia", ProblemStatement: "Describe the troops sent and the airlift."}
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"bosnia", "troops", "airlift"} {
		if !s.anchors[a] {
			t.Fatalf("%q is no anchor: %v", a, s.anchors)
		}
	}
	if !s.strong["bosnia"] || !s.strong["airlift"] || s.strong["troops"] {
		t.Fatalf("strong anchors %v, want bosnia (in the title) and airlift (lift 25), not troops (lift 6.7)", s.strong)
	}
	tests := []struct {
		text string
		want bool
	}{
		{"Troops were sent to Florida under General Gaines.", false}, // a weak anchor and a word
		{"The airlift was sent from Germany.", true},                 // a strong anchor and a word
		{"Our troops in Bosnia keep the peace.", true},               // two anchors
		{"Bosnia was quiet.", false},                                 // a lone anchor
	}
	for _, tt := range tests {
		if got := s.speaks(tt.text, false, false); got != tt.want {
			t.Errorf("speaks(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}

	// No strong anchor: the weak one speaks with a word, as before.
	weak := pipeline.Request{Title: "Our soldiers abroad", ProblemStatement: "Describe the troops sent."}
	df = fakeDocFreq(map[string]int{"soldiers": 400, "abroad": 300, "troops": 15, "sent": 60})
	s, err = newSubject(context.Background(), weak, append(repeat("the troops were sent", 10), repeat("nothing of note", 90)...), words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.strong) != 0 || !s.anchors["troops"] {
		t.Fatalf("anchors %v strong %v, want troops and none strong", s.anchors, s.strong)
	}
	if !s.speaks("Troops were sent to Florida.", false, false) {
		t.Error("with no strong anchor a weak one and a word no longer speak of the subject")
	}
}

// A name the title writes ("Mexico") anchors the subject at a lower lift
// than other terms: a request of many parts draws best passages on each
// part, and a name the collection speaks of often is diluted among them.
// A word the title opens with, or writes in lower case, is held to the
// common bound, and a collection with no anchor by that bound still
// falls back on its rarest terms.
func TestSubjectNameTheTitleWrites(t *testing.T) {
	best := append(append(append(repeat("mexico and trade rose", 13), repeat("the visas fell", 3)...),
		repeat("relations with canada were good", 13)...), repeat("nothing of note", 71)...)
	df := fakeDocFreq(map[string]int{"mexico": 44, "relations": 44, "visas": 1, "trade": 90, "rose": 80, "fell": 100,
		"canada": 44, "good": 300, "nothing": 300, "note": 300, "were": 500, "with": 900, "and": 990})
	req := pipeline.Request{
		Title:            "Relations with Mexico and Canada, 1927-2008",
		ProblemStatement: "Describe the fall in visas and the trade that rose.",
	}
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.anchors["mexico"] || !s.strong["mexico"] || !s.anchors["canada"] {
		t.Fatalf("anchors %v strong %v: the names the title writes (lift 2.95) should anchor it", s.anchors, s.strong)
	}
	if s.anchors["relations"] || s.anchors["trade"] {
		t.Fatalf("anchors %v: the title's opening word and a problem statement's word need the common lift", s.anchors)
	}
	if !s.speaks("Trade with Mexico rose by almost 60 percent.", false, false) {
		t.Error("a sentence on trade with Mexico does not speak of the subject")
	}
	if s.speaks("Trade rose by almost 60 percent.", false, false) {
		t.Error("a sentence without the name speaks of the subject")
	}

	// The name the only anchor, and that by the lower bound: the rarest
	// terms the best passages use anchor the subject too, as they would
	// without it.
	req = pipeline.Request{Title: "Federal spending and the Civil War", ProblemStatement: "Describe how the expenditures fell."}
	best = append(append(repeat("the civil war ended", 12), repeat("the expenditures fell", 60)...), repeat("nothing of note", 28)...)
	df = fakeDocFreq(map[string]int{"civil": 40, "war": 160, "ended": 150, "expenditures": 200, "fell": 100, "federal": 300,
		"spending": 120, "nothing": 300, "note": 300})
	if s, err = newSubject(context.Background(), req, best, words, df, nil); err != nil {
		t.Fatal(err)
	}
	if !s.anchors["civil"] || !s.anchors["fell"] || !s.words["expenditures"] {
		t.Fatalf("anchors %v words %v: want civil (the title's name), fell (the fallback's rarest) and expenditures a word", s.anchors, s.words)
	}
}

func TestSubjectOtherName(t *testing.T) {
	best := append(append(repeat("north korea and its nuclear program", 20), repeat("iran and uranium enrichment", 20)...), repeat("nothing of note", 60)...)
	df := fakeDocFreq(map[string]int{"korea": 20, "north": 200, "iran": 20, "nuclear": 30, "uranium": 5, "enrich": 5, "agreement": 40})
	req := pipeline.Request{
		Title:            "Stopping the nuclear programs of North Korea and Iran",
		ProblemStatement: "Describe the agreement that froze North Korea's nuclear program and the demands on Iran to end uranium enrichment.",
	}
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.anchors["korea"] || s.namedAfter["korea"] != "north" {
		t.Fatalf("anchors %v, namedAfter %v: want korea, named after north", s.anchors, s.namedAfter)
	}
	if _, ok := s.namedAfter["iran"]; ok {
		t.Fatalf("iran is written after no capitalised word, yet namedAfter = %v", s.namedAfter)
	}
	tests := []struct {
		text string
		want bool
	}{
		{"We signed an agreement with North Korea.", true},                     // the request's name
		{"We finalized a trade agreement with South Korea.", false},            // another name
		{"South Korea and North Korea signed an agreement.", true},             // the request's name too
		{"The agreement froze Korea's program.", true},                         // no name before it
		{"A trade agreement with Iran and South Korea was signed.", true},      // another anchor
		{"South Korea opposed uranium enrichment.", true},                      // other anchors
		{"The Nuclear Agreement with Korea stands; South Korea agreed.", true}, // once as the request writes it
		{"Talks with South Korea on an agreement continued in Seoul.", false},  // another name only
	}
	for _, tt := range tests {
		if got := s.speaks(tt.text, false, false); got != tt.want {
			t.Errorf("speaks(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestSubjectLeavesOutSpeakers: a request bounded by Presidents' names
// ("from Obama to Biden") is not about them, even where its best passages
// name one of them often (Biden, the Vice President, in Obama's
// addresses): given as speakers, their names anchor nothing.
func TestSubjectLeavesOutSpeakers(t *testing.T) {
	req := pipeline.Request{
		Title:            "Protecting the right to vote from Obama to Biden",
		ProblemStatement: "Describe the voting commission and the campaign lawyers who led it.",
	}
	best := append(repeat("voting rights and the right to vote", 30),
		repeat("joe biden and the campaign", 12)...)
	df := fakeDocFreq(map[string]int{"voting": 20, "vote": 40, "biden": 8, "campaign": 30, "obama": 6})
	sentence := "The law Joe Biden wrote was a campaign promise."
	with, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !with.speaks(sentence, false, false) {
		t.Fatalf("without speakers, %q should speak of the subject (biden and campaign anchor it); the test no longer shows the rule", sentence)
	}
	s, err := newSubject(context.Background(), req, best, words, df, nil, "Barack Obama", "Joseph R Biden", "Donald J Trump")
	if err != nil {
		t.Fatal(err)
	}
	if s.speaks(sentence, false, false) {
		t.Errorf("%q speaks of the subject through a speaker's name", sentence)
	}
	if !s.speaks("Every citizen should be able to vote without waiting, and the voting commission said how.", false, false) {
		t.Error("a sentence on voting no longer speaks of the subject")
	}
	if got := quotedWords(s.names(req)); strings.Contains(got, "Biden") || strings.Contains(got, "Obama") {
		t.Errorf("names = %s: the speakers are not the subject", got)
	}
}

// A text that speaks of what a request says to leave out does not speak
// of its subject: the names written there, and its terms written
// together, unless the request also asks for them or the text also holds
// two terms the request writes together.
func TestSubjectLeavesOutWhatTheRequestExcludes(t *testing.T) {
	// The engine's analyzer drops "and" as it drops "the".
	words := func(s string) []string {
		var out []string
		for _, w := range words(s) {
			if w != "and" {
				out = append(out, w)
			}
		}
		return out
	}
	req := pipeline.Request{
		Title: "Reciprocity with Mexico, 1883-1888",
		ProblemStatement: "Describe the reciprocity treaty with Mexico and the trade conventions. " +
			"Leave aside Hawaii, the fur seals and the trade figures.",
	}
	best := append(repeat("the reciprocity treaty with mexico", 20), repeat("hawaii and the fur seals", 20)...)
	s, err := newSubject(context.Background(), req, best, words, fakeDocFreq(map[string]int{"reciprocity": 5, "mexico": 20, "hawaii": 8, "fur": 3, "seals": 3}), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want bool
	}{
		{"The reciprocity treaty with Mexico was signed.", false},
		{"The sugar of Hawaii was admitted free.", true},                       // a name written there
		{"The fur seals of the Pribilof Islands were protected.", true},        // two of its terms together
		{"The trade figures with Mexico under the reciprocity treaty.", false}, // "trade" is asked for
		{"Seals and furs were taxed.", false},                                  // its words apart
		{"The reciprocity treaty with Mexico and one with Hawaii.", false},     // a pair of what is asked beside it
	}
	for _, tt := range tests {
		if got := s.leavesOut(tt.text); got != tt.want {
			t.Errorf("leavesOut(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	// A pair left out may hold one word of what is asked, not two.
	req = pipeline.Request{
		Title: "Growth of the States, 1791-1853",
		ProblemStatement: "Describe the new States formed out of the public domain. " +
			"Leave aside the sale of the public lands and the new States' debts.",
	}
	s, err = newSubject(context.Background(), req, repeat("new states formed out of the public domain", 20), words, fakeDocFreq(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"The public lands were sold at auction.", true},         // "public" asked, "lands" not
		{"Ohio was formed out of the public domain.", false},     // what is asked
		{"Two new States were admitted.", false},                 // "new states" is a pair asked
		{"The public domain held the public lands.", false},      // a pair asked beside it
		{"The public debt and the lands of the Indians.", false}, // the words apart
	} {
		if got := s.leavesOut(tt.text); got != tt.want {
			t.Errorf("leavesOut(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	// A pair the title writes names the whole subject and shields no
	// text from what is left aside (sotu103-01); a pair only the problem
	// statement asks still does.
	req = pipeline.Request{
		Title: "Outlawing the slave trade, 1816-1844",
		ProblemStatement: "Report the laws under which public ships seized slavers and the convention with Britain. " +
			"Leave aside the British detentions of American ships.",
	}
	s, err = newSubject(context.Background(), req, repeat("public ships seized slavers in the slave trade", 20), words, fakeDocFreq(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"The British detentions of American ships engaged in the slave trade were settled.", true},
		{"Public ships seized slavers; the British detentions of American ships went on.", false},
		{"Public ships seized three slavers engaged in the slave trade.", false},
	} {
		if got := s.leavesOut(tt.text); got != tt.want {
			t.Errorf("leavesOut(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	// A term the request writes only where it says what to leave aside
	// names no subject; one it also asks for does (sotu46-05).
	req = pipeline.Request{
		Title: "Budget deadlines and stopgap spending bills, 1987-2014",
		ProblemStatement: "Report the late spending bills and the stopgap measures. " +
			"Leave aside the deficits themselves and the line-item veto.",
	}
	best = append(repeat("the spending bills were late and stopgap measures followed", 20),
		repeat("the deficits and the line-item veto", 20)...)
	s, err = newSubject(context.Background(), req, best, words,
		fakeDocFreq(map[string]int{"spending": 30, "bills": 40, "stopgap": 4, "deficits": 12, "veto": 9, "aside": 6}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Congress passed another stopgap measure.", true},              // an anchor asked for
		{"The deficits rose and the veto was used twice.", false},       // anchors only of what is left aside
		{"The stopgap bills kept spending at last year's level.", true}, // what is asked
	} {
		if got := s.covers(tt.text, false); got != tt.want {
			t.Errorf("covers(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	// A title's own "apart from" leaves out what it names (sotu52-07):
	// those names are no anchors, and a text naming them is turned away.
	req = pipeline.Request{
		Title:            "Making the peace after the war, apart from Germany and Japan, 1946-1948",
		ProblemStatement: "Describe the peace treaties and the states they covered.",
	}
	best = append(repeat("the peace treaties with the states", 20), repeat("germany and japan occupied", 20)...)
	s, err = newSubject(context.Background(), req, best, words,
		fakeDocFreq(map[string]int{"peace": 30, "treaties": 20, "germany": 10, "japan": 10, "occupied": 8}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.anchors["germany"] || s.anchors["japan"] {
		t.Errorf("anchors %v hold a name the title leaves out", s.anchors)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"The occupation of Germany went on.", true},
		{"The peace treaties with Italy and Hungary were signed.", false},
	} {
		if got := s.leavesOut(tt.text); got != tt.want {
			t.Errorf("leavesOut(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	var none *subject
	if none.leavesOut("Hawaii") {
		t.Error("a nil subject leaves nothing out")
	}
}

func TestDependentTerms(t *testing.T) {
	anchors := map[string]bool{"drought": true, "relief": true, "famine": true, "mineral": true, "lands": true, "ottoman": true, "empire": true,
		"denmark": true, "naples": true, "health": true, "mothers": true}
	df := map[string]int{"drought": 10, "relief": 60, "famine": 12, "mineral": 5, "lands": 90, "ottoman": 8, "empire": 40,
		"denmark": 30, "naples": 6, "health": 200, "mothers": 9}
	for _, tc := range []struct {
		title string
		want  []string
	}{
		{"Drought and drought relief", []string{"relief"}},
		{"Drought, famine and relief", nil},                      // relief written alone
		{"Drought relief and relief for famine", nil},            // and alone once
		{"Selling the mineral lands", []string{"lands"}},         // lands 18 times as common
		{"Treaties with the Ottoman Empire", []string{"empire"}}, // five times as common
		{"Drought famine", nil},                                  // neither three times as common
		{"Claims on Denmark, Naples and Spain", nil},             // a comma is no compound
		{"The health of mothers", nil},                           // a stop word is between
		{"Relief (drought) and famine", nil},                     // a bracket is between
		{"", nil},
	} {
		got := dependentTerms(tc.title, words, anchors, df)
		var names []string
		for t := range got {
			names = append(names, t)
		}
		if strings.Join(names, ",") != strings.Join(tc.want, ",") {
			t.Errorf("dependentTerms(%q) = %v, want %v", tc.title, names, tc.want)
		}
	}
}

// TestSubjectGeneralPartOfACompound: "relief" of a title on "drought
// relief" is an anchor but no strong one, so a sentence on relief
// programs with a word of the request no longer speaks of the subject,
// while one on the drought still does.
func TestSubjectGeneralPartOfACompound(t *testing.T) {
	best := append(append(repeat("the drought brought relief to farmers", 20), repeat("relief programs for farmers", 10)...), repeat("nothing of note", 70)...)
	df := fakeDocFreq(map[string]int{"drought": 5, "relief": 40, "farmers": 80, "programs": 60, "brought": 300})
	for _, tc := range []struct {
		title      string
		reliefAlso bool // relief is strong
	}{
		{"Drought and drought relief", false},
		{"Drought, famine and relief", true},
	} {
		req := pipeline.Request{Title: tc.title, ProblemStatement: "Describe the relief given to farmers."}
		s, err := newSubject(context.Background(), req, best, words, df, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !s.anchors["relief"] || !s.strong["drought"] || s.strong["relief"] != tc.reliefAlso {
			t.Fatalf("%q: anchors %v strong %v, want relief an anchor, strong %v", tc.title, s.anchors, s.strong, tc.reliefAlso)
		}
		if got := s.speaks("Relief programs were funded for farmers.", false, false); got != tc.reliefAlso {
			t.Errorf("%q: a sentence on relief programs speaks of the subject: %v, want %v", tc.title, got, tc.reliefAlso)
		}
		if !s.speaks("The drought ruined the farmers.", false, false) {
			t.Errorf("%q: a sentence on the drought does not speak of the subject", tc.title)
		}
	}
}

func TestCommonPhrases(t *testing.T) {
	// "public works" (sotu66-05): both words are in more than a tenth of
	// the collection's passages, so neither makes the pair a phrase, but
	// few passages hold both and the best passages write them together.
	// "united states": too many passages hold both.
	req := pipeline.Request{
		Title:            "Public works as a balance wheel, 1918-1962",
		ProblemStatement: "Describe the public works planned against slumps and the United States budget.",
	}
	best := append(repeat("the public works were planned", 40), repeat("the united states budget grew", 40)...)
	best = append(best, repeat("other things happened", 20)...)
	df := fakeDocFreq(map[string]int{"public": 300, "works": 200, "united": 400, "states": 500, "budget": 150, "planned": 120})
	pf := fakePairFreq(map[[2]string]int{{"public", "works"}: 30, {"united", "states"}: 350})
	s, err := newSubject(context.Background(), req, best, words, df, pf)
	if err != nil {
		t.Fatal(err)
	}
	if !s.phrases[[2]string{"public", "works"}] {
		t.Errorf("phrases %v lack \"public works\"", s.phrases)
	}
	if s.phrases[[2]string{"united", "states"}] {
		t.Errorf("phrases %v hold \"united states\", which too many passages hold", s.phrases)
	}
	if !s.covers("Our public works program should be timed to the slump.", false) {
		t.Error("a sentence on public works does not speak of the subject")
	}
	// Without pair counts the pair is no phrase; a failing count fails
	// the subject.
	s, err = newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.phrases[[2]string{"public", "works"}] {
		t.Errorf("phrases %v hold \"public works\" with no pair counts", s.phrases)
	}
	boom := errors.New("boom")
	if _, err := newSubject(context.Background(), req, best, words, df, func(context.Context, [][2]string) (map[[2]string]int, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Errorf("newSubject with a failing pair count: err = %v, want %v", err, boom)
	}
}

// TestSubjectCommonAskedPairsLetNothingThrough: a pair the request asks
// lets a text through that names what it leaves out only when few
// passages hold both its words (sotu31-03: "United States" let a
// sentence on the Koszta affair, which the request says is covered
// elsewhere, into a report on relations with Austria). Without pair
// counts every asked pair does, as before.
func TestSubjectCommonAskedPairsLetNothingThrough(t *testing.T) {
	req := pipeline.Request{
		Title:            "Relations with Austria",
		ProblemStatement: "Describe the consul of the United States at Vienna. The Koszta affair is covered elsewhere.",
	}
	best := repeat("the consul at vienna and austria", 20)
	df := fakeDocFreq(map[string]int{"austria": 5, "vienna": 5, "consul": 8, "united": 400, "states": 500, "koszta": 2})
	pf := fakePairFreq(map[[2]string]int{{"united", "states"}: 350, {"consul", "united"}: 6})
	s, err := newSubject(context.Background(), req, best, words, df, pf)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Koszta was seized though he meant to become a citizen of the United States.", true},
		{"The consul of the United States protected Koszta.", false}, // "consul united": few passages hold both
		{"The consul at Vienna was received.", false},
	} {
		if got := s.leavesOut(tt.text); got != tt.want {
			t.Errorf("leavesOut(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	s, err = newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.leavesOut("Koszta was seized though he meant to become a citizen of the United States.") {
		t.Error("without pair counts, the asked pair \"united states\" no longer lets the text through")
	}
	boom := errors.New("boom")
	if _, err := newSubject(context.Background(), req, best, words, df, func(context.Context, [][2]string) (map[[2]string]int, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Errorf("newSubject with a failing pair count: err = %v, want %v", err, boom)
	}
}

// A place the request names only by its adjective anchors the subject by
// its name: the addresses of the Korean War write "Korea", which the
// analyzer keeps apart from "Korean".
func TestSubjectNamesPlaceOfAdjective(t *testing.T) {
	req := pipeline.Request{
		Title:            "The Korean War in the messages of Truman and Eisenhower, 1951-1954",
		ProblemStatement: "Describe what the messages said of the fighting and the armistice.",
	}
	best := append(repeat("our forces in korea held the line", 30), repeat("the budget and the farm program", 70)...)
	df := fakeDocFreq(map[string]int{"korea": 20, "korean": 5})
	s, err := newSubject(context.Background(), req, best, words, df, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.anchors["korea"] || !s.strong["korea"] {
		t.Errorf("anchors %v, strong %v: want korea, the place the title names by its adjective", s.anchors, s.strong)
	}
	if !s.covers("The fighting in Korea went on through the year.", false) {
		t.Error("a sentence on the fighting in Korea should speak of the Korean War")
	}
	if s.covers("The farm program was enlarged.", false) {
		t.Error("the farm program is not the subject")
	}
}

// A title dated by an event ("after the Cold War") asks about what it
// names before it: the event's words are no phrase of the subject, and
// a statement that leaves the event's years aside turns its sentences
// away.
func TestSubjectTitleDatedByEvent(t *testing.T) {
	req := pipeline.Request{
		Title:            "Refugees and the displaced after the Cold War, 1996-2021",
		ProblemStatement: "Report what the addresses said about refugees and displaced people abroad. Leave aside the refugees of the Cold War years.",
	}
	best := append(repeat("the cold war is over and the world looks to us", 40),
		"refugees fled kosovo", "refugees returned home", "refugees from haiti", "refugees in camps", "displaced people in bosnia")
	df := fakeDocFreq(map[string]int{"cold": 20, "war": 300, "refugees": 15})
	pairs := fakePairFreq(map[[2]string]int{{"cold", "war"}: 18})
	s, err := newSubject(context.Background(), req, best, words, df, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if s.covers("With the cold war receding, we are helping to win an unrivaled peace.", false) {
		t.Error("a sentence on the end of the Cold War should not speak of refugees after it")
	}
	if !s.covers("Refugees are returning to their homes in Kosovo.", false) {
		t.Error("a sentence on refugees should speak of the subject")
	}
}

// TestNoteNarrowSubject: a run tells the report's readers when fewer
// than a tenth of the request's best passages speak of its subject, and
// names the words it was read from; at a tenth or more, or with no
// subject to hold sentences to, it says nothing.
func TestNoteNarrowSubject(t *testing.T) {
	req := pipeline.Request{Title: "NATO and the Balkans", ProblemStatement: "What did NATO do in Bosnia?"}
	hits := func(speaking, of int) []pipeline.Hit {
		out := make([]pipeline.Hit, of)
		for i := range out {
			out[i] = pipeline.Hit{DocID: "d", Ordinal: i, Text: "The budget was balanced at last."}
			if i < speaking {
				out[i].Text = "NATO troops went to Bosnia."
			}
		}
		return out
	}
	texts := func(hs []pipeline.Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Text)
		}
		return out
	}
	for _, tt := range []struct {
		speaking, of int
		want         bool
	}{
		{9, 100, true},
		{0, 100, true},
		{10, 100, false},
		{1, 9, false}, // a small collection: one in nine is more than a tenth
		{0, 9, true},
	} {
		best := hits(tt.speaking, tt.of)
		s, err := newSubject(context.Background(), req, texts(best), words, fakeDocFreq(nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &run{req: req, subject: s}
		r.noteNarrowSubject(best)
		p := r.tolerated()
		if !tt.want {
			if len(p) != 0 {
				t.Errorf("%d of %d speak: problems %q, want none", tt.speaking, tt.of, p)
			}
			continue
		}
		want := fmt.Sprintf("subject: only %d of the request's %d best passages speak of its subject (read from its words", tt.speaking, tt.of)
		if len(p) != 1 || !strings.HasPrefix(p[0], want) || !strings.Contains(p[0], `"NATO"`) || !strings.Contains(p[0], "may help") {
			t.Errorf("%d of %d speak: problems %q, want one opening %q and naming \"NATO\"", tt.speaking, tt.of, p, want)
		}
	}
	// No subject (an engine without an analyzer): nothing to say.
	r := &run{req: req}
	r.noteNarrowSubject(hits(0, 100))
	if p := r.tolerated(); len(p) != 0 {
		t.Errorf("without a subject: problems %q", p)
	}
}
