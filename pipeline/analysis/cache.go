// Package analysis keeps the analysed terms of texts so that each text is
// analysed once: a passage's terms are computed the first time any stage
// asks for them (scanning, the evidence feature, the offline engine's
// extraction and verification, the rerankers) and reused by every nugget
// of a run and by every later run of the process.
//
// Cache memoises a text analyzer (the index's English analyzer: lower
// case, stop words removed, stemmed) and a sentence splitter, keyed by the
// text's content: a 128-bit hash of its bytes. Keying by content rather
// than by passage id keeps it right when a document is re-ingested with
// new text, and lets the offline engine, which receives passage text and
// no id, find what the pipeline computed. On a miss, callers asking for
// the same text at once wait for one analysis (single flight). The cache
// is bounded by an estimate of the memory it holds (Options.MaxBytes):
// entries live in two generations, and when the newer one holds half the
// bound the older one is dropped, so what was used least recently goes
// first.
//
// The slices and sets it returns are shared by every caller: they must
// only be read. (Slices are returned with their capacity cut to their
// length, so an append copies rather than writing into the cache.)
package analysis

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/crucible-portal/crucible/pipeline"
)

// Set is the distinct terms of a text in sorted order: a third of the
// memory of a map of them, and as quick to ask for the few terms of a
// nugget.
type Set []string

// NewSet returns the set of terms (a new slice; terms is not changed).
func NewSet(terms []string) Set {
	s := slices.Clone(terms)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) < cap(s) {
		// Kept in the cache: no room for the duplicates.
		s = append(make([]string, 0, len(s)), s...)
	}
	return Set(s)
}

// Has reports whether the set holds t.
func (s Set) Has(t string) bool {
	_, ok := slices.BinarySearch(s, t)
	return ok
}

// DefaultMaxBytes is the default bound of a Cache. The demo corpus
// (12,424 passages) takes 16 MiB for the term sets of all its passages and
// 46 MiB with the terms, sets and sentence spans of all their sentences
// too (docs/benchmarks.md §5); a report touches a part of that.
const DefaultMaxBytes = 64 << 20

// Options configure a Cache.
type Options struct {
	// MaxBytes bounds the memory the cache's entries are estimated to
	// hold (0: DefaultMaxBytes). The estimate counts the terms, set
	// entries and spans an entry keeps and a fixed overhead per entry.
	MaxBytes int
}

// Stats describe a cache's use since it was made.
type Stats struct {
	// Entries is the number of texts the cache holds, Bytes their
	// estimated memory.
	Entries, Bytes int
	// Analyses counts the calls of the analyzer, Splits those of the
	// sentence splitter; Hits the lookups answered without either.
	Analyses, Splits, Hits int
	// Evictions counts the entries dropped to stay within MaxBytes.
	Evictions int
}

// Cache memoises Terms, TermSet and Sentences of texts; safe for
// concurrent use.
type Cache struct {
	terms     func(string) []string
	sentences func(string) []pipeline.Span
	maxBytes  int
	seeds     [2]maphash.Seed

	mu sync.Mutex
	// cur and old are the two generations; a text found in old moves to
	// cur. curBytes is what cur's entries hold.
	cur, old map[key]*entry
	curBytes int
	oldBytes int
	stats    Stats

	// vocab holds one copy of every term of the entries made since the
	// last rotation (see intern), guarded by vmu; it starts over with
	// each generation, so it stays within the bound too.
	vmu   sync.Mutex
	vocab map[string]string
}

// key is a text's 128-bit content hash and its length.
type key struct {
	h1, h2 uint64
	n      int
}

// entry is what the cache knows of one text; each part is computed once,
// on first demand.
type entry struct {
	termsOnce sync.Once
	terms     []string
	termsDone atomic.Bool // terms is set
	setOnce   sync.Once
	set       Set
	spansOnce sync.Once
	spans     []pipeline.Span
	// bytes is the entry's estimated size so far (guarded by Cache.mu).
	bytes int
}

// entryOverhead estimates an entry's fixed cost: the entry, its map slot
// and its key.
const entryOverhead = 192

// New returns a cache over an analyzer (terms: a text's index terms in
// order) and a sentence splitter (sentences, may be nil when Sentences is
// never called).
func New(terms func(string) []string, sentences func(string) []pipeline.Span, o Options) *Cache {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return &Cache{
		terms: terms, sentences: sentences, maxBytes: o.MaxBytes,
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		cur:   map[key]*entry{}, old: map[key]*entry{}, vocab: map[string]string{},
	}
}

// Terms returns the analyzer's terms of text, in order (shared: read
// only).
func (c *Cache) Terms(text string) []string {
	e, hit := c.entry(text)
	computed := false
	e.termsOnce.Do(func() {
		computed = true
		ts, vocab := c.intern(c.terms(text))
		e.terms = ts[:len(ts):len(ts)]
		e.termsDone.Store(true)
		c.grow(e, sliceBytes(len(ts))+vocab, true, false)
	})
	if !computed && hit {
		c.hit()
	}
	return e.terms
}

// TermSet returns the distinct terms of text, sorted (shared: read only).
// It is made from the text's terms when the cache holds them; otherwise
// the text is analysed for the set alone, and its list of terms is not
// kept.
func (c *Cache) TermSet(text string) Set {
	e, hit := c.entry(text)
	computed := false
	e.setOnce.Do(func() {
		computed = true
		ts, analysed := e.termsIfDone()
		vocab := 0
		if !analysed {
			ts, vocab = c.intern(c.terms(text))
		}
		e.set = NewSet(ts)
		c.grow(e, sliceBytes(len(e.set))+vocab, !analysed, false)
	})
	if !computed && hit {
		c.hit()
	}
	return e.set
}

// Sentences returns the sentence spans of text (shared: read only).
func (c *Cache) Sentences(text string) []pipeline.Span {
	e, hit := c.entry(text)
	computed := false
	e.spansOnce.Do(func() {
		computed = true
		sp := c.sentences(text)
		e.spans = sp[:len(sp):len(sp)]
		c.grow(e, 24+16*len(sp), false, true)
	})
	if !computed && hit {
		c.hit()
	}
	return e.spans
}

// Stats returns the cache's figures so far.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = len(c.cur) + len(c.old)
	s.Bytes = c.curBytes + c.oldBytes
	return s
}

// termsIfDone returns the entry's terms when they have been computed.
func (e *entry) termsIfDone() ([]string, bool) {
	if !e.termsDone.Load() {
		return nil, false
	}
	return e.terms, true
}

// entry finds or makes the entry of text; hit is false when it is new.
func (c *Cache) entry(text string) (*entry, bool) {
	k := key{maphash.String(c.seeds[0], text), maphash.String(c.seeds[1], text), len(text)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur[k]; ok {
		return e, true
	}
	if e, ok := c.old[k]; ok {
		delete(c.old, k)
		c.oldBytes -= e.bytes
		c.cur[k] = e
		c.curBytes += e.bytes
		c.rotate()
		return e, true
	}
	e := &entry{bytes: entryOverhead}
	c.cur[k] = e
	c.curBytes += e.bytes
	c.rotate()
	return e, false
}

// grow adds what an entry's new part holds and counts the work done.
func (c *Cache) grow(e *entry, bytes int, analysed, split bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.bytes += bytes
	c.curBytes += bytes // the entry may have moved to old since: an estimate
	if analysed {
		c.stats.Analyses++
	}
	if split {
		c.stats.Splits++
	}
	c.rotate()
}

func (c *Cache) hit() {
	c.mu.Lock()
	c.stats.Hits++
	c.mu.Unlock()
}

// rotate drops the older generation once the newer one holds half the
// bound; c.mu is held.
func (c *Cache) rotate() {
	if c.curBytes < c.maxBytes/2 {
		return
	}
	c.stats.Evictions += len(c.old)
	c.old, c.oldBytes = c.cur, c.curBytes
	c.cur, c.curBytes = map[key]*entry{}, 0
	c.vmu.Lock()
	c.vocab = map[string]string{}
	c.vmu.Unlock()
}

// intern replaces each term by the copy the cache already holds, so the
// entries share one string per distinct term; it returns the estimated
// memory of the terms it had not seen.
func (c *Cache) intern(ts []string) ([]string, int) {
	c.vmu.Lock()
	defer c.vmu.Unlock()
	added := 0
	for i, t := range ts {
		if v, ok := c.vocab[t]; ok {
			ts[i] = v
			continue
		}
		c.vocab[t] = t
		added += vocabBytes + round8(len(t))
	}
	return ts, added
}

// vocabBytes estimates the cost of a term in the vocabulary, besides its
// bytes: its map slot (key and value string headers) and their overhead.
const vocabBytes = 48

// sliceBytes estimates the memory of a slice of n strings that share
// their bytes with the vocabulary.
func sliceBytes(n int) int { return 24 + 16*n }

func round8(n int) int { return (n + 7) &^ 7 }
