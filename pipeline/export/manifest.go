package export

import (
	"fmt"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// ManifestHeading is the heading of the appendix that gives a report's
// run manifest in words, in the Markdown export, on the printable page
// and on the report page.
const ManifestHeading = "How this was made"

// NoManifestText says a report has no manifest.
const NoManifestText = "Not recorded: the report was made before Crucible kept run manifests."

// ManifestGroup is one group of a manifest's fields ("Corpus",
// "Settings"...), in the order pipeline.Manifest.Fields gives them.
type ManifestGroup struct {
	Name   string
	Fields []pipeline.ManifestField
}

// ManifestGroups groups the manifest's fields.
func ManifestGroups(m pipeline.Manifest) []ManifestGroup {
	var out []ManifestGroup
	for _, f := range m.Fields() {
		if len(out) == 0 || out[len(out)-1].Name != f.Group {
			out = append(out, ManifestGroup{Name: f.Group})
		}
		g := &out[len(out)-1]
		g.Fields = append(g.Fields, f)
	}
	return out
}

// WriteManifestMarkdown writes the appendix "How this was made": the
// manifest's hash, then one line per group of its fields, each value in a
// code span; a report without a manifest says so.
func WriteManifestMarkdown(b *strings.Builder, m *pipeline.Manifest) {
	b.WriteString("## " + ManifestHeading + "\n\n")
	if m == nil {
		b.WriteString("_" + escapeMarkdown(NoManifestText) + "_\n")
		return
	}
	fmt.Fprintf(b, "Run manifest `%s`; the JSON export holds it whole as `crucible.manifest`.", m.Hash())
	if m.EditedByHand {
		b.WriteString(" This version was edited by hand after the run.")
	}
	b.WriteString("\n\n")
	for _, g := range ManifestGroups(*m) {
		parts := make([]string, len(g.Fields))
		for i, f := range g.Fields {
			parts[i] = escapeMarkdown(f.Name) + " `" + codeSpan(f.Value) + "`"
		}
		fmt.Fprintf(b, "- **%s**: %s\n", escapeMarkdown(g.Name), strings.Join(parts, ", "))
	}
}
