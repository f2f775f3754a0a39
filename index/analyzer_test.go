package index

import (
	"context"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

// TestStemCacheAnalysesAsBleve checks the analyzer with the remembering
// stemmer gives Bleve's English analysis, term for term and offset for
// offset, over the demo corpus's first documents (twice: the second pass
// is served from the cache).
func TestStemCacheAnalysesAsBleve(t *testing.T) {
	plain := mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)
	if plain == nil {
		t.Fatal("no English analyzer")
	}
	cached := withStemCache(mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName))
	var texts []string
	_, err := corpus.Walk(context.Background(), []string{"../testdata/corpora/sotu.jsonl.gz"}, corpus.Options{},
		func(d pipeline.Document) error {
			if len(texts) < 6 {
				texts = append(texts, d.Title+"\n"+d.Text)
			}
			return nil
		}, func(corpus.Problem) {})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, "The President's messages; running runners ran. Ünïcode café 1790s it's")
	type tok struct {
		Term       string
		Start, End int
		Pos        int
	}
	for pass := 0; pass < 2; pass++ {
		for _, s := range texts {
			var want, got []tok
			for _, tk := range plain.Analyze([]byte(s)) {
				want = append(want, tok{string(tk.Term), tk.Start, tk.End, tk.Position})
			}
			for _, tk := range cached.Analyze([]byte(s)) {
				got = append(got, tok{string(tk.Term), tk.Start, tk.End, tk.Position})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("pass %d: cached analysis differs (-bleve +cached)\n%s", pass, diff)
			}
		}
	}
	found := false
	for _, f := range cached.(*analysis.DefaultAnalyzer).TokenFilters {
		_, ok := f.(*stemCache)
		found = found || ok
	}
	if !found {
		t.Fatal("the Porter stemmer was not replaced by the remembering one")
	}
}

// TestMatchesAnalysesOnlyWhatCanMatch compares the highlighter's matches
// with those of analysing whole texts, over every passage of the demo
// corpus's first documents and query terms drawn from them (common and
// rare words, stems that rewrite their last letters, numbers), and over
// texts made to trip it.
func TestMatchesAnalysesOnlyWhatCanMatch(t *testing.T) {
	ix, err := Open(t.TempDir()+"/ix", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var texts []string
	_, err = corpus.Walk(context.Background(), []string{"../testdata/corpora/sotu.jsonl.gz"}, corpus.Options{},
		func(d pipeline.Document) error {
			if len(texts) < 400 {
				for _, s := range Segment(d.Text, pipeline.MaxPassageChars) {
					texts = append(texts, d.Text[s.Start:s.End])
				}
			}
			return nil
		}, func(corpus.Problem) {})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts,
		"The MOBILITY of the mobile army; valency, Valencies. Ability, abilities!",
		"U.S. citizens' rights—the President's (federal) \u201cgovernment\u201d\u00a0act 1,000.5 $140,000,000",
		"A \u212aelvin sign and \u0130stanbul, caf\u00e9 CAF\u00c9")
	queries := []string{"mobility ability valency", "government federal", "president right", "act 1,000.5 140,000,000",
		"kelvin istanbul", "café", "a the of", "relational conditional operators", "sizer gator"}
	for i := 0; i < len(texts); i += 37 {
		words := strings.Fields(texts[i])
		if len(words) > 3 {
			queries = append(queries, strings.Join(words[len(words)/2:len(words)/2+3], " "))
		}
	}
	for _, q := range queries {
		terms, _ := ix.QueryTerms(q)
		set := map[string]bool{}
		for _, tm := range terms {
			set[tm] = true
		}
		for _, text := range texts {
			want, got := ix.matchesAll(text, set), ix.matches(text, set)
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("query %q on %q: (-whole text +runs)\n%s", q, text, diff)
			}
		}
	}
}

// TestWordCachePublishesRepeatedMisses checks that words missed again and
// again are published even when no new word comes: a vocabulary's last
// few words (fewer than the eighth of the cache that publishing waits for)
// must not be filtered anew on every later occurrence.
func TestWordCachePublishesRepeatedMisses(t *testing.T) {
	w, ok := newAnalyzer(mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)).(*wordAnalyzer)
	if !ok {
		t.Fatal("the English analyzer is no wordAnalyzer")
	}
	// 100 distinct words publish at once (at least 64 misses).
	var first []string
	for i := 0; i < 100; i++ {
		first = append(first, "word"+strings.Repeat("x", i%10)+string(rune('a'+i/10)))
	}
	w.field(strings.Join(first, " "))
	if got := len(w.known()); got != 100 {
		t.Fatalf("%d words published after the first text, want 100", got)
	}
	// Three new words, then the same text again and again: each pass
	// misses them until they are published.
	again := "tariff reciprocity treaty"
	for i := 0; i < 30; i++ {
		w.field(again)
	}
	for _, word := range strings.Fields(again) {
		if _, ok := w.known()[word]; !ok {
			t.Errorf("%q, missed 30 times, is still not published", word)
		}
	}
	if f := w.field(again); f.length != 3 || len(f.freqs) != 3 {
		t.Errorf("field(%q) = length %d, %d terms; want 3 and 3", again, f.length, len(f.freqs))
	}
}

// BenchmarkAnalyzePassages measures the analysis of the demo corpus's
// passages into the field Bleve indexes, with the analyzer's words known
// already (as in a build past its first documents).
func BenchmarkAnalyzePassages(b *testing.B) {
	w, ok := newAnalyzer(mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)).(*wordAnalyzer)
	if !ok {
		b.Fatal("the English analyzer is no wordAnalyzer")
	}
	var texts []string
	var size int64
	_, err := corpus.Walk(context.Background(), []string{"../testdata/corpora/sotu.jsonl.gz"}, corpus.Options{},
		func(d pipeline.Document) error {
			for _, sp := range Segment(d.Text, 0) {
				texts = append(texts, d.Text[sp.Start:sp.End])
				size += int64(sp.End - sp.Start)
			}
			return nil
		}, func(corpus.Problem) {})
	if err != nil {
		b.Fatal(err)
	}
	for range 2 {
		for _, text := range texts {
			w.field(text)
		}
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, text := range texts {
			w.field(text)
		}
	}
}

// TestFreqsSize checks that a passage's field counts its memory as
// Bleve's TokenFrequencies.Size does.
func TestFreqsSize(t *testing.T) {
	w, ok := newAnalyzer(mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)).(*wordAnalyzer)
	if !ok {
		t.Fatal("the English analyzer is no wordAnalyzer")
	}
	for _, text := range []string{"", "the of and", "Tariffs and the tariff: reciprocity, treaties and a treaty of 1890."} {
		f := w.field(text)
		if want := 48 + f.freqs.Size(); f.Size() != want {
			t.Errorf("field(%q).Size() = %d, want %d", text, f.Size(), want)
		}
	}
}
