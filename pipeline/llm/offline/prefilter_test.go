package offline

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// pointsAheadByExpressions is pointsAhead without its prefilter.
func pointsAheadByExpressions(s string) bool {
	s = strings.TrimSpace(s)
	if rePointsAhead.MatchString(s) {
		return true
	}
	for _, m := range reTheFollowing.FindAllStringSubmatch(s, -1) {
		if !followingTimes[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}

// trailingHeadingByExpression is what stripHeading cuts at without its
// prefilter: the end of the sentence before the heading, or -1.
func trailingHeadingByExpression(s string) int {
	if m := reTrailingHeading.FindStringSubmatchIndex(s); m != nil {
		return m[3]
	}
	return -1
}

// TestPrefiltersChangeNothing: pointsAhead and stripHeading answer as
// their regular expressions alone do, on made-up sentences and on every
// sentence of the demo corpus (every tenth with -short or -race).
func TestPrefiltersChangeNothing(t *testing.T) {
	sentences := []string{
		"The results are as follows:", "The results are AS FOLLOWS.", "Two features call for special reference.",
		"In the present section I shall indicate the outlays.", "I shall discuss in detail the new concepts.",
		"We will now review the year.", "I submit the following recommendations.", "In the following year the debt fell.",
		"The results are aſ folloWs.", "In the preſent ſection the outlays.", "Our duty: ", "The FOLLOWING reports were made.",
		"We Shall Briefly Outline the plan.", "The debt fell. (k) Education.", "It rose! 6. Social security",
		"No heading here", "The U.S. Navy. 12) Navy yards and docks.", "Ends with a point.\t(iv) Coast defenses.",
		"Kelvin: \u212a", "The \u212aing", "",
	}
	f, err := os.Open(sotuPath)
	if errors.Is(err, os.ErrNotExist) {
		t.Logf("the demo corpus %s is missing: made-up sentences only", sotuPath)
	} else if err != nil {
		t.Fatal(err)
	} else {
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(gz)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		e := New(testAnalyzer{})
		n := 0
		for sc.Scan() {
			var rec struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			for _, sp := range e.an.Sentences(rec.Text) {
				if n++; (testing.Short() || raceEnabled) && n%10 != 0 {
					continue
				}
				raw := rec.Text[sp.Start:sp.End]
				sentences = append(sentences, raw, strings.Join(strings.Fields(raw), " "))
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	ahead, headings := 0, 0
	for _, s := range sentences {
		want := pointsAheadByExpressions(s)
		if got := pointsAhead(s); got != want {
			t.Errorf("pointsAhead(%q) = %v, want %v", s, got, want)
		}
		if want {
			ahead++
		}
		cut := trailingHeadingByExpression(s)
		if got := mayTrailHeading(s); !got && cut >= 0 {
			t.Errorf("mayTrailHeading(%q) = false, but the expression finds a heading", s)
		}
		if cut >= 0 {
			headings++
		}
	}
	if ahead < 5 || headings < 3 {
		t.Errorf("only %d sentences point ahead and %d end in a heading: the test checks too little", ahead, headings)
	}
	t.Logf("%d sentences: %d point ahead, %d end in a heading", len(sentences), ahead, headings)
}
