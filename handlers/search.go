package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// Searcher ranks the collection for a query.
type Searcher interface {
	// Search returns one page of hits. Errors wrapping pipeline.ErrInvalid
	// mean the query itself was unusable; their message is shown to the
	// user.
	Search(ctx context.Context, req pipeline.SearchRequest) (pipeline.SearchResult, error)
}

// Paging of search results.
const (
	// PerPage is the number of hits on a result page.
	PerPage = 10
	// MaxPage is the last result page served. Deeper pages would make the
	// index collect Offset+K hits for a page nobody reads; a query matching
	// more than MaxPage*PerPage hits says so on the page.
	MaxPage = 1000
)

// Search serves the search page.
type Search struct {
	Site     views.Site
	Searcher Searcher
}

// Show renders the search page for the q, page and docs parameters.
//
// Statuses: 200 for a prompt (no query), a page of results or no match at
// all; 400 when the query is rejected (too long, not UTF-8, or refused by the
// searcher), with the reason on the page; 404 for a page number after the
// last page of results, with a message naming how many pages there are and
// a link to the last one. A missing, non-numeric or non-positive page number
// means page 1.
func (h *Search) Show(c echo.Context) error {
	p, problem := parseSearchParams(c.QueryParams())
	vm := views.SearchPage{
		Site:  h.Site.WithActive(views.NavSearch),
		Query: p.Query,
		Docs:  p.Docs,
	}
	if id, err := strconv.ParseInt(strings.TrimSpace(c.QueryParam(views.ParamCiteReport)), 10, 64); err == nil && id > 0 {
		vm.CiteReport = id
	}
	if problem != "" {
		vm.Error = problem
		return Render(c, http.StatusBadRequest, views.Search(vm))
	}
	if p.Query == "" {
		return Render(c, http.StatusOK, views.Search(vm))
	}

	res, err := h.Searcher.Search(c.Request().Context(), p.request())
	if errors.Is(err, pipeline.ErrInvalid) {
		vm.Error = "The query was rejected: " + err.Error()
		return Render(c, http.StatusBadRequest, views.Search(vm))
	}
	if err != nil {
		return fmt.Errorf("search (page %d, docs %t): %w", p.Page, p.Docs, err)
	}
	vm.Results = paginate(p.Page, res)
	status := http.StatusOK
	if vm.Results.PastEnd() {
		status = http.StatusNotFound
	}
	return Render(c, status, views.Search(vm))
}

// searchParams is a search request as the page understands it.
type searchParams struct {
	Query string
	Page  int
	Docs  bool
}

// parseSearchParams reads the search page's query parameters. The query is
// trimmed; problem explains, in a sentence for the page, why the query
// cannot be run. Page numbers that are missing, not numbers or below 1 mean
// page 1.
func parseSearchParams(v url.Values) (p searchParams, problem string) {
	p.Query = strings.TrimSpace(v.Get(views.ParamQuery))
	p.Docs = parseFlag(v.Get(views.ParamDocs))
	p.Page = 1
	if n, err := strconv.Atoi(strings.TrimSpace(v.Get(views.ParamPage))); err == nil && n > 1 {
		p.Page = n
	}
	switch {
	case !utf8.ValidString(p.Query):
		return p, "The query is not valid UTF-8 text."
	case utf8.RuneCountInString(p.Query) > pipeline.MaxQueryChars:
		return p, fmt.Sprintf("The query is %d characters long; the limit is %d. Shorten it and search again.",
			utf8.RuneCountInString(p.Query), pipeline.MaxQueryChars)
	}
	return p, ""
}

// parseFlag reads a checkbox-like parameter: "1", "true", "on" and "yes" are
// true, anything else false.
func parseFlag(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// request is the searcher request for the page. Pages after MaxPage are
// never fetched: a one-hit request learns the total, so the page can say how
// many pages there are.
func (p searchParams) request() pipeline.SearchRequest {
	if p.Page > MaxPage {
		return pipeline.SearchRequest{Query: p.Query, K: 1, Docs: p.Docs, Count: true}
	}
	return pipeline.SearchRequest{
		Query:     p.Query,
		K:         PerPage,
		Offset:    (p.Page - 1) * PerPage,
		Docs:      p.Docs,
		Highlight: true,
		Count:     true,
	}
}

// paginate places a searcher result on the requested page.
//
// When the searcher's total is only a lower bound, the page count is
// computed from it (and from the hits actually fetched, which match
// whatever the searcher counted), and a full last counted page still gets a
// next link (SearchResults.More): the next request makes the searcher count
// further.
func paginate(page int, res pipeline.SearchResult) *views.SearchResults {
	total := res.Total
	if res.TotalIsLowerBound && page <= MaxPage && len(res.Hits) > 0 {
		total = max(total, (page-1)*PerPage+len(res.Hits))
	}
	pages := (total + PerPage - 1) / PerPage
	capped := pages > MaxPage
	if capped {
		pages = MaxPage
	}
	out := &views.SearchResults{
		Terms:             res.Terms,
		Hits:              res.Hits,
		Total:             total,
		TotalIsLowerBound: res.TotalIsLowerBound,
		Took:              res.Took,
		Page:              page,
		Pages:             pages,
		Capped:            capped,
		More:              res.TotalIsLowerBound && page == pages && page < MaxPage && len(res.Hits) >= PerPage,
	}
	if out.PastEnd() {
		out.Hits = nil
	}
	return out
}
