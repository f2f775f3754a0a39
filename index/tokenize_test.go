package index

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	bleve_index_api "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/corpus"
)

type testToken struct {
	Term       string
	Start, End int
	Pos        int
	Type       analysis.TokenType
}

func testTokens(ts analysis.TokenStream) []testToken {
	out := []testToken{}
	for _, t := range ts {
		out = append(out, testToken{string(t.Term), t.Start, t.End, t.Position, t.Type})
	}
	return out
}

// demoTexts is every passage of the demo corpus (title first, as indexed).
func demoTexts(t testing.TB) []string {
	var texts []string
	_, err := corpus.Walk(context.Background(), []string{"../testdata/corpora/sotu.jsonl.gz"}, corpus.Options{},
		func(d pipeline.Document) error {
			for _, s := range Segment(d.Text, pipeline.MaxPassageChars) {
				texts = append(texts, d.Title+"\n"+d.Text[s.Start:s.End])
			}
			return nil
		}, func(corpus.Problem) {})
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// randomTexts are texts drawn from the characters word segmentation treats
// specially: letters, digits, the middle and joining punctuation, white
// space, and non-ASCII letters, marks, quotes, ideographs, kana, Hebrew
// and invalid UTF-8.
func randomTexts(n int, seed uint64) []string {
	pieces := []string{"a", "B", "z", "e", "s", "S", "0", "7", "_", ".", ":", "'", ",", ";", "\"", "-", "!", "(", "$",
		" ", " ", "\t", "\n", "\r", "\r\n", "\v", "\f",
		"é", "É", "ß", "\u0301", "\u200d", "\u00ad", "’", "‘", "—", "\u00a0", "中", "文", "カ", "ひ", "א", "ב", "٣", "\u00b7", "\u2024",
		"\xff", "\xc3", "the", "The", "'s", "’s", "I", "1,000.5", "U.S.", "don't"}
	r := rand.New(rand.NewPCG(seed, 29))
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for k := r.IntN(24); k >= 0; k-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[i] = sb.String()
	}
	return out
}

// TestTokenizeAsBleve checks eachWord cuts words as Bleve's Unicode
// tokenizer does — terms, offsets, positions and types — over every passage
// of the demo corpus and 200,000 random texts (CRUCIBLE_TOKENIZE_TEXTS=n
// for n of them, drawn afresh).
func TestTokenizeAsBleve(t *testing.T) {
	bleveTok := unicode.NewUnicodeTokenizer()
	n, seed := 200000, uint64(14)
	if v, err := strconv.Atoi(os.Getenv("CRUCIBLE_TOKENIZE_TEXTS")); err == nil && v > 0 {
		n, seed = v, uint64(time.Now().UnixNano())
		t.Logf("%d random texts, seed %d", n, seed)
	}
	texts := append(demoTexts(t), randomTexts(n, seed)...)
	for _, s := range texts {
		want := testTokens(bleveTok.Tokenize([]byte(s)))
		got := testTokens(tokenize([]byte(s)))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: (-bleve +eachWord)\n%s", s, diff)
		}
	}
}

// TestWordAnalyzerAsBleve checks the analyzer Crucible runs gives Bleve's
// English analysis, and the index's fields Bleve's term frequencies, over
// every passage of the demo corpus and random texts (twice: the second
// pass is served from the remembered words).
func TestWordAnalyzerAsBleve(t *testing.T) {
	plain := mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)
	wa, ok := newAnalyzer(mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)).(*wordAnalyzer)
	if !ok {
		t.Fatal("the English analyzer is not analysed word by word")
	}
	texts := append(demoTexts(t), randomTexts(50000, 15)...)
	type freq struct {
		Term string
		N    int
	}
	for pass := 0; pass < 2; pass++ {
		for _, s := range texts {
			ref := plain.Analyze([]byte(s))
			want := testTokens(ref)
			if diff := cmp.Diff(want, testTokens(wa.Analyze([]byte(s)))); diff != "" {
				t.Fatalf("pass %d, %q: (-bleve +word analyzer)\n%s", pass, s, diff)
			}
			wf, gf := newTermsField(ref, len(s)), wa.field(s)
			if wf.length != gf.length || wf.bytes != gf.bytes || wf.size != gf.size {
				t.Fatalf("pass %d, %q: field length/bytes/size %d/%d/%d, want %d/%d/%d", pass, s,
					gf.length, gf.bytes, gf.size, wf.length, wf.bytes, wf.size)
			}
			flat := func(m bleve_index_api.TokenFrequencies) map[string]freq {
				out := map[string]freq{}
				for k, v := range m {
					out[k] = freq{string(v.Term), v.Frequency()}
				}
				return out
			}
			if diff := cmp.Diff(flat(wf.freqs), flat(gf.freqs)); diff != "" {
				t.Fatalf("pass %d, %q: frequencies (-bleve +word analyzer)\n%s", pass, s, diff)
			}
		}
	}
}
