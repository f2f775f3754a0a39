package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// embeddingsAnswer answers an embeddings request: text i gets [len, i],
// listed in reverse to check that the index, not the order, places it.
func embeddingsAnswer(body map[string]any) string {
	in := body["input"].([]any)
	var data []string
	for i := len(in) - 1; i >= 0; i-- {
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,%d]}`, i, len(in[i].(string)), i))
	}
	return `{"object":"list","model":"embed-test","data":[` + strings.Join(data, ",") + `],"usage":{"prompt_tokens":3,"total_tokens":3}}`
}

func TestEmbed(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			writeJSON(w, 429, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		case 2:
			writeJSON(w, 503, `{"error":{"message":"overloaded"}}`)
		default:
			writeJSON(w, 200, embeddingsAnswer(body))
		}
	})
	o, waits := newTestClient(t, f.URL(), func(c *Config) { c.Model = "embed-test" })
	vs, err := o.Embed(context.Background(), []string{"tariff", "ships"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{6, 0}, {5, 1}}, vs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if len(*waits) != 2 {
		t.Errorf("retried %d times, want 2 (a 429 and a 503)", len(*waits))
	}
	reqs := f.requests()
	if reqs[2]["model"] != "embed-test" {
		t.Errorf("model %v", reqs[2]["model"])
	}
}

func TestEmbedMalformedAndRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer func(body map[string]any) (int, string)
		want   string
	}{
		{"too few vectors", func(map[string]any) (int, string) {
			return 200, `{"object":"list","data":[{"index":0,"embedding":[1,2]}]}`
		}, "1 embeddings for 2 texts"},
		{"dimensions differ", func(map[string]any) (int, string) {
			return 200, `{"object":"list","data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`
		}, "dimensions"},
		{"not JSON", func(map[string]any) (int, string) { return 200, `<html>gateway</html>` }, "malformed response"},
		{"refused", func(map[string]any) (int, string) {
			return 404, `{"error":{"message":"no such model: embed-test"}}`
		}, "no such model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
				status, text := tt.answer(body)
				writeJSON(w, status, text)
			})
			o, _ := newTestClient(t, f.URL(), func(c *Config) { c.Model = "embed-test"; c.MaxRetries = 1 })
			_, err := o.Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, pipeline.ErrModel) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrModel naming %q", err, tt.want)
			}
		})
	}
}

// memEmbeddings is an in-memory EmbeddingStore.
type memEmbeddings struct {
	mu sync.Mutex
	m  map[string][]float32
}

func (s *memEmbeddings) GetEmbeddings(_ context.Context, ns string, keys []string) (map[string][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]float32{}
	for _, k := range keys {
		if v, ok := s.m[ns+"/"+k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func (s *memEmbeddings) PutEmbeddings(_ context.Context, ns string, vs map[string][]float32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]float32{}
	}
	for k, v := range vs {
		s.m[ns+"/"+k] = v
	}
	return nil
}

func TestCachedEmbedder(t *testing.T) {
	f := newFakeEndpoint(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, embeddingsAnswer(body))
	})
	o, _ := newTestClient(t, f.URL(), func(c *Config) { c.Model = "embed-test" })
	c := CachedEmbedder{Next: o, Store: &memEmbeddings{}, Namespace: "embed-test"}
	ctx := context.Background()
	if _, err := c.Embed(ctx, []string{"tariff", "ships", "tariff"}); err != nil {
		t.Fatal(err)
	}
	vs, err := c.Embed(ctx, []string{"ships", "navy", "tariff"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{5, 1}, {4, 0}, {6, 0}}, vs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d embeddings requests, want 2", len(reqs))
	}
	// Each text is sent once: the repeat and the cached ones are not.
	for i, want := range [][]any{{"tariff", "ships"}, {"navy"}} {
		if diff := cmp.Diff(want, reqs[i]["input"]); diff != "" {
			t.Errorf("request %d input (-want +got):\n%s", i+1, diff)
		}
	}
}
