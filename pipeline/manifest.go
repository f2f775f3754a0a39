package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Run manifests (docs/formats.md, "How this was made"): everything a
// report's text depends on besides its request, recorded with the job
// that made it, kept by each of its versions and written into every
// export. Two runs of one request with equal manifests over a warm model
// cache give the same report. Nothing that changes from run to run
// without changing the report (times, the job's id, usage) is in it, and
// no secret (an endpoint's key, its URL's user and password) ever is.

// ManifestVersion is the version of the manifest's layout. It changes
// when a field changes meaning, not when one is added.
const ManifestVersion = 1

// Manifest records how a report was made.
type Manifest struct {
	ManifestVersion int `json:"manifest_version"`
	// Corpus identifies the collection the run read.
	Corpus CorpusFacts `json:"corpus"`
	// Index is the search index's format and scoring parameters.
	Index IndexFacts `json:"index"`
	// Engine is what answered the model tasks.
	Engine EngineFacts `json:"engine"`
	// Prompts are the prompt templates the run could send, by task, in
	// the pipeline's order (the reranker's last).
	Prompts []PromptTemplate `json:"prompts"`
	// Pipeline is the report pipeline's version (crucible.Version).
	Pipeline string `json:"pipeline_version"`
	// Settings are every setting of the run (Settings) by the names the
	// form and docs/pipeline.md use, the rules the engine's defaults
	// filled in included; the ranker and reranker are below.
	Settings RunSettings `json:"settings"`
	// Ranker is the id of the trained nugget ranker that ranked the
	// nuggets (0: DefaultWeights); Reranker the method that reranked the
	// retrieved documents ("": none).
	Ranker   int64  `json:"ranker"`
	Reranker string `json:"reranker"`
	// Software is the build that ran.
	Software Software `json:"software"`
	// EditedByHand is set on the manifest of a report version changed in
	// the portal after it was made: the text is no longer only the run's.
	EditedByHand bool `json:"edited_by_hand,omitempty"`
}

// CorpusFacts identify a collection: a fingerprint over its documents'
// ids and content hashes (CorpusHasher), and its sizes.
type CorpusFacts struct {
	Fingerprint string `json:"fingerprint"`
	Documents   int    `json:"documents"`
	Passages    int    `json:"passages"`
}

// IndexFacts are the search index's format version and BM25 parameters.
type IndexFacts struct {
	Format          string  `json:"format"`
	K1              float64 `json:"bm25_k1"`
	B               float64 `json:"bm25_b"`
	TitleInPassages bool    `json:"title_in_passages"`
}

// EngineFacts describe the engine that answered the model tasks. They
// never hold an API key: an endpoint is named by its host alone.
type EngineFacts struct {
	// ID is "offline" or "openai"; Label names it in the portal (the
	// model name, or "offline engine").
	ID      string `json:"id"`
	Label   string `json:"label"`
	Offline bool   `json:"offline"`
	// OfflineVersion is the offline engine's version (offline.Version),
	// set for the offline engine.
	OfflineVersion string `json:"offline_version,omitempty"`
	// Model and EndpointHost name the model and the host (and port) of
	// the OpenAI-compatible endpoint; EmbeddingModel the embedding model
	// at it, when one is used.
	Model          string `json:"model,omitempty"`
	EndpointHost   string `json:"endpoint_host,omitempty"`
	EmbeddingModel string `json:"embedding_model,omitempty"`
	// Temperature is the sampling temperature every prompt of the run
	// asks for (PromptTemplate gives each one's); nil for the offline
	// engine, which does not sample, or when the prompts differ.
	Temperature *float64 `json:"temperature,omitempty"`
	// Calls are the client's call parameters, for a model endpoint.
	Calls *CallParams `json:"calls,omitempty"`
}

// CallParams are an OpenAI-compatible client's parameters.
type CallParams struct {
	// Timeout bounds one attempt ("1m0s"); MaxRetries and MaxConcurrent
	// are the retries of a failed call and the calls in flight at most.
	Timeout       string `json:"timeout"`
	MaxRetries    int    `json:"max_retries"`
	MaxConcurrent int    `json:"max_concurrent"`
	// ReasoningModel is set for the models that take no temperature and
	// give no log-probabilities (o1, o3, gpt-5...): neither is sent.
	ReasoningModel bool `json:"reasoning_model,omitempty"`
}

// PromptTemplate identifies one task's prompt: a hash of the request its
// builder makes from a fixed specimen input (TemplateOf), so any change
// to the prompt's wording or format changes it, and the call parameters
// the task asks for.
type PromptTemplate struct {
	Task        string  `json:"task"`
	Hash        string  `json:"hash"`
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
	Logprobs    bool    `json:"logprobs"`
}

// Software names the build: the main module's path and version, its VCS
// revision and whether the working tree was modified (when the build
// recorded them), and the Go version.
type Software struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// RunSettings are a run's settings by name: each value a json.Number, a
// bool or a string, so a manifest reads back exactly as it was written.
type RunSettings map[string]any

// UnmarshalJSON reads numbers as json.Number, as SettingsOf writes them.
func (s *RunSettings) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	*s = m
	return nil
}

// SettingsOf lists every setting of s but the ranker and the reranker
// (Manifest names them apart) by its snake_case name ("ideation_docs"),
// numbers as json.Number; a rule left to the engine (nil) is left out.
func SettingsOf(s Settings) RunSettings {
	out := RunSettings{}
	v := reflect.ValueOf(s)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "Ranker" || f.Name == "Reranker" {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		name := snakeCase(f.Name)
		switch fv.Kind() {
		case reflect.Bool:
			out[name] = fv.Bool()
		case reflect.Int, reflect.Int64:
			out[name] = json.Number(strconv.FormatInt(fv.Int(), 10))
		case reflect.Float64:
			out[name] = json.Number(strconv.FormatFloat(fv.Float(), 'g', -1, 64))
		case reflect.String:
			out[name] = fv.String()
		default:
			out[name] = fmt.Sprint(fv.Interface())
		}
	}
	return out
}

// snakeCase turns a Go field name into the settings' names:
// "IdeationDocs" is "ideation_docs".
func snakeCase(name string) string {
	var b strings.Builder
	for i, c := range name {
		if unicode.IsUpper(c) {
			if i > 0 {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// TemplateOf identifies the prompt of req: 16 hex digits of a SHA-256
// over its task, its messages (role and content) and its call parameters,
// which it also records.
func TemplateOf(req ModelRequest) PromptTemplate {
	h := sha256.New()
	part := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	part(string(req.Task))
	for _, m := range req.Messages {
		part(m.Role)
		part(m.Content)
	}
	part(strconv.Itoa(req.MaxTokens))
	part(strconv.FormatFloat(req.Temperature, 'g', -1, 64))
	part(strconv.FormatBool(req.Logprobs))
	return PromptTemplate{Task: string(req.Task), Hash: hex.EncodeToString(h.Sum(nil))[:16],
		MaxTokens: req.MaxTokens, Temperature: req.Temperature, Logprobs: req.Logprobs}
}

// SoftwareFacts reads the running build's module version and VCS
// revision (runtime/debug.ReadBuildInfo). A build without that
// information (go test, -buildvcs=false) names the module's version
// "(devel)" and no revision.
func SoftwareFacts() Software {
	s := Software{Module: "github.com/crucible-portal/crucible", Version: "(devel)", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	if bi.Main.Path != "" {
		s.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		s.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		s.GoVersion = bi.GoVersion
	}
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s.Revision = kv.Value
		case "vcs.modified":
			s.Modified = kv.Value == "true"
		}
	}
	return s
}

// DocumentContentHash is the hash of what a document holds that a report
// can depend on: its title, text and metadata (author and date attribute
// sentences), 64 hex digits of a SHA-256. Its id and source file are not
// content: the same text ingested from another file hashes the same.
func DocumentContentHash(d Document) string {
	h := sha256.New()
	part := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	part(d.Title)
	part(d.Text)
	keys := make([]string, 0, len(d.Metadata))
	for k := range d.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		part(k)
		part(d.Metadata[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CorpusHasher computes a collection's fingerprint from its documents'
// ids and content hashes (DocumentContentHash), given in id order: the
// same documents with the same contents give the same fingerprint, any
// added, removed or changed document another. The zero value is ready.
type CorpusHasher struct {
	h    hash.Hash
	docs int
}

// Add adds one document; ids must come in ascending byte order.
func (c *CorpusHasher) Add(id, contentHash string) {
	if c.h == nil {
		c.h = sha256.New()
	}
	c.h.Write([]byte(strconv.Itoa(len(id))))
	c.h.Write([]byte{':'})
	c.h.Write([]byte(id))
	c.h.Write([]byte(contentHash))
	c.docs++
}

// Facts returns the fingerprint, 64 hex digits, with the document count
// and the passage count given.
func (c *CorpusHasher) Facts(passages int) CorpusFacts {
	if c.h == nil {
		c.h = sha256.New()
	}
	return CorpusFacts{Fingerprint: hex.EncodeToString(c.h.Sum(nil)), Documents: c.docs, Passages: passages}
}

// Clone returns a deep copy of the manifest.
func (m Manifest) Clone() Manifest {
	m.Prompts = append([]PromptTemplate(nil), m.Prompts...)
	if m.Settings != nil {
		s := make(RunSettings, len(m.Settings))
		for k, v := range m.Settings {
			s[k] = v
		}
		m.Settings = s
	}
	if m.Engine.Temperature != nil {
		t := *m.Engine.Temperature
		m.Engine.Temperature = &t
	}
	if m.Engine.Calls != nil {
		c := *m.Engine.Calls
		m.Engine.Calls = &c
	}
	return m
}

// Hash identifies the manifest: 16 hex digits of a SHA-256 over its JSON.
// Equal manifests have equal hashes; a version edited by hand has
// another than its job's.
func (m Manifest) Hash() string {
	b, err := json.Marshal(m)
	if err != nil {
		// Not reached: every field encodes.
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// ManifestField is one line of a manifest in words, for pages, Markdown
// and comparisons: Group ("Corpus", "Settings"...), Name and Value.
type ManifestField struct {
	Group, Name, Value string
}

// Key names the field within a manifest: "Settings / retrieve".
func (f ManifestField) Key() string { return f.Group + " / " + f.Name }

// Fields lists the manifest's facts in a fixed order: corpus, index,
// engine, prompts, pipeline, settings (by name), ranking, software and
// edits. Values read as they are written in JSON; absent optional facts
// are left out.
func (m Manifest) Fields() []ManifestField {
	var out []ManifestField
	add := func(group, name, value string) {
		out = append(out, ManifestField{Group: group, Name: name, Value: value})
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	add("Corpus", "fingerprint", m.Corpus.Fingerprint)
	add("Corpus", "documents", strconv.Itoa(m.Corpus.Documents))
	add("Corpus", "passages", strconv.Itoa(m.Corpus.Passages))
	add("Index", "format", m.Index.Format)
	add("Index", "bm25_k1", num(m.Index.K1))
	add("Index", "bm25_b", num(m.Index.B))
	add("Index", "title_in_passages", strconv.FormatBool(m.Index.TitleInPassages))
	e := m.Engine
	add("Engine", "id", e.ID)
	add("Engine", "label", e.Label)
	add("Engine", "offline", strconv.FormatBool(e.Offline))
	opt := func(name, v string) {
		if v != "" {
			add("Engine", name, v)
		}
	}
	opt("offline_version", e.OfflineVersion)
	opt("model", e.Model)
	opt("endpoint_host", e.EndpointHost)
	opt("embedding_model", e.EmbeddingModel)
	if e.Temperature != nil {
		add("Engine", "temperature", num(*e.Temperature))
	}
	if c := e.Calls; c != nil {
		add("Engine", "timeout", c.Timeout)
		add("Engine", "max_retries", strconv.Itoa(c.MaxRetries))
		add("Engine", "max_concurrent", strconv.Itoa(c.MaxConcurrent))
		if c.ReasoningModel {
			add("Engine", "reasoning_model", "true")
		}
	}
	for _, p := range m.Prompts {
		v := fmt.Sprintf("%s (max_tokens %d, temperature %s", p.Hash, p.MaxTokens, num(p.Temperature))
		if p.Logprobs {
			v += ", logprobs"
		}
		add("Prompts", p.Task, v+")")
	}
	add("Pipeline", "version", m.Pipeline)
	names := make([]string, 0, len(m.Settings))
	for k := range m.Settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		add("Settings", k, fmt.Sprint(m.Settings[k]))
	}
	ranker := "default weights"
	if m.Ranker != 0 {
		ranker = "trained ranker " + strconv.FormatInt(m.Ranker, 10)
	}
	add("Ranking", "ranker", ranker)
	reranker := "none"
	if m.Reranker != "" {
		reranker = m.Reranker
	}
	add("Ranking", "reranker", reranker)
	s := m.Software
	add("Software", "module", s.Module)
	add("Software", "version", s.Version)
	rev := s.Revision
	if rev == "" {
		rev = "not recorded"
	} else if s.Modified {
		rev += " (modified)"
	}
	add("Software", "revision", rev)
	add("Software", "go_version", s.GoVersion)
	if m.EditedByHand {
		add("Edits", "edited_by_hand", "true")
	}
	return out
}

// ForVersion is the manifest of a report version made from a run with
// manifest m: the run's, marked edited by hand unless the version is the
// generated text (version 1, or a restore of it). nil stays nil.
func ForVersion(m *Manifest, v VersionInfo) *Manifest {
	if m == nil {
		return nil
	}
	out := m.Clone()
	out.EditedByHand = v.Number > 1 && v.RestoredFrom != 1
	return &out
}

// ManifestStore keeps the manifests of jobs. The SQLite store implements
// it; the job runner records a job's manifest when its run starts, and
// SaveReport records it again with the report.
type ManifestStore interface {
	// SaveManifest records the manifest of a job.
	SaveManifest(ctx context.Context, jobID int64, m Manifest) error
	// JobManifest returns a job's manifest, or ErrNotFound when the job
	// has none (it has not started, or ran before manifests were kept).
	JobManifest(ctx context.Context, jobID int64) (Manifest, error)
}

// Apply returns the report as of the version: the draft's sentences and
// nuggets (Draft.Apply) and the manifest ForVersion gives.
func (v Version) Apply(r Report) Report {
	r = v.Draft.Apply(r)
	r.Manifest = ForVersion(r.Manifest, v.VersionInfo)
	return r
}
