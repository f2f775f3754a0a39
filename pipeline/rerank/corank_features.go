package rerank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// FeatureRecord is the features of one document as a feature store keeps
// them.
type FeatureRecord struct {
	DocID string
	// Hash is FeatureHash of the document the features were extracted
	// from: when the document changes, its stored features no longer
	// match and are extracted again.
	Hash     string
	Features DocFeatures
}

// FeatureStore keeps documents' features by (document id, namespace).
// *sqlite.DB implements it.
type FeatureStore interface {
	// GetFeatures returns the records stored in namespace for the ids, by
	// id; ids without a record are absent from the map. Whether a record
	// is current is the caller's check (FeatureRecord.Hash).
	GetFeatures(ctx context.Context, namespace string, docIDs []string) (map[string]FeatureRecord, error)
	// PutFeatures stores records in namespace, replacing any stored for
	// the same document there.
	PutFeatures(ctx context.Context, namespace string, recs []FeatureRecord) error
}

// FeatureHash is the content hash that decides whether stored features
// are still those of a document: the hex SHA-256 of its title, a NUL byte
// and its text — the two things the feature prompt shows.
func FeatureHash(d pipeline.Document) string {
	h := sha256.New()
	h.Write([]byte(d.Title))
	h.Write([]byte{0})
	h.Write([]byte(d.Text))
	return hex.EncodeToString(h.Sum(nil))
}

// FeatureNamespace is the feature store namespace of features extracted
// by the engine whose answer cache namespace is engine (llm.Cached's
// Namespace: the model name, or offline.Version) with docChars characters
// of text shown: "<engine>/corank-features-v1/<docChars>". Features of
// another engine, prompt version or text budget are kept apart and never
// mistaken for these. docChars ≤ 0 means DefaultFeatureChars.
func FeatureNamespace(engine string, docChars int) string {
	if docChars <= 0 {
		docChars = DefaultFeatureChars
	}
	return engine + "/" + FeaturesPromptVersion + "/" + strconv.Itoa(docChars)
}

// Extraction is one document's feature extraction.
type Extraction struct {
	// Record holds the document's id, FeatureHash and parsed features.
	Record FeatureRecord
	// Response is the model's answer (for usage and caching counts).
	Response pipeline.ModelResponse
	// Report lists what the parser dropped or missed.
	Report prompts.ParseReport
}

// ExtractFeatures asks model for the features of doc, showing its title
// and its text cut at a word boundary to docChars characters (≤ 0:
// DefaultFeatureChars). A failed call returns the model's error; an
// answer with no usable feature returns the Extraction with its Response
// and the parser's *prompts.ParseError (which wraps pipeline.ErrInvalid):
// the caller decides whether to go on without features.
func ExtractFeatures(ctx context.Context, model pipeline.Model, doc pipeline.Document, docChars int) (Extraction, error) {
	if docChars <= 0 {
		docChars = DefaultFeatureChars
	}
	text, cut := cutText(strings.TrimSpace(strings.ToValidUTF8(doc.Text, "\uFFFD")), docChars)
	req := BuildFeatures(FeaturesInput{Doc: PromptDoc{ID: doc.ID, Title: flatten(doc.Title), Text: text}, Cut: cut})
	x := Extraction{Record: FeatureRecord{DocID: doc.ID, Hash: FeatureHash(doc)}}
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return x, err
	}
	x.Response = resp
	out, err := ParseFeatures(resp.Text)
	x.Report = out.Report
	if err != nil {
		return x, err
	}
	x.Record.Features = out.Features
	return x, nil
}

// MemoryFeatureStore is a FeatureStore in memory, safe for concurrent
// use: what CoRank uses when it is given no store, so that one reranker
// extracts each document's features once for as long as it lives.
type MemoryFeatureStore struct {
	mu   sync.Mutex
	recs map[string]map[string]FeatureRecord // namespace → id → record
}

// GetFeatures implements FeatureStore.
func (m *MemoryFeatureStore) GetFeatures(ctx context.Context, namespace string, docIDs []string) (map[string]FeatureRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]FeatureRecord{}
	for _, id := range docIDs {
		if r, ok := m.recs[namespace][id]; ok {
			out[id] = r
		}
	}
	return out, nil
}

// PutFeatures implements FeatureStore.
func (m *MemoryFeatureStore) PutFeatures(ctx context.Context, namespace string, recs []FeatureRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range recs {
		if r.DocID == "" {
			return fmt.Errorf("store features: %w", pipeline.Invalidf("a feature record has an empty document id"))
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]map[string]FeatureRecord{}
	}
	if m.recs[namespace] == nil {
		m.recs[namespace] = map[string]FeatureRecord{}
	}
	for _, r := range recs {
		m.recs[namespace][r.DocID] = r
	}
	return nil
}
