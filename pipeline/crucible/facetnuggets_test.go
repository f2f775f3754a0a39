package crucible

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// passageCorpus is a memCorpus whose passage searches (SearchRequest.Docs
// false) return passages with their text, best first, as the index does.
type passageCorpus struct{ *memCorpus }

func (c passageCorpus) Search(ctx context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	if req.Docs {
		return c.memCorpus.Search(ctx, req)
	}
	words := strings.Fields(strings.ToLower(req.Query))
	var hits []pipeline.Hit
	for _, id := range c.ids {
		for _, p := range c.ps[id] {
			n := 0
			for _, w := range words {
				if strings.Contains(strings.ToLower(p.Text), w) {
					n++
				}
			}
			if n > 0 {
				hits = append(hits, pipeline.Hit{DocID: id, Ordinal: p.Ordinal, Start: p.Start, End: p.End, Text: p.Text, Score: float64(n)})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	res := pipeline.SearchResult{Total: len(hits)}
	for i, h := range hits[:min(len(hits), req.K)] {
		h.Rank = i + 1
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

// passageNuggets answers as scripted does, except that a summary of one
// passage (not a whole document) gives the nuggets listed for its text.
type passageNuggets struct {
	*scripted
	byText map[string][]prompts.QA
}

func (m passageNuggets) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if in, ok := req.Input.(prompts.NuggetsInput); ok {
		if qas, ok := m.byText[in.Summary]; ok {
			m.scripted.mu.Lock()
			m.scripted.calls[req.Task]++
			m.scripted.mu.Unlock()
			return pipeline.ModelResponse{Text: prompts.FormatNuggets(prompts.NuggetsOutput{Nuggets: qas}), Model: "scripted"}, nil
		}
	}
	return m.scripted.Complete(ctx, req)
}

// facetCorpus has a document on the request's first facet and, in a
// second one, a passage on its second facet alone.
func facetCorpus() passageCorpus {
	return passageCorpus{newCorpus(
		[]string{"The Treaty of Ghent was signed in December 1814. The war with Britain was over.", "Other matters."},
		[]string{"Other matters of the year.", ratification},
	)}
}

const ratification = "The ratification of the Treaty of Ghent took the Senate until February 1815."

var signedRequest = pipeline.Request{ID: "r2", Title: "The Treaty of Ghent", ProblemStatement: "When was the Treaty of Ghent signed, and when was it ratified?", Limit: 1000}

func facetRun(t *testing.T, rules pipeline.Heuristics, m pipeline.Model, s pipeline.Settings) (pipeline.Report, *recorder) {
	t.Helper()
	e := newEngine(nil, m)
	c := facetCorpus()
	e.Searcher, e.Store, e.Defaults = c, c, rules
	rec := &recorder{}
	rep, err := e.Generate(context.Background(), signedRequest, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	return rep, rec
}

var ghentDocNuggets = map[string][]prompts.QA{
	"d1": {{Question: "When was the Treaty of Ghent signed?", Answer: "December 1814"}},
}

func TestFacetNuggetsAreDrawnAndKept(t *testing.T) {
	facets := []pipeline.Facet{
		{Heading: "Signature", Description: "when the Treaty of Ghent was signed"},
		{Heading: "Ratification", Description: "when the Senate ratified the Treaty of Ghent"},
	}
	byText := map[string][]prompts.QA{ratification: {{Question: "Until when did the Senate take to ratify the Treaty of Ghent?", Answer: "February 1815"}}}
	s := pipeline.DefaultSettings()
	s.KeepNuggets = 1 // the facet's nugget must be kept beyond the cut

	m := passageNuggets{&scripted{nuggets: ghentDocNuggets, facets: facets, calls: map[pipeline.Task]int{}}, byText}
	rep, rec := facetRun(t, pipeline.Heuristics{FacetNuggets: true}, m, s)
	var facetN *pipeline.Nugget
	for i, n := range rec.nuggets {
		if strings.HasPrefix(n.ID, FacetNuggetPrefix) && n.Answer == "February 1815" {
			facetN = &rec.nuggets[i]
		}
	}
	if facetN == nil {
		t.Fatalf("no nugget drawn from the ratification passage; nuggets %+v", rec.nuggets)
	}
	if facetN.Rank == 0 || len(facetN.Sources) != 1 || facetN.Sources[0] != "d2" {
		t.Errorf("facet nugget %+v: want kept (rank > 0) beyond keep_nuggets 1, sourced from d2", *facetN)
	}
	if m.calls[prompts.TaskFacets] != 1 {
		t.Errorf("%d facets prompts, want one per report (read in ideation, reused for assembly)", m.calls[prompts.TaskFacets])
	}
	found := false
	for _, st := range rep.Sentences {
		if st.NuggetID == facetN.ID {
			found = st.Citation.DocID == "d2" && strings.Contains(st.Text, "February 1815")
		}
	}
	if !found {
		t.Errorf("no report sentence from the facet nugget %s citing d2; sentences %+v, problems %q", facetN.ID, rep.Sentences, rep.Problems)
	}
	if got := *rep.Settings.FacetNuggets; !got {
		t.Errorf("the report's settings record facet_nuggets %v, want on", got)
	}

	// Off (the papers' ideation): nuggets come from the top documents
	// alone, and keep_nuggets bounds them.
	off := passageNuggets{&scripted{nuggets: ghentDocNuggets, facets: facets, calls: map[pipeline.Task]int{}}, byText}
	_, rec = facetRun(t, pipeline.Heuristics{}, off, s)
	kept := 0
	for _, n := range rec.nuggets {
		if strings.HasPrefix(n.ID, FacetNuggetPrefix) {
			t.Errorf("facet nugget %+v with the rule off", n)
		}
		if n.Rank > 0 {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("%d nuggets kept with the rule off, want keep_nuggets 1", kept)
	}
}

func TestFacetNuggetsWithUnreadableFacets(t *testing.T) {
	m := &scripted{nuggets: ghentDocNuggets, garble: prompts.TaskFacets}
	rep, rec := facetRun(t, pipeline.Heuristics{FacetNuggets: true}, m, pipeline.DefaultSettings())
	for _, n := range rec.nuggets {
		if strings.HasPrefix(n.ID, FacetNuggetPrefix) {
			t.Errorf("facet nugget %+v without facets", n)
		}
	}
	if len(rep.Sentences) == 0 {
		t.Error("no sentences: the report should go on from the documents' nuggets")
	}
	if m.calls[prompts.TaskFacets] != 1 {
		t.Errorf("%d facets prompts after an unreadable answer, want 1 (not asked again at assembly)", m.calls[prompts.TaskFacets])
	}
	joined := strings.Join(rep.Problems, "\n")
	if !strings.Contains(joined, "ideate: the request's facets could not be read") || !strings.Contains(joined, "no nugget is drawn for them") {
		t.Errorf("problems %q do not say, in the ideate stage, that no facet nugget was drawn", rep.Problems)
	}
}

// TestFacetPassagesWithinTheRerankersDocuments: with a reranker, a
// facet's passages come from the documents ideation draws on (the
// reranker's chosen set), never from another document.
func TestFacetPassagesWithinTheRerankersDocuments(t *testing.T) {
	c := facetCorpus()
	r := &run{e: &Engine{Searcher: c, Model: &scripted{facets: []pipeline.Facet{{Heading: "Ratification", Description: "when the Senate ratified the Treaty of Ghent"}}}}, req: signedRequest,
		bestPassages: map[string]bool{"d1#0": true, "d1#1": true, "d2#0": true, "d2#1": true}}
	r.model = &meter{next: r.e.Model}
	all, err := r.facetPassages(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || all[0].DocID != "d2" {
		t.Fatalf("facet passages %+v: want the ratification passage of d2 first", all)
	}
	only, err := r.facetPassages(context.Background(), map[string]bool{"d1": true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range only {
		if h.DocID != "d1" {
			t.Errorf("passage of %s from outside the reranker's documents", h.DocID)
		}
	}
}

// authoredCorpus is a passageCorpus whose documents have authors and
// dates and that lists its authors (pipeline.AuthorLister).
type authoredCorpus struct {
	passageCorpus
	authors map[string]pipeline.Period
}

func (c authoredCorpus) AuthorYears(context.Context) (map[string]pipeline.Period, error) {
	return c.authors, nil
}

// TestFacetPassagesOfTheNamedSpeaker: a facet that names its speaker
// ("the help Clinton sought") draws on the speaker's documents, though
// another speaker's passage holds more of its words; without authors to
// read the name by, the best passage for the facet's words is taken.
func TestFacetPassagesOfTheNamedSpeaker(t *testing.T) {
	c := authoredCorpus{passageCorpus: passageCorpus{newCorpus(
		[]string{"Help for family farmers came with the farm bill and more help for farmers."},
		[]string{"Family farmers need help against low prices."},
	)}, authors: map[string]pipeline.Period{"George Bush": {From: 1989, To: 1992}, "William J Clinton": {From: 1993, To: 2000}}}
	for id, a := range map[string]string{"d1": "George Bush", "d2": "William J Clinton"} {
		d := c.docs[id]
		d.Metadata = map[string]string{"author": a}
		c.docs[id] = d
	}
	facets := []pipeline.Facet{{Heading: "Help Clinton sought for family farmers", Description: "the help Clinton sought for family farmers"}}
	req := pipeline.Request{ID: "r", Title: "Farm help", ProblemStatement: "What help did Clinton seek for family farmers?", Limit: 1000}
	best := map[string]bool{"d1#0": true, "d2#0": true}
	passagesWith := func(store pipeline.DocumentStore) []pipeline.Hit {
		r := &run{e: &Engine{Searcher: c, Store: store, Model: &scripted{facets: facets}}, req: req, bestPassages: best,
			docs: map[string]pipeline.Document{}, passages: map[string][]pipeline.Passage{}}
		r.model = &meter{next: r.e.Model}
		hits, err := r.facetPassages(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if hits := passagesWith(c); len(hits) != 1 || hits[0].DocID != "d2" {
		t.Errorf("facet passages %+v: want Clinton's passage (d2) alone", hits)
	}
	if hits := passagesWith(c.passageCorpus); len(hits) == 0 || hits[0].DocID != "d1" {
		t.Errorf("without authors, facet passages %+v: want the passage with more of the facet's words (d1) first", hits)
	}
}

// TestFacetsNameTheSpeaker: the facets a run reads say who a pronoun
// stands for when the request names one author of the collection
// (pipeline.ResolveSpeaker), in the report's facets and its headings.
func TestFacetsNameTheSpeaker(t *testing.T) {
	c := authoredCorpus{passageCorpus: facetCorpus(), authors: map[string]pipeline.Period{"James Madison": {From: 1809, To: 1817}}}
	for id, d := range c.docs {
		d.Metadata = map[string]string{"author": "James Madison", "date": "1815-02-20"}
		c.docs[id] = d
	}
	e := newEngine(nil, &scripted{nuggets: ghentDocNuggets, calls: map[pipeline.Task]int{}, facets: []pipeline.Facet{
		{Heading: "Treaty he signed", Description: "the treaty he signed"},
		{Heading: "Ratification", Description: "when the Senate ratified the Treaty of Ghent"},
	}})
	e.Searcher, e.Store = c, c
	req := pipeline.Request{ID: "r3", Title: "Madison and the Treaty of Ghent", ProblemStatement: "When did Madison sign the Treaty of Ghent, and when was it ratified?", Limit: 1000}
	rep, err := e.Generate(context.Background(), req, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Facets) != 2 || rep.Facets[0].Heading != "Treaty Madison signed" || rep.Facets[0].Description != "the treaty Madison signed" {
		t.Errorf("facets %+v: want the first to name Madison", rep.Facets)
	}
	for _, s := range rep.Sentences {
		if s.Facet == "Treaty he signed" {
			t.Errorf("sentence %q under the unresolved heading", s.Text)
		}
	}
}

// TestFacetsNameTheirSpeakers: a heading's "they" before a verb of saying
// names the speakers the request's sentence gives it
// (pipeline.ResolveThey) in the report's facets and its sentences'
// headings, once they are grouped; the description, which steers the
// facet's passages, keeps its words.
func TestFacetsNameTheirSpeakers(t *testing.T) {
	c := authoredCorpus{passageCorpus: facetCorpus(), authors: map[string]pipeline.Period{"James Madison": {From: 1809, To: 1817}}}
	e := newEngine(nil, &scripted{nuggets: ghentDocNuggets, calls: map[pipeline.Task]int{}, facets: []pipeline.Facet{
		{Heading: "Ratification they proposed", Description: "the ratification they proposed of the Treaty of Ghent"},
		{Heading: "Dates", Description: "the dates Presidents cited"},
	}})
	e.Searcher, e.Store = c, c
	req := pipeline.Request{ID: "r4", Title: "The Treaty of Ghent",
		ProblemStatement: "Describe the peace of 1815: the dates Presidents cited and the ratification they proposed of the Treaty of Ghent.", Limit: 1000}
	rep, err := e.Generate(context.Background(), req, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Facets) != 2 || rep.Facets[0].Heading != "Ratification Presidents proposed" || rep.Facets[0].Description != "the ratification they proposed of the Treaty of Ghent" {
		t.Errorf("facets %+v: want the first headed by the Presidents, its description as read", rep.Facets)
	}
	under := 0
	for _, s := range rep.Sentences {
		if s.Facet == "Ratification they proposed" {
			t.Errorf("sentence %q under the heading as read", s.Text)
		}
		if s.Facet == "Ratification Presidents proposed" {
			under++
		}
	}
	if under == 0 {
		t.Errorf("no sentence under the renamed heading: %+v", rep.Sentences)
	}
}
