package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// statsDoc is an ingest document of one passage.
func statsDoc(id, text string) pipeline.IngestDocument {
	return pipeline.IngestDocument{
		Doc:      pipeline.Document{ID: id, Text: text},
		Passages: []pipeline.Passage{{DocID: id, Ordinal: 0, Start: 0, End: len(text), Text: text}},
	}
}

func TestIndexAnalyzerTermStats(t *testing.T) {
	t.Parallel()
	ix, err := index.Open(filepath.Join(t.TempDir(), "ix"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	a := indexAnalyzer{ix}
	var _ offline.CollectionStats = a

	// An empty index offers no statistics.
	if st, ok := a.TermStats([]string{"ferri"}); ok {
		t.Errorf("empty index: statistics %+v, want none", st)
	}

	ctx := context.Background()
	if err := ix.IndexDocuments(ctx, []pipeline.IngestDocument{
		statsDoc("d1", "ferry timetable"),     // 2 terms
		statsDoc("d2", "ferry harbour ferry"), // 3 terms
	}, nil); err != nil {
		t.Fatal(err)
	}
	// Two passages of 2 and 3 terms: 2.5 on average; ferry is in both,
	// timetable in one, kiwi in none (as index terms).
	terms := ix.Terms("ferry timetable kiwi")
	if len(terms) != 3 {
		t.Fatalf("terms %q, want three", terms)
	}
	want := offline.TermStats{Units: 2, AvgLength: 2.5, DocFreq: map[string]int{terms[0]: 2, terms[1]: 1, terms[2]: 0}}
	for round := range 2 { // the second answer comes from the cache
		st, ok := a.TermStats(terms)
		if !ok {
			t.Fatalf("round %d: no statistics", round)
		}
		if diff := cmp.Diff(want, st); diff != "" {
			t.Errorf("round %d (-want +got):\n%s", round, diff)
		}
	}

	// A new passage changes the passage count: the cache starts over and
	// the statistics follow the collection.
	if err := ix.IndexDocuments(ctx, []pipeline.IngestDocument{statsDoc("d3", "timetable")}, nil); err != nil {
		t.Fatal(err)
	}
	st, ok := a.TermStats(terms)
	if !ok {
		t.Fatal("no statistics after the update")
	}
	// Three passages, 6 terms: 2 on average; timetable now in two.
	want = offline.TermStats{Units: 3, AvgLength: 2, DocFreq: map[string]int{terms[0]: 2, terms[1]: 2, terms[2]: 0}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("after the update (-want +got):\n%s", diff)
	}
}
