package index

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestTermStats(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions(),
		doc("d1", "", "apple banana", "cherry"),
		doc("d2", "", "apple apple cherry"),
		doc("d3", "Fruit", "banana cherry date"),
	)
	tests := []struct {
		name  string
		terms []string
		want  TermStats
	}{
		{
			// Four passages: "apple banana" (2 terms), "cherry" (1), "apple
			// apple cherry" (3), "Fruit\nbanana cherry date" (4, the title
			// counts): 10 terms, 2.5 a passage. appl is in d1#0 and d2#0;
			// cherri in d1#1, d2#0 and d3#0; the repeated term is looked up
			// once; kiwi is in none.
			name:  "counts",
			terms: []string{"appl", "cherri", "appl", "kiwi", "fruit"},
			want:  TermStats{Passages: 4, AvgLength: 2.5, DocFreq: map[string]int{"appl": 2, "cherri": 3, "kiwi": 0, "fruit": 1}},
		},
		{
			name:  "no terms",
			terms: nil,
			want:  TermStats{Passages: 4, AvgLength: 2.5, DocFreq: map[string]int{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.TermStats(context.Background(), tt.terms)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// The terms are index terms: Terms gives them.
	if diff := cmp.Diff([]string{"appl", "cherri"}, ix.Terms("Apples, cherries")); diff != "" {
		t.Errorf("Terms (-want +got):\n%s", diff)
	}
}

func TestTermStatsEmptyIndexAndCancel(t *testing.T) {
	ix, _ := newTestIndex(t, DefaultOptions())
	got, err := ix.TermStats(context.Background(), []string{"appl"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(TermStats{DocFreq: map[string]int{"appl": 0}}, got); diff != "" {
		t.Errorf("empty index (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.TermStats(ctx, []string{"appl"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestPairFreq(t *testing.T) {
	// Passages: d1#0 "apple banana", d1#1 "cherry", d2#0 "apple apple
	// cherry", d3#0 "Fruit banana cherry date", and more apples and
	// cherries in further documents, so that the postings walk skips.
	docs := []pipeline.IngestDocument{
		doc("d1", "", "apple banana", "cherry"),
		doc("d2", "", "apple apple cherry"),
		doc("d3", "Fruit", "banana cherry date"),
	}
	for i := 4; i < 40; i++ {
		text := "cherry"
		if i%3 == 0 {
			text = "apple cherry"
		}
		if i%5 == 0 {
			text = "apple"
		}
		docs = append(docs, doc(fmt.Sprintf("d%d", i), "", text))
	}
	ix, _ := newTestIndex(t, DefaultOptions(), docs...)
	want := map[[2]string]int{
		{"appl", "cherri"}:   1,
		{"banana", "cherri"}: 1,
		{"appl", "banana"}:   1,
		{"appl", "kiwi"}:     0,
		{"date", "fruit"}:    1,
	}
	// Documents 4-39: "apple cherry" where i is a multiple of 3 but not
	// of 5 (6, 9, 12, 18, 21, 24, 27, 33, 36, 39: ten of them, 15 and 30
	// being "apple").
	want[[2]string{"appl", "cherri"}] += 10
	var pairs [][2]string
	for p := range want {
		pairs = append(pairs, p)
	}
	pairs = append(pairs, [2]string{"appl", "kiwi"}) // asked twice, counted once
	got, err := ix.PairFreq(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PairFreq (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.PairFreq(ctx, pairs); !errors.Is(err, context.Canceled) {
		t.Errorf("PairFreq with an ended context: err = %v, want context.Canceled", err)
	}
}
