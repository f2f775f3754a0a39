// Package pipeline is Crucible's domain: the types every layer shares, the
// sentinel errors, the interfaces the application consumes (store, retriever,
// model) and the stages that turn a collection into cited reports.
//
// It imports only the standard library. Technology adapters live beneath it
// (pipeline/sqlite, pipeline/llm) and in the index package (Bleve).
package pipeline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. Adapters wrap them so callers can test with errors.Is and
// the web layer can map them to status codes in one place.
var (
	// ErrNotFound means the requested object does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the caller's input was rejected; the wrapping message
	// names what was wrong.
	ErrInvalid = errors.New("invalid input")
	// ErrConflict means the change collides with the stored state.
	ErrConflict = errors.New("conflict")
)

// Invalidf returns an error wrapping ErrInvalid with a formatted reason.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// MaxPassageChars is the largest passage, in characters (runes), that
// segmentation produces.
const MaxPassageChars = 1000

// Document is one item of the collection. SQLite is its source of truth.
type Document struct {
	ID    string
	Title string
	Text  string
	// Metadata holds every field of the source record other than id, title
	// and text: date, author, url, language... Non-string JSON values are
	// kept as their JSON encoding.
	Metadata map[string]string
	// Source names where the document came from (file path and line).
	Source     string
	IngestedAt time.Time
}

// Passage is a span of a document: the unit of retrieval and citation.
// Start and End are byte offsets into Document.Text (UTF-8), so
// Document.Text[Start:End] == Passage.Text.
type Passage struct {
	DocID   string
	Ordinal int
	Start   int
	End     int
	Text    string
}

// ID is the passage's stable identifier: "<doc id>#<ordinal>".
func (p Passage) ID() string { return PassageID(p.DocID, p.Ordinal) }

// PassageID builds the identifier of passage ordinal of document docID.
func PassageID(docID string, ordinal int) string {
	return docID + "#" + strconv.Itoa(ordinal)
}

// ParsePassageID splits an identifier made by PassageID. Document ids may
// themselves contain '#': the ordinal is what follows the last one.
func ParsePassageID(id string) (docID string, ordinal int, err error) {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return "", 0, Invalidf("passage id %q has no '#ordinal' suffix", id)
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return "", 0, Invalidf("passage id %q has a bad ordinal", id)
	}
	return id[:i], n, nil
}

// Span is a half-open byte range [Start, End) of some text.
type Span struct {
	Start int
	End   int
}

// CollectionStats summarises what is stored.
type CollectionStats struct {
	Documents  int
	Passages   int
	Characters int64
	// LastIngest is the time of the most recent ingest, zero when none.
	LastIngest time.Time
}
