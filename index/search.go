package index

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	bleve_index_api "github.com/blevesearch/bleve_index_api"

	"github.com/crucible-portal/crucible/pipeline"
)

// Scored is a passage id and its BM25 score.
type Scored struct {
	PassageID string
	DocID     string
	Ordinal   int
	Score     float64
}

// QueryTerms analyses a query into its distinct terms with their counts,
// in first-occurrence order.
func (ix *Index) QueryTerms(query string) (terms []string, qtf map[string]int) {
	qtf = map[string]int{}
	for _, t := range ix.analyzer.Analyze([]byte(query)) {
		term := string(t.Term)
		if qtf[term] == 0 {
			terms = append(terms, term)
		}
		qtf[term]++
	}
	return terms, qtf
}

// Ranking is the result of Score.
type Ranking struct {
	// Hits are the best passages (or documents), best first; equal scores
	// are ordered by passage id.
	Hits []Scored
	// Total is the number of matching passages (or documents).
	Total int
	// TotalIsLowerBound is set when a document-level search stopped
	// counting matching documents (see docsResolveBudget).
	TotalIsLowerBound bool
	// Terms are the analysed query terms.
	Terms []string
}

// Score ranks the passages that match the query by BM25 and returns the
// top limit of them. With docs set, each document appears once,
// represented by its best passage (MaxP). limit ≤ 0 means no limit.
func (ix *Index) Score(ctx context.Context, query string, docs bool, limit int) (Ranking, error) {
	return ix.rank(ctx, query, docs, limit, true)
}

// Top ranks as Score does but counts no further than the ranking needs:
// Total is exact when the ranking saw every match, and otherwise a lower
// bound (TotalIsLowerBound). For callers that only want the hits.
func (ix *Index) Top(ctx context.Context, query string, docs bool, limit int) (Ranking, error) {
	return ix.rank(ctx, query, docs, limit, false)
}

func (ix *Index) rank(ctx context.Context, query string, docs bool, limit int, count bool) (Ranking, error) {
	ranked, total, terms, err := ix.score(ctx, query, docs, limit, count, false)
	rk := Ranking{Hits: ranked, Total: total, Terms: terms}
	if total < 0 {
		rk.Total, rk.TotalIsLowerBound = -total, true
	}
	return rk, err
}

// score does the work of Score; a negative total is a lower bound.
func (ix *Index) score(ctx context.Context, query string, docs bool, limit int, count, exhaustive bool) (ranked []Scored, total int, terms []string, err error) {
	if utf8.RuneCountInString(query) > pipeline.MaxQueryChars {
		return nil, 0, nil, pipeline.Invalidf("query is %d characters long; the limit is %d", utf8.RuneCountInString(query), pipeline.MaxQueryChars)
	}
	terms, qtf := ix.QueryTerms(query)
	if len(terms) == 0 {
		return nil, 0, terms, nil
	}
	r, err := ix.reader()
	if err != nil {
		return nil, 0, terms, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	if !exhaustive {
		ranked, total, ok, err := ix.scorePruned(ctx, r, terms, qtf, docs, limit, count)
		if ok {
			return ranked, total, terms, err
		}
	}

	n, err := r.DocCount()
	if err != nil {
		return nil, 0, terms, fmt.Errorf("search: %w", err)
	}
	if n == 0 {
		return nil, 0, terms, nil
	}
	tot, err := ix.totalTokens()
	if err != nil {
		return nil, 0, terms, err
	}
	avgdl := float64(tot) / float64(n)
	if avgdl <= 0 {
		avgdl = 1
	}
	// Term-at-a-time accumulation in a dense array indexed by Bleve's
	// internal document number (scorch numbers documents 0..n-1 across its
	// segments, deleted ones included).
	acc := getAccumulator()
	defer putAccumulator(acc)
	for _, term := range terms {
		if err := ctx.Err(); err != nil {
			return nil, 0, terms, err
		}
		if err := ix.scoreTerm(ctx, r, term, float64(qtf[term]), float64(n), avgdl, acc); err != nil {
			return nil, 0, terms, err
		}
	}
	total = len(acc.touched)
	if total == 0 {
		return nil, 0, terms, nil
	}

	// Only the hits that make the page are resolved to passage ids: ids
	// live in Bleve's stored fields and cost a lookup each.
	h := make(numHeap, 0, total)
	for _, num := range acc.touched {
		h = append(h, numScore{num: num, score: acc.score[num]})
	}
	resolve := func(ns numScore) (Scored, error) {
		id, err := r.ExternalID(bleve_index_api.NewIndexInternalID(nil, ns.num))
		if err != nil {
			return Scored{}, fmt.Errorf("search: resolve id: %w", err)
		}
		docID, ord, err := pipeline.ParsePassageID(id)
		if err != nil {
			return Scored{}, fmt.Errorf("search: %w", err)
		}
		return Scored{PassageID: id, DocID: docID, Ordinal: ord, Score: ns.score}, nil
	}
	if limit <= 0 {
		limit = total
	}
	heap.Init(&h)
	if !docs {
		// Resolve a little past the limit so passages tied at the cut can
		// be ordered by id.
		for h.Len() > 0 && (len(ranked) < limit || h[0].score == ranked[len(ranked)-1].Score) {
			s, err := resolve(heap.Pop(&h).(numScore))
			if err != nil {
				return nil, 0, terms, err
			}
			ranked = append(ranked, s)
		}
		sort.SliceStable(ranked, func(i, j int) bool { return better(ranked[i], ranked[j]) })
		if len(ranked) > limit {
			ranked = ranked[:limit]
		}
		return ranked, total, terms, nil
	}
	// MaxP: walk passages best first; a document's first passage is its
	// best. The document total is exact when every match is resolved
	// within the budget, otherwise a lower bound (reported as such).
	seen := map[string]bool{}
	budget := max(docsResolveBudget, limit*8)
	resolved := 0
	var lastScore float64
	for h.Len() > 0 {
		if len(ranked) >= limit && resolved >= budget && h[0].score != lastScore {
			break
		}
		s, err := resolve(heap.Pop(&h).(numScore))
		if err != nil {
			return nil, 0, terms, err
		}
		resolved++
		lastScore = s.Score
		if !seen[s.DocID] {
			seen[s.DocID] = true
			ranked = append(ranked, s)
		} else {
			for i := len(ranked) - 1; i >= 0 && ranked[i].Score == s.Score; i-- {
				if ranked[i].DocID == s.DocID && s.PassageID < ranked[i].PassageID {
					ranked[i] = s // equal scores: the lower passage id represents the document
				}
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return better(ranked[i], ranked[j]) })
	total = len(ranked)
	if h.Len() > 0 {
		total = -total // a lower bound
	}
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	return ranked, total, terms, nil
}

// docsResolveBudget is how many matching passages a document-level search
// resolves at least, to count the matching documents exactly. Past it the
// count is a lower bound.
const docsResolveBudget = 5000

// scoreTerm adds one query term's BM25 contribution to acc.
func (ix *Index) scoreTerm(ctx context.Context, r bleve_index_api.IndexReader, term string, qtf, n, avgdl float64, acc *accumulator) error {
	tfr, err := r.TermFieldReader(ctx, []byte(term), bodyField, true, true, false)
	if err != nil {
		return fmt.Errorf("search term %q: %w", term, err)
	}
	defer tfr.Close()
	df := float64(tfr.Count())
	if df == 0 {
		return nil
	}
	k1, b := ix.opts.K1, ix.opts.B
	w := qtf * math.Log(1+(n-df+0.5)/(df+0.5))
	var tfd bleve_index_api.TermFieldDoc
	for {
		d, err := tfr.Next(tfd.Reset())
		if err != nil {
			return fmt.Errorf("search term %q: %w", term, err)
		}
		if d == nil {
			return nil
		}
		if len(d.ID) != 8 {
			return fmt.Errorf("search: unexpected internal id of %d bytes (the index must be a scorch index)", len(d.ID))
		}
		// Bleve stores the norm as 1/sqrt(length) in a float32.
		dl := 1.0
		if d.Norm > 0 {
			dl = math.Round(1 / (d.Norm * d.Norm))
		}
		tf := float64(d.Freq)
		acc.add(d.ID.Value(), w*tf*(k1+1)/(tf+k1*(1-b+b*dl/avgdl)))
	}
}

// accumulator holds per-document scores densely; touched lists the
// documents with a score, in first-touch order.
type accumulator struct {
	score   []float64
	touched []uint64
}

func (a *accumulator) add(num uint64, s float64) {
	if num >= uint64(len(a.score)) {
		grown := make([]float64, max(num+1, uint64(2*len(a.score))))
		copy(grown, a.score)
		a.score = grown
	}
	if a.score[num] == 0 {
		a.touched = append(a.touched, num)
	}
	a.score[num] += s
}

var accPool = sync.Pool{New: func() any { return &accumulator{} }}

func getAccumulator() *accumulator { return accPool.Get().(*accumulator) }

func putAccumulator(a *accumulator) {
	for _, num := range a.touched {
		a.score[num] = 0
	}
	a.touched = a.touched[:0]
	accPool.Put(a)
}

// numScore is an unresolved hit.
type numScore struct {
	num   uint64
	score float64
}

// numHeap is a max-heap by score (ties: lower number first, for a stable
// resolution order).
type numHeap []numScore

func (h numHeap) Len() int { return len(h) }
func (h numHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	return h[i].num < h[j].num
}
func (h numHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *numHeap) Push(x any)   { *h = append(*h, x.(numScore)) }
func (h *numHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// better orders by score descending, then passage id ascending, so equal
// scores rank deterministically.
func better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.PassageID < b.PassageID
}

// PassageSource supplies the passages of a page of hits and their
// documents' titles, in one read: passages by passage id (absent when
// unknown) and titles by document id.
type PassageSource interface {
	HitPassages(ctx context.Context, ids []string) (map[string]pipeline.Passage, map[string]string, error)
}

// Searcher answers pipeline.SearchRequest with the index and the store.
type Searcher struct {
	Index  *Index
	Source PassageSource
}

var _ pipeline.Searcher = (*Searcher)(nil)

// MaxK bounds the hits one request may ask for.
const MaxK = 10000

// Search implements pipeline.Searcher.
func (s *Searcher) Search(ctx context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error) {
	start := time.Now()
	var res pipeline.SearchResult
	if req.K <= 0 {
		req.K = 10
	}
	if req.K > MaxK {
		return res, pipeline.Invalidf("k=%d is more than the %d hits one search returns", req.K, MaxK)
	}
	if req.Offset < 0 {
		return res, pipeline.Invalidf("offset %d is negative", req.Offset)
	}
	rank := s.Index.Top
	if req.Count {
		rank = s.Index.Score
	}
	rk, err := rank(ctx, req.Query, req.Docs, req.Offset+req.K)
	if err != nil {
		return res, err
	}
	ranked, terms := rk.Hits, rk.Terms
	res.Total, res.TotalIsLowerBound, res.Terms = rk.Total, rk.TotalIsLowerBound, terms
	if req.Offset >= len(ranked) {
		res.Took = time.Since(start)
		return res, nil
	}
	page := ranked[req.Offset:]
	ids := make([]string, 0, len(page))
	for _, sc := range page {
		ids = append(ids, sc.PassageID)
	}
	passages, titles, err := s.Source.HitPassages(ctx, ids)
	if err != nil {
		return res, err
	}
	termSet := make(map[string]bool, len(terms))
	for _, t := range terms {
		termSet[t] = true
	}
	for i, sc := range page {
		p, ok := passages[sc.PassageID]
		if !ok {
			return res, fmt.Errorf("search result %s: %w (the index may be out of date: run crucible reindex)", sc.PassageID, pipeline.ErrNotFound)
		}
		h := pipeline.Hit{
			Rank: req.Offset + i + 1, Score: sc.Score,
			DocID: sc.DocID, PassageID: sc.PassageID, Ordinal: sc.Ordinal,
			Title: titles[sc.DocID], Text: p.Text, Start: p.Start, End: p.End,
		}
		if req.Highlight {
			h.Fragments = s.Index.fragments(p.Text, termSet)
		}
		res.Hits = append(res.Hits, h)
	}
	res.Took = time.Since(start)
	return res, nil
}
