package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// coRankEndpoint is an OpenAI-compatible endpoint for CoRank: it answers
// feature prompts with fixed features, listwise prompts with "[1]", and
// embeddings with vectors hashed from the texts, counting the texts it
// was asked to embed.
type coRankEndpoint struct {
	embedded atomic.Int64
	chats    atomic.Int64
}

func (e *coRankEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	body, _ := io.ReadAll(r.Body)
	switch {
	case strings.HasSuffix(r.URL.Path, "/models"):
		fmt.Fprint(w, `{"object":"list","data":[{"id":"chat-model","object":"model"},{"id":"embed-model","object":"model"}]}`)
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Model != "embed-model" {
			http.Error(w, `{"error":{"message":"bad embeddings request"}}`, 400)
			return
		}
		e.embedded.Add(int64(len(req.Input)))
		var data []string
		for i, t := range req.Input {
			h := fnv.New32a()
			h.Write([]byte(t))
			v := h.Sum32()
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,%d,%d]}`, i, v%7+1, v%11, v%13))
		}
		fmt.Fprintf(w, `{"object":"list","model":"embed-model","data":[%s]}`, strings.Join(data, ","))
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		e.chats.Add(1)
		text := "[1]"
		if strings.Contains(string(body), "Describe it compactly") {
			kw := make([]string, rerank.MinKeywords)
			q := make([]string, rerank.PseudoQueries)
			for i := range kw {
				kw[i] = fmt.Sprintf("tariff keyword %d", i)
			}
			for i := range q {
				q[i] = fmt.Sprintf("tariff duties question %d", i)
			}
			text = rerank.FormatFeatures(rerank.DocFeatures{Title: "Tariffs and revenue", Category: []string{"Economy", "Trade", "Tariffs"},
				Headings: []string{"Duties", "Revenue", "Imports"}, Keywords: kw, Queries: q})
		}
		b, _ := json.Marshal(text)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","model":"chat-model","choices":[{"index":0,"finish_reason":"stop",
			"message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, b)
	default:
		http.NotFound(w, r)
	}
}

// TestRerankCoRankWithEmbeddings runs CoRank against a scripted endpoint
// with --embed-model: feature items are chosen by embedding similarity,
// and a second run embeds nothing again (the embeddings are cached).
func TestRerankCoRankWithEmbeddings(t *testing.T) {
	t.Parallel()
	data, dir := preparedData(t, sampleCorpus), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"c-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":500}`+"\n")
	queries := writeTestFile(t, dir, "queries.jsonl", `{"id":"c-1","text":"Tariffs What did the addresses say about tariffs and duties on imports?"}`+"\n")
	run := filepath.Join(dir, "bm25.run")
	if _, stderr, code := runCmd(t, "search", "--data", data, "--docs", "--queries", queries, "--run", run, "--k", "8"); code != 0 {
		t.Fatalf("search: %s", stderr)
	}
	ep := &coRankEndpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	trace := filepath.Join(dir, "trace.jsonl")
	args := []string{"rerank", "--data", data, "--requests", reqs, "--run", run, "--method", "corank", "--out", filepath.Join(dir, "out.run"),
		"--engine", "openai", "--model-url", srv.URL + "/v1", "--model", "chat-model", "--embed-model", "embed-model", "--trace", trace}
	if _, stderr, code := runCmd(t, args...); code != 0 {
		t.Fatalf("rerank: exit %d\n%s", code, stderr)
	}
	first := ep.embedded.Load()
	if first == 0 {
		t.Fatal("no text was embedded")
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Trace struct {
			Similarity   string `json:"similarity"`
			Depth        int    `json:"depth"`
			CoarseWindow int    `json:"coarse_window"`
		} `json:"trace"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &line); err != nil {
		t.Fatal(err)
	}
	if line.Trace.Similarity != "embedding" || line.Trace.CoarseWindow != line.Trace.Depth {
		t.Errorf("trace similarity %q, coarse window %d of depth %d; want embedding, one prompt over all", line.Trace.Similarity,
			line.Trace.CoarseWindow, line.Trace.Depth)
	}
	if _, stderr, code := runCmd(t, args...); code != 0 {
		t.Fatalf("second rerank: exit %d\n%s", code, stderr)
	}
	if again := ep.embedded.Load(); again != first {
		t.Errorf("the second run embedded %d more texts; the cache should answer", again-first)
	}
	// --embed-model without an endpoint is refused.
	if _, stderr, code := runCmd(t, "rerank", "--data", data, "--requests", reqs, "--run", run, "--method", "corank",
		"--out", filepath.Join(dir, "x.run"), "--embed-model", "embed-model"); code != 2 || !strings.Contains(stderr, "--embed-model needs --model-url") {
		t.Errorf("embed model without endpoint: exit %d, %s", code, stderr)
	}
}
