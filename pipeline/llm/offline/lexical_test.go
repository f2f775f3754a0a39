package offline

import (
	"testing"

	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// TestProfileReadsWhatIsAsked: the request's core terms are its title's
// and what its problem statement asks; a term written only where it says
// what to leave aside is none of them (sotu46-05), one it also asks for
// is, and the background still weighs its own terms.
func TestProfileReadsWhatIsAsked(t *testing.T) {
	e := newTestEngine()
	p := e.profileOf(prompts.RequestInfo{
		Title:            "Budget deadlines and stopgap bills",
		Background:       "A historian of the veto.",
		ProblemStatement: "Report the late spending bills and the deficit standoffs. Leave aside the deficits themselves and the line-item veto.",
	})
	term := func(w string) string { return e.an.Terms(w)[0] }
	for _, tt := range []struct {
		word string
		want float64
	}{
		{"stopgap", coreWeight * titleFactor},
		{"standoffs", coreWeight},
		{"deficit", coreWeight}, // asked for, though left aside too
		{"item", 0},             // only left aside
		{"veto", backgroundWeight},
		{"aside", 0},
	} {
		if got := p.weight[term(tt.word)]; got != tt.want {
			t.Errorf("weight[%q] = %g, want %g", term(tt.word), got, tt.want)
		}
	}
	for _, c := range p.core {
		switch c {
		case term("item"), term("veto"), term("aside"):
			t.Errorf("core holds %q, which the request only leaves aside", c)
		}
	}
}

// TestProfileReadsWhatTheTitleAsks: a title's "apart from" leaves its
// words out of the core terms as a problem statement's clause does
// (sotu52-07).
func TestProfileReadsWhatTheTitleAsks(t *testing.T) {
	e := newTestEngine()
	p := e.profileOf(prompts.RequestInfo{
		Title:            "Making the peace after the war, apart from Germany and Japan, 1946-1948",
		ProblemStatement: "Describe the peace treaties and the states they covered.",
	})
	term := func(w string) string { return e.an.Terms(w)[0] }
	if got, want := p.weight[term("peace")], coreWeight*titleFactor; got != want {
		t.Errorf("weight[peace] = %g, want %g", got, want)
	}
	for _, w := range []string{"germany", "japan", "apart"} {
		if got := p.weight[term(w)]; got != 0 {
			t.Errorf("weight[%q] = %g, want 0: the title leaves it out", w, got)
		}
	}
}
