package rerank

import (
	"testing"
)

// fuzzItems maps a fuzzed count to 0..64 items.
func fuzzItems(n int) int {
	if n < 0 {
		n = -n
	}
	if n < 0 { // math.MinInt
		n = 0
	}
	return n % 65
}

func FuzzParseListwise(f *testing.F) {
	for _, seed := range []string{
		"[3] > [1] > [2]", "3 > 1 > 2", "2, 3, 1", "Passage 2 > Passage 3", "",
		"<think>[1]</think>[2] > [2] > [9]", "[99999999999999999999999]", "[ 1 ]>[", "\xff[1]\r\n[2]",
	} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, answer string, n int) {
		n = fuzzItems(n)
		got, err := ParseListwise(answer, n)
		if len(got.Order) != n {
			t.Fatalf("Order has %d items, want %d", len(got.Order), n)
		}
		seen := make([]bool, n)
		for _, i := range got.Order {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("Order %v is not a permutation of 0..%d", got.Order, n-1)
			}
			seen[i] = true
		}
		if got.Ranked < 0 || got.Ranked > n || got.Repeated < 0 || got.OutOfRange < 0 {
			t.Fatalf("bad counts %+v", got)
		}
		if err != nil {
			if got.Ranked != 0 {
				t.Fatalf("error %v with %d items ranked", err, got.Ranked)
			}
			for k, i := range got.Order {
				if i != k {
					t.Fatalf("error %v but Order %v is not the original order", err, got.Order)
				}
			}
		} else if n > 0 && got.Ranked == 0 {
			t.Fatalf("no error although nothing was ranked: %+v", got)
		}
	})
}

func FuzzParseFinalSelection(f *testing.F) {
	for _, seed := range []string{
		"### Final Selection: [1] [3]", "final selection: [2],[4]", "**Final Selection:** [1, 3, 5]",
		"### Final Selection:\n\n[4] [1]", "### Final Selection: none", "Final Selection [[[1]]]", "",
		"<think>### Final Selection: [1]</think>", "final selection: [" + "99999999999999999999" + "]",
	} {
		f.Add(seed, 5)
	}
	f.Fuzz(func(t *testing.T, answer string, n int) {
		n = fuzzItems(n)
		got, err := ParseFinalSelection(answer, n)
		if got.Order == nil {
			t.Fatal("nil Order")
		}
		seen := make([]bool, n)
		for _, i := range got.Order {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("Order %v has a repeated or out-of-range position (n = %d)", got.Order, n)
			}
			seen[i] = true
		}
		if err != nil && len(got.Order) != 0 {
			t.Fatalf("error %v with a non-empty selection %v", err, got.Order)
		}
		if err == nil && n > 0 && len(got.Order) == 0 {
			t.Fatal("no error for an empty selection")
		}
	})
}

func FuzzParseMethod(f *testing.F) {
	for _, seed := range []string{"sum", "sum:tau=0", "greedy-coverage:tau=3", "rrf", "rrf:tau=1", "sum:tau=", ":", "greedy-alpha : tau = 2"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		m, err := ParseMethod(name)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("ParseMethod(%q) = %+v, which does not validate: %v", name, m, err)
		}
		back, err := ParseMethod(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMethod(%q).String() = %q reparses to %+v, %v", name, m.String(), back, err)
		}
	})
}
