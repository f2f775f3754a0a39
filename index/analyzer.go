package index

import (
	"bytes"
	"maps"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	bleve_index_api "github.com/blevesearch/bleve_index_api"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// withStemCache returns the analyzer with its Porter stemmer replaced by
// one that remembers the stems it has computed. Stemming is a pure
// function of the word, and words repeat (most tokens of a collection are
// a few thousand words), so analysis gives the same terms with most of the
// stemming skipped. An analyzer of another shape is returned as it is.
func withStemCache(a analysis.Analyzer) analysis.Analyzer {
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok {
		return a
	}
	out := *da
	out.TokenFilters = append([]analysis.TokenFilter(nil), da.TokenFilters...)
	replaced := false
	for i, f := range out.TokenFilters {
		if _, ok := f.(*porter.PorterStemmer); ok {
			out.TokenFilters[i] = &stemCache{}
			replaced = true
		}
	}
	if !replaced {
		return a
	}
	return &out
}

// stemCacheMax bounds the remembered words; past it, new words are
// stemmed every time (a collection's vocabulary of real words is far
// smaller; numbers and names are what grow it).
const stemCacheMax = 1 << 20

// stemCache is a Porter stemmer token filter with a memory. Readers look
// words up in an immutable map without locking; the words a call had to
// stem are gathered and published in a new map once calls have missed an
// eighth of the map's size since the last time (see grownCopy), so
// copying costs O(1) per miss overall.
type stemCache struct {
	cur     atomic.Pointer[map[string][]byte] // word → stem, never modified
	mu      sync.Mutex
	pending map[string][]byte
	misses  int // lookups missed since the last publication
}

// Filter stems every token that is not a keyword, as Bleve's Porter
// filter does.
func (s *stemCache) Filter(input analysis.TokenStream) analysis.TokenStream {
	var known map[string][]byte
	if m := s.cur.Load(); m != nil {
		known = *m
	}
	var missed [][2][]byte
	for _, t := range input {
		if t.KeyWord {
			continue
		}
		if v, ok := known[string(t.Term)]; ok {
			t.Term = v
			continue
		}
		stem := analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(t.Term)))
		if len(known) < stemCacheMax {
			missed = append(missed, [2][]byte{[]byte(string(t.Term)), stem})
		}
		t.Term = stem
	}
	if len(missed) > 0 {
		s.remember(missed)
	}
	return input
}

func (s *stemCache) remember(words [][2][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending = map[string][]byte{}
	}
	for _, w := range words {
		s.pending[string(w[0])] = w[1]
	}
	s.misses += len(words)
	var known map[string][]byte
	if m := s.cur.Load(); m != nil {
		known = *m
	}
	if next := grownCopy(known, s.pending, s.misses, stemCacheMax); next != nil {
		s.cur.Store(&next)
		s.pending, s.misses = nil, 0
	}
}

// grownCopy returns a new map holding known and pending once the lookups
// missed since the last publication (misses) come to an eighth of known
// (at least 64), so that publishing copies O(1) entries per miss; nil
// before, when pending is empty, or when known holds limit entries
// already. Misses are counted rather than pending words: a word that
// waits in pending is missed again by every lookup until it is
// published, so counting it once would leave the last words of a
// collection's vocabulary unpublished for the rest of a build.
func grownCopy[V any](known, pending map[string]V, misses, limit int) map[string]V {
	if len(pending) == 0 || misses < max(64, len(known)/8) || len(known) >= limit {
		return nil
	}
	next := make(map[string]V, len(known)+len(pending))
	maps.Copy(next, known)
	maps.Copy(next, pending)
	return next
}

// wordAnalyzer is the English analyzer with its work per word remembered.
// Its filters (possessive, lower case, stop words, Porter stemmer) each
// map one token's text to a new text or drop it, looking at nothing else,
// so the chain is a function of the word as the tokenizer cut it: the
// first time a word is seen the filters run on it alone, and the result
// (the term, or that it is dropped) is kept. Later occurrences cost one
// map lookup, and the index's term-frequency fields reuse the term's
// string. The tokenizer is eachWord, Bleve's Unicode tokenizer with a
// fast path for ASCII. Terms, offsets and positions are Bleve's
// (TestStemCacheAnalysesAsBleve).
type wordAnalyzer struct {
	filters []analysis.TokenFilter
	cur     atomic.Pointer[map[string]*word] // never modified once published
	mu      sync.Mutex
	pending map[string]*word
	misses  int // lookups missed since the last publication
}

// word is what the filters make of a word: its term, or dropped.
type word struct {
	term    []byte
	str     string // string(term), the key of term-frequency maps
	dropped bool
}

// newAnalyzer returns the analyzer Crucible runs for a as Bleve built it:
// a wordAnalyzer when a is a plain Unicode-tokenizer analyzer, else a
// with its stemmer remembering (withStemCache).
func newAnalyzer(a analysis.Analyzer) analysis.Analyzer {
	a = withStemCache(a)
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(da.CharFilters) > 0 {
		return a
	}
	if _, ok := da.Tokenizer.(*unicode.UnicodeTokenizer); !ok {
		return a
	}
	return &wordAnalyzer{filters: da.TokenFilters}
}

// wordCacheMax bounds the remembered words (raw forms: "The" and "the"
// are two); past it, new words are filtered every time.
const wordCacheMax = 1 << 20

func (w *wordAnalyzer) known() map[string]*word {
	if m := w.cur.Load(); m != nil {
		return *m
	}
	return nil
}

// filter runs the filters on one word (a copy: lower-casing writes in
// place).
func (w *wordAnalyzer) filter(term []byte, typ analysis.TokenType) *word {
	t := &analysis.Token{Term: append([]byte(nil), term...), Start: 0, End: len(term), Position: 1, Type: typ}
	ts := analysis.TokenStream{t}
	for _, f := range w.filters {
		ts = f.Filter(ts)
	}
	if len(ts) == 0 {
		return &word{dropped: true}
	}
	out := ts[0].Term
	return &word{term: out, str: string(out)}
}

// missed gathers the words one call had to filter.
type missed struct {
	raw string
	w   *word
}

// lookup returns what the filters make of term, from known or computed
// (and then added to *miss).
func (w *wordAnalyzer) lookup(known map[string]*word, term []byte, typ analysis.TokenType, miss *[]missed) *word {
	if wd, ok := known[string(term)]; ok {
		return wd
	}
	wd := w.filter(term, typ)
	if len(known) < wordCacheMax {
		*miss = append(*miss, missed{string(term), wd})
	}
	return wd
}

// Analyze analyses input as Bleve's English analyzer does.
func (w *wordAnalyzer) Analyze(input []byte) analysis.TokenStream {
	ts := tokenize(input)
	known := w.known()
	var miss []missed
	j := 0
	for _, t := range ts {
		wd := w.lookup(known, t.Term, t.Type, &miss)
		if wd.dropped {
			continue
		}
		t.Term = wd.term
		ts[j] = t
		j++
	}
	w.remember(miss)
	return ts[:j]
}

// field analyses a passage's text into the field Bleve indexes: what
// newTermsField makes of Analyze's tokens, without making the tokens.
func (w *wordAnalyzer) field(text string) *termsField {
	known := w.known()
	var miss []missed
	f := &termsField{bytes: uint64(len(text)), freqs: make(bleve_index_api.TokenFrequencies, len(text)/16+1)}
	var slab []bleve_index_api.TokenFreq
	termBytes := 0
	// The words are only read (a cached word keeps copies), so the text's
	// own bytes serve.
	eachWord(unsafe.Slice(unsafe.StringData(text), len(text)), func(term []byte, _, _ int, typ analysis.TokenType) {
		wd := w.lookup(known, term, typ, &miss)
		if wd.dropped {
			return
		}
		f.length++
		tf, ok := f.freqs[wd.str]
		if !ok {
			if len(slab) == 0 {
				slab = make([]bleve_index_api.TokenFreq, 32)
			}
			tf, slab = &slab[0], slab[1:]
			tf.Term = wd.term
			f.freqs[wd.str] = tf
			termBytes += len(wd.str)
		}
		tf.SetFrequency(tf.Frequency() + 1)
	})
	w.remember(miss)
	f.size = 48 + freqsSize(len(f.freqs), termBytes)
	return f
}

// freqsSize is what Bleve's TokenFrequencies.Size says of n terms of
// termBytes bytes in all, without locations (TestFreqsSize), without
// going through the map again: its fixed size, each entry's, and each
// term's bytes twice (the key and the term).
func freqsSize(n, termBytes int) int {
	return freqsBaseSize + n*freqsEntrySize + 2*termBytes
}

var (
	freqsBaseSize  = bleve_index_api.TokenFrequencies{}.Size()
	freqsEntrySize = bleve_index_api.TokenFrequencies{"": &bleve_index_api.TokenFreq{}}.Size() - freqsBaseSize
)

// remember publishes the words a call filtered, in a new map once calls
// have missed an eighth of the map's size since the last publication:
// O(1) copying per miss.
func (w *wordAnalyzer) remember(words []missed) {
	if len(words) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[string]*word{}
	}
	for _, m := range words {
		w.pending[m.raw] = m.w
	}
	w.misses += len(words)
	known := w.known()
	if next := grownCopy(known, w.pending, w.misses, wordCacheMax); next != nil {
		w.cur.Store(&next)
		w.pending, w.misses = nil, 0
	}
}
