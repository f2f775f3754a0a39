package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpeakersNamed(t *testing.T) {
	authors := map[string]Period{
		"Ronald Reagan":       {1982, 1988},
		"Jimmy Carter":        {1978, 1981},
		"Dwight D Eisenhower": {1953, 1961},
		"James Madison":       {1809, 1816},
		"George Washington":   {1790, 1796},
		"James Monroe":        {1817, 1824},
		"Herbert Hoover":      {1929, 1932},
	}
	for k, v := range presidents {
		authors[k] = v
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		// Facet headings of the demo sets' reports (offline engine).
		{"Reagan's aim in enforcing child support", []string{"Ronald Reagan"}},
		{"Help Clinton sought for family farmers", []string{"William J Clinton"}},
		{"Squeeze on farmers' costs Carter described in 1978", []string{"Jimmy Carter"}},
		{"Hostile Indians reported by Madison", []string{"James Madison"}},
		{"Agency and the law created under Eisenhower", []string{"Dwight D Eisenhower"}},
		{"New federal bodies Eisenhower and Lyndon Johnson proposed", []string{"Dwight D Eisenhower", "Lyndon B Johnson"}},
		{"Reagan's Strategic Defense Initiative", []string{"Ronald Reagan"}},
		// A capitalised word that names something else before the name.
		{"Cause of the difference with Mexico Hoover reported", []string{"Herbert Hoover"}},
		{"Treaty with Spain Monroe's envoys signed", []string{"James Monroe"}},
		// A name before an auxiliary verb.
		{"City where George W. Bush would host", []string{"George W Bush"}},
		{"Weapons Obama did not want to keep paying", []string{"Barack Obama"}},
		{"Course Jackson had recommended for the claims", []string{"Andrew Jackson"}},
		{"Why Hoover and Carter would not recognize it", []string{"Herbert Hoover", "Jimmy Carter"}},
		// A heading and its description, each a line.
		{"Reasons\nThe reasons Obama gave for the freeze", []string{"Barack Obama"}},
		// A name that fits two authors names both.
		{"Roosevelt's warning", []string{"Franklin D Roosevelt", "Theodore Roosevelt"}},
		// No speaker: a period, a place, a thing, a name as the topic,
		// a word capitalised for opening the heading.
		{"Cuba from Eisenhower to Obama", nil},
		{"Conferences held at Washington", nil},
		{"The Monroe Doctrine and its uses", nil},
		{"Grant of land to the railroads", nil},
		{"Tributes to Washington", nil},
		{"The Hoover Dam", nil},
		{"Reasons given for continuing it", nil},
		{"How Washington was chosen for the capital", nil},
	} {
		got := SpeakersNamed(tc.text, authors)
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SpeakersNamed(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
	if got := SpeakersNamed("Reagan's aim", nil); got != nil {
		t.Errorf("without authors: %v, want none", got)
	}
}

func TestResolveSpeaker(t *testing.T) {
	authors := map[string]Period{"Ronald Reagan": {From: 1982, To: 1988}, "Abraham Lincoln": {From: 1861, To: 1864}}
	for k, v := range presidents {
		authors[k] = v
	}
	facets := []Facet{
		{Heading: "Measures he proposed against parents", Description: "The measures he proposed against parents who did not pay and what he later reported"},
		{Heading: "Law his welfare plan built on", Description: "The law his welfare plan built on"},
		{Heading: "Lincoln's words and his hopes", Description: "Lincoln's words and his hopes"},
		{Heading: "Other findings", Description: "anything else"},
	}
	got := ResolveSpeaker(facets, "Clinton and welfare reform\nWhat did Bill Clinton ask of Congress on welfare, and what did Clinton report?", authors)
	want := []Facet{
		{Heading: "Measures Clinton proposed against parents", Description: "The measures Clinton proposed against parents who did not pay and what Clinton later reported"},
		{Heading: "Law Clinton's welfare plan built on", Description: "The law Clinton's welfare plan built on"},
		{Heading: "Lincoln's words and his hopes", Description: "Lincoln's words and his hopes"}, // names someone else
		{Heading: "Other findings", Description: "anything else"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolveSpeaker (-want +got):\n%s", diff)
	}
	if facets[0].Heading != "Measures he proposed against parents" {
		t.Errorf("ResolveSpeaker changed its argument: %q", facets[0].Heading)
	}
	// Two speakers, a range, or none: "he" could be either, so it stays.
	for _, request := range []string{
		"What did Clinton and Reagan say about welfare?",
		"Welfare from Kennedy to Obama",
		"Welfare reform in the addresses",
	} {
		if got := ResolveSpeaker(facets, request, authors); got[0].Heading != facets[0].Heading {
			t.Errorf("ResolveSpeaker(%q) = %q, want the heading as it was", request, got[0].Heading)
		}
	}
	// Several speakers: a pronoun stands for the name written last before
	// the facet in its sentence, outside a range of speakers.
	authors["Jimmy Carter"] = Period{From: 1978, To: 1980}
	several := "Farm income and farm programs\nHow did the addresses report farm income under Lyndon Johnson and Nixon? " +
		"Cover also the squeeze Carter described in 1978, the farm law he credited and the export record he reported in 1981; " +
		"Reagan's call for a change and his figures for farm debt; the figures George W. Bush gave, the program he ended. What did Obama propose? The plan he sent in 2010."
	for _, tc := range []struct {
		facet, want Facet
	}{
		{ // Carter, not Nixon of the sentence before
			Facet{Heading: "Farm law he credited", Description: "The farm law he credited and the export record he reported in 1981"},
			Facet{Heading: "Farm law Carter credited", Description: "The farm law Carter credited and the export record Carter reported in 1981"},
		},
		{ // the description shortened: found by its words up to the pronoun and two more
			Facet{Heading: "Farm law he credited", Description: "The farm law he credited"},
			Facet{Heading: "Farm law Carter credited", Description: "The farm law Carter credited"},
		},
		{ // "George W. Bush": a capital's full stop ends no sentence
			Facet{Heading: "Program he ended", Description: "The program he ended"},
			Facet{Heading: "Program George W. Bush ended", Description: "The program George W. Bush ended"},
		},
		{ // a description that opens with "His": the heading names the owner
			Facet{Heading: "Figures for farm debt", Description: "His figures for farm debt"},
			Facet{Heading: "Reagan's figures for farm debt", Description: "Reagan's figures for farm debt"},
		},
		{ // ... unless the heading would grow past its bound
			Facet{Heading: "Figures for farm debt of the nation in 1985 and later", Description: "His figures for farm debt of the nation in 1985 and later"},
			Facet{Heading: "Figures for farm debt of the nation in 1985 and later", Description: "Reagan's figures for farm debt of the nation in 1985 and later"},
		},
		{ // the only name is in the sentence before
			Facet{Heading: "Plan he sent in 2010", Description: "The plan he sent in 2010"},
			Facet{Heading: "Plan he sent in 2010", Description: "The plan he sent in 2010"},
		},
		{ // not in the request
			Facet{Heading: "Bill he vetoed", Description: "The bill he vetoed twice"},
			Facet{Heading: "Bill he vetoed", Description: "The bill he vetoed twice"},
		},
	} {
		if got := ResolveSpeaker([]Facet{tc.facet}, several, authors); !cmp.Equal(got[0], tc.want) {
			t.Errorf("ResolveSpeaker(%+v) = %+v, want %+v", tc.facet, got[0], tc.want)
		}
	}
	ranged := []Facet{{Heading: "Law he signed", Description: "The law he signed"}}
	if got := ResolveSpeaker(ranged, "Welfare from Kennedy to Obama: the law he signed and what Clinton said", authors); got[0] != ranged[0] {
		t.Errorf("a range's names are no antecedent: %+v", got[0])
	}

	// The one speaker a request names owns a facet that opens with "His".
	owned := []Facet{{Heading: "Criticism of the antitrust law itself", Description: "His criticism of the antitrust law itself"}}
	if got := ResolveSpeaker(owned, "What did Taft say of the trusts?", authors); got[0] != (Facet{Heading: "Taft's criticism of the antitrust law itself", Description: "Taft's criticism of the antitrust law itself"}) {
		t.Errorf("a facet opening with His = %+v", got[0])
	}

	// A heading that would grow past its bound keeps its pronoun.
	long := []Facet{{Heading: "Cuts he made to the programs he inherited", Description: "d"}}
	if got := ResolveSpeaker(long, "What did Lyndon B. Johnson cut?", authors); got[0].Heading != long[0].Heading {
		t.Errorf("long heading = %q, want it as it was", got[0].Heading)
	}
}

// TestResolveThey: a heading's "they" before a verb of saying becomes the
// speakers the request's sentence names before the facet (sotu97-12,
// sotu54-01); a "they" that stands for something else, a name's last
// word and a subject in another sentence are left alone.
func TestResolveThey(t *testing.T) {
	request := "Promising cures, 1997-2021\n" +
		"Describe what the addresses said about cancer research: the discoveries Presidents cited, the research budgets they proposed, and the danger they posed to the old. " +
		"The Presidents said much on the census: the figures they gave for later decades. " +
		"Say whether the United States would join the accord, and what they hoped the accord would do. " +
		"The governors met. The pledges they made in 1990. " +
		"Describe which taxes Presidents proposed to keep and how they justified taxing tobacco. " +
		"Describe what the annual messages from Jackson to Kennedy said about bankruptcies: which failures they reported at home. " +
		"Report what the messages said about the tariff: the reductions it scheduled and when they took effect, the lands they gave up, and what they reported."
	facets := []Facet{
		{Heading: "Research budgets they proposed", Description: "the research budgets they proposed"},
		{Heading: "Danger they posed to the old", Description: "the danger they posed to the old"},
		{Heading: "Figures they gave for later decades", Description: "the figures they gave for later decades"},
		{Heading: "What they hoped the accord would do", Description: "what they hoped the accord would do"},
		{Heading: "Pledges they made in 1990", Description: "The pledges they made in 1990"},
		{Heading: "Budgets they proposed", Description: "not in the request"},
		{Heading: "How they justified taxing tobacco", Description: "how they justified taxing tobacco"},
		{Heading: "Which failures they reported at home", Description: "which failures they reported at home"},
		{Heading: "Reductions it scheduled and when they took effect", Description: "the reductions it scheduled and when they took effect"},
		{Heading: "Lands they gave up", Description: "the lands they gave up"},
		{Heading: "What they reported", Description: "what they reported"},
	}
	got := ResolveThey(facets, request)
	want := []string{
		"Research budgets Presidents proposed",
		"Danger they posed to the old", // "posed" is no verb of saying
		"Figures Presidents gave for later decades",
		"What they hoped the accord would do", // "United States" is a name
		"Pledges they made in 1990",           // no subject before it in its sentence
		"Budgets Presidents proposed",         // found by the heading's words
		"How Presidents justified taxing tobacco",
		"Which failures the messages reported at home",      // the documents, where no capitalised plural names the speakers
		"Reductions it scheduled and when they took effect", // "they" after a clause's opener may be the heading's noun
		"Lands they gave up",                                // a verb with its particle
		"What they reported",                                // no noun before "they"
	}
	for i, f := range got {
		if f.Heading != want[i] {
			t.Errorf("facet %d: heading %q, want %q", i, f.Heading, want[i])
		}
		if f.Description != facets[i].Description {
			t.Errorf("facet %d: description changed to %q", i, f.Description)
		}
	}
	if facets[0].Heading != "Research budgets they proposed" {
		t.Error("ResolveThey changed its argument")
	}
}

// TestRenameFacets: the sentences under a renamed heading move with it;
// the others and the arguments stay as they are.
func TestRenameFacets(t *testing.T) {
	facets := []Facet{{Heading: "Research budgets they proposed"}, {Heading: "Discoveries"}}
	renamed := []Facet{{Heading: "Research budgets Presidents proposed"}, {Heading: "Discoveries"}}
	sentences := []Sentence{{Text: "A.", Facet: "Discoveries"}, {Text: "B.", Facet: "Research budgets they proposed"}, {Text: "C."}}
	gotF, gotS := RenameFacets(facets, renamed, sentences)
	if gotF[0].Heading != "Research budgets Presidents proposed" || gotF[1].Heading != "Discoveries" {
		t.Errorf("facets %+v", gotF)
	}
	if gotS[0].Facet != "Discoveries" || gotS[1].Facet != "Research budgets Presidents proposed" || gotS[2].Facet != "" {
		t.Errorf("sentences %+v", gotS)
	}
	if sentences[1].Facet != "Research budgets they proposed" {
		t.Error("RenameFacets changed its argument")
	}
	if f, s := RenameFacets(facets, renamed[:1], sentences); len(f) != 2 || f[0].Heading != facets[0].Heading || s[1].Facet != sentences[1].Facet {
		t.Errorf("renamed of another length changed the report: %+v %+v", f, s)
	}
}
