package index

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/crucible-portal/crucible/pipeline"
)

// Top-k retrieval with dynamic pruning (block-max MaxScore).
//
// The query's terms are sorted by their largest possible contribution in a
// segment. While the k best scores so far have a floor θ, the terms whose
// bounds together stay below θ are "non-essential": a passage holding only
// those cannot reach the top k, so only the essential terms' postings are
// walked, and the others are probed by Advance for the passages the walk
// finds. Each term's postings are cut into blocks of blockSize with their
// own bound; a window of documents whose blocks' bounds sum below θ is
// skipped with Advance, without decoding its postings.
//
// Scores are exact: a passage that is scored fully is scored with the same
// arithmetic, in the same term order, as the exhaustive scorer
// (scoreExhaustive), and a passage is only skipped when a bound proves it
// below θ, so ties at the cut are scored and ordered by passage id as
// before. The tests compare both scorers on the standard collections.

// boundSlack inflates bounds by a relative margin that covers the rounding
// of the scorer's arithmetic, so a bound is never below a true score.
const boundSlack = 1 + 1e-9

// cursor walks one term's decoded postings in one segment.
type cursor struct {
	order int     // the term's position in the query (scores sum in this order)
	w     float64 // qtf·idf
	ub    float64 // w · the term's largest normalised tf in the segment
	tp    *termPostings
	pos   int
	doc   uint64 // docs[pos]; exhausted when done
}

const exhausted = math.MaxUint64

func (c *cursor) setPos(pos int) {
	c.pos = pos
	if pos >= len(c.tp.docs) {
		c.doc = exhausted
		return
	}
	c.doc = uint64(c.tp.docs[pos])
}

func (c *cursor) next() { c.setPos(c.pos + 1) }

// advance moves to the first posting at or after target: over whole
// blocks by their last document, then by binary search inside the block.
func (c *cursor) advance(target uint64) {
	docs := c.tp.docs
	pos := c.pos
	for {
		end := min((pos/blockSize+1)*blockSize, len(docs))
		if end == len(docs) || uint64(docs[end-1]) >= target {
			lo, hi := pos, end
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if uint64(docs[m]) < target {
					lo = m + 1
				} else {
					hi = m
				}
			}
			c.setPos(lo)
			return
		}
		pos = end
	}
}

// blockEnd is the last document of the cursor's current block.
func (c *cursor) blockEnd() uint64 {
	end := min((c.pos/blockSize+1)*blockSize, len(c.tp.docs))
	return uint64(c.tp.docs[end-1])
}

// blockBound bounds the cursor's contribution up to its block's end.
func (c *cursor) blockBound() float64 {
	return c.w * float64(c.tp.bmax[c.pos/blockSize]) * boundSlack
}

// contribution is the cursor's BM25 contribution at its current posting,
// with the exhaustive scorer's arithmetic (scoreTerm).
func (c *cursor) contribution(lens []uint32, k1, b, avgdl float64) float64 {
	dl := float64(atomic.LoadUint32(&lens[c.doc]))
	tf := float64(c.tp.tf(c.pos))
	return c.w * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl))
}

// hitRef is a scored passage not yet resolved to its id.
type hitRef struct {
	seg   int // index of the segment in the snapshot
	num   uint64
	doc   uint32 // document ordinal (document mode)
	score float64
}

// collector keeps the passages (or documents) that may still make the top
// k: theta is the k-th best score so far, and every hit scoring at least
// theta is kept so ties at the cut can be ordered by id at the end.
type collector struct {
	k     int
	docs  bool
	top   floatHeap // the k best scores (passages) — a min-heap
	theta float64
	cands []hitRef
	// Document mode: the best hit of each document still in the running.
	best map[uint32]int // document ordinal → index in cands
	// resolve gives a hit's passage id (document mode ties).
	resolve func(hitRef) (string, error)
}

func newCollector(k int, docs bool, resolve func(hitRef) (string, error)) *collector {
	c := &collector{k: k, docs: docs, theta: math.Inf(-1), resolve: resolve}
	if docs {
		c.best = map[uint32]int{}
	}
	return c
}

// add offers a fully scored hit (score ≥ theta).
func (c *collector) add(h hitRef) error {
	if !c.docs {
		switch {
		case len(c.top) < c.k:
			heap.Push(&c.top, h.score)
		case h.score > c.top[0]:
			c.top[0] = h.score
			heap.Fix(&c.top, 0)
		case h.score < c.top[0]:
			return nil
		}
		if len(c.top) == c.k {
			c.theta = c.top[0]
		}
		c.cands = append(c.cands, h)
		if len(c.cands) > 4*c.k+64 {
			c.compact()
		}
		return nil
	}
	if i, ok := c.best[h.doc]; ok {
		cur := c.cands[i]
		switch {
		case h.score > cur.score:
			c.cands[i] = h
		case h.score == cur.score:
			// Equal scores: the lower passage id represents the document.
			a, err := c.resolve(h)
			if err != nil {
				return err
			}
			b, err := c.resolve(cur)
			if err != nil {
				return err
			}
			if a < b {
				c.cands[i] = h
			}
		}
		return nil
	}
	c.best[h.doc] = len(c.cands)
	c.cands = append(c.cands, h)
	if len(c.cands) >= 2*c.k+64 {
		c.compact()
	}
	return nil
}

// compact drops the candidates below the k-th best score, raising theta in
// document mode (in passage mode the heap keeps it exact).
func (c *collector) compact() {
	if c.docs {
		if len(c.cands) < c.k {
			return
		}
		scores := make([]float64, len(c.cands))
		for i, h := range c.cands {
			scores[i] = h.score
		}
		sort.Float64s(scores)
		c.theta = max(c.theta, scores[len(scores)-c.k])
	}
	kept := c.cands[:0]
	for _, h := range c.cands {
		if h.score >= c.theta {
			kept = append(kept, h)
		}
	}
	c.cands = kept
	if c.docs {
		clear(c.best)
		for i, h := range c.cands {
			c.best[h.doc] = i
		}
	}
}

// floatHeap is a min-heap of scores.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scorePruned is score's fast path over a scorch snapshot. ok is false
// when the reader is not one (the caller then scores exhaustively).
//
// With count set, total is the exact number of matching passages (or
// documents); without it, counting costs nothing more than ranking and
// total is negative — a lower bound — unless the ranking saw every match.
func (ix *Index) scorePruned(ctx context.Context, r any, terms []string, qtf map[string]int, docs bool, limit int, count bool) (ranked []Scored, total int, ok bool, err error) {
	snap, isSnap := r.(*scorch.IndexSnapshot)
	if !isSnap {
		return nil, 0, false, nil
	}
	segs := snap.Segments()
	n, err := snap.DocCount()
	if err != nil {
		return nil, 0, true, fmt.Errorf("search: %w", err)
	}
	if n == 0 {
		return nil, 0, true, nil
	}
	tot, err := ix.totalTokens()
	if err != nil {
		return nil, 0, true, err
	}
	avgdl := float64(tot) / float64(n)
	if avgdl <= 0 {
		avgdl = 1
	}
	k1, b := ix.opts.K1, ix.opts.B

	live := map[uint64]bool{}
	for _, s := range segs {
		live[s.Id()] = true
	}
	isLive := func(id uint64) bool { return live[id] }

	// Postings lists per segment and term, and document frequencies over
	// the live passages of the whole snapshot.
	type segTerms struct {
		st   *segState
		dict segment.TermDictionary
		pls  []segment.PostingsList // by query term; nil where absent
	}
	per := make([]segTerms, len(segs))
	df := make([]uint64, len(terms))
	for i, s := range segs {
		dict, err := s.Segment().Dictionary(bodyField)
		if err != nil {
			return nil, 0, true, fmt.Errorf("search: %w", err)
		}
		per[i] = segTerms{st: ix.segs.state(s.Id(), s.Segment(), isLive), dict: dict, pls: make([]segment.PostingsList, len(terms))}
		for j, t := range terms {
			pl, err := dict.PostingsList([]byte(t), s.Deleted(), nil)
			if err != nil {
				return nil, 0, true, fmt.Errorf("search term %q: %w", t, err)
			}
			if c := pl.Count(); c > 0 {
				per[i].pls[j] = pl
				df[j] += c
			}
		}
	}
	w := make([]float64, len(terms))
	for j, t := range terms {
		if df[j] > 0 {
			w[j] = float64(qtf[t]) * math.Log(1+(float64(n)-float64(df[j])+0.5)/(float64(df[j])+0.5))
		}
	}

	resolveID := func(h hitRef) (string, error) {
		raw, err := segs[h.seg].DocID(h.num)
		if err != nil {
			return "", fmt.Errorf("search: resolve id: %w", err)
		}
		return string(raw), nil
	}
	if limit <= 0 {
		limit = math.MaxInt
	}
	col := newCollector(min(limit, int(n)), docs, resolveID)
	contrib := make([]float64, len(terms))
	present := make([]bool, len(terms))
	var matched []*roaring.Bitmap // per segment, for the total

	for i := range segs {
		if err := ctx.Err(); err != nil {
			return nil, 0, true, err
		}
		pt := per[i]
		var cs []*cursor
		union := roaring.New()
		for j, pl := range pt.pls {
			if pl == nil {
				continue
			}
			if count {
				if err := orInto(union, pl); err != nil {
					return nil, 0, true, err
				}
			}
			tp, err := ix.segs.postings(pt.st, pt.dict, terms[j], avgdl, k1, b)
			if err != nil {
				return nil, 0, true, err
			}
			c := &cursor{order: j, w: w[j], ub: w[j] * tp.max * boundSlack, tp: tp}
			c.setPos(0)
			if c.doc != exhausted {
				cs = append(cs, c)
			}
		}
		matched = append(matched, union)
		if len(cs) == 0 {
			continue
		}
		var docOrd []uint32
		if docs {
			if docOrd, err = pt.st.docOrdinals(segs[i].Segment(), &ix.segs.docs); err != nil {
				return nil, 0, true, err
			}
		}
		if err := scoreSegment(ctx, cs, col, i, segs[i].Deleted(), pt.st.lens, docOrd, k1, b, avgdl, contrib, present); err != nil {
			return nil, 0, true, err
		}
	}

	// Totals: the union of the query terms' live postings.
	switch {
	case !count:
		// Without pruning every match was collected; otherwise the
		// largest document frequency bounds the passages from below.
		pruned := !math.IsInf(col.theta, -1) && col.k < int(n)
		if docs {
			total = len(col.best)
		} else {
			total = len(col.cands)
			for _, f := range df {
				total = max(total, int(f))
			}
		}
		if pruned {
			total = -max(total, 1)
		}
	case docs:
		ords := make([][]uint32, len(segs))
		for i := range segs {
			if !matched[i].IsEmpty() {
				if ords[i], err = per[i].st.docOrdinals(segs[i].Segment(), &ix.segs.docs); err != nil {
					return nil, 0, true, err
				}
			}
		}
		total = countDocs(matched, ords, ix.segs.docs.len())
	default:
		for _, u := range matched {
			total += int(u.GetCardinality())
		}
	}

	// The final cut: every candidate at or above theta, by score then id.
	for _, h := range col.cands {
		if h.score < col.theta {
			continue
		}
		id, err := resolveID(h)
		if err != nil {
			return nil, 0, true, err
		}
		docID, ord, err := pipeline.ParsePassageID(id)
		if err != nil {
			return nil, 0, true, fmt.Errorf("search: %w", err)
		}
		ranked = append(ranked, Scored{PassageID: id, DocID: docID, Ordinal: ord, Score: h.score})
	}
	sort.Slice(ranked, func(i, j int) bool { return better(ranked[i], ranked[j]) })
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	return ranked, total, true, nil
}

// countDocs counts the distinct documents of the matched passages.
func countDocs(matched []*roaring.Bitmap, ords [][]uint32, ndocs int) int {
	seen := make([]uint64, (ndocs+63)/64)
	buf := make([]uint32, 256)
	for i, u := range matched {
		if u.IsEmpty() {
			continue
		}
		o := ords[i]
		it := u.ManyIterator()
		for {
			k := it.NextMany(buf)
			if k == 0 {
				break
			}
			for _, num := range buf[:k] {
				d := o[num]
				seen[d/64] |= 1 << (d % 64)
			}
		}
	}
	c := 0
	for _, w := range seen {
		c += bits.OnesCount64(w)
	}
	return c
}

// orInto adds the live passages of a postings list to bm.
func orInto(bm *roaring.Bitmap, pl segment.PostingsList) error {
	it := pl.Iterator(false, false, false, nil)
	if o, ok := it.(segment.OptimizablePostingsIterator); ok {
		if a := o.ActualBitmap(); a != nil {
			bm.Or(a)
			return nil
		}
	}
	for {
		p, err := it.Next()
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		if p == nil {
			return nil
		}
		bm.Add(uint32(p.Number()))
	}
}

// scoreSegment runs block-max MaxScore over one segment's cursors.
func scoreSegment(ctx context.Context, cs []*cursor, col *collector, segIdx int, deleted *roaring.Bitmap, lens []uint32, docOrd []uint32, k1, b, avgdl float64, contrib []float64, present []bool) error {
	if deleted != nil && deleted.IsEmpty() {
		deleted = nil
	}
	// orders lists the segment's terms in query order, for the exact sum.
	orders := make([]int, len(cs))
	for i, c := range cs {
		orders[i] = c.order
	}
	sort.Ints(orders)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ub < cs[j].ub })
	prefix := make([]float64, len(cs)) // prefix[i]: Σ ub of cs[0..i]
	var run float64
	for i, c := range cs {
		run += c.ub
		prefix[i] = run
	}
	// essential: cs[e:] are walked; cs[:e] are only probed.
	essential := func() int {
		e := 0
		for e < len(cs) && prefix[e] < col.theta {
			e++
		}
		return e
	}
	steps := 0
	for {
		e := essential()
		if e == len(cs) {
			return nil // nothing left can reach the top k
		}
		var ne float64 // the non-essential terms' bounds
		if e > 0 {
			ne = prefix[e-1]
		}
		// The window: from the smallest current document of the essential
		// cursors to the end of the first block among theirs.
		start, end := uint64(exhausted), uint64(exhausted)
		for _, c := range cs[e:] {
			if c.doc != exhausted {
				start = min(start, c.doc)
				end = min(end, c.blockEnd())
			}
		}
		if start == exhausted {
			return nil
		}
		bound := ne
		for _, c := range cs[e:] {
			if c.doc <= end {
				bound += c.blockBound()
			}
		}
		if bound < col.theta {
			for _, c := range cs[e:] {
				if c.doc <= end {
					c.advance(end + 1)
				}
			}
			continue
		}
		// Score the window's documents one at a time.
		for {
			d := uint64(exhausted)
			for _, c := range cs[e:] {
				d = min(d, c.doc)
			}
			if d == exhausted || d > end {
				break
			}
			steps++
			if steps&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if deleted == nil || !deleted.Contains(uint32(d)) {
				if err := scoreDoc(cs, e, ne, d, col, segIdx, lens, docOrd, k1, b, avgdl, contrib, present, orders); err != nil {
					return err
				}
			}
			for _, c := range cs[e:] {
				if c.doc == d {
					c.next()
				}
			}
			if essential() != e {
				break // theta rose past a term's bound: plan again
			}
		}
	}
}

// scoreDoc scores document d, which the essential cursors cs[e:] reached,
// probing the non-essential ones while the bound allows, and offers it to
// the collector.
func scoreDoc(cs []*cursor, e int, ne float64, d uint64, col *collector, segIdx int, lens []uint32, docOrd []uint32, k1, b, avgdl float64, contrib []float64, present []bool, orders []int) error {
	defer func() {
		for _, c := range cs {
			present[c.order] = false
		}
	}()
	var s float64
	for _, c := range cs[e:] {
		if c.doc == d {
			v := c.contribution(lens, k1, b, avgdl)
			contrib[c.order], present[c.order] = v, true
			s += v
		}
	}
	rem := ne
	for i := e - 1; i >= 0; i-- {
		if (s+rem)*boundSlack < col.theta {
			return nil
		}
		c := cs[i]
		rem -= c.ub
		if c.doc < d {
			c.advance(d)
		}
		if c.doc == d {
			v := c.contribution(lens, k1, b, avgdl)
			contrib[c.order], present[c.order] = v, true
			s += v
		}
	}
	if s*boundSlack < col.theta {
		return nil
	}
	// The exact score: the contributions summed in query order, as the
	// exhaustive scorer sums them.
	var exact float64
	for _, j := range orders {
		if present[j] {
			exact += contrib[j]
		}
	}
	if exact < col.theta {
		return nil
	}
	h := hitRef{seg: segIdx, num: d, score: exact}
	if docOrd != nil {
		h.doc = docOrd[d]
	}
	return col.add(h)
}
