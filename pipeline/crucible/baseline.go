package crucible

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crucible-portal/crucible/pipeline"
)

// leadPassages is how many top BM25 passages the lead baseline reads.
const leadPassages = 50

// Lead is the naive extractive baseline reports are compared with: the
// sentences of the top BM25 passages for the request, most query-like
// first (share of the query's terms a sentence contains, ties by passage
// rank), de-duplicated, one citation each, until the length limit. It
// uses no model. Sentences splits text into sentence spans.
func (e *Engine) Lead(ctx context.Context, req pipeline.Request, sentences func(string) []pipeline.Span) (pipeline.Report, error) {
	if err := req.Validate(); err != nil {
		return pipeline.Report{}, err
	}
	q := req.Query()
	if utf8.RuneCountInString(q) > pipeline.MaxQueryChars {
		q = string([]rune(q)[:pipeline.MaxQueryChars])
	}
	res, err := e.Searcher.Search(ctx, pipeline.SearchRequest{Query: q, K: leadPassages})
	if err != nil {
		return pipeline.Report{}, err
	}
	if len(res.Hits) == 0 {
		return pipeline.Report{}, fmt.Errorf("no passage matches the request: %w", pipeline.ErrNotFound)
	}
	query := map[string]bool{}
	for _, t := range e.Terms(q) {
		query[t] = true
	}
	type cand struct {
		text  string
		cit   pipeline.Citation
		score float64
		order int
	}
	var cands []cand
	for rank, h := range res.Hits {
		for _, sp := range sentences(h.Text) {
			text := strings.TrimSpace(h.Text[sp.Start:sp.End])
			terms := e.Terms(text)
			if len(terms) == 0 {
				continue
			}
			hit := map[string]bool{}
			for _, t := range terms {
				if query[t] {
					hit[t] = true
				}
			}
			if len(hit) == 0 {
				continue
			}
			cands = append(cands, cand{
				text:  text,
				cit:   pipeline.Citation{DocID: h.DocID, Ordinal: h.Ordinal, Start: h.Start + sp.Start, End: h.Start + sp.End},
				score: float64(len(hit)) / float64(len(query)),
				order: rank,
			})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var out []pipeline.Sentence
	seen := map[string]bool{}
	length := 0
	for _, c := range cands {
		k := e.SentenceKey(c.text)
		if k == "" || seen[k] {
			continue
		}
		add := utf8.RuneCountInString(c.text)
		if length > 0 {
			add++
		}
		if length+add > req.Limit {
			continue
		}
		seen[k] = true
		length += add
		out = append(out, pipeline.Sentence{Text: c.text, Citation: c.cit, Confidence: c.score})
	}
	rep := pipeline.Report{Request: req, RunID: "lead-baseline", Engine: "lead baseline (no model)", Sentences: out}
	m, err := e.leadManifest(ctx, rep.Engine)
	if err != nil {
		return pipeline.Report{}, err
	}
	rep.Manifest = &m
	return rep, nil
}

// LeadVersion is the lead baseline's version in its manifests.
const LeadVersion = "lead-baseline-v1"

// leadManifest is the lead baseline's run manifest: the engine's
// provenance (corpus, index, software), no model, no prompts and no
// settings but the passages it reads.
func (e *Engine) leadManifest(ctx context.Context, label string) (pipeline.Manifest, error) {
	var m pipeline.Manifest
	if e.Provenance != nil {
		p, err := e.Provenance(ctx)
		if err != nil {
			return m, fmt.Errorf("read the run's provenance: %w", err)
		}
		m = p.Clone()
	} else {
		m.Software = pipeline.SoftwareFacts()
	}
	m.ManifestVersion, m.Pipeline = pipeline.ManifestVersion, LeadVersion
	m.Engine = pipeline.EngineFacts{ID: "lead", Label: label, Offline: true}
	m.Settings = pipeline.RunSettings{"lead_passages": json.Number(strconv.Itoa(leadPassages))}
	return m, nil
}
