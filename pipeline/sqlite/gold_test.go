package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/pipeline/sqlite"
)

// goldFile is a nugget file as an analyst uploads it: answer and claim
// nuggets of two requests, an integer id, a vital grade and documents.
const goldFile = `{"request_id": "r1", "nugget_id": "n1", "question": "How high did the steel tariff rise?", "answers": ["25 percent", "25%"], "importance": "Vital"}
{"qid": "r1", "nugget_id": 2, "text": "Canada answered with duties on whiskey.", "docids": ["d1", "d2"]}
{"request_id": "r2", "nugget_id": "n1", "question": "Who signed?", "answers": "the president", "name": "signature"}
`

func readGold(t *testing.T) []judge.Nugget {
	t.Helper()
	nuggets, err := judge.ReadNuggets(strings.NewReader(goldFile), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return nuggets
}

func TestGoldSetRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crucible.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	nuggets := readGold(t)

	before := time.Now().Add(-time.Second)
	first, err := db.CreateGoldSet(ctx, "  trec-2024.jsonl \n", nuggets)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.CreateGoldSet(ctx, "trec-2024.jsonl", nuggets[:1])
	if err != nil {
		t.Fatal(err)
	}
	if first.ID <= 0 || second.ID <= first.ID {
		t.Errorf("ids %d then %d, want increasing positive ids", first.ID, second.ID)
	}
	if first.Name != "trec-2024.jsonl" {
		t.Errorf("name = %q, want it trimmed", first.Name)
	}
	if first.CreatedAt.Before(before) || first.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("created at %v, want about now", first.CreatedAt)
	}
	db.Close()

	// Reopening finds the sets as stored: nuggets, order and time.
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.GoldSet(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("gold set after reopening (-want +got)\n%s", diff)
	}
	// The normalised nuggets come back as ReadNuggets made them: the
	// integer id as text, the importance lower case, one answer as a list.
	if n := got.Nuggets[1]; n.ID != "2" || n.RequestID != "r1" || n.Importance != judge.Okay {
		t.Errorf("second nugget = %+v", n)
	}
	if n := got.Nuggets[0]; n.Importance != judge.Vital {
		t.Errorf("first nugget's importance = %q, want vital", n.Importance)
	}

	// The list is newest first, with counts: 3 nuggets of requests r1 and
	// r2 (2 requests), then 1 nugget of r1 (1 request).
	list, err := db.GoldSets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []judge.GoldSetSummary{
		{ID: second.ID, Name: "trec-2024.jsonl", NuggetCount: 1, RequestCount: 1, CreatedAt: second.CreatedAt},
		{ID: first.ID, Name: "trec-2024.jsonl", NuggetCount: 3, RequestCount: 2, CreatedAt: first.CreatedAt},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("gold sets (-want +got)\n%s", diff)
	}
}

func TestGoldSetsEmpty(t *testing.T) {
	db := mustOpenDB(t)
	list, err := db.GoldSets(context.Background())
	if err != nil || len(list) != 0 {
		t.Errorf("GoldSets on a new database = %v, %v; want none", list, err)
	}
}

func TestGoldSetNotFound(t *testing.T) {
	db := mustOpenDB(t)
	_, err := db.GoldSet(context.Background(), 42)
	if !errors.Is(err, pipeline.ErrNotFound) {
		t.Errorf("GoldSet(42) error = %v, want ErrNotFound", err)
	}
}

func TestCreateGoldSetInvalid(t *testing.T) {
	tests := []struct {
		name    string
		setName string
		nuggets []judge.Nugget
		wantMsg string
	}{
		{name: "blank name", setName: " \t", nuggets: []judge.Nugget{{RequestID: "r", ID: "n", Text: "x", Importance: judge.Okay}},
			wantMsg: "needs a name"},
		{name: "no nuggets", setName: "empty.jsonl", wantMsg: `gold set "empty.jsonl" has no nuggets`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpenDB(t)
			ctx := context.Background()
			_, err := db.CreateGoldSet(ctx, tt.setName, tt.nuggets)
			if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error = %v, want ErrInvalid saying %q", err, tt.wantMsg)
			}
			if list, _ := db.GoldSets(ctx); len(list) != 0 {
				t.Errorf("a rejected set was stored: %+v", list)
			}
		})
	}
}
