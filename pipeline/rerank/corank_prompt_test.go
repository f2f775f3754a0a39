package rerank

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

func TestParseFeatures(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   DocFeatures
		report prompts.ParseReport
	}{
		{
			name:   "canonical",
			answer: FormatFeatures(featuresExample),
			want:   featuresExample,
		},
		{
			name: "markdown labels, lists and extra levels",
			answer: "Here is the description you asked for:\n\n" +
				"**Title:** Flood barrier approved\n" +
				"**Category path:** Environment / Flood protection / Barriers / Extra\n" +
				"## Section headings\n1. The decision\n2. **Cost**\n" +
				"## Keywords\n- flood barrier, city council; river\n- Flood Barrier\n" +
				"## Pseudo-queries (20)\n1. when was the barrier approved\n* cost of the barrier\n",
			want: DocFeatures{
				Title:    "Flood barrier approved",
				Category: []string{"Environment", "Flood protection", "Barriers"},
				Headings: []string{"The decision", "Cost"},
				Keywords: []string{"flood barrier", "city council", "river"},
				Queries:  []string{"when was the barrier approved", "cost of the barrier"},
			},
			report: prompts.ParseReport{Skipped: []prompts.SkippedEntry{
				{Text: "Extra", Reason: "category level beyond the 3 asked for"},
				{Text: "Flood Barrier", Reason: "keyword repeats an earlier one"},
			}},
		},
		{
			name:   "json object",
			answer: "```json\n{\"topical_title\": \"T\", \"category\": [\"A\", \"B > C\"], \"keywords\": [\"k1\", \"k2\"], \"pseudo_queries\": [\"q1\"]}\n```",
			want:   DocFeatures{Title: "T", Category: []string{"A", "B C"}, Keywords: []string{"k1", "k2"}, Queries: []string{"q1"}},
			report: prompts.ParseReport{Missing: []string{"headings"}},
		},
		{
			name:   "single values on the next line, prose ignored",
			answer: "TITLE:\n\nFlood barrier\nThe document is a news article.\nKEYWORDS: a; b",
			want:   DocFeatures{Title: "Flood barrier", Keywords: []string{"a", "b"}},
			report: prompts.ParseReport{Missing: []string{"category", "headings", "queries"}},
		},
		{
			name:   "reasoning before the answer",
			answer: "<think>TITLE: wrong\nKEYWORDS: wrong</think>\nTITLE: right\nQUERIES: first query; second query",
			want:   DocFeatures{Title: "right", Queries: []string{"first query", "second query"}},
			report: prompts.ParseReport{Missing: []string{"category", "headings", "keywords"}},
		},
		{
			name:   "a listed entry that looks like a label stays an entry",
			answer: "HEADINGS:\n- Keywords: not a label\nKEYWORDS: real",
			want:   DocFeatures{Headings: []string{"Keywords: not a label"}, Keywords: []string{"real"}},
			report: prompts.ParseReport{Missing: []string{"title", "category", "queries"}},
		},
		{
			name:   "emphasis after a plain label belongs to the value",
			answer: "TITLE: **Bold** start\nCATEGORY: A > > B",
			want:   DocFeatures{Title: "**Bold** start", Category: []string{"A", "B"}},
			report: prompts.ParseReport{Missing: []string{"headings", "keywords", "queries"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFeatures(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Features); diff != "" {
				t.Errorf("features (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.report, got.Report); diff != "" {
				t.Errorf("report (-want +got)\n%s", diff)
			}
		})
	}
}

func TestParseFeaturesRejects(t *testing.T) {
	for _, answer := range []string{"", "   \n", "I cannot describe this document.", "```\n```", "TITLE:\nKEYWORDS: ;, ;"} {
		_, err := ParseFeatures(answer)
		var pe *prompts.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrInvalid) || pe.Task != TaskCoRankFeatures {
			t.Errorf("ParseFeatures(%q) error %v, want a *prompts.ParseError of %s wrapping ErrInvalid", answer, err, TaskCoRankFeatures)
		}
	}
}

func TestParseFeaturesBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("KEYWORDS: ")
	for i := range 105 {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString("k" + strings.Repeat("x", i))
	}
	b.WriteString("\nQUERIES:\n- " + strings.Repeat("long ", 50) + "\n- short")
	got, err := ParseFeatures(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Features.Keywords) != maxFeatureItems {
		t.Errorf("%d keywords kept, want the first %d", len(got.Features.Keywords), maxFeatureItems)
	}
	if diff := cmp.Diff([]string{"short"}, got.Features.Queries); diff != "" {
		t.Errorf("queries (-want +got)\n%s", diff)
	}
	// 5 keywords beyond the bound and one query of 249 bytes are reported.
	if n := len(got.Report.Skipped); n != 6 {
		t.Errorf("%d skipped entries, want 6: %+v", n, got.Report.Skipped)
	}
}

func TestFormatFeaturesReplacesSeparators(t *testing.T) {
	f := DocFeatures{
		Title:    "  Tariffs\n and  duties ",
		Category: []string{"Trade/Policy", "A::B", " "},
		Keywords: []string{"Washington, D.C.", "a;b", ""},
		Queries:  []string{"- 1. listed query"},
	}
	want := "TITLE: Tariffs and duties\nCATEGORY: Trade Policy > A B\nKEYWORDS: Washington D.C.; a b\nQUERIES:\n- listed query"
	if diff := cmp.Diff(want, FormatFeatures(f)); diff != "" {
		t.Errorf("FormatFeatures (-want +got)\n%s", diff)
	}
}

func TestBuildFeatures(t *testing.T) {
	req := BuildFeatures(FeaturesInput{Doc: PromptDoc{ID: "d1", Title: "Annual message", Text: "The tariff rose."}, Cut: true})
	if req.Task != TaskCoRankFeatures || req.MaxTokens != featuresMaxTokens || req.Temperature != 0 {
		t.Errorf("request task %q, max tokens %d, temperature %v", req.Task, req.MaxTokens, req.Temperature)
	}
	if _, ok := req.Input.(FeaturesInput); !ok {
		t.Errorf("input is %T, want FeaturesInput", req.Input)
	}
	user := req.Messages[len(req.Messages)-1].Content
	for _, want := range []string{"The tariff rose.", "only its beginning is shown", "TITLE:", "CATEGORY:", "HEADINGS:", "KEYWORDS:", "QUERIES:", "30 to 40 keywords"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	// The example in the prompt parses back to itself.
	got, err := ParseFeatures(FormatFeatures(featuresExample))
	if err != nil || !got.Report.Empty() {
		t.Fatalf("example: %v, report %+v", err, got.Report)
	}
}

func FuzzParseFeatures(f *testing.F) {
	for _, seed := range []string{
		FormatFeatures(featuresExample),
		"**Title:** x\n## Keywords\n- a, b\n## Queries\n1. q",
		`{"title": "t", "category": "a > b", "headings": "h1; h2", "keywords": ["k"]}`,
		"TITLE:\nCATEGORY:\nHEADINGS:\n- TITLE: y\nKEYWORDS: ,,;",
		"<think>x</think>TITLE: **a** b\nCATEGORY: a::b / c › d → e",
		"", "\xff\xfeTITLE: \x00", "QUERIES: a; b; c\n- # > - 1. **q**",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		out, err := ParseFeatures(answer)
		if err != nil {
			if !errors.Is(err, pipeline.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		ft := out.Features
		if ft.Empty() {
			t.Fatalf("no error but no feature: %+v", out)
		}
		if len(ft.Category) > CategoryLevels {
			t.Fatalf("%d category levels", len(ft.Category))
		}
		for _, list := range [][]string{ft.Category, ft.Headings, ft.Keywords, ft.Queries, {ft.Title}} {
			if len(list) > maxFeatureItems {
				t.Fatalf("%d entries", len(list))
			}
			for _, e := range list {
				if len(e) > maxFeatureEntry || strings.ContainsAny(e, "\n\r") {
					t.Fatalf("bad entry %q", e)
				}
			}
		}
		// What was read is written and read back unchanged.
		again, err := ParseFeatures(FormatFeatures(ft))
		if err != nil {
			t.Fatalf("formatted answer %q does not parse: %v", FormatFeatures(ft), err)
		}
		if diff := cmp.Diff(ft, again.Features); diff != "" {
			t.Fatalf("round trip of %q (-first +second)\n%s", FormatFeatures(ft), diff)
		}
	})
}
