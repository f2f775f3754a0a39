package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// The metadata of the document the rewriting tests quote.
const (
	testAuthor = "Benjamin Harrison"
	testDate   = "1890"
	testTitle  = "State of the Union Address, Benjamin Harrison (1890)"
)

// attributedExtract extracts an answer to nugget from passage as a
// document by testAuthor dated testDate, and checks that the cited span
// still supports the rewritten sentence: for the engine's own support
// check and for the offline judge, both given the document's byline.
func attributedExtract(t *testing.T, nugget prompts.QA, passage string) prompts.ExtractOutput {
	t.Helper()
	e := newTestEngine()
	resp := complete(t, e, prompts.BuildExtract(prompts.ExtractInput{
		Request: tariffRequest, Nugget: nugget, DocID: "sotu-1890", DocTitle: testTitle,
		DocAuthor: testAuthor, DocDate: testDate, PassageText: passage,
	}))
	out, err := prompts.ParseExtract(resp.Text)
	if err != nil {
		t.Fatalf("ParseExtract(%q): %v", resp.Text, err)
	}
	if !out.Found {
		return out
	}
	if !strings.Contains(passage, out.Support) {
		t.Errorf("support %q is not a span of the passage", out.Support)
	}
	if p := e.verifySupport(prompts.VerifySupportInput{
		Sentence: out.Sentence, SupportText: out.Support, PassageText: passage,
		DocTitle: testTitle, DocAuthor: testAuthor, DocDate: testDate,
	}); p < 0.5 {
		t.Errorf("the engine's support check fails the rewritten sentence %q (P = %.2f)", out.Sentence, p)
	}
	v, err := judge.Offline{}.Supports(context.Background(), out.Sentence, judge.Evidence{
		DocID: "sotu-1890", Text: out.Support, Byline: testTitle + " · " + testAuthor + " · " + testDate, Basis: judge.BasisProvenance,
	})
	if err != nil || !v.Yes {
		t.Errorf("the offline judge finds %q unsupported by its span: %s (%v)", out.Sentence, v.Reason, err)
	}
	return out
}

func TestRewriteRules(t *testing.T) {
	tests := []struct {
		name         string
		nugget       prompts.QA
		passage      string
		wantSupport  string
		wantSentence string
	}{
		{
			name:         "a report of fact is attributed to the author and year",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. The McKinley Tariff was passed by Congress in 1890 after a long debate.",
			wantSupport:  "The McKinley Tariff was passed by Congress in 1890 after a long debate.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff was passed by Congress in 1890 after a long debate.",
		},
		{
			name:         "discourse openers go",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. Accordingly, the McKinley Tariff was passed by Congress in 1890.",
			wantSupport:  "Accordingly, the McKinley Tariff was passed by Congress in 1890.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff was passed by Congress in 1890.",
		},
		{
			name:         "spoken links and later list counters go",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. Well, the McKinley Tariff was passed by Congress in 1890.",
			wantSupport:  "Well, the McKinley Tariff was passed by Congress in 1890.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff was passed by Congress in 1890.",
		},
		{
			name:         "a heading run into the sentence by a dash goes",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. Tariff legislation.-The McKinley Tariff was passed by Congress in 1890.",
			wantSupport:  "Tariff legislation.-The McKinley Tariff was passed by Congress in 1890.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff was passed by Congress in 1890.",
		},
		{
			name:         "the first person is quoted as the speaker's own account",
			nugget:       tariffNugget,
			passage:      "Wool prices rose. In 1890 I signed the McKinley Tariff that Congress had passed.",
			wantSupport:  "In 1890 I signed the McKinley Tariff that Congress had passed.",
			wantSentence: "In 1890, Benjamin Harrison reported: “In 1890 I signed the McKinley Tariff that Congress had passed.”",
		},
		{
			name:         "a law's terms are reported, not proposed",
			nugget:       prompts.QA{Question: "What duty on wool did the tariff act of 1890 provide?", Answer: "49.5 percent"},
			passage:      "Wool prices rose. The tariff act of 1890 provides that the duty on wool shall be 49.5 percent.",
			wantSupport:  "The tariff act of 1890 provides that the duty on wool shall be 49.5 percent.",
			wantSentence: "In 1890, Benjamin Harrison reported that the tariff act of 1890 provides that the duty on wool shall be 49.5 percent.",
		},
		{
			// The segmenter ends a sentence after a counting word: the item
			// follows "Second." standing alone.
			name:   "a counted recommendation is what the speaker proposed",
			nugget: prompts.QA{Question: "What fund for the families of deceased officers should Congress sanction?", Answer: "an annuity fund"},
			passage: "I invite attention to the recommendations of the Secretary of War: First. That provision be made for reading matter for the Army. " +
				"Second. That Congress sanction the scheme of an annuity fund for the benefit of the families of deceased officers.",
			wantSupport:  "That Congress sanction the scheme of an annuity fund for the benefit of the families of deceased officers.",
			wantSentence: "In 1890, Benjamin Harrison proposed that Congress sanction the scheme of an annuity fund for the benefit of the families of deceased officers.",
		},
		{
			name:         "a recommendation in the subjunctive refers to nothing before it",
			nugget:       prompts.QA{Question: "What building was to be erected for the preservation of valuable records?", Answer: "a fireproof building"},
			passage:      "The passage of a joint resolution is needed. 7. That provision be made for the erection of a fireproof building for the preservation of valuable records.",
			wantSupport:  "7. That provision be made for the erection of a fireproof building for the preservation of valuable records.",
			wantSentence: "In 1890, Benjamin Harrison proposed that provision be made for the erection of a fireproof building for the preservation of valuable records.",
		},
		{
			name:   "a resolution's finding is no recommendation",
			nugget: prompts.QA{Question: "What did the joint resolution say it was the duty of the United States to demand of Spain?", Answer: "relinquish its authority"},
			passage: "The resolutions read as follows: First. That the people of the island are free. " +
				"Second. That it is the duty of the United States to demand that the Government of Spain relinquish its authority in the island.",
			wantSupport: "Second. That it is the duty of the United States to demand that the Government of Spain relinquish its authority in the island.",
			wantSentence: "In 1890, Benjamin Harrison reported: “That it is the duty of the United States to demand that the Government of Spain " +
				"relinquish its authority in the island.”",
		},
		{
			name:         "a counted item without a verb is quoted, not reported that",
			nugget:       prompts.QA{Question: "Which act forbidding the use of the Army as a posse comitatus was to be repealed?", Answer: "the act of June 18, 1878"},
			passage:      "The following measures are needed. 5. The repeal or amendment of the act of June 18, 1878, forbidding the use of the Army as a posse comitatus.",
			wantSupport:  "5. The repeal or amendment of the act of June 18, 1878, forbidding the use of the Army as a posse comitatus.",
			wantSentence: "In 1890, Benjamin Harrison reported: “The repeal or amendment of the act of June 18, 1878, forbidding the use of the Army as a posse comitatus.”",
		},
		{
			name:   "an item of a list opened by dashes is proposed as its lead proposes",
			nugget: prompts.QA{Question: "What study of insurance was proposed?", Answer: "automobile insurance"},
			passage: "We must do more. I propose: -New powers for the Federal Trade Commission to stop those who swindle the public. " +
				"-A major study of automobile insurance. -Protection against hazardous radiation from television sets.",
			wantSupport:  "A major study of automobile insurance.",
			wantSentence: "In 1890, Benjamin Harrison proposed: “A major study of automobile insurance.”",
		},
		{
			name:   "an item of a list opened by dashes without its lead is quoted, not reported that",
			nugget: prompts.QA{Question: "What study of insurance was named?", Answer: "automobile insurance"},
			passage: "-New powers for the Federal Trade Commission to stop those who swindle the public. " +
				"-A major study of automobile insurance. -Protection against hazardous radiation from television sets.",
			wantSupport:  "A major study of automobile insurance.",
			wantSentence: "In 1890, Benjamin Harrison reported: “A major study of automobile insurance.”",
		},
		{
			name:   "an item of a list opened by dashes with a verb of its own keeps its stance",
			nugget: prompts.QA{Question: "How many plants were built for the Federal Trade Commission?", Answer: "12 new plants"},
			passage: "We must do more. I propose: -New powers for the Federal Trade Commission. " +
				"-The Commission has built 12 new plants this year.",
			wantSupport:  "The Commission has built 12 new plants this year.",
			wantSentence: "In 1890, Benjamin Harrison reported that the Commission has built 12 new plants this year.",
		},
		{
			name:         "\"Thus far\" is no opener",
			nugget:       prompts.QA{Question: "How much of the ultimate surplus has been declared?", Answer: "13 billion dollars"},
			passage:      "Wool prices rose. Thus far only about 13 billion dollars of the ultimate surplus has been declared.",
			wantSupport:  "Thus far only about 13 billion dollars of the ultimate surplus has been declared.",
			wantSentence: "In 1890, Benjamin Harrison reported: “Thus far only about 13 billion dollars of the ultimate surplus has been declared.”",
		},
		{
			name:   "a sentence that refers back is joined with what it refers to",
			nugget: tariffNugget,
			passage: "Wool prices rose. The McKinley Tariff raised duties on imports to 49.5 percent. " +
				"It was passed by Congress in 1890 after a long debate.",
			wantSupport: "The McKinley Tariff raised duties on imports to 49.5 percent. It was passed by Congress in 1890 after a long debate.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff raised duties on imports to 49.5 percent. " +
				"It was passed by Congress in 1890 after a long debate.",
		},
		{
			name:   "a demonstrative that points back is joined too",
			nugget: prompts.QA{Question: "How much did the tariff act reduce the revenue from sugar?", Answer: "$50,000,000"},
			passage: "Wool prices rose. The new tariff act admits raw sugar free of duty. " +
				"This change reduced the revenue from sugar by $50,000,000.",
			wantSupport: "The new tariff act admits raw sugar free of duty. This change reduced the revenue from sugar by $50,000,000.",
			wantSentence: "In 1890, Benjamin Harrison reported that the new tariff act admits raw sugar free of duty. " +
				"This change reduced the revenue from sugar by $50,000,000.",
		},
		{
			name:   "a sentence after a transcript's mark is joined with what it refers to",
			nugget: prompts.QA{Question: "How much would the tariff reform cut the cost of sugar for everyone?", Answer: "$50,000,000"},
			passage: "Wool prices rose. The McKinley Tariff admits raw sugar free of duty. (Applause.) " +
				"And, by the way, that will cut the cost of sugar for everyone by $50,000,000.",
			wantSupport: "The McKinley Tariff admits raw sugar free of duty. (Applause.) " +
				"And, by the way, that will cut the cost of sugar for everyone by $50,000,000.",
			wantSentence: "In 1890, Benjamin Harrison reported that the McKinley Tariff admits raw sugar free of duty. " +
				"And, by the way, that will cut the cost of sugar for everyone by $50,000,000.",
		},
		{
			name:         "reported speech is quoted as a claim, not stated as fact",
			nugget:       prompts.QA{Question: "After what date did critics claim wool prices rose?", Answer: "October 6, 1890"},
			passage:      "Wool prices rose. Critics of the tariff claimed that the prices of wool rose sharply after October 6, 1890.",
			wantSupport:  "Critics of the tariff claimed that the prices of wool rose sharply after October 6, 1890.",
			wantSentence: "In 1890, Benjamin Harrison said: “Critics of the tariff claimed that the prices of wool rose sharply after October 6, 1890.”",
		},
		{
			name:         "a proposal is quoted as a proposal",
			nugget:       prompts.QA{Question: "How much should Congress appropriate for the coast defenses of New York?", Answer: "$2,000,000"},
			passage:      tariffAddress,
			wantSupport:  "I recommend that Congress appropriate $2,000,000 for the coast defenses of New York.",
			wantSentence: "In 1890, Benjamin Harrison proposed: “I recommend that Congress appropriate $2,000,000 for the coast defenses of New York.”",
		},
		{
			name:         "an opinion is quoted as an argument",
			nugget:       prompts.QA{Question: "How much did the tariff on sugar cost the people each year?", Answer: "$50,000,000"},
			passage:      "Wool prices rose. I believe the tariff on sugar cost the people $50,000,000 each year.",
			wantSupport:  "I believe the tariff on sugar cost the people $50,000,000 each year.",
			wantSentence: "In 1890, Benjamin Harrison argued: “I believe the tariff on sugar cost the people $50,000,000 each year.”",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := attributedExtract(t, tt.nugget, tt.passage)
			if !out.Found {
				t.Fatal("no sentence found")
			}
			if out.Support != tt.wantSupport {
				t.Errorf("support = %q\nwant %q", out.Support, tt.wantSupport)
			}
			if out.Sentence != tt.wantSentence {
				t.Errorf("sentence = %q\nwant %q", out.Sentence, tt.wantSentence)
			}
			lead, body := pipeline.SplitAttribution(out.Sentence)
			quoted := strings.Join(strings.Fields(pipeline.DropTranscriptMarks(out.Support)), " ") // what the sentence may quote of its span
			if lead == "" || !strings.Contains(strings.ToLower(quoted), strings.ToLower(strings.TrimSuffix(body, "."))[1:]) {
				t.Errorf("SplitAttribution(%q) = %q, %q: the body is not the cited text", out.Sentence, lead, body)
			}
		})
	}
}

func TestRewriteDropsWhatItCannotResolve(t *testing.T) {
	// The sentence refers back to what the passage does not hold: its
	// first sentence.
	out := attributedExtract(t, tariffNugget, "It was passed by Congress in 1890 after the McKinley Tariff debate.")
	if out.Found {
		t.Errorf("a sentence whose referent is not in the passage was used: %q", out.Sentence)
	}
	// Nor does an announcement of what follows.
	out = attributedExtract(t, prompts.QA{Question: "How many features of the tariff act of 1890 call for special reference?", Answer: "Two features"},
		"Wool prices rose. Two features of the tariff act of 1890 call for special reference.")
	if out.Found {
		t.Errorf("an announcement was used: %q", out.Sentence)
	}
	// A question states no fact.
	out = attributedExtract(t, tariffNugget, "Wool prices rose. Did Congress pass the McKinley Tariff in 1890?")
	if out.Found {
		t.Errorf("a question was used: %q", out.Sentence)
	}
	// Nor does an item of a list of phrases, which says nothing without
	// its lead (Andrew Johnson, 1868).
	judges := prompts.QA{Question: "What limitation of the terms of Federal judges was proposed?", Answer: "a period of years"}
	items := "I recommend amendments to the Constitution. Third. For the election of Senators directly by the people. " +
		"Fourth. For the limitation to a period of years of the terms of Federal judges."
	out = attributedExtract(t, judges, items)
	if out.Found {
		t.Errorf("a list item was used: %q", out.Sentence)
	}
	// A sentence that opens with a preposition and has its verb is used,
	// a verb in the present too, which hasVerb does not know (Polk, 1845).
	out = attributedExtract(t, judges, "Wool prices rose. For the judges, Congress adopted a limitation to a period of years.")
	if !out.Found {
		t.Error("a sentence opened by a preposition was passed over")
	}
	lands := prompts.QA{Question: "How many acres of the public lands remain unsold, according to the Land Office?", Answer: "39,105,577"}
	out = attributedExtract(t, lands, "Of the lands many remain unsold. From the records of the Land Office it appears that of the "+
		"public lands 39,105,577 acres remain unsold.")
	if !out.Found {
		t.Error("a sentence opened by a preposition with a verb in the present was passed over")
	}
}

func TestSelfContainedSkipsTranscriptMarks(t *testing.T) {
	// The demo corpus's segmenter makes "(Applause.)" a sentence of its
	// own (Biden, 2021): the sentence after it refers back past it.
	passage := "Let us give Medicare the power to negotiate lower drug prices. (Applause.) " +
		"And, by the way, that will lower drug costs for everyone."
	first, mark := strings.Index(passage, "(Applause"), strings.Index(passage, "And,")
	spans := []pipeline.Span{{Start: 0, End: first - 1}, {Start: first, End: mark - 1}, {Start: mark, End: len(passage)}}
	start, end, text, ok := selfContained(passage, spans, 2)
	if !ok || start != 0 || end != len(passage) {
		t.Fatalf("selfContained = %d, %d, %q, %v; want the three sentences joined", start, end, text, ok)
	}
	if got := cleanSentence(text); !strings.HasPrefix(got, "Let us give Medicare") || strings.Contains(got, "Applause") {
		t.Errorf("cleaned sentence = %q", got)
	}
	// With nothing before the mark the sentence cannot be resolved.
	if _, _, text, ok := selfContained(passage[first:], []pipeline.Span{{Start: 0, End: mark - first - 1}, {Start: mark - first, End: len(passage) - first}}, 1); ok {
		t.Errorf("a sentence whose referent is only a transcript's mark was used: %q", text)
	}
}

func TestDropOpeners(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Accordingly, the treaty was signed.", "The treaty was signed."},
		{"Too, in Afghanistan, the freedom fighters are the key to peace.", "In Afghanistan, the freedom fighters are the key to peace."},
		{"Fourth, the budget will be balanced.", "The budget will be balanced."},
		{"Yes, this nation remains committed to the space program.", "This nation remains committed to the space program."},
		{"By contrast, a failed Iraq would embolden the extremists.", "A failed Iraq would embolden the extremists."},
		{"Wellington was named.", "Wellington was named."}, // an opener needs its comma and its word
		{"So many ships were lost.", "So many ships were lost."},
		{"Thus far only a part has been declared.", "Thus far only a part has been declared."},
		{"Thus the treaty was signed.", "The treaty was signed."},
	}
	for _, tt := range tests {
		if got := dropOpeners(tt.in); got != tt.want {
			t.Errorf("dropOpeners(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInfinitiveFragment(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"To extend and strengthen rent control.", true},
		{"To provide quality care in low-income neighborhoods, we will double the number of health centers.", false},
		{"To err is human.", false},
		{"To point the way to break up that log-jam our Trade Agreements Act was passed.", false},
		{"Tonight we will act.", false},
		{"To Congress the message was sent.", false},
	}
	for _, tt := range tests {
		if got := infinitiveFragment(tt.s); got != tt.want {
			t.Errorf("infinitiveFragment(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestReferBack(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"It was signed on the 30th of April.", true},
		// A demonstrative opening the main clause after a leading
		// phrase or clause (Obama, 2009); "those who" points ahead, and
		// a "he" after a clause is most often the clause's subject.
		{"Because when credit is available again, that young family can finally buy a new home.", true},
		{"If Congress acts now, that program will save lives.", true},
		{"In 1890, those duties were raised.", true},
		{"After the war, those who served came home.", false},
		{"Because credit is available again, families can buy homes.", false},
		{"When the President signed the bill, he said it would help.", false},
		// A phrase of time before the comma leads the main clause as a
		// preposition's phrase does (Trump, 2018; Ford, 1975).
		{"Last May, he commanded an operation to track down gang members on Long Island.", true},
		{"Two days later, that same freshman stood at the back of this great Chamber.", true},
		{"Five years ago, crime was increasing at a rate that struck fear across the Nation.", false},
		{"Last year, we cut the deficit in half.", false},
		// A demonstrative standing alone at the end (Reagan, 1982).
		{"For our friends in the press, let me say: I did not actually hear George Washington say that.", true},
		{"We need more of this.", true},
		{"The treaty was signed in 1846 by the envoys of both countries.", false},
		{"The Secretary reports that.", true},
		{"The Secretary reports that the debt fell.", false},
		{"Our first obligation is to the most vulnerable -- infants, poor mothers -- and my budget recognizes this.", false},
		// A phrase at the start standing for what was said or done before
		// (George W. Bush, 2004; Theodore Roosevelt, 1906).
		{"By doing so, we can cut the deficit in half over the next 5 years.", true},
		{"Since then the growth of Japan has been literally astounding.", true},
		{"In response, I propose two major initiatives.", true},
		{"In response to the flood the troops were sent.", false}, // its object follows
		{"Since their founding, the colleges have grown.", false},
		{"Since its passage, my administration has removed 1,500 employees.", true},
		{"When their recommendations are delivered, you and I will work together.", true},
		// The speaker's or the audience's sentence naming a third person
		// by a pronoun in its first words (Clinton, 1994).
		{"We honor their contributions, including those who carry out the air lift.", true},
		{"I told him what I have said to many world leaders.", true},
		{"We have increased our support for the schools.", false},
		{"We ask the States to do their part.", false}, // "their" after its noun
		// A clause that leads the sentence, with a subject said before
		// (Jackson, 1829; Coolidge, 1925; Franklin Roosevelt, 1941).
		{"If it fail here, all hope in regard to it will be extinguished.", true},
		{"If that can be settled, we may more easily consider further reduction of naval armaments.", true},
		{"If that defense fails, all the population and all the resources of Europe will be at stake.", true},
		{"If they must, they have to fight and they only have to win.", true},
		{"When it is considered that no navy in the world surpasses ours, the request is modest.", false}, // "it" points ahead
		{"If this Congress wants to help, work with me to fix the Tax Code.", false},                      // the speaker's situation
		{"When those who till the soil prosper, the Nation prospers.", false},                             // "those who" points ahead
		{"If the treaty is ratified, the duties will fall.", false},
		// "that" with its noun (George Bush, 1992).
		{"My America 2000 strategy will help us reach that goal.", true},
		{"The Secretary has worked steadily in that direction for two years.", false}, // inside the sentence: left alone
		{"We need a policy that works.", false},
		{"Congress has found that the duties were too high.", false},
		{"The revenue of that year exceeded the estimate.", false},
		{"It is a measure in that the whole country shares.", false}, // "in that" + a clause
		// "to" before a noun is a preposition, not the infinitive "It"
		// stands for (Coolidge, 1925).
		{"It is undoubtedly a protection to the wage earners of this country.", true},
		{"It is a satisfaction to report that contentment exists among wage earners.", false},
		{"It was decided to build two cruisers.", false},
		{"It is important for the Congress to act at once.", false},
		{"It is a matter of regret for all of us.", true},
		{"It has been found necessary for the protection of our commerce to maintain the usual squadrons.", false}, // Monroe, 1822
		{"It is called for by the events which have changed the situation of our frontiers.", true},                // Washington, 1795
		// The subject after an opening phrase (Trump, 2020).
		{"For the past 7 months, she has done it all while her husband is in Afghanistan.", true},
		{"In 1890, they raised the duties on wool.", true},
		{"In 1890, it was estimated that the surplus would reach $100,000,000.", false},
		{"In 1890, Congress raised the duties on wool.", false},
		{"In the long and difficult negotiations that followed the armistice, he insisted on a treaty.", false}, // the phrase is too long to tell
		{"It is estimated that the surplus will reach $140,000,000.", false},
		// An "It" that points ahead still leaves a demonstrative after it
		// that points back (Andrew Johnson, 1865).
		{"It is estimated that the receipts derived from this source are sufficient to cover the expenses.", true},
		{"It is estimated that this year the receipts will be sufficient.", false},
		{"This treaty was ratified in 1846.", true},
		{"This year the revenue exceeded $400,000,000.", false},
		{"These great Nations have kept the peace.", false},
		{"Such a vessel could not enter the port.", true},
		{"They landed at Vera Cruz in March.", true},
		{"In view of these facts, Congress acted promptly.", true},
		{"The same rule applies to the Territories.", true},
		{"Congress passed the McKinley Tariff in 1890.", false},
		{"There were 42 vessels in the fleet.", false},
		{"That country ceded Florida in 1819.", true},
		{"Those who served in the war are pensioned.", false},
		{"In this great Nation the people rule.", false},
		{"That's why Congress should undo the cuts.", true},
		{"That’s why my plan guarantees four more years of school.", true},
		{"That is why we acted.", true},
		// "It" with a verb of its own is something named before (Hoover,
		// 1931; Carter, 1979; Trump, 2020); a "that" with its verb opens
		// a relative clause (Theodore Roosevelt, 1908; Carter, 1981).
		{"It has undertaken this year to administer relief to 100,000 sufferers.", true},
		{"It has already set up new standards for the conduct of nations.", true},
		{"It will strengthen our efforts to ban nuclear tests.", true},
		{"It will also bring trade with Mexico and Canada to a much higher degree.", true},
		{"It will certainly reduce that danger.", true}, // Carter, 1979: "that" of the verb's object
		{"It is the first exposition of its kind that has ever been held in Asia.", true},
		{"It is a policy that can truly help alleviate the problems.", true},
		// ... while these point ahead, as before.
		{"It has been heretofore known to Congress that frequent incursions have been made.", false},
		{"It had been made manifest by a Congressional investigation that a system was in use.", false},
		{"It must add to your concern to be informed that the tribes are hostile.", false},
		{"It will be necessary to provide for the new Territories.", false},
		{"It is now well ascertained that the exchanges have grown.", false},
		{"It is with satisfaction that I am able to announce the treaty.", false},
		{"It is a subject for congratulation that Brazil has taken the step.", false},
		{"It appears that the number of desertions has diminished.", false},
		// Pronouns with their contractions (Clinton, 1997; George Bush,
		// 1989), "that of" and "those of" for a noun said before
		// (Coolidge, 1925; John Quincy Adams, 1825), a part or the
		// outcome of what was named before (Lincoln, 1864; Coolidge,
		// 1925), "both" without the two it joins (Monroe, 1821), "then"
		// without its comma, a preposition with "that" or "such".
		{"They're up there with the First Lady.", true},
		{"He'd received from President Roosevelt a hand-carried letter.", true},
		{"She’s sitting down with the First Lady tonight.", true},
		{"That of the Revolutionary War period was paid by 1835.", true},
		{"Those of the 3d of March last are in the course of execution.", true},
		{"Those of you in the intelligence committees know well.", false},
		{"Those of us who remember the depression will act.", false},
		{"The remainder was located with military land warrants.", true},
		{"The rest of the world watched.", false},
		{"The other is the Mississippi River stem.", true},
		{"The other $11 billion will be provided by new funds.", true},
		{"The other day a farmer wrote to me.", false},
		{"The result was particularly gratifying.", true},
		{"The result of the election was accepted.", false},
		{"Both Provinces were formed into one Territory.", true},
		{"Both on the Atlantic and Pacific coasts, fortifications should be provided.", false},
		{"Then our territory consisted of 909,050 square miles.", true},
		{"In that remote region hostile bands roam.", true},
		{"In such cases other nations deal with the facts.", true},
		{"It's time to reform the tax code.", false},
		{"The foregoing are interim administrative actions.", true},
		// "they" or "them" before anything it could stand for (Van Buren,
		// 1838; Grant, 1869; George W. Bush, 2001); after a plural, a
		// collective or indefinite noun or two things joined it may
		// stand for them (Clinton, 1995; Obama, 2013).
		{"The most important of them is the organization of the militia on the maritime frontiers.", true},
		{"In this message I will not enumerate them, but will specify only the justices of the Supreme Court.", true},
		{"My plan will save them more than $2,000.", true},
		{"Most of them are located on 161 reservations.", true},
		{"The duties were raised because they were too low.", false},
		{"Congress by their act authorized us to borrow, and they appropriated the sum.", false},
		{"If a parent isn't paying child support, they should be forced to pay.", false},
		{"When any American, no matter where they live, is denied that right, we must act.", false},
		{"The officer and the clerk said they had seen the order.", false},
		{"The status of the treaty is such that they cannot act.", true}, // "status" is no plural
		// "It would have" with an object is a verb of its own; "It would
		// have been" may point ahead (Biden, 2021).
		{"It would have a singular purpose: to develop breakthroughs against cancer.", true},
		{"It would have been wise to wait for the report.", false},
		// "thereto" after an opening phrase stands for what came before
		// (McKinley, 1898).
		{"In addition thereto two new reserves were created during the year.", true},
		{"Pursuant thereto, the commission met in Paris.", true},
		{"In addition to the reserves, two parks were created.", false},
	}
	for _, tt := range tests {
		if got := referBack(tt.s); got != tt.want {
			t.Errorf("referBack(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestPointsAhead(t *testing.T) {
	for s, want := range map[string]bool{
		"Two features of the new tariff act call for special reference.":                                true,
		"The results of the year are as follows:":                                                       true,
		"I submit the following recommendations to the Congress.":                                       true,
		"In the following year Congress repealed the act.":                                              false,
		"In the present section I shall indicate the Federal outlays which these programs may require.": true,
		"I shall discuss in detail the new concepts in a separate report.":                              true,
		"We will review the whole question of the tariff at the next session.":                          true,
		"I shall insist that the Navy be enlarged.":                                                     false,
		"The Secretary will discuss terms with the Senate.":                                             false,
		"Congress passed the McKinley Tariff in 1890.":                                                  false,
	} {
		if got := pointsAhead(s); got != want {
			t.Errorf("pointsAhead(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		s    string
		want stance
	}{
		{"The McKinley Tariff was passed in 1890.", stanceFact},
		{"We were told that the tariff would lower prices.", stanceSpeaker},
		{"In World War I the Navy grew.", stanceFact},
		{"The US Navy grew.", stanceFact},
		{"I recommend that Congress appropriate $2,000,000.", stanceProposal},
		{"Congress should repeal the act.", stanceProposal},
		{"No State shall deny the right to vote.", stanceProposal},
		{"I believe the tariff is too high.", stanceOpinion},
		// A judgement is an opinion too, not a fact to report (Harrison,
		// 1891; Theodore Roosevelt, 1906).
		{"The lynching at New Orleans of eleven men was a most deplorable and discreditable incident.", stanceOpinion},
		{"The greatest existing cause of lynching is the perpetration of the hideous crime of rape.", stanceOpinion},
		{"The lynching at New Orleans took place in March.", stanceFact},
		{"Its advocates claimed that prices would fall.", stanceReported},
		// A call on the hearers to act is a proposal (George W Bush,
		// 2008; George Bush, 1990); "Let me" is the speaker's own.
		{"Let us fund new technologies that can generate coal power.", stanceProposal},
		{"Let's make the tax cuts permanent.", stanceProposal},
		{"Let all Americans affirm our allegiance to this idea.", stanceProposal},
		{"Let me be clear: I will veto it.", stanceSpeaker},
		{"Letters from the consuls report the famine.", stanceFact},
		// A command to the hearers is a proposal too (Obama, 2012, 2015;
		// Carter, 1980); a verb that could be a noun or an adjective
		// before a noun is not read as one (Reagan, 1985; Clinton, 1996;
		// Truman, 1946), nor "Allow me" (Wilson, 1920).
		{"Send me a bill that bans insider trading by Members of Congress.", stanceProposal},
		{"Give them the resources to keep good teachers on the job.", stanceProposal},
		{"Make 1980 indeed a year of energy conservation.", stanceProposal},
		{"Support for freedom fighters is self-defense.", stanceFact},
		{"Lower interest rates have brought down the cost of home mortgages.", stanceFact},
		{"Close wartime cooperation between the Treasury Department and the Federal Reserve System has made it possible.", stanceFact},
		{"Allow me to call your attention to the fact that the Philippine Islands have a stable government.", stanceSpeaker},
		{"Help for small business means jobs for Americans.", stanceFact},
		{"Tell it to the small businesses burdened by the cost of insurance.", stanceFact},
		// The "should" of a clause a judgement introduces calls for
		// nothing (Theodore Roosevelt, 1908); the judgement is the view.
		{"It is discreditable to us as a people that there should be difficulty in convicting murderers.", stanceOpinion},
		{"It is strange that any one should doubt the result.", stanceFact},
		{"It is important that Congress should act at once.", stanceProposal},
		// A proposal made before is reported, not made (Taft, 1910, 1911);
		// one the sentence makes, in the passive too, is a proposal
		// (Theodore Roosevelt, 1903).
		{"The Government of the Netherlands, at the request of this Government, invited the powers to a conference.", stanceFact},
		// An adjective before the request (Hoover, 1929).
		{"About 1,600 marines remain in Nicaragua at the urgent request of that government.", stanceFact},
		{"I make the urgent request that Congress act.", stanceProposal},
		// A third person's proposal in the present (Cleveland, 1895).
		{"The Secretary also again recommends that the gratuitous distribution of seeds cease.", stanceFact},
		{"The Secretary recommends the change, and I urge its adoption.", stanceProposal},
		{"The Secretary of the Navy has recommended the abolition of certain of the smaller navy yards.", stanceFact},
		{"It is therefore recommended that all matters pertaining to forest reserves be consolidated in the Bureau of Forestry.", stanceProposal},
		{"More adequate training programs will be recommended.", stanceProposal},
		{"The attention of the Congress is invited to the recommendation of the Secretary of the Treasury.", stanceProposal},
		{"The Secretary recommended a new building, and I urge its construction.", stanceProposal},
		{"In my last annual message I recommended the repeal of the act.", stanceProposal},
		{"Additional Federal judges are needed, as recommended by me and the Judicial Conference.", stanceProposal},
		{"My recommendations on how to control violent crime were submitted to the Congress last June.", stanceProposal},
		{"The Secretary of the Interior in August last invited my attention to the report.", stanceSpeaker},
		{"Japan will hold an exposition in which the principal countries of the world are to be invited to take part.", stanceFact},
		// A law's or a treaty's terms are reported, not proposed (Monroe,
		// 1823; Pierce, 1854; Theodore Roosevelt, 1908); a condition
		// opened by "Should" proposes nothing (Polk, 1847).
		{"The act of May 12, 1820 provides that the system of tactics of the Regular Army shall be extended to the militia.", stanceFact},
		{"The fifth article of our treaty of 1826 with Denmark provides that there shall not be paid on the vessels of the United States higher duties than those of the most favored nations.", stanceSpeaker},
		{"Last year an amendment was incorporated in the measure providing for the Secret Service, which provided that there should be no detail from the Secret Service.", stanceFact},
		{"The act of Congress declares in substance that he shall only accuse such as he supposes to be unworthy.", stanceFact},
		{"At the commencement of the war it was declared by the French Government that the commerce of neutral nations should not be molested.", stanceFact},
		{"The Congress declared its hope and asked that the law should be repealed.", stanceProposal},
		{"Should the war be continued until June, it is estimated that a further loan of $20,500,000 will be required.", stanceFact},
		// The speaker's own call stays a proposal, a provision he asks
		// for too (Grant, 1873; Truman, 1949).
		{"To provide by amendment that legislation during an extra session shall be confined to the subjects the Executive brings before it.", stanceProposal},
		{"We should provide that the minimum wage shall be raised.", stanceProposal},
		{"Our economy requires that the minimum wage fixed by law should be raised to at least 75 cents an hour.", stanceProposal},
		{"The Congress should pass an act providing that the mails shall be closed to lotteries.", stanceProposal},
		// Another's proposal and its terms, a rule's terms, an inference
		// (Hoover, 1929; Taft, 1912; Harrison, 1892).
		{"It has been proposed that permission should be granted to national banks to engage in branch banking.", stanceFact},
		{"There are pending before Congress a large number of bills proposing to grant privileges of erecting dams.", stanceFact},
		{"The requirement that live cattle must be slaughtered at the docks dates from 1879.", stanceFact},
		{"The loss must have been considerable.", stanceFact},
		// A pronoun's contraction is the speaker as the pronoun is
		// (Clinton, 1998; Biden, 2021).
		{"Under the leadership of Vice President Gore, we've reduced the Federal payroll by 300,000 workers.", stanceSpeaker},
		{"For too long, we’ve failed to use the most important word.", stanceSpeaker},
		{"I'm pleased to report that the deficit fell.", stanceSpeaker},
		{"It's a fact that the deficit fell.", stanceFact},
		// What ought to have happened, and a condition (Hayes, 1878; Polk,
		// 1846).
		{"By its terms the public debt should have been reduced by $518,361,806.28.", stanceFact},
		{"The bonds ought to have been paid in coin.", stanceFact},
		{"In case prizes should be made of American vessels, the utmost vigilance will be exerted by the squadron.", stanceFact},
		{"If the war should continue, I recommend a further loan.", stanceProposal},
		{"The Congress should have the power to regulate it.", stanceProposal},
		{"If the war continues, the Congress should act.", stanceProposal},
		{"We must have a manned space station.", stanceProposal},
		// The speaker's "shall" is his future, as "will" is; a "shall" in a
		// clause of time or condition, a future perfect and a "should" of
		// an open question call for nothing (Eisenhower, 1955; Lincoln,
		// 1863; McKinley, 1898; Buchanan, 1859; Andrew Johnson, 1867).
		{"We shall continue to ferret out and to destroy Communist subversion.", stanceSpeaker},
		{"I shall promptly submit it to the Senate.", stanceSpeaker},
		{"While I remain in my present position I shall not retract it, nor shall I return to slavery any person who is free.", stanceSpeaker},
		{"If we expect to maintain a steady economy we shall have to maintain price and rent control.", stanceProposal},
		{"Shall we permit the debt to grow?", stanceProposal},
		{"The Congress shall provide for the increase of the regular establishment.", stanceProposal},
		{"It is my purpose to muster out the Volunteer Army as soon as the Congress shall provide for the increase of the regular establishment.", stanceSpeaker},
		{"The customs relations remain unchanged until legislation shall otherwise provide.", stanceFact},
		{"After Congress shall have declared war the President can alone employ this force.", stanceFact},
		// "should" in a clause of time is a future in the past (McKinley,
		// 1899; Grant, 1876; Pierce, 1854); "The time has come when ...
		// should" proposes (Andrew Johnson, 1868).
		{"Nothing remained necessary there but to continue the military control of the island until the Congress should enact a suitable government.", stanceFact},
		{"By the act of 1874 the President was authorized, when he should receive satisfactory information, to suspend the jurisdiction.", stanceFact},
		{"It was to remain in force for ten years and until one year after either party should give notice.", stanceFact},
		{"The time has come when the Government and national banks should be required to resume specie payments.", stanceProposal},
		// The speaker advocates or favors (Theodore Roosevelt, 1908);
		// others' advocacy is no proposal of his.
		{"I advocate the immediate admission of New Mexico and Arizona as States.", stanceProposal},
		{"We strongly favor the admission of the Territories.", stanceProposal},
		{"The advocates of free trade met in Boston.", stanceFact},
		// A call for action by the time it names (Coolidge, 1923; Obama,
		// 2010; Truman, 1952) and the speaker's need (Truman, 1948).
		{"The time has come to resume in a moderate way the opening of our intracoastal waterways.", stanceProposal},
		{"It's time to put strict limits on the contributions that lobbyists give to candidates.", stanceProposal},
		{"Now is the time to start a sensible program of readjustment benefits for our veterans.", stanceProposal},
		{"We need to continue price supports for major farm commodities.", stanceProposal},
		{"We need not wait for the report.", stanceSpeaker},
		// Only where the speaker opens a clause: not in a relative clause
		// (Carter, 1979; Nixon, 1974) nor in a condition.
		{"In the decade ahead, we need a new energy policy.", stanceProposal},
		{"Prices are rising, and we need a steadier dollar.", stanceProposal},
		{"I am convinced that we need a national health program.", stanceProposal},
		{"These are the measures we need to take against inflation.", stanceSpeaker},
		{"Let us develop the energy we need.", stanceProposal},
		{"The information we need about the oil supply is scattered.", stanceSpeaker},
		{"If we need more ships, the yards are ready.", stanceSpeaker},
		// Others asking, after their "be", propose nothing of the
		// speaker's (Coolidge, 1928); the speaker asking does.
		{"The people of Porto Rico are not asking for charity.", stanceFact},
		{"The farmers were asking for relief.", stanceFact},
		{"Tonight, I am also asking you to pass the bill.", stanceProposal},
		{"We are asking the Congress to act.", stanceProposal},
		// "Let us" after a comma opens a call of its own (Nixon, 1974).
		{"As we move toward the celebration, let us press vigorously on toward the goal.", stanceProposal},
		{"He let us down, as the record shows.", stanceSpeaker},
		{"The time of the session was short.", stanceFact},
		// The speaker behind a dash written as a hyphen (Eisenhower, 1959;
		// George W Bush, 2007) and after a lower-case "war" (Madison,
		// 1812) is quoted; "World War I", a compound and a road's number
		// hold no speaker.
		{"In Lebanon, Taiwan, and Berlin-our stand has been clear and right.", stanceSpeaker},
		{"With the other members of the Quartet-the U.N., the EU, and Russia-we're pursuing diplomacy.", stanceSpeaker},
		{"Among the incidents to the measures of the war I am constrained to advert to the refusal of the governors.", stanceSpeaker},
		{"The veterans of World War I are honored in the new cemetery.", stanceFact},
		{"The self-government of the Territories was restored.", stanceFact},
		{"The road from Baltimore to I-95 was finished in 1963.", stanceFact},
		{"The Constitution invests the President with authority to decide whether a removal should be made.", stanceFact},
		{"I submit whether revenues should not be increased.", stanceProposal},
		{"The question whether the Indian service should be transferred, the committee should decide.", stanceProposal},
		{"We are proposing a new program.", stanceProposal},
		{"To create jobs, I call on Congress to enact an immediate package of jobs investments.", stanceProposal},
		{"Tonight I call upon parents to join together.", stanceProposal},
		{"The Secretary will call on the Governors.", stanceFact},
		// A trust and a claim named as things are no opinion and no
		// assertion (Taft, 1911; Grant, 1869); asserting them is.
		{"The court was aided in framing the decree in the Tobacco Trust dissolution by an expert.", stanceFact},
		{"The commission for adjusting the claims of the company has terminated its labors.", stanceFact},
		{"Officers charged with the collection of the revenue were appointed.", stanceFact},
		{"I trust the Congress will act.", stanceOpinion},
		// Opinion, conviction, hope, fear and doubt as things, not the
		// speaker's views (Franklin D Roosevelt, 1948; Theodore Roosevelt,
		// 1906; Clinton, 1998; Grant, 1874; Buchanan, 1860).
		{"Within our borders popular opinion is at war with a power-seeking minority.", stanceSpeaker},
		{"The work of the agents led to the indictment and conviction of a Senator.", stanceFact},
		{"Families will get a $1,500 tax credit-a HOPE scholarship.", stanceFact},
		{"During the past year the fear of hostilities between China and Japan has occasioned uneasiness.", stanceFact},
		{"When the Allies first landed at Omaha Beach, victory was very much in doubt.", stanceFact},
		{"It is my hope that the treaty will be ratified.", stanceOpinion},
		{"The exhibition will, no doubt, be of enduring advantage to the country.", stanceOpinion},
		{"The reorganization will, I do not doubt, promote the efficiency of each bureau.", stanceOpinion},
		{"The House was of the opinion that the war existed.", stanceOpinion},
		{"We confidently trust that the treaty will be ratified.", stanceOpinion},
		{"The company claims that its rights were violated.", stanceReported},
		{"The company claimed damages of $50,000.", stanceReported},
	}
	for _, tt := range tests {
		if got := classify(tt.s); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestAttributeWithoutAuthor(t *testing.T) {
	tests := []struct {
		body string
		st   stance
		src  source
		want string
	}{
		{"The council approved the barrier.", stanceFact, sourceOf("", "2021-05-04", "Barrier vote"),
			"According to “Barrier vote” (2021), the council approved the barrier."},
		{"The council approved the barrier.", stanceFact, sourceOf("", "", "Barrier vote"),
			"According to “Barrier vote”, the council approved the barrier."},
		{"We approved the barrier.", stanceSpeaker, sourceOf("Ruhr Gazette", "", ""),
			"Ruhr Gazette reported: “We approved the barrier.”"},
		{"The council approved the barrier.", stanceFact, sourceOf("", "", ""),
			"The council approved the barrier."},
		// A first word that is no common word and no name seen again is
		// quoted rather than written after "reported that".
		{"Assuming a surplus, the debt will fall.", stanceFact, sourceOf("Ruhr Gazette", "2021", ""),
			"In 2021, Ruhr Gazette reported: “Assuming a surplus, the debt will fall.”"},
		{`He called it "the best law".`, stanceSpeaker, sourceOf("Ruhr Gazette", "2021", ""),
			"In 2021, Ruhr Gazette reported: “He called it 'the best law'.”"},
		// A short lead before a colon reads badly after "reported that".
		{"In 1980: The findings of the task force revealed deficits.", stanceFact, sourceOf("Ruhr Gazette", "1981", ""),
			"In 1981, Ruhr Gazette reported: “In 1980: The findings of the task force revealed deficits.”"},
		{"The council approved three things: a barrier, a dam and a lock.", stanceFact, sourceOf("Ruhr Gazette", "1981", ""),
			"In 1981, Ruhr Gazette reported that the council approved three things: a barrier, a dam and a lock."},
	}
	for _, tt := range tests {
		if got := attribute(tt.body, tt.st, tt.src); got != tt.want {
			t.Errorf("attribute(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestTrimClauses(t *testing.T) {
	e := newTestEngine()
	wt := e.newWordTerms()
	list := "Exploratory drilling activities have reached an all-time high; prices for new natural gas are being decontrolled " +
		"under the Natural Gas Policy Act and natural gas production is now at an all time high; the supply shortages of several " +
		"years ago have been eliminated; the windfall profits tax on crude oil has been enacted providing $227 billion over ten " +
		"years for assistance to low-income households; the Synthetic Fuels Corporation has been established to help private " +
		"companies build the facilities to produce energy from synthetic fuels."
	// Kennedy, 1962: items of a list of noun phrases, no verb of their own.
	nouns := "At times our goal has been obscured by crisis or endangered by conflict-but it draws sustenance from five basic " +
		"sources of strength: -the moral and physical strength of the United States; -the united strength of the Atlantic " +
		"Community; -the regional strength of our Hemispheric relations; -the creative strength of our efforts in the new and " +
		"developing nations; and -the peace-keeping strength of the United Nations."
	// After Taft, 1912.
	items := "Several wars have been prevented by the successful tripartite mediation of the Argentine Republic, Brazil, and " +
		"the United States between Peru and Ecuador; the bringing of the boundary dispute between Panama and Costa Rica to " +
		"peaceful arbitration; the staying of warlike preparations when Haiti and the Dominican Republic were on the verge of " +
		"hostilities; the stopping of a war in Nicaragua; the halting of internecine strife in Honduras."
	// Coolidge, 1923: dependent clauses waiting for the main clause.
	whenever := "Whenever there appears any disposition to compensate our citizens who were despoiled, and to recognize " +
		"that debt contracted with our Government, not by the Czar, but by the newly formed Republic of Russia; whenever " +
		"the active spirit of enmity to our institutions is abated; whenever there appear works mete for repentance; our " +
		"country ought to be the first to go to the economic and moral rescue of Russia, and to lend it every help that " +
		"its people would accept from a friendly nation across the sea."
	// Franklin D Roosevelt, 1935: items of a series opened by "in", one
	// with a participle ("designed").
	works := "The work itself will cover a wide field including clearance of slums; in rural electrification; in improving " +
		"existing road systems and in constructing national highways designed to handle modern traffic; in the elimination " +
		"of grade crossings; in the extension and enlargement of the successful work of the Civilian Conservation Corps; and " +
		"on many other projects which the Nation needs and cannot afford to neglect."
	tests := []struct {
		name, text, answer string
		want               string // "" for the text unchanged
	}{
		{"a dependent clause is no sentence", whenever, "active spirit of enmity", ""},
		{"nor are two of them", whenever, "active spirit of enmity repentance", ""},
		{"the clause stating the answer", list, "$227 billion",
			"The windfall profits tax on crude oil has been enacted providing $227 billion over ten years for assistance to low-income households."},
		{"a short sentence stays whole", "The tax was enacted; it provides $227 billion.", "$227 billion", ""},
		{"a clause that refers back stays in its sentence",
			strings.Replace(list, "the windfall profits tax on crude oil has been enacted", "it has been enacted", 1), "$227 billion", ""},
		{"an item without a verb takes the clauses back to the verb", nouns, "Atlantic Community",
			"At times our goal has been obscured by crisis or endangered by conflict-but it draws sustenance from five basic " +
				"sources of strength: -the moral and physical strength of the United States; -the united strength of the " +
				"Atlantic Community."},
		{"a list item takes the items before it", items, "Haiti",
			"Several wars have been prevented by the successful tripartite mediation of the Argentine Republic, Brazil, and " +
				"the United States between Peru and Ecuador; the bringing of the boundary dispute between Panama and Costa Rica to " +
				"peaceful arbitration; the staying of warlike preparations when Haiti and the Dominican Republic were on the verge of " +
				"hostilities."},
		{"the last item would take the whole sentence", items, "Honduras", ""},
		{"an item of a series opened by one preposition takes the clause that opens it", works, "grade crossings",
			"The work itself will cover a wide field including clearance of slums; in rural electrification; in improving " +
				"existing road systems and in constructing national highways designed to handle modern traffic; in the elimination " +
				"of grade crossings."},
	}
	for _, tt := range tests {
		want := tt.want
		if want == "" {
			want = tt.text
		}
		if got := e.trimClauses(tt.text, normalize(tt.answer, wt), wt); got != want {
			t.Errorf("%s: trimClauses = %q, want %q", tt.name, got, want)
		}
	}
}

func TestHasVerb(t *testing.T) {
	for s, want := range map[string]bool{
		"The windfall profits tax on crude oil has been enacted": true,
		"Prices rose sharply after the tariff":                   true,
		"whenever the active spirit of enmity is abated":         false,
		"-the united strength of the Atlantic Community":         false,
		"the regional strength of our Hemispheric relations":     false,
		"its revised terms and the new schedule of duties":       false,
		"Congress passed the act and the President signed it":    true,
		"the peace-keeping strength of the United Nations":       false,
		// The verb of a dependent clause, or a participle with its agent,
		// is not the main clause's (Taft 1912, John Quincy Adams 1828).
		"the staying of warlike preparations when Haiti and the Dominican Republic were on the verge of hostilities": false,
		"in the revenue yielded by them, which from $67,000 has swollen to upward of $1,500,000":                     false,
		"The Congress declared that the act was void":                                                                true,
	} {
		if got := hasVerb(s); got != want {
			t.Errorf("hasVerb(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestExtractAnswersATopicQuestion(t *testing.T) {
	// A question asked about a part of the request shares few words with
	// the sentence that answers it; the sentence speaks of the request
	// and states the answer.
	out := attributedExtract(t, prompts.QA{Question: "Which country is mentioned regarding import duties?", Answer: "Republic of Brazil"},
		"Wool prices rose. The reciprocity clause of the McKinley Tariff opened a trade in sugar with the Republic of Brazil.")
	if !out.Found || !strings.Contains(out.Sentence, "Republic of Brazil") {
		t.Errorf("no sentence for a question asked about a part of the request: %+v", out)
	}
}

// validSpans keeps a text's sentence spans that lie in it, and starts a
// list item's sentence after its dash.
func TestValidSpans(t *testing.T) {
	text := "Actions: -To raise income. -I shall recommend more. - . End."
	spans := []pipeline.Span{{Start: 0, End: 26}, {Start: 27, End: 51}, {Start: 52, End: 53}, {Start: 56, End: 60}, {Start: 50, End: 99}, {Start: 5, End: 5}}
	var got []string
	for _, sp := range validSpans(spans, text) {
		got = append(got, text[sp.Start:sp.End])
	}
	want := []string{"Actions: -To raise income.", "I shall recommend more.", "End."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("validSpans (-want +got)\n%s", diff)
	}
}

// TestCanFollowThat: a sentence follows "reported that" when it opens
// with a common word or a name it writes again; a word written again only
// inside a longer name is no name (Carter, 1981).
func TestCanFollowThat(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"The treaty was signed.", true},
		{"Congress passed the act, and Congress then adjourned.", true},
		{"Social Security is sound, and Social Security will stay so.", true},
		{"Solar energy funding has been quadrupled and a Solar Energy and Energy Conservation Bank created.", false},
		{"Assuming, somewhat arbitrarily, that the rate holds, the debt will fall.", false},
		{"That the duty is just is plain.", false},
	}
	for _, tt := range tests {
		if got := canFollowThat(tt.s); got != tt.want {
			t.Errorf("canFollowThat(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
