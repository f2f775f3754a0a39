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
			r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{hits()}, Store: st}, req: tt.req}
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
	r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{[]pipeline.Hit{{DocID: "a", Score: 2}, {DocID: "a", Ordinal: 1, Score: 1}}}, Store: st},
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
	r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{[]pipeline.Hit{{DocID: "a", Score: 1}}}, Store: st},
		req: pipeline.Request{Title: "t", ProblemStatement: "the 1970s"}}
	err := r.rerankByPassages(context.Background(), "q", []pipeline.RetrievedDoc{{Rank: 1, DocID: "a"}})
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Errorf("err = %v, want the store's error", err)
	}
}

// docSearcher ranks documents in a fixed order and records the k asked for.
type docSearcher struct {
	docs  []string
	asked []int
}

func (s *docSearcher) Search(_ context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	s.asked = append(s.asked, req.K)
	var res pipeline.SearchResult
	for i, id := range s.docs {
		if i < req.K {
			res.Hits = append(res.Hits, pipeline.Hit{Rank: i + 1, DocID: id, Score: float64(len(s.docs) - i)})
		}
	}
	return res, nil
}

func TestSearchDocsAddsTheDocumentsOfThePeriod(t *testing.T) {
	dates := map[string]string{"a": "1950", "b": "1916", "c": "1980", "d": "1918-12-02", "e": "1925", "f": "1916"}
	order := []string{"a", "b", "c", "d", "e", "f"}
	tests := []struct {
		name      string
		req       pipeline.Request
		store     pipeline.DocumentStore
		want      []string
		wantAsked []int
	}{
		{
			name: "in the period beyond the best N are added, in score order",
			req:  pipeline.Request{Title: "The First World War, 1915-1923"},
			// a, b are the best 2; d (1918) and f (1916) are in the
			// period; c (1980) and e (1925) are not.
			store: &datedStore{dates: dates}, want: []string{"a", "b", "d", "f"}, wantAsked: []int{periodPool},
		},
		{
			name:  "no period named: the best N",
			req:   pipeline.Request{Title: "The First World War"},
			store: &datedStore{dates: dates}, want: []string{"a", "b"}, wantAsked: []int{2},
		},
		{
			name:  "a store without dates: the best N",
			req:   pipeline.Request{Title: "The First World War, 1915-1923"},
			store: testCorpus(), want: []string{"a", "b"}, wantAsked: []int{2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &docSearcher{docs: order}
			r := &run{h: allRules, e: &Engine{Searcher: s, Store: tt.store}, req: tt.req, s: pipeline.Settings{Retrieve: 2}}
			hits, err := r.searchDocs(context.Background(), "war")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.DocID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("documents (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAsked, s.asked); diff != "" {
				t.Errorf("k asked (-want +got)\n%s", diff)
			}
		})
	}
	st := &datedStore{err: errors.New("database is locked")}
	r := &run{h: allRules, e: &Engine{Searcher: &docSearcher{docs: order}, Store: st}, req: tests[0].req, s: pipeline.Settings{Retrieve: 2}}
	if _, err := r.searchDocs(context.Background(), "war"); err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Errorf("err = %v, want the store's error", err)
	}
}

func TestTitlePeriodScope(t *testing.T) {
	hits := []pipeline.Hit{{DocID: "war", Score: 6}, {DocID: "later", Score: 10}, {DocID: "undated", Score: 5}}
	docs := func() []pipeline.RetrievedDoc {
		return []pipeline.RetrievedDoc{{Rank: 1, DocID: "later", Score: 10}, {Rank: 2, DocID: "war", Score: 6}, {Rank: 3, DocID: "undated", Score: 5}}
	}
	dates := map[string]string{"later": "1894", "war": "1813-12-07"}
	cands := []pipeline.Candidate{
		{NuggetID: "n1", Sentence: "later", Citation: pipeline.Citation{DocID: "later"}},
		{NuggetID: "n2", Sentence: "war", Citation: pipeline.Citation{DocID: "war"}},
		{NuggetID: "n3", Sentence: "undated", Citation: pipeline.Citation{DocID: "undated"}},
	}
	ids := func(cs []pipeline.Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, c.Citation.DocID)
		}
		return out
	}
	docIDs := func(ds []pipeline.RetrievedDoc) (out []string) {
		for _, d := range ds {
			out = append(out, d.DocID)
		}
		return out
	}
	tests := []struct {
		name      string
		req       pipeline.Request
		wantCands []string
		wantDocs  []string
	}{
		{
			name:      "the title's period bounds the report; undated documents stay",
			req:       pipeline.Request{Title: "The War of 1812, 1812-1815"},
			wantCands: []string{"war", "undated"}, wantDocs: []string{"war", "undated"},
		},
		{
			name:      "a period named only in the problem statement sets no scope",
			req:       pipeline.Request{Title: "The War of 1812", ProblemStatement: "The annual messages of 1812-1815."},
			wantCands: []string{"later", "war", "undated"}, wantDocs: []string{"war", "later", "undated"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{hits}, Store: &datedStore{dates: dates}}, req: tt.req}
			ds := docs()
			if err := r.rerankByPassages(context.Background(), "q", ds); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantCands, ids(r.inScope(cands))); diff != "" {
				t.Errorf("candidates assembled (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDocs, docIDs(r.scoped(ds))); diff != "" {
				t.Errorf("documents nuggets are drawn from (-want +got)\n%s", diff)
			}
			if len(r.tolerated()) != 0 {
				t.Errorf("problems %q", r.tolerated())
			}
		})
	}
	// Nothing dated in the title's period: every candidate is kept, and
	// the problems say so.
	r := &run{h: allRules, e: &Engine{Searcher: passageSearcher{hits}, Store: &datedStore{dates: dates}}, req: pipeline.Request{Title: "Tariffs, 1900-1910"}}
	ds := docs()
	if err := r.rerankByPassages(context.Background(), "q", ds); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"later", "war"}, ids(r.inScope(cands[:2]))); diff != "" {
		t.Errorf("with nothing in scope (-want +got)\n%s", diff)
	}
	if p := r.tolerated(); len(p) != 1 || !strings.Contains(p[0], "outside the period the title names") {
		t.Errorf("problems %q, want one naming the title's period", p)
	}
	if got := docIDs(r.scoped(ds[:2])); len(got) != 2 {
		t.Errorf("with nothing in scope nuggets are drawn from %v, want every document", got)
	}
}

// A whole run: a request whose title names a period never cites a
// document dated outside it, though that document is retrieved and
// matches; without the period it does.
func TestGenerateKeepsToTheTitlesPeriod(t *testing.T) {
	c := testCorpus()
	dates := map[string]string{"d1": "1890", "d2": "1890", "d3": "1815"}
	for _, tc := range []struct {
		title  string
		wantD3 bool
	}{
		{"Tariff and treaty, 1889-1891", false},
		{"Tariff and treaty", true},
	} {
		e := &Engine{Searcher: c, Store: &datedStore{DocumentStore: c, dates: dates}, Model: &scripted{nuggets: testNuggets()}, Terms: words,
			SentenceKey: func(s string) string { return strings.Join(words(s), " ") }, Name: "scripted model"}
		req := testRequest
		req.Title = tc.title
		rep, err := e.Generate(context.Background(), req, pipeline.DefaultSettings(), nil)
		if err != nil {
			t.Fatal(err)
		}
		citesD3 := false
		for _, s := range rep.Sentences {
			citesD3 = citesD3 || s.Citation.DocID == "d3"
		}
		if citesD3 != tc.wantD3 || len(rep.Sentences) == 0 {
			t.Errorf("%q: %d sentences, cites d3 (1815) = %v, want %v", tc.title, len(rep.Sentences), citesD3, tc.wantD3)
		}
	}
}

// authoredStore is a datedStore that lists its authors' years
// (pipeline.AuthorLister).
type authoredStore struct {
	*datedStore
	authors map[string]pipeline.Period
	err     error
}

func (s *authoredStore) AuthorYears(context.Context) (map[string]pipeline.Period, error) {
	return s.authors, s.err
}

// TestGenerateKeepsToTheAuthorsPeriod: a title ending with a range of the
// collection's authors ("from Harrison to McKinley") scopes the report to
// the years of their documents, as a range of years does (an author
// named otherwise does not); a failing list
// of authors fails the report with a message that says so.
func TestGenerateKeepsToTheAuthorsPeriod(t *testing.T) {
	dates := map[string]string{"d1": "1890", "d2": "1890", "d3": "1815"}
	authors := map[string]pipeline.Period{"Benjamin Harrison": {From: 1889, To: 1892}, "William Mc Kinley": {From: 1897, To: 1900}, "James Madison": {From: 1809, To: 1816}}
	for _, tc := range []struct {
		title  string
		err    error
		wantD3 bool
	}{
		{"Tariff and treaty from Harrison to McKinley", nil, false},
		{"Tariff and treaty from Madison to McKinley", nil, true},
		{"Tariff and treaty from Sputnik to Artemis", nil, true},
		{"Tariff and treaty in Harrison's messages", nil, true},
		{"Tariff and treaty from Harrison to McKinley", errors.New("disk on fire"), false},
	} {
		c := testCorpus()
		store := &authoredStore{datedStore: &datedStore{DocumentStore: c, dates: dates}, authors: authors, err: tc.err}
		e := &Engine{Searcher: c, Store: store, Model: &scripted{nuggets: testNuggets()}, Terms: words,
			SentenceKey: func(s string) string { return strings.Join(words(s), " ") }, Name: "scripted model"}
		req := testRequest
		req.Title = tc.title
		rep, err := e.Generate(context.Background(), req, pipeline.DefaultSettings(), nil)
		if tc.err != nil {
			if err == nil || !strings.Contains(err.Error(), "disk on fire") {
				t.Errorf("%q with a failing author list: %v, want its error", tc.title, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		citesD3 := false
		for _, s := range rep.Sentences {
			citesD3 = citesD3 || s.Citation.DocID == "d3"
		}
		if citesD3 != tc.wantD3 || len(rep.Sentences) == 0 {
			t.Errorf("%q: %d sentences, cites d3 (1815) = %v, want %v", tc.title, len(rep.Sentences), citesD3, tc.wantD3)
		}
	}
}

func TestTitlePeriods(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  []pipeline.Period
	}{
		{"America in the Second World War, 1941-1946", []pipeline.Period{{From: 1941, To: 1946}}},
		{"The First World War and the peace, 1915-1923", []pipeline.Period{{From: 1915, To: 1923}}},
		{"The Great Depression, from 1929 to 1939", []pipeline.Period{{From: 1929, To: 1939}}},
		{"The energy crisis of the 1970s", []pipeline.Period{{From: 1970, To: 1979}}},
		{"Paying off the national debt: Jackson's era and the surpluses of the 1990s", nil},
		{"Wars of the 1860s and the 1890s compared", nil},
		{"Pensions, 1890-1910 and after", nil},
		{"The War of 1812", nil},
		{"How fast did the Union grow in people and States, 1791-1853?", []pipeline.Period{{From: 1791, To: 1853}}},
		{"Which tax credits did the Presidents offer working families, 1992-2021 ?", []pipeline.Period{{From: 1992, To: 2021}}},
		{"What did the messages say about Portugal between 1840 and 1900?", nil},
	} {
		if diff := cmp.Diff(tc.want, titlePeriods(tc.title)); diff != "" {
			t.Errorf("titlePeriods(%q) (-want +got)\n%s", tc.title, diff)
		}
	}
}
