package pipeline

import (
	"context"
	"strings"
	"time"
)

// Scorecards (docs/evaluation.md, "Scorecards"): a report's quality
// figures as a judge sees them — nugget recall against gold nuggets when
// the request has some, the share of citations the judge finds supported
// and of sentences it finds on the request's subject, and what reviewers
// verified — with who judged, and whether that judge is independent of
// the model that wrote the report.

// JudgeInfo identifies a judge: the offline (lexical) judge, or a model
// at an endpoint.
type JudgeInfo struct {
	// Name describes the judge and its settings ("offline (claim overlap
	// ≥ 0.42, support ≥ 0.60)", "model judge: gpt-4o").
	Name string `json:"name"`
	// Offline is set for the offline judge.
	Offline bool `json:"offline"`
	// Model and EndpointHost name a model judge's model and the host
	// (and port) of its endpoint: never a key or credentials.
	Model        string `json:"model,omitempty"`
	EndpointHost string `json:"endpoint_host,omitempty"`
}

// How a score stands to the report it scores (Independence).
const (
	// Independent: the judge differs from the model that wrote the
	// report.
	Independent = "independent"
	// SelfJudged: the model that wrote the report judged it.
	SelfJudged = "self-judged"
	// SelfJudgedOffline: the offline judge scored a report of the
	// offline engine; both read text lexically.
	SelfJudgedOffline = "self-judged (offline)"
	// GeneratorUnknown: the report does not say what made it (no run
	// manifest: another system's, or one made before manifests).
	GeneratorUnknown = "generator unknown"
)

// Independence says how a judge stands to the report whose manifest m
// says what made it. A score is "independent" only when the judge is not
// the model that wrote the report: the offline judge on a model's report,
// a model judge on the offline engine's or on another model's. Two models
// are the same when their names are, whatever their endpoints (one model
// served from two places is still one model), so a model judging its own
// reports is "self-judged" wherever it runs; the offline judge on the
// offline engine's reports is "self-judged (offline)". A report without a
// manifest is GeneratorUnknown.
func Independence(j JudgeInfo, m *Manifest) string {
	if m == nil {
		return GeneratorUnknown
	}
	e := m.Engine
	switch {
	case j.Offline && e.Offline && e.ID != "lead":
		return SelfJudgedOffline
	case j.Offline || e.Offline:
		return Independent
	case e.Model == "" && e.Label == "":
		return GeneratorUnknown
	}
	model := e.Model
	if model == "" {
		model = e.Label
	}
	if sameModel(j.Model, model) {
		return SelfJudged
	}
	return Independent
}

// sameModel compares model names, ignoring case and surrounding space.
func sameModel(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// Scorecard is a report's scores by one judge, for one version of it.
type Scorecard struct {
	// Version is the report version scored (0 for a report without
	// versions); ComputedAt when.
	Version    int       `json:"version"`
	ComputedAt time.Time `json:"computed_at"`
	// Judge is who judged; Independence how it stands to the report's
	// maker (Independence).
	Judge        JudgeInfo `json:"judge"`
	Independence string    `json:"independence"`
	Sentences    int       `json:"sentences"`
	// Gold is the nugget recall against gold nuggets, when a gold set of
	// the portal has some for the report's request.
	Gold *GoldScore `json:"gold,omitempty"`
	// CitationSupport is the share of citations the judge finds
	// supported by the passage they cite (of Citations).
	Citations       int     `json:"citations"`
	CitationSupport float64 `json:"citation_support"`
	// OnTopic is the share of sentences the judge finds on the request's
	// subject.
	OnTopic float64 `json:"on_topic"`
	// Undecided counts the judgements the judge could not make (an
	// unreadable model answer): counted as no.
	Undecided int `json:"undecided,omitempty"`
	// Reviewed is what reviewers verified of the citations, when any has
	// been reviewed.
	Reviewed *ReviewScore `json:"reviewed,omitempty"`
}

// GoldScore is a report's nugget recall against a gold set.
type GoldScore struct {
	Set          string   `json:"set"`
	Nuggets      int      `json:"nuggets"`
	Covered      int      `json:"covered"`
	Recall       float64  `json:"nugget_recall"`
	VitalNuggets int      `json:"vital_nuggets,omitempty"`
	VitalRecall  *float64 `json:"vital_recall,omitempty"`
}

// ReviewScore is reviewers' verdicts on a report's citations
// (ReviewSummary): Support credits supported 1, partly ½.
type ReviewScore struct {
	Reviewed    int     `json:"reviewed"`
	Supported   int     `json:"supported"`
	Partly      int     `json:"partly"`
	Unsupported int     `json:"unsupported"`
	Support     float64 `json:"support"`
}

// ReviewScoreOf is a review summary as a scorecard keeps it; nil when no
// citation has been reviewed.
func ReviewScoreOf(s ReviewSummary) *ReviewScore {
	if !s.Defined() {
		return nil
	}
	return &ReviewScore{Reviewed: s.Reviewed, Supported: s.Supported, Partly: s.Partly, Unsupported: s.Unsupported, Support: s.Support()}
}

// ScorecardStore keeps each report's latest scorecard.
type ScorecardStore interface {
	// SaveScorecard stores sc as the report's scorecard, replacing the
	// one before; ErrNotFound when there is no such report.
	SaveScorecard(ctx context.Context, reportID int64, sc Scorecard) error
	// Scorecard returns the report's scorecard, ErrNotFound when none
	// has been computed.
	Scorecard(ctx context.Context, reportID int64) (Scorecard, error)
}
