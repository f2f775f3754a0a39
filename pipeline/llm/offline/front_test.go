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
		// The wh-phrase inside the subject, a participle after it and the
		// clause's verb later: no question.
		{"The successful", "which conference", " held in Geneva under United Nations auspices have been practical steps", ""},
		{"The estimates for", "what year", " were reduced", "For what year were the estimates reduced"},
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
