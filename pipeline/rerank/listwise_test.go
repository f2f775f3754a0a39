package rerank

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestSlidingWindows(t *testing.T) {
	tests := []struct {
		name            string
		n, size, stride int
		want            []Window
	}{
		{
			// RankGPT's pass over 100 candidates: nine windows.
			name: "rankgpt 100", n: 100, size: 20, stride: 10,
			want: []Window{{80, 100}, {70, 90}, {60, 80}, {50, 70}, {40, 60}, {30, 50}, {20, 40}, {10, 30}, {0, 20}},
		},
		{name: "aligned 30", n: 30, size: 20, stride: 10, want: []Window{{10, 30}, {0, 20}}},
		{
			// 25 − 20 = 5 is not a multiple of 10: the top window, which
			// would be [0,15), is widened to a full [0,20).
			name: "short top widened", n: 25, size: 20, stride: 10,
			want: []Window{{5, 25}, {0, 20}},
		},
		{name: "exactly one window", n: 20, size: 20, stride: 10, want: []Window{{0, 20}}},
		{name: "shorter than a window", n: 5, size: 20, stride: 10, want: []Window{{0, 5}}},
		{name: "empty", n: 0, size: 20, stride: 10, want: []Window{}},
		{name: "small", n: 7, size: 3, stride: 2, want: []Window{{4, 7}, {2, 5}, {0, 3}}},
		{name: "no overlap", n: 6, size: 2, stride: 2, want: []Window{{4, 6}, {2, 4}, {0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SlidingWindows(tt.n, tt.size, tt.stride)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []struct {
		n, size, stride int
		want            string
	}{
		{-1, 20, 10, "list length -1 is negative"},
		{10, 0, 1, "window size 0"},
		{10, 5, 0, "stride 0, want 1..5"},
		{10, 5, 6, "stride 6, want 1..5"},
	} {
		if _, err := SlidingWindows(bad.n, bad.size, bad.stride); !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("SlidingWindows(%d, %d, %d) error = %v, want ErrInvalid containing %q", bad.n, bad.size, bad.stride, err, bad.want)
		}
	}
}

func TestSlidingRerank(t *testing.T) {
	// 25 items whose value is their relevance, worst first: 0, 1, …, 24.
	items := make([]int, 25)
	for i := range items {
		items[i] = i
	}
	// The fake model sorts each window by value, descending.
	var seen []Window
	var contents [][]int
	sortWindow := func(w Window, window []int) ([]int, error) {
		seen = append(seen, w)
		contents = append(contents, slices.Clone(window))
		perm := identity(len(window))
		slices.SortStableFunc(perm, func(a, b int) int { return window[b] - window[a] })
		return perm, nil
	}
	got, err := SlidingRerank(items, DefaultWindowSize, DefaultWindowStride, sortWindow)
	if err != nil {
		t.Fatal(err)
	}
	// Window [5,25) holds 5..24 and sorts it: positions 5..24 become
	// 24, 23, …, 5. Window [0,20) then holds 0..4 and 24..10 and sorts
	// them: 24..10, 4..0. Positions 20..24 keep 9..5: one bottom-up pass
	// never brings those five back above 0..4, which left the top window
	// before they could reach it.
	want := []int{24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("final order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Window{{5, 25}, {0, 20}}, seen); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
	wantSecond := []int{0, 1, 2, 3, 4, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10}
	if diff := cmp.Diff(wantSecond, contents[1]); diff != "" {
		t.Errorf("second window's items (-want +got):\n%s", diff)
	}
	if !slices.Equal(items, identity(25)) {
		t.Errorf("SlidingRerank modified its input: %v", items)
	}

	// An error from the model stops the pass, naming the window.
	_, err = SlidingRerank(items, 20, 10, func(w Window, _ []int) ([]int, error) {
		if w.Start == 0 {
			return nil, errors.New("model unavailable")
		}
		return identity(w.Len()), nil
	})
	if err == nil || err.Error() != "window [0,20): model unavailable" {
		t.Errorf("error = %v, want the window and the model's error", err)
	}
	// So does a permutation that is not one.
	_, err = SlidingRerank(items, 20, 10, func(w Window, _ []int) ([]int, error) { return []int{0}, nil })
	if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), "window [5,25): invalid input: permutation of 1 positions for a window of 20 items") {
		t.Errorf("error = %v, want the bad permutation named", err)
	}
}

func TestApplyPermutation(t *testing.T) {
	tests := []struct {
		name    string
		w       Window
		perm    []int
		want    []string
		wantErr string
	}{
		// Window [1,4) holds b c d; perm [2 0 1] puts d, b, c there.
		{name: "middle", w: Window{1, 4}, perm: []int{2, 0, 1}, want: []string{"a", "d", "b", "c", "e"}},
		{name: "identity", w: Window{0, 5}, perm: []int{0, 1, 2, 3, 4}, want: []string{"a", "b", "c", "d", "e"}},
		{name: "empty window", w: Window{2, 2}, perm: []int{}, want: []string{"a", "b", "c", "d", "e"}},
		{name: "outside", w: Window{3, 6}, perm: []int{0, 1, 2}, wantErr: "window [3,6) does not fit a list of 5 items"},
		{name: "short", w: Window{0, 3}, perm: []int{0, 1}, wantErr: "permutation of 2 positions for a window of 3 items"},
		{name: "repeat", w: Window{0, 3}, perm: []int{0, 0, 1}, wantErr: "permutation repeats position 0"},
		{name: "range", w: Window{0, 3}, perm: []int{0, 3, 1}, wantErr: "permutation entry 1 is 3, outside 0..2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := []string{"a", "b", "c", "d", "e"}
			err := ApplyPermutation(items, tt.w, tt.perm)
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, items); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseListwise(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		n       int
		want    ListwiseResult
		wantErr bool
	}{
		{name: "clean", answer: "[3] > [1] > [2]", n: 3, want: ListwiseResult{Order: []int{2, 0, 1}, Ranked: 3}},
		{name: "prose around", answer: "Here is the ranking:\n[2] > [3] > [1]\nI put [2] first.", n: 3,
			want: ListwiseResult{Order: []int{1, 2, 0}, Ranked: 3, Repeated: 1}},
		{name: "missing appended in order", answer: "[4] > [2]", n: 5, want: ListwiseResult{Order: []int{3, 1, 0, 2, 4}, Ranked: 2}},
		{name: "repeats ignored", answer: "[2] > [2] > [1]", n: 3, want: ListwiseResult{Order: []int{1, 0, 2}, Ranked: 2, Repeated: 1}},
		{name: "out of range ignored", answer: "[0] > [5] > [2]", n: 3, want: ListwiseResult{Order: []int{1, 0, 2}, Ranked: 1, OutOfRange: 2}},
		{name: "overflowing id", answer: "[99999999999999999999999] > [1]", n: 2, want: ListwiseResult{Order: []int{0, 1}, Ranked: 1, OutOfRange: 1}},
		{name: "spaces in brackets", answer: "[ 2 ]>[1 ]", n: 2, want: ListwiseResult{Order: []int{1, 0}, Ranked: 2}},
		{name: "bare numbers with >", answer: "3 > 1 > 2", n: 3, want: ListwiseResult{Order: []int{2, 0, 1}, Ranked: 3}},
		{name: "comma list line", answer: "My ranking is below.\n2, 3, 1", n: 3, want: ListwiseResult{Order: []int{1, 2, 0}, Ranked: 3}},
		{name: "named passages", answer: "Passage 2 > Passage 3", n: 3, want: ListwiseResult{Order: []int{1, 2, 0}, Ranked: 2}},
		{name: "code fence", answer: "```\n[2] > [1]\n```", n: 2, want: ListwiseResult{Order: []int{1, 0}, Ranked: 2}},
		{name: "thinking ignored", answer: "<think>maybe [1] > [2]</think>\n[2] > [1]", n: 2, want: ListwiseResult{Order: []int{1, 0}, Ranked: 2}},
		{name: "garbage", answer: "I cannot rank these passages.", n: 3, want: ListwiseResult{Order: []int{0, 1, 2}}, wantErr: true},
		{name: "empty", answer: "", n: 2, want: ListwiseResult{Order: []int{0, 1}}, wantErr: true},
		{name: "only out of range", answer: "[7] > [8]", n: 2, want: ListwiseResult{Order: []int{0, 1}, OutOfRange: 2}, wantErr: true},
		{name: "single number prose", answer: "There are 3 passages.", n: 3, want: ListwiseResult{Order: []int{0, 1, 2}}, wantErr: true},
		{name: "no items", answer: "[1]", n: 0, want: ListwiseResult{Order: []int{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseListwise(tt.answer, tt.n)
			if tt.wantErr != (err != nil) {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, pipeline.ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseListwise("[1]", -1); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("negative n: error = %v, want ErrInvalid", err)
	}
	if r := (ListwiseResult{Order: []int{1, 0}, Ranked: 2}); !r.Complete() {
		t.Error("a full ranking should be complete")
	}
	if r := (ListwiseResult{Order: []int{1, 0}, Ranked: 1}); r.Complete() {
		t.Error("a ranking with an appended item should not be complete")
	}
}

func TestParseFinalSelection(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		n       int
		want    Selection
		wantErr string
	}{
		{name: "canonical", answer: "Requirements: ...\n### Final Selection: [1] [3]", n: 5, want: Selection{Order: []int{0, 2}}},
		{name: "selection order kept", answer: "### Final Selection: [4] [1] [2]", n: 5, want: Selection{Order: []int{3, 0, 1}}},
		{name: "lower case no hashes", answer: "final selection: [2],[4]", n: 5, want: Selection{Order: []int{1, 3}}},
		{name: "bold and list in brackets", answer: "**Final Selection:** [1, 3, 5]", n: 5, want: Selection{Order: []int{0, 2, 4}}},
		{name: "no colon", answer: "## FINAL SELECTION [2] [5]", n: 5, want: Selection{Order: []int{1, 4}}},
		{name: "bare numbers", answer: "Final  Selection :  2, 3", n: 5, want: Selection{Order: []int{1, 2}}},
		{name: "trailing note ignored", answer: "### Final Selection: [2] [4] (2 passages)", n: 5, want: Selection{Order: []int{1, 3}}},
		{name: "repeats and range", answer: "### Final Selection: [2] [2] [9] [0]", n: 5, want: Selection{Order: []int{1}, Repeated: 1, OutOfRange: 2}},
		{name: "ids on next line", answer: "### Final Selection:\n\n[4] [1]\nDone.", n: 5, want: Selection{Order: []int{3, 0}}},
		{name: "last label counts", answer: "I will end with ### Final Selection: [i] [j]\n### Final Selection: [5]\n...\n### Final Selection: [2]", n: 5, want: Selection{Order: []int{1}}},
		{name: "thinking ignored", answer: "<think>\n### Final Selection: [1]\n</think>\n### Final Selection: [3]", n: 5, want: Selection{Order: []int{2}}},
		{name: "no label", answer: "I select [1] and [2].", n: 5, want: Selection{Order: []int{}}, wantErr: `no "Final Selection" line`},
		{name: "label mid-sentence", answer: "Here is my final selection: [1]", n: 5, want: Selection{Order: []int{}}, wantErr: `no "Final Selection" line`},
		{name: "none", answer: "### Final Selection: none\nNote: 3 passages were redundant.", n: 5, want: Selection{Order: []int{}}, wantErr: "names no passage among [1]..[5]"},
		{name: "all out of range", answer: "### Final Selection: [7]", n: 3, want: Selection{Order: []int{}, OutOfRange: 1}, wantErr: "names no passage among [1]..[3]"},
		{name: "no passages", answer: "### Final Selection: [1]", n: 0, want: Selection{Order: []int{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFinalSelection(tt.answer, tt.n)
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSelectionRun(t *testing.T) {
	candidates := []Candidate{{"a", 9}, {"b", 8}, {"c", 7}, {"d", 6}, {"e", 5}}
	tests := []struct {
		name     string
		selected []int
		want     []Candidate
		wantErr  string
	}{
		{
			// d and b first (selection order), then a, c, e (first-stage
			// order); scores 1/rank.
			name: "selection first", selected: []int{3, 1},
			want: []Candidate{{"d", 1}, {"b", 1.0 / 2}, {"a", 1.0 / 3}, {"c", 1.0 / 4}, {"e", 1.0 / 5}},
		},
		{
			name: "empty selection", selected: nil,
			want: []Candidate{{"a", 1}, {"b", 1.0 / 2}, {"c", 1.0 / 3}, {"d", 1.0 / 4}, {"e", 1.0 / 5}},
		},
		{
			name: "full ranking", selected: []int{4, 3, 2, 1, 0},
			want: []Candidate{{"e", 1}, {"d", 1.0 / 2}, {"c", 1.0 / 3}, {"b", 1.0 / 4}, {"a", 1.0 / 5}},
		},
		{name: "out of range", selected: []int{1, 5}, wantErr: "selection entry 1 is position 5, outside 0..4"},
		{name: "negative", selected: []int{-1}, wantErr: "selection entry 0 is position -1"},
		{name: "repeat", selected: []int{2, 2}, wantErr: `selection entry 1 repeats position 2 (candidate "c")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectionRun(candidates, tt.selected)
			if tt.wantErr != "" {
				if !errors.Is(err, pipeline.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := SelectionRun([]Candidate{{ID: "a"}, {ID: "a"}}, nil); !errors.Is(err, pipeline.ErrInvalid) {
		t.Errorf("duplicate ids: error = %v, want ErrInvalid", err)
	}
}

// ExampleSlidingRerank shows a listwise pass driven by ParseListwise.
func ExampleSlidingRerank() {
	docs := []string{"d1", "d2", "d3", "d4", "d5"}
	answers := map[Window]string{
		{2, 5}: "[3] > [1] > [2]",    // window d3 d4 d5 → d5 d3 d4
		{0, 3}: "Ranking: [3] > [1]", // window d1 d2 d5 → d5 d1 d2
	}
	out, err := SlidingRerank(docs, 3, 2, func(w Window, window []string) ([]int, error) {
		parsed, err := ParseListwise(answers[w], len(window))
		return parsed.Order, err
	})
	fmt.Println(out, err)
	// Output: [d5 d1 d2 d3 d4] <nil>
}
