package rerank

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOfflineGain(t *testing.T) {
	for _, m := range Methods() {
		if _, ok := offlineFigures[m]; !ok {
			t.Errorf("%s has no offline figures", m)
		}
	}
	gain, short := OfflineGain(MethodCoRank)
	if gain || !cmp.Equal(short, []string{"sotu", "sotu3"}) {
		t.Errorf("CoRank: gain %t, short on %v; want short on sotu (α-nDCG) and sotu3 (coverage)", gain, short)
	}
	if gain, short := OfflineGain("bm25"); !gain || len(short) != 0 {
		t.Errorf("BM25 against itself: gain %t, short on %v", gain, short)
	}
	if gain, _ := OfflineGain("magic"); gain {
		t.Error("an unmeasured method has a gain")
	}
}
