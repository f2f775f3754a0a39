package rerank

// offlineFigures are α-nDCG@10 and coverage@10 of BM25's top 100 reranked
// by each method with the offline engine, per evaluation set (commands
// and tables in docs/benchmarks.md §7; sotu, sotu2 and sotu3 are the demo
// corpus's gold sets, scored by the documents their nuggets name).
// "bm25" is the first-stage ranking itself.
var offlineFigures = map[string]map[string][2]float64{
	"bm25": {"summhay-news": {0.8775, 0.9591}, "hotpotqa": {0.7909, 0.9120},
		"sotu": {0.5957, 0.7054}, "sotu2": {0.6351, 0.7417}, "sotu3": {0.5990, 0.7083}},
	MethodLANCER: {"summhay-news": {0.8800, 0.9617}, "hotpotqa": {0.7997, 0.9180},
		"sotu": {0.5907, 0.7011}, "sotu2": {0.6324, 0.7333}, "sotu3": {0.6112, 0.6917}},
	MethodPointwise: {"summhay-news": {0.8822, 0.9647}, "hotpotqa": {0.8027, 0.9270},
		"sotu": {0.5808, 0.7022}, "sotu2": {0.6465, 0.7500}, "sotu3": {0.6030, 0.7083}},
	MethodListwise: {"summhay-news": {0.8822, 0.9647}, "hotpotqa": {0.8033, 0.9270},
		"sotu": {0.5808, 0.7022}, "sotu2": {0.6465, 0.7500}, "sotu3": {0.6030, 0.7083}},
	MethodSetwise: {"summhay-news": {0.8822, 0.9647}, "hotpotqa": {0.8032, 0.9270},
		"sotu": {0.5808, 0.7022}, "sotu2": {0.6465, 0.7500}, "sotu3": {0.6030, 0.7083}},
	MethodSetR: {"summhay-news": {0.8812, 0.9641}, "hotpotqa": {0.8327, 0.9290},
		"sotu": {0.5822, 0.7061}, "sotu2": {0.6465, 0.7333}, "sotu3": {0.6187, 0.7083}},
	MethodPureCover: {"summhay-news": {0.8822, 0.9617}, "hotpotqa": {0.8271, 0.9160},
		"sotu": {0.5789, 0.7010}, "sotu2": {0.6428, 0.7333}, "sotu3": {0.6147, 0.7167}},
	MethodCoRank: {"summhay-news": {0.9026, 0.9795}, "hotpotqa": {0.8022, 0.9250},
		"sotu": {0.5592, 0.7472}, "sotu2": {0.6603, 0.7417}, "sotu3": {0.6309, 0.6750}},
}

// OfflineGain reports whether the method, with the offline engine, was
// measured to match or beat BM25 on both α-nDCG@10 and coverage@10 on
// every evaluation set; the sets where it fell short are named. A method
// never measured has no gain. The new-report form marks the methods
// without one ("no gain measured offline").
func OfflineGain(method string) (gain bool, shortOn []string) {
	figs, ok := offlineFigures[method]
	if !ok {
		return false, nil
	}
	base := offlineFigures["bm25"]
	for _, set := range []string{"summhay-news", "hotpotqa", "sotu", "sotu2", "sotu3"} {
		f, b := figs[set], base[set]
		if f[0] < b[0] || f[1] < b[1] {
			shortOn = append(shortOn, set)
		}
	}
	return len(shortOn) == 0, shortOn
}
