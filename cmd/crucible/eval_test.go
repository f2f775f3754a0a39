package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalRetrieval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	qrels := writeTestFile(t, dir, "q.qrels", "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\nq2 0 x 1\n")
	// q1 covers nuggets n1 (a, c) and n2 (b).
	nq := writeTestFile(t, dir, "q.nuggets", "q1 n1 a 1\nq1 n1 c 1\nq1 n2 b 1\n")
	run := writeTestFile(t, dir, "r.run", "q1 Q0 a 1 3 t\nq1 Q0 c 2 2 t\nq1 Q0 b 3 1 t\nq3 Q0 z 1 1 t\n")

	stdout, stderr, code := runCmd(t, "eval", "retrieval", "--qrels", qrels, "--nugget-qrels", nq, "--run", run, "--k", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// q1: P@2 = 1/2 (a relevant, c not); coverage@2 = 1/2 (a and c cover
	// only n1); alpha-nDCG@2: gains a = 1, c = 0.5 (n1 seen once) ->
	// 1 + 0.5/log2(3) = 1.3155; ideal a then b: 1 + 1/log2(3) = 1.6309;
	// ratio 0.8066.
	for _, want := range []string{"num_q                 \tall\t1", "P_2                   \tall\t0.5000",
		"coverage_2            \tall\t0.5000", "alpha_ndcg_cut_2      \tall\t0.8066"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "1 judged queries with no results in the run (not averaged): q2") ||
		!strings.Contains(stderr, "1 queries in the run without judgements (not averaged): q3") {
		t.Errorf("left-out queries not reported:\n%s", stderr)
	}

	stdout, _, code = runCmd(t, "eval", "retrieval", "--qrels", qrels, "--run", run, "--k", "2", "--json")
	var res struct {
		Mean map[string]float64 `json:"mean"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Mean["P_2"] != 0.5 {
		t.Errorf("--json: exit %d, %s", code, stdout)
	}

	// Nugget judgements given as JSON Lines gold nuggets with docids.
	nj := writeTestFile(t, dir, "n.jsonl", `{"qid":"q1","nugget_id":"n1","text":"claim one","docids":["a","c"]}`+"\n"+
		`{"qid":"q1","nugget_id":"n2","text":"claim two","docids":["b"]}`+"\n")
	stdout, stderr, code = runCmd(t, "eval", "retrieval", "--nugget-qrels", nj, "--run", run, "--k", "2")
	if code != 0 || !strings.Contains(stdout, "alpha_ndcg_cut_2      \tall\t0.8066") {
		t.Errorf("JSON Lines nugget judgements: exit %d\n%s\n%s", code, stdout, stderr)
	}

	bad := writeTestFile(t, dir, "bad.run", "q1 Q0 a 1 x t\n")
	if _, stderr, code := runCmd(t, "eval", "retrieval", "--qrels", qrels, "--run", bad); code != 1 || !strings.Contains(stderr, bad+":1:") {
		t.Errorf("malformed run: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{
		{"eval"},
		{"eval", "precision"},
		{"eval", "retrieval", "--run", run},
		{"eval", "retrieval", "--qrels", qrels, "--run", run, "--k", "ten"},
		{"eval", "reports", "--nuggets", nj},
	} {
		if _, _, code := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestEvalReports(t *testing.T) {
	t.Parallel()
	data, out, dir := preparedData(t, sampleCorpus), t.TempDir(), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"e-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":900}`+"\n"+
			`{"request_id":"e-2","title":"Indian tribes","problem_statement":"How were treaties with the Indian tribes described?","limit":600}`+"\n")
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--baseline", "lead"); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	var rep struct {
		Sentences []struct {
			Text string `json:"text"`
		} `json:"sentences"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "e-1.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Sentences) == 0 {
		t.Fatalf("lead report: %v %s", err, b)
	}
	// A gold nugget answered by the report's first sentence (its first
	// three words), and one it cannot answer.
	first := strings.Fields(rep.Sentences[0].Text)
	answer := strings.Join(first[:min(3, len(first))], " ")
	ab, _ := json.Marshal(answer)
	gold := writeTestFile(t, dir, "gold.jsonl",
		`{"request_id":"e-1","nugget_id":"g1","question":"q?","answers":[`+string(ab)+`],"importance":"vital"}`+"\n"+
			`{"request_id":"e-1","nugget_id":"g2","question":"q2?","answers":["zzyzx quux"]}`+"\n"+
			`{"request_id":"e-9","nugget_id":"g1","question":"q?","answers":["not in the requests file"]}`+"\n")
	stdout, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--requests", reqs, "--nuggets", gold, "--reports", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res struct {
		Requests []struct {
			RequestID string `json:"request_id"`
			Metrics   struct {
				NuggetRecall    float64 `json:"nugget_recall"`
				VitalRecall     float64 `json:"vital_nugget_recall"`
				CitationSupport float64 `json:"citation_support"`
			} `json:"metrics"`
		} `json:"requests"`
		Mean struct {
			CitationSupport float64 `json:"citation_support"`
		} `json:"mean"`
		Unjudged     []string `json:"unjudged"`
		NotRequested []string `json:"not_requested"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(res.Requests) != 1 || res.Requests[0].RequestID != "e-1" {
		t.Fatalf("requests scored: %+v", res.Requests)
	}
	m := res.Requests[0].Metrics
	// The lead baseline quotes its passages verbatim, so every citation holds.
	if m.NuggetRecall != 0.5 || m.VitalRecall != 1 || m.CitationSupport != 1 {
		t.Errorf("metrics %+v, want recall 0.5, vital 1, support 1", m)
	}
	if strings.Join(res.Unjudged, ",") != "e-2" {
		t.Errorf("unjudged %v, want [e-2]", res.Unjudged)
	}
	// e-9 has gold nuggets but is not in the requests file: it is not
	// scored, so it does not average a 0 into the mean.
	if strings.Join(res.NotRequested, ",") != "e-9" || res.Mean.CitationSupport != 1 {
		t.Errorf("not requested %v, mean support %v; want [e-9] and 1", res.NotRequested, res.Mean.CitationSupport)
	}
	stdout, stderr, code = runCmd(t, "eval", "reports", "--data", data, "--requests", reqs, "--nuggets", gold, "--reports", out)
	if code != 0 || !strings.Contains(stdout, "mean (1)") ||
		!strings.Contains(stderr, "1 requests with gold nuggets but not in --requests (not scored): e-9") {
		t.Errorf("--requests table: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCmd(t, "eval", "reports", "--data", data, "--nuggets", gold, "--reports", out, "--details")
	if code != 0 || !strings.Contains(stdout, "nugget recall 0.500 (1/2)") {
		t.Errorf("table: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--nuggets", gold, "--reports", out, "--judge", "model"); code != 2 || !strings.Contains(stderr, "--judge model needs --model-url") {
		t.Errorf("model judge without endpoint: exit %d, %s", code, stderr)
	}
	badGold := writeTestFile(t, dir, "bad.jsonl", `{"request_id":"e-1","question":"no id"}`+"\n")
	if _, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--nuggets", badGold, "--reports", out); code != 1 || !strings.Contains(stderr, badGold+":1:") {
		t.Errorf("malformed nuggets: exit %d, %s", code, stderr)
	}
}

// yesEndpoint is an OpenAI-compatible endpoint whose model answers every
// judge question with "yes" (P(yes) = 0.9 in its log-probabilities),
// counting the chat calls it gets.
type yesEndpoint struct{ calls atomic.Int64 }

func (e *yesEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/models"):
		fmt.Fprint(w, `{"object":"list","data":[{"id":"judge-model","object":"model"}]}`)
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		e.calls.Add(1)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","model":"judge-model","choices":[{"index":0,"finish_reason":"stop",
			"message":{"role":"assistant","content":"yes"},
			"logprobs":{"content":[{"token":"yes","logprob":%g,"top_logprobs":[{"token":"yes","logprob":%g},{"token":"no","logprob":%g}]}]}}],
			"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, math.Log(0.9), math.Log(0.9), math.Log(0.1))
	default:
		http.NotFound(w, r)
	}
}

func TestEvalReportsModelJudge(t *testing.T) {
	t.Parallel()
	data, out, dir := preparedData(t, sampleCorpus), t.TempDir(), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"m-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":500}`+"\n")
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out, "--baseline", "lead"); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	gold := writeTestFile(t, dir, "gold.jsonl",
		`{"request_id":"m-1","nugget_id":"g1","question":"Which duties?","answers":["import duties"]}`+"\n"+
			`{"request_id":"m-1","nugget_id":"g2","text":"Tariffs protect domestic industry."}`+"\n")
	ep := &yesEndpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	args := []string{"eval", "reports", "--data", data, "--nuggets", gold, "--reports", out, "--judge", "model",
		"--model-url", srv.URL + "/v1", "--model", "judge-model", "--json"}
	stdout, stderr, code := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res struct {
		Judge    string `json:"judge"`
		Requests []struct {
			Metrics struct {
				NuggetRecall    float64 `json:"nugget_recall"`
				CitationSupport float64 `json:"citation_support"`
			} `json:"metrics"`
		} `json:"requests"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Requests) != 1 {
		t.Fatalf("%v\n%s", err, stdout)
	}
	// A judge that says yes to everything covers every nugget and supports
	// every citation.
	if m := res.Requests[0].Metrics; m.NuggetRecall != 1 || m.CitationSupport != 1 {
		t.Errorf("metrics %+v, want recall 1 and support 1 from an always-yes judge", m)
	}
	first := ep.calls.Load()
	if first == 0 {
		t.Fatal("the model judge made no call")
	}
	// Scoring again replays every judgement from the cache.
	if _, stderr, code := runCmd(t, args...); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	if again := ep.calls.Load() - first; again != 0 {
		t.Errorf("second run made %d model calls; every judgement should come from the cache", again)
	}
}

// The judge's own endpoint (--judge-model-url, --judge-model) is the model
// judge without --judge; scores say how the judge stands to the reports'
// maker: the offline judge on the offline engine's reports is
// self-judged (offline), a judge model on them independent.
func TestEvalReportsIndependentJudge(t *testing.T) {
	t.Parallel()
	data, out, dir := preparedData(t, sampleCorpus), t.TempDir(), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"i-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":500}`+"\n")
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", out); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	gold := writeTestFile(t, dir, "gold.jsonl", `{"request_id":"i-1","nugget_id":"g1","question":"Which duties?","answers":["import duties"]}`+"\n")
	stdout, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--nuggets", gold, "--reports", out)
	if code != 0 || !strings.Contains(stdout, "scores: self-judged (offline)") {
		t.Errorf("offline judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ep := &yesEndpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	stdout, stderr, code = runCmd(t, "eval", "reports", "--data", data, "--nuggets", gold, "--reports", out,
		"--judge-model-url", srv.URL+"/v1", "--judge-model", "judge-model", "--json")
	if code != 0 {
		t.Fatalf("judge model: exit %d\n%s", code, stderr)
	}
	var res struct {
		Judge    string `json:"judge"`
		Requests []struct {
			Independence string `json:"independence"`
		} `json:"requests"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Requests) != 1 {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if res.Judge != "model judge: judge-model" || res.Requests[0].Independence != "independent" || ep.calls.Load() == 0 {
		t.Errorf("judge %q, independence %q, %d calls", res.Judge, res.Requests[0].Independence, ep.calls.Load())
	}
	if _, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--nuggets", gold, "--reports", out, "--judge-model", "x"); code != 2 || !strings.Contains(stderr, "--judge-model needs --judge-model-url") {
		t.Errorf("a judge model without its endpoint: exit %d, %s", code, stderr)
	}
}

func TestEvalReportsTopics(t *testing.T) {
	t.Parallel()
	data, out, dir := t.TempDir(), t.TempDir(), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"t-1","title":"Tariffs"}`+"\n"+`{"request_id":"t-2","title":"Treaties"}`+"\n")
	gold := writeTestFile(t, dir, "gold.jsonl",
		`{"request_id":"t-1","nugget_id":"g1","answers":["McKinley Act"]}`+"\n"+
			`{"request_id":"t-2","nugget_id":"g1","answers":["Cherokee"]}`+"\n")
	writeTestFile(t, out, "t-1.json", `{"request_id":"t-1","run_id":"hand","sentences":[
		{"text":"Congress passed the McKinley Act in 1890.","citations":["d1"]},
		{"text":"Tariffs on wool rose.","citations":[]},
		{"text":"Revenue from customs\nduties fell.","citations":[]},
		{"text":"The Navy built new ships.","citations":[]}]}`)
	writeTestFile(t, out, "t-2.json", `{"request_id":"t-2","sentences":[{"text":"The Cherokee treaty.","citations":[]}]}`)
	topics := writeTestFile(t, dir, "topics.jsonl",
		`{"request_id":"t-1","terms":["tariff*","customs duties","McKinley Act"]}`+"\n"+
			`{"request_id":"t-9","terms":["never scored"]}`+"\n")
	args := []string{"eval", "reports", "--data", data, "--requests", reqs, "--nuggets", gold, "--reports", out, "--topics", topics}

	stdout, stderr, code := runCmd(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res struct {
		Mean     map[string]float64 `json:"mean"`
		Requests []struct {
			RequestID string             `json:"request_id"`
			Metrics   map[string]float64 `json:"metrics"`
			Sentences []struct {
				OnTopic   *bool  `json:"on_topic"`
				TopicTerm string `json:"topic_term"`
			} `json:"sentences"`
		} `json:"requests"`
		Topics struct {
			Requests int      `json:"requests"`
			NoTopics []string `json:"no_topics"`
			Unused   []string `json:"unused"`
		} `json:"topics"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Requests) != 2 {
		t.Fatalf("%v\n%s", err, stdout)
	}
	// t-1: sentences 1-3 hold a term (McKinley Act, tariff*, customs
	// duties across a line end), the fourth none: 3/4. t-2 has no terms.
	if got := res.Requests[0].Metrics["on_topic_sentences"]; got != 0.75 {
		t.Errorf("t-1 on-topic %v, want 0.75", got)
	}
	var terms []string
	for _, s := range res.Requests[0].Sentences {
		if s.OnTopic == nil {
			t.Fatalf("t-1 sentence without on_topic: %s", stdout)
		}
		terms = append(terms, fmt.Sprintf("%t:%s", *s.OnTopic, s.TopicTerm))
	}
	if got := strings.Join(terms, ","); got != "true:McKinley Act,true:tariff*,true:customs duties,false:" {
		t.Errorf("t-1 sentences: %s", got)
	}
	if _, ok := res.Requests[1].Metrics["on_topic_sentences"]; ok || res.Requests[1].Sentences[0].OnTopic != nil {
		t.Errorf("t-2 has no terms but was measured: %s", stdout)
	}
	if res.Mean["on_topic_sentences"] != 0.75 || res.Topics.Requests != 1 ||
		strings.Join(res.Topics.NoTopics, ",") != "t-2" || strings.Join(res.Topics.Unused, ",") != "t-9" {
		t.Errorf("mean %v, topics %+v", res.Mean, res.Topics)
	}

	stdout, stderr, code = runCmd(t, args...)
	if code != 0 || !strings.Contains(stdout, "on-topic\n") || !strings.Contains(stdout, "0.750\n") ||
		!strings.Contains(stderr, "1 scored requests without topic terms (on-topic not averaged): t-2") ||
		!strings.Contains(stderr, "1 requests in --topics that were not scored (terms ignored): t-9") {
		t.Errorf("table: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Without --topics the output has no trace of the measure.
	stdout, _, code = runCmd(t, args[:len(args)-2]...)
	if code != 0 || strings.Contains(stdout, "on-topic") {
		t.Errorf("without --topics: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCmd(t, append(args[:len(args)-2:len(args)-2], "--json")...)
	if code != 0 || strings.Contains(stdout, "on_topic") || strings.Contains(stdout, `"topics"`) {
		t.Errorf("without --topics, --json: exit %d\n%s", code, stdout)
	}

	bad := writeTestFile(t, dir, "bad.jsonl", `{"request_id":"t-1","terms":["tariff*"]}`+"\n"+`{"request_id":"t-2","terms":["*"]}`+"\n")
	_, stderr, code = runCmd(t, append(args[:len(args)-2:len(args)-2], "--topics", bad)...)
	if code != 1 || !strings.Contains(stderr, bad+`:2: request "t-2": terms[0] is only "*"`) {
		t.Errorf("malformed topics: exit %d, %s", code, stderr)
	}
}

// TestEvalReportsJudged: --judged (repeatable) adds the share of the
// judged report sentences a reader found on topic, says how many were
// judged, marks each sentence in --json, and a malformed file stops the
// evaluation naming its line.
func TestEvalReportsJudged(t *testing.T) {
	t.Parallel()
	data, out, dir := t.TempDir(), t.TempDir(), t.TempDir()
	gold := writeTestFile(t, dir, "gold.jsonl", `{"request_id":"t-1","nugget_id":"g1","answers":["McKinley Act"]}`+"\n")
	writeTestFile(t, out, "t-1.json", `{"request_id":"t-1","sentences":[
		{"text":"Congress passed the McKinley Act in 1890.","citations":[]},
		{"text":"The Navy built new ships.","citations":[]},
		{"text":"Wool duties rose.","citations":[]}]}`)
	a := writeTestFile(t, dir, "a.jsonl", `{"request_id":"t-1","text":"Congress passed the McKinley Act in 1890.","on_topic_judge":true}`+"\n")
	b := writeTestFile(t, dir, "b.jsonl", `{"request_id":"t-1","text":"The Navy built new ships.","on_topic_judge":false}`+"\n")
	args := []string{"eval", "reports", "--data", data, "--nuggets", gold, "--reports", out, "--judged", a, "--judged", b}
	stdout, stderr, code := runCmd(t, args...)
	if code != 0 || !strings.Contains(stdout, "judged on topic by a reader: 0.500 (1 of the 2 judged; 2 of 3 sentences judged)") {
		t.Errorf("table: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCmd(t, append(args, "--json")...)
	var res struct {
		Requests []struct {
			Sentences []struct {
				JudgedOnTopic *bool `json:"judged_on_topic"`
			} `json:"sentences"`
		} `json:"requests"`
		Judged struct {
			Sentences int     `json:"sentences"`
			Judged    int     `json:"judged"`
			OnTopic   int     `json:"on_topic"`
			Share     float64 `json:"share"`
		} `json:"judged"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil || len(res.Requests) != 1 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	s := res.Requests[0].Sentences
	if s[0].JudgedOnTopic == nil || !*s[0].JudgedOnTopic || s[1].JudgedOnTopic == nil || *s[1].JudgedOnTopic || s[2].JudgedOnTopic != nil {
		t.Errorf("sentences: %s", stdout)
	}
	if res.Judged.Sentences != 3 || res.Judged.Judged != 2 || res.Judged.OnTopic != 1 || res.Judged.Share != 0.5 {
		t.Errorf("judged %+v", res.Judged)
	}
	// Without --judged the output has no trace of the measure.
	stdout, _, code = runCmd(t, args[:len(args)-4]...)
	if code != 0 || strings.Contains(stdout, "judged on topic") {
		t.Errorf("without --judged: exit %d\n%s", code, stdout)
	}
	bad := writeTestFile(t, dir, "bad.jsonl", `{"request_id":"t-1","text":"The Navy built new ships."}`+"\n")
	_, stderr, code = runCmd(t, append(args[:len(args)-4:len(args)-4], "--judged", a, "--judged", bad)...)
	if code != 1 || !strings.Contains(stderr, bad+`:1: request "t-1": missing on_topic_judge (true or false)`) {
		t.Errorf("malformed judged file: exit %d, %s", code, stderr)
	}
}

// Reports written in each TREC format, as a folder of files or as one run
// file, score exactly as Crucible's own JSON does.
func TestReportFormatsEvaluateAlike(t *testing.T) {
	t.Parallel()
	data, dir := preparedData(t, sampleCorpus), t.TempDir()
	reqs := writeTestFile(t, dir, "requests.jsonl",
		`{"request_id":"f-1","title":"Tariffs","problem_statement":"What did the addresses say about tariffs and duties on imports?","limit":700}`+"\n"+
			`{"request_id":"f-2","title":"Indian tribes","problem_statement":"How were treaties with the Indian tribes described?","limit":500}`+"\n")
	var gold string
	score := func(reports string) string {
		t.Helper()
		stdout, stderr, code := runCmd(t, "eval", "reports", "--data", data, "--requests", reqs, "--nuggets", gold, "--reports", reports, "--json")
		if code != 0 {
			t.Fatalf("eval %s: exit %d\n%s", reports, code, stderr)
		}
		var res struct {
			Mean json.RawMessage `json:"mean"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		return string(res.Mean)
	}
	own := filepath.Join(dir, "own")
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", own, "--baseline", "lead"); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	// A gold nugget per request that the report's first sentence answers
	// (its first three words), and one nobody answers.
	var lines []string
	for _, id := range []string{"f-1", "f-2"} {
		var rep struct {
			Sentences []struct {
				Text string `json:"text"`
			} `json:"sentences"`
		}
		b, _ := os.ReadFile(filepath.Join(own, id+".json"))
		if err := json.Unmarshal(b, &rep); err != nil || len(rep.Sentences) == 0 {
			t.Fatalf("lead report %s: %v %s", id, err, b)
		}
		first := strings.Fields(rep.Sentences[0].Text)
		ab, _ := json.Marshal(strings.Join(first[:min(3, len(first))], " "))
		lines = append(lines, `{"request_id":"`+id+`","nugget_id":"g1","question":"q?","answers":[`+string(ab)+`]}`,
			`{"request_id":"`+id+`","nugget_id":"g2","question":"q2?","answers":["zzyzx quux"]}`)
	}
	gold = writeTestFile(t, dir, "gold.jsonl", strings.Join(lines, "\n")+"\n")
	want := score(own)
	if !strings.Contains(want, `"nugget_recall": 0.5`) {
		t.Fatalf("the lead reports cover no gold nugget (mean %s): the comparison would prove nothing", want)
	}
	for _, f := range []string{"neuclir", "ragtime", "rag24", "rag25"} {
		folder := filepath.Join(dir, f)
		stdout, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", folder, "--baseline", "lead", "--format", f, "--team-id", "lab")
		if code != 0 {
			t.Fatalf("report --format %s: %s", f, stderr)
		}
		if got := score(folder); got != want {
			t.Errorf("%s folder scores %s, want %s", f, got, want)
		}
		run := filepath.Join(dir, f+"-run.jsonl")
		if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", run, "--baseline", "lead", "--format", f); code != 0 {
			t.Fatalf("report --format %s to a run file: %s", f, stderr)
		}
		b, err := os.ReadFile(run)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != 2 {
			t.Errorf("%s run file has %d lines, want one per request:\n%s", f, n, b)
		}
		if got := score(run); got != want {
			t.Errorf("%s run file scores %s, want %s", f, got, want)
		}
		if f == "ragtime" && !strings.Contains(stdout, "RAGTIME 2025") {
			t.Errorf("the summary does not name the format: %s", stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "ragtime", "f-1.jsonl"))
	if err != nil || !strings.Contains(string(b), `"team_id":"lab"`) {
		t.Errorf("RAGTIME report without the team id given: %v %s", err, b)
	}
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", dir, "--format", "trec"); code != 2 || !strings.Contains(stderr, `unknown report format "trec"`) {
		t.Errorf("unknown format: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCmd(t, "report", "--data", data, "--requests", reqs, "--out", filepath.Join(dir, "x.jsonl"), "--markdown"); code != 2 || !strings.Contains(stderr, "--markdown") {
		t.Errorf("--markdown with a run file: exit %d, %s", code, stderr)
	}
}
