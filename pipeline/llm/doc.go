// Package llm is the model adapter of the pipeline domain: it answers
// pipeline.Model requests.
//
// The layers, from the pipeline's point of view:
//
//   - pipeline.Model is the contract the stages consume. A stage builds a
//     pipeline.ModelRequest carrying its task kind, its structured inputs and
//     the chat messages of its prompt, and parses the answer's text.
//   - Cached wraps any Model and replays answers from a CacheStore (the
//     SQLite database, see pipeline/sqlite) keyed by a hash of the namespace
//     and the request's messages and parameters, so re-running a report,
//     resuming a job or evaluating a variant costs nothing for the calls
//     already made.
//   - OpenAI talks to any OpenAI-compatible endpoint (a hosted API, vLLM,
//     Ollama, llama.cpp server) through github.com/sashabaranov/go-openai.
//     It bounds concurrent calls, times out and retries each attempt with
//     backoff, asks for token log-probabilities when a request wants them and
//     copes with servers that do not give them.
//   - The offline engine (package pipeline/llm/offline) answers the same
//     requests from their structured inputs with lexical methods, for when no
//     endpoint is configured.
//
// The binary wires them as Cached{Next: an OpenAI or the offline engine,
// Store: the database, Namespace: the model name or the offline engine's
// version}, so the two engines never share cache entries.
package llm
