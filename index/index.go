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
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bleve_index_api "github.com/blevesearch/bleve_index_api"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/crucible-portal/crucible/pipeline"
)

// bodyField holds a passage's searchable terms: those of its document's
// title followed by those of the passage text.
const bodyField = "body"

// termsAnalyzer is the analyzer of bodyField. Crucible analyses passages
// itself (English analyzer, once, on all cores) and gives Bleve the terms
// separated by spaces, so Bleve only splits them: the field length Bleve
// records is exactly the number of terms BM25 normalises by.
const termsAnalyzer = "crucible_terms"

// formatVersion changes whenever what is indexed changes; an index of
// another format must be rebuilt (crucible reindex; serve does it itself).
const formatVersion = "2"

// Keys of Bleve's internal key/value store: the total length of all
// indexed passages (for BM25's average length) and the format version.
var (
	keyTotalTokens = []byte("crucible:total_tokens")
	keyFormat      = []byte("crucible:format")
	// keyWatermark is the number of the store's last batch the index
	// holds (pipeline.ReplaceResult.Batch), written in the same Bleve batch
	// as that batch's passages: Bleve saves the internal keys with the
	// segments they came with, so after a crash the watermark on disk
	// names exactly the batches the saved index holds.
	keyWatermark = []byte("crucible:watermark")
)

// Options are the BM25 parameters.
type Options struct {
	K1 float64
	B  float64
	// TitleInPassages prefixes every passage's indexed text with its
	// document's title (default true through DefaultOptions).
	TitleInPassages bool
	// PostingsCacheBytes bounds the decoded postings the top-k scorer
	// keeps in memory (segcache.go); ≤ 0 means DefaultPostingsCacheBytes.
	PostingsCacheBytes int64
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

	// A bulk load's token total so far (BulkBatch), from the index's
	// total when it started.
	bulkMu      sync.Mutex
	bulkStarted bool
	bulkTotal   int64

	// segs caches what the pruned scorer computes per segment (segcache.go).
	segs segCache

	// unsaved counts the batches Bleve has not written to disk yet; Close
	// waits for them. saveErr is the first error Bleve reported saving one.
	unsaved sync.WaitGroup
	saveMu  sync.Mutex
	saveErr error
}

// newMapping builds the index mapping: one analysed field, nothing stored.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	if err := m.AddCustomAnalyzer(termsAnalyzer, map[string]any{
		"type":      custom.Name,
		"tokenizer": whitespace.Name,
	}); err != nil {
		return nil, err
	}
	m.DefaultAnalyzer = termsAnalyzer
	// Bleve's own queries (if ever used) should also rank by BM25.
	m.ScoringModel = bleve_index_api.BM25Scoring
	doc := bleve.NewDocumentStaticMapping()
	f := bleve.NewTextFieldMapping()
	f.Analyzer = termsAnalyzer
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	doc.AddFieldMappingsAt(bodyField, f)
	m.DefaultMapping = doc
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m, nil
}

// Open opens the index at path, creating an empty one when none exists.
func Open(path string, opts Options) (*Index, error) {
	if opts.K1 <= 0 || opts.B < 0 || opts.B > 1 {
		return nil, pipeline.Invalidf("bm25 parameters k1=%g b=%g: need k1 > 0 and 0 ≤ b ≤ 1", opts.K1, opts.B)
	}
	if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
		if err := create(path); err != nil {
			return nil, fmt.Errorf("create index %s: %w", path, err)
		}
	}
	// Only one process may hold the index: wait briefly for the lock, then
	// say who probably has it instead of hanging.
	//
	// Batches are "unsafe" in Bleve's words: a batch is searchable when
	// Batch returns and is written to disk in the background, instead of
	// every batch waiting for its own fsync. Nothing can be lost by it:
	// each batch carries the store's batch number (the watermark) and
	// Bleve saves it with the batch, so after a crash the saved index says
	// which stored batches it lacks and the next start indexes them again
	// (app.catchUp). Close waits until every batch is saved.
	idx, err := bleve.OpenUsing(path, map[string]any{"bolt_timeout": "2s", "unsafe_batch": true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open index %s: %w (a running `crucible serve`?): stop it first", path, ErrIndexInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return wrap(idx, path, opts)
}

// ErrIndexInUse means another process holds the index.
var ErrIndexInUse = errors.New("the index is in use by another crucible process")

// create makes an empty index at path atomically: it is built beside path
// and renamed into place, so a process killed while creating it leaves
// either no index or a whole one, never one that cannot be opened.
func create(path string) error {
	tmp := path + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	m, err := newMapping()
	if err != nil {
		return err
	}
	idx, err := bleve.New(tmp, m)
	if err != nil {
		return err
	}
	err = idx.SetInternal(keyFormat, []byte(formatVersion))
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}

func wrap(idx bleve.Index, path string, opts Options) (*Index, error) {
	a := idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	if a == nil {
		idx.Close()
		return nil, fmt.Errorf("open index %s: analyzer %q missing", path, en.AnalyzerName)
	}
	ix := &Index{idx: idx, path: path, opts: opts, analyzer: newAnalyzer(a)}
	ix.segs.limit = opts.PostingsCacheBytes
	return ix, nil
}

// Current reports whether the index was built by this version's format;
// an index that is not current must be rebuilt before it is searched.
func (ix *Index) Current() (bool, error) {
	v, err := ix.idx.GetInternal(keyFormat)
	if err != nil {
		return false, fmt.Errorf("index: read format: %w", err)
	}
	return string(v) == formatVersion, nil
}

// Close closes the index.
// Close saves what is not saved yet and closes the index. If saving
// takes longer than closeWait (a failing disk), it closes anyway and says
// so: the store keeps every passage and the next start indexes the
// batches the index lacks.
func (ix *Index) Close() error {
	saved := make(chan struct{})
	go func() { ix.unsaved.Wait(); close(saved) }()
	var err error
	select {
	case <-saved:
		ix.saveMu.Lock()
		err = ix.saveErr
		ix.saveMu.Unlock()
	case <-time.After(closeWait):
		err = fmt.Errorf("index %s: batches not saved after %s; the next start indexes them again from the store", ix.path, closeWait)
	}
	if cerr := ix.idx.Close(); err == nil {
		err = cerr
	}
	return err
}

// closeWait bounds how long Close waits for batches to reach the disk.
const closeWait = 2 * time.Minute

// batch applies a Bleve batch, counting it as unsaved until Bleve has
// written it to disk.
func (ix *Index) batch(b *bleve.Batch) error {
	ix.unsaved.Add(1)
	b.SetPersistedCallback(func(err error) {
		if err != nil {
			ix.saveMu.Lock()
			ix.saveErr = fmt.Errorf("index %s: save a batch: %w", ix.path, err)
			ix.saveMu.Unlock()
		}
		ix.unsaved.Done()
	})
	if err := ix.idx.Batch(b); err != nil {
		// A batch Bleve refused is not introduced, and its callback may
		// never run.
		ix.unsaved.Done()
		return err
	}
	return nil
}

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

// terms returns the index terms of text joined by spaces, and their count
// (the field length BM25 normalises by).
func (ix *Index) terms(text string) (string, uint64) {
	ts := ix.analyzer.Analyze([]byte(text))
	var sb strings.Builder
	for i, t := range ts {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(t.Term)
	}
	return sb.String(), uint64(len(ts))
}

// analysed is a passage after analysis: its id, its number of terms (the
// field length BM25 normalises by) and, when wanted, the field Bleve
// indexes, its term frequencies counted already.
type analysed struct {
	id    string
	n     uint64
	field *termsField
}

// analyseAll analyses the passages of docs on every core, in order; with
// fields set it also counts each passage's term frequencies, so Bleve
// indexes them without analysing the text again.
func (ix *Index) analyseAll(ctx context.Context, docs []pipeline.IngestDocument, fields bool) ([]analysed, error) {
	var out []analysed
	var bodies []string
	for _, d := range docs {
		for _, p := range d.Passages {
			out = append(out, analysed{id: p.ID()})
			bodies = append(bodies, ix.bodyText(d.Doc.Title, p))
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(out)/64))
	var wg sync.WaitGroup
	next := make(chan int, len(out))
	for i := range out {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					return
				}
				if wa, ok := ix.analyzer.(*wordAnalyzer); ok && fields {
					out[i].field = wa.field(bodies[i])
					out[i].n = uint64(out[i].field.length)
					continue
				}
				ts := ix.analyzer.Analyze([]byte(bodies[i]))
				out[i].n = uint64(len(ts))
				if fields {
					out[i].field = newTermsField(ts, len(bodies[i]))
				}
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// termsField is a passage's body field, analysed already: Bleve's Analyze
// has nothing left to do. Only the terms are indexed (no stored value, no
// term vectors, no doc values), as the mapping says.
type termsField struct {
	length int
	freqs  bleve_index_api.TokenFrequencies
	bytes  uint64
	size   int // memory, computed once: Bleve asks for it per batch
}

func newTermsField(ts analysis.TokenStream, textBytes int) *termsField {
	f := &termsField{length: len(ts), bytes: uint64(textBytes), freqs: make(bleve_index_api.TokenFrequencies, len(ts))}
	for _, t := range ts {
		tf, ok := f.freqs[string(t.Term)]
		if !ok {
			tf = &bleve_index_api.TokenFreq{Term: t.Term}
			f.freqs[string(t.Term)] = tf
		}
		tf.SetFrequency(tf.Frequency() + 1)
	}
	f.size = 48 + f.freqs.Size()
	return f
}

func (f *termsField) Name() string             { return bodyField }
func (f *termsField) Value() []byte            { return nil }
func (f *termsField) ArrayPositions() []uint64 { return nil }
func (f *termsField) EncodedFieldType() byte   { return 't' }
func (f *termsField) Analyze()                 {}
func (f *termsField) Options() bleve_index_api.FieldIndexingOptions {
	return bleve_index_api.IndexField
}
func (f *termsField) AnalyzedLength() int { return f.length }
func (f *termsField) AnalyzedTokenFrequencies() bleve_index_api.TokenFrequencies {
	return f.freqs
}
func (f *termsField) NumPlainTextBytes() uint64 { return f.bytes }

// Size is the field's memory, which Bleve accounts for per batch.
func (f *termsField) Size() int { return f.size }

// IndexDocuments indexes the passages of docs, replacing any passage with
// the same id. previous are the stored versions of documents that docs
// replace (nil for new documents): their passages beyond the new passage
// count are deleted, and their lengths leave the collection statistics.
// It is atomic per call.
//
// Only one number is kept in Bleve's internal store (the total token
// count): scorch rewrites every internal key on each persist, so per-passage
// keys would make ingest quadratic.
func (ix *Index) IndexDocuments(ctx context.Context, docs []pipeline.IngestDocument, previous []pipeline.IngestDocument) error {
	return ix.IndexBatch(ctx, pipeline.IndexBatch{Docs: docs, Previous: previous})
}

// IndexBatch indexes a stored batch as IndexDocuments does and, when
// b.Seq is above the index's watermark, records b.Seq as the watermark in
// the same atomic Bleve batch (pipeline.PassageIndexer).
func (ix *Index) IndexBatch(ctx context.Context, bt pipeline.IndexBatch) error {
	p, err := ix.PrepareBatch(ctx, bt)
	if err != nil {
		return err
	}
	return p.Apply(ctx)
}

// preparedBatch is a batch analysed, ready to be applied.
type preparedBatch struct {
	ix       *Index
	bt       pipeline.IndexBatch
	old, cur []analysed
}

// PrepareBatch analyses a batch without touching the index, so that a
// bulk load can analyse one batch while the one before it is written
// (pipeline.BatchPreparer). Batches must be applied in order.
func (ix *Index) PrepareBatch(ctx context.Context, bt pipeline.IndexBatch) (pipeline.PreparedBatch, error) {
	old, err := ix.analyseAll(ctx, bt.Previous, false)
	if err != nil {
		return nil, err
	}
	cur, err := ix.analyseAll(ctx, bt.Docs, true)
	if err != nil {
		return nil, err
	}
	return &preparedBatch{ix: ix, bt: bt, old: old, cur: cur}, nil
}

// Apply writes a prepared batch to the index, atomically.
func (p *preparedBatch) Apply(ctx context.Context) error {
	ix := p.ix
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	total, err := ix.totalTokens()
	if err != nil {
		return err
	}
	b := ix.idx.NewBatch()
	for _, a := range p.old {
		total -= min(total, a.n)
	}
	p.deletions(b)
	for _, a := range p.cur {
		total += a.n
		if err := b.IndexAdvanced(document.NewDocument(a.id).AddField(a.field)); err != nil {
			return fmt.Errorf("index passage %s: %w", a.id, err)
		}
	}
	var buf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(buf[:], total)
	b.SetInternal(keyTotalTokens, append([]byte(nil), buf[:k]...))
	if p.bt.Seq > 0 {
		wm, err := ix.Watermark()
		if err != nil {
			return err
		}
		if p.bt.Seq > wm {
			k := binary.PutUvarint(buf[:], uint64(p.bt.Seq))
			b.SetInternal(keyWatermark, append([]byte(nil), buf[:k]...))
		}
	}
	if err := ix.batch(b); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	return nil
}

// applyBulk writes a prepared batch without the collection's token total
// or a watermark, and returns by how much the batch changes the total
// (its passages' tokens less those of the versions it replaces): for a
// bulk load (BulkBatch) or a rebuild, whose total and watermark are
// written when every batch is in (finishBulk). Unlike Apply, several may
// run at once, each building its Bleve segment in its own goroutine, and
// they may land in any order; a batch that replaces documents must not
// run alongside the batches before it (its deletions could land before
// their additions).
func (p *preparedBatch) applyBulk(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var delta int64
	b := p.ix.idx.NewBatch()
	for _, a := range p.old {
		delta -= int64(a.n)
	}
	p.deletions(b)
	for _, a := range p.cur {
		delta += int64(a.n)
		if err := b.IndexAdvanced(document.NewDocument(a.id).AddField(a.field)); err != nil {
			return 0, fmt.Errorf("index passage %s: %w", a.id, err)
		}
	}
	if err := p.ix.batch(b); err != nil {
		return 0, fmt.Errorf("index batch: %w", err)
	}
	return delta, nil
}

// deletions adds to b the deletion of the replaced documents' passages
// beyond their new passage count.
func (p *preparedBatch) deletions(b *bleve.Batch) {
	newCount := make(map[string]int, len(p.bt.Docs))
	for _, d := range p.bt.Docs {
		newCount[d.Doc.ID] = len(d.Passages)
	}
	for _, d := range p.bt.Previous {
		for _, ps := range d.Passages {
			if n, ok := newCount[d.Doc.ID]; !ok || ps.Ordinal >= n {
				b.Delete(ps.ID())
			}
		}
	}
}

// finishBulk writes the token total and, when seq is above 0, the
// watermark of an index written by applyBulk.
func (ix *Index) finishBulk(total uint64, seq int64) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var buf [binary.MaxVarintLen64]byte
	b := ix.idx.NewBatch()
	k := binary.PutUvarint(buf[:], total)
	b.SetInternal(keyTotalTokens, append([]byte(nil), buf[:k]...))
	if seq > 0 {
		k := binary.PutUvarint(buf[:], uint64(seq))
		b.SetInternal(keyWatermark, append([]byte(nil), buf[:k]...))
	}
	if err := ix.batch(b); err != nil {
		return fmt.Errorf("index: write totals: %w", err)
	}
	return nil
}

// BulkBatch indexes a stored batch for a bulk load (pipeline.BulkLoader):
// it may run alongside other BulkBatch calls and land in any order, and
// it leaves the index's token total and watermark as they were until
// CheckpointBulk writes them. The caller runs a batch that replaces
// documents only once the batches before it are in. Until the
// checkpoint the index must not be searched (the load holds it alone);
// if the process dies before it, the watermark still names the last
// checkpoint, and the next start indexes every batch after it again with
// IndexBatch, which counts their tokens once.
func (ix *Index) BulkBatch(ctx context.Context, bt pipeline.IndexBatch) error {
	ix.bulkMu.Lock()
	if !ix.bulkStarted {
		total, err := ix.totalTokens()
		if err != nil {
			ix.bulkMu.Unlock()
			return err
		}
		ix.bulkTotal, ix.bulkStarted = int64(total), true
	}
	ix.bulkMu.Unlock()
	p, err := ix.PrepareBatch(ctx, bt)
	if err != nil {
		return err
	}
	delta, err := p.(*preparedBatch).applyBulk(ctx)
	if err != nil {
		return err
	}
	ix.bulkMu.Lock()
	ix.bulkTotal += delta
	ix.bulkMu.Unlock()
	return nil
}

// CheckpointBulk writes the token total of the batches BulkBatch has
// indexed and records seq, the number of the last of them, as the
// watermark. Every BulkBatch call must have returned.
func (ix *Index) CheckpointBulk(ctx context.Context, seq int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.bulkMu.Lock()
	started, total := ix.bulkStarted, ix.bulkTotal
	ix.bulkMu.Unlock()
	if !started {
		return nil
	}
	wm, err := ix.Watermark()
	if err != nil {
		return err
	}
	return ix.finishBulk(uint64(max(total, 0)), max(seq, wm))
}

// Watermark is the number of the store's last batch the index holds (0:
// none recorded).
func (ix *Index) Watermark() (int64, error) {
	v, err := ix.idx.GetInternal(keyWatermark)
	if err != nil {
		return 0, fmt.Errorf("index: read watermark: %w", err)
	}
	if len(v) == 0 {
		return 0, nil
	}
	n, _ := binary.Uvarint(v)
	return int64(n), nil
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
