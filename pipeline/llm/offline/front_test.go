package offline

import "testing"

func TestPastBase(t *testing.T) {
	for past, want := range map[string]string{
		"passed": "pass", "appropriated": "appropriate", "carried": "carry", "stopped": "stop", "admitted": "admit",
		"raised": "raise", "reduced": "reduce", "approved": "approve", "charged": "charge", "signed": "sign",
		"agreed": "agree", "required": "require", "secured": "secure", "repaired": "repair", "called": "call",
		"emerged": "emerge", "forced": "force", "collapsed": "collapse", "changed": "change", "ratified": "ratify",
		"made": "make", "took": "take", "paid": "pay", "increased": "increase", "reached": "reach",
		"contributed": "contribute", "annexed": "annex", "ended": "end", "acquired": "acquire", "occurred": "occur",
		"involved": "involve", "served": "serve", "breathed": "breathe", "judged": "judge", "acknowledged": "acknowledge",
		"described": "describe", "concluded": "conclude", "decided": "decide", "provided": "provide", "invoked": "invoke",
		"assumed": "assume", "avoided": "avoid", "claimed": "claim", "compiled": "compile", "ruled": "rule",
		"scheduled": "schedule", "failed": "fail", "enabled": "enable", "settled": "settle", "handled": "handle",
		"destined": "destine", "determined": "determine", "combined": "combine", "obtained": "obtain",
		"joined": "join", "looked": "look", "attacked": "attack", "asked": "ask", "formed": "form", "seemed": "seem",
		"needed": "need", "added": "add", "recorded": "record", "founded": "found", "appealed": "appeal",
		"employed": "employ", "sustained": "sustain", "appointed": "appoint", "visited": "visit",
		"convened": "convene", "intervened": "intervene", "advanced": "advance", "announced": "announce",
		"opened": "open", "happened": "happen",
	} {
		if got, ok := pastBase(past); !ok || got != want {
			t.Errorf("pastBase(%q) = %q, %v; want %q", past, got, ok, want)
		}
	}
	for _, w := range []string{"treaty", "hundred", "sacred"} {
		if _, ok := pastBase(w); ok {
			t.Errorf("pastBase took %q for a past tense", w)
		}
	}
}

func TestFrontQuestion(t *testing.T) {
	tests := []struct{ body, wh, after, want string }{
		{"Congress passed the McKinley Tariff", "in what year", "", "In what year did Congress pass the McKinley Tariff"},
		{"The treaty was signed", "on what date", "", "On what date was the treaty signed"},
		{"The public debt was increased", "how much", "", "How much was the public debt increased"},
		{"The tariff raises duties", "by what percentage", "", "By what percentage does the tariff raise duties"},
		{"The Secretary of the Navy asks for", "how many more seamen", "", "For how many more seamen does the Secretary of the Navy ask"},
		{"Last spring-after notable victory", "where", "", ""},
		{"The treaty was signed", "by who", "", "By whom was the treaty signed"},
		{"Had Congress admitted", "what", "", ""},
		{"The Government paid France", "how much", "for Louisiana", "How much did the Government pay France for Louisiana"},
		{"The number of post offices has been increased to", "what number", "", "To what number has the number of post offices been increased"},
		{"The estimates for Panama Canal construction for", "what year", " are $17,000,000 less than for 1913",
			"For what year are the estimates for Panama Canal construction $17,000,000 less than for 1913"},
		{"A convention with", "what", " has been concluded", "With what has a convention been concluded"},
		{"In 1977 Congress created", "what", "", "What did Congress create in 1977"},
		{"On July 4, 1902, peace was proclaimed", "where", "", "Where was peace proclaimed on July 4, 1902"},
		// No plain subject before the verb: no question.
		{"In the year, the country will have", "how much", "", ""},
		{"Except, possibly, a few engaged in the trade between", "how many sections", "", ""},
		{"Railways", "how many miles", "", ""},
		// A word in -ed that modifies the subject is not the clause's verb
		// when a finite verb follows: no question.
		{"The commissioners appointed agreeably to the 21st article of the treaty with Spain met at", "what place", "", ""},
		{"The whole amount of public money transferred by the Bank of the United States in 1832 was", "how much", "", ""},
		// A participle after the verb's object is no second verb.
		{"The Senate ratified the treaty signed at London", "in what year", "", "In what year did the Senate ratify the treaty signed at London"},
		// A participle with its agent is no verb to ask "did" with; a
		// verb of change keeps "by" for its amount.
		{"The commission appointed by the President", "on what date", "", ""},
		{"The revenue increased by", "how much", "", "By how much did the revenue increase"},
		{"The receipts increased by $5,000,000 in", "what year", "", "In what year did the receipts increase by $5,000,000"},
		// A word in -s after an adjective is a plural noun, not the verb.
		{"The late serious difficulties between the United States and", "what", " respecting the right of search", ""},
		// So is one after a quantifier or "other", a word in -ing, or an
		// adjective opening the clause.
		{"The claims of nearly all other countries", "against which country", "", ""},
		{"A lifetime ban on becoming lobbyists for", "what", "", ""},
		{"Special ministers to", "which country", "", ""},
		{"Recent threats targeting community centers", "what", "", ""},
		{"The Secretary asks", "how many more seamen", "", "How many more seamen does the Secretary ask"},
		// A participle's phrase inside the subject does not hide the verb.
		{"Legislation aiding construction of schools in the districts expires", "on what date", "",
			"On what date does Legislation aiding construction of schools in the districts expire"},
		// The wh-phrase inside the subject, a participle after it and the
		// clause's verb later: no question.
		{"The successful", "which conference", " held in Geneva under United Nations auspices have been practical steps", ""},
		{"The estimates for", "what year", " were reduced", "For what year were the estimates reduced"},
		// A word in -s that ends the clause before a place is a plural
		// noun ("the charge d'affaires in London").
		{"The charge d'affaires", "where", "", ""},
		{"The monthly line of mail steamers", "where", "", ""},
	}
	for _, tt := range tests {
		if got := frontQuestion(tt.body, tt.wh, tt.after); got != tt.want {
			t.Errorf("frontQuestion(%q, %q, %q) = %q, want %q", tt.body, tt.wh, tt.after, got, tt.want)
		}
	}
}

func TestReadableQuestion(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"In what year did Congress pass the McKinley Tariff?", true},
		{"Which treaty ended the war with Mexico?", true},
		{"How much was the public debt increased?", true},
		{"Was the treaty ratified by the Senate in 1846?", true},
		{"Except, possibly, a few engaged in the trade between how many sections?", false},
		{"The veto was based on the ground that, since which board would make?", false},
		{"What is named in connection with American States?", false},
		{"Congress passed the McKinley Tariff in what year?", true},
		{"The surplus in the Treasury will swell to how much?", true},
		{"To the results of the legislation upon what?", false},
		{"Railways how many miles?", false},
		{"-The extension of the minimum wage to more than how many unprotected workers?", false},
		{"In the spring?", false},
		{"What did the “new tariff bring?", false},
		{"what year did it end?", false},
		{"Of what does the control of flood water of the Mississippi and?", false},
		{"What was made at a place called?", false},
		{"How many years are given for Nine months of intense negotiations involving?", false},
	}
	for _, tt := range tests {
		if got := readableQuestion(tt.q); got != tt.want {
			t.Errorf("readableQuestion(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestReadableClauseQuestion(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"In what year did Congress pass the McKinley Tariff?", true},
		{"By how much did internal-revenue receipts exceed those of the preceding year?", true}, // "exceed" is no past
		{"Since what year has Congress at each session authorized the building of one or more vessels?", true},
		{"On what date did the treaty go into effect after the Senate had consented?", true}, // a clause of its own
		{"For how many years will studies be undertaken?", true},                             // "be" after its modal
		// A subjunctive "be" left as the verb (Theodore Roosevelt, 1904:
		// "I recommend that the weather service be separated from ...").
		{"From which department be the weather service separated?", false},
		{"Into whom be the General Board by law turned?", false},
		// The answer cut from "two or three years".
		{"How many years does the practice march of the last two or have been invaluable to the Army?", false},
		{"How many acres are there said to be fifteen or of land in the West?", false},
		// A second verb in the past: the sentence's verb was a reduced
		// relative clause's ("the public land disposed of ... amounted").
		{"To how many acres did the public land dispose of during the year amounted?", false},
		{"What date did Congress accordingly pass the act approved?", false},
		// An article right after the wh-phrase.
		{"With what the diplomatic relations have been resumed?", false},
		// An auxiliary first (its subject cut) or last.
		{"Will appear from the accompanying copy of the note of the minister plenipotentiary of what?", false},
		{"Should the war with Mexico be continued until the 30th of what month?", false},
		{"How much of the public moneys were?", false},
		{"How many main objectives should the long-range agricultural policies have?", true},
		{"How many workers should protection be extended to some 6 1/?", false},
		// "What" or "Who" as the subject with no verb after it.
		{"What having some claim to the country ceded by the Delawares?", false},
		{"What with disabilities has also reached an all-time low?", false},
		{"Who having by the late President been designated as such friendly sovereign?", false},
		{"What is for the independence of nations?", false},
		{"What There are pending before Congress a large number of bills?", false},
		{"What has taken the first steps of reform?", true},
		{"What number Americans have been lifted off food stamps?", false},
		{"What number has the team arrested?", true},
		{"Who has introduced a bill permitting a trial run of the line-item veto?", true},
		{"What is the fundamental idea of forestry?", true},
		// "the last" whose number was the answer.
		{"How many years has the number of free-delivery offices been nearly doubled in the last?", false},
		{"How many vessels were captured during the last year?", true},
		// A second finite verb after "did".
		{"On what date did the quantity of public land dispose of during the five quarters ending was 4,221,342 acres?", false},
		{"Which corporation does the expansion of credit facility by the Federal Reserve System and has been of value?", false},
		{"On what date did the exploring expedition sail from Norfolk?", true},
		// A heading run into the sentence; "did not" with no subject.
		{"What is Disaster Assistance A modern community?", false},
		{"On what date was the Second International Peace Conference convened at The Hague?", true},
		{"Until what date did not present for payment?", false},
		{"Where did Instead of getting drag into another ground war?", false},
		{"Since what year has no revision of the laws been made?", true},
		// "the own" of "our own" with nothing after it.
		{"For what have the post-office department of Great Britain and the own agreed upon a preliminary basis?", false},
	}
	for _, tt := range tests {
		if got := readableClauseQuestion(tt.q); got != tt.want {
			t.Errorf("readableClauseQuestion(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	// Template questions need not pass it: a heading may hold a "be".
	if q := "What year is given for the law Hayes urged be passed?"; !readableQuestion(q) || readableClauseQuestion(q) {
		t.Errorf("readableQuestion(%q) = %v, readableClauseQuestion = %v; want true, false", q, readableQuestion(q), readableClauseQuestion(q))
	}
}

func TestCountable(t *testing.T) {
	for noun, want := range map[string]bool{
		"troops": true, "new housing units": true, "men": true, "regular troops": true,
		"family": false, "representing": false, "new housing": false, "": false, "census": false,
	} {
		if got := countable(noun); got != want {
			t.Errorf("countable(%q) = %v, want %v", noun, got, want)
		}
	}
}

func TestCaseUseFix(t *testing.T) {
	e := newTestEngine()
	summary := "Negotiations for a treaty with Peru were concluded in 1838. The negotiations lasted a year. " +
		"President Diaz appointed the board, and the president signed. " +
		"The people of New York asked for new legislation. " +
		"In 1890 Congress passed the tariff. Recent agreements were signed. Everyone was anxious for good highways."
	use := caseUseOf(summary, e.an.Sentences(summary))
	tests := []struct{ q, want string }{
		// Only the sentences' openers write "Negotiations" and "Recent":
		// the summary writes "negotiations" in lower case.
		{"With which country have Negotiations for a treaty been concluded?", "With which country have negotiations for a treaty been concluded?"},
		// "Congress" is capitalised inside a sentence: a name.
		{"In what year did Congress pass the tariff?", "In what year did Congress pass the tariff?"},
		// "New" is capitalised inside a sentence only before another
		// capital ("New York"): "New legislation" is common words.
		{"For what does New legislation provide?", "For what does new legislation provide?"},
		// A run of capitals is a name: "President Diaz" stays.
		{"Whom did President Diaz appoint?", "Whom did President Diaz appoint?"},
		// "Recent" and "Everyone" only ever open a sentence: they stay.
		{"Where were Recent agreements signed?", "Where were Recent agreements signed?"},
		{"For what is Everyone anxious?", "For what is Everyone anxious?"},
		// Openers the summary never writes inside a sentence but with
		// the ending of an abstract noun or an adverb go to lower case;
		// one government prose capitalises keeps its capital.
		{"Where is Legislation desirable for a dam?", "Where is legislation desirable for a dam?"},
		{"What is Closely related to crime conditions?", "What is closely related to crime conditions?"},
		{"When did the Constitution take effect?", "When did the Constitution take effect?"},
		{"Where did Italy send troops?", "Where did Italy send troops?"},
		// The question's first word and a word in capitals stay.
		{"Negotiations with which country were concluded?", "Negotiations with which country were concluded?"},
		{"What of the NEGOTIATIONS?", "What of the NEGOTIATIONS?"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := use.fix(tt.q); got != tt.want {
			t.Errorf("fix(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	if got := caseUse(nil).fix("How were Negotiations concluded?"); got != "How were Negotiations concluded?" {
		t.Errorf("nil caseUse changed the question: %q", got)
	}
	// The opener of a sentence the question is made from goes to lower
	// case before the question is made, with the same spans.
	for _, tt := range []struct{ s, want string }{
		{"Negotiations for extradition treaties with the Netherlands were concluded.", "negotiations for extradition treaties with the Netherlands were concluded."},
		{"“Negotiations were concluded.”", "“negotiations were concluded.”"},
		{"Congress met.", "Congress met."},
		{"President Diaz appointed the board.", "President Diaz appointed the board."},
		{"Recent agreements were signed.", "Recent agreements were signed."},
	} {
		toks := tokenize(tt.s)
		ls, ltoks := use.lowerOpener(tt.s, toks)
		if ls != tt.want || len(ltoks) != len(toks) {
			t.Errorf("lowerOpener(%q) = %q, %d tokens; want %q, %d", tt.s, ls, len(ltoks), tt.want, len(toks))
			continue
		}
		for k := range ltoks {
			if ltoks[k].text != ls[ltoks[k].start:ltoks[k].end] || ltoks[k].start != toks[k].start {
				t.Errorf("lowerOpener(%q): token %d is %q at %d", tt.s, k, ltoks[k].text, ltoks[k].start)
			}
		}
		if ls != tt.s && toks[0].text == ltoks[0].text && toks[0].kind == tokWord {
			t.Errorf("lowerOpener(%q) changed the caller's tokens", tt.s)
		}
	}
}

func TestFinishQuestionOwn(t *testing.T) {
	wt := newTestEngine().newWordTerms()
	tests := []struct{ q, want string }{
		{"Which administration is directed in Russia by former officers of our own armies", "Which administration is directed in Russia by former officers of the armies?"},
		{"Where did our exports go", "Where did the exports go?"},
		// With no noun after "own", "the own" stays for brokenClause.
		{"For what have Great Britain and our own agreed upon a basis", "For what have Great Britain and the own agreed upon a basis?"},
	}
	for _, tt := range tests {
		if got := finishQuestion(tt.q, wt); got != tt.want {
			t.Errorf("finishQuestion(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
