package views

import "github.com/crucible-portal/crucible/pipeline"

// ManifestHeading heads a report's run manifest on the report page and
// the printable page, as in the Markdown export.
const ManifestHeading = "How this was made"

// manifestGroup is one group of a manifest's fields ("Corpus",
// "Settings"...), in pipeline.Manifest.Fields order.
type manifestGroup struct {
	Name   string
	Fields []pipeline.ManifestField
}

// manifestGroups groups the manifest's fields for display.
func manifestGroups(m pipeline.Manifest) []manifestGroup {
	var out []manifestGroup
	for _, f := range m.Fields() {
		if len(out) == 0 || out[len(out)-1].Name != f.Group {
			out = append(out, manifestGroup{Name: f.Group})
		}
		out[len(out)-1].Fields = append(out[len(out)-1].Fields, f)
	}
	return out
}
