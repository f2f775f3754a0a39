package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/judge"
	"github.com/crucible-portal/crucible/views"
)

// Scorecards configures reports' scorecards (pipeline.Scorecard):
// computed on demand by the portal's judge, kept, shown on the report
// page and carried by every export.
type Scorecards struct {
	// Store keeps each report's latest scorecard. Required.
	Store pipeline.ScorecardStore
	// Judge judges: a judge model apart from the generator, or, when nil,
	// the offline judge.
	Judge judge.Judge
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Scorecards) judge() judge.Judge {
	if s.Judge == nil {
		return judge.Offline{}
	}
	return s.Judge
}

func (s *Scorecards) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// scorecard returns a report's stored scorecard, nil when it has none or
// the portal keeps none.
func (h *Reports) scorecard(ctx context.Context, reportID int64) (*pipeline.Scorecard, error) {
	if h.Scorecards == nil {
		return nil, nil
	}
	sc, err := h.Scorecards.Store.Scorecard(ctx, reportID)
	if errors.Is(err, pipeline.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load the scorecard of report %d: %w", reportID, err)
	}
	return &sc, nil
}

// Score computes the scorecard of the report whose id is in the path, as
// its newest version, with the portal's judge: nugget recall against the
// newest gold set that has nuggets for its request (none: no recall),
// citation support and the on-topic share by the judge, the reviewers'
// verified support. It stores it, replacing the one before, and answers
// 303 to the report's scorecard.
func (h *Reports) Score(c echo.Context) error {
	if h.Scorecards == nil {
		return fmt.Errorf("this portal keeps no scorecards: %w", pipeline.ErrNotFound)
	}
	ctx := c.Request().Context()
	rep, ver, err := h.loadCurrent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	in := judge.ScoreInput{Report: rep, Now: h.Scorecards.now()}
	if ver != nil {
		in.Version = ver.Number
		reviews, err := h.Authoring.Reviews(ctx, rep.ID)
		if err != nil {
			return fmt.Errorf("reviews of report %d: %w", rep.ID, err)
		}
		in.Reviews = pipeline.SummarizeReviews(ver.Sentences, reviews)
	}
	if in.GoldSet, in.Gold, err = h.goldFor(ctx, rep.Request.ID); err != nil {
		return err
	}
	sc, err := judge.Scorer{Judge: h.Scorecards.judge(), Source: h.Documents}.Score(ctx, in)
	if err != nil {
		return fmt.Errorf("score report %d: %w", rep.ID, err)
	}
	if err := h.Scorecards.Store.SaveScorecard(ctx, rep.ID, sc); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.ReportURL(rep.ID)+"#"+views.ScorecardAnchor)
}

// goldFor returns the name and the nuggets of the newest gold set that
// has nuggets for the request; none when no set has any (or the portal
// keeps no gold sets).
func (h *Reports) goldFor(ctx context.Context, requestID string) (string, []judge.Nugget, error) {
	if h.Gold == nil || requestID == "" {
		return "", nil, nil
	}
	sets, err := h.Gold.GoldSets(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("list gold sets: %w", err)
	}
	for _, sum := range sets {
		set, err := h.Gold.GoldSet(ctx, sum.ID)
		if err != nil {
			return "", nil, fmt.Errorf("load gold set %d: %w", sum.ID, err)
		}
		if ns := judge.ByRequest(set.Nuggets)[requestID]; len(ns) > 0 {
			return set.Name, ns, nil
		}
	}
	return "", nil, nil
}

// scorecardPanel is the report page's scorecard: the stored one, whether
// it scored an older version, and whether the viewer's portal can
// compute one.
func (h *Reports) scorecardPanel(ctx context.Context, rep pipeline.Report, ver *pipeline.Version) (*views.ScorecardPanel, error) {
	if h.Scorecards == nil {
		return nil, nil
	}
	p := &views.ScorecardPanel{ReportID: rep.ID, Scorecard: rep.Scorecard, Judge: judge.Info(h.Scorecards.judge()).Name}
	if ver != nil && rep.Scorecard != nil && rep.Scorecard.Version != ver.Number {
		p.Stale = true
	}
	return p, nil
}
