package judge

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline/export"
)

// Every format carries the report's run manifest and the nuggets its
// sentences answer in Crucible's report-level object, and reading a file
// back restores them exactly: the same manifest, whatever the form.
func TestReadReportsKeepTheManifest(t *testing.T) {
	dir := filepath.Join("..", "export", "testdata", "formats")
	var first *export.ReportMeta
	for _, f := range export.Formats() {
		t.Run(string(f.ID), func(t *testing.T) {
			reps, err := ReadReportFile(filepath.Join(dir, string(f.ID)+f.Ext))
			if err != nil {
				t.Fatal(err)
			}
			meta := reps[0].Crucible
			if meta == nil || meta.Manifest == nil {
				t.Fatalf("no manifest read back: %+v", meta)
			}
			if meta.Manifest.Settings["retrieve"] != json.Number("100") || meta.Manifest.Corpus.Documents != 233 {
				t.Errorf("manifest read back: %+v", meta.Manifest)
			}
			if len(meta.Nuggets) != 2 || meta.Nuggets[0].Question != "When was the tariff raised?" {
				t.Errorf("nuggets read back: %+v", meta.Nuggets)
			}
			if first == nil {
				first = meta
				return
			}
			if diff := cmp.Diff(first.Manifest, meta.Manifest); diff != "" {
				t.Errorf("manifest differs from the %s form's (-first +this):\n%s", export.FormatNeuCLIR, diff)
			}
		})
	}
}
