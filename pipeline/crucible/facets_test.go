package crucible

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// datedCorpus is testCorpus with dated documents: d3 (Madison's
// signature) in 1815, d1 in 1890, d2 in 1891.
func datedCorpus() *memCorpus {
	c := testCorpus()
	for id, date := range map[string]string{"d1": "1890-12-01", "d2": "1891-12-09", "d3": "1815-02-20"} {
		d := c.docs[id]
		d.Metadata = map[string]string{"date": date}
		c.docs[id] = d
	}
	return c
}

var ghentFirst = []pipeline.Facet{
	{Heading: "The Treaty of Ghent", Description: "how the war ended by treaty and who signed it"},
	{Heading: "The McKinley Tariff", Description: "the tariff act and its duties"},
}

type placedSentence struct{ Facet, Doc string }

func placed(ss []pipeline.Sentence) []placedSentence {
	out := make([]placedSentence, len(ss))
	for i, s := range ss {
		out[i] = placedSentence{s.Facet, s.Citation.DocID}
	}
	return out
}

func TestGenerateGroupsUnderFacets(t *testing.T) {
	m := &scripted{nuggets: testNuggets(), facets: ghentFirst}
	plain, err := newEngine(datedCorpus(), &scripted{nuggets: testNuggets(), garble: prompts.TaskFacets}).
		Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := newEngine(datedCorpus(), m).Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.calls[prompts.TaskFacets] != 1 {
		t.Errorf("%d facets prompts, want one per report", m.calls[prompts.TaskFacets])
	}
	if diff := cmp.Diff(ghentFirst, rep.Facets); diff != "" {
		t.Errorf("report facets (-want +got):\n%s", diff)
	}
	// The facets' order, not nugget rank; Madison's signature of 1815
	// before the address of 1891 within the treaty's facet.
	want := []placedSentence{
		{"The Treaty of Ghent", "d3"}, {"The Treaty of Ghent", "d2"},
		{"The McKinley Tariff", "d1"}, {"The McKinley Tariff", "d2"},
	}
	if diff := cmp.Diff(want, placed(rep.Sentences)); diff != "" {
		t.Errorf("grouped sentences (-want +got):\n%s", diff)
	}
	// Grouping changes the order only: the same sentences, the same
	// length (headings do not count).
	texts := func(ss []pipeline.Sentence) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Text)
		}
		return out
	}
	if diff := cmp.Diff(texts(plain.Sentences), texts(rep.Sentences), cmpSorted); diff != "" {
		t.Errorf("grouping changed which sentences the report holds (-ungrouped +grouped):\n%s", diff)
	}
	if rep.Length() != plain.Length() {
		t.Errorf("length %d grouped, %d ungrouped", rep.Length(), plain.Length())
	}
}

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

func TestGenerateToleratesUnreadableFacets(t *testing.T) {
	m := &scripted{nuggets: testNuggets(), garble: prompts.TaskFacets}
	rep, err := newEngine(datedCorpus(), m).Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sentences) == 0 {
		t.Fatal("no sentences")
	}
	if rep.Facets != nil {
		t.Errorf("facets %+v from an unreadable answer", rep.Facets)
	}
	for _, s := range rep.Sentences {
		if s.Facet != "" {
			t.Errorf("sentence %q has the facet %q; the report should be one untitled group", s.Text, s.Facet)
		}
	}
	joined := strings.Join(rep.Problems, "\n")
	if !strings.Contains(joined, "parse facets answer") || !strings.Contains(joined, "not grouped under headings") {
		t.Errorf("problems %q do not say the facets were unreadable and the report is not grouped", rep.Problems)
	}
}

func TestRegenerateGroupsNewSentences(t *testing.T) {
	c := datedCorpus()
	m := &scripted{nuggets: testNuggets(), facets: ghentFirst}
	e := newEngine(c, m)
	rep, err := e.Generate(context.Background(), testRequest, pipeline.DefaultSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := pipeline.NewDraft(rep)
	// The Madison sentence is deleted by hand; the nugget is edited so
	// that regeneration finds it again.
	var madison string
	for i, s := range d.Sentences {
		if s.Citation.DocID == "d3" {
			madison = s.NuggetID
			d.Sentences = append(d.Sentences[:i:i], d.Sentences[i+1:]...)
			break
		}
	}
	var bank []pipeline.Nugget
	for _, n := range d.Nuggets {
		if n.ID == madison {
			n.Question = "Who signed the Treaty of Ghent for the United States?"
		}
		bank = append(bank, n.Nugget)
	}
	callsBefore := m.calls[prompts.TaskFacets]
	res, err := e.Regenerate(context.Background(), RegenerateInput{
		Request: testRequest, Settings: pipeline.DefaultSettings(), Retrieved: []pipeline.RetrievedDoc{{Rank: 1, DocID: "d1"}, {Rank: 2, DocID: "d2"}, {Rank: 3, DocID: "d3"}},
		Nuggets: bank, Changed: []string{madison}, Sentences: d.Sentences, Facets: rep.Facets,
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls[prompts.TaskFacets] != callsBefore {
		t.Errorf("regeneration asked for the facets again; the report's own are used")
	}
	var got []placedSentence
	for _, s := range res.Sentences {
		got = append(got, placedSentence{s.Facet, s.Citation.DocID})
	}
	want := []placedSentence{
		{"The Treaty of Ghent", "d3"}, {"The Treaty of Ghent", "d2"},
		{"The McKinley Tariff", "d1"}, {"The McKinley Tariff", "d2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("regenerated sentences (-want +got):\n%s", diff)
	}

	// A report without facets places the new sentence by nugget rank,
	// without a facet.
	for i := range d.Sentences {
		d.Sentences[i].Facet = ""
	}
	res, err = e.Regenerate(context.Background(), RegenerateInput{
		Request: testRequest, Settings: pipeline.DefaultSettings(), Retrieved: []pipeline.RetrievedDoc{{Rank: 1, DocID: "d1"}, {Rank: 2, DocID: "d2"}, {Rank: 3, DocID: "d3"}},
		Nuggets: bank, Changed: []string{madison}, Sentences: d.Sentences,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sentences {
		if s.Facet != "" {
			t.Errorf("sentence %q got the facet %q in a report without facets", s.Text, s.Facet)
		}
	}
}
