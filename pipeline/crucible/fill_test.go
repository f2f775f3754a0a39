package crucible

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// ratifiedQA is the nugget the fill draws from the ratification sentence.
var ratifiedQA = prompts.QA{Question: "Until when did the Senate take to ratify the Treaty of Ghent?", Answer: "February 1815"}

func fillModel() passageNuggets {
	return passageNuggets{&scripted{nuggets: ghentDocNuggets, calls: map[pipeline.Task]int{}},
		map[string][]prompts.QA{ratification: {ratifiedQA}}}
}

// TestFillReportFillsTheRoom: the documents' one nugget leaves most of
// the limit unused; the rule fills it with the ratification sentence of
// d2, under a nugget drawn from that sentence, kept after the ranked ones
// and saved in the nugget bank with its candidate. Off, the report ends
// with the ranked nuggets' sentences.
func TestFillReportFillsTheRoom(t *testing.T) {
	m := fillModel()
	rep, rec := facetRun(t, pipeline.Heuristics{FillReport: true}, m, pipeline.DefaultSettings())
	var filled *pipeline.Sentence
	for i, s := range rep.Sentences {
		if strings.HasPrefix(s.NuggetID, FillNuggetPrefix) && strings.Contains(s.Text, "February 1815") {
			filled = &rep.Sentences[i]
		}
	}
	if filled == nil {
		t.Fatalf("no sentence filled the room; sentences %+v, problems %q", rep.Sentences, rep.Problems)
	}
	if filled.Citation.DocID != "d2" || !strings.Contains(filled.Text, "February 1815") {
		t.Errorf("filled sentence %+v: want the ratification sentence of d2", *filled)
	}
	if rep.Sentences[0].NuggetID == filled.NuggetID {
		t.Error("the fill came before the ranked nuggets' sentences")
	}
	if rep.Length() > signedRequest.Limit {
		t.Errorf("report of %d characters, over the limit %d", rep.Length(), signedRequest.Limit)
	}
	maxRank, fillRank := 0, 0
	for _, n := range rep.Nuggets {
		if n.ID == filled.NuggetID {
			fillRank = n.Rank
		} else if !strings.HasPrefix(n.ID, FillNuggetPrefix) {
			maxRank = max(maxRank, n.Rank)
		}
	}
	if fillRank <= maxRank {
		t.Errorf("fill nugget kept with rank %d, want after the ranked nuggets' %d", fillRank, maxRank)
	}
	banked, candidate := false, false
	for _, n := range rec.nuggets {
		banked = banked || n.ID == filled.NuggetID && n.Answer == ratifiedQA.Answer
	}
	for _, c := range rec.candidates {
		candidate = candidate || c.NuggetID == filled.NuggetID
	}
	if !banked || !candidate {
		t.Errorf("fill nugget in the saved bank %v, its candidate saved %v: want both", banked, candidate)
	}
	if got := *rep.Settings.FillReport; !got {
		t.Errorf("the report's settings record fill_report %v, want on", got)
	}

	off := fillModel()
	rep, rec = facetRun(t, pipeline.Heuristics{}, off, pipeline.DefaultSettings())
	for _, s := range rep.Sentences {
		if s.Citation.DocID == "d2" || strings.HasPrefix(s.NuggetID, FillNuggetPrefix) {
			t.Errorf("sentence %+v with the rule off", s)
		}
	}
	for _, n := range rec.nuggets {
		if strings.HasPrefix(n.ID, FillNuggetPrefix) {
			t.Errorf("fill nugget %+v with the rule off", n)
		}
	}
}

// TestFillReportWithoutRoom: a report whose sentences leave less room
// than a sentence needs asks nothing more of the model.
func TestFillReportWithoutRoom(t *testing.T) {
	m := fillModel()
	req := signedRequest
	req.Limit = 120 // the signing sentence, attributed, leaves under fillMinRoom
	e := newEngine(nil, m)
	c := facetCorpus()
	e.Searcher, e.Store, e.Defaults = c, c, pipeline.Heuristics{FillReport: true}
	rep, err := e.Generate(t.Context(), req, pipeline.DefaultSettings(), &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sentences) == 0 || req.Limit-rep.Length() >= fillMinRoom {
		t.Fatalf("report %+v leaves %d characters: the test needs less than %d", rep.Sentences, req.Limit-rep.Length(), fillMinRoom)
	}
	for _, s := range rep.Sentences {
		if strings.HasPrefix(s.NuggetID, FillNuggetPrefix) {
			t.Errorf("fill sentence %+v without room", s)
		}
	}
	// One nuggets call per document summary; none for the fill.
	if got := m.calls[prompts.TaskNuggets]; got != 2 {
		t.Errorf("%d nuggets calls, want 2 (the documents') and none for the fill", got)
	}
}

// TestFillReportVerifiedFailsClosed: with verification on, a fill
// sentence whose checks fail is not assembled, and its candidate is
// saved with the failed verdict.
func TestFillReportVerifiedFailsClosed(t *testing.T) {
	m := fillModel()
	m.refuse = "February 1815"
	s := pipeline.DefaultSettings()
	s.Verify = true
	rep, rec := facetRun(t, pipeline.Heuristics{FillReport: true}, m, s)
	for _, st := range rep.Sentences {
		if strings.Contains(st.Text, "February 1815") {
			t.Errorf("refused sentence %+v assembled in a verified run", st)
		}
		if st.Supported != pipeline.VerdictYes || st.Covers != pipeline.VerdictYes {
			t.Errorf("sentence %+v not checked in a verified run", st)
		}
	}
	failed := false
	for _, c := range rec.candidates {
		if strings.HasPrefix(c.NuggetID, FillNuggetPrefix) && c.FailedCheck() {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no failed fill candidate saved; candidates %+v", rec.candidates)
	}
}

// TestExtendKeepsAssemblyRules: the fill offers its candidates under the
// rules Assemble keeps — no repeated text or cited span, the limit, K per
// nugget — after the sentences already there.
func TestExtendKeepsAssemblyRules(t *testing.T) {
	have := []pipeline.Sentence{{Text: "Alpha beta gamma.", NuggetID: "n1", Citation: pipeline.Citation{DocID: "d", Start: 0, End: 17}}}
	offered := []pipeline.Candidate{
		{NuggetID: "p1", Sentence: "Alpha beta gamma.", Citation: pipeline.Citation{DocID: "e", Start: 0, End: 17}},           // same text
		{NuggetID: "p2", Sentence: "Other words here.", Citation: pipeline.Citation{DocID: "d", Start: 5, End: 30}},           // overlaps d 0-17
		{NuggetID: "p3", Sentence: strings.Repeat("long ", 20), Citation: pipeline.Citation{DocID: "e", Start: 40, End: 140}}, // too long
		{NuggetID: "p4", Sentence: "Delta epsilon.", Citation: pipeline.Citation{DocID: "e", Start: 200, End: 214}},
		{NuggetID: "p4", Sentence: "Zeta eta.", Citation: pipeline.Citation{DocID: "e", Start: 300, End: 309}}, // a second for p4
	}
	got := pipeline.Extend(have, offered, pipeline.AssembleOptions{K: 1, Limit: 40})
	if len(got) != 2 || got[0].NuggetID != "n1" || got[1].NuggetID != "p4" || got[1].Text != "Delta epsilon." {
		t.Fatalf("extended to %+v: want the first sentence, then only p4's first", got)
	}
	if l := (pipeline.Report{Sentences: got}).Length(); l > 40 {
		t.Errorf("length %d over the limit", l)
	}
}

// claimFillRun runs a report with the fill on over the Ghent corpus,
// faceted into the signature and the ratification, the nuggets prompt
// drawing what drawn gives for each sentence; it checks that the report
// keeps the fill's claim nugget on the ratification sentence and that
// sentence, and returns the report, what was saved and the claim.
func claimFillRun(t *testing.T, drawn map[string][]prompts.QA) (pipeline.Report, *recorder, *pipeline.Nugget) {
	t.Helper()
	m := passageNuggets{&scripted{nuggets: ghentDocNuggets, calls: map[pipeline.Task]int{},
		facets: []pipeline.Facet{{Heading: "Signature", Description: "when the treaty was signed"}, {Heading: "Ratification", Description: "when the Senate ratified the treaty"}}},
		drawn}
	rep, rec := facetRun(t, pipeline.Heuristics{FillReport: true}, m, pipeline.DefaultSettings())
	var claim *pipeline.Nugget
	for i, n := range rep.Nuggets {
		if strings.HasPrefix(n.ID, FillNuggetPrefix) && n.Answer == ratification {
			claim = &rep.Nuggets[i]
		}
	}
	if claim == nil {
		t.Fatalf("no claim nugget kept; nuggets %+v, sentences %+v", rep.Nuggets, rep.Sentences)
	}
	filled := false
	for _, s := range rep.Sentences {
		filled = filled || s.NuggetID == claim.ID && s.Citation.DocID == "d2"
	}
	if !filled {
		t.Errorf("the claim nugget's sentence is not in the report: %+v", rep.Sentences)
	}
	return rep, rec, claim
}

// TestFillReportClaimNugget: a sentence the nuggets prompt draws nothing
// from gets a claim nugget — what its document says on the facet it
// speaks of, answered by the sentence — and still fills the room.
func TestFillReportClaimNugget(t *testing.T) {
	_, _, claim := claimFillRun(t, map[string][]prompts.QA{})
	if !strings.HasSuffix(claim.Question, "say on “Ratification”?") {
		t.Errorf("claim nugget %q — %q: want a question on the Ratification facet answered by the sentence", claim.Question, claim.Answer)
	}
}

func TestClaimNuggetNamesSpeakerAndYear(t *testing.T) {
	r := &run{e: &Engine{Terms: words}, req: signedRequest}
	d := pipeline.Document{ID: "d", Title: "Annual Message", Metadata: map[string]string{"author": "James Madison", "date": "1815-02-20"}}
	_, qa, err := r.claimNugget(context.Background(), d, "  The war  is over. ")
	if err != nil {
		t.Fatal(err)
	}
	if qa.Question != "What did James Madison say in 1815 on “The Treaty of Ghent”?" || qa.Answer != "The war is over." {
		t.Errorf("claim nugget %q — %q", qa.Question, qa.Answer)
	}
	d.Metadata = nil
	if _, qa, _ := r.claimNugget(context.Background(), d, "x"); qa.Question != "What does “Annual Message” say on “The Treaty of Ghent”?" {
		t.Errorf("undated, unattributed: %q", qa.Question)
	}
}

// TestClaimNuggetTitleWithAQuestion: a title that opens with a question
// gives the claim nugget its other part, not a question inside a question.
func TestClaimNuggetTitleWithAQuestion(t *testing.T) {
	req := signedRequest
	req.Title = "What did the Labor Department do? The Bureau and Department of Labor in the messages, 1904-1967"
	r := &run{e: &Engine{Terms: words}, req: req}
	d := pipeline.Document{ID: "d", Title: "Annual Message", Metadata: map[string]string{"author": "Theodore Roosevelt", "date": "1904-12-06"}}
	_, qa, err := r.claimNugget(context.Background(), d, "The Bureau of Labor reported on the strike.")
	if err != nil {
		t.Fatal(err)
	}
	if want := "What did Theodore Roosevelt say in 1904 on “The Bureau and Department of Labor in the messages, 1904-1967”?"; qa.Question != want {
		t.Errorf("claim nugget %q, want %q", qa.Question, want)
	}
	for title, want := range map[string]string{
		"Why tariffs? Why now?":                  "Why tariffs? Why now",
		"The Treaty of Ghent":                    "The Treaty of Ghent",
		"Who may make war? Congress's war power": "Congress's war power",
	} {
		if got := strings.TrimRight(titleTopic(title), "?"); got != want {
			t.Errorf("titleTopic(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestClaimNuggetTopic: a claim nugget quotes its facet by the
// description its heading shortens when that reads alone, else by the
// heading; a heading whose pronoun has nothing in it to stand for
// ("Terms they obtained") gives way to the request's title, so that the
// question reads alone.
func TestClaimNuggetTopic(t *testing.T) {
	d := pipeline.Document{ID: "d", Title: "Annual Message", Metadata: map[string]string{"author": "James Madison", "date": "1815-02-20"}}
	long := "The terms of the treaty and the ratification by the Senate and the Prince Regent in London, with the exchange of the ratifications at Washington"
	for _, tc := range []struct{ heading, description, want string }{
		{"Terms", "The terms obtained and the ratification of the treaty", "“The terms obtained and the ratification of the treaty”"},
		{"Terms and their ratification", "The terms and their ratification he obtained", "“Terms and their ratification”"}, // the description's "he" points nowhere
		{"Terms and the ratification", long, "“Terms and the ratification”"},                                               // the description is too long
		{"Terms they obtained", "The terms they obtained", "“The Treaty of Ghent”"},                                        // both lean on "they": the title
		{"Ratification he asked Congress", "", "“The Treaty of Ghent”"},
	} {
		r := &run{e: &Engine{Terms: words}, req: signedRequest,
			facetList: []pipeline.Facet{{Heading: tc.heading, Description: tc.description}, {Heading: "Other things", Description: "Other things"}}}
		_, qa, err := r.claimNugget(context.Background(), d, "The terms obtained and the ratification of the treaty were welcome.")
		if err != nil {
			t.Fatal(err)
		}
		if want := "What did James Madison say in 1815 on " + tc.want + "?"; qa.Question != want {
			t.Errorf("heading %q: claim nugget %q, want %q", tc.heading, qa.Question, want)
		}
	}
}

// TestFillSentencesWithinTheRerankersDocuments: with a reranker, the fill
// tries only sentences of the documents ideation draws on.
func TestFillSentencesWithinTheRerankersDocuments(t *testing.T) {
	c := facetCorpus()
	r := &run{e: &Engine{Searcher: c, Terms: words, SentenceKey: func(s string) string { return strings.Join(words(s), " ") }}, req: signedRequest}
	all, err := r.fillSentences(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromD2 := false
	for _, s := range all {
		fromD2 = fromD2 || s.hit.DocID == "d2"
	}
	if !fromD2 {
		t.Fatalf("fill sentences %+v: want the ratification passage of d2 among them", all)
	}
	only, err := r.fillSentences(t.Context(), nil, map[string]bool{"d1": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(only) == 0 {
		t.Fatal("no fill sentence of d1")
	}
	for _, s := range only {
		if s.hit.DocID != "d1" {
			t.Errorf("fill sentence %q of %s, outside the reranker's documents", s.text, s.hit.DocID)
		}
	}
}

// TestFillSentencesLeaveOutHeadings: a heading in capitals on its own
// holds the request's words but is no sentence to draw a nugget from.
func TestFillSentencesLeaveOutHeadings(t *testing.T) {
	c := passageCorpus{newCorpus([]string{"THE TREATY OF GHENT SIGNED AND RATIFIED.", "The Treaty of Ghent was signed in December 1814."})}
	r := &run{e: &Engine{Searcher: c, Terms: words, SentenceKey: func(s string) string { return strings.Join(words(s), " ") }}, req: signedRequest}
	tries, err := r.fillSentences(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tries) != 1 || !strings.HasPrefix(tries[0].text, "The Treaty of Ghent was signed") {
		t.Errorf("fill sentences %+v: want the signing sentence alone", tries)
	}
}

// choiceRecorder records the candidates assembly chose from.
type choiceRecorder struct {
	*recorder
	choices []Choice
}

func (r *choiceRecorder) Choices(_ context.Context, _ string, cs []Choice) error {
	r.choices = cs
	return nil
}

// TestFillCompetesInTheChoice: with the rule choose sentences on too, the
// fill's sentences are drawn before assembly and offered to the choice
// beside the kept nuggets' candidates (their turn after the kept
// nuggets', no quality score of their own). With room for the signing
// sentence and one short sentence, the choice takes the signing
// sentence (the kept nugget's, best scored) and then the fill's short
// one, in room the fill after assembly (FillReport alone) would not try
// to fill (under fillMinRoom). The fill's nugget whose sentence the
// report holds is kept after the ranked ones; the others are banked
// below the cut.
func TestFillCompetesInTheChoice(t *testing.T) {
	req := signedRequest
	req.Limit = 120
	run := func(rules pipeline.Heuristics) (pipeline.Report, *choiceRecorder) {
		m := fillModel()
		e := newEngine(nil, m)
		c := facetCorpus()
		e.Searcher, e.Store, e.Defaults = c, c, rules
		rec := &choiceRecorder{recorder: &recorder{}}
		rep, err := e.Generate(t.Context(), req, pipeline.DefaultSettings(), rec)
		if err != nil {
			t.Fatal(err)
		}
		return rep, rec
	}
	rep, rec := run(pipeline.Heuristics{ChooseSentences: true, FillReport: true})
	var ratified *Choice
	for i, c := range rec.choices {
		if strings.HasPrefix(c.Candidate.NuggetID, FillNuggetPrefix) && strings.Contains(c.Candidate.Sentence, "February 1815") {
			ratified = &rec.choices[i]
		}
	}
	if ratified == nil {
		t.Fatalf("the fill's ratification sentence was not offered to the choice: %+v", rec.choices)
	}
	if turn, quality := ratified.Features[3], ratified.Features[4]; turn != 1 || quality != 0 {
		t.Errorf("fill candidate's turn %v and quality %v, want 1 (after the kept nuggets) and 0", turn, quality)
	}
	if len(rep.Sentences) != 2 || strings.HasPrefix(rep.Sentences[0].NuggetID, FillNuggetPrefix) ||
		!strings.HasPrefix(rep.Sentences[1].NuggetID, FillNuggetPrefix) || !strings.Contains(rep.Sentences[1].Text, "Other matters") {
		t.Fatalf("report %+v: want the signing sentence, then the fill's short one", rep.Sentences)
	}
	if room := req.Limit - (pipeline.Report{Sentences: rep.Sentences[:1]}).Length(); room >= fillMinRoom {
		t.Fatalf("the signing sentence leaves %d characters: the test needs less than %d", room, fillMinRoom)
	}
	filled := rep.Sentences[1].NuggetID
	maxRank, fillRank := 0, 0
	for _, n := range rep.Nuggets {
		if n.ID == filled {
			fillRank = n.Rank
		} else {
			maxRank = max(maxRank, n.Rank)
		}
	}
	if fillRank <= maxRank {
		t.Errorf("fill nugget kept with rank %d, want after the ranked nuggets' %d", fillRank, maxRank)
	}
	for _, n := range rec.nuggets {
		if strings.HasPrefix(n.ID, FillNuggetPrefix) && (n.ID == filled) != (n.Rank > 0) {
			t.Errorf("fill nugget %s banked with rank %d: only the one in the report (%s) is kept", n.ID, n.Rank, filled)
		}
	}

	rep, _ = run(pipeline.Heuristics{FillReport: true})
	for _, s := range rep.Sentences {
		if strings.HasPrefix(s.NuggetID, FillNuggetPrefix) {
			t.Errorf("fill sentence %+v after assembly, without room for it", s)
		}
	}
}

// TestFillSentencesWeighRareWords: the fill tries first the sentences
// that hold the request's rare words, weighed by their inverse document
// frequency, not those that hold the most of its words: the sentence on
// the signing of the treaty of Ghent (rare words) goes before the one
// that holds "treaty", "signed" and "ratified" (common ones). Counted
// alike (no collection statistics), the second goes first; a failing
// count fails the fill.
func TestFillSentencesWeighRareWords(t *testing.T) {
	c := passageCorpus{newCorpus([]string{
		"The treaty was signed and ratified in time.",
		"Ghent saw the end of the war.",
	})}
	req := pipeline.Request{ID: "r9", Title: "Ghent", ProblemStatement: "When was the treaty of Ghent signed and ratified?", Limit: 1000}
	e := &Engine{Searcher: c, Terms: words, SentenceKey: func(s string) string { return strings.Join(words(s), " ") }}
	r := &run{e: e, req: req}
	tries, err := r.fillSentences(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tries) != 2 || !strings.HasPrefix(tries[0].text, "The treaty was signed") {
		t.Fatalf("fill sentences %+v without statistics: want the one with more of the request's words first", tries)
	}
	e.DocFreq = fakeDocFreq(map[string]int{"ghent": 2, "treaty": 300, "signed": 250, "ratified": 200, "when": 900, "was": 900, "the": 950, "of": 950, "and": 950})
	tries, err = r.fillSentences(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tries) != 2 || !strings.HasPrefix(tries[0].text, "Ghent saw") {
		t.Errorf("fill sentences %+v: want the one with the rare word first", tries)
	}
	boom := errors.New("boom")
	e.DocFreq = func(context.Context, []string) (int, map[string]int, error) { return 0, nil, boom }
	if _, err := r.fillSentences(t.Context(), nil, nil); !errors.Is(err, boom) {
		t.Errorf("fillSentences with a failing count: err = %v, want %v", err, boom)
	}
}

// TestFillReportFallsBackToTheClaim: the nugget drawn from a fill
// sentence asks for a detail the passage does not state, so no sentence
// is extracted for it; the sentence tried, which speaks of the subject,
// is asked for as a claim instead and fills the room under the claim
// nugget.
func TestFillReportFallsBackToTheClaim(t *testing.T) {
	_, rec, _ := claimFillRun(t, map[string][]prompts.QA{ratification: {{Question: "How many senators voted for the Treaty of Ghent?", Answer: "thirty-five senators"}}})
	for _, n := range rec.nuggets {
		if n.Answer == "thirty-five senators" {
			t.Errorf("the drawn nugget %+v, which found no sentence, was banked in place of the claim", n)
		}
	}
}
