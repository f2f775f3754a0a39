package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// cachedResponse is the JSON of model_cache.response: what a model answer
// holds beyond the columns.
type cachedResponse struct {
	Text     string          `json:"text"`
	Logprobs []cachedLogprob `json:"logprobs,omitempty"`
}

type cachedLogprob struct {
	Token   string      `json:"token"`
	Logprob float64     `json:"logprob"`
	Top     []cachedTop `json:"top,omitempty"`
}

type cachedTop struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// GetCompletion returns the model answer stored under key, with found
// false when there is none. The answer's Cached field is left false: the
// caller (llm.Cached) marks hits.
func (d *DB) GetCompletion(ctx context.Context, key string) (pipeline.ModelResponse, bool, error) {
	var resp pipeline.ModelResponse
	var body string
	err := d.db.QueryRowContext(ctx,
		`SELECT model, response, prompt_tokens, completion_tokens FROM model_cache WHERE key = ?`, key).
		Scan(&resp.Model, &body, &resp.PromptTokens, &resp.CompletionTokens)
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.ModelResponse{}, false, nil
	}
	if err != nil {
		return pipeline.ModelResponse{}, false, fmt.Errorf("load cached answer %s: %w", key, err)
	}
	var cr cachedResponse
	if err := json.Unmarshal([]byte(body), &cr); err != nil {
		return pipeline.ModelResponse{}, false, fmt.Errorf("cached answer %s: response: %w", key, err)
	}
	resp.Text = cr.Text
	if len(cr.Logprobs) > 0 {
		resp.TokenLogprobs = make([]pipeline.TokenLogprob, len(cr.Logprobs))
		for i, lp := range cr.Logprobs {
			tl := pipeline.TokenLogprob{Token: lp.Token, Logprob: lp.Logprob}
			if len(lp.Top) > 0 {
				tl.Top = make([]pipeline.TopLogprob, len(lp.Top))
				for j, t := range lp.Top {
					tl.Top[j] = pipeline.TopLogprob{Token: t.Token, Logprob: t.Logprob}
				}
			}
			resp.TokenLogprobs[i] = tl
		}
	}
	return resp, true, nil
}

// PutCompletion stores a model answer under key. When the key is already
// stored (two identical calls raced) the first answer is kept and no error
// is returned.
func (d *DB) PutCompletion(ctx context.Context, key string, task pipeline.Task, resp pipeline.ModelResponse) error {
	cr := cachedResponse{Text: resp.Text}
	if len(resp.TokenLogprobs) > 0 {
		cr.Logprobs = make([]cachedLogprob, len(resp.TokenLogprobs))
		for i, tl := range resp.TokenLogprobs {
			lp := cachedLogprob{Token: tl.Token, Logprob: tl.Logprob}
			if len(tl.Top) > 0 {
				lp.Top = make([]cachedTop, len(tl.Top))
				for j, t := range tl.Top {
					lp.Top[j] = cachedTop{Token: t.Token, Logprob: t.Logprob}
				}
			}
			cr.Logprobs[i] = lp
		}
	}
	body, err := json.Marshal(cr)
	if err != nil {
		return fmt.Errorf("store cached answer %s: %w", key, err)
	}
	now := d.now().UTC().Format(time.RFC3339Nano)
	_, err = d.db.ExecContext(ctx, `INSERT INTO model_cache
		(key, task, model, response, prompt_tokens, completion_tokens, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(key) DO NOTHING`,
		key, string(task), resp.Model, string(body), resp.PromptTokens, resp.CompletionTokens, now)
	if err != nil {
		return fmt.Errorf("store cached answer %s: %w", key, err)
	}
	return nil
}
