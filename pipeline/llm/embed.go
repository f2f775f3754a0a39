package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"

	openai "github.com/sashabaranov/go-openai"

	"github.com/crucible-portal/crucible/pipeline"
)

// MaxEmbedBatch bounds the texts of one embeddings request.
const MaxEmbedBatch = 256

// Embed returns one vector per text, in order, from the endpoint's
// /embeddings route with the client's model (Config.Model names the
// embedding model). Texts go in batches of at most MaxEmbedBatch. Failed
// attempts are retried as for Complete (429, 5xx, timeouts, malformed
// answers); an answer with the wrong number of vectors, a vector of
// another dimension than the others, or a non-finite value is malformed.
// Errors wrap pipeline.ErrModel, or ctx's error when ctx ends.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += MaxEmbedBatch {
		part := texts[start:min(start+MaxEmbedBatch, len(texts))]
		vs, err := o.embedBatch(ctx, part)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	if err := sameDimension(out); err != nil {
		return nil, fmt.Errorf("%w: model endpoint %s: embeddings: %v", pipeline.ErrModel, o.endpoint, err)
	}
	return out, nil
}

// embedBatch is one embeddings request with Complete's retries.
func (o *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	retries := 0
	for attempt := 1; ; attempt++ {
		vs, err := o.embedAttempt(ctx, texts)
		if err == nil {
			return vs, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model endpoint %s: %w", o.endpoint, ctxErr(ctx))
		}
		var ae *attemptError
		if !errors.As(err, &ae) {
			return nil, fmt.Errorf("%w: model endpoint %s: embeddings: %v", pipeline.ErrModel, o.endpoint, err)
		}
		if !ae.retryable {
			return nil, fmt.Errorf("%w: model endpoint %s: embeddings: %v", pipeline.ErrModel, o.endpoint, ae)
		}
		if retries >= o.cfg.MaxRetries {
			return nil, fmt.Errorf("%w: model endpoint %s: embeddings: giving up after %d attempts; last error: %v",
				pipeline.ErrModel, o.endpoint, attempt, ae)
		}
		wait := o.backoff(retries, ae.retryAfter)
		retries++
		if o.cfg.Logger != nil {
			o.cfg.Logger.Warn("embeddings call failed; retrying", "model", o.cfg.Model, "attempt", attempt,
				"status", ae.status, "error", ae.Error(), "wait", wait)
		}
		if err := o.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("model endpoint %s: waiting to retry after %v: %w", o.endpoint, ae, err)
		}
	}
}

// embedAttempt makes one embeddings call, holding a concurrency slot.
func (o *OpenAI) embedAttempt(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxErr(ctx)
	}
	defer func() { <-o.sem }()
	actx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	ex := &exchange{}
	actx = context.WithValue(actx, exchangeKey{}, ex)
	resp, err := o.client.CreateEmbeddings(actx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(o.cfg.Model)})
	if err != nil {
		return nil, o.classify(ctx, actx, o.cfg.Timeout, ex, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, &attemptError{msg: fmt.Sprintf("malformed response: %d embeddings for %d texts", len(resp.Data), len(texts)),
			retryable: true, malformed: true}
	}
	out := make([][]float32, len(texts))
	for i, d := range resp.Data {
		k := d.Index
		if k < 0 || k >= len(texts) || out[k] != nil {
			k = i // servers that leave index out answer in order
		}
		if out[k] != nil || len(d.Embedding) == 0 {
			return nil, &attemptError{msg: fmt.Sprintf("malformed response: embedding %d is empty or repeated", i), retryable: true, malformed: true}
		}
		for _, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, &attemptError{msg: fmt.Sprintf("malformed response: embedding %d holds %v", i, x), retryable: true, malformed: true}
			}
		}
		out[k] = d.Embedding
	}
	if err := sameDimension(out); err != nil {
		return nil, &attemptError{msg: "malformed response: " + err.Error(), retryable: true, malformed: true}
	}
	return out, nil
}

// sameDimension checks that every vector has the first one's length.
func sameDimension(vs [][]float32) error {
	for i, v := range vs {
		if len(v) != len(vs[0]) {
			return fmt.Errorf("embedding %d has %d dimensions, embedding 0 has %d", i, len(v), len(vs[0]))
		}
	}
	return nil
}

// Embedder turns texts into vectors (rerank.Embedder's shape).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbeddingStore keeps embeddings by namespace and text key (the SQLite
// store implements it).
type EmbeddingStore interface {
	// GetEmbeddings returns the stored vectors of the keys; absent keys
	// are not in the map.
	GetEmbeddings(ctx context.Context, namespace string, keys []string) (map[string][]float32, error)
	// PutEmbeddings stores vectors by key, replacing earlier ones.
	PutEmbeddings(ctx context.Context, namespace string, vectors map[string][]float32) error
}

// CachedEmbedder embeds through Store: a text embedded before under
// Namespace (the embedding model's name) is read back, and only the others
// are sent to Next, in one call. Safe for concurrent use when Next and
// Store are.
type CachedEmbedder struct {
	Next      Embedder
	Store     EmbeddingStore
	Namespace string
}

// EmbeddingKey is the cache key of a text: its SHA-256, hex.
func EmbeddingKey(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// Embed implements Embedder.
func (c CachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	keys := make([]string, len(texts))
	for i, t := range texts {
		keys[i] = EmbeddingKey(t)
	}
	have, err := c.Store.GetEmbeddings(ctx, c.Namespace, keys)
	if err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	var missing []string
	var at []int
	queued := map[string]bool{}
	for i, k := range keys {
		if _, ok := have[k]; !ok && !queued[k] {
			queued[k] = true
			missing = append(missing, texts[i])
			at = append(at, i)
		}
	}
	if len(missing) > 0 {
		vs, err := c.Next.Embed(ctx, missing)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(missing) {
			return nil, fmt.Errorf("%w: %d embeddings for %d texts", pipeline.ErrModel, len(vs), len(missing))
		}
		put := make(map[string][]float32, len(vs))
		for j, v := range vs {
			put[keys[at[j]]] = v
			have[keys[at[j]]] = v
		}
		if err := c.Store.PutEmbeddings(ctx, c.Namespace, put); err != nil {
			return nil, fmt.Errorf("embedding cache: %w", err)
		}
	}
	out := make([][]float32, len(texts))
	for i, k := range keys {
		out[i] = have[k]
	}
	if err := sameDimension(out); err != nil {
		return nil, fmt.Errorf("%w: embedding cache %s: %v", pipeline.ErrModel, c.Namespace, err)
	}
	return out, nil
}
