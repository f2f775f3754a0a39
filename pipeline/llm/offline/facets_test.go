package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// evalRequests reads the problem statements of the SOTU evaluation
// requests by id.
func evalRequests(t *testing.T) map[string]prompts.RequestInfo {
	t.Helper()
	out := map[string]prompts.RequestInfo{}
	for _, path := range []string{"../../../testdata/eval/sotu-requests.jsonl", "../../../testdata/eval/sotu2-requests.jsonl", "../../../testdata/eval/sotu22-requests.jsonl"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			var r struct {
				ID               string `json:"request_id"`
				Title            string `json:"title"`
				ProblemStatement string `json:"problem_statement"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out[r.ID] = prompts.RequestInfo{ID: r.ID, Title: r.Title, ProblemStatement: r.ProblemStatement}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// headingsOf answers the facets task for a request through the engine
// and the task's parser, as the pipeline does, and returns the headings.
func headingsOf(t *testing.T, e *Engine, r prompts.RequestInfo) []string {
	t.Helper()
	resp := complete(t, e, prompts.BuildFacets(prompts.FacetsInput{Request: r}))
	out, err := prompts.ParseFacets(resp.Text)
	if err != nil {
		t.Fatalf("%s: the parser rejects the answer %q: %v", r.ID, resp.Text, err)
	}
	if !out.Report.Empty() {
		t.Errorf("%s: the answer did not parse cleanly: %+v", r.ID, out.Report)
	}
	var hs []string
	for _, f := range out.Facets {
		if f.Description == "" {
			t.Errorf("%s: facet %q has no description", r.ID, f.Heading)
		}
		hs = append(hs, f.Heading)
	}
	return hs
}

// TestFacetsOfEvalRequests reads the facets of real problem statements:
// the things each asks for, in its order, headed in its own words; the
// frame ("Report on the tariff question from ...") and the asks for kinds
// of detail ("Give the dates, figures and places the messages state") are
// no facets.
func TestFacetsOfEvalRequests(t *testing.T) {
	reqs := evalRequests(t)
	e := newTestEngine()
	tests := map[string][]string{
		"sotu-01": {"How and when Louisiana was acquired", "Exploration of the new territory", "Annexation, boundary and territorial figures"},
		"sotu-02": {"Early defeat in the Northwest", "Naval victories on the lakes and at sea", "Attacks on the Atlantic coast",
			"Campaigns against the Creek tribes", "Diplomacy that ended the war"},
		"sotu-03": {"Proclamation and its timing", "Compensated emancipation", "Enlistment of former slaves",
			"Constitutional amendment abolishing slavery", "War's scale", "Number of people freed"},
		"sotu-04": {"Surplus that drove the debate", "Features and dates of each tariff law", "Reciprocity arrangements", "Machinery Taft set up"},
		"sotu-05": {"Treaty with Great Britain", "Panama revolution and treaty with Panama", "Payments made and the cost estimates",
			"Canal's leadership and financing law", "Planned opening and tolls"},
		"sotu-06": {"Deficits, bank troubles and relief measures under Hoover", "Recovery, relief and work programs"},
		"sotu-09": {"Embargo and dependence on imported oil", "Project Independence", "Ford's import-reduction goals and stockpile",
			"Carter's new department", "Import ceilings and the windfall profits tax"},
		"sotu-10": {"Debt levels and milestones", "Deficit, surplus and debt-reduction figures"},
		"sotu-11": {"Founding and early dealings with the Treasury", "Government's stock", "Jackson's challenge to its recharter",
			"Bank's conduct as its charter ran out", "System of keeping the public money apart"},
		"sotu-13": {"Principles Monroe announced in his 1823 message", "Negotiations and European events", "Polk's reaffirmation",
			"Cleveland's stand in the Venezuela boundary dispute", "Theodore Roosevelt's claims in the Caribbean"},
		"sotu-17": {"Roosevelt's original proposals", "Extensions of coverage and benefits", "Push to cover the medical costs",
			"1983 rescue", "Clinton's plans for the budget surplus", "George W. Bush's reform proposal"},
		"sotu-19": {"Eisenhower's program and the laws and administrative steps", "Obstacles to voting that Kennedy named",
			"Johnson's proposals on juries", "Landmark laws in force by 1969"},
		"sotu2-01": {"Start of the war with Tripoli", "Land expedition and the peace", "How the Mediterranean service was paid for",
			"Commanders and terms of the settlement with Algiers"},
		"sotu2-02": {"Battles reported", "Date Congress recognized the war", "How the war was to be manned",
			"When and under what treaty peace was made"},
		"sotu2-03": {"First law authorizing reform and the commission", "Grant's threat to abandon the experiment",
			"Hayes's trials of competitive examinations", "Growth of the classified service"},
		// A heading cut inside a clause never ends on its subject pronoun
		// or on "each" ("Rise in the price of cigarettes he", "How many
		// children he said start smoking each"); a question's speaker goes
		// so that the question itself fits.
		"sotu22-11": {"Who should pay more for cigarettes", "How many children take up smoking each year",
			"What he wanted banned to protect children", "Rise in the price of cigarettes he proposed", "How many children start smoking each day",
			"Group he wanted protected in tobacco legislation", "Whose authority over tobacco he asked Congress",
			"What he announced the Justice Department was preparing"},
		"sotu2-04": {"Early concern with the coolie trade", "Treaty negotiated at Peking and the restriction act",
			"Violence against Chinese laborers in the West", "Difficulties of enforcing them at the borders", "Registration law and the court test"},
	}
	for id, want := range tests {
		t.Run(id, func(t *testing.T) {
			r, ok := reqs[id]
			if !ok {
				t.Fatalf("no request %s in testdata/eval", id)
			}
			if diff := cmp.Diff(want, headingsOf(t, e, r)); diff != "" {
				t.Errorf("headings of %s (-want +got):\n%s", id, diff)
			}
		})
	}
	// Every request gives between one and MaxFacets facets of at most
	// MaxFacetHeadingWords words.
	for id, r := range reqs {
		hs := headingsOf(t, e, r)
		if len(hs) == 0 || len(hs) > pipeline.MaxFacets {
			t.Errorf("%s: %d facets", id, len(hs))
		}
	}
}

func TestFacetsOfOtherStatements(t *testing.T) {
	e := newTestEngine()
	tests := []struct {
		name string
		req  prompts.RequestInfo
		want []string
	}{
		{"one ask gives one facet",
			prompts.RequestInfo{Title: "The McKinley Tariff", ProblemStatement: "Describe the effect of the McKinley Tariff on the price of tin plate."},
			[]string{"Effect of the McKinley Tariff"}},
		{"a question list",
			prompts.RequestInfo{Title: "Flood defences", ProblemStatement: "What flood defences have been approved for the Emscher valley since 2020, at what cost, and what objections have been raised?"},
			[]string{"What flood defences have been approved", "At what cost", "What objections have been raised?"}},
		{"include with semicolons",
			prompts.RequestInfo{Title: "Navy", ProblemStatement: "Report on the Navy of the last decade. Include the new cruisers; the coaling stations abroad; and the naval militia."},
			[]string{"New cruisers", "Coaling stations abroad", "Naval militia"}},
		{"is it discussed",
			prompts.RequestInfo{Title: "Nike", ProblemStatement: "Are store closures in malls discussed?"},
			[]string{"Store closures in malls"}},
		{"only details asked: the title",
			prompts.RequestInfo{Title: "The Louisiana Purchase, 1803", ProblemStatement: "Give the dates, sums and names the messages state."},
			[]string{"Louisiana Purchase, 1803"}},
		{"a relative clause's subject is a list of names",
			prompts.RequestInfo{Title: "Cotton in Europe", ProblemStatement: "Report what the messages said about the duties that Great Britain, France and the German states laid on American cotton, and the treaties meant to lower them."},
			[]string{"Duties Great Britain, France and German states laid", "Treaties"}},
		{"a list of years or a date's year goes on with the number before it",
			prompts.RequestInfo{Title: "Jobs", ProblemStatement: "Report what the addresses said about jobs: the declaration of January 1, 1942 and its signers, and the manufacturing jobs he reported in 2013, 2015 and 2016."},
			[]string{"Declaration of January 1, 1942 and its signers", "Manufacturing jobs he reported in 2013"}}, // no facet "2015 and 2016"
		{"bare verbs go on with an infinitive; a cut heading drops a relative clause that points back",
			prompts.RequestInfo{Title: "Cotton", ProblemStatement: "Report what the messages said about the cotton crop: the insect pests that attacked it and the Government's response to them, and the proposals to abolish, continue, cut or restore them."},
			[]string{"Insect pests", "Proposals to abolish, continue, cut or restore them"}},
		{"no statement: the title",
			prompts.RequestInfo{Title: "The Louisiana Purchase"},
			[]string{"Louisiana Purchase"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, headingsOf(t, e, tt.req)); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFacetsTaskMismatch(t *testing.T) {
	req := prompts.BuildFacets(prompts.FacetsInput{Request: tariffRequest})
	req.Task = prompts.TaskNuggets
	if _, err := newTestEngine().Complete(context.Background(), req); err == nil {
		t.Error("a facets input sent as another task was answered")
	}
}

// A heading cut to MaxFacetHeadingWords leaves nothing hanging at its end:
// no preposition but after a verb, no relative clause without its verb,
// no speaker and verb that wanted a clause; a verb after its subject
// stays.
func TestHeadingCutLeavesNothingHanging(t *testing.T) {
	tests := []struct{ ask, want string }{
		{"the making of the census office into a permanent bureau of the Department", "Making of the census office"},
		{"the date of the act under which the new board of ordnance was convened", "Date of the act"},
		{"the danger the Senator said a full employment program must avert", "Danger a full employment program must avert"},
		{"the danger George W. Bush said a full employment program must avert", "Danger a full employment program must avert"},
		{"what Clinton said to the assembled delegates gathered there from every State", "What Clinton said"},
		{"the two laws the Governor asked for in his message to the legislature last year", "Two laws the Governor asked for"},
		{"the canal the Government agreed to take over and the channel it dredged", "Canal the Government agreed to take over"},
		{"the bureau it created and the union of the republics that followed it", "Bureau it created"},
		{"the place of the United States among the treaty powers of the Pacific", "Place of the United States"},
		{"the fall of the President of Haiti that Cleveland reported in 1888", "Fall of the President of Haiti"},
		// A cut that leaves a clause or a phrase unfinished is written in
		// headline style when that fits, else backed off to an earlier cut
		// point; a "how" clause gives way to its object.
		{"How Andrew Johnson and Grant judged the tenure-of-office laws", "How Andrew Johnson and Grant judged tenure-of-office laws"},
		{"The laboratory Congress had provided and the bureau Taft proposed", "Laboratory Congress had provided and bureau Taft proposed"},
		{"The enlargement Adams urged in 1798 and his view of the Navy in 1800", "Enlargement Adams urged in 1798"},
		{"The numbers of late bills and stopgap measures Presidents cited", "Numbers of late bills"},
		{"How the Presidents described the danger they posed compared with the threats of the Cold War", "Danger they posed compared with the threats"},
		{"the sums appropriated from the Treasury to pay for the service", "Sums appropriated from Treasury to pay for service"},
		// Complete cuts stay.
		{"What he asked Congress to do about anarchistic speech and the immigration of anarchists", "What he asked Congress to do"},
		{"The new department and bureau created to secure publicity of corporate affairs and the money voted", "New department and bureau created to secure publicity"},
		{"Whether the United States joined the new international organization and limited its arms after the war", "Whether the United States joined"},
		// "without", "among", "beyond" ... open a phrase a heading may be
		// cut before (sotu52-08, sotu72-10).
		{"the aim of being able to mobilize rapidly without a full war footing", "Aim of being able to mobilize rapidly"},
		{"the memorial structures proposed for the national cemetery beyond the river", "Memorial structures proposed for the national cemetery"},
		// A participle that wants its preposition ends no heading
		// (sotu97-06).
		{"the tribunals suggested for claims of foreigners arising from the war", "Tribunals suggested for claims"},
		// Nor do "connected", "related" and the like (sotu100-04).
		{"the tariff favor and the frauds connected with the sugar refiners", "Tariff favor"},
		{"the negotiations and treaties meant to lower them", "Negotiations and treaties"},
		{"the proposal and preparation of the fair meant to mark four centuries since Columbus", "Proposal and preparation of the fair"},
		// "Incident" is a noun that may end one.
		{"the seizure of the steamer in the Virginius incident during the Cuban insurrection of 1873", "Seizure of the steamer in the Virginius incident"},
		// After its subject, or as a clause's second verb, such a word is
		// a verb (sotu57-11, sotu30-08).
		{"the powers and principles the founders established or intended", "Powers and principles the founders established or intended"},
		{"the remedies he rejected and proposed for the farm depression of the twenties", "Remedies he rejected and proposed"},
		// An infinitive that wants its preposition is no place to stop
		// (sotu100-07).
		{"the legislation the Presidents proposed to deal with threatened interruptions of coal production", "Legislation the Presidents proposed"},
		// Nor is a relative clause cut after its verb, before the
		// verb's object (sotu22-08, sotu95-05).
		{"the conflict for which Roosevelt wanted the Neutrality Act amended", "Conflict for which Roosevelt wanted Neutrality Act amended"},
		{"the dates from which the Porte refused to recognize naturalization", "Dates from which Porte refused to recognize naturalization"},
		{"the quarrel over an American envoy whom Vienna refused to receive", "Quarrel over an American envoy"},
		{"the chief whose band raided after the orders were withdrawn", "Chief whose band raided"},
	}
	for _, tt := range tests {
		if got := headingOf(tt.ask); got != tt.want {
			t.Errorf("headingOf(%q) = %q, want %q", tt.ask, got, tt.want)
		}
	}
}

// A long ask keeps what it names: the speaker of a clause goes before
// the heading is cut, a cut that would leave a bare noun is written in
// headline style, and a heading ends where the ask's sentence ends.
func TestHeadingKeepsWhatTheAskNames(t *testing.T) {
	tests := []struct{ ask, want string }{
		// "Ground" alone said nothing.
		{"the ground on which Nicaragua declared the company's contract forfeited", "Ground on which Nicaragua declared company's contract forfeited"},
		{"the program under which the largest wheat transaction was made with India", "Program under which largest wheat transaction was made"},
		// The speaker goes where a clause with its own subject follows.
		{"the trust under which Cleveland said the public domain was held", "Trust under which the public domain was held"},
		{"the Indians whose lands he said should not be leased by compulsion", "Indians whose lands should not be leased"},
		{"what Wilson said had poisoned the Russian people against the Government", "What had poisoned the Russian people"},
		{"why Cleveland said in 1896 the laws had proved ineffective against the trusts", "Why the laws had proved ineffective"},
		// It stays where the heading would state what he said as fact,
		// and where no clause follows the verb.
		{"the firms he said were bringing jobs back from overseas to the Midwest", "Firms he said were bringing jobs back"},
		{"the ships Jackson thought it wise to stop building and the renewal of the appropriation", "Ships Jackson thought it wise to stop building"},
		// What the sources said about something is headed by that
		// something; what they said caused something is not.
		{"what Cleveland's annual messages of 1885-1888 said about the Indian population and its reservations", "Indian population and its reservations"},
		{"what the addresses of 1981 to 1988 said about the arms the Soviet Union provided to proxies", "Arms the Soviet Union provided to proxies"},
		{"what McKinley's and Theodore Roosevelt's annual messages said about the means Congress provided", "Means Congress provided"},
		{"what later Presidents said about the years after an armistice", "Years after an armistice"},
		{"what the messages from Hayes to McKinley said about the international conferences", "International conferences"},
		{"what the Presidents said caused them", "What the Presidents said caused them"},
		{"what the later Presidents said of the country", "What the later Presidents said of the country"},
		// The next sentence of a run-on ask is no part of it.
		{"the trade questions of the 1980s and 1990s. Give the treaties", "Trade questions of the 1980s and 1990s"},
	}
	for _, tt := range tests {
		got := headingOf(tt.ask)
		if got != tt.want {
			t.Errorf("headingOf(%q) = %q, want %q", tt.ask, got, tt.want)
		}
		if n := len(strings.Fields(got)); n > pipeline.MaxFacetHeadingWords {
			t.Errorf("headingOf(%q) has %d words, more than %d", tt.ask, n, pipeline.MaxFacetHeadingWords)
		}
	}
}

// Frames that say where to look or what to leave out are no facets.
func TestFacetsWithoutFrames(t *testing.T) {
	e := newTestEngine()
	tests := []struct {
		name string
		req  prompts.RequestInfo
		want []string
	}{
		{"as the addresses report it",
			prompts.RequestInfo{Title: "Farm policy", ProblemStatement: "Describe, as the addresses of 1950-1960 report it, the farm surpluses, the soil bank, and the price supports."},
			[]string{"Farm surpluses", "Soil bank", "Price supports"}},
		{"as a President's addresses report it",
			prompts.RequestInfo{Title: "Farm policy", ProblemStatement: "Describe, as Truman's addresses report it, the farm surpluses, the soil bank, and the price supports."},
			[]string{"Farm surpluses", "Soil bank", "Price supports"}},
		{"set out from the messages",
			prompts.RequestInfo{Title: "The mint", ProblemStatement: "Set out, from the messages of 1790-1800, the founding of the mint, the coins it struck, and the metals it bought."},
			[]string{"Founding of the mint", "Coins it struck", "Metals it bought"}},
		{"for the years",
			prompts.RequestInfo{Title: "The mint", ProblemStatement: "For the years 1790-1800, describe from Washington's annual messages the founding of the mint and the coins it struck."},
			[]string{"Founding of the mint", "Coins it struck"}},
		{"leaving aside",
			prompts.RequestInfo{Title: "The Navy", ProblemStatement: "Leaving aside the army, the forts and the militia, describe the new cruisers, the coaling stations, and the naval militia. Leave aside the marines and the yards."},
			[]string{"New cruisers", "Coaling stations", "Naval militia"}},
		{"leaving aside at the end",
			prompts.RequestInfo{Title: "The Navy", ProblemStatement: "Describe the new cruisers, the coaling stations, and the naval militia, leaving aside the marines and the yards."},
			[]string{"New cruisers", "Coaling stations", "Naval militia"}},
		{"how the messages treated",
			prompts.RequestInfo{Title: "Kansas", ProblemStatement: "Describe how the annual messages of Pierce and Buchanan treated the struggle over the constitution of Kansas."},
			[]string{"Struggle over the constitution of Kansas"}},
		{"a bare list after Give is details, whatever its kinds",
			prompts.RequestInfo{Title: "The Navy", ProblemStatement: "Describe the new cruisers and the coaling stations. Give the laws, causes, ports, people and companies named."},
			[]string{"New cruisers", "Coaling stations"}},
		{"a piece that opens on a preposition goes on with the one before",
			prompts.RequestInfo{Title: "Cars", ProblemStatement: "Describe the car industry, from the loan guarantees of 1980, through the small cars of 2000, to the rescue of 2009; and the plants opened later."},
			[]string{"Car industry, from the loan guarantees of 1980", "Plants opened later"}},
		{"how did the addresses describe",
			prompts.RequestInfo{Title: "Cars", ProblemStatement: "How did the addresses describe the car industry of the 1980s?"},
			[]string{"Car industry of the 1980s?"}},
		{"frames before a question's wh-word",
			prompts.RequestInfo{Title: "Demobilization", ProblemStatement: "In the message of January 1946, and as he looked back in 1953, how fast were the soldiers sent home, and what strength was still needed?"},
			[]string{"How fast were the soldiers sent home", "What strength was still needed?"}},
		{"what came of it",
			prompts.RequestInfo{Title: "Navy", ProblemStatement: "Describe the plan to reform the grades of naval officers, and what came of it."},
			[]string{"Plan to reform the grades of naval officers", "What came of it"}},
		{"phrases the addresses use are details",
			prompts.RequestInfo{Title: "The Navy", ProblemStatement: "Describe the new cruisers and the coaling stations. Give the dates, names and phrases the addresses use."},
			[]string{"New cruisers", "Coaling stations"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, headingsOf(t, e, tt.req)); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
		})
	}
}

// A facet's description drops the frame its heading drops ("What the
// annual messages ... said about"), so that the frame's speakers and
// words do not match the facet to every sentence (sotu100-01); a frame
// around an object too short to head a facet stays in both.
func TestFacetDescriptionWithoutFrame(t *testing.T) {
	e := newTestEngine()
	r := prompts.RequestInfo{Title: "Cotton in Europe", ProblemStatement: "Report what the annual messages from John Quincy Adams to Fillmore said about the duties that Great Britain laid on American cotton, the negotiations meant to lower them, and what became of the treaties."}
	resp := complete(t, e, prompts.BuildFacets(prompts.FacetsInput{Request: r}))
	out, err := prompts.ParseFacets(resp.Text)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Facets) == 0 {
		t.Fatal("no facets")
	}
	if got, want := out.Facets[0].Description, "The duties that Great Britain laid on American cotton"; got != want {
		t.Errorf("first description %q, want %q", got, want)
	}
	if got, want := describeAsk("what the annual messages said about smuggling"), "What the annual messages said about smuggling"; got != want {
		t.Errorf("describeAsk of a short object = %q, want %q", got, want)
	}
}
