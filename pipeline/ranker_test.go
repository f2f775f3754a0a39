package pipeline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// plantedExamples draws nuggets whose features are standard normal and
// whose labels follow a logistic model with the planted weights.
func plantedExamples(n int, planted map[string]float64, bias float64, seed uint64) []LabelledNugget {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]LabelledNugget, n)
	for i := range out {
		f := map[string]float64{}
		z := bias
		for _, name := range RankerFeatures {
			f[name] = rng.NormFloat64()
			z += planted[name] * f[name]
		}
		out[i] = LabelledNugget{Group: fmt.Sprintf("r%d", i%10), Features: f, Positive: rng.Float64() < sigmoid(z)}
	}
	return out
}

func TestTrainRankerRecoversPlantedWeights(t *testing.T) {
	planted := map[string]float64{FeatureTask: 1.5, FeatureEvidence: -2, FeatureVital: 0.7}
	ex := plantedExamples(20000, planted, -1.5, 7)
	m, err := TrainRanker(ex, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range m.Features {
		// Standardising rescales a weight by the feature's deviation (≈1
		// here); class weights move only the bias.
		got := m.Weights[i] * 1 / m.Std[i]
		if math.Abs(got-planted[name]) > 0.12 {
			t.Errorf("weight of %s: got %.3f, planted %.3f", name, got, planted[name])
		}
	}
	if m.Examples != 20000 || m.Positives == 0 || m.Positives == m.Examples {
		t.Errorf("counts: %d examples, %d positive", m.Examples, m.Positives)
	}
	// Balanced classes: the decision value is about 0 where the planted
	// model is, after the intercept shift, indifferent; a strongly
	// positive nugget scores above a strongly negative one.
	hi := map[string]float64{FeatureTask: 2, FeatureEvidence: -2}
	lo := map[string]float64{FeatureTask: -2, FeatureEvidence: 2}
	if m.Score(hi) <= 0 || m.Score(lo) >= 0 {
		t.Errorf("scores: %.2f for a planted positive, %.2f for a planted negative", m.Score(hi), m.Score(lo))
	}
}

func TestTrainRankerRejectsWhatItCannotLearnFrom(t *testing.T) {
	if _, err := TrainRanker(nil, TrainOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no examples: err %v, want ErrInvalid", err)
	}
	one := []LabelledNugget{{Group: "a", Features: map[string]float64{FeatureTask: 1}, Positive: true}, {Group: "b", Features: map[string]float64{FeatureTask: 0}, Positive: true}}
	if _, err := TrainRanker(one, TrainOptions{}); !errors.Is(err, ErrOneClass) {
		t.Errorf("one class: err %v, want ErrOneClass", err)
	}
	if _, err := CrossValidateRanker(one[:1], TrainOptions{}, 20); !errors.Is(err, ErrInvalid) {
		t.Errorf("one request: err %v, want ErrInvalid", err)
	}
}

// A perfectly separable training set must not send the weights to
// infinity: the ridge keeps them finite and the model checks.
func TestTrainRankerSeparable(t *testing.T) {
	var ex []LabelledNugget
	for i := 0; i < 40; i++ {
		ex = append(ex, LabelledNugget{Group: "g", Features: map[string]float64{FeatureScope: float64(i)}, Positive: i >= 30})
	}
	m, err := TrainRanker(ex, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	if m.Score(map[string]float64{FeatureScope: 35}) <= m.Score(map[string]float64{FeatureScope: 5}) {
		t.Error("the separating feature does not order the nuggets")
	}
}

// Leave-one-request-out: a ranker trained where the default weights are
// wrong (evidence marks the negatives) puts more positives in each
// held-out request's top K than DefaultWeights do.
func TestCrossValidateRankerBeatsWrongDefaults(t *testing.T) {
	ex := plantedExamples(3000, map[string]float64{FeatureEvidence: -3, FeatureTask: 1}, -1, 11)
	cv, err := CrossValidateRanker(ex, TrainOptions{}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if cv.Requests != 10 || cv.K != 20 {
		t.Errorf("requests %d, k %d", cv.Requests, cv.K)
	}
	if cv.Accuracy < 0.75 || cv.BalancedAccuracy < 0.75 {
		t.Errorf("accuracy %.3f, balanced %.3f: the planted model is easy", cv.Accuracy, cv.BalancedAccuracy)
	}
	if cv.TopK <= cv.BaselineTopK+5 {
		t.Errorf("top-20 positives: trained %.1f, default weights %.1f", cv.TopK, cv.BaselineTopK)
	}
}

func TestRankerModelCheck(t *testing.T) {
	bad := RankerModel{Features: []string{"a"}, Mean: []float64{0}, Std: []float64{0}, Weights: []float64{1}}
	if err := bad.Check(); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero deviation: %v", err)
	}
	if err := (RankerModel{Features: []string{"a"}}).Check(); !errors.Is(err, ErrInvalid) {
		t.Errorf("missing weights: %v", err)
	}
}
