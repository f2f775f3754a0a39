package pipeline

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// RankerFeatures are the quality features a trained nugget ranker reads,
// in a fixed order: the paper's nineteen (the model's five judgements of
// fit to the request, vitality, whether the question is researchy and the
// question's ten-score profile, reading level and sentence complexity),
// then the retrieval evidence the pipeline measures (see DefaultWeights).
// A stored model keeps the list it was trained on (RankerModel.Features),
// so models trained on an earlier, shorter list still score.
var RankerFeatures = []string{
	FeatureTask, FeatureBackground, FeatureRole, FeatureStyle, FeatureScope,
	FeatureVital, FeatureResearchy,
	FeatureAmbiguous, FeatureIncomplete, FeatureAssumptive, FeatureMultifaceted, FeatureKnowledge,
	FeatureSubjective, FeatureReasoning, FeatureHarmful, FeatureDecompositional, FeatureNonfactoid,
	FeatureReadability, FeatureComplexity, FeatureEvidence,
}

// RankerModel is a linear nugget ranker learned from labelled nuggets: a
// logistic regression over standardised features. Its Score replaces
// LinearScore with DefaultWeights in the rank stage of the engine it was
// trained for.
type RankerModel struct {
	// ID is the stored model's id (0 until stored).
	ID int64 `json:"id,omitempty"`
	// Engine is the label of the engine whose features it was trained on
	// (Engine.Name: "offline engine" or the model's name): judgements of
	// one model do not carry over to another.
	Engine string `json:"engine"`
	// Features, Mean, Std and Weights are parallel: a feature's value is
	// standardised by its training mean and standard deviation and
	// weighed.
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Std      []float64 `json:"std"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// TrainedOn says what the labels came from (gold files, requests).
	TrainedOn string `json:"trained_on"`
	// Examples and Positives count the labelled nuggets and the
	// positive ones among them.
	Examples  int `json:"examples"`
	Positives int `json:"positives"`
	// CV is the leave-one-request-out evaluation, when there were at
	// least two requests.
	CV        *RankerCV `json:"cv,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Active marks the model the rank stage uses for its engine.
	Active bool `json:"active,omitempty"`
}

// Score is the model's decision value for a nugget's features (log-odds
// of a positive); a missing feature counts 0, as in LinearScore.
func (m RankerModel) Score(features map[string]float64) float64 {
	s := m.Bias
	for i, name := range m.Features {
		s += m.Weights[i] * (features[name] - m.Mean[i]) / m.Std[i]
	}
	return s
}

// Check reports whether the model is well formed: parallel slices of one
// length, finite numbers, positive deviations.
func (m RankerModel) Check() error {
	n := len(m.Features)
	if n == 0 || len(m.Mean) != n || len(m.Std) != n || len(m.Weights) != n {
		return fmt.Errorf("%w: ranker model has %d features, %d means, %d deviations and %d weights", ErrInvalid, n, len(m.Mean), len(m.Std), len(m.Weights))
	}
	for i := range m.Features {
		if !finite(m.Mean[i]) || !finite(m.Weights[i]) || !finite(m.Std[i]) || m.Std[i] <= 0 {
			return fmt.Errorf("%w: ranker model feature %q has mean %g, deviation %g, weight %g", ErrInvalid, m.Features[i], m.Mean[i], m.Std[i], m.Weights[i])
		}
	}
	if !finite(m.Bias) {
		return fmt.Errorf("%w: ranker model bias is %g", ErrInvalid, m.Bias)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// LabelledNugget is a training example of the nugget ranker: a ranked
// nugget's features and whether it is one a report should cover.
type LabelledNugget struct {
	// Group is the request the nugget was drawn for: cross-validation
	// leaves whole requests out.
	Group    string
	Features map[string]float64
	Positive bool
}

// TrainOptions are the settings of TrainRanker.
type TrainOptions struct {
	// Features are the features read, in order (RankerFeatures when
	// empty).
	Features []string
	// L2 is the ridge penalty on the standardised weights (the bias is not
	// penalised); 0 means DefaultRankerL2.
	L2 float64
}

// DefaultRankerL2 is the ridge penalty of TrainRanker: about one labelled
// nugget's worth of loss per unit of squared weight, enough to keep a
// feature that separates the training set perfectly from growing without
// bound.
const DefaultRankerL2 = 1.0

// ErrOneClass is returned when the examples are all positive or all
// negative: no ranker can be learned from them.
var ErrOneClass = errors.New("the labelled nuggets are all of one class")

// TrainRanker fits a class-weighted, L2-regularised logistic regression
// to the examples by Newton's method: features are standardised by their
// mean and standard deviation over the examples (a constant feature keeps
// weight 0), and each class weighs half of the loss whatever its size, so
// that the few positives of a nugget bank count as much as the many
// negatives. It is deterministic.
func TrainRanker(examples []LabelledNugget, o TrainOptions) (RankerModel, error) {
	features := o.Features
	if len(features) == 0 {
		features = RankerFeatures
	}
	lambda := o.L2
	if lambda <= 0 {
		lambda = DefaultRankerL2
	}
	n, d := len(examples), len(features)
	if n == 0 {
		return RankerModel{}, fmt.Errorf("%w: no labelled nuggets to train on", ErrInvalid)
	}
	pos := 0
	for _, e := range examples {
		if e.Positive {
			pos++
		}
	}
	if pos == 0 || pos == n {
		return RankerModel{}, fmt.Errorf("%w: %d labelled nuggets, %d positive", ErrOneClass, n, pos)
	}
	m := RankerModel{Features: append([]string(nil), features...), Mean: make([]float64, d), Std: make([]float64, d), Weights: make([]float64, d), Examples: n, Positives: pos}
	for j, f := range features {
		for _, e := range examples {
			m.Mean[j] += e.Features[f]
		}
		m.Mean[j] /= float64(n)
		for _, e := range examples {
			x := e.Features[f] - m.Mean[j]
			m.Std[j] += x * x
		}
		m.Std[j] = math.Sqrt(m.Std[j] / float64(n))
		if m.Std[j] < 1e-9 {
			m.Std[j] = 1 // constant: standardises to 0, weight stays 0
		}
	}
	// x holds the standardised features with a leading 1 for the bias.
	x := make([][]float64, n)
	y := make([]float64, n)
	c := make([]float64, n)
	for i, e := range examples {
		row := make([]float64, d+1)
		row[0] = 1
		for j, f := range features {
			row[j+1] = (e.Features[f] - m.Mean[j]) / m.Std[j]
		}
		x[i] = row
		if e.Positive {
			y[i], c[i] = 1, float64(n)/(2*float64(pos))
		} else {
			c[i] = float64(n) / (2 * float64(n-pos))
		}
	}
	theta := make([]float64, d+1)
	for iter := 0; iter < 50; iter++ {
		g := make([]float64, d+1)
		h := make([][]float64, d+1)
		for a := range h {
			h[a] = make([]float64, d+1)
		}
		for i, row := range x {
			z := 0.0
			for a, v := range row {
				z += theta[a] * v
			}
			p := sigmoid(z)
			r := c[i] * (p - y[i])
			w := c[i] * p * (1 - p)
			for a, va := range row {
				g[a] += r * va
				for b, vb := range row {
					h[a][b] += w * va * vb
				}
			}
		}
		for a := 1; a <= d; a++ {
			g[a] += lambda * theta[a]
			h[a][a] += lambda
		}
		step, err := solve(h, g)
		if err != nil {
			return RankerModel{}, err
		}
		size := 0.0
		for a := range theta {
			theta[a] -= step[a]
			size = math.Max(size, math.Abs(step[a]))
		}
		if size < 1e-10 {
			break
		}
	}
	m.Bias = theta[0]
	copy(m.Weights, theta[1:])
	return m, m.Check()
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// solve solves a·x = b by Gaussian elimination with partial pivoting; a
// and b are overwritten.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-12 {
			return nil, fmt.Errorf("%w: the ranker's training system is singular", ErrInvalid)
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k < n; k++ {
				a[r][k] -= f * a[col][k]
			}
			b[r] -= f * b[col]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, nil
}

// RankerCV is a leave-one-request-out evaluation of a nugget ranker: each
// request's nuggets are scored by a model trained on the other requests.
type RankerCV struct {
	// Requests is the number of requests left out in turn (those with
	// both classes among the others, so that a model could be trained).
	Requests int `json:"requests"`
	// Accuracy and BalancedAccuracy classify at decision value 0.
	Accuracy         float64 `json:"accuracy"`
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	// K is the cut of the top-K measures (the nuggets a report keeps).
	K int `json:"k"`
	// TopK is the mean number of positives among each left-out request's
	// K best nuggets by the trained model; BaselineTopK the same by
	// DefaultWeights (LinearScore).
	TopK         float64 `json:"top_k"`
	BaselineTopK float64 `json:"baseline_top_k"`
}

// CrossValidateRanker trains on all requests but one, scores the one left
// out, and averages over the requests (RankerCV). k is the top-K cut.
func CrossValidateRanker(examples []LabelledNugget, o TrainOptions, k int) (RankerCV, error) {
	groups := map[string][]LabelledNugget{}
	var names []string
	for _, e := range examples {
		if _, ok := groups[e.Group]; !ok {
			names = append(names, e.Group)
		}
		groups[e.Group] = append(groups[e.Group], e)
	}
	if len(names) < 2 {
		return RankerCV{}, fmt.Errorf("%w: leave-one-request-out needs two requests, the labels come from %d", ErrInvalid, len(names))
	}
	sort.Strings(names)
	cv := RankerCV{K: k}
	var tp, tn, p, neg, right, total int
	for _, held := range names {
		var train []LabelledNugget
		for _, e := range examples {
			if e.Group != held {
				train = append(train, e)
			}
		}
		m, err := TrainRanker(train, o)
		if errors.Is(err, ErrOneClass) {
			continue
		}
		if err != nil {
			return RankerCV{}, err
		}
		cv.Requests++
		test := groups[held]
		for _, e := range test {
			guess := m.Score(e.Features) > 0
			total++
			if guess == e.Positive {
				right++
			}
			if e.Positive {
				p++
				if guess {
					tp++
				}
			} else {
				neg++
				if !guess {
					tn++
				}
			}
		}
		cv.TopK += float64(positivesInTop(test, k, m.Score))
		cv.BaselineTopK += float64(positivesInTop(test, k, func(f map[string]float64) float64 { return LinearScore(f, DefaultWeights) }))
	}
	if cv.Requests == 0 {
		return RankerCV{}, fmt.Errorf("%w: every request left out leaves labels of one class", ErrOneClass)
	}
	cv.Accuracy = float64(right) / float64(total)
	cv.BalancedAccuracy = (ratioOr0(tp, p) + ratioOr0(tn, neg)) / 2
	cv.TopK /= float64(cv.Requests)
	cv.BaselineTopK /= float64(cv.Requests)
	return cv, nil
}

func ratioOr0(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// positivesInTop counts the positives among the k best-scored examples
// (ties in example order).
func positivesInTop(es []LabelledNugget, k int, score func(map[string]float64) float64) int {
	idx := make([]int, len(es))
	s := make([]float64, len(es))
	for i, e := range es {
		idx[i], s[i] = i, score(e.Features)
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	n := 0
	for _, i := range idx[:min(k, len(idx))] {
		if es[i].Positive {
			n++
		}
	}
	return n
}
