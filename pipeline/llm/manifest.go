package llm

import (
	"net/url"

	"github.com/crucible-portal/crucible/pipeline"
)

// Facts are what a run manifest records of the client
// (pipeline.EngineFacts): the model, the endpoint's host (and port) —
// never its key, path or credentials — and the call parameters.
func (o *OpenAI) Facts() pipeline.EngineFacts {
	host := ""
	if u, err := url.Parse(o.cfg.BaseURL); err == nil {
		host = u.Host
	}
	return pipeline.EngineFacts{
		Label: o.cfg.Model, Model: o.cfg.Model, EndpointHost: host,
		Calls: &pipeline.CallParams{Timeout: o.cfg.Timeout.String(), MaxRetries: o.cfg.MaxRetries,
			MaxConcurrent: o.cfg.MaxConcurrent, ReasoningModel: o.reasoning},
	}
}
