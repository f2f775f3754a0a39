package jobs

import (
	"context"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/crucible"
)

var _ crucible.ManifestObserver = (*storeObserver)(nil)

// Manifest records the run's manifest with the job as the run starts
// (crucible.ManifestObserver), where the store keeps manifests
// (pipeline.ManifestStore): a job that fails still says how it was run.
// The stored report brings the final one.
func (o *storeObserver) Manifest(ctx context.Context, m pipeline.Manifest) error {
	ms, ok := o.store.(pipeline.ManifestStore)
	if !ok {
		return nil
	}
	return ms.SaveManifest(ctx, o.jobID, m)
}
