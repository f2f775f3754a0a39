package views

import (
	"strconv"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// Fields of a job's caps, on the new-report form and the job page's
// resume form (pipeline.CapField names them so).
const (
	FieldMaxCalls  = "max_calls"
	FieldMaxTokens = "max_tokens"
	FieldMaxTime   = "max_time"
)

// ReportEstimatePath is where the new-report form's "Estimate" button
// posts: the form comes back with the estimate.
const ReportEstimatePath = ReportsPath + "/estimate"

// JobResumeURL is where a stopped job's resume form posts.
func JobResumeURL(id int64) string { return JobURL(id) + "/resume" }

// jobFieldCost is the live value of a job's usage in money.
const jobFieldCost = "cost"

// capField describes one cap's input.
type capField struct {
	Name  string
	Cap   string // pipeline.CapCalls...
	Label string
	Help  string
}

// capFields are the caps a job may set, in the form's order.
var capFields = []capField{
	{Name: FieldMaxCalls, Cap: pipeline.CapCalls, Label: "Most model calls",
		Help: "The job stops after this many model calls, cache hits included. Empty: the portal's cap."},
	{Name: FieldMaxTokens, Cap: pipeline.CapTokens, Label: "Most tokens",
		Help: "The job stops once its calls have spent this many prompt and completion tokens. Empty: the portal's cap."},
	{Name: FieldMaxTime, Cap: pipeline.CapTime, Label: "Most time",
		Help: "The job stops after running this long, such as 30m or 2h (a bare number counts minutes). Empty: the portal's cap."},
}

func init() {
	for _, f := range capFields {
		fieldLabels[f.Name] = f.Label
	}
}

// capLimitText says what the portal allows for a cap: "at most 5,000
// here" or "no cap here".
func capLimitText(server pipeline.Caps, cap string) string {
	v := server.Limit(cap)
	if v == 0 {
		return "The portal sets no cap."
	}
	return "The portal's cap, the most a job may have: " + pipeline.CapText(cap, v) + "."
}

// CapValue is a cap's form value: "" for none, a count, or a duration
// ("30m0s").
func CapValue(c pipeline.Caps, cap string) string {
	v := c.Limit(cap)
	switch {
	case v == 0:
		return ""
	case cap == pipeline.CapTime:
		return time.Duration(v).String()
	}
	return strconv.FormatInt(v, 10)
}

// EstimateView is a dry run's estimate as the new-report form shows it.
type EstimateView struct {
	Engine   EngineLabel
	Estimate pipeline.CostEstimate
	// Prices turn the tokens into money when set.
	Prices pipeline.Prices
}

// estimateRow is one line of the estimate's table.
type estimateRow struct {
	Stage, Calls, MaxCalls, Prompt, Completion, Cost, Basis string
	Total                                                   bool
}

// money reports whether the table has a cost column.
func (v EstimateView) money() bool { return v.Prices.Set() && !v.Estimate.Offline }

// rows lists the stages that call the model, and the total.
func (v EstimateView) rows() []estimateRow {
	row := func(s pipeline.StageCost) estimateRow {
		r := estimateRow{Stage: s.Stage, Calls: formatCount(s.Calls), Prompt: formatCount(s.PromptTokens),
			Completion: formatCount(s.CompletionTokens), Basis: s.Basis}
		if s.MaxCalls > 0 {
			r.MaxCalls = formatCount(s.MaxCalls)
		}
		if v.money() {
			r.Cost = v.Prices.Format(v.Prices.Cost(s.PromptTokens, s.CompletionTokens))
		}
		return r
	}
	var out []estimateRow
	for _, s := range v.Estimate.Stages {
		if s.Calls > 0 || s.MaxCalls > 0 {
			out = append(out, row(s))
		}
	}
	t := row(v.Estimate.Total())
	t.Total = true
	return append(out, t)
}

// summary says in one sentence what the run is expected to cost.
func (v EstimateView) summary() string {
	t := v.Estimate.Total()
	s := "About " + formatCount(t.Calls) + " model calls"
	if t.MaxCalls > 0 {
		s += " (at most " + formatCount(t.MaxCalls) + ")"
	}
	if v.Estimate.Offline {
		return s + " with the " + OfflineEngineLabel + ", which spends no tokens."
	}
	s += ", " + formatCount(t.PromptTokens) + " prompt and " + formatCount(t.CompletionTokens) + " completion tokens"
	if v.money() {
		s += ", about " + v.Prices.Format(v.Prices.Cost(t.PromptTokens, t.CompletionTokens))
	}
	return s + " with " + v.Engine.Text() + "."
}

// retrieved says what the dry run found.
func (v EstimateView) retrieved() string {
	e := v.Estimate
	return "From " + formatCount(e.Documents) + " documents retrieved (" + formatCount(e.Passages) + " passages) and " +
		formatCount(e.Nuggets) + " nuggets kept by a dry run in which the " + OfflineEngineLabel +
		" stood in for the model. The scan usually stops early, so its figure is an expectation; “at most” bounds it."
}

// jobCost is a job's usage in money, "" without prices.
func jobCost(u pipeline.Usage, p pipeline.Prices) string {
	if !p.Set() {
		return ""
	}
	return p.Format(p.Cost(u.PromptTokens, u.CompletionTokens))
}

// WithPrices adds the usage in money to the status's texts (job.js shows
// it live) when prices are known.
func (s JobStatus) WithPrices(p pipeline.Prices) JobStatus {
	if p.Set() {
		s.Text[jobFieldCost] = jobCost(pipeline.Usage{PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens}, p)
	}
	return s
}

// capsText lists a job's caps: "200 calls, 10m0s of wall time", or "none".
func capsText(c pipeline.Caps) string { return c.Text() }

// ResumeValues are the resume form's values for a stopped job: the cap
// that stopped it doubled (within the server's cap), the others as they
// were.
func ResumeValues(j pipeline.Job, server pipeline.Caps) map[string]string {
	c := j.Caps
	if st := j.Stopped; st != nil {
		raised := 2 * st.Limit
		if ceil := server.Limit(st.Cap); ceil > 0 && raised > ceil {
			raised = ceil
		}
		switch st.Cap {
		case pipeline.CapCalls:
			c.Calls = int(raised)
		case pipeline.CapTokens:
			c.Tokens = int(raised)
		case pipeline.CapTime:
			c.Time = time.Duration(raised)
		}
	}
	out := map[string]string{}
	for _, f := range capFields {
		out[f.Name] = CapValue(c, f.Cap)
	}
	return out
}

// stoppedText says where and why a stopped job stopped, for people:
// "Stopped at the cap: 200 calls, during scan."
func stoppedText(j pipeline.Job) string {
	if j.Stopped == nil {
		return "Stopped at a cap."
	}
	return sentence(j.Stopped.Error()) + "."
}

// sentence capitalises a message's first letter.
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
