package crucible

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// datedStore is a document store that lists dates (pipeline.DateLister).
type datedStore struct {
	pipeline.DocumentStore
	dates map[string]string
	err   error
	asked [][]string
}

func (s *datedStore) DocumentDates(_ context.Context, ids []string) (map[string]string, error) {
	s.asked = append(s.asked, ids)
	if s.err != nil {
		return nil, s.err
	}
	out := map[string]string{}
	for _, id := range ids {
		if d, ok := s.dates[id]; ok {
			out[id] = d
		}
	}
	return out, nil
}

func TestPreferPeriod(t *testing.T) {
	hits := func() []pipeline.Hit {
		return []pipeline.Hit{
			{DocID: "later", Ordinal: 0, Score: 10},
			{DocID: "war", Ordinal: 0, Score: 6},
			{DocID: "undated", Ordinal: 0, Score: 5},
			{DocID: "after", Ordinal: 0, Score: 4},
		}
	}
	docs := func() []pipeline.RetrievedDoc {
		return []pipeline.RetrievedDoc{
			{Rank: 1, DocID: "later", Score: 10},
			{Rank: 2, DocID: "war", Score: 6},
			{Rank: 3, DocID: "undated", Score: 5},
			{Rank: 4, DocID: "after", Score: 4},
		}
	}
	dates := map[string]string{"later": "1894", "war": "1813-12-07", "after": "1816"}
	tests := []struct {
		name         string
		req          pipeline.Request
		wantDocs     []string
		wantRanks    map[string]int
		wantInPeriod map[string]bool
	}{
		{
			name: "documents of the period first, the year after included",
			req:  pipeline.Request{Title: "The War of 1812", ProblemStatement: "The annual messages of 1812-1815."},
			// war 6×3 = 18, after (1816) 4×3 = 12, later 10, undated 5.
			wantDocs:     []string{"war", "after", "later", "undated"},
			wantRanks:    map[string]int{"war": 0, "after": 1, "later": 2, "undated": 3},
			wantInPeriod: map[string]bool{"war": true, "after": true},
		},
		{
			name:      "no period named: BM25 order",
			req:       pipeline.Request{Title: "The War of 1812", ProblemStatement: "Naval victories on the lakes."},
			wantDocs:  []string{"later", "war", "undated", "after"},
			wantRanks: map[string]int{"later": 0, "war": 1, "undated": 2, "after": 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &datedStore{dates: dates}
			r := &run{e: &Engine{Searcher: passageSearcher{hits()}, Store: st}, req: tt.req}
			ds := docs()
			if err := r.rerankByPassages(context.Background(), "q", ds); err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, d := range ds {
				got = append(got, d.DocID)
				if d.Rank != i+1 {
					t.Errorf("%s has rank %d at place %d", d.DocID, d.Rank, i+1)
				}
			}
			if diff := cmp.Diff(tt.wantDocs, got); diff != "" {
				t.Errorf("documents (-want +got)\n%s", diff)
			}
			ranks := map[string]int{}
			for id, rank := range r.passageRank {
				ranks[strings.TrimSuffix(id, "#0")] = rank
			}
			if diff := cmp.Diff(tt.wantRanks, ranks); diff != "" {
				t.Errorf("passage ranks (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantInPeriod, r.inPeriod); diff != "" {
				t.Errorf("documents in the period (-want +got)\n%s", diff)
			}
		})
	}
}

func TestPreferPeriodAsksOnceForEachDocument(t *testing.T) {
	st := &datedStore{dates: map[string]string{}}
	r := &run{e: &Engine{Searcher: passageSearcher{[]pipeline.Hit{{DocID: "a", Score: 2}, {DocID: "a", Ordinal: 1, Score: 1}}}, Store: st},
		req: pipeline.Request{Title: "t", ProblemStatement: "from 1929 to 1939"}}
	if err := r.rerankByPassages(context.Background(), "q", []pipeline.RetrievedDoc{{Rank: 1, DocID: "a"}, {Rank: 2, DocID: "b"}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"a", "b"}}, st.asked); diff != "" {
		t.Errorf("dates asked for (-want +got)\n%s", diff)
	}
}

func TestPreferPeriodStoreErrorStopsRetrieval(t *testing.T) {
	st := &datedStore{err: errors.New("database is locked")}
	r := &run{e: &Engine{Searcher: passageSearcher{[]pipeline.Hit{{DocID: "a", Score: 1}}}, Store: st},
		req: pipeline.Request{Title: "t", ProblemStatement: "the 1970s"}}
	err := r.rerankByPassages(context.Background(), "q", []pipeline.RetrievedDoc{{Rank: 1, DocID: "a"}})
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Errorf("err = %v, want the store's error", err)
	}
}
