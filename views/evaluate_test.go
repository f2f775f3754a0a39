package views

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluationLinks(t *testing.T) {
	got := []string{
		EvaluationURL(12),
		EvaluationGoldURL(12),
		EvaluationResultURL(12, 3, ""),
		EvaluationResultURL(12, 3, "topic 9&x"),
		ReportSentenceURL(12, 4),
	}
	want := []string{
		"/reports/12/evaluation",
		"/reports/12/evaluation/gold",
		"/reports/12/evaluation?gold=3",
		"/reports/12/evaluation?gold=3&request=topic+9%26x",
		"/reports/12#s4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evaluation links (-want +got)\n%s", diff)
	}
}

func TestMetricCardText(t *testing.T) {
	nuggets := Noun{One: "nugget", Many: "nuggets"}
	sentences := Noun{One: "sentence", Many: "sentences"}
	tests := []struct {
		name       string
		card       MetricCard
		wantValue  string
		wantCounts string
	}{
		{name: "ratio of one kind", card: MetricCard{Value: 0.4, Num: 4, Den: 10, DenNoun: nuggets},
			wantValue: "0.400", wantCounts: "4/10 nuggets"},
		{name: "one of one", card: MetricCard{Value: 1, Num: 1, Den: 1, DenNoun: nuggets},
			wantValue: "1.000", wantCounts: "1/1 nugget"},
		{name: "two kinds", card: MetricCard{Value: 1.5, Num: 3, Den: 2, NumNoun: nuggets, DenNoun: sentences},
			wantValue: "1.500", wantCounts: "3 nuggets / 2 sentences"},
		{name: "undefined", card: MetricCard{Num: 0, Den: 0, DenNoun: nuggets},
			wantValue: "–", wantCounts: "0/0 nuggets"},
		{name: "two thirds", card: MetricCard{Value: 2.0 / 3, Num: 2, Den: 3, DenNoun: nuggets},
			wantValue: "0.667", wantCounts: "2/3 nuggets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.card.valueText(); got != tt.wantValue {
				t.Errorf("valueText = %q, want %q", got, tt.wantValue)
			}
			if got := tt.card.countsText(); got != tt.wantCounts {
				t.Errorf("countsText = %q, want %q", got, tt.wantCounts)
			}
		})
	}
}

func TestSentenceCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"answer found", "Answer found"},
		{"100% of the words", "100% of the words"},
		{"élan", "Élan"},
		{"", ""},
		{"Model answered yes", "Model answered yes"},
	}
	for _, tt := range tests {
		if got := sentenceCase(tt.in); got != tt.want {
			t.Errorf("sentenceCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCoverageCellShowReason(t *testing.T) {
	tests := []struct {
		name string
		cell CoverageCell
		want bool
	}{
		{"covered", CoverageCell{Covered: true, Score: 1, Reason: "answer found"}, true},
		{"undecided", CoverageCell{Undecided: true, Reason: "unreadable answer"}, true},
		{"claim partly met", CoverageCell{Score: 0.3, Reason: "30% of the claim's content words"}, true},
		{"plain no", CoverageCell{Reason: "no answer found"}, false},
		{"no reason", CoverageCell{Covered: true}, false},
	}
	for _, tt := range tests {
		if got := tt.cell.showReason(); got != tt.want {
			t.Errorf("%s: showReason = %v, want %v", tt.name, got, tt.want)
		}
	}
}
