package views

import (
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// SearchPage is the view model of the search page.
//
// With an empty Query the page only prompts for one. With Error set the
// query was rejected and Results is nil. Otherwise Results holds one page of
// hits.
type SearchPage struct {
	Site  Site
	Query string
	// Docs is true when results are documents (ranked by their best
	// passage) rather than passages.
	Docs bool
	// CiteReport, when above 0, is the report the user is finding text to
	// cite in: each hit links to its passage with the report's "cite this
	// selection" form, and every link of the page keeps it.
	CiteReport int64
	// Error explains why the query could not be run.
	Error   string
	Results *SearchResults
}

// SearchResults is one page of search results and where it sits among all
// pages.
type SearchResults struct {
	// Terms are the query's words as searched (analysed, common words
	// dropped); none when every word was too common.
	Terms []string
	Hits  []pipeline.Hit
	Total int
	// TotalIsLowerBound is set when the searcher stopped counting matches
	// (document searches of very common terms): Total and Pages are then
	// only "at least".
	TotalIsLowerBound bool
	Took              time.Duration
	// Page is the 1-based page shown; Pages is how many pages exist (at
	// least, with TotalIsLowerBound).
	Page  int
	Pages int
	// Capped is true when more hits matched than the portal pages through.
	Capped bool
	// More is set when a page after Pages may exist although Total does not
	// show it: the total is a lower bound and the page shown, the last one
	// counted, is full. The pager then still offers the next page.
	More bool
}

// PastEnd reports whether the requested page lies after the last page of a
// search that did match something.
func (r *SearchResults) PastEnd() bool {
	return r.Total > 0 && r.Page > r.Pages
}

// HasNext reports whether the pager offers a next page.
func (r *SearchResults) HasNext() bool {
	return r.Page < r.Pages || r.More
}

// atLeast is the qualifier put before a count that is only a lower bound.
func atLeast(lowerBound bool) string {
	if lowerBound {
		return "at least "
	}
	return ""
}

// pageLink is one entry of the pager: a page number, or a gap between
// non-adjacent numbers.
type pageLink struct {
	Number  int
	URL     string
	Current bool
	Gap     bool
}

// pagerWindow is how many page numbers the pager shows on each side of the
// current page, besides the first and the last.
const pagerWindow = 2

// pagerLinks lists the page numbers to offer for page of pages: the first,
// the last and those within pagerWindow of the current page, with gaps
// marking the numbers left out.
func pagerLinks(q string, docs bool, page, pages int) []pageLink {
	return pagerLinksOf(func(n int) string { return SearchURL(q, docs, n) }, page, pages)
}

// url is the search page's link for a query, mode and page, keeping the
// report being cited in.
func (vm SearchPage) url(q string, docs bool, page int) string {
	u := SearchURL(q, docs, page)
	if vm.CiteReport > 0 {
		u += "&" + ParamCiteReport + "=" + strconv.FormatInt(vm.CiteReport, 10)
	}
	return u
}

// hitURL links a hit to its passage: with the report's cite form when the
// user is citing.
func (vm SearchPage) hitURL(hit pipeline.Hit) string {
	if vm.CiteReport == 0 {
		return DocumentHitURL(hit.DocID, vm.Query, hit.Ordinal)
	}
	v := url.Values{ParamHighlight: {vm.Query}, ParamCiteReport: {strconv.FormatInt(vm.CiteReport, 10)}}
	return DocumentURL(hit.DocID, passageParams(v, hit.Ordinal), PassageAnchor(hit.Ordinal))
}

// pagerLinksOf lists the pager's links, each page's URL from link.
func pagerLinksOf(link func(int) string, page, pages int) []pageLink {
	if pages <= 1 {
		return nil
	}
	var links []pageLink
	last := 0
	for n := 1; n <= pages; n++ {
		if n != 1 && n != pages && (n < page-pagerWindow || n > page+pagerWindow) {
			continue
		}
		if last != 0 && n > last+1 {
			links = append(links, pageLink{Gap: true})
		}
		links = append(links, pageLink{Number: n, URL: link(n), Current: n == page})
		last = n
	}
	return links
}

// searchTitle is the page title: the query when there is one.
func searchTitle(vm SearchPage) string {
	if vm.Query == "" {
		return "Search"
	}
	return excerpt(vm.Query, 60) + " – Search"
}

// resultNoun names what the results are, in the number n calls for.
func resultNoun(docs bool, n int) string {
	if docs {
		return plural(n, "document", "documents")
	}
	return plural(n, "passage", "passages")
}

// hitTitle is the link text of a hit: its document's title, or the id when
// the document has no title.
func hitTitle(hit pipeline.Hit) string {
	if hit.Title != "" {
		return hit.Title
	}
	return hit.DocID
}

// reSyntax finds search-engine syntax the portal does not read: a field
// name ("title:"), a quote, or a boolean operator.
var reSyntax = regexp.MustCompile(`(?i)(^|\s)[a-z_]+:\S|"|(^|\s)(AND|OR|NOT)(\s|$)|(^|\s)[+-]\w`)

// syntaxNote tells a user who typed query syntax that it is read as plain
// words; "" when the query has none.
func syntaxNote(q string) string {
	if !reSyntax.MatchString(q) {
		return ""
	}
	return "Search reads every word on its own: quotes, field names such as title:, AND, OR, NOT, + and − are not operators here, and their words are searched for like the others."
}
