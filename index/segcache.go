package index

import (
	"container/list"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/crucible-portal/crucible/pipeline"
)

// The pruned scorer (topk.go) walks decoded postings with block-max
// bounds, which Bleve does not keep: Bleve's postings iterator decodes one
// posting at a time and its Advance steps through every posting it skips.
// So the first query of a term in a segment decodes the term's postings
// once into arrays (document numbers, term frequencies, and a bound per
// block of blockSize postings), and later queries reuse them. A segment's
// contents never change (deletions only hide postings, which the scorer
// checks), so an entry stays valid until the segment is merged away or the
// collection's average length moves (the bounds depend on it). Entries
// live in one LRU bounded in bytes (Options.PostingsCacheBytes); an
// evicted term is decoded again on its next query.

// blockSize is the number of postings one block-max entry covers. Smaller
// blocks bound more tightly and cost more memory.
const blockSize = 64

// DefaultPostingsCacheBytes bounds the decoded postings kept in memory:
// the demo corpus's whole index takes about 6 MiB of it.
const DefaultPostingsCacheBytes = 256 << 20

// termPostings is one term's decoded postings in one segment, deleted ones
// included, and its bounds for the average length they were computed with.
type termPostings struct {
	avgdl float64
	docs  []uint32 // document numbers, ascending
	tf16  []uint16 // term frequencies (tf32 instead when one exceeds 65535)
	tf32  []uint32
	// bmax[i] bounds the normalised term frequency
	// tf·(k1+1)/(tf+k1·(1−b+b·dl/avgdl)) of postings [i·blockSize, (i+1)·blockSize).
	bmax []float32
	max  float64 // the largest bound
}

func (t *termPostings) tf(i int) uint32 {
	if t.tf16 != nil {
		return uint32(t.tf16[i])
	}
	return t.tf32[i]
}

func (t *termPostings) bytes() int64 {
	return int64(4*len(t.docs) + 2*len(t.tf16) + 4*len(t.tf32) + 4*len(t.bmax) + 96)
}

// segState is what the scorer keeps about one segment. The segment itself
// is not kept: the same segment (same id, same contents) is reopened from
// disk once it is persisted, so readers pass the snapshot's own.
type segState struct {
	id    uint64
	count uint64 // documents in the segment, deleted ones included
	// lens holds passage lengths by document number (0: not yet seen),
	// filled as terms are decoded; written and read atomically.
	lens []uint32

	mu    sync.Mutex
	terms map[string]*termEntry

	docsOnce sync.Once
	docOrd   []uint32 // document number → document ordinal (docTable)
	docsErr  error
}

// termEntry is a termPostings being decoded or decoded (single flight).
type termEntry struct {
	once sync.Once
	tp   *termPostings
	err  error
	// LRU bookkeeping, under segCache.mu.
	elem *list.Element
	seg  *segState
	term string
}

// segCache holds the segStates of the live segments, keyed by the
// segment's id in the index, the LRU of decoded postings, and the table of
// document ids the ordinals index.
type segCache struct {
	mu    sync.Mutex
	segs  map[uint64]*segState
	lru   list.List // of *termEntry, most recent at the front
	bytes int64
	limit int64 // ≤ 0: DefaultPostingsCacheBytes

	docs docTable
}

// docTable interns document ids: ordinals are dense and never reused.
type docTable struct {
	mu  sync.RWMutex
	ord map[string]uint32
	ids []string
}

func (t *docTable) intern(id string) uint32 {
	t.mu.RLock()
	o, ok := t.ord[id]
	t.mu.RUnlock()
	if ok {
		return o
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if o, ok := t.ord[id]; ok {
		return o
	}
	if t.ord == nil {
		t.ord = map[string]uint32{}
	}
	o = uint32(len(t.ids))
	t.ord[id] = o
	t.ids = append(t.ids, id)
	return o
}

func (t *docTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.ids)
}

// state returns the segState of a segment, dropping the states of
// segments no longer live (merged away), with their cached postings.
func (c *segCache) state(id uint64, seg segment.Segment, live func(uint64) bool) *segState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.segs == nil {
		c.segs = map[uint64]*segState{}
	}
	s, ok := c.segs[id]
	if ok && s.count == seg.Count() {
		return s
	}
	for old, os := range c.segs {
		if !live(old) || old == id {
			c.dropLocked(os)
			delete(c.segs, old)
		}
	}
	s = &segState{id: id, count: seg.Count(), terms: map[string]*termEntry{}, lens: make([]uint32, seg.Count())}
	c.segs[id] = s
	return s
}

// dropLocked forgets a segment's cached postings.
func (c *segCache) dropLocked(s *segState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for term, e := range s.terms {
		if e.elem != nil {
			c.lru.Remove(e.elem)
			c.bytes -= e.tp.bytes()
			e.elem = nil
		}
		delete(s.terms, term)
	}
}

// postings returns the decoded postings of term in a segment, decoding
// them on first use.
func (c *segCache) postings(s *segState, dict segment.TermDictionary, term string, avgdl, k1, b float64) (*termPostings, error) {
	for {
		s.mu.Lock()
		e, ok := s.terms[term]
		if !ok {
			e = &termEntry{seg: s, term: term}
			s.terms[term] = e
		}
		s.mu.Unlock()
		fresh := false
		e.once.Do(func() {
			e.tp, e.err = decode(s, dict, term, avgdl, k1, b)
			fresh = true
		})
		if e.err != nil {
			s.mu.Lock()
			if s.terms[term] == e {
				delete(s.terms, term)
			}
			s.mu.Unlock()
			return nil, e.err
		}
		if e.tp.avgdl == avgdl {
			c.touch(e, fresh)
			return e.tp, nil
		}
		// Decoded for another average length (the collection changed):
		// decode again, unless someone already has.
		c.mu.Lock()
		s.mu.Lock()
		if s.terms[term] == e {
			delete(s.terms, term)
			if e.elem != nil {
				c.lru.Remove(e.elem)
				c.bytes -= e.tp.bytes()
				e.elem = nil
			}
		}
		s.mu.Unlock()
		c.mu.Unlock()
	}
}

// touch marks an entry used, adding it to the LRU when fresh, and evicts
// the least recently used entries over the limit.
func (c *segCache) touch(e *termEntry, fresh bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.elem != nil {
		c.lru.MoveToFront(e.elem)
		return
	}
	if !fresh {
		return // evicted while in use, or dropped with its segment
	}
	if cur, ok := c.segs[e.seg.id]; !ok || cur != e.seg {
		return // its segment is gone
	}
	e.elem = c.lru.PushFront(e)
	c.bytes += e.tp.bytes()
	limit := c.limit
	if limit <= 0 {
		limit = DefaultPostingsCacheBytes
	}
	for c.bytes > limit && c.lru.Len() > 1 {
		old := c.lru.Back().Value.(*termEntry)
		c.lru.Remove(old.elem)
		old.elem = nil
		c.bytes -= old.tp.bytes()
		old.seg.mu.Lock()
		if old.seg.terms[old.term] == old {
			delete(old.seg.terms, old.term)
		}
		old.seg.mu.Unlock()
	}
}

// tfNorm is BM25's saturated, length-normalised term frequency (the
// scorer's contribution without the term weight).
func tfNorm(tf, dl, avgdl, k1, b float64) float64 {
	return tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl))
}

// normLength turns Bleve's stored norm (1/√length, a float32) back into
// the length.
func normLength(norm float64) float64 {
	if norm > 0 {
		return math.Round(1 / (norm * norm))
	}
	return 1
}

// decode reads a term's postings in a segment (deleted ones included) into
// arrays, recording the passages' lengths on the way.
func decode(s *segState, dict segment.TermDictionary, term string, avgdl, k1, b float64) (*termPostings, error) {
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("search term %q: %w", term, err)
	}
	n := int(pl.Count())
	tp := &termPostings{avgdl: avgdl, docs: make([]uint32, 0, n), tf16: make([]uint16, 0, n)}
	it := pl.Iterator(true, true, false, nil)
	var bmax float32
	for {
		p, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("search term %q: %w", term, err)
		}
		if p == nil {
			break
		}
		num, tf := p.Number(), p.Frequency()
		dl := normLength(p.Norm())
		if num >= uint64(len(s.lens)) || num > math.MaxUint32 {
			return nil, fmt.Errorf("search term %q: document number %d beyond the segment's %d", term, num, len(s.lens))
		}
		atomic.StoreUint32(&s.lens[num], uint32(dl))
		tp.docs = append(tp.docs, uint32(num))
		switch {
		case tp.tf32 != nil:
			tp.tf32 = append(tp.tf32, uint32(tf))
		case tf > math.MaxUint16:
			tp.tf32 = make([]uint32, len(tp.tf16), n)
			for i, v := range tp.tf16 {
				tp.tf32[i] = uint32(v)
			}
			tp.tf16 = nil
			tp.tf32 = append(tp.tf32, uint32(tf))
		default:
			tp.tf16 = append(tp.tf16, uint16(tf))
		}
		f := tfNorm(float64(tf), dl, avgdl, k1, b)
		f32 := float32(f)
		if float64(f32) < f { // round up: the float32 must stay a bound
			f32 = math.Nextafter32(f32, float32(math.Inf(1)))
		}
		bmax = max(bmax, f32)
		if len(tp.docs)%blockSize == 0 {
			tp.bmax = append(tp.bmax, bmax)
			tp.max = max(tp.max, float64(bmax))
			bmax = 0
		}
	}
	if len(tp.docs)%blockSize != 0 {
		tp.bmax = append(tp.bmax, bmax)
		tp.max = max(tp.max, float64(bmax))
	}
	return tp, nil
}

// docOrdinals maps the segment's document numbers to document ordinals,
// reading every passage id once (the first document-level search of a
// segment pays for it).
func (s *segState) docOrdinals(seg segment.Segment, t *docTable) ([]uint32, error) {
	s.docsOnce.Do(func() {
		n := s.count
		ord := make([]uint32, n)
		var last string
		var lastOrd uint32
		for i := uint64(0); i < n; i++ {
			raw, err := seg.DocID(i)
			if err != nil {
				s.docsErr = fmt.Errorf("search: read passage id %d: %w", i, err)
				return
			}
			docID, _, err := pipeline.ParsePassageID(string(raw))
			if err != nil {
				s.docsErr = fmt.Errorf("search: %w", err)
				return
			}
			if i == 0 || docID != last {
				last, lastOrd = docID, t.intern(docID)
			}
			ord[i] = lastOrd
		}
		s.docOrd = ord
	})
	return s.docOrd, s.docsErr
}
