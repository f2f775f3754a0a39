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
	"github.com/crucible-portal/crucible/pipeline/auth"
)

// NavItem names a top-level section of the portal so the layout can mark
// the current one.
type NavItem string

// Top-level sections.
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
	// Uploads marks the entries shown only when the corpus upload pages
	// are served (Site.Uploads), Rankers those shown only with the
	// rankers page (Site.Rankers).
	Uploads bool
	Rankers bool
	// Perm is what the viewer must be allowed to see the entry.
	Perm auth.Permission
}

// navItems lists the header navigation in display order.
var navItems = []navLink{
	{Item: NavHome, Label: "Home", URL: HomePath, Perm: auth.PermView},
	{Item: NavSearch, Label: "Search", URL: SearchPath, Perm: auth.PermView},
	{Item: NavNewReport, Label: "New report", URL: NewReportPath, Reports: true, Perm: auth.PermCreateReport},
	{Item: NavReports, Label: "Reports", URL: JobsPath, Reports: true, Perm: auth.PermView},
	{Item: NavUpload, Label: "Upload", URL: UploadPath, Uploads: true, Perm: auth.PermUploadCorpus},
	{Item: NavRankers, Label: "Rankers", URL: RankersPath, Rankers: true, Perm: auth.PermManageRankers},
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
	// Uploads is set when the portal serves the corpus upload pages: the
	// navigation then links to them for administrators.
	Uploads bool
	// Rankers is set when the portal serves the nugget rankers page.
	Rankers bool
}

// WithActive returns a copy of s with the given section marked current.
func (s Site) WithActive(item NavItem) Site {
	s.Active = item
	return s
}

// navLinks is the header navigation of the site as the viewer sees it:
// the report entries only when the report pages are served, and only the
// entries the viewer's role allows (none before signing in).
func (s Site) navLinks(v Viewer) []navLink {
	out := make([]navLink, 0, len(navItems))
	for _, l := range navItems {
		if l.Reports && !s.Reports || l.Uploads && !s.Uploads || l.Rankers && !s.Rankers || !v.Can(l.Perm) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// showHeaderSearch reports whether the layout shows the compact search box in
// the header: not on the search page, which has its own, larger form, and
// not before signing in.
func (s Site) showHeaderSearch(v Viewer) bool {
	return s.Active != NavSearch && v.Can(auth.PermView)
}

// maxQueryLength is the maxlength of search inputs, matching the limit the
// search handler enforces.
var maxQueryLength = strconv.Itoa(pipeline.MaxQueryChars)
