// Package views holds Crucible's server-rendered pages (templ components),
// their layout and the plain view-model structs handlers fill in.
//
// Views do no I/O and import only the pipeline package's types. Everything a
// page shows from the corpus or a model is untrusted text: it reaches the
// HTML only through templ's escaping, never as raw markup.
package views

import (
	"strconv"

	"github.com/crucible-portal/crucible/pipeline"
)

// NavItem names a top-level section of the portal so the layout can mark
// the current one.
type NavItem string

// Top-level sections. Later slices add accounts here and to navItems.
const (
	NavNone   NavItem = ""
	NavHome   NavItem = "home"
	NavSearch NavItem = "search"
	// NavNewReport is the new-report form; NavReports the job list, job
	// pages, reports and nugget banks.
	NavNewReport NavItem = "new-report"
	NavReports   NavItem = "reports"
)

// navLink is one entry of the header navigation.
type navLink struct {
	Item  NavItem
	Label string
	URL   string
	// Reports marks the entries shown only when the report pages are
	// served (Site.Reports).
	Reports bool
}

// navItems lists the header navigation in display order.
var navItems = []navLink{
	{Item: NavHome, Label: "Home", URL: HomePath},
	{Item: NavSearch, Label: "Search", URL: SearchPath},
	{Item: NavNewReport, Label: "New report", URL: NewReportPath, Reports: true},
	{Item: NavReports, Label: "Reports", URL: JobsPath, Reports: true},
}

// Site is what the shared layout shows on every page. The web package fills
// in the constant fields once; handlers copy it and set Active.
type Site struct {
	// Version is the build's version, shown in the footer.
	Version string
	// Engine labels the answering engine in the footer, for example
	// "offline engine" or a model name.
	Engine string
	// StylesheetURL and IconURL point at the embedded static assets,
	// including a content hash so they can be cached for long.
	StylesheetURL string
	IconURL       string
	// Active is the section the current page belongs to.
	Active NavItem
	// Reports is set when the portal serves the report pages (new report,
	// jobs, reports): the navigation and the home page then link to them.
	Reports bool
	// Evaluations is set when reports have evaluation pages: report pages
	// then link to theirs.
	Evaluations bool
}

// WithActive returns a copy of s with the given section marked current.
func (s Site) WithActive(item NavItem) Site {
	s.Active = item
	return s
}

// navLinks is the header navigation of the site: the report entries only
// when the report pages are served.
func (s Site) navLinks() []navLink {
	out := make([]navLink, 0, len(navItems))
	for _, l := range navItems {
		if l.Reports && !s.Reports {
			continue
		}
		out = append(out, l)
	}
	return out
}

// showHeaderSearch reports whether the layout shows the compact search box in
// the header. The search page has its own, larger form.
func (s Site) showHeaderSearch() bool {
	return s.Active != NavSearch
}

// maxQueryLength is the maxlength of search inputs, matching the limit the
// search handler enforces.
var maxQueryLength = strconv.Itoa(pipeline.MaxQueryChars)
