package views

import (
	"strconv"
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// RankersPath lists the trained nugget rankers; RankerUseURL and
// RankerStopURL switch one on or off.
const RankersPath = "/admin/rankers"

// NavRankers is the rankers page's section.
const NavRankers NavItem = "rankers"

// RankerUseURL is where a ranker is made its engine's active one.
func RankerUseURL(id int64) string { return RankersPath + "/" + strconv.FormatInt(id, 10) + "/use" }

// RankerStopURL is where an active ranker is stopped.
func RankerStopURL(id int64) string { return RankersPath + "/" + strconv.FormatInt(id, 10) + "/stop" }

// RankersPage lists the stored nugget rankers, newest first.
type RankersPage struct {
	Site    Site
	Rankers []pipeline.RankerModel
	// Notice says what the last switch did ("Ranker 3 is now ...").
	Notice string
}

// rankerTrainedOn shortens what a ranker was trained on for the table.
func rankerTrainedOn(m pipeline.RankerModel) string {
	if len(m.TrainedOn) > 120 {
		return m.TrainedOn[:strings.LastIndex(m.TrainedOn[:120], " ")+1] + "…"
	}
	return m.TrainedOn
}

// rankerCV words a ranker's leave-one-request-out figures.
func rankerCV(m pipeline.RankerModel) string {
	if m.CV == nil {
		return "not measured (one request)"
	}
	return "balanced accuracy " + strconv.FormatFloat(m.CV.BalancedAccuracy, 'f', 3, 64) +
		" over " + strconv.Itoa(m.CV.Requests) + " requests"
}

// rankerTopK words how many positives a ranker puts in a report's kept
// nuggets against the default weights.
func rankerTopK(m pipeline.RankerModel) string {
	if m.CV == nil {
		return "–"
	}
	return strconv.FormatFloat(m.CV.TopK, 'f', 2, 64) + " vs " + strconv.FormatFloat(m.CV.BaselineTopK, 'f', 2, 64) +
		" (top " + strconv.Itoa(m.CV.K) + ")"
}
