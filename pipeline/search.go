package pipeline

import (
	"context"
	"time"
)

// MaxQueryChars bounds the length of a search query; longer queries are
// rejected with ErrInvalid rather than silently truncated.
const MaxQueryChars = 4096

// SearchRequest asks for the top hits of a free-text query.
type SearchRequest struct {
	Query string
	// K is the number of hits to return (after Offset).
	K int
	// Offset skips that many hits, for paging.
	Offset int
	// Docs ranks documents (by their best passage, MaxP) instead of passages.
	Docs bool
	// Highlight asks for fragments with the matched terms marked.
	Highlight bool
	// Count asks for the exact number of matches in Total. Without it
	// the searcher counts only what ranking the top hits needs, and Total
	// may be a lower bound (TotalIsLowerBound): pages that show a total
	// ask for it, the pipeline does not.
	Count bool
}

// Fragment is a piece of passage text around query matches, split into
// parts so a view can mark the matches without trusting any HTML.
type Fragment []FragmentPart

// FragmentPart is a run of text; Match is true for a query-term match.
type FragmentPart struct {
	Text  string
	Match bool
}

// Hit is one ranked result. For document-level searches the passage is the
// document's best-scoring passage.
type Hit struct {
	Rank      int // 1-based
	Score     float64
	DocID     string
	PassageID string
	Ordinal   int
	Title     string
	Text      string // passage text
	Start     int    // passage byte offsets in the document
	End       int
	Fragments []Fragment
}

// SearchResult is a page of hits.
type SearchResult struct {
	Hits []Hit
	// Total is the number of matching passages (or documents with Docs).
	Total int
	// TotalIsLowerBound is set when Total only counts what the searcher
	// looked at (document searches of very common terms): "at least Total".
	TotalIsLowerBound bool
	Took              time.Duration
	// Terms are the analysed query terms that were searched for.
	Terms []string
}

// Searcher ranks the collection for a query. Implementations return an
// error wrapping ErrInvalid for an unusable query (empty after analysis is
// not an error: it yields no hits).
type Searcher interface {
	Search(ctx context.Context, req SearchRequest) (SearchResult, error)
}
