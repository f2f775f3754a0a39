package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/eval"
)

// searchHitJSON is one line of `crucible search --json` output.
type searchHitJSON struct {
	DocID     string  `json:"doc_id"`
	PassageID string  `json:"passage_id"`
	Rank      int     `json:"rank"`
	Score     float64 `json:"score"`
	Title     string  `json:"title"`
	Text      string  `json:"text"`
	Start     int     `json:"start"`
	End       int     `json:"end"`
}

func cmdSearch(ctx context.Context, args []string, env envFunc, stdout, stderr io.Writer) error {
	fs := newFlagSet("search", stderr)
	var c commonFlags
	c.register(fs, env)
	k := fs.Int("k", 0, "number of hits (default 10, or 1000 with --queries)")
	docs := fs.Bool("docs", false, "rank documents (best passage per document) instead of passages")
	asJSON := fs.Bool("json", false, "print hits as a JSON array")
	queries := fs.String("queries", "", "JSON Lines `file` of {\"id\",\"text\"} queries to run in batch")
	runOut := fs.String("run", "", "with --queries: write a TREC run to this `file`")
	tag := fs.String("tag", "crucible-bm25", "run tag (last column of the run file)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crucible search --data DIR [--k N] [--docs] [--json] QUERY\n       crucible search --data DIR --queries FILE.jsonl --run OUT.run [--k 1000] [--docs]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *queries != "" {
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: give either --queries or a QUERY, not both", errUsage)
		}
		if *runOut == "" {
			return fmt.Errorf("%w: --queries needs --run OUT.run", errUsage)
		}
		if *k == 0 {
			*k = 1000
		}
	} else {
		if fs.NArg() == 0 {
			fs.Usage()
			return fmt.Errorf("%w: no query given", errUsage)
		}
		if *k == 0 {
			*k = 10
		}
	}
	if *k < 0 {
		return fmt.Errorf("%w: --k must be positive", errUsage)
	}
	a, err := openApp(ctx, c)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.ensureIndex(ctx, stderr); err != nil {
		return err
	}
	if *queries != "" {
		return runQueries(ctx, a, *queries, *runOut, *tag, *k, *docs, stdout, stderr)
	}
	query := strings.Join(fs.Args(), " ")
	res, err := a.searcher().Search(ctx, pipeline.SearchRequest{Query: query, K: *k, Docs: *docs, Highlight: !*asJSON, Count: true})
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]searchHitJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			out = append(out, searchHitJSON{h.DocID, h.PassageID, h.Rank, h.Score, h.Title, h.Text, h.Start, h.End})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(res.Hits) == 0 {
		if strings.TrimSpace(query) != "" && len(res.Terms) == 0 {
			fmt.Fprintf(stdout, "nothing searched for: every word of %q is too common to search for\n", query)
			return nil
		}
		fmt.Fprintf(stdout, "no results for %q\n", query)
		return nil
	}
	for _, h := range res.Hits {
		fmt.Fprintf(stdout, "%3d  %8.4f  %s  %s\n", h.Rank, h.Score, h.PassageID, oneLine(h.Title, 80))
		fmt.Fprintf(stdout, "     %s\n", fragmentLine(h))
	}
	fmt.Fprintf(stdout, "%d of %d matching %s in %s\n", len(res.Hits), res.Total, unit(*docs), res.Took)
	return nil
}

func unit(docs bool) string {
	if docs {
		return "documents"
	}
	return "passages"
}

// oneLine collapses whitespace and shortens s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// queryLine is one line of a queries file.
type queryLine struct {
	ID   json.RawMessage `json:"id"`
	Text string          `json:"text"`
}

// runQueries runs every query of a JSON Lines file and writes a TREC run.
// Bad lines are reported by line and skipped; the others still run.
func runQueries(ctx context.Context, a *app, path, out, tag string, k int, docs bool, stdout, stderr io.Writer) error {
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	s := a.searcher()
	ran, bad, err := eachLine(ctx, path, stderr, func(raw []byte) error {
		return runOneQuery(ctx, s, raw, tag, k, docs, bw)
	})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(stdout, "ran %d queries, wrote %s (top %d %s each); %d bad line(s) skipped\n", ran, out, k, unit(docs), bad)
	if bad > 0 {
		return &exitError{code: 3}
	}
	return nil
}

func runOneQuery(ctx context.Context, s pipeline.Searcher, raw []byte, tag string, k int, docs bool, w io.Writer) error {
	var q queryLine
	if err := json.Unmarshal(raw, &q); err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	id := strings.Trim(string(q.ID), `"`)
	if len(q.ID) == 0 || id == "" || id == "null" {
		return fmt.Errorf(`missing "id"`)
	}
	if strings.ContainsAny(id, " \t\r\n") {
		return fmt.Errorf("query id %q contains whitespace, which a run file cannot hold", id)
	}
	if strings.TrimSpace(q.Text) == "" {
		return fmt.Errorf(`query %s has empty "text"`, id)
	}
	res, err := s.Search(ctx, pipeline.SearchRequest{Query: q.Text, K: k, Docs: docs})
	if err != nil {
		return fmt.Errorf("query %s: %w", id, err)
	}
	entries := make([]eval.RunEntry, len(res.Hits))
	for i, h := range res.Hits {
		did := h.PassageID
		if docs {
			did = h.DocID
		}
		entries[i] = eval.RunEntry{DocID: did, Rank: h.Rank, Score: h.Score}
	}
	return eval.WriteRun(w, id, entries, tag)
}

// fragmentLine is a hit's first highlighted fragment on one line, matches
// in [brackets] as the search page marks them; the start of the passage
// when the hit has no fragment.
func fragmentLine(h pipeline.Hit) string {
	if len(h.Fragments) == 0 {
		return oneLine(h.Text, 160)
	}
	var b strings.Builder
	for _, p := range h.Fragments[0] {
		if p.Match {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	return oneLine(b.String(), 200)
}
