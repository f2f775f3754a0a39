package index

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
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
// stem are gathered and published in a new map once there are enough of
// them (an eighth of the map), so copying costs O(1) per word overall.
type stemCache struct {
	cur     atomic.Pointer[map[string][]byte] // word → stem, never modified
	mu      sync.Mutex
	pending map[string][]byte
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
	var known map[string][]byte
	if m := s.cur.Load(); m != nil {
		known = *m
	}
	if len(s.pending) < max(64, len(known)/8) || len(known) >= stemCacheMax {
		return
	}
	next := make(map[string][]byte, len(known)+len(s.pending))
	for k, v := range known {
		next[k] = v
	}
	for k, v := range s.pending {
		next[k] = v
	}
	s.cur.Store(&next)
	s.pending = nil
}
