package pipeline

// AnalystLabels labels the nuggets of one generated report from what its
// analysts and reviewers did since (issue 13's second source of labels):
//
//   - positive: a nugget the current version's bank has pinned, and the
//     nugget of a sentence whose citation a reviewer marked supported;
//   - negative: a nugget the run kept (Rank > 0) that the current bank no
//     longer holds — an analyst removed it. Removal wins over a review: it
//     is the later judgement of whether the nugget belongs.
//
// generated are the job's nuggets as the rank stage scored them (their
// Features are what the ranker learns from); a nugget without features,
// one an analyst added, or one whose question or answer an analyst has
// since rewritten (its features describe other words) gives no label.
// reviews are keyed by SentenceKey. group names the report for
// cross-validation. The labels come in the order of generated.
func AnalystLabels(group string, generated []Nugget, cur Draft, reviews map[string]Review) []LabelledNugget {
	inBank := make(map[string]DraftNugget, len(cur.Nuggets))
	for _, n := range cur.Nuggets {
		inBank[n.ID] = n
	}
	positive := map[string]bool{}
	for _, n := range cur.Nuggets {
		if n.Pinned {
			positive[n.ID] = true
		}
	}
	for _, s := range cur.Sentences {
		if r, ok := reviews[SentenceKey(s.Sentence)]; ok && r.Verdict == ReviewSupported && s.NuggetID != "" {
			positive[s.NuggetID] = true
		}
	}
	var out []LabelledNugget
	for _, g := range generated {
		if len(g.Features) == 0 {
			continue
		}
		b, kept := inBank[g.ID]
		switch {
		case g.Rank > 0 && !kept:
			out = append(out, LabelledNugget{Group: group, Features: g.Features, Positive: false})
		case kept && positive[g.ID] && b.Question == g.Question && b.Answer == g.Answer:
			out = append(out, LabelledNugget{Group: group, Features: g.Features, Positive: true})
		}
	}
	return out
}
