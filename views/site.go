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

// Top-level sections. Later slices add reports, jobs and accounts here and
// to navItems.
const (
	NavNone   NavItem = ""
	NavHome   NavItem = "home"
	NavSearch NavItem = "search"
)

// navLink is one entry of the header navigation.
type navLink struct {
	Item  NavItem
	Label string
	URL   string
}

// navItems lists the header navigation in display order.
var navItems = []navLink{
	{Item: NavHome, Label: "Home", URL: HomePath},
	{Item: NavSearch, Label: "Search", URL: SearchPath},
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
}

// WithActive returns a copy of s with the given section marked current.
func (s Site) WithActive(item NavItem) Site {
	s.Active = item
	return s
}

// showHeaderSearch reports whether the layout shows the compact search box in
// the header. The search page has its own, larger form.
func (s Site) showHeaderSearch() bool {
	return s.Active != NavSearch
}

// maxQueryLength is the maxlength of search inputs, matching the limit the
// search handler enforces.
var maxQueryLength = strconv.Itoa(pipeline.MaxQueryChars)
