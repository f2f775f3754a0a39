package offline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// sectionedMessage has three headed sections of two sentences each.
const sectionedMessage = "Tariff Reform\n\nThe tariff act raised import duties. The tariff act cut the sugar duties.\n\n" +
	"Naval Power\n\nThe navy launched three cruisers. The navy needs more cruisers.\n\n" +
	"Silver Coinage\n\nCongress passed the silver act. The silver act pleased the miners."

func TestCoRankFeaturesSmallDocument(t *testing.T) {
	e := newTestEngine()
	req := rerank.BuildFeatures(rerank.FeaturesInput{Doc: rerank.PromptDoc{ID: "m", Title: "Annual Message", Text: sectionedMessage}})
	resp, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rerank.ParseFeatures(resp.Text)
	if err != nil {
		t.Fatal(err)
	}
	// Counted words (the test analyzer's terms; "three" is a spelled
	// number, "the" a stop word) and w(t) = (1 + ln tf)·rarity:
	//   act     tf 4            1 + ln 4 = 2.386
	//   tariff, silver tf 3     1 + ln 3 = 2.099
	//   duty, navy, cruiser tf 2  1 + ln 2 = 1.693
	//   reform, import, sugar, naval, more, coinage, congress, miner  1
	//   cut, power, need: common words, 0.6
	//   raised, launched, pleased: participles, 0.5; passed both, 0.3
	// "tariff act" and "silver act" occur twice: (1 + ln 2)·1·1.5 = 2.540,
	// first. No word lies 80% inside them (tariff 2 of 3, act 2 of 4), so
	// all stay. Ties go to the first occurrence; a word capitalised
	// wherever it does not open a sentence keeps its capital ("Reform",
	// "Coinage", "Congress", "Power"; "Naval" opens one and is lowered).
	want := rerank.DocFeatures{
		// The title shares no term with the best distinct keywords.
		Title: "Annual Message: tariff act, silver act, duties",
		// The six best distinct keywords (act, tariff and silver lie
		// inside the phrases) all span two paragraphs but Reform; the
		// first three keep their order.
		Category: []string{"Tariff act", "Silver act", "Duties"},
		Headings: []string{"Tariff Reform", "Naval Power", "Silver Coinage"},
		Keywords: []string{
			"tariff act", "silver act", "act", "tariff", "silver", "duties", "navy", "cruisers",
			"Reform", "import", "sugar", "naval", "more", "Coinage", "Congress", "miners",
			"cut", "Power", "needs", "raised", "launched", "pleased", "passed",
		},
		// Centrality = Σ w of distinct terms / √(counted words): the second
		// sentence 7.778/√5 = 3.478, the first 8.678/√7 = 3.280, the sixth
		// 5.985/2 = 2.992, the fifth 6.785/√6 = 2.770, the fourth 4.986/2 =
		// 2.493, the third 5.486/√5 = 2.453. The first sentence's query
		// (reform, tariff, act, duty) overlaps the second's (act, tariff,
		// duty, sugar) by 3/5 ≥ 0.5 and is passed over.
		Queries: []string{
			"tariff act sugar duties", "silver act pleased miners", "Coinage Congress silver act",
			"navy needs more cruisers", "naval Power navy cruisers",
		},
	}
	if diff := cmp.Diff(want, got.Features); diff != "" {
		t.Errorf("features (-want +got)\n%s", diff)
	}
	if !got.Report.Empty() {
		t.Errorf("the answer did not parse cleanly: %+v", got.Report)
	}
	if resp.Model != Version {
		t.Errorf("model %q, want %q", resp.Model, Version)
	}
	// The same request gives the same bytes.
	again, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != resp.Text {
		t.Errorf("second answer differs:\n%s\n---\n%s", resp.Text, again.Text)
	}
}

func TestCoRankFeaturesWithoutHeadings(t *testing.T) {
	e := newTestEngine()
	// tariffAddress has no title, no heading lines and no paragraphs: its
	// eight sentences make three units of three sentences, and 802
	// characters give round(802/2500) = 0 segments, raised to the minimum
	// of three, one per unit.
	in := rerank.FeaturesInput{Doc: rerank.PromptDoc{ID: "t", Text: tariffAddress}}
	got := e.coRankFeatures(in)
	if n := len(got.Headings); n != 3 {
		t.Errorf("%d headings %q, want one per unit (3)", n, got.Headings)
	}
	for _, h := range got.Headings {
		if h == "" || len(strings.Fields(h)) > featureHeadingWords || !strings.Contains(tariffAddress, h[1:]) {
			t.Errorf("heading %q is not a span of at most %d words of the text", h, featureHeadingWords)
		}
	}
	if got.Title == "" || !strings.Contains(tariffAddress, got.Title[1:]) || len(strings.Fields(got.Title)) > featureTitleWords {
		t.Errorf("title %q is not a span of the first sentence", got.Title)
	}
	if len(got.Category) != rerank.CategoryLevels {
		t.Errorf("category %q, want %d levels", got.Category, rerank.CategoryLevels)
	}
	// "tariff act" (twice: (1 + ln 2)·1.5 = 2.540) leads "tariff" (four
	// times: 1 + ln 4 = 2.386); names keep their spelling.
	if len(got.Keywords) < 20 || got.Keywords[0] != "tariff act" || got.Keywords[1] != "tariff" || !slices.Contains(got.Keywords, "McKinley") {
		t.Errorf("keywords %q: want at least 20, led by tariff act and tariff, with McKinley", got.Keywords)
	}
	if len(got.Queries) == 0 || len(got.Queries) > rerank.PseudoQueries {
		t.Errorf("%d queries, want 1..%d", len(got.Queries), rerank.PseudoQueries)
	}
}

func TestCoRankFeaturesEmptyText(t *testing.T) {
	e := newTestEngine()
	resp, err := e.Complete(context.Background(), rerank.BuildFeatures(rerank.FeaturesInput{Doc: rerank.PromptDoc{ID: "x", Title: "Only a title"}}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := rerank.ParseFeatures(resp.Text)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rerank.DocFeatures{Title: "Only a title"}, got.Features); diff != "" {
		t.Errorf("features (-want +got)\n%s", diff)
	}
}

func TestFeatureSegments(t *testing.T) {
	// Nine units: three about tariffs, three about the navy, three about
	// silver. The two gaps between the topics share no term (cosine 0);
	// every gap inside a topic shares some.
	var sents []featureSentence
	topics := [][]string{{"tariff", "duty"}, {"navy", "ship"}, {"silver", "coin"}}
	for u := range 9 {
		ts := topics[u/3]
		s := featureSentence{text: strings.Repeat("x", 900), unit: u}
		for _, t := range ts {
			s.words = append(s.words, featureWord{term: t})
		}
		sents = append(sents, s)
	}
	// 9 × 900 = 8,100 characters → round(3.24) = 3 segments.
	got := featureSegments(featureDoc{sents: sents, units: 9})
	if diff := cmp.Diff([]int{0, 3, 6}, got); diff != "" {
		t.Errorf("segment starts (-want +got)\n%s", diff)
	}
}

func TestCoRankFeaturesTask(t *testing.T) {
	e := newTestEngine()
	req := rerank.BuildFeatures(rerank.FeaturesInput{Doc: rerank.PromptDoc{ID: "m", Text: "The tariff rose."}})
	req.Task = rerank.TaskListwise
	if _, err := e.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), string(rerank.TaskCoRankFeatures)) {
		t.Errorf("mismatched task: error %v, want one naming %s", err, rerank.TaskCoRankFeatures)
	}
	var _ pipeline.Model = e
}

func FuzzCoRankFeatures(f *testing.F) {
	f.Add("Annual Message", sectionedMessage)
	f.Add("", tariffAddress)
	f.Add("", "# Heading\n\nText. More text.\n\n## Other\n\nI. Roman\n\n1. Numbered")
	f.Add("x", "\xff\x00 ; , > / :: 1890 1890s")
	e := newTestEngine()
	f.Fuzz(func(t *testing.T, title, text string) {
		in := rerank.FeaturesInput{Doc: rerank.PromptDoc{ID: "d", Title: title, Text: text}}
		resp, err := e.Complete(context.Background(), rerank.BuildFeatures(in))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text == "" {
			return
		}
		got, err := rerank.ParseFeatures(resp.Text)
		if err != nil {
			t.Fatalf("the engine's answer does not parse: %v\n%s", err, resp.Text)
		}
		if n := len(got.Features.Keywords); n > rerank.MaxKeywords {
			t.Fatalf("%d keywords", n)
		}
		if n := len(got.Features.Headings); n > rerank.MaxHeadings {
			t.Fatalf("%d headings", n)
		}
		if n := len(got.Features.Queries); n > rerank.PseudoQueries {
			t.Fatalf("%d queries", n)
		}
	})
}
