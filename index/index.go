// Package index is the Bleve adapter: it keeps the passage index (an
// inverted index built by Bleve with an English analyzer), scores queries
// with Okapi BM25, and ranks passages or documents (MaxP).
//
// Bleve stores the postings (term frequencies and field-length norms); the
// BM25 formula is applied here, over those postings, because Bleve v2.6's
// built-in "bm25" scoring model deviates from BM25 in ways that cost
// effectiveness: its average field length is the number of distinct terms
// divided by the document count, term frequencies enter as sqrt(tf), and a
// coordination factor and query normalisation scale the sum. The scorer
// here is Lucene's BM25 (the one Anserini's published figures use):
//
//	score(q, d) = Σ_t qtf(t) · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
//	idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// with exact (unquantised) lengths. SQLite is the source of truth; this
// index is derived and Rebuild recreates it from the store.
package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	bleve_index_api "github.com/blevesearch/bleve_index_api"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/crucible-portal/crucible/pipeline"
)

// bodyField holds a passage's searchable text: its document's title
// followed by the passage text.
const bodyField = "body"

// Keys of the values kept in Bleve's internal key/value store.
var (
	keyTotalTokens = []byte("crucible:total_tokens")
	keyLenPrefix   = "crucible:len:"
)

// Options are the BM25 parameters.
type Options struct {
	K1 float64
	B  float64
	// TitleInPassages prefixes every passage's indexed text with its
	// document's title (default true through DefaultOptions).
	TitleInPassages bool
}

// DefaultOptions are the parameters the benchmarks favour (see
// docs/benchmarks.md): Anserini's k1=0.9, b=0.4.
func DefaultOptions() Options { return Options{K1: 0.9, B: 0.4, TitleInPassages: true} }

// Index is an open passage index. It is safe for concurrent use; writes are
// serialised.
type Index struct {
	idx      bleve.Index
	path     string
	opts     Options
	analyzer analysis.Analyzer

	mu sync.Mutex // serialises writes (the token total is read-modify-write)
}

// newMapping builds the index mapping: one analysed field, nothing stored.
func newMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	// Bleve's own queries (if ever used) should also rank by BM25.
	m.ScoringModel = bleve_index_api.BM25Scoring
	doc := bleve.NewDocumentStaticMapping()
	f := bleve.NewTextFieldMapping()
	f.Analyzer = en.AnalyzerName
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	doc.AddFieldMappingsAt(bodyField, f)
	m.DefaultMapping = doc
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// Open opens the index at path, creating an empty one when none exists.
func Open(path string, opts Options) (*Index, error) {
	if opts.K1 <= 0 || opts.B < 0 || opts.B > 1 {
		return nil, pipeline.Invalidf("bm25 parameters k1=%g b=%g: need k1 > 0 and 0 ≤ b ≤ 1", opts.K1, opts.B)
	}
	var idx bleve.Index
	var err error
	if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
		idx, err = bleve.New(path, newMapping())
	} else {
		// Only one process may hold the index: wait briefly for the lock,
		// then say who probably has it instead of hanging.
		idx, err = bleve.OpenUsing(path, map[string]any{"bolt_timeout": "2s"})
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("open index %s: it is in use by another crucible process (a running `crucible serve`?): stop it first", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return wrap(idx, path, opts)
}

func wrap(idx bleve.Index, path string, opts Options) (*Index, error) {
	a := idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	if a == nil {
		idx.Close()
		return nil, fmt.Errorf("open index %s: analyzer %q missing", path, en.AnalyzerName)
	}
	return &Index{idx: idx, path: path, opts: opts, analyzer: a}, nil
}

// Close closes the index.
func (ix *Index) Close() error { return ix.idx.Close() }

// Path is the index directory ("" for an in-memory index).
func (ix *Index) Path() string { return ix.path }

// Options returns the BM25 parameters in use.
func (ix *Index) Options() Options { return ix.opts }

// Count is the number of indexed passages.
func (ix *Index) Count() (int, error) {
	n, err := ix.idx.DocCount()
	return int(n), err
}

// bodyText is what gets indexed for a passage.
func (ix *Index) bodyText(title string, p pipeline.Passage) string {
	if ix.opts.TitleInPassages && title != "" {
		return title + "\n" + p.Text
	}
	return p.Text
}

// tokenCount is the number of terms the analyzer keeps from text: the
// field length BM25 normalises by.
func (ix *Index) tokenCount(text string) uint64 {
	return uint64(len(ix.analyzer.Analyze([]byte(text))))
}

// IndexDocuments indexes the passages of the given documents, replacing any
// passage with the same id, and deletes the stale passage ids (passages of
// replaced documents that no longer exist). It is atomic per call.
func (ix *Index) IndexDocuments(ctx context.Context, docs []pipeline.IngestDocument, stale []string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	total, err := ix.totalTokens()
	if err != nil {
		return err
	}
	b := ix.idx.NewBatch()
	// lens tracks the lengths this batch has set, so an id indexed twice in
	// one call is only counted once.
	lens := map[string]uint64{}
	oldLen := func(id string) (uint64, error) {
		if n, ok := lens[id]; ok {
			return n, nil
		}
		v, err := ix.idx.GetInternal([]byte(keyLenPrefix + id))
		if err != nil {
			return 0, fmt.Errorf("index: read length of %s: %w", id, err)
		}
		if len(v) == 0 {
			return 0, nil
		}
		n, _ := binary.Uvarint(v)
		return n, nil
	}
	for _, id := range stale {
		n, err := oldLen(id)
		if err != nil {
			return err
		}
		total -= n
		lens[id] = 0
		b.Delete(id)
		b.DeleteInternal([]byte(keyLenPrefix + id))
	}
	var buf [binary.MaxVarintLen64]byte
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range d.Passages {
			id := p.ID()
			body := ix.bodyText(d.Doc.Title, p)
			n := ix.tokenCount(body)
			old, err := oldLen(id)
			if err != nil {
				return err
			}
			total = total - old + n
			lens[id] = n
			if err := b.Index(id, map[string]any{bodyField: body}); err != nil {
				return fmt.Errorf("index passage %s: %w", id, err)
			}
			k := binary.PutUvarint(buf[:], n)
			b.SetInternal([]byte(keyLenPrefix+id), append([]byte(nil), buf[:k]...))
		}
	}
	k := binary.PutUvarint(buf[:], total)
	b.SetInternal(keyTotalTokens, append([]byte(nil), buf[:k]...))
	if err := ix.idx.Batch(b); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	return nil
}

func (ix *Index) totalTokens() (uint64, error) {
	v, err := ix.idx.GetInternal(keyTotalTokens)
	if err != nil {
		return 0, fmt.Errorf("index: read token total: %w", err)
	}
	if len(v) == 0 {
		return 0, nil
	}
	n, _ := binary.Uvarint(v)
	return n, nil
}

// Analyze returns the index terms of text, in order, with their byte
// offsets: the same analysis the index applies.
func (ix *Index) Analyze(text string) []Token {
	ts := ix.analyzer.Analyze([]byte(text))
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = Token{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out
}

// Token is one analysed term and its byte span in the source text.
type Token struct {
	Term       string
	Start, End int
}
