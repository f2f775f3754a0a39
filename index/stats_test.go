package index

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
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
