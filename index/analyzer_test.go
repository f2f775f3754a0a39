package index

import (
	"context"
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
