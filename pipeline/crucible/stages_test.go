package crucible

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/analysis"
)

// passageSearcher answers passage searches with fixed hits, best first.
type passageSearcher struct{ hits []pipeline.Hit }

func (s passageSearcher) Search(_ context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	if req.Docs {
		return pipeline.SearchResult{}, nil
	}
	return pipeline.SearchResult{Hits: s.hits, Total: len(s.hits)}, nil
}

func TestRerankByPassages(t *testing.T) {
	hits := []pipeline.Hit{
		{DocID: "once", Score: 10},
		{DocID: "often", Score: 9},
		{DocID: "often", Score: 8},
		{DocID: "often", Score: 7},
		{DocID: "often", Score: 6}, // beyond passagesPerDoc: not counted
		{DocID: "twice", Score: 5},
		{DocID: "twice", Score: 4},
	}
	r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{hits}}}
	docs := []pipeline.RetrievedDoc{
		{Rank: 1, DocID: "once", Score: 10},
		{Rank: 2, DocID: "often", Score: 9},
		{Rank: 3, DocID: "twice", Score: 5},
		{Rank: 4, DocID: "absent", Score: 3},
	}
	if err := r.rerankByPassages(context.Background(), "q", docs); err != nil {
		t.Fatal(err)
	}
	want := []pipeline.RetrievedDoc{
		{Rank: 1, DocID: "often", Score: 9 + 8*passageDecay + 7*passageDecay*passageDecay},
		{Rank: 2, DocID: "once", Score: 10},
		{Rank: 3, DocID: "twice", Score: 5 + 4*passageDecay},
		{Rank: 4, DocID: "absent", Score: 3},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("reranked documents (-want +got):\n%s", diff)
	}
}

func TestSpreadOverDocuments(t *testing.T) {
	n := func(id, src string) pipeline.Nugget { return pipeline.Nugget{ID: id, Sources: []string{src}} }
	tests := []struct {
		name   string
		ranked []pipeline.Nugget
		keep   int
		want   []string
	}{
		{
			name:   "a document's first two nuggets keep their places",
			ranked: []pipeline.Nugget{n("a1", "a"), n("a2", "a"), n("b1", "b"), n("c1", "c")},
			keep:   3,
			want:   []string{"a1", "a2", "b1", "c1"},
		},
		{
			name:   "third nugget of a document waits for the other documents",
			ranked: []pipeline.Nugget{n("a1", "a"), n("a2", "a"), n("a3", "a"), n("b1", "b"), n("c1", "c")},
			keep:   4,
			want:   []string{"a1", "a2", "b1", "c1", "a3"},
		},
		{
			name:   "waiting nuggets fill the kept places when documents run out",
			ranked: []pipeline.Nugget{n("a1", "a"), n("a2", "a"), n("a3", "a"), n("a4", "a"), n("b1", "b")},
			keep:   4,
			want:   []string{"a1", "a2", "b1", "a3", "a4"},
		},
		{
			name:   "order below the kept places is left alone",
			ranked: []pipeline.Nugget{n("a1", "a"), n("b1", "b"), n("a2", "a"), n("b2", "b")},
			keep:   2,
			want:   []string{"a1", "b1", "a2", "b2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := spreadOverDocuments(tt.ranked, tt.keep)
			var got []string
			for i, ng := range out {
				got = append(got, ng.ID)
				if ng.Rank != i+1 {
					t.Errorf("%s has rank %d at place %d", ng.ID, ng.Rank, i+1)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanOrderPrefersOwnSource(t *testing.T) {
	c := newCorpus(
		[]string{"The canal treaty was signed in 1903 at Washington."},
		[]string{"The canal treaty was signed in 1903 at Washington by the envoys."},
	)
	terms := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '.' || r == '?' })
	}
	r := &run{h: allRules, e: &Engine{Store: c, Terms: terms}, docs: map[string]pipeline.Document{}, passages: map[string][]pipeline.Passage{}}
	ret := []pipeline.RetrievedDoc{{Rank: 1, DocID: "d1"}, {Rank: 2, DocID: "d2"}}
	ng := pipeline.Nugget{ID: "n2.1", Question: "The canal treaty was signed in what year?", Answer: "1903", Sources: []string{"d2"}}
	got, err := r.scanOrder(context.Background(), ng, ret, func(p *pipeline.Passage) analysis.Set { return r.termSet(p.Text) })
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tg := range got {
		ids = append(ids, tg.p.DocID)
	}
	if diff := cmp.Diff([]string{"d2", "d1"}, ids); diff != "" {
		t.Errorf("scan order (-want +got):\n%s", diff)
	}
}
