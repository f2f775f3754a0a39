package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/crucible-portal/crucible/pipeline"
)

// Defaults of Config's zero fields.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultMaxConcurrent = 8
	DefaultMaxRetries    = 4
	DefaultBackoffBase   = 500 * time.Millisecond
	DefaultBackoffMax    = 20 * time.Second
)

// topLogprobs is how many alternatives per position a request asks for
// (the most the OpenAI API allows).
const topLogprobs = 5

// checkTimeout bounds each call Check makes, whatever the attempt timeout:
// a health check that waits a minute is no check.
const checkTimeout = 10 * time.Second

// Config configures an OpenAI client. Zero durations and counts take the
// defaults above.
type Config struct {
	// BaseURL is the endpoint's API root, such as https://api.openai.com/v1
	// or http://127.0.0.1:8000/v1 (vLLM). Required.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model is the model name sent with every request. Required.
	Model string
	// Timeout bounds one attempt (sending, waiting, reading the answer);
	// time spent waiting for a concurrency slot or between retries is not
	// counted.
	Timeout time.Duration
	// MaxConcurrent bounds the calls in flight at once across all
	// goroutines using the client.
	MaxConcurrent int
	// MaxRetries is how many times a failed attempt is retried (429, 5xx,
	// network errors, timeouts, malformed answers): a call makes at most
	// MaxRetries+1 attempts. Negative means no retries.
	MaxRetries int
	// BackoffBase and BackoffMax shape the wait before retry n (from 0): a
	// uniformly random duration in [0, min(BackoffMax, BackoffBase·2ⁿ)]
	// ("full jitter"). A Retry-After header replaces it, capped at
	// BackoffMax.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// HTTPClient sends the requests (tests inject one); nil uses a client
	// whose connection pool matches MaxConcurrent. Its own Timeout, if
	// any, applies on top of Timeout.
	HTTPClient *http.Client
	// Logger receives a warning for each retry and a note when the server
	// turns out not to support log-probabilities; nil logs nothing. Only
	// the model name, status and waits are logged, never prompts or keys.
	Logger *slog.Logger
}

// OpenAI is a pipeline.Model answering through an OpenAI-compatible chat
// completions endpoint. It is safe for concurrent use.
type OpenAI struct {
	cfg      Config
	endpoint string // BaseURL without credentials, for messages
	client   *openai.Client
	sem      chan struct{}
	// reasoning is set for the models go-openai knows as reasoning models
	// (o1, o3, o4, gpt-5...): they take max_completion_tokens and reject
	// temperature and logprobs.
	reasoning bool
	// noLogprobs is set once the server has rejected the logprobs
	// parameter; later requests no longer ask for them.
	noLogprobs atomic.Bool
	// sleep waits between retries; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewOpenAI checks cfg, fills its defaults and returns a client. It makes
// no network call: use Check for that.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, pipeline.Invalidf("model endpoint: no base URL")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, pipeline.Invalidf("model endpoint %q: base URL must be an http or https URL", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, pipeline.Invalidf("model endpoint %s: no model name", u.Redacted())
	}
	if cfg.Timeout < 0 || cfg.MaxConcurrent < 0 || cfg.BackoffBase < 0 || cfg.BackoffMax < 0 {
		return nil, pipeline.Invalidf("model endpoint %s: negative timeout, concurrency or backoff", u.Redacted())
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.BackoffMax < cfg.BackoffBase {
		cfg.BackoffMax = cfg.BackoffBase
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.MaxConcurrent
		hc = &http.Client{Transport: tr}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = patchingDoer{hc}

	// go-openai's validator rejects logprobs for the models it knows as
	// reasoning models; asking it is how we learn which those are.
	probe := openai.ChatCompletionRequest{Model: cfg.Model, LogProbs: true}
	reasoning := openai.NewReasoningValidator().Validate(probe) != nil

	return &OpenAI{
		cfg:       cfg,
		endpoint:  strings.TrimRight(u.Redacted(), "/"),
		client:    openai.NewClientWithConfig(oc),
		sem:       make(chan struct{}, cfg.MaxConcurrent),
		reasoning: reasoning,
		sleep:     sleepCtx,
	}, nil
}

// Name is the configured model name (the cache namespace of this client).
func (o *OpenAI) Name() string { return o.cfg.Model }

// Endpoint is the base URL, without any credentials it held.
func (o *OpenAI) Endpoint() string { return o.endpoint }

// Complete sends req's messages as a chat completion. Failed attempts are
// retried as Config says; the error after the last one wraps
// pipeline.ErrModel and names the attempts made and the last failure. A
// refusal that retrying cannot fix (400, 401, 403, 404...) fails at once,
// also wrapping pipeline.ErrModel. When ctx ends the call stops at once
// and the error wraps ctx.Err() (not ErrModel). A request without messages
// is rejected with pipeline.ErrInvalid.
//
// When req.Logprobs is set the client asks for token log-probabilities
// with the top 5 alternatives. A server that answers without them gives a
// response with no TokenLogprobs; a server that rejects the parameter (a
// 400 naming logprobs) gets the request again without it, and this client
// stops asking.
func (o *OpenAI) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if len(req.Messages) == 0 {
		return pipeline.ModelResponse{}, pipeline.Invalidf("model request %q has no messages", req.Task)
	}
	if req.MaxTokens < 0 {
		return pipeline.ModelResponse{}, pipeline.Invalidf("model request %q: negative max tokens %d", req.Task, req.MaxTokens)
	}
	logprobs := req.Logprobs && !o.reasoning && !o.noLogprobs.Load()
	fellBack := false
	retries := 0
	for attempt := 1; ; attempt++ {
		resp, err := o.attempt(ctx, req, logprobs)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return pipeline.ModelResponse{}, fmt.Errorf("model endpoint %s: %w", o.endpoint, ctxErr(ctx))
		}
		var ae *attemptError
		if !errors.As(err, &ae) {
			// Not reached: attempt returns attemptErrors.
			return pipeline.ModelResponse{}, fmt.Errorf("%w: model endpoint %s: %v", pipeline.ErrModel, o.endpoint, err)
		}
		if logprobs && !fellBack && ae.aboutLogprobs() {
			// The server does not take the parameter: ask again without
			// it, now and for every later request. This is not a retry.
			fellBack = true
			logprobs = false
			if !o.noLogprobs.Swap(true) && o.cfg.Logger != nil {
				o.cfg.Logger.Info("model endpoint rejects logprobs; asking without them from now on",
					"model", o.cfg.Model, "status", ae.status)
			}
			continue
		}
		if !ae.retryable {
			if attempt > 1 {
				return pipeline.ModelResponse{}, fmt.Errorf("%w: model endpoint %s: %v (attempt %d)", pipeline.ErrModel, o.endpoint, ae, attempt)
			}
			return pipeline.ModelResponse{}, fmt.Errorf("%w: model endpoint %s: %v", pipeline.ErrModel, o.endpoint, ae)
		}
		if retries >= o.cfg.MaxRetries {
			return pipeline.ModelResponse{}, fmt.Errorf("%w: model endpoint %s: giving up after %d attempts; last error: %v",
				pipeline.ErrModel, o.endpoint, attempt, ae)
		}
		wait := o.backoff(retries, ae.retryAfter)
		retries++
		pipeline.NoteRetry(ctx)
		if o.cfg.Logger != nil {
			o.cfg.Logger.Warn("model call failed; retrying",
				"model", o.cfg.Model, "task", string(req.Task), "attempt", attempt,
				"status", ae.status, "error", ae.Error(), "wait", wait)
		}
		if err := o.sleep(ctx, wait); err != nil {
			return pipeline.ModelResponse{}, fmt.Errorf("model endpoint %s: waiting to retry after %v: %w", o.endpoint, ae, err)
		}
	}
}

// attempt makes one call, holding a concurrency slot for its duration.
// Errors other than ctx's are *attemptError.
func (o *OpenAI) attempt(ctx context.Context, req pipeline.ModelRequest, logprobs bool) (pipeline.ModelResponse, error) {
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return pipeline.ModelResponse{}, ctxErr(ctx)
	}
	defer func() { <-o.sem }()

	actx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	ex := &exchange{}
	if !o.reasoning {
		// go-openai drops a zero temperature (omitempty) and servers then
		// sample at their default, usually 1: set it in the body.
		ex.fields = map[string]any{"temperature": req.Temperature}
	}
	actx = context.WithValue(actx, exchangeKey{}, ex)

	resp, err := o.client.CreateChatCompletion(actx, o.chatRequest(req, logprobs))
	if err != nil {
		return pipeline.ModelResponse{}, o.classify(ctx, actx, o.cfg.Timeout, ex, err)
	}
	if len(resp.Choices) == 0 {
		return pipeline.ModelResponse{}, &attemptError{msg: "malformed response: no choices", retryable: true}
	}
	choice := resp.Choices[0]
	out := pipeline.ModelResponse{
		Text:             choice.Message.Content,
		Model:            resp.Model,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
	}
	if out.Model == "" {
		out.Model = o.cfg.Model
	}
	if logprobs && choice.LogProbs != nil {
		out.TokenLogprobs = convertLogprobs(choice.LogProbs.Content)
	}
	return out, nil
}

// chatRequest builds the go-openai request.
func (o *OpenAI) chatRequest(req pipeline.ModelRequest, logprobs bool) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	cr := openai.ChatCompletionRequest{Model: o.cfg.Model, Messages: msgs}
	if o.reasoning {
		cr.MaxCompletionTokens = req.MaxTokens
	} else {
		// max_tokens, not max_completion_tokens: every OpenAI-compatible
		// server (vLLM, Ollama, llama.cpp) understands it.
		cr.MaxTokens = req.MaxTokens
	}
	if logprobs {
		cr.LogProbs = true
		cr.TopLogProbs = topLogprobs
	}
	return cr
}

func convertLogprobs(content []openai.LogProb) []pipeline.TokenLogprob {
	if len(content) == 0 {
		return nil
	}
	out := make([]pipeline.TokenLogprob, len(content))
	for i, lp := range content {
		out[i] = pipeline.TokenLogprob{Token: lp.Token, Logprob: lp.LogProb}
		if len(lp.TopLogProbs) > 0 {
			out[i].Top = make([]pipeline.TopLogprob, len(lp.TopLogProbs))
			for j, t := range lp.TopLogProbs {
				out[i].Top[j] = pipeline.TopLogprob{Token: t.Token, Logprob: t.LogProb}
			}
		}
	}
	return out
}

// backoff is the wait before retry n (from 0): the server's Retry-After
// when it gave one, else full jitter; both capped at BackoffMax.
func (o *OpenAI) backoff(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, o.cfg.BackoffMax)
	}
	ceiling := o.cfg.BackoffBase
	for i := 0; i < n && ceiling < o.cfg.BackoffMax; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, o.cfg.BackoffMax)
	return rand.N(ceiling + 1)
}

// Check makes one cheap call (listing the models, or when that fails a
// one-token completion) so a job can fail fast with a clear message when
// the endpoint is down or refuses the key. Each call is bounded by the
// smaller of Timeout and 10 seconds. Errors wrap pipeline.ErrModel, or
// ctx.Err() when ctx ends first.
func (o *OpenAI) Check(ctx context.Context) error {
	timeout := min(o.cfg.Timeout, checkTimeout)

	lctx, cancel := context.WithTimeout(ctx, timeout)
	ex := &exchange{}
	list, err := o.client.ListModels(context.WithValue(lctx, exchangeKey{}, ex))
	lerr := o.classify(ctx, lctx, timeout, ex, err)
	cancel()
	if err == nil {
		var names []string
		for _, m := range list.Models {
			if m.ID == o.cfg.Model {
				return nil
			}
			names = append(names, m.ID)
		}
		// Not listed: some servers list only part of what they serve, so
		// let a completion decide.
		if err := o.checkCompletion(ctx, timeout); err != nil {
			return fmt.Errorf("%w (the endpoint lists %s)", err, listNames(names))
		}
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("model endpoint %s: %w", o.endpoint, ctxErr(ctx))
	}
	var ae *attemptError
	if errors.As(lerr, &ae) {
		switch {
		case ae.status == 0 && !ae.malformed:
			return fmt.Errorf("%w: model endpoint %s unreachable: %s", pipeline.ErrModel, o.endpoint, ae.msg)
		case ae.status == http.StatusUnauthorized || ae.status == http.StatusForbidden:
			return fmt.Errorf("%w: model endpoint %s: %v", pipeline.ErrModel, o.endpoint, ae)
		}
	}
	// The server answered but has no usable model list: try a completion.
	return o.checkCompletion(ctx, timeout)
}

// checkCompletion asks for a one-token completion.
func (o *OpenAI) checkCompletion(ctx context.Context, timeout time.Duration) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ex := &exchange{}
	if !o.reasoning {
		ex.fields = map[string]any{"temperature": 0}
	}
	req := o.chatRequest(pipeline.ModelRequest{
		Messages:  []pipeline.Message{{Role: "user", Content: "Say OK."}},
		MaxTokens: 1,
	}, false)
	_, err := o.client.CreateChatCompletion(context.WithValue(cctx, exchangeKey{}, ex), req)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("model endpoint %s: %w", o.endpoint, ctxErr(ctx))
	}
	cerr := o.classify(ctx, cctx, timeout, ex, err)
	var ae *attemptError
	if errors.As(cerr, &ae) && ae.status == 0 && !ae.malformed {
		return fmt.Errorf("%w: model endpoint %s unreachable: %s", pipeline.ErrModel, o.endpoint, ae.msg)
	}
	return fmt.Errorf("%w: model endpoint %s: model %q: %v", pipeline.ErrModel, o.endpoint, o.cfg.Model, cerr)
}

func listNames(names []string) string {
	if len(names) == 0 {
		return "no models"
	}
	const most = 10
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// attemptError is why one attempt failed.
type attemptError struct {
	status     int    // HTTP status; 0 when no response was read
	msg        string // the server's error text, or what went wrong
	param      string // the request parameter the server blamed, if any
	retryable  bool
	malformed  bool          // a 2xx answer that could not be read
	retryAfter time.Duration // the server's Retry-After; 0 when absent
}

func (e *attemptError) Error() string {
	if e.status == 0 {
		return e.msg
	}
	s := strconv.Itoa(e.status) + " " + http.StatusText(e.status)
	if e.msg != "" {
		s += ": " + e.msg
	}
	return s
}

// aboutLogprobs reports whether the server rejected the request because
// of the logprobs parameters.
func (e *attemptError) aboutLogprobs() bool {
	if e.status != http.StatusBadRequest && e.status != http.StatusUnprocessableEntity {
		return false
	}
	return strings.Contains(strings.ToLower(e.param), "logprob") ||
		strings.Contains(strings.ToLower(e.msg), "logprob")
}

// classify turns a go-openai error into an *attemptError, or returns the
// parent context's error when it ended. attemptCtx is the attempt's own
// context (with its timeout); ex what the transport saw.
func (o *OpenAI) classify(parent, attemptCtx context.Context, timeout time.Duration, ex *exchange, err error) error {
	if err == nil {
		return nil
	}
	if parent.Err() != nil {
		return ctxErr(parent)
	}
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) {
		return &attemptError{msg: fmt.Sprintf("no answer within %v", timeout), retryable: true}
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	// RequestError first: it may wrap an empty APIError (go-openai keeps
	// the half-decoded one when the body's "error" is not an object).
	switch {
	case errors.As(err, &reqErr):
		ae := &attemptError{status: reqErr.HTTPStatusCode, msg: errorText(reqErr.Body)}
		o.statusRetry(ae, ex)
		return ae
	case errors.As(err, &apiErr):
		ae := &attemptError{status: apiErr.HTTPStatusCode, msg: oneLine(apiErr.Message)}
		if apiErr.Param != nil {
			ae.param = *apiErr.Param
		}
		if ae.msg == "" && apiErr.Code != nil {
			ae.msg = oneLine(fmt.Sprint(apiErr.Code))
		}
		o.statusRetry(ae, ex)
		return ae
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// The request did not get an answer: refused, reset, DNS...
		return &attemptError{msg: networkText(uerr.Err), retryable: true}
	}
	if ex.status != 0 {
		// A 2xx whose body could not be decoded: a proxy's error page, a
		// truncated or garbled answer. Treated as a server fault, so it is
		// retried.
		return &attemptError{msg: "malformed response: " + oneLine(err.Error()), retryable: true, malformed: true}
	}
	// go-openai refused to send the request (an unsupported model for the
	// endpoint...): retrying cannot help.
	return &attemptError{msg: oneLine(err.Error())}
}

// statusRetry decides whether a status is worth retrying and reads the
// server's Retry-After.
func (o *OpenAI) statusRetry(ae *attemptError, ex *exchange) {
	switch {
	case ae.status == http.StatusTooManyRequests, ae.status == http.StatusRequestTimeout, ae.status >= 500:
		ae.retryable = true
		ae.retryAfter = retryAfter(ex.header, time.Now())
	}
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// errorText extracts a readable message from an error body go-openai could
// not parse as {"error":{"message":...}}: {"error":"..."} (Ollama),
// {"detail":...} or {"message":...}, else the body itself.
func errorText(body []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"error", "message", "detail"} {
			var s string
			if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
				return oneLine(s)
			}
		}
	}
	return oneLine(string(body))
}

// networkText names a transport failure without the URL go-openai's
// url.Error repeats.
func networkText(err error) string {
	var op *net.OpError
	if errors.As(err, &op) {
		return oneLine(op.Error())
	}
	return oneLine(err.Error())
}

// oneLine collapses whitespace and bounds a server-provided text so it
// fits in an error message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const most = 300
	if len(s) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// ctxErr is ctx.Err(), naming the cancellation cause when one was given.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w (%v)", err, cause)
	}
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctxErr(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctxErr(ctx)
	}
}

// exchange carries, through the request context, what our HTTP layer must
// add to one go-openai request and what it saw of the answer.
type exchange struct {
	// fields are set in the JSON body, overriding go-openai's encoding
	// (which omits zero values such as temperature 0).
	fields map[string]any
	status int
	header http.Header
}

type exchangeKey struct{}

// patchingDoer is go-openai's HTTP client: it applies the exchange's body
// fields and records the status and headers, which go-openai's errors do
// not keep (Retry-After).
type patchingDoer struct {
	client *http.Client
}

func (d patchingDoer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return d.client.Do(req)
	}
	if len(ex.fields) > 0 && req.Body != nil {
		if err := patchBody(req, ex.fields); err != nil {
			return nil, err
		}
	}
	resp, err := d.client.Do(req)
	if err == nil {
		ex.status = resp.StatusCode
		ex.header = resp.Header
	}
	return resp, err
}

// patchBody sets fields in req's JSON object body.
func patchBody(req *http.Request, fields map[string]any) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return fmt.Errorf("patch request body: %w", err)
	}
	for k, f := range fields {
		v, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("patch request body: %s: %w", k, err)
		}
		obj[k] = v
	}
	body, err = json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("patch request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}
