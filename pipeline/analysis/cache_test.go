package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/crucible-portal/crucible/pipeline"
)

// counting is an analyzer that counts its calls: lower-cased words, "the"
// and "of" dropped.
type counting struct {
	terms, splits atomic.Int64
	delay         time.Duration
}

func (a *counting) Terms(text string) []string {
	a.terms.Add(1)
	time.Sleep(a.delay)
	var out []string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if w != "the" && w != "of" {
			out = append(out, w)
		}
	}
	return out
}

func (a *counting) Sentences(text string) []pipeline.Span {
	a.splits.Add(1)
	time.Sleep(a.delay)
	var out []pipeline.Span
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '.' {
			out = append(out, pipeline.Span{Start: start, End: i + 1})
			start = i + 2
		}
	}
	return out
}

func TestSingleFlight(t *testing.T) {
	an := &counting{delay: 20 * time.Millisecond}
	c := New(an.Terms, an.Sentences, Options{})
	const text = "The purchase of Louisiana. The cost of the purchase."
	const n = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	terms := make([][]string, n)
	sets := make([]Set, n)
	spans := make([][]pipeline.Span, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			terms[i] = c.Terms(text)
			sets[i] = c.TermSet(text)
			spans[i] = c.Sentences(text)
		}()
	}
	close(start)
	wg.Wait()
	if got := an.terms.Load(); got != 1 {
		t.Errorf("%d goroutines asking for one text: %d analyses, want 1", n, got)
	}
	if got := an.splits.Load(); got != 1 {
		t.Errorf("%d goroutines asking for one text: %d sentence splits, want 1", n, got)
	}
	want := []string{"purchase", "louisiana.", "cost", "purchase."}
	for i := range n {
		if !reflect.DeepEqual(terms[i], want) {
			t.Fatalf("terms %d = %q, want %q", i, terms[i], want)
		}
		if !reflect.DeepEqual(sets[i], Set{"cost", "louisiana.", "purchase", "purchase."}) || !sets[i].Has("cost") || sets[i].Has("the") {
			t.Fatalf("set %d = %v", i, sets[i])
		}
		if len(spans[i]) != 2 {
			t.Fatalf("spans %d = %v", i, spans[i])
		}
	}
	st := c.Stats()
	if st.Analyses != 1 || st.Splits != 1 || st.Entries != 1 || st.Hits < 3*n-4 {
		t.Errorf("stats = %+v, want 1 analysis, 1 split, 1 entry, %d hits or more", st, 3*n-4)
	}
}

// TestTermSetAlone: a set asked for before the terms analyses the text
// once for it; the terms asked for afterwards analyse it again (the list
// was not kept), and a set asked for after the terms reuses them.
func TestTermSetAlone(t *testing.T) {
	an := &counting{}
	c := New(an.Terms, nil, Options{})
	c.TermSet("alpha beta")
	c.Terms("alpha beta")
	if got := an.terms.Load(); got != 2 {
		t.Errorf("set then terms: %d analyses, want 2", got)
	}
	c.Terms("gamma delta")
	c.TermSet("gamma delta")
	if got := an.terms.Load(); got != 3 {
		t.Errorf("terms then set: %d analyses in all, want 3", got)
	}
}

func TestNewSet(t *testing.T) {
	terms := []string{"tariff", "act", "tariff", "duty", "act"}
	s := NewSet(terms)
	if !reflect.DeepEqual(s, Set{"act", "duty", "tariff"}) {
		t.Errorf("NewSet = %q", s)
	}
	if !reflect.DeepEqual(terms, []string{"tariff", "act", "tariff", "duty", "act"}) {
		t.Errorf("NewSet changed its argument: %q", terms)
	}
	for _, term := range []string{"act", "duty", "tariff"} {
		if !s.Has(term) {
			t.Errorf("set lacks %q", term)
		}
	}
	for _, term := range []string{"", "a", "dut", "tariffs", "zz"} {
		if s.Has(term) {
			t.Errorf("set has %q", term)
		}
	}
	if NewSet(nil).Has("x") {
		t.Error("the empty set has a term")
	}
}

// TestInterned: the entries share one string per distinct term.
func TestInterned(t *testing.T) {
	an := &counting{}
	c := New(an.Terms, nil, Options{})
	a := c.Terms("tariff duty")
	b := c.TermSet("duty and tariff")
	if unsafe.StringData(a[0]) != unsafe.StringData(b[2]) {
		t.Errorf("the two entries hold two copies of %q", a[0])
	}
}

// TestSharedSlices: the slices handed out cannot be appended to in place.
func TestSharedSlices(t *testing.T) {
	an := &counting{}
	c := New(an.Terms, an.Sentences, Options{})
	ts := c.Terms("one two three")
	_ = append(ts, "four")
	if got := c.Terms("one two three"); !reflect.DeepEqual(got, []string{"one", "two", "three"}) || cap(got) != len(got) {
		t.Errorf("terms after an append = %q (cap %d)", got, cap(got))
	}
	if c.Terms("the of") != nil && len(c.Terms("the of")) != 0 {
		t.Errorf("a text of stop words has terms")
	}
}

func TestEvictionBound(t *testing.T) {
	an := &counting{}
	const max = 64 << 10
	c := New(an.Terms, nil, Options{MaxBytes: max})
	text := func(i int) string {
		return fmt.Sprintf("passage %d speaks of tariffs and treaties and the navy in %d words", i, i)
	}
	const n = 5000
	for i := range n {
		c.TermSet(text(i))
		// A text in constant use stays.
		c.TermSet("the recurring passage")
		if st := c.Stats(); st.Bytes > max+1024 {
			t.Fatalf("after %d texts the cache holds %d bytes, bound %d", i+1, st.Bytes, max)
		}
	}
	st := c.Stats()
	if st.Entries >= n/2 || st.Evictions == 0 {
		t.Errorf("stats after %d texts = %+v: nothing was evicted", n, st)
	}
	before := an.terms.Load()
	c.TermSet("the recurring passage")
	c.TermSet(text(n - 1))
	if got := an.terms.Load() - before; got != 0 {
		t.Errorf("the recent texts were analysed again (%d analyses)", got)
	}
	c.TermSet(text(0))
	if got := an.terms.Load() - before; got != 1 {
		t.Errorf("the first text, evicted long ago: %d analyses, want 1", got)
	}
}

// BenchmarkTermSetHit is the cost of a lookup that finds its text: the
// hashing of a passage-sized text and the lock.
func BenchmarkTermSetHit(b *testing.B) {
	an := &counting{}
	c := New(an.Terms, nil, Options{})
	text := strings.Repeat("the annual message of the President to Congress ", 20)
	c.TermSet(text)
	b.SetBytes(int64(len(text)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.TermSet(text)
		}
	})
}
