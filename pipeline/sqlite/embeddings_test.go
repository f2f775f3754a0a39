package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/llm"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

var _ llm.EmbeddingStore = (*sqlite.DB)(nil)

func TestEmbeddingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	v := []float32{0.25, -1.5, float32(math.Pi), 0}
	if err := db.PutEmbeddings(ctx, "emb-a", map[string][]float32{"k1": v, "k2": {1}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetEmbeddings(ctx, "emb-a", []string{"k1", "k2", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]float32{"k1": v, "k2": {1}}, got); diff != "" {
		t.Errorf("embeddings (-want +got):\n%s", diff)
	}
	// Another model's namespace holds its own vectors; a put replaces.
	if got, _ := db.GetEmbeddings(ctx, "emb-b", []string{"k1"}); len(got) != 0 {
		t.Errorf("namespace emb-b sees %v", got)
	}
	if err := db.PutEmbeddings(ctx, "emb-a", map[string][]float32{"k1": {2, 3}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.GetEmbeddings(ctx, "emb-a", []string{"k1"}); !cmp.Equal(got["k1"], []float32{2, 3}) {
		t.Errorf("replaced vector %v", got["k1"])
	}
	for _, bad := range []map[string][]float32{{"": {1}}, {"k": nil}} {
		if err := db.PutEmbeddings(ctx, "emb-a", bad); !errors.Is(err, pipeline.ErrInvalid) {
			t.Errorf("PutEmbeddings(%v) = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := db.GetEmbeddings(ctx, " ", []string{"k1"}); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("empty namespace: %v", err)
	}
}

func TestSourceFiles(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	var docs []pipeline.IngestDocument
	for i, src := range []string{"sotu.jsonl.gz:1", "sotu.jsonl.gz:2", "news.jsonl:1", "memo.txt", ""} {
		d := ingestDoc(fmt.Sprintf("d%d", i), "T", "words")
		d.Doc.Source = src
		docs = append(docs, d)
	}
	if _, err := db.ReplaceDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	got, err := db.SourceFiles(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memo.txt", "news.jsonl", "sotu.jsonl.gz"}, got); diff != "" {
		t.Errorf("source files (-want +got):\n%s", diff)
	}
	if got, _ := db.SourceFiles(ctx, 1); len(got) != 1 {
		t.Errorf("limit 1 gave %v", got)
	}
}
