package export

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/crucible-portal/crucible/pipeline"
)

// BankNugget is a nugget of a report's bank as the nugget bank JSON
// writes it.
type BankNugget struct {
	ID       string             `json:"id"`
	Rank     int                `json:"rank"`
	Question string             `json:"question"`
	Answer   string             `json:"answer"`
	Pinned   bool               `json:"pinned,omitempty"`
	Changed  bool               `json:"changed,omitempty"`
	Sources  []string           `json:"sources"`
	Features map[string]float64 `json:"features,omitempty"`
	Quality  float64            `json:"quality"`
	// Popularity is the paraphrase count (1 + nuggets merged into it).
	Popularity int `json:"popularity"`
	// Sentences are the 1-based numbers of the report's sentences that
	// answer the nugget.
	Sentences []int `json:"sentences"`
}

// NuggetBank is a report's nugget bank as written to nuggets.json.
type NuggetBank struct {
	RequestID string       `json:"request_id"`
	Version   int          `json:"version"`
	Nuggets   []BankNugget `json:"nuggets"`
}

// NuggetBankJSON encodes the bank of a report version, in rank order, as
// indented JSON with a final newline.
func NuggetBankJSON(requestID string, v pipeline.Version) ([]byte, error) {
	bank := NuggetBank{RequestID: requestID, Version: v.Number, Nuggets: make([]BankNugget, 0, len(v.Nuggets))}
	answers := map[string][]int{}
	for i, s := range v.Sentences {
		answers[s.NuggetID] = append(answers[s.NuggetID], i+1)
	}
	for i, n := range v.Nuggets {
		sentences := answers[n.ID]
		if sentences == nil {
			sentences = []int{}
		}
		sources := n.Sources
		if sources == nil {
			sources = []string{}
		}
		bank.Nuggets = append(bank.Nuggets, BankNugget{
			ID: n.ID, Rank: i + 1, Question: n.Question, Answer: n.Answer, Pinned: n.Pinned, Changed: n.Changed,
			Sources: sources, Features: n.Features, Quality: n.QualityScore, Popularity: n.Popularity, Sentences: sentences,
		})
	}
	b, err := json.MarshalIndent(bank, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the nugget bank of %q: %w", requestID, err)
	}
	return append(b, '\n'), nil
}

// File is one file of an archive.
type File struct {
	Name string
	Body []byte
}

// Zip writes the files as a zip archive, each compressed and stamped with
// modified. Names must be unique relative paths with forward slashes.
func Zip(w io.Writer, modified time.Time, files []File) error {
	zw := zip.NewWriter(w)
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Name] {
			return fmt.Errorf("zip: %s is in the archive twice", f.Name)
		}
		seen[f.Name] = true
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return fmt.Errorf("zip: add %s: %w", f.Name, err)
		}
		if _, err := fw.Write(f.Body); err != nil {
			return fmt.Errorf("zip: write %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("zip: finish: %w", err)
	}
	return nil
}
