package crucible

import (
	"context"
	"fmt"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// Version is the report pipeline's version, recorded in every run's
// manifest (pipeline.Manifest.Pipeline). It changes whenever a change to
// the stages makes a report differ for the same request, settings,
// corpus and model answers; the offline engine's answers have their own
// version (offline.Version), the prompts their hashes. v2 (session 11):
// a candidate is assembled only when its cited text speaks of the
// subject with a second word of the request beside an anchor. v3: and
// cites one of the request's 100 best passages. v5 (session 18): the
// names of the speakers of those passages are no part of the subject.
// v6 (session 20): a candidate whose cited text speaks of what the
// problem statement says to leave out is not assembled (subject.leavesOut).
// v7 (session 21): the choice weighs a document's later sentences down
// (sameDocumentFactor). v8 (session 22): a range of the collection's
// authors ("from Kennedy to Obama") names a period (requestPeriods). v9
// (session 23): an author whose surname no other author of the
// collection shares is attributed by surname ("In 1862, Lincoln
// reported ..."; attributedAuthor). v10: the general part of a
// compound the title writes ("relief" of "drought relief") is no strong
// anchor (dependentTerms). v11: with the rules choose sentences and fill
// report both on, the fill's sentences are drawn before assembly and
// compete in the choice (drawFill). v12 (session 25): a pair of words
// the request leaves out may hold one word of what it asks
// (subject.leavesOut), a title asked as a question sets its period, and
// the choice multiplies by the on-topic estimate itself and divides by
// the length to the power 0.75 (choiceScore). v13 (session 26): the
// subject is read from what the request asks, not from the clauses that
// say what to leave aside (newSubject). v14 (session 27): "other than"
// and "apart from" say what to leave aside too (pipeline.SplitExclusions).
// v15: so do a title's (Request.AskedTitle). v16 (session 29): a report
// sentence must itself name the subject, not only its cited text
// (run.namesSubject). v17 (session 30): the choice weighs the figures a
// sentence states (ChoiceFeatures' "figures") and its model is refitted
// on the 55 used sets (choiceWeights). v18 (session 33): a pair of
// common words the request writes together is a phrase of its subject
// when few passages hold both and its best passages write it
// (subject.commonPhrases: "public works"). v19 (session 34): the fill
// tries first the sentences holding the request's rare words (its terms
// weighed by inverse document frequency, run.queryWeights) and asks for
// the sentence tried as a claim when the nugget drawn from it finds no
// sentence on the subject (run.fillOne), and a pair
// the request asks lets a text naming what it leaves out through only
// when few passages hold both its words (subject.specificAskedPairs: not
// "United States"); a request that says another report covers something
// leaves it out (pipeline.SplitExclusions). v20 (session 36): the
// choice weighs the words a sentence shares with one of the request's
// facets (ChoiceFeatures' "facet_words"). v21 (session 37): a facet
// that names its speakers ("the help Clinton sought") draws its passages
// from their documents and holds no other author's sentence, in
// grouping, the facets' turns, the facet words and the fill's claim
// nuggets (pipeline.SpeakersNamed). v22 (session 37): a facet's "he" or
// "his" names the one speaker the request names (pipeline.ResolveSpeaker).
// v23 (session 38): a name the title writes ("Mexico") anchors the
// subject at a lift of two (titleAnchorMinLift), and a speaker's name
// after another capitalised word ("with Mexico Coolidge reported") is
// read (pipeline.SpeakersNamed). v24 (session 38): so is a name before
// an auxiliary verb ("the city where George W. Bush would host"). v25
// (session 39): a candidate off the request's subject no longer counts
// towards a nugget's early stop in the scan (mayAssemble). v26 (session
// 42): a fill's claim nugget on a title that opens with a question of its
// own asks about the title's other part (titleTopic). v27 (session 43):
// a place the title names only by its adjective ("The Korean War") is
// named by its name in the retrieval query and the subject
// (pipeline.Request.TitlePlaces). v28 (session 43): the subject reads
// the title without a clause that dates it by an event ("after the Cold
// War"; pipeline.WithoutEventTime). v29 (session 47): a run notes
// among its problems, which are now stored and shown with the report,
// that fewer than a tenth of the request's best passages speak of its
// subject (run.noteNarrowSubject); the sentences are the same. v30
// (session 47): in a request that names several speakers, a facet's
// "he" or "his" names the speaker written last before the facet in its
// sentence (pipeline.ResolveSpeaker), so the facet holds his documents.
// v31 (session 47): a facet whose description opens with "His" names
// the speaker in its heading and description (pipeline.ResolveSpeaker).
// v32 (session 48): a heading's "they" before a verb of saying names the
// speakers the request's sentence gives it ("Research budgets Presidents
// proposed"; pipeline.ResolveThey), once the sentences are grouped
// (pipeline.RenameFacets), so the sentences are the same.
// v33 (session 49): more verbs read so ("How they justified taxing
// tobacco" → "How Presidents justified taxing tobacco": justified,
// explained, defended, argued, opposed, vetoed and the like).
// v34 (session 50): where the request's sentence names no speakers by a
// capitalised plural, the documents it says something of stand for the
// heading's "they" ("Which failures the messages reported";
// pipeline.sourcesSubject).
// v35 (session 51): a pair of terms the title writes ("slave trade")
// no longer shields a text from what the request leaves aside (subject
// leavesOut): it names the whole subject, of which what is left aside
// is a part.
// v36 (session 51): the choice weighs a document nugget's candidate by
// 0.86 (documentNuggetTopic): a reader finds such sentences less often
// on topic than the lists say, against the facet nuggets' and the fill's.
// v37 (session 52): the choice's on-topic estimate is refitted on
// candidates a reader judged (topicality: the title's lifts, the
// subject's anchors, the facet's words, the passage's rank and the
// nugget's kind); the document nuggets' 0.86 is one of its features.
// v38 (session 53): a claim nugget's question is about the request's
// title, not a facet heading holding a pronoun with nothing in it to
// stand for ("What did Obama say in 2015 on “Measures they took”?").
// v39 was a leave-aside experiment, measured and not kept (docs/pipeline.md).
// v40 (session 53): a claim nugget's question quotes its facet by the
// description its heading shortens ("The city in which one of the three
// loans of 1792 was made", not "City") when that reads alone.
const Version = "crucible-pipeline-v40"

// ManifestObserver is an optional Observer extension that receives the
// run's manifest when the run starts, before any stage: the job then
// records how it is being made even if it fails. The report carries the
// final manifest (pipeline.Report.Manifest), with what the run settled
// for itself (the calibrated threshold).
type ManifestObserver interface {
	Manifest(ctx context.Context, m pipeline.Manifest) error
}

// manifest is the run's manifest as it starts: the engine's provenance
// (corpus, index, engine, software: Engine.Provenance) and the run's own
// parts (the pipeline's version, the prompts it may send, its settings,
// the trained ranker and the reranker).
func (r *run) manifest(ctx context.Context) (pipeline.Manifest, error) {
	var m pipeline.Manifest
	if r.e.Provenance != nil {
		p, err := r.e.Provenance(ctx)
		if err != nil {
			return m, fmt.Errorf("read the run's provenance: %w", err)
		}
		m = p.Clone()
	} else {
		m.Software = pipeline.SoftwareFacts()
	}
	if m.Engine.Label == "" {
		m.Engine.Label = r.e.Name
	}
	m.ManifestVersion = pipeline.ManifestVersion
	m.Pipeline = Version
	tasks := []pipeline.Task{prompts.TaskSummarize, prompts.TaskNuggets, prompts.TaskParaphrase,
		prompts.TaskNuggetQuality, prompts.TaskExtract}
	if r.s.Verify {
		tasks = append(tasks, prompts.TaskVerifySupport, prompts.TaskVerifyCoverage)
	}
	tasks = append(tasks, prompts.TaskFacets)
	m.Prompts = append(prompts.Templates(tasks...), rerank.Templates(r.s.Reranker)...)
	m.Engine.Temperature = nil
	if !m.Engine.Offline && len(m.Prompts) > 0 {
		t := m.Prompts[0].Temperature
		same := true
		for _, p := range m.Prompts {
			same = same && p.Temperature == t
		}
		if same {
			m.Engine.Temperature = &t
		}
	}
	r.settle(&m, r.s)
	return m, nil
}

// settle records the settings s in the manifest: all of them by name, the
// ranker and the reranker.
func (r *run) settle(m *pipeline.Manifest, s pipeline.Settings) {
	m.Settings = pipeline.SettingsOf(s)
	m.Ranker, m.Reranker = s.Ranker, s.Reranker
}
