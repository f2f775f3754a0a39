package offline

import (
	"math"
	"strings"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Thresholds of the quality judgements.
const (
	// fullMatchTerms is how many request terms a nugget must use to fit a
	// part of the request fully (fewer when that part has fewer terms).
	fullMatchTerms = 3
	// scopeFullShare is the share of a nugget's terms from the request's
	// vocabulary at which it is fully in scope.
	scopeFullShare = 0.25
	// Style bounds, in words.
	styleMaxQuestionWords = 25
	styleMinQuestionWords = 5
	styleMaxAnswerWords   = 8
)

// quality judges a nugget against the request. With N the distinct terms
// of the question and answer (template words left out):
//
//   - task: 5 × √(m / min(3, |P|)), m the title and problem statement terms
//     P that N uses, rounded and capped at 5 (one of three key terms gives
//     3, two give 4, three give 5; square root since the first term shows
//     the subject and later ones add less). Terms are counted with the
//     request profile's factors: words such as "describe" count 0.3, very
//     common words 0.6.
//   - background: the mean of the task score and the same measure over the
//     background's terms (the requester cares about the subject of the
//     request, and more particularly about what the background names);
//     without a background, the task score.
//   - role: the mean of task and background, plus 1 when the answer is a
//     concrete fact (a date, amount, percentage or number): what someone
//     writing a report can cite.
//   - style: 5, less 1 per 5 question words beyond 25, 2 for a question
//     under 5 words, 1 per 4 answer words beyond 8, 1 for a question that
//     is no question (no "?"), 1 for a template question ("... is given
//     for ...", "... is named in connection with ...").
//   - scope: 5 × the share of N inside the request's vocabulary (title,
//     problem statement and background) divided by 0.25, capped at 5; 0
//     when none is; at most 2 when every term of N is the request's own
//     (the nugget asks nothing more specific than the request).
//   - vital: the answer is a concrete fact and task ≥ 3.
//   - researchy: the question asks how or why, or for an effect, cause,
//     reason or role; or the answer is an explanation (three or more
//     words that are not a date, amount or number).
//   - the question's profile: see questionProfile.
func (e *Engine) quality(in prompts.NuggetQualityInput) prompts.NuggetQualityOutput {
	prof := e.profileOf(in.Request)
	wt := e.newWordTerms()
	nugget := distinct(e.questionTerms(in.Nugget.Question + "\n" + in.Nugget.Answer))
	set := setOf(nugget)
	bg := distinct(e.an.Terms(in.Request.Background))

	// fit scores how much of a part of the request the nugget uses, each
	// term weighted (meta words such as "describe" a third).
	fit := func(part []string) int {
		have, total := 0.0, 0.0
		for _, t := range part {
			w := e.metaScale(t)
			total += w
			if set[t] {
				have += w
			}
		}
		if total == 0 {
			return 0
		}
		need := math.Min(fullMatchTerms, total)
		return int(math.Round(5 * math.Min(1, math.Sqrt(have/need))))
	}
	var out prompts.NuggetQualityOutput
	out.Task = fit(prof.core)
	if len(bg) == 0 {
		out.Background = out.Task
	} else {
		out.Background = int(math.Round(float64(out.Task+fit(bg)) / 2))
	}
	kind, isFact := e.answerKind(in.Nugget.Answer, wt)
	concrete := isFact && kind != factName
	out.Role = int(math.Round(float64(out.Task+out.Background) / 2))
	if concrete {
		out.Role++
	}
	out.Role = min(out.Role, prompts.MaxQualityScore)
	out.Style = styleScore(in.Nugget)

	if len(nugget) > 0 {
		inside := 0
		for _, t := range nugget {
			if prof.weight[t] > 0 {
				inside++
			}
		}
		share := float64(inside) / float64(len(nugget))
		out.Scope = int(math.Round(5 * math.Min(1, share/scopeFullShare)))
		if inside == len(nugget) {
			out.Scope = min(out.Scope, 2)
		}
	}
	out.Vital = concrete && out.Task >= 3
	out.Researchy = researchyQuestion(in.Nugget.Question) ||
		(!concrete && len(strings.Fields(in.Nugget.Answer)) >= 3)
	out.Question = e.questionProfile(in.Nugget, researchyQuestion(in.Nugget.Question), isFact, isFact && kind == factName)
	return out
}

// styleScore is the style judgement (see quality).
func styleScore(qa prompts.QA) int {
	q := strings.TrimSpace(qa.Question)
	qWords := len(strings.Fields(q))
	aWords := len(strings.Fields(qa.Answer))
	s := 5
	if qWords > styleMaxQuestionWords {
		s -= (qWords - styleMaxQuestionWords + 4) / 5
	}
	if qWords < styleMinQuestionWords {
		s -= 2
	}
	if aWords > styleMaxAnswerWords {
		s -= (aWords - styleMaxAnswerWords + 3) / 4
	}
	if !strings.HasSuffix(q, "?") {
		s--
	}
	if strings.Contains(q, " is given for ") || strings.Contains(q, " are given for ") || strings.Contains(q, " named in connection with ") {
		s--
	}
	return max(0, s)
}

// researchyQuestion reports whether a question asks how or why, or for an
// effect, cause, reason, purpose or role ("how much" and "how many" ask
// for a figure and do not count).
func researchyQuestion(q string) bool {
	words := strings.Fields(strings.ToLower(strings.Map(func(r rune) rune {
		if r == '?' || r == ',' || r == '.' {
			return ' '
		}
		return r
	}, q)))
	for i, w := range words {
		switch w {
		case "why":
			return true
		case "how":
			if i+1 < len(words) {
				switch words[i+1] {
				case "much", "many", "long", "old", "far", "large", "big", "often", "high", "low":
					continue
				}
			}
			return true
		case "effect", "effects", "impact", "impacts", "cause", "causes", "caused", "reason", "reasons",
			"consequence", "consequences", "purpose", "role", "result", "results":
			return true
		}
	}
	return false
}
