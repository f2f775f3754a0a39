package index

import (
	"context"
	"fmt"
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
	adv, err := ix.idx.Advanced()
	if err != nil {
		return st, fmt.Errorf("term statistics: %w", err)
	}
	r, err := adv.Reader()
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
