package pipeline_test

import (
	"math"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", -1234: "-1,234", 1234567: "1,234,567",
		math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := pipeline.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := pipeline.Thousands(12424); got != "12,424" {
		t.Errorf("Thousands(int 12424) = %q", got)
	}
}
