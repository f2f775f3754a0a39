package pipeline

import "testing"

// TestIndependence: a score is "independent" only when the judge is not
// the model that wrote the report.
func TestIndependence(t *testing.T) {
	offlineJudge := JudgeInfo{Name: "offline", Offline: true}
	gpt := JudgeInfo{Name: "model judge: gpt-4o", Model: "gpt-4o", EndpointHost: "api.example.com"}
	llama := JudgeInfo{Name: "model judge: llama", Model: "Llama-3.3-70B", EndpointHost: "127.0.0.1:8000"}
	offlineMade := &Manifest{Engine: EngineFacts{ID: "offline", Label: "offline engine", Offline: true}}
	gptMade := &Manifest{Engine: EngineFacts{ID: "openai", Label: "gpt-4o", Model: "gpt-4o", EndpointHost: "api.example.com"}}
	gptElsewhere := &Manifest{Engine: EngineFacts{ID: "openai", Label: "GPT-4o ", Model: "GPT-4o ", EndpointHost: "proxy.internal:443"}}
	leadMade := &Manifest{Engine: EngineFacts{ID: "lead", Label: "lead baseline (no model)", Offline: true}}
	tests := []struct {
		name  string
		judge JudgeInfo
		made  *Manifest
		want  string
	}{
		{"offline judge, offline engine", offlineJudge, offlineMade, SelfJudgedOffline},
		{"offline judge, a model's report", offlineJudge, gptMade, Independent},
		{"offline judge, the lead baseline", offlineJudge, leadMade, Independent},
		{"a model on its own report", gpt, gptMade, SelfJudged},
		{"the same model at another endpoint", gpt, gptElsewhere, SelfJudged},
		{"another model", llama, gptMade, Independent},
		{"a model on the offline engine's report", llama, offlineMade, Independent},
		{"no manifest", gpt, nil, GeneratorUnknown},
		{"no manifest, offline judge", offlineJudge, nil, GeneratorUnknown},
		{"a manifest naming no model", gpt, &Manifest{Engine: EngineFacts{ID: "openai"}}, GeneratorUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Independence(tt.judge, tt.made); got != tt.want {
				t.Errorf("Independence = %q, want %q", got, tt.want)
			}
		})
	}
}
