package index

import (
	"bytes"
	"context"
	"fmt"

	bleve_index_api "github.com/blevesearch/bleve_index_api"
)

// TermStats are collection statistics of the passage index for a few
// terms: what BM25 reads besides a passage's own counts.
type TermStats struct {
	// Passages is the number of indexed passages (BM25's N).
	Passages int
	// AvgLength is the mean number of terms of a passage, its document's
	// title included (BM25's avgdl); 0 for an empty index.
	AvgLength float64
	// DocFreq maps each term asked about to the number of passages holding
	// it (0 for a term no passage holds).
	DocFreq map[string]int
}

// TermStats returns the collection statistics of terms, index terms as
// Terms returns them (analysed, not raw words). Repeated terms are looked
// up once. A ctx that ends stops the lookups with ctx's error.
func (ix *Index) TermStats(ctx context.Context, terms []string) (TermStats, error) {
	st := TermStats{DocFreq: make(map[string]int, len(terms))}
	r, err := ix.reader()
	if err != nil {
		return st, fmt.Errorf("term statistics: %w", err)
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil {
		return st, fmt.Errorf("term statistics: %w", err)
	}
	st.Passages = int(n)
	if n > 0 {
		tot, err := ix.totalTokens()
		if err != nil {
			return st, err
		}
		st.AvgLength = float64(tot) / float64(n)
	}
	for _, term := range terms {
		if _, done := st.DocFreq[term]; done {
			continue
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		tfr, err := r.TermFieldReader(ctx, []byte(term), bodyField, false, false, false)
		if err != nil {
			return st, fmt.Errorf("term statistics of %q: %w", term, err)
		}
		st.DocFreq[term] = int(tfr.Count())
		if err := tfr.Close(); err != nil {
			return st, fmt.Errorf("term statistics of %q: %w", term, err)
		}
	}
	return st, nil
}

// PairFreq returns, for each pair of index terms, the number of passages
// that hold both (anywhere in the passage, not only side by side: no
// positions are indexed). Repeated pairs are counted once. A ctx that
// ends stops the counting with ctx's error.
func (ix *Index) PairFreq(ctx context.Context, pairs [][2]string) (map[[2]string]int, error) {
	out := make(map[[2]string]int, len(pairs))
	r, err := ix.reader()
	if err != nil {
		return nil, fmt.Errorf("pair statistics: %w", err)
	}
	defer r.Close()
	for _, p := range pairs {
		if _, done := out[p]; done {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := bothCount(ctx, r, p[0], p[1])
		if err != nil {
			return nil, fmt.Errorf("pair statistics of %q and %q: %w", p[0], p[1], err)
		}
		out[p] = n
	}
	return out, nil
}

// bothCount counts the passages holding both a and b: it walks the
// postings of a, skipping those of b ahead to each of a's passages.
func bothCount(ctx context.Context, r bleve_index_api.IndexReader, a, b string) (int, error) {
	ra, err := r.TermFieldReader(ctx, []byte(a), bodyField, false, false, false)
	if err != nil {
		return 0, err
	}
	defer ra.Close()
	rb, err := r.TermFieldReader(ctx, []byte(b), bodyField, false, false, false)
	if err != nil {
		return 0, err
	}
	defer rb.Close()
	if rb.Count() < ra.Count() {
		ra, rb = rb, ra
	}
	n := 0
	pa, err := ra.Next(nil)
	for err == nil && pa != nil {
		var pb *bleve_index_api.TermFieldDoc
		if pb, err = rb.Advance(pa.ID, nil); err != nil || pb == nil {
			break
		}
		if bytes.Equal(pb.ID, pa.ID) {
			n++
			pa, err = ra.Next(nil)
		} else {
			pa, err = ra.Advance(pb.ID, nil)
		}
	}
	return n, err
}

// reader opens a reader of the index's current snapshot; the caller
// closes it.
func (ix *Index) reader() (bleve_index_api.IndexReader, error) {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, err
	}
	return adv.Reader()
}
