package main

import (
	"os"
	"runtime/debug"
)

// bulkGC lets the garbage collector run less often during a bulk load
// (ingest, reindex): a collection every fourfold growth of the heap
// instead of every doubling, but never above bulkMemoryLimit, so memory
// stays bounded. On the demo corpus replicated ten times this took an
// ingest's CPU from 18.5–19.0 s to 17.0–17.2 s with a peak of about
// 310 MiB (docs/benchmarks.md §2). GOGC or GOMEMLIMIT set in the
// environment win. The returned function restores the settings.
func bulkGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(bulkMemoryLimit)
	percent := debug.SetGCPercent(400)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// bulkMemoryLimit is the soft memory limit of a bulk load.
const bulkMemoryLimit = 256 << 20
