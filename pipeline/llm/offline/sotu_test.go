package offline

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// sotuPath is the demo corpus: the State of the Union addresses.
const sotuPath = "../../../testdata/corpora/sotu.jsonl.gz"

// sotuAddresses reads the addresses with the given ids from the demo
// corpus.
func sotuAddresses(t *testing.T, ids ...string) map[string]string {
	t.Helper()
	f, err := os.Open(sotuPath)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("the demo corpus %s is missing", sotuPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want := setOf(ids)
	out := map[string]string{}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec struct{ ID, Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if want[rec.ID] {
			out[rec.ID] = rec.Text
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if out[id] == "" {
			t.Fatalf("address %s not in the corpus", id)
		}
	}
	return out
}

// passages cuts text into passages of whole sentences of at most about
// 1,000 bytes, as the index's segmentation does.
func passages(e *Engine, text string) []string {
	var out []string
	start, end := -1, -1
	for _, sp := range e.an.Sentences(text) {
		if start >= 0 && sp.End-start > 1000 {
			out = append(out, text[start:end])
			start = -1
		}
		if start < 0 {
			start = sp.Start
		}
		end = sp.End
	}
	if start >= 0 {
		out = append(out, text[start:end])
	}
	return out
}

func TestStateOfTheUnionEndToEnd(t *testing.T) {
	const clinton, washington = "sotu-1999-william-j-clinton-d", "sotu-1790-george-washington-n"
	docs := sotuAddresses(t, clinton, washington)
	e := newTestEngine()
	req := prompts.RequestInfo{
		Title:            "Saving Social Security",
		ProblemStatement: "What was proposed to keep the Social Security trust fund solvent, and when would it run out of money?",
		Background:       "A policy analyst preparing a briefing on pensions and retirement.",
	}

	sum := summarizeOf(t, e, req, docs[clinton])
	if !sum.Relevant {
		t.Fatal("the 1999 address, which proposes to save Social Security, was judged not relevant")
	}
	sents := summarySentences(e, sum.Summary)
	about := 0
	for _, s := range sents {
		if strings.Contains(s, "Social Security") {
			about++
		}
	}
	if about < 3 {
		t.Errorf("only %d of the %d summary sentences mention Social Security:\n%s", about, len(sents), strings.Join(sents, "\n"))
	}

	nuggets := nuggetsOf(t, e, req, sum.Summary, prompts.DefaultMaxNuggets)
	if len(nuggets) < 3 {
		t.Fatalf("%d nuggets from the summary %q", len(nuggets), sum.Summary)
	}
	has2032 := false
	for _, qa := range nuggets {
		has2032 = has2032 || qa.Answer == "2032"
	}
	if !has2032 {
		t.Errorf("no nugget asks when the trust fund runs out (2032): %+v", nuggets)
	}

	own, other := passages(e, docs[clinton]), passages(e, docs[washington])
	wt := e.newWordTerms()
	for _, qa := range nuggets {
		found := 0
		for _, p := range own {
			out, _ := extractOf(t, e, qa, p)
			if !out.Found {
				continue
			}
			found++
			start, end, ok := prompts.LocateSupport(p, out.Support)
			if !ok || strings.Join(strings.Fields(p[start:end]), " ") != strings.Join(strings.Fields(out.Support), " ") {
				t.Errorf("support %q is not found verbatim in its passage", out.Support)
			}
			if answerMatch(normalize(out.Sentence, wt), normalize(qa.Answer, wt)) < extractAnswerMin {
				t.Logf("nugget %q (%s): sentence without the answer: %q", qa.Question, qa.Answer, out.Sentence)
			}
		}
		if found == 0 {
			t.Errorf("nugget %+v: no passage of its own address answers it", qa)
		}
		for _, p := range other {
			if out, _ := extractOf(t, e, qa, p); out.Found {
				t.Errorf("nugget %+v: found %q in George Washington's 1790 address", qa, out.Sentence)
			}
		}
	}
}
