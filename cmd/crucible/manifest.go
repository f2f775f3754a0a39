package main

import (
	"context"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/export"
	"github.com/crucible-portal/crucible/pipeline/llm/offline"
)

// provenance returns the run manifests' provenance for an engine
// described by eng (crucible.Engine.Provenance): the collection's
// fingerprint from the store (cached until the next ingest), the index's
// format and BM25 parameters, the engine and the build.
func (a *app) provenance(eng pipeline.EngineFacts) func(ctx context.Context) (pipeline.Manifest, error) {
	software := pipeline.SoftwareFacts()
	return func(ctx context.Context) (pipeline.Manifest, error) {
		corpus, err := a.db.CorpusFacts(ctx)
		if err != nil {
			return pipeline.Manifest{}, err
		}
		return pipeline.Manifest{Corpus: corpus, Index: a.index.Facts(), Engine: eng, Software: software}, nil
	}
}

// offlineFacts describe the offline engine in run manifests.
func offlineFacts() pipeline.EngineFacts {
	return pipeline.EngineFacts{ID: "offline", Label: export.OfflineLabel, Offline: true, OfflineVersion: offline.Version}
}
