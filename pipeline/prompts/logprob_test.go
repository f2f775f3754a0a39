package prompts

import (
	"math"
	"strings"
	"testing"

	"github.com/crucible-portal/crucible/pipeline"
)

func lp(p float64) float64 { return math.Log(p) }

func tok(token string, p float64, top ...pipeline.TopLogprob) pipeline.TokenLogprob {
	return pipeline.TokenLogprob{Token: token, Logprob: lp(p), Top: top}
}

func alt(token string, p float64) pipeline.TopLogprob {
	return pipeline.TopLogprob{Token: token, Logprob: lp(p)}
}

func TestYesProbability(t *testing.T) {
	tests := []struct {
		name   string
		toks   []pipeline.TokenLogprob
		want   float64
		wantOK bool
	}{
		{"no logprobs", nil, 0, false},
		{"yes with no alternatives", []pipeline.TokenLogprob{tok("yes", 0.9)}, 0.9, true},
		{"no with no alternatives", []pipeline.TokenLogprob{tok("No", 0.8)}, 0.2, true},
		{"yes and no among alternatives", []pipeline.TokenLogprob{
			tok("Yes", 0.6, alt("Yes", 0.6), alt("No", 0.3), alt("The", 0.1)),
		}, 0.6 / 0.9, true},
		{"case and space variants add up", []pipeline.TokenLogprob{
			tok(" no", 0.5, alt(" no", 0.5), alt("No", 0.2), alt(" yes", 0.1), alt("YES", 0.1)),
		}, 0.2 / 0.9, true},
		{"markdown and label tokens skipped", []pipeline.TokenLogprob{
			tok("**", 0.99), tok("Answer", 0.9), tok(":", 0.99), tok("**", 0.99), tok(" yes", 0.7, alt(" no", 0.3)), tok(".", 0.9),
		}, 0.7, true},
		{"tokenizer word markers", []pipeline.TokenLogprob{
			tok("Ġyes", 0.4, alt("▁no", 0.4)),
		}, 0.5, true},
		{"prose first, yes later", []pipeline.TokenLogprob{
			tok("The", 0.5, alt("Both", 0.3)), tok(" questions", 0.9), tok(" match", 0.8), tok(",", 0.9), tok(" yes", 0.95, alt(" no", 0.05)),
		}, 0.95, true},
		{"after a think section", []pipeline.TokenLogprob{
			tok("<think>", 1), tok("no", 0.6, alt("yes", 0.4)), tok("</think>", 1), tok("\n", 1), tok("yes", 0.8, alt("no", 0.2)),
		}, 0.8, true},
		{"no yes or no anywhere", []pipeline.TokenLogprob{tok("Maybe", 0.7, alt("Perhaps", 0.2))}, 0, false},
		{"only blank tokens", []pipeline.TokenLogprob{tok(" ", 1), tok("\n", 1)}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := YesProbability(pipeline.ModelResponse{Text: "ignored", TokenLogprobs: tt.toks})
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("YesProbability = %g, %t; want %g, %t", got, ok, tt.want, tt.wantOK)
			}
			if got < 0 || got > 1 {
				t.Errorf("YesProbability = %g, outside [0, 1]", got)
			}
		})
	}
}

// split turns text into tokens of a few characters, each with probability
// p unless it is in the map.
func split(text string, p float64, special map[string]float64) []pipeline.TokenLogprob {
	var toks []pipeline.TokenLogprob
	for _, field := range strings.SplitAfter(text, " ") {
		for _, part := range strings.SplitAfter(field, "\n") {
			if part == "" {
				continue
			}
			q := p
			if s, ok := special[strings.TrimSpace(part)]; ok {
				q = s
			}
			toks = append(toks, tok(part, q))
		}
	}
	return toks
}

func TestSentenceLikelihood(t *testing.T) {
	answer := "SUPPORT: The council approved it.\nSENTENCE: Dortmund approved the barrier.\nCONFIDENCE: 90"
	// The sentence's tokens are "Dortmund ", "approved ", "the ", "barrier.\n"
	// with probabilities 0.5, 0.8, 0.9, 0.6; everything else is 0.99.
	special := map[string]float64{"Dortmund": 0.5, "approved": 0.8, "the": 0.9, "barrier.": 0.6, "SENTENCE:": 0.01}
	toks := split(answer, 0.99, special)
	// "approved" and "the" also occur in the SUPPORT line; they must not count.
	wantGeo := math.Pow(0.5*0.8*0.9*0.6, 1.0/4)

	tests := []struct {
		name   string
		toks   []pipeline.TokenLogprob
		want   float64
		wantOK bool
	}{
		{"sentence line", toks, wantGeo, true},
		{"no logprobs", nil, 0, false},
		{"NONE answer", split("NONE", 0.9, nil), 0, false},
		{"value on the next line", split("**Sentence:**\nDortmund approved the barrier.\n\nConfidence: 90", 0.99, special), wantGeo, true},
		{"sentence mentioned in thinking only counts after it", append(split("<think>SENTENCE: x y</think>\n", 0.1, nil),
			split("SENTENCE: Dortmund approved the barrier.", 0.99, special)...), wantGeo, true},
		{"empty sentence", split("SUPPORT: a\nSENTENCE:\n\nCONFIDENCE: 5", 0.9, nil), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SentenceLikelihood(pipeline.ModelResponse{TokenLogprobs: tt.toks})
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("SentenceLikelihood = %g, %t; want %g, %t", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestSentenceLikelihoodTokensAcrossTheLabel(t *testing.T) {
	// A token that straddles the label and the value counts; the label's
	// own tokens do not.
	toks := []pipeline.TokenLogprob{
		tok("SENT", 0.01), tok("ENCE", 0.01), tok(": Dort", 0.5), tok("mund", 0.5), tok(" won", 0.5), tok(".", 0.5),
	}
	got, ok := SentenceLikelihood(pipeline.ModelResponse{TokenLogprobs: toks})
	if !ok || math.Abs(got-0.5) > 1e-9 {
		t.Errorf("SentenceLikelihood = %g, %t; want 0.5, true", got, ok)
	}
}
