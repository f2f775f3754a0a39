package views

import (
	"strings"

	"github.com/crucible-portal/crucible/pipeline"
)

// OfflineEngineLabel is what pages call the offline engine.
const OfflineEngineLabel = "offline engine"

// EngineLabel is how a page names the engine a job or report used.
type EngineLabel struct {
	// Name is the engine's label ("offline engine", a model name).
	Name string
	// Offline is set for the offline engine, whose nuggets and sentences
	// come from lexical methods rather than a language model.
	Offline bool
}

// EngineLabelFor names the engine called name, which may be an engine's id
// (as jobs store it) or its label (as reports store it), using the engines
// the portal knows. An engine it does not know keeps its name and counts as
// offline when the name says "offline".
func EngineLabelFor(engines []pipeline.EngineInfo, name string) EngineLabel {
	for _, e := range engines {
		if name != "" && (name == e.ID || name == e.Label) {
			label := e.Label
			if label == "" {
				label = e.ID
			}
			return EngineLabel{Name: label, Offline: e.Offline}
		}
	}
	return EngineLabel{Name: name, Offline: strings.Contains(strings.ToLower(name), "offline")}
}

// Text is the label shown: the name, with "offline engine" added for the
// offline engine when the name does not already say so.
func (e EngineLabel) Text() string {
	name := e.Name
	if name == "" {
		name = "unknown engine"
	}
	if e.Offline && !strings.Contains(strings.ToLower(name), OfflineEngineLabel) {
		return name + " (" + OfflineEngineLabel + ")"
	}
	return name
}
