package crucible

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// confidenceModel answers extraction with the confidence a passage names
// ("[c=0.72]"), stating the nugget's answer when the passage holds it, or,
// with offAnswer, a confident sentence that never states it. Every other
// task goes to scripted. It records the passages it was asked about.
type confidenceModel struct {
	*scripted
	offAnswer bool
	// offSubject: in a passage marked "[x]" the answer is its second
	// sentence, which states the answer without naming the subject.
	offSubject bool
	mu         sync.Mutex
	read       map[string]int // extract calls per nugget answer
}

func (m *confidenceModel) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	in, ok := req.Input.(prompts.ExtractInput)
	if !ok {
		return m.scripted.Complete(ctx, req)
	}
	m.mu.Lock()
	m.read[in.Nugget.Answer]++
	m.mu.Unlock()
	conf := 0.0
	if i := strings.Index(in.PassageText, "[c="); i >= 0 {
		conf, _ = strconv.ParseFloat(in.PassageText[i+3:i+7], 64)
	}
	out := prompts.ExtractOutput{}
	switch {
	case m.offSubject && strings.Contains(in.PassageText, "[x]"):
		s := strings.TrimSpace(strings.SplitAfter(in.PassageText, ". ")[1])
		out = prompts.ExtractOutput{Found: true, Support: s, Sentence: s, Confidence: 0.95}
	case m.offAnswer:
		s := strings.TrimSpace(strings.SplitAfter(in.PassageText, ". ")[1])
		out = prompts.ExtractOutput{Found: true, Support: s, Sentence: s, Confidence: 0.95}
	case strings.Contains(in.PassageText, in.Nugget.Answer):
		s := strings.TrimSpace(strings.SplitAfter(in.PassageText, ". ")[0])
		out = prompts.ExtractOutput{Found: true, Support: s, Sentence: s, Confidence: conf}
	}
	return pipeline.ModelResponse{Text: prompts.FormatExtract(out), Model: "scripted"}, nil
}

// scanCorpus is six documents of five passages each about the McKinley
// tariff; the passages that state "1890" carry rising confidences.
func scanCorpus() *memCorpus {
	var docs [][]string
	for d := 0; d < 6; d++ {
		var ps []string
		for p := 0; p < 5; p++ {
			c := 0.50 + 0.015*float64(d*5+p)
			if p%2 == 0 {
				ps = append(ps, fmt.Sprintf("The McKinley tariff passed in 1890 [c=%.2f]. More on tariff duties.", c))
			} else {
				ps = append(ps, fmt.Sprintf("The McKinley tariff debate went on [c=%.2f]. Duties on tin plate rose.", c))
			}
		}
		docs = append(docs, ps)
	}
	return newCorpus(docs...)
}

func scanRun(t *testing.T, m *confidenceModel, s pipeline.Settings, limit int) pipeline.Report {
	t.Helper()
	e := newEngine(scanCorpus(), m)
	e.ScanLimit = limit
	rep, err := e.Generate(context.Background(), pipeline.Request{ID: "scan", Title: "McKinley tariff",
		ProblemStatement: "When did the McKinley tariff pass?", Limit: 600}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func scanNuggets() map[string][]prompts.QA {
	return map[string][]prompts.QA{"d1": {{Question: "When did the McKinley tariff pass?", Answer: "1890"}}}
}

func TestFullScanReadsEveryPassage(t *testing.T) {
	m := &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, read: map[string]int{}}
	s := pipeline.DefaultSettings()
	s.FullScan = true
	rep := scanRun(t, m, s, 4)
	// One kept nugget, six documents of five passages: 30 extractions,
	// the engine's scan limit notwithstanding.
	if m.read["1890"] != 30 || rep.Scanned != (pipeline.ScanCount{Read: 30, Schedule: 30}) {
		t.Errorf("full scan read %d passages, counted %+v; want all 30", m.read["1890"], rep.Scanned)
	}
}

func TestEarlyStopOnACalibratedThreshold(t *testing.T) {
	m := &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, read: map[string]int{}}
	s := pipeline.DefaultSettings()
	s.ScanCandidates = 2
	rep := scanRun(t, m, s, 0)
	// The first round reads 4 passages (scanBatch) in prefilter order: the
	// answer's passages of d1 (its own source) first: c=0.50, 0.53, 0.56,
	// then d2's first, 0.575. Every confidence is at least 0.5, so a fixed
	// 0.5 would have stopped there; the median of the four, 0.53, is the
	// threshold instead.
	if got := rep.Settings.CalibratedThreshold; got != 0.53 {
		t.Errorf("calibrated threshold %g, want 0.53 (the median of the first round)", got)
	}
	if m.read["1890"] != 4 {
		t.Errorf("read %d passages; want 4: three of the first four clear 0.53", m.read["1890"])
	}
	if rep.Scanned.Schedule != 30 || rep.Scanned.Read != 4 {
		t.Errorf("scan count %+v, want 4 of 30", rep.Scanned)
	}

	// A fixed threshold above every confidence: the scan reads every
	// promising passage (all 30 share the question's terms).
	m = &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, read: map[string]int{}}
	s.ConfidenceThreshold = 0.99
	rep = scanRun(t, m, s, 0)
	if m.read["1890"] != 30 || rep.Settings.CalibratedThreshold != 0 {
		t.Errorf("threshold 0.99: read %d, calibrated %g; want 30 read, nothing calibrated", m.read["1890"], rep.Settings.CalibratedThreshold)
	}
	// The engine's scan limit bounds an early-stopping scan.
	m = &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, read: map[string]int{}}
	scanRun(t, m, s, 10)
	if m.read["1890"] != 10 {
		t.Errorf("scan limit 10: read %d passages", m.read["1890"])
	}
}

func TestConfidentSentencesThatMissTheAnswerDoNotStopTheScan(t *testing.T) {
	m := &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, offAnswer: true, read: map[string]int{}}
	s := pipeline.DefaultSettings()
	s.ConfidenceThreshold = 0.5
	rep := scanRun(t, m, s, 0)
	// Every answer is confident (0.95) but none states "1890": the scan
	// goes through all 30 promising passages, and there is nothing to
	// calibrate on.
	if m.read["1890"] != 30 {
		t.Errorf("read %d passages, want 30", m.read["1890"])
	}
	m = &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, offAnswer: true, read: map[string]int{}}
	s.ConfidenceThreshold = 0
	rep = scanRun(t, m, s, 0)
	if m.read["1890"] != 30 || rep.Settings.CalibratedThreshold != 0 {
		t.Errorf("calibrated: read %d, threshold %g; want 30 and none", m.read["1890"], rep.Settings.CalibratedThreshold)
	}
}

func TestSentencesOffTheSubjectDoNotStopTheScan(t *testing.T) {
	// d1-d3, the nugget's own source first, answer with a confident
	// sentence that states "1890" but not what the request is about;
	// d4-d6 state the McKinley tariff's passage.
	var docs [][]string
	for d := 0; d < 6; d++ {
		mark := ""
		if d < 3 {
			mark = " [x]"
		}
		docs = append(docs, []string{
			fmt.Sprintf("The McKinley tariff passed in 1890 [c=0.90]%s. Congress adjourned late in 1890.", mark),
			"The McKinley tariff debate went on. Duties on tin plate rose.",
		})
	}
	m := &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, offSubject: true, read: map[string]int{}}
	c := passageCorpus{newCorpus(docs...)}
	e := newEngine(c.memCorpus, m)
	e.Searcher = c // passages with their texts: the subject is read from them
	s := pipeline.DefaultSettings()
	s.ScanCandidates = 2
	s.ConfidenceThreshold = 0.5
	rep, err := e.Generate(context.Background(), pipeline.Request{ID: "scan", Title: "McKinley tariff",
		ProblemStatement: "When did the McKinley tariff pass?", Limit: 600}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first round's four passages give four confident sentences off
	// the subject ("Congress adjourned ..."), which no report may hold:
	// they do not stop the scan, which reads on to d4-d6 and stops there
	// on two that name the tariff.
	if m.read["1890"] <= scanBatch {
		t.Fatalf("read %d passages: the scan stopped on sentences no report may hold; %+v %v", m.read["1890"], rep.Sentences, rep.Problems)
	}
	found := false
	for _, sen := range rep.Sentences {
		if strings.Contains(sen.Text, "adjourned") {
			t.Errorf("off-subject sentence assembled: %q", sen.Text)
		}
		if strings.Contains(sen.Text, "McKinley tariff passed in 1890") {
			found = true
		}
	}
	if !found {
		t.Errorf("no sentence states the tariff's passage: %+v", rep.Sentences)
	}
}

func TestCalibrate(t *testing.T) {
	if got := calibrate(nil); got <= 1 {
		t.Errorf("calibrate(nil) = %g, want a threshold no confidence reaches", got)
	}
	if got := calibrate([]float64{0.9, 0.6, 0.7}); got != 0.7 {
		t.Errorf("median of three = %g", got)
	}
	if got := calibrate([]float64{0.8, 0.95, 0.6, 0.7}); got != 0.7 {
		t.Errorf("lower median of four = %g", got)
	}
}

// Regeneration answers a page: it reads at most regenerateScanLimit
// passages per changed nugget, even for a report made with a full scan.
func TestRegenerateScanIsBounded(t *testing.T) {
	m := &confidenceModel{scripted: &scripted{nuggets: scanNuggets()}, read: map[string]int{}}
	e := newEngine(scanCorpus(), m)
	s := pipeline.DefaultSettings()
	s.FullScan, s.ConfidenceThreshold = true, 0.99
	var ret []pipeline.RetrievedDoc
	for i := 1; i <= 6; i++ {
		ret = append(ret, pipeline.RetrievedDoc{Rank: i, DocID: fmt.Sprintf("d%d", i)})
	}
	n := pipeline.Nugget{ID: "n1", Question: "When did the McKinley tariff pass?", Answer: "1890", Sources: []string{"d1"}}
	_, err := e.Regenerate(context.Background(), RegenerateInput{
		Request:  pipeline.Request{ID: "scan", Title: "McKinley tariff", ProblemStatement: "When did the McKinley tariff pass?", Limit: 600},
		Settings: s, Retrieved: ret, Nuggets: []pipeline.Nugget{n}, Changed: []string{"n1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.read["1890"] != regenerateScanLimit {
		t.Errorf("regeneration read %d passages, want %d", m.read["1890"], regenerateScanLimit)
	}
}
