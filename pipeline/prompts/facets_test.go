package prompts

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestParseFacets(t *testing.T) {
	surplus := pipeline.Facet{Heading: "The Treasury surplus", Description: "The surplus that drove the tariff debate"}
	laws := pipeline.Facet{Heading: "Features and dates of the tariff laws", Description: "The main features and dates of each tariff law"}
	bare := func(hs ...string) []pipeline.Facet {
		var out []pipeline.Facet
		for _, h := range hs {
			out = append(out, pipeline.Facet{Heading: h})
		}
		return out
	}
	tests := []struct {
		name        string
		in          string
		want        []pipeline.Facet
		wantSkip    []string // reasons
		wantMissing []string
	}{
		{
			name: "canonical",
			in:   "1. The Treasury surplus | The surplus that drove the tariff debate\n2. Features and dates of the tariff laws | The main features and dates of each tariff law",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "prose around, bullets, bold and a fence",
			in: "Sure! Here are the sections:\n\n```\n- **The Treasury surplus** | The surplus that drove the tariff debate.\n" +
				"- **Features and dates of the tariff laws** | The main features and dates of each tariff law.\n```\n\nLet me know if you need more.",
			want: []pipeline.Facet{
				{Heading: surplus.Heading, Description: surplus.Description + "."},
				{Heading: laws.Heading, Description: laws.Description + "."},
			},
		},
		{
			name: "bold heading with a colon and description",
			in:   "1. **The Treasury surplus:** The surplus that drove the tariff debate\n2. **Features and dates of the tariff laws**: The main features and dates of each tariff law",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "heading and description split by a dash",
			in:   "1. The Treasury surplus — The surplus that drove the tariff debate\n2) Features and dates of the tariff laws – The main features and dates of each tariff law",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "markdown headings with the description below",
			in:   "## 1. The Treasury surplus\n\nThe surplus that drove the tariff debate\n\n## 2. Features and dates of the tariff laws\nThe main features and dates of each tariff law",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "labels on their own lines",
			in:   "Heading: The Treasury surplus\nDescription: The surplus that drove the tariff debate\n\nFacet 2: Features and dates of the tariff laws\nDescription: The main features and dates of each tariff law",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "labels on one line",
			in:   "1. Heading: The Treasury surplus | Description: The surplus that drove the tariff debate",
			want: []pipeline.Facet{surplus},
		},
		{
			name: "markdown table",
			in:   "| # | Heading | Description |\n|---|---|---|\n| 1 | The Treasury surplus | The surplus that drove the tariff debate |\n| 2 | Features and dates of the tariff laws | The main features and dates of each tariff law |",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name: "json objects",
			in:   "```json\n{\"facets\": [{\"heading\": \"The Treasury surplus\", \"description\": \"The surplus that drove the tariff debate\"}, {\"title\": \"Features and dates of the tariff laws\", \"about\": \"The main features and dates of each tariff law\"}]}\n```",
			want: []pipeline.Facet{surplus, laws},
		},
		{
			name:        "json strings",
			in:          `["The Treasury surplus", "Reciprocity"]`,
			want:        bare("The Treasury surplus", "Reciprocity"),
			wantMissing: []string{"description of facet 1", "description of facet 2"},
		},
		{
			name:        "missing descriptions",
			in:          "1. The Treasury surplus\n2. Features and dates of the tariff laws | The main features and dates of each tariff law\n3. Reciprocity arrangements.",
			want:        []pipeline.Facet{{Heading: "The Treasury surplus"}, laws, {Heading: "Reciprocity arrangements"}},
			wantMissing: []string{"description of facet 1", "description of facet 3"},
		},
		{
			name:        "plain short lines",
			in:          "Here are the sections:\nThe Treasury surplus\nReciprocity arrangements",
			want:        bare("The Treasury surplus", "Reciprocity arrangements"),
			wantMissing: []string{"description of facet 1", "description of facet 2"},
		},
		{
			name: "think section dropped",
			in:   "<think>The user wants sections. 1. Wrong | no</think>\n1. The Treasury surplus | The surplus that drove the tariff debate",
			want: []pipeline.Facet{surplus},
		},
		{
			name:     "long heading cut, repeated and blank headings dropped",
			in:       "1. The surplus in the Treasury that drove the whole tariff debate | x\n2. the surplus in the treasury that drove the | y\n3. ** | z\n4. Reciprocity | w",
			want:     []pipeline.Facet{{Heading: "The surplus in the Treasury that drove the", Description: "x"}, {Heading: "Reciprocity", Description: "w"}},
			wantSkip: []string{reasonRepeatedHeading, reasonBlankHeading},
		},
		{
			name: "more than eight facets",
			in:   "1. A | a\n2. B | b\n3. C | c\n4. D | d\n5. E | e\n6. F | f\n7. G | g\n8. H | h\n9. I | i",
			want: []pipeline.Facet{{Heading: "A", Description: "a"}, {Heading: "B", Description: "b"}, {Heading: "C", Description: "c"},
				{Heading: "D", Description: "d"}, {Heading: "E", Description: "e"}, {Heading: "F", Description: "f"},
				{Heading: "G", Description: "g"}, {Heading: "H", Description: "h"}},
			wantSkip: []string{reasonTooManyFacets},
		},
		{
			name: "a pipe in a heading and a label-like description",
			in:   "1. Imports | exports | Trade both ways",
			want: []pipeline.Facet{{Heading: "Imports", Description: "exports | Trade both ways"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFacets(tt.in)
			if err != nil {
				t.Fatalf("ParseFacets: %v", err)
			}
			if diff := cmp.Diff(tt.want, got.Facets); diff != "" {
				t.Errorf("facets (-want +got):\n%s", diff)
			}
			var reasons []string
			for _, s := range got.Report.Skipped {
				reasons = append(reasons, s.Reason)
			}
			if diff := cmp.Diff(tt.wantSkip, reasons); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMissing, got.Report.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFacetsErrors(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{"", "empty"},
		{"```\n```", "empty"},
		{"NONE", "NONE"},
		{"I'm sorry, I cannot help with that request.", "no facet heading found"},
		{"The request asks about tariffs. It also asks about the surplus.", "no facet heading found"},
		{"1. ** | x\n2. | y", "the first because it had a blank heading"},
		{`[{"description": "no heading here"}]`, "a description but no heading"},
	} {
		_, err := ParseFacets(tc.in)
		wantParseError(t, err, TaskFacets, tc.reason)
	}
}

func TestFacetsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < roundTrips; i++ {
		var in FacetsOutput
		for n := r.IntN(10); n > 0; n-- {
			in.Facets = append(in.Facets, pipeline.Facet{Heading: randText(r), Description: randText(r)})
		}
		formatted := FormatFacets(in)
		got, err := ParseFacets(formatted)
		if formatted == "NONE" {
			if err == nil {
				t.Fatalf("NONE parsed as facets %+v", got)
			}
			continue
		}
		if err != nil {
			t.Fatalf("canonical answer %q: %v", formatted, err)
		}
		if len(got.Report.Skipped) > 0 {
			t.Fatalf("canonical answer %q dropped entries: %+v", formatted, got.Report.Skipped)
		}
		if again := FormatFacets(got); again != formatted {
			t.Fatalf("format is not stable:\n%q\n%q", formatted, again)
		}
		for _, f := range got.Facets {
			if n := len(strings.Fields(f.Heading)); n == 0 || n > pipeline.MaxFacetHeadingWords || strings.ContainsAny(f.Heading, "|\n") {
				t.Fatalf("bad heading %q", f.Heading)
			}
		}
	}
}

func TestFormatFacets(t *testing.T) {
	got := FormatFacets(FacetsOutput{Facets: []pipeline.Facet{
		{Heading: "**Reciprocity** | trade", Description: "Treaties\nwith Brazil"},
		{Heading: "reciprocity / TRADE"},
		{Heading: "  ", Description: "dropped"},
		{Heading: "Taft's machinery — the 1909 act and its board of appraisers, in full."},
	}})
	want := "1. Reciprocity / trade | Treaties with Brazil\n2. Taft's machinery - the 1909 act and its"
	if got != want {
		t.Errorf("FormatFacets =\n%s\nwant\n%s", got, want)
	}
	if got := FormatFacets(FacetsOutput{}); got != "NONE" {
		t.Errorf("no facets formats as %q, want NONE", got)
	}
}
