package views

import "github.com/crucible-portal/crucible/pipeline"

// HomePage is the view model of the home page.
type HomePage struct {
	Site  Site
	Stats pipeline.CollectionStats
}

// empty reports whether nothing has been ingested yet.
func (h HomePage) empty() bool {
	return h.Stats.Documents == 0
}
