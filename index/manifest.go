package index

import "github.com/crucible-portal/crucible/pipeline"

// Facts are what a run manifest records of the index
// (pipeline.Manifest.Index): its format version, which changes whenever
// what is indexed changes, and the BM25 parameters it scores with.
func (ix *Index) Facts() pipeline.IndexFacts {
	return pipeline.IndexFacts{Format: formatVersion, K1: ix.opts.K1, B: ix.opts.B, TitleInPassages: ix.opts.TitleInPassages}
}
