package pipeline

import (
	"sort"
	"strings"
	"unicode"
)

// Quality feature names, as stored in Nugget.Features.
const (
	FeatureTask       = "task"       // serves the problem statement (0–1)
	FeatureBackground = "background" // fits the requester's background (0–1)
	FeatureRole       = "role"       // useful to the requester's role (0–1)
	FeatureStyle      = "style"      // suits the requester's communication style (0–1)
	FeatureScope      = "scope"      // within the request's scope (0–1)
	FeatureVital      = "vital"      // essential to the request (0 or 1)
	FeatureResearchy  = "researchy"  // a genuine sub-question (0 or 1)
	// The question's profile (0–1 each), in the dimensions the Researchy
	// Questions data set scores its questions in (docs/ranking.md).
	FeatureAmbiguous       = "ambiguous"       // can be read in more than one way
	FeatureIncomplete      = "incomplete"      // leaves out what is needed to answer it
	FeatureAssumptive      = "assumptive"      // takes for granted what may not hold
	FeatureMultifaceted    = "multifaceted"    // an answer covers several aspects
	FeatureKnowledge       = "knowledge"       // takes specialised knowledge
	FeatureSubjective      = "subjective"      // rests on opinions or values
	FeatureReasoning       = "reasoning"       // takes weighing several pieces of information
	FeatureHarmful         = "harmful"         // could hurt or offend
	FeatureDecompositional = "decompositional" // breaks into smaller questions
	FeatureNonfactoid      = "nonfactoid"      // asks for an explanation, not one fact
	FeatureReadability     = "readability"     // 1 − grade level / 20, clamped to 0–1
	FeatureComplexity      = "complexity"      // words per sentence / 40, clamped to 0–1
	// FeatureEvidence is measured by the pipeline, not judged by the
	// model: how strongly the request's own retrieval backs the nugget's
	// answer (0–1; see crucible's evidence).
	FeatureEvidence = "evidence"
)

// DefaultWeights is the documented linear model over the quality
// features. Among the judgements of the nugget's text, the task statement
// weighs most; vital nuggets get a bonus; hard-to-read and convoluted
// nuggets a small penalty; these weights sum to 1 over the positive
// features. The retrieval evidence weighs as much as all of them together:
// a nugget's words alone say little of whether its answer is what the
// request is after, and on the demo corpus's gold facts the evidence
// predicts a kept fact better than the judgements do (docs/pipeline.md).
// Scores stay in roughly [−0.1, 2]. The question's profile (ambiguous …
// nonfactoid) has no weight here: no set of labels has shown which way its
// dimensions point for a report's nuggets, and a prior with them would be
// a guess; a trained ranker weighs them as its labels say. An engine with
// an active trained ranker (RankerModel, docs/ranking.md) scores by it
// instead.
var DefaultWeights = map[string]float64{
	FeatureTask:        0.30,
	FeatureBackground:  0.10,
	FeatureRole:        0.08,
	FeatureStyle:       0.05,
	FeatureScope:       0.15,
	FeatureVital:       0.20,
	FeatureResearchy:   0.07,
	FeatureReadability: 0.05,
	FeatureComplexity:  -0.10,
	FeatureEvidence:    1.00,
}

// LinearScore combines features with weights; missing features count 0.
// The terms are added in the order of the features' names: floating-point
// addition is not associative, and a map's order changes from run to run,
// which made the same nugget's score differ in its last bit between two
// runs of one request.
func LinearScore(features, weights map[string]float64) float64 {
	names := make([]string, 0, len(weights))
	for name := range weights {
		names = append(names, name)
	}
	sort.Strings(names)
	s := 0.0
	for _, name := range names {
		s += weights[name] * features[name]
	}
	return s
}

// TextFeatures computes the features that need no model: readability from
// the Flesch–Kincaid grade level and sentence complexity from words per
// sentence, over the nugget's question and answer.
func TextFeatures(question, answer string) map[string]float64 {
	text := strings.TrimSpace(question + " " + answer)
	words, sentences, syllables := 0, 0, 0
	inWord := false
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			words++
			syllables += countSyllables(word.String())
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			word.WriteRune(unicode.ToLower(r))
			inWord = true
		default:
			if inWord {
				flush()
				inWord = false
			}
			if r == '.' || r == '?' || r == '!' {
				sentences++
			}
		}
	}
	flush()
	if sentences == 0 {
		sentences = 1
	}
	if words == 0 {
		return map[string]float64{FeatureReadability: 0, FeatureComplexity: 0}
	}
	wps := float64(words) / float64(sentences)
	grade := 0.39*wps + 11.8*float64(syllables)/float64(words) - 15.59
	return map[string]float64{
		FeatureReadability: clamp01(1 - grade/20),
		FeatureComplexity:  clamp01(wps / 40),
	}
}

// countSyllables estimates English syllables by vowel groups.
func countSyllables(w string) int {
	n, prevVowel := 0, false
	for _, r := range w {
		v := strings.ContainsRune("aeiouy", r)
		if v && !prevVowel {
			n++
		}
		prevVowel = v
	}
	if strings.HasSuffix(w, "e") && n > 1 && !strings.HasSuffix(w, "le") {
		n--
	}
	if n == 0 {
		n = 1
	}
	return n
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// RRFK is the reciprocal rank fusion constant.
const RRFK = 60

// RankNuggets orders nuggets by reciprocal rank fusion of two rankings:
// by QualityScore and by Popularity (paraphrase count), each descending;
// ties in popularity (most nuggets have no paraphrase) are broken by
// quality, ties in quality by list order. It sets Rank (1-based) and returns the
// top keep nuggets (all when keep ≤ 0), best first.
func RankNuggets(nuggets []Nugget, keep int) []Nugget {
	n := len(nuggets)
	byQuality := make([]int, n)
	byPopularity := make([]int, n)
	for i := range byQuality {
		byQuality[i], byPopularity[i] = i, i
	}
	sort.SliceStable(byQuality, func(a, b int) bool {
		return nuggets[byQuality[a]].QualityScore > nuggets[byQuality[b]].QualityScore
	})
	sort.SliceStable(byPopularity, func(a, b int) bool {
		na, nb := nuggets[byPopularity[a]], nuggets[byPopularity[b]]
		if na.Popularity != nb.Popularity {
			return na.Popularity > nb.Popularity
		}
		return na.QualityScore > nb.QualityScore
	})
	fused := make([]float64, n)
	qualityRank := make([]int, n)
	for r, i := range byQuality {
		fused[i] += 1 / float64(RRFK+r+1)
		qualityRank[i] = r
	}
	for r, i := range byPopularity {
		fused[i] += 1 / float64(RRFK+r+1)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ia, ib := order[a], order[b]
		if fused[ia] != fused[ib] {
			return fused[ia] > fused[ib]
		}
		return qualityRank[ia] < qualityRank[ib]
	})
	out := make([]Nugget, 0, n)
	for r, i := range order {
		ng := nuggets[i]
		ng.Rank = r + 1
		out = append(out, ng)
	}
	if keep > 0 && keep < len(out) {
		out = out[:keep]
	}
	return out
}
