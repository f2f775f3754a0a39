package handlers

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

func TestDocumentID(t *testing.T) {
	tests := []struct {
		name    string
		target  string
		want    string
		wantErr error
	}{
		{name: "plain", target: "/documents/abc", want: "abc"},
		{name: "slashes", target: "/documents/a/b/c", want: "a/b/c"},
		{name: "escaped space", target: "/documents/a%20b", want: "a b"},
		{name: "escaped slash", target: "/documents/a%2Fb", want: "a/b"},
		{name: "escaped percent", target: "/documents/100%25", want: "100%"},
		{name: "double escaped slash stays escaped once", target: "/documents/a%252Fb", want: "a%2Fb"},
		{name: "escaped question mark and hash", target: "/documents/q%3Fx%23y?hl=x", want: "q?x#y"},
		{name: "unicode", target: "/documents/%C3%BCber/%E6%97%A5", want: "über/日"},
		{name: "unescaped unicode", target: "/documents/über", want: "über"},
		{name: "plus is literal", target: "/documents/a+b", want: "a+b"},
		{name: "trailing slash", target: "/documents/a/", want: "a/"},
		{name: "query form", target: "/documents/?id=..%2Fetc", want: "../etc"},
		{name: "path wins over id", target: "/documents/a?id=b", want: "a"},
		{name: "nothing", target: "/documents/", wantErr: pipeline.ErrNotFound},
		{name: "empty id parameter", target: "/documents/?id=", wantErr: pipeline.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.ParseRequestURI(tt.target)
			if err != nil {
				t.Fatal(err)
			}
			got, err := documentID(u)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("documentID(%s) error = %v, want %v", tt.target, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("documentID(%s) = %q, want %q", tt.target, got, tt.want)
			}
		})
	}
}

// TestDocumentIDInvertsDocumentURL checks the handler reads back every id
// views.DocumentURL writes.
func TestDocumentIDInvertsDocumentURL(t *testing.T) {
	ids := []string{"a", "a/b", "a b/c", "..", ".", "../x", "a/./b", "x/..", "%", "%2F", "?#&=+", "//", "é/日本", `\`}
	for _, id := range ids {
		link := views.DocumentURL(id, url.Values{"hl": {"q"}}, "p1")
		target, _, _ := strings.Cut(link, "#")
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("DocumentURL(%q) = %q does not parse: %v", id, link, err)
		}
		got, err := documentID(u)
		if err != nil || got != id {
			t.Errorf("documentID(DocumentURL(%q) = %q) = %q, %v", id, link, got, err)
		}
	}
}

func TestParseHighlight(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       string
		wantNotice string
	}{
		{name: "none", raw: "", want: ""},
		{name: "blank", raw: "  ", want: ""},
		{name: "query", raw: " state union ", want: "state union"},
		{name: "too long", raw: strings.Repeat("x", pipeline.MaxQueryChars+1), wantNotice: "The highlight query was ignored: it is longer than 4096 characters."},
		{name: "invalid UTF-8", raw: "\xff", wantNotice: "The highlight query was ignored: it is not valid UTF-8 text."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notice := parseHighlight(tt.raw)
			if got != tt.want || notice != tt.wantNotice {
				t.Errorf("parseHighlight = %q, %q; want %q, %q", got, notice, tt.want, tt.wantNotice)
			}
		})
	}
}

func TestParseSpan(t *testing.T) {
	const text = "añb cd" // 'ñ' is two bytes: offsets 1..3
	tests := []struct {
		name        string
		raw         string
		want        pipeline.Span
		wantProblem string
	}{
		{name: "whole", raw: "0-7", want: pipeline.Span{Start: 0, End: 7}},
		{name: "padded", raw: " 4-7 ", want: pipeline.Span{Start: 4, End: 7}},
		{name: "multibyte character", raw: "1-3", want: pipeline.Span{Start: 1, End: 3}},
		{name: "inside a character", raw: "2-4", wantProblem: `The span "2-4" was ignored: it does not start and end on character boundaries.`},
		{name: "reversed", raw: "5-2", wantProblem: `The span "5-2" was ignored: it must start before it ends.`},
		{name: "empty", raw: "3-3", wantProblem: `The span "3-3" was ignored: it must start before it ends.`},
		{name: "past the end", raw: "0-8", wantProblem: `The span "0-8" was ignored: the document's text is only 7 bytes long.`},
		{name: "no dash", raw: "4", wantProblem: `The span "4" was ignored: expected START-END byte offsets, such as 120-245.`},
		{name: "letters", raw: "a-b", wantProblem: `The span "a-b" was ignored: expected START-END byte offsets, such as 120-245.`},
		{name: "negative start", raw: "-1-3", wantProblem: `The span "-1-3" was ignored: expected START-END byte offsets, such as 120-245.`},
		{name: "three parts", raw: "1-2-3", wantProblem: `The span "1-2-3" was ignored: expected START-END byte offsets, such as 120-245.`},
		{name: "huge", raw: "0-99999999999999999999999", wantProblem: `The span "0-99999999999999999999999" was ignored: expected START-END byte offsets, such as 120-245.`},
		{name: "long value not echoed", raw: strings.Repeat("9", 50), wantProblem: `The span given was ignored: expected START-END byte offsets, such as 120-245.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problem := parseSpan(tt.raw, text)
			if got != tt.want || problem != tt.wantProblem {
				t.Errorf("parseSpan(%q) = %+v, %q; want %+v, %q", tt.raw, got, problem, tt.want, tt.wantProblem)
			}
		})
	}
}

func TestMarkText(t *testing.T) {
	const text = "the union is strong"
	union := pipeline.Fragment{{Text: "the "}, {Text: "union", Match: true}, {Text: " is strong"}}
	tests := []struct {
		name string
		frag pipeline.Fragment
		cite pipeline.Span
		want []views.Part
	}{
		{name: "plain", want: []views.Part{{Text: text}}},
		{name: "matches", frag: union, want: []views.Part{{Text: "the "}, {Text: "union", Match: true}, {Text: " is strong"}}},
		{
			name: "fragment missing text is ignored",
			frag: pipeline.Fragment{{Text: "union", Match: true}},
			want: []views.Part{{Text: text}},
		},
		{
			name: "fragment with extra text is ignored",
			frag: append(union, pipeline.FragmentPart{Text: "!"}),
			want: []views.Part{{Text: text}},
		},
		{
			name: "neighbouring parts merged",
			frag: pipeline.Fragment{{Text: "the"}, {Text: " "}, {Text: "union", Match: true}, {Text: ""}, {Text: " is"}, {Text: " strong"}},
			want: []views.Part{{Text: "the "}, {Text: "union", Match: true}, {Text: " is strong"}},
		},
		{
			name: "cite inside plain text",
			cite: pipeline.Span{Start: 4, End: 9},
			want: []views.Part{{Text: "the "}, {Text: "union", Cite: true}, {Text: " is strong"}},
		},
		{
			name: "cite across a match",
			frag: union,
			cite: pipeline.Span{Start: 2, End: 12},
			want: []views.Part{
				{Text: "th"}, {Text: "e ", Cite: true}, {Text: "union", Match: true, Cite: true},
				{Text: " is", Cite: true}, {Text: " strong"},
			},
		},
		{
			name: "cite inside a match",
			frag: union,
			cite: pipeline.Span{Start: 5, End: 7},
			want: []views.Part{
				{Text: "the "}, {Text: "u", Match: true}, {Text: "ni", Match: true, Cite: true}, {Text: "on", Match: true},
				{Text: " is strong"},
			},
		},
		{
			name: "cite covers everything",
			frag: union,
			cite: pipeline.Span{Start: 0, End: len(text)},
			want: []views.Part{{Text: "the ", Cite: true}, {Text: "union", Match: true, Cite: true}, {Text: " is strong", Cite: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markText(text, tt.frag, tt.cite)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("markText (-want +got):\n%s", diff)
			}
		})
	}
}

// stubMarker marks every occurrence of the query string.
type stubMarker struct{}

func (stubMarker) Mark(text, query string) pipeline.Fragment {
	var f pipeline.Fragment
	for {
		i := strings.Index(text, query)
		if i < 0 {
			return append(f, pipeline.FragmentPart{Text: text})
		}
		f = append(f, pipeline.FragmentPart{Text: text[:i]}, pipeline.FragmentPart{Text: query, Match: true})
		text = text[i+len(query):]
	}
}

func TestMarkPassages(t *testing.T) {
	const doc = "Alpha beta. Gamma beta. Delta."
	passages := []pipeline.Passage{
		{Ordinal: 0, Start: 0, End: 12, Text: doc[0:12]},
		{Ordinal: 1, Start: 12, End: 24, Text: doc[12:24]},
		{Ordinal: 2, Start: 24, End: 30, Text: doc[24:30]},
	}
	span := &pipeline.Span{Start: 6, End: 18}
	got := markPassages(passages, stubMarker{}, "beta", span)
	want := []views.PassageView{
		{Ordinal: 0, Start: 0, End: 12, Parts: []views.Part{
			{Text: "Alpha "}, {Text: "beta", Match: true, Cite: true, ID: views.CiteAnchor}, {Text: ". ", Cite: true},
		}},
		{Ordinal: 1, Start: 12, End: 24, Parts: []views.Part{
			{Text: "Gamma ", Cite: true}, {Text: "beta", Match: true}, {Text: ". "},
		}},
		{Ordinal: 2, Start: 24, End: 30, Parts: []views.Part{{Text: "Delta."}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markPassages (-want +got):\n%s", diff)
	}

	plain := markPassages(passages, nil, "beta", nil)
	for i, p := range plain {
		if len(p.Parts) != 1 || p.Parts[0].Match || p.Parts[0].Cite || p.Parts[0].Text != passages[i].Text {
			t.Errorf("passage %d without marker or span = %+v, want its plain text", i, p.Parts)
		}
	}
}
