package judge

import "time"

// GoldSet is a named set of gold nuggets kept for evaluating reports: one
// uploaded nugget file, as ReadNuggets read it. Its nuggets may belong to
// many requests.
type GoldSet struct {
	ID      int64
	Name    string
	Nuggets []Nugget
	// CreatedAt is when the set was stored.
	CreatedAt time.Time
}

// Summary describes the set without its nuggets.
func (s GoldSet) Summary() GoldSetSummary {
	return GoldSetSummary{
		ID: s.ID, Name: s.Name, CreatedAt: s.CreatedAt,
		NuggetCount: len(s.Nuggets), RequestCount: len(RequestIDs(s.Nuggets)),
	}
}

// GoldSetSummary describes a stored gold set without its nuggets, for
// lists to choose from.
type GoldSetSummary struct {
	ID   int64
	Name string
	// NuggetCount is the number of nuggets; RequestCount the number of
	// distinct requests they belong to.
	NuggetCount  int
	RequestCount int
	CreatedAt    time.Time
}
