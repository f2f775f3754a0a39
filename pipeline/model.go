package pipeline

import (
	"context"
	"errors"
)

// Task names a kind of model request. Each task has a prompt, a parser and
// an offline answer (see pipeline/prompts and pipeline/llm).
type Task string

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// ModelRequest asks the model to do one task. The OpenAI-compatible client
// sends Messages; the offline engine reads Input, the task's structured
// inputs, and answers in the same output format, so the same parser reads
// both.
type ModelRequest struct {
	Task Task
	// Input holds the task's structured inputs (a type of pipeline/prompts).
	// It is not part of the cache key: Messages are derived from it.
	Input    any
	Messages []Message
	// MaxTokens bounds the answer (0: the server's default).
	MaxTokens int
	// Temperature is the sampling temperature (0 for deterministic tasks).
	Temperature float64
	// Logprobs asks for token log-probabilities (extraction confidence,
	// yes/no scoring). Servers that do not return them are tolerated: the
	// response then has no TokenLogprobs.
	Logprobs bool
}

// TokenLogprob is one generated token and its log-probability, with the
// most likely alternatives at that position when the server gives them.
type TokenLogprob struct {
	Token   string
	Logprob float64
	Top     []TopLogprob
}

// TopLogprob is an alternative token at a position.
type TopLogprob struct {
	Token   string
	Logprob float64
}

// ModelResponse is the model's answer.
type ModelResponse struct {
	Text string
	// TokenLogprobs is empty when not asked for or not returned.
	TokenLogprobs []TokenLogprob
	// Model is the model (or engine) that answered.
	Model            string
	PromptTokens     int
	CompletionTokens int
	// Cached is true when the answer was replayed from the cache.
	Cached bool
}

// Model answers model requests. Implementations honour ctx cancellation
// and return errors wrapping ErrModel for failures after their retries.
type Model interface {
	Complete(ctx context.Context, req ModelRequest) (ModelResponse, error)
}

// ErrModel marks a failed model call (after retries): the endpoint was
// unreachable, kept failing, or refused the request.
var ErrModel = errors.New("model call failed")
