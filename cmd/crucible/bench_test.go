package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crucible-portal/crucible/index"
	"github.com/crucible-portal/crucible/pipeline"
)

func testDocs() []pipeline.Document {
	return []pipeline.Document{
		{ID: "a", Title: "State of the Union, 1801", Text: "The union of the states is strong. We declare the nation's debt paid; taxes fall. The union endures and the people prosper."},
		{ID: "b", Title: "State of the Union, 1802", Text: "Peace with the nations of Europe (and with the tribes) holds. Commerce grows, revenue grows, and the union of the states grows."},
		{ID: "c", Title: "Annual Message, 1803", Text: "Louisiana is purchased from France for fifteen million dollars. The union now reaches the western waters."},
		{ID: "d", Title: "Annual Message, 1804", Text: "The navy guards our commerce in the Mediterranean. Gunboats defend the coast, and the militia stands ready."},
	}
}

func TestQuerySetDeterministic(t *testing.T) {
	t.Parallel()
	docs := testDocs()
	base := []string{"tariff on imports", "louisiana purchase"}
	a := generateQuerySet(docs, base, 7)
	b := generateQuerySet(docs, base, 7)
	if !slices.Equal(a.all(), b.all()) {
		t.Fatalf("the same seed gave two sets:\n%q\n%q", a.all(), b.all())
	}
	if c := generateQuerySet(docs, base, 8); slices.Equal(a.Random, c.Random) {
		t.Errorf("seeds 7 and 8 drew the same random phrases: %q", a.Random)
	}
	if !slices.Equal(a.Base, base) {
		t.Errorf("base = %q, want %q first", a.Base, base)
	}
	// Four short documents hold fewer than querySetRandom distinct
	// phrases: the generator stops (TestQuerySetFile checks a full set).
	if len(a.Titles) != len(docs) || len(a.Common) != querySetCommon || len(a.Random) < 20 || len(a.Random) > querySetRandom {
		t.Errorf("got %d titles, %d common, %d random phrases; want %d, %d, 20 to %d",
			len(a.Titles), len(a.Common), len(a.Random), len(docs), querySetCommon, querySetRandom)
	}
	stop := map[string]bool{}
	for _, w := range stopWordList() {
		stop[w] = true
	}
	seen := map[string]bool{}
	for _, q := range a.all() {
		if seen[strings.ToLower(q)] {
			t.Errorf("query %q appears twice", q)
		}
		seen[strings.ToLower(q)] = true
	}
	for _, q := range slices.Concat(a.Common, a.Random) {
		words := strings.Fields(q)
		if len(words) < querySetMinLen || len(words) > querySetMaxLen {
			t.Errorf("phrase %q has %d words", q, len(words))
		}
		if !slices.ContainsFunc(words, func(w string) bool { return !isStopWord(stop, w) }) {
			t.Errorf("phrase %q is only stop words", q)
		}
		if strings.ContainsAny(q, ".,;()") {
			t.Errorf("phrase %q crosses punctuation", q)
		}
	}
	if !slices.Contains(a.Common, "the union") {
		t.Errorf("common phrases %q lack the most frequent one, %q", a.Common, "the union")
	}
}

// TestQuerySetFile checks that the committed query set is what `crucible
// bench queries` makes from the demo corpus.
func TestQuerySetFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: regenerating the query set from the demo corpus takes seconds")
	}
	docs, err := readCorpusDocs(context.Background(), demoCorpus)
	if err != nil {
		t.Fatal(err)
	}
	base, err := readQueries("../../testdata/bench/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(base))
	for i, q := range base {
		texts[i] = q.Text
	}
	want := generateQuerySet(docs, texts, querySetSeed).all()
	got, err := readQueries("../../" + querySetDefault)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 200 || len(want) != 200 {
		t.Fatalf("%s holds %d queries, the generator makes %d; want 200", querySetDefault, len(got), len(want))
	}
	for i := range want {
		if got[i].Text != want[i] {
			t.Fatalf("%s line of query %d is %q, the generator makes %q: run crucible bench queries --out %s from the repository root",
				querySetDefault, i+1, got[i].Text, want[i], querySetDefault)
		}
	}
}

func TestCorpusChunks(t *testing.T) {
	t.Parallel()
	got := corpusChunks("The nation's debt — paid; self-government (at last) 'holds'.")
	want := [][]string{{"The", "nation's", "debt"}, {"paid"}, {"self", "government"}, {"at", "last"}, {"holds"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("corpusChunks = %q, want %q", got, want)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i))
	}
	if p := percentile(ds, 0.5); p != 100 {
		t.Errorf("p50 of 1..200 = %d, want 100", p)
	}
	if p := percentile(ds, 0.99); p != 198 {
		t.Errorf("p99 of 1..200 = %d, want 198", p)
	}
	if p := percentile(nil, 0.5); p != 0 {
		t.Errorf("p50 of nothing = %d", p)
	}
}

// TestFTS5WordsAndStopWords checks that FTS5 is given the words Crucible's
// analyser keeps and that the stop list the peers get is the one it drops.
func TestFTS5WordsAndStopWords(t *testing.T) {
	t.Parallel()
	ix, err := index.Open(filepath.Join(t.TempDir(), "index.bleve"), index.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got, want := fts5Words(ix, "The Nation's war of 1812, and the union"), []string{"nation", "war", "1812", "union"}; !slices.Equal(got, want) {
		t.Errorf("fts5Words = %q, want %q", got, want)
	}
	if got := fts5Words(ix, "of the and"); len(got) != 0 {
		t.Errorf("fts5Words of stop words = %q, want none", got)
	}
	stop := stopWordList()
	if len(stop) < 100 || !slices.Contains(stop, "the") || !slices.IsSorted(stop) {
		t.Fatalf("stop list of %d words: %q", len(stop), stop)
	}
	for _, w := range stop {
		// "let's": the possessive filter, before the stop list, makes it
		// "let" (in Lucene's EnglishAnalyzer too).
		if strings.Contains(w, "'") {
			continue
		}
		if terms := ix.Terms(w); len(terms) != 0 {
			t.Errorf("stop word %q: Crucible's analyser keeps it as %q", w, terms)
		}
	}
}

func TestReadQueriesNumbers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.txt")
	if err := os.WriteFile(path, []byte("# comment\nfirst query\n\n  second  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := readQueries(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []benchQuery{{"q001", "first query"}, {"q002", "second"}}
	if !slices.Equal(qs, want) {
		t.Errorf("readQueries = %v, want %v", qs, want)
	}
}
