package handlers

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

func TestParseSearchParams(t *testing.T) {
	tests := []struct {
		name        string
		query       string // raw query string
		want        searchParams
		wantProblem string
	}{
		{name: "empty", query: "", want: searchParams{Page: 1}},
		{name: "query trimmed", query: "q=+state+of+the+union+", want: searchParams{Query: "state of the union", Page: 1}},
		{name: "page", query: "q=x&page=7", want: searchParams{Query: "x", Page: 7}},
		{name: "page zero", query: "q=x&page=0", want: searchParams{Query: "x", Page: 1}},
		{name: "page negative", query: "q=x&page=-2", want: searchParams{Query: "x", Page: 1}},
		{name: "page not a number", query: "q=x&page=last", want: searchParams{Query: "x", Page: 1}},
		{name: "page fractional", query: "q=x&page=2.5", want: searchParams{Query: "x", Page: 1}},
		{name: "page padded", query: "q=x&page=+3+", want: searchParams{Query: "x", Page: 3}},
		{name: "docs 1", query: "q=x&docs=1", want: searchParams{Query: "x", Page: 1, Docs: true}},
		{name: "docs on", query: "q=x&docs=on", want: searchParams{Query: "x", Page: 1, Docs: true}},
		{name: "docs empty", query: "q=x&docs=", want: searchParams{Query: "x", Page: 1}},
		{name: "docs 0", query: "q=x&docs=0", want: searchParams{Query: "x", Page: 1}},
		{
			name:        "too long",
			query:       "q=" + strings.Repeat("é", pipeline.MaxQueryChars+1),
			want:        searchParams{Query: strings.Repeat("é", pipeline.MaxQueryChars+1), Page: 1},
			wantProblem: "The query is 4097 characters long; the limit is 4096. Shorten it and search again.",
		},
		{
			name:  "at the limit in characters, over it in bytes",
			query: "q=" + strings.Repeat("é", pipeline.MaxQueryChars),
			want:  searchParams{Query: strings.Repeat("é", pipeline.MaxQueryChars), Page: 1},
		},
		{name: "invalid UTF-8", query: "q=%ff%fe", want: searchParams{Query: "\xff\xfe", Page: 1}, wantProblem: "The query is not valid UTF-8 text."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, problem := parseSearchParams(v)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
			if problem != tt.wantProblem {
				t.Errorf("problem = %q, want %q", problem, tt.wantProblem)
			}
		})
	}
}

func TestSearchRequest(t *testing.T) {
	tests := []struct {
		name string
		p    searchParams
		want pipeline.SearchRequest
	}{
		{name: "first page", p: searchParams{Query: "q", Page: 1}, want: pipeline.SearchRequest{Query: "q", K: PerPage, Highlight: true, Count: true}},
		{name: "third page of documents", p: searchParams{Query: "q", Page: 3, Docs: true},
			want: pipeline.SearchRequest{Query: "q", K: PerPage, Offset: 2 * PerPage, Docs: true, Highlight: true, Count: true}},
		{name: "last served page", p: searchParams{Query: "q", Page: MaxPage},
			want: pipeline.SearchRequest{Query: "q", K: PerPage, Offset: (MaxPage - 1) * PerPage, Highlight: true, Count: true}},
		{name: "beyond the served pages only counts", p: searchParams{Query: "q", Page: MaxPage + 1},
			want: pipeline.SearchRequest{Query: "q", K: 1, Count: true}},
		{name: "huge page", p: searchParams{Query: "q", Page: 1 << 62}, want: pipeline.SearchRequest{Query: "q", K: 1, Count: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.p.request()); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPaginate(t *testing.T) {
	hits := []pipeline.Hit{{Rank: 1}, {Rank: 2}}
	full := make([]pipeline.Hit, PerPage)
	tests := []struct {
		name string
		page int
		res  pipeline.SearchResult
		want *views.SearchResults
	}{
		{
			name: "no hits",
			page: 1,
			res:  pipeline.SearchResult{Took: time.Millisecond},
			want: &views.SearchResults{Page: 1, Pages: 0, Took: time.Millisecond},
		},
		{
			name: "exactly one page",
			page: 1,
			res:  pipeline.SearchResult{Hits: hits, Total: PerPage},
			want: &views.SearchResults{Hits: hits, Total: PerPage, Page: 1, Pages: 1},
		},
		{
			name: "one more than a page",
			page: 2,
			res:  pipeline.SearchResult{Hits: hits[:1], Total: PerPage + 1},
			want: &views.SearchResults{Hits: hits[:1], Total: PerPage + 1, Page: 2, Pages: 2},
		},
		{
			name: "past the end drops stray hits",
			page: 3,
			res:  pipeline.SearchResult{Hits: hits, Total: PerPage + 1},
			want: &views.SearchResults{Total: PerPage + 1, Page: 3, Pages: 2},
		},
		{
			name: "capped",
			page: 1,
			res:  pipeline.SearchResult{Hits: hits, Total: MaxPage*PerPage + 1},
			want: &views.SearchResults{Hits: hits, Total: MaxPage*PerPage + 1, Page: 1, Pages: MaxPage, Capped: true},
		},
		{
			name: "lower bound, first page full",
			page: 1,
			res:  pipeline.SearchResult{Hits: full, Total: PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: full, Total: PerPage, TotalIsLowerBound: true, Page: 1, Pages: 1, More: true},
		},
		{
			name: "lower bound, before the last page counted",
			page: 2,
			res:  pipeline.SearchResult{Hits: full, Total: 5 * PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: full, Total: 5 * PerPage, TotalIsLowerBound: true, Page: 2, Pages: 5},
		},
		{
			name: "lower bound, last page counted is full",
			page: 5,
			res:  pipeline.SearchResult{Hits: full, Total: 5 * PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: full, Total: 5 * PerPage, TotalIsLowerBound: true, Page: 5, Pages: 5, More: true},
		},
		{
			name: "lower bound, last page counted is not full",
			page: 5,
			res:  pipeline.SearchResult{Hits: hits, Total: 4*PerPage + 2, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: hits, Total: 4*PerPage + 2, TotalIsLowerBound: true, Page: 5, Pages: 5},
		},
		{
			name: "lower bound below the hits fetched",
			page: 3,
			res:  pipeline.SearchResult{Hits: full, Total: PerPage + 2, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: full, Total: 3 * PerPage, TotalIsLowerBound: true, Page: 3, Pages: 3, More: true},
		},
		{
			name: "lower bound, past the end",
			page: 4,
			res:  pipeline.SearchResult{Total: 2 * PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Total: 2 * PerPage, TotalIsLowerBound: true, Page: 4, Pages: 2},
		},
		{
			name: "lower bound, capped: no page after the last served",
			page: MaxPage,
			res:  pipeline.SearchResult{Hits: full, Total: MaxPage * PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Hits: full, Total: MaxPage * PerPage, TotalIsLowerBound: true, Page: MaxPage, Pages: MaxPage},
		},
		{
			name: "lower bound beyond the served pages",
			page: MaxPage + 1,
			res:  pipeline.SearchResult{Hits: hits[:1], Total: 3 * PerPage, TotalIsLowerBound: true},
			want: &views.SearchResults{Total: 3 * PerPage, TotalIsLowerBound: true, Page: MaxPage + 1, Pages: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := paginate(tt.page, tt.res)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paginate (-want +got):\n%s", diff)
			}
		})
	}
}
