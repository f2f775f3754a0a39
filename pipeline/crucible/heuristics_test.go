package crucible

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// The rules of pipeline.Heuristics switched off give the papers' method:
// MaxP document scores, no period preference, kept nuggets in rank order.

// allRules switches every rule on: the tests written for the rules use it.
var allRules = pipeline.Heuristics{PreferPeriod: true, PassageScores: true, SpreadSources: true}

func TestPassageScoresOffKeepsMaxP(t *testing.T) {
	hits := []pipeline.Hit{
		{DocID: "once", Score: 10}, {DocID: "often", Score: 9}, {DocID: "often", Score: 8},
		{DocID: "often", Score: 7}, {DocID: "twice", Score: 5}, {DocID: "twice", Score: 4},
	}
	docs := []pipeline.RetrievedDoc{
		{Rank: 1, DocID: "once", Score: 10}, {Rank: 2, DocID: "often", Score: 9}, {Rank: 3, DocID: "twice", Score: 5},
	}
	r := &run{e: &Engine{Searcher: passageSearcher{hits}}}
	if err := r.rerankByPassages(context.Background(), "q", docs); err != nil {
		t.Fatal(err)
	}
	want := []pipeline.RetrievedDoc{
		{Rank: 1, DocID: "once", Score: 10}, {Rank: 2, DocID: "often", Score: 9}, {Rank: 3, DocID: "twice", Score: 5},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
}

func TestPreferPeriodOff(t *testing.T) {
	dates := map[string]string{"later": "1894", "war": "1813-12-07", "after": "1816"}
	hits := []pipeline.Hit{{DocID: "later", Score: 10}, {DocID: "war", Score: 6}, {DocID: "after", Score: 4}}
	docs := []pipeline.RetrievedDoc{{Rank: 1, DocID: "later", Score: 10}, {Rank: 2, DocID: "war", Score: 6}, {Rank: 3, DocID: "after", Score: 4}}
	req := pipeline.Request{Title: "The War of 1812", ProblemStatement: "The annual messages of 1812-1815."}
	r := &run{e: &Engine{Searcher: passageSearcher{hits}, Store: &datedStore{dates: dates}}, req: req}
	if err := r.rerankByPassages(context.Background(), "q", docs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.DocID)
	}
	if diff := cmp.Diff([]string{"later", "war", "after"}, got); diff != "" {
		t.Errorf("documents (-want +got): scores must not be raised\n%s", diff)
	}
	// The period still tells which documents are in it (the report's
	// subject and scope use it); only the retrieval scores are left alone.
	if diff := cmp.Diff(map[string]bool{"war": true, "after": true}, r.inPeriod); diff != "" {
		t.Errorf("documents in the period (-want +got)\n%s", diff)
	}

	s := &docSearcher{docs: []string{"a", "b", "c", "d"}}
	r = &run{e: &Engine{Searcher: s, Store: &datedStore{dates: map[string]string{"d": "1918"}}},
		req: pipeline.Request{Title: "The First World War, 1915-1923"}, s: pipeline.Settings{Retrieve: 2}}
	found, err := r.searchDocs(context.Background(), "war")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || len(s.asked) != 1 || s.asked[0] != 2 {
		t.Errorf("searchDocs found %d documents asking for k=%v; want the best 2 only", len(found), s.asked)
	}
}

func TestEvidenceOutsideThePeriodWithPreferPeriodOff(t *testing.T) {
	c := newCorpus([]string{"The canal treaty was signed in 1903."}, []string{"The canal treaty was signed in 1903."})
	e := newEngine(c, nil)
	e.Defaults = pipeline.Heuristics{}
	r := e.newRun(pipeline.Request{Title: "t", ProblemStatement: "p"}, pipeline.DefaultSettings())
	r.query = r.termSet("canal treaty")
	r.passageRank = map[string]int{}
	n := func(src string) pipeline.Nugget { return pipeline.Nugget{Answer: "1903", Sources: []string{src}} }
	in, err := r.evidence(context.Background(), n("d2"))
	if err != nil {
		t.Fatal(err)
	}
	r.inPeriod = map[string]bool{"d1": true}
	out, err := r.evidence(context.Background(), n("d2"))
	if err != nil {
		t.Fatal(err)
	}
	if in != out || in == 0 {
		t.Errorf("evidence %g in no period, %g outside the request's: want them equal and positive", in, out)
	}
}

func TestSpreadSourcesOff(t *testing.T) {
	n := func(id, src string) pipeline.Nugget {
		return pipeline.Nugget{ID: id, Sources: []string{src}, QualityScore: 1}
	}
	ranked := []pipeline.Nugget{n("a1", "a"), n("a2", "a"), n("a3", "a"), n("b1", "b")}
	for _, tt := range []struct {
		h    pipeline.Heuristics
		want []string
	}{
		{pipeline.Heuristics{}, []string{"a1", "a2", "a3", "b1"}},
		{allRules, []string{"a1", "a2", "b1", "a3"}},
	} {
		r := &run{h: tt.h, s: pipeline.Settings{KeepNuggets: 3}}
		var got []string
		for _, x := range r.keepOrder(ranked) {
			got = append(got, x.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%+v: kept order (-want +got)\n%s", tt.h, diff)
		}
	}
}

func TestRunRecordsTheHeuristicsUsed(t *testing.T) {
	on, off := true, false
	for _, tt := range []struct {
		name     string
		defaults pipeline.Heuristics
		set      func(*pipeline.Settings)
		want     pipeline.Heuristics
	}{
		{"model engine: none by default", pipeline.Heuristics{}, func(*pipeline.Settings) {}, pipeline.Heuristics{}},
		{"offline engine: its defaults", OfflineHeuristics, func(*pipeline.Settings) {}, OfflineHeuristics},
		{"a request's choice wins", allRules, func(s *pipeline.Settings) { s.PassageScores = &off },
			pipeline.Heuristics{PreferPeriod: true, SpreadSources: true}},
		{"and switches a rule on", pipeline.Heuristics{}, func(s *pipeline.Settings) { s.SpreadSources = &on },
			pipeline.Heuristics{SpreadSources: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(testCorpus(), &scripted{nuggets: testNuggets()})
			e.Defaults = tt.defaults
			s := pipeline.DefaultSettings()
			tt.set(&s)
			rep, err := e.Generate(context.Background(), pipeline.Request{ID: "r", Title: "McKinley tariff", ProblemStatement: "Tariff of 1890", Limit: 400}, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			rs := rep.Settings
			if rs.PreferPeriod == nil || rs.PassageScores == nil || rs.SpreadSources == nil {
				t.Fatalf("report settings %+v leave a rule unrecorded", rs)
			}
			if got := rs.Heuristics(pipeline.Heuristics{}); got != tt.want {
				t.Errorf("recorded %+v, want %+v", got, tt.want)
			}
		})
	}
}
