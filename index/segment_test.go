package index

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

// segTexts returns text[s.Start:s.End] for each span.
func segTexts(text string, spans []pipeline.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

// segCheckSpans fails t unless spans satisfy Segment's invariants on text:
// ordered, non-empty, within bounds, on character boundaries (as
// utf8.DecodeRuneInString steps, invalid bytes one at a time), at most
// maxChars runes each (maxChars < 1: no limit), neither starting nor ending
// with white space, and with only white space between and around them, so
// that spans plus skipped white space rebuild text.
func segCheckSpans(t *testing.T, text string, spans []pipeline.Span, maxChars int) {
	t.Helper()
	boundary := make([]bool, len(text)+1)
	for i := 0; i < len(text); {
		boundary[i] = true
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	boundary[len(text)] = true

	var rebuilt strings.Builder
	prev := 0
	for k, s := range spans {
		if s.Start < prev || s.End <= s.Start || s.End > len(text) {
			t.Fatalf("span %d %v: out of order, empty or out of bounds (previous end %d, text length %d)", k, s, prev, len(text))
		}
		if !boundary[s.Start] || !boundary[s.End] {
			t.Fatalf("span %d %v: not on a character boundary in %q", k, s, text)
		}
		gap := text[prev:s.Start]
		if strings.TrimFunc(gap, unicode.IsSpace) != "" {
			t.Fatalf("span %d %v: text before it is not covered: %q", k, s, gap)
		}
		body := text[s.Start:s.End]
		first, _ := utf8.DecodeRuneInString(body)
		last, _ := utf8.DecodeLastRuneInString(body)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			t.Fatalf("span %d %v: starts or ends with white space: %q", k, s, body)
		}
		if n := utf8.RuneCountInString(body); maxChars > 0 && n > maxChars {
			t.Fatalf("span %d %v: %d characters, limit %d: %q", k, s, n, maxChars, body)
		}
		rebuilt.WriteString(gap)
		rebuilt.WriteString(body)
		prev = s.End
	}
	tail := text[prev:]
	if strings.TrimFunc(tail, unicode.IsSpace) != "" {
		t.Fatalf("text after the last span is not covered: %q", tail)
	}
	rebuilt.WriteString(tail)
	if rebuilt.String() != text {
		t.Fatalf("spans and skipped white space do not rebuild the text:\n got %q\nwant %q", rebuilt.String(), text)
	}
}

// segCheckPassages checks Segment's output: the span invariants, and that
// every sentence that fits in maxChars lies inside a single passage.
func segCheckPassages(t *testing.T, text string, passages []pipeline.Span, maxChars int) {
	t.Helper()
	segCheckSpans(t, text, passages, maxChars)
	k := 0
	for _, s := range Sentences(text) {
		if utf8.RuneCountInString(text[s.Start:s.End]) > maxChars {
			continue
		}
		for k < len(passages) && passages[k].End <= s.Start {
			k++
		}
		if k == len(passages) || passages[k].Start > s.Start || passages[k].End < s.End {
			t.Fatalf("sentence %v %q is split across passages", s, text[s.Start:s.End])
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{
			name: "simple",
			text: "The first sentence. The second one.",
			want: []string{"The first sentence.", "The second one."},
		},
		{
			name: "list items opened by a dash",
			text: "I shall recommend other actions: -To raise the farmers' income. -I shall recommend air safety. —Measures for medical care. -- 2 more. A - b. It ended. - and so on.",
			want: []string{"I shall recommend other actions: -To raise the farmers' income.", "-I shall recommend air safety.", "—Measures for medical care. -- 2 more.", "A - b.", "It ended. - and so on."},
		},
		{
			name: "a title joined to the word before by a hyphen",
			text: "Legislation for the Great Lakes-St. Lawrence River Basin is needed. Cross-Gen. Smith came. Bay–Mt. Hood rose.",
			want: []string{"Legislation for the Great Lakes-St. Lawrence River Basin is needed.", "Cross-Gen. Smith came.", "Bay–Mt. Hood rose."},
		},
		{
			name: "question and exclamation",
			text: "Is this right? It is! We agree.",
			want: []string{"Is this right?", "It is!", "We agree."},
		},
		{
			name: "U.S. before a noun",
			text: "The U.S. Army attacked. The U.S. Navy's ships sailed. Exports to the U.S. rose.",
			want: []string{"The U.S. Army attacked.", "The U.S. Navy's ships sailed.", "Exports to the U.S. rose."},
		},
		{
			name: "U.S. ending a sentence before a common opener",
			text: "We trade with the U.S. We also trade with Canada, D.C. It's (U.S.) \"The end.\"",
			want: []string{"We trade with the U.S.", "We also trade with Canada, D.C.", "It's (U.S.)", "\"The end.\""},
		},
		{
			name: "U.S.A.",
			text: "The U.S.A. is large. Main Street, U.S.A. But it is small.",
			want: []string{"The U.S.A. is large.", "Main Street, U.S.A.", "But it is small."},
		},
		{
			name: "titles",
			text: "I met Mr. Smith and Mrs. Jones. Dr. Brown came with Gen. Grant to St. Louis.",
			want: []string{"I met Mr. Smith and Mrs. Jones.", "Dr. Brown came with Gen. Grant to St. Louis."},
		},
		{
			// McKinley, 1898: the plural title of two commissioners.
			name: "plural titles",
			text: "I appointed the Hons. Shelby M. Cullom and John T. Morgan. They went.",
			want: []string{"I appointed the Hons. Shelby M. Cullom and John T. Morgan.", "They went."},
		},
		{
			// Roosevelt, 1901: a printed edition's running head left in
			// the text ends before the sentence it ran into.
			name: "page reference before a sentence's first word",
			text: "the best ships. Messages and Papers of the Presidents, Theodore Roosevelt, vol. 9, p.6667 The Naval Militia forces are State organizations. See pp.12-14 for the figures, and p.5 of the report.",
			want: []string{"the best ships.", "Messages and Papers of the Presidents, Theodore Roosevelt, vol. 9, p.6667", "The Naval Militia forces are State organizations.", "See pp.12-14 for the figures, and p.5 of the report."},
		},
		{
			name: "abbreviations before numbers",
			text: "See No. 5 on the list. It was signed on Jan. 15 of that year.",
			want: []string{"See No. 5 on the list.", "It was signed on Jan. 15 of that year."},
		},
		{
			// Harrison, 1890: a sum in pounds sterling printed "lbs.".
			name: "a unit before its number",
			text: "The colonies have been paying annually to these lines lbs. 37,000 for carrying the mails. A ship of 5,000 tons and 12 lb. 8 oz. of shot.",
			want: []string{"The colonies have been paying annually to these lines lbs. 37,000 for carrying the mails.", "A ship of 5,000 tons and 12 lb. 8 oz. of shot."},
		},
		{
			name: "month abbreviation ending a sentence",
			text: "It was due in Jan. The report came late.",
			want: []string{"It was due in Jan.", "The report came late."},
		},
		{
			name: "e.g. i.e. etc. mid-sentence",
			text: "We used tools, e.g. hammers, i.e. heavy ones, etc. and more. Then we went home.",
			want: []string{"We used tools, e.g. hammers, i.e. heavy ones, etc. and more.", "Then we went home."},
		},
		{
			name: "etc. ending a sentence",
			text: "They brought coffee, tobacco, fruits, etc. These will open new markets.",
			want: []string{"They brought coffee, tobacco, fruits, etc.", "These will open new markets."},
		},
		{
			name: "vs.",
			text: "The case was Smith vs. Jones. It ended.",
			want: []string{"The case was Smith vs. Jones.", "It ended."},
		},
		{
			name: "initials",
			text: "John F. Kennedy was president. George H. W. Bush followed. W. A. Richards came. He had a Plan B. It failed.",
			want: []string{"John F. Kennedy was president.", "George H. W. Bush followed.", "W. A. Richards came.", "He had a Plan B.", "It failed."},
		},
		{
			name: "decimals and amounts",
			text: "Growth was 3.5 percent. It cost $1.2 billion. Done.",
			want: []string{"Growth was 3.5 percent.", "It cost $1.2 billion.", "Done."},
		},
		{
			name: "number ending a sentence",
			text: "The treaty was signed in 1794. Although late, it held. We spent $3,000,000. The debt is gone.",
			want: []string{"The treaty was signed in 1794.", "Although late, it held.", "We spent $3,000,000.", "The debt is gone."},
		},
		{
			name: "inline list numbers stay with their item",
			text: "It is as follows: 1. The army. 2. The navy. II. Trade. In 1790. 1791 came.",
			want: []string{"It is as follows: 1. The army.", "2. The navy.", "II. Trade.", "In 1790.", "1791 came."},
		},
		{
			name: "ellipsis",
			text: "He paused... and went on. Then he stopped... Nobody spoke. Laws . . . The end.",
			want: []string{"He paused... and went on.", "Then he stopped...", "Nobody spoke.", "Laws . . .", "The end."},
		},
		{
			name: "unicode ellipsis",
			text: "Wait… what? Wait… Who?",
			want: []string{"Wait… what?", "Wait…", "Who?"},
		},
		{
			name: "closing quote after the period",
			text: `He said "stop." Then he left.`,
			want: []string{`He said "stop."`, "Then he left."},
		},
		{
			name: "curly quotes and brackets",
			text: "He said “stop.” Then (he left.) Then [it ended.] Done.",
			want: []string{"He said “stop.”", "Then (he left.)", "Then [it ended.]", "Done."},
		},
		{
			name: "question in quotes followed by lower case",
			text: `"Why?" he asked. "Because!" She said.`,
			want: []string{`"Why?" he asked.`, `"Because!"`, "She said."},
		},
		{
			name: "opening quote on the next sentence",
			text: `It ended. "Now," he said.`,
			want: []string{"It ended.", `"Now," he said.`},
		},
		{
			name: "blank line ends a paragraph",
			text: "First paragraph without a stop\n\nSecond paragraph here\r\n\r\nThird",
			want: []string{"First paragraph without a stop", "Second paragraph here", "Third"},
		},
		{
			name: "single line break is a space",
			text: "A hard-wrapped line that goes on\nto the next line. Done.",
			want: []string{"A hard-wrapped line that goes on\nto the next line.", "Done."},
		},
		{
			name: "heading and list",
			text: "# Title\nIntro text\n- first item\n- second item\n1. numbered",
			want: []string{"# Title", "Intro text", "- first item", "- second item", "1. numbered"},
		},
		{
			name: "no punctuation",
			text: "no punctuation at all just words",
			want: []string{"no punctuation at all just words"},
		},
		{
			name: "surrounding white space",
			text: "  \t Leading and trailing.   Spaces here. \n ",
			want: []string{"Leading and trailing.", "Spaces here."},
		},
		{
			name: "accented Latin",
			text: "Café au lait est bon. Ça va? Élodie répond: oui.",
			want: []string{"Café au lait est bon.", "Ça va?", "Élodie répond: oui."},
		},
		{
			name: "CJK full stops without spaces",
			text: "这是第一句。这是第二句！「你好。」他说。",
			want: []string{"这是第一句。", "这是第二句！", "「你好。」", "他说。"},
		},
		{
			name: "a domain name is not a break",
			text: "Visit example.com today. Yes.",
			want: []string{"Visit example.com today.", "Yes."},
		},
		{
			// The 2017 address in the demo corpus runs 71 sentences into
			// the next this way.
			name: "a sentence run into the next without a space",
			text: "We will extinguish this vile enemy from our planet.I have also imposed sanctions.Finally, I kept my promise.One-third agreed. Was it free?\"We think so.\" Done.",
			want: []string{"We will extinguish this vile enemy from our planet.", "I have also imposed sanctions.", "Finally, I kept my promise.", "One-third agreed.", "Was it free?\"", "We think so.\"", "Done."},
		},
		{
			name: "titles, initials, decimals and mixed case run together are no breaks",
			text: "Gov.Brown and Mr.Smith met in Washington,D.C.Today the U.S.A. grew 3.5 percent on iPhone.IBM-made parts and e.g.The rest.",
			want: []string{"Gov.Brown and Mr.Smith met in Washington,D.C.Today the U.S.A. grew 3.5 percent on iPhone.IBM-made parts and e.g.The rest."},
		},
		{
			name: "invalid UTF-8 bytes are characters",
			text: "Bad \xff\xfe bytes. Next \xe2\x82 one.",
			want: []string{"Bad \xff\xfe bytes.", "Next \xe2\x82 one."},
		},
		{
			name: "empty",
			text: "",
			want: nil,
		},
		{
			name: "all space",
			text: " \n\t\u00a0 ",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := Sentences(tt.text)
			segCheckSpans(t, tt.text, spans, 0)
			if diff := cmp.Diff(tt.want, segTexts(tt.text, spans)); diff != "" {
				t.Errorf("Sentences(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestSegment(t *testing.T) {
	long := strings.Repeat("word ", 300) // 1,500 characters, no sentence end
	tests := []struct {
		name     string
		text     string
		maxChars int
		want     []string
	}{
		{
			name:     "packs whole sentences",
			text:     "One two. Three four. Five six. Seven.",
			maxChars: 20,
			want:     []string{"One two. Three four.", "Five six. Seven."},
		},
		{
			name:     "sentence exactly at the limit",
			text:     "Aaaa bbbb. Cc.",
			maxChars: 10,
			want:     []string{"Aaaa bbbb.", "Cc."},
		},
		{
			name:     "long sentence cut at word boundaries",
			text:     "Short one. This sentence is far too long for the limit. End.",
			maxChars: 16,
			want:     []string{"Short one.", "This sentence is", "far too long for", "the limit.", "End."},
		},
		{
			name:     "long word cut hard",
			text:     "Go abcdefghijklmnop now.",
			maxChars: 6,
			want:     []string{"Go", "abcdef", "ghijkl", "mnop", "now."},
		},
		{
			name:     "hard cut keeps multi-byte characters whole",
			text:     "日本語のテキスト。",
			maxChars: 4,
			want:     []string{"日本語の", "テキスト", "。"},
		},
		{
			name:     "limit counts characters not bytes",
			text:     "Ça été. Où ça?",
			maxChars: 14,
			want:     []string{"Ça été. Où ça?"},
		},
		{
			name:     "invalid bytes count as one character each",
			text:     "\xff\xff\xff\xff. \xfe\xfe.",
			maxChars: 5,
			want:     []string{"\xff\xff\xff\xff.", "\xfe\xfe."},
		},
		{
			name:     "paragraphs",
			text:     "Para one\n\nPara two",
			maxChars: 100,
			want:     []string{"Para one\n\nPara two"},
		},
		{
			name:     "zero limit means MaxPassageChars",
			text:     long,
			maxChars: 0,
			want:     []string{strings.TrimSpace(long[:1000]), strings.TrimSpace(long[1000:])},
		},
		{
			name:     "empty",
			text:     "",
			maxChars: 10,
			want:     nil,
		},
		{
			name:     "all space",
			text:     "   \n  ",
			maxChars: 10,
			want:     nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := Segment(tt.text, tt.maxChars)
			limit := tt.maxChars
			if limit < 1 {
				limit = pipeline.MaxPassageChars
			}
			segCheckPassages(t, tt.text, spans, limit)
			if diff := cmp.Diff(tt.want, segTexts(tt.text, spans)); diff != "" {
				t.Errorf("Segment(%q, %d) (-want +got):\n%s", tt.text, tt.maxChars, diff)
			}
		})
	}
}

// segCorpusDoc is one record of the demo corpus.
type segCorpusDoc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// segLoadCorpus reads the first n documents of the demo corpus, skipping the
// test when the file is not there.
func segLoadCorpus(tb testing.TB, n int) []segCorpusDoc {
	tb.Helper()
	paths := []string{"../testdata/corpora/sotu.jsonl.gz", "../../shared/corpora/sotu.jsonl.gz"}
	var f *os.File
	for _, p := range paths {
		var err error
		if f, err = os.Open(p); err == nil {
			break
		}
	}
	if f == nil {
		tb.Skipf("demo corpus sotu.jsonl.gz not found at %s", strings.Join(paths, " or "))
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("open %s: %v", f.Name(), err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(nil, 64<<20)
	var docs []segCorpusDoc
	for len(docs) < n && sc.Scan() {
		var d segCorpusDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatalf("%s line %d: %v", f.Name(), len(docs)+1, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read %s: %v", f.Name(), err)
	}
	if len(docs) < n {
		tb.Fatalf("%s: %d documents, want at least %d", f.Name(), len(docs), n)
	}
	return docs
}

func TestSegmentCorpus(t *testing.T) {
	docs := segLoadCorpus(t, 30)
	for _, d := range docs {
		t.Run(d.ID, func(t *testing.T) {
			segCheckSpans(t, d.Text, Sentences(d.Text), 0)
			passages := Segment(d.Text, pipeline.MaxPassageChars)
			segCheckPassages(t, d.Text, passages, pipeline.MaxPassageChars)
			if runes := utf8.RuneCountInString(d.Text); len(passages) < runes/pipeline.MaxPassageChars {
				t.Errorf("%d passages for %d characters", len(passages), runes)
			}
		})
	}

	// Known sentences of Washington's 1790 address, including one that
	// follows a sentence ending in a number.
	text := docs[0].Text
	got := map[string]bool{}
	for _, s := range segTexts(text, Sentences(text)) {
		got[s] = true
	}
	for _, want := range []string{
		"For this sanction application is now made.",
		"I shall cause the papers on this very transaction to be laid before you.",
	} {
		if !got[want] {
			t.Errorf("%s: sentence %q not found", docs[0].ID, want)
		}
	}
}

func FuzzSegment(f *testing.F) {
	for _, s := range []string{
		"", " ", "The U.S. Army. We left. Mr. Smith said \"no.\" Then...",
		"这是第一句。这是第二句！", "Bad \xff\xfe bytes.\n\nNext \xe2\x82 one.",
		"# Heading\n- item\n1. item", "a\u2029b\r\rc\u00a0d. E",
		strings.Repeat("x", 70) + " y.",
	} {
		f.Add(s, uint8(10))
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, limit uint8) {
		maxChars := int(limit)
		segCheckSpans(t, text, Sentences(text), 0)
		spans := Segment(text, maxChars)
		if maxChars < 1 {
			maxChars = pipeline.MaxPassageChars
		}
		segCheckPassages(t, text, spans, maxChars)
	})
}

func BenchmarkSegment(b *testing.B) {
	docs := segLoadCorpus(b, 20)
	var size int64
	for _, d := range docs {
		size += int64(len(d.Text))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			Segment(d.Text, pipeline.MaxPassageChars)
		}
	}
}
