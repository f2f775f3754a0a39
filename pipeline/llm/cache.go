package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// CacheStore keeps model answers by cache key. *sqlite.DB implements it.
type CacheStore interface {
	// GetCompletion returns the answer stored under key, with found false
	// (and no error) when there is none.
	GetCompletion(ctx context.Context, key string) (resp pipeline.ModelResponse, found bool, err error)
	// PutCompletion stores an answer. A key already stored keeps its first
	// answer and is not an error: two identical calls may race to store.
	PutCompletion(ctx context.Context, key string, task pipeline.Task, resp pipeline.ModelResponse) error
}

// Cached is a pipeline.Model that replays answers from Store and asks Next
// only for requests it has not seen. Namespace separates engines whose
// answers differ for the same request: the model name for an endpoint,
// "offline-vN" for the offline engine.
//
// Hits come back with Cached set and the token counts of the original
// call, so a job can show what the cache saved. Failed calls are not
// stored. Two identical requests missing at the same time both call Next;
// the first answer stored is kept.
//
// Observer, when set, hears every call (hit, answer or failure) with the
// stage the run is in (pipeline.StageFrom) and the retries the layers
// beneath noted (pipeline.NoteRetry); Engine names the engine to it
// (empty: Namespace).
type Cached struct {
	Next      pipeline.Model
	Store     CacheStore
	Namespace string
	Observer  pipeline.ModelObserver
	Engine    string
}

// Complete answers req from the cache or from Next. Errors of Next are
// returned as they are; errors reading or writing the cache are returned
// too (a cache that silently stops storing would make a resumed job pay
// again for calls it had made).
func (c Cached) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if c.Observer == nil {
		return c.complete(ctx, req)
	}
	start := time.Now()
	ctx, notes := pipeline.WithCallNotes(ctx)
	resp, err := c.complete(ctx, req)
	engine := c.Engine
	if engine == "" {
		engine = c.Namespace
	}
	c.Observer.ModelCall(pipeline.ModelCall{
		Engine: engine, Task: req.Task, Stage: pipeline.StageFrom(ctx), Cached: resp.Cached, Err: err,
		Retries: notes.Retries(), PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens,
		Elapsed: time.Since(start),
	})
	return resp, err
}

func (c Cached) complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if c.Next == nil || c.Store == nil {
		return pipeline.ModelResponse{}, pipeline.Invalidf("model cache: no model or no store configured")
	}
	if strings.TrimSpace(c.Namespace) == "" {
		return pipeline.ModelResponse{}, pipeline.Invalidf("model cache: empty namespace")
	}
	key := CacheKey(c.Namespace, req)
	resp, ok, err := c.Store.GetCompletion(ctx, key)
	if err != nil {
		return pipeline.ModelResponse{}, fmt.Errorf("model cache: task %q: %w", req.Task, err)
	}
	if ok {
		resp.Cached = true
		return resp, nil
	}
	resp, err = c.Next.Complete(ctx, req)
	if err != nil {
		return pipeline.ModelResponse{}, err
	}
	resp.Cached = false
	if err := c.Store.PutCompletion(ctx, key, req.Task, resp); err != nil {
		return pipeline.ModelResponse{}, fmt.Errorf("model cache: task %q: %w", req.Task, err)
	}
	return resp, nil
}

// cacheKeyVersion changes when the key's canonical form changes, so old
// entries are no longer found instead of being misread.
const cacheKeyVersion = 1

// cacheKeyFields is the canonical form hashed into a cache key. Field
// order is fixed by the struct; Input is left out (Messages are derived
// from it).
type cacheKeyFields struct {
	Version     int            `json:"v"`
	Namespace   string         `json:"namespace"`
	Task        pipeline.Task  `json:"task"`
	Messages    []cacheMessage `json:"messages"`
	MaxTokens   int            `json:"max_tokens"`
	Temperature float64        `json:"temperature"`
	Logprobs    bool           `json:"logprobs"`
}

type cacheMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// CacheKey is the hex SHA-256 of the canonical JSON of the namespace, the
// task, the messages and the parameters (max tokens, temperature,
// logprobs) of req.
func CacheKey(namespace string, req pipeline.ModelRequest) string {
	f := cacheKeyFields{
		Version:     cacheKeyVersion,
		Namespace:   namespace,
		Task:        req.Task,
		Messages:    make([]cacheMessage, len(req.Messages)),
		MaxTokens:   req.MaxTokens,
		Temperature: req.Temperature,
		Logprobs:    req.Logprobs,
	}
	for i, m := range req.Messages {
		f.Messages[i] = cacheMessage{Role: m.Role, Content: m.Content}
	}
	b, err := json.Marshal(f)
	if err != nil {
		// Only NaN or infinite temperatures fail to encode; hash their
		// text instead so the key stays defined.
		b = fmt.Appendf(nil, "%#v", f)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
