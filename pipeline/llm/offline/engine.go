package offline

import (
	"context"
	"math"
	"strings"
	"unicode"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/pipeline/prompts"
	"github.com/crucible-portal/crucible/pipeline/rerank"
)

// Version names the engine in ModelResponse.Model and in the answer cache's
// namespace. Change it whenever a method changes its answers, so cached
// answers of the old methods are not replayed as the new ones'.
const Version = "offline-v82" // v82: a sentence opened by an "It" that points ahead ("It is estimated that ...") still refers back when a demonstrative with a noun follows in its first words ("... the receipts derived from this source"); v81: a template question asks "regarding" what a facet heading says its facet is about ("federal taxes" of "On federal taxes", not "the on federal taxes"), and not regarding a heading that opens with no noun: a preposition or "such" ("Under Taft", "In which field ...") or participles standing alone ("Conveyed and still due"); v80: a template question names no phrase a reader of the question alone cannot place (vaguePhrase): one ending on "the" and a noun that points back ("the stipulations of the treaty", "the monumental work of the Committee"), a possessive of such a noun ("the alliance's origins"), "the current rate" or "the third election", a stretch of time ("the coming weeks"), a relative clause cut after its participle ("the reforms requested", "the troops sent and needed"), a person ("President Clinton", "the First Lady") or a noun of a fixed phrase ("behalf of the United States"); it asks no count of times ("How many times are given for ...?") and no count whose unit opens on a number word ("How many forty-one projects ...?"); a phrase the request itself speaks of ("the tariff" of a report on a tariff) is no vague reference; v79: a template question does not ask "regarding" a facet heading that holds a pronoun with nothing in it to stand for ("the amounts he asked for", "the treaty made with it"; pipeline.DanglingPronoun), which a reader of the question alone could not follow; v78: a template question names a noun phrase with a head, not a quantity word alone ("for the sum", "for the total") nor an adjective or number word that wants its noun ("for an additional", "for the next", "for the wealthiest"); a long facet heading cut inside a relative clause after its verb, before the verb's object ("Conflict for which Roosevelt wanted" the Neutrality Act amended, "Dates from which the Porte refused" to recognize naturalization), is written in headline style when that fits, else backed off to an earlier cut point; v77: a hyphen that runs a word into "a", "the", "and", "as", "including", "was" and the like, the word ending there, is a dash written as a hyphen ("the Higher Education Act-including proposals", "in 1961-and individuals"; compounds such as "bread-and-butter" and "state-of-the-art" stay whole), so no template question asks "for the soil bank-are working"; a template question's phrase that ends on a word "and" joins to the plural head both share takes that head in ("the conduct of the Diplomatic and Consular Services", not "... of the Diplomatic"); v76: an item of a list written as sentences opened by dashes ("I propose: -New powers for ... -A major study of automobile insurance.") is quoted, not reported "that", when it has no verb of its own, and proposed when the list's lead proposes; "Thus far" opens no link to drop ("Far only about 13 billion dollars ..."); "that" or "those" opening the main clause after a leading phrase or clause ("Because when credit is available again, that young family can ...") refers back, as does a pronoun after a phrase of time ("Last May, he commanded ...") and "that same" ("that same freshman"); a word in -s between a bare noun and an article is a verb, which ends no template question's phrase ("History records the power ..." asks about "the power of the ideas", not "History records"); a capitalised opening word written again only inside a longer name ("Solar energy ... Solar Energy and Energy Conservation Bank") is no name, so the sentence is quoted rather than reported "that Solar energy ..."; v75: a facet's description drops the frame its heading drops ("What the annual messages from John Quincy Adams to Fillmore said about the duties ..." → "The duties ..."), so that the speakers and "messages" of the frame do not match the facet to every sentence; v74: the speaker's "we need" is a proposal only where "we" opens a clause ("the measures we need to take" is none); others "asking" or "urging" after their "be" ("The people of Porto Rico are not asking for charity") propose nothing of the speaker's; "let us" after a comma is a call of its own; a list of names that is the subject of a relative clause ("the duties that Great Britain, France and the German states laid on ...") stays in one facet, written in headline style without its "that"; a facet heading does not end on a participle that wants its preposition ("connected", "related", "meant", "designed") nor on an infinitive that wants one ("to deal" with ...); v73: a sentence that opens by saying the time has come to act ("The time has come to ...", "It's time to ...", "Now is the time to ...") and the speaker's "we need" are proposals; v72: "In addition thereto" is an opener dropped whole (not "In addition" with "thereto" left to open the sentence), a sentence opened by "Pursuant thereto", "Prior thereto" and the like refers back, and the speaker's "I advocate" or "we favor" is his proposal; v71: "they" or "them" before anything in the sentence it could stand for ("The most important of them is ...", "In this message I will not enumerate them") refers back, as does "It would have" with an object ("It would have a singular purpose: to ..."); a clause cut from a sentence that ends inside its quotation marks gets no second full stop; a facet heading does not end on a participle that wants its preposition ("... claims of foreigners arising"); a "should" in a clause of time ("until the Congress should enact ...", "authorized, when he should receive ...") proposes nothing; the speaker joined to a word by a dash written as a hyphen ("Berlin-our stand", "Russia-we're pursuing") or after a lower-case "war" ("the war I am constrained to") is the speaker, so the sentence is quoted, not reported "that ... our stand"; v70: a template question's phrase taken from a sentence's start takes the case the summary gives its words inside a sentence ("for fortification works", not "for Fortification works"; a name such as "Organization of American States" keeps its capital); v69: a nugget question reads as written: a template's phrase that would end inside a name ends before it ("the value of the grain crop", not "... of the United"), one made only of words of time ("the past year", "Madam Speaker") names nothing and another phrase is asked about, and a sentence's capitalised first word moved inside a question is lower-cased when it has the ending of an abstract noun or an adverb and the summary never capitalises it inside a sentence ("Where is legislation desirable ...?", "What is closely related to ...?"); v68: a count is of the plural its modifier leads to ("1,000 new Border Patrol agents", "ten small war steamers", "250 toxic waste sites"), and a modifier with no plural after it ("four new", "ten small") is no unit, so no answer is a number and an adjective; v67: a sentence opened by a command to its hearers ("Send me a bill ...", "Give them the resources ...", "Make 1980 a year of ...": a verb such as "send", "give" or "extend" capitalised first, then a pronoun, a determiner or a number) is what the speaker proposed, not what he reported, and the "should" of a clause a judgement introduces ("It is discreditable to us as a people that there should be difficulty in convicting murderers") calls for nothing; v66: a unit before its number ("lbs. 37,000", "12 lb. 8 oz.") does not end a sentence (index.Sentences), so a sum in pounds is no sentence of its own; v65: the speaker's "shall" is his future as "will" is ("We shall continue to ...", "I shall promptly submit it"), and a "shall" in a clause of time or condition ("until legislation shall otherwise provide"), a future perfect ("After Congress shall have declared war") and a "should" of an open question ("to decide whether a removal should be made") propose nothing, and "I call on Congress to ..." does; "opinion", "conviction", "hope", "fear", "doubt" and the like are a view only when the speaker holds it ("in my opinion", "I do not doubt", "no doubt"), not "public opinion", "the conviction of a Senator" or "the HOPE scholarship"; a long facet heading may be cut before "without", "among", "across", "beyond", "throughout" and "despite" ("Aim of being able to mobilize rapidly"); a word in -s after a quantifier, "other", a word in -ing or an opening adjective is a plural noun, which takes no verb in -s, not the verb a question is fronted around ("For what does a lifetime ban on becoming lobbyist?" is no longer asked); v64: a pronoun's contraction ("we've", "I'm", "you're") is the speaker as the pronoun is, so such a sentence is quoted, not reported "that ... we've"; v63: a modal with a perfect ("the debt should have been reduced", "ought to have been paid") or in a condition ("In case prizes should be made ...", "if anarchists should ever become ...") makes no proposal of the speaker's; a template question's phrase taken from a sentence's start keeps no capital article ("What year is given for the crime bill?", not "for The crime bill"); v62: a sentence run into the next without a space ("... from our planet.I have also imposed ...", 71 times in the 2017 address) ends there (index.Sentences), so an extracted sentence no longer carries the next ones; v61: a facet asking what the sources said about something ("what Cleveland's annual messages of 1885-1888 said about the Indian population and its reservations") is headed by that something ("Indian population and its reservations"), not by the frame ("What Cleveland's annual messages of 1885-1888 said"); v60: an item of a list of recommendations opened by "That" ("Second. That section 1258 ... be repealed", "7. That provision be made ...") refers to nothing before it and reads as what the speaker proposed ("proposed that section 1258 ... be repealed"); a counted item without a verb of its own ("6. The passage of a joint resolution ...") is quoted, not reported "that"; a counting word ("Second.") leaves a sentence as a list number does; a counted item opened by "Upon" without a verb is no statement alone; v59: a name with no head that is a country ("Mexico"), a government ("Government of Ecuador", "Swiss Government") or a State of the Union ("Texas") is asked by that kind ("Which country is mentioned regarding ...?") where it was "What name"; v58: the kind a question asks of a name with "of" is its word before "of" ("Which court" of "Supreme Court of the United States", not "Which country"; none for "Secretaries of War"); v57: a modal in the terms of a law, treaty or order ("The act ... provides that the militia shall ...", "it was stipulated that ... should"), in another's proposal ("It has been proposed that ... should"), in a condition opened by "Should" or in "must have been" makes no proposal of the speaker's; "bills proposing to grant" tells of another's proposal; a list item of phrases each a sentence ("Fourth. For the limitation to a period of years ...") and a semicolon series' item opened by the preposition of the others are no statements alone; a sentence ending on a demonstrative standing alone ("... say that.") refers back; "Trust" and "claims" named as things ("the Tobacco Trust", "the claims of two citizens") are no opinion or assertion; v56: a request's sentence or last clause that says another report covers what it names ("the Koszta affair and the Vienna exposition are covered elsewhere") asks for no facet; a facet heading cut short of what it says ("How Andrew Johnson and Grant judged") is written in headline style when that fits, or cut at an earlier point; v55: a sentence opened by "By doing so", "In so doing", "Since then", "In response," and the like refers back; a possessive after a leading "if", "when", "since" ... ("Since their founding, the colleges ...") does not; v54: a sentence opened by "I", "We" or "You" that names a third person by a pronoun in its first words ("We honor their contributions") refers back; "The Secretary recommends ..." is another's proposal, reported, not the speaker's; v53: spoken links ("Well,", "Look,", "Too,"), list counters past "Third," and links to an example or a contrast given before go from a sentence's start; a heading run in by a full stop and a dash ("Rural electrification.-It is proposed ...") goes; a clause leading a sentence with a subject said before ("If it fail here", "If that defense fails") refers back, and "those who" does not; v52: an opening "It" followed by "to" before a noun ("It is undoubtedly a protection to the wage earners") or by "for" with no "to" after it refers back, and so does a sentence that ends on "that" with its noun ("help us reach that goal"); v51: a question made from a sentence's clause has at most 16 words besides names (the template asks a longer one), "What number" needs its verb next, a word capitalised only before another capital ("New York") is no name of its own ("new legislation"); "convened" and "advanced" are asked with "convene" and "advance"; a sentence whose subject after an opening phrase is a pronoun of the third person ("For the past 7 months, she has ...", "in the process, it will create") refers back; v50: a question made from a sentence's clause sets the case of the sentence's first word by how the summary writes it ("have negotiations for a treaty been concluded", not "Negotiations"; "Congress" stays), and is not used when its subject was cut ("Will appear from ...?"), when "What" or "Who" has no verb after it ("What having some claim ...?"), when it ends on "the last" or on a form of "be", when a second finite verb follows "did", or when a heading ran into it; "our own armies" asks for "the armies"; v49: a proposal made before ("the Secretary has recommended ...", "the Swiss Government invited ...", "at the request of") is reported as a fact, not attributed as the speaker's proposal, unless the speaker makes it ("I recommended", "It is recommended"); v48: a question made from a sentence's clause that kept a subjunctive "be" as its verb, a number cut from its pair ("the last two or have been"), a second verb in the past after "did" or an article right after its wh-phrase is not used (the template asks instead); v47: a sentence opened by "they're", "he'd", "that of", "the other", "the remainder", "the result", "both" (without its "and"), "then", "in that", "in such" or holding "the foregoing" refers back, and the join goes back past a transcript's mark ("(Applause.)"); a heading in capitals before a sentence opened by "I" or "A" is left out; v46: a clause opened by "whenever", "wherever" or "lest" has no verb of its own (a list is not cut to it); v45: a transcript's stage directions ("[Laughter]", "(Applause.)") and page or footnote numbers leave a quoted sentence; v44: a title's "apart from" leaves out what it names; v43: "other than" and "apart from" leave out what they name; v40: "It" with a verb of its own refers back; "Let us ..." is a proposal; v41: "that" right after a modal's verb is its object's; v42: the request's profile reads what its problem statement asks, not what it leaves aside

// Analyzer is the text analysis the engine works with.
type Analyzer interface {
	// Terms returns the index terms of text in order: lower-cased, stop
	// words removed, stemmed (the index's English analyzer).
	Terms(text string) []string
	// Sentences returns the byte spans of the sentences of text, in order.
	Sentences(text string) []pipeline.Span
}

// CollectionStats is an optional interface an Analyzer may also implement:
// the statistics of the collection the candidates come from, which the
// reranking answers (rerank.go) use for BM25's inverse document frequency
// and average length, as the first stage does. Without them the engine
// falls back on what a prompt shows: the shown documents as the
// collection for the tasks that show several, and the engine's word priors
// (meta and common words) for those that show one.
//
// With collection statistics an answer depends on the collection as well
// as on the request: the same prompt may be answered differently after
// documents are added. The answer cache is keyed by the prompt alone, so
// it replays answers computed with the statistics of the time they were
// first asked for.
type CollectionStats interface {
	// TermStats returns the statistics of terms (index terms, as Terms
	// returns them), with ok false when none are available (an empty or
	// unreadable collection); the engine then answers as without them.
	TermStats(terms []string) (stats TermStats, ok bool)
}

// TermStats are collection statistics for a few terms.
type TermStats struct {
	// Units is the number of units (passages) in the collection, BM25's N.
	Units int
	// AvgLength is the mean number of terms of a unit, BM25's avgdl.
	AvgLength float64
	// DocFreq maps each term asked about to the number of units holding
	// it; a term missing from the map is held by none.
	DocFreq map[string]int
}

// AnalyzerFuncs adapts two functions to Analyzer, for wiring the index
// package's analyzer (a method) and sentence splitter (a function).
type AnalyzerFuncs struct {
	TermsFunc     func(text string) []string
	SentencesFunc func(text string) []pipeline.Span
}

// Terms calls TermsFunc.
func (f AnalyzerFuncs) Terms(text string) []string { return f.TermsFunc(text) }

// Sentences calls SentencesFunc.
func (f AnalyzerFuncs) Sentences(text string) []pipeline.Span { return f.SentencesFunc(text) }

// Engine is the offline engine: a pipeline.Model that answers every task of
// pipeline/prompts from the request's structured input with lexical
// methods. It is safe for concurrent use when its Analyzer is.
type Engine struct {
	an Analyzer
	// stats is an's CollectionStats, nil when it offers none.
	stats CollectionStats
	// scaffold holds the terms of the words the engine's own question
	// templates add ("year", "amount", ...), which say nothing about the
	// subject of a question and are left out of its term matching.
	scaffold map[string]bool
	// meta holds the terms of words that requests use to say what they
	// want rather than what about ("describe", "information"); they weigh
	// little in a request's vocabulary.
	meta map[string]bool
	// common holds the terms of the most frequent English words ("time",
	// "make", "old"): a prior for how little a request term says when no
	// collection statistics are at hand.
	common map[string]bool
}

// scaffoldWords are the template words of the engine's nugget questions.
const scaffoldWords = "year date month day decade percentage percent amount number name named " +
	"given connection much many where which who what when"

// metaWords are the words of a request that ask rather than name a
// subject.
const metaWords = pipeline.RequestWords

// commonWords are frequent English content words that the index's stop
// list keeps.
const commonWords = "time year people way day man men thing things woman women life child children world school " +
	"family group problem problems hand part place case week system work night point home room area lot " +
	"right fact month book eye job word business issue side kind head house service friend father mother " +
	"hour game line end member name team minute idea body back parent face others level door person result " +
	"change morning reason moment good new first last long great little own old right big high different " +
	"small large next early young important few bad same able best better full whole sure real clear " +
	"possible true free hard strong certain general present past future today tonight years days times " +
	"be get make go know take see come think look want give use find tell ask seem feel try leave call need " +
	"become put mean keep let begin show hear play run move like live believe hold bring happen write sit " +
	"stand lose meet include continue set learn lead understand watch follow stop create speak read allow " +
	"add spend grow open walk win offer remember love consider appear buy wait serve die send expect build " +
	"stay fall cut reach remain suggest pass require decide pull made done given taken said went came " +
	"well just now even way many much every also very country countries nation government state public " +
	"service power law city money world party business"

// New returns an engine that analyses text with a. A nil analyzer gives an
// engine whose every call fails with an error wrapping pipeline.ErrInvalid.
// When a also implements CollectionStats, the reranking answers weigh
// terms by the collection's statistics.
func New(a Analyzer) *Engine {
	e := &Engine{an: a, scaffold: map[string]bool{}, meta: map[string]bool{}, common: map[string]bool{}}
	if a != nil {
		e.stats, _ = a.(CollectionStats)
		for _, t := range a.Terms(scaffoldWords) {
			e.scaffold[t] = true
		}
		for _, t := range a.Terms(metaWords) {
			e.meta[t] = true
		}
		for _, t := range a.Terms(commonWords) {
			e.common[t] = true
		}
	}
	return e
}

// Complete answers req from req.Input, one of the prompts.XInput types, in
// the task's canonical answer format (prompts.FormatX), so the task's
// parser reads it as it reads a model's answer. req.Task may be empty; when
// set it must be the task of the input. A missing engine analyzer, a
// mismatched task or an input of another type is an error wrapping
// pipeline.ErrInvalid; a cancelled ctx returns ctx's error.
//
// Token log-probabilities are filled in when req.Logprobs is set, for the
// tasks whose stages read them (paraphrase, extract, verify_support,
// verify_coverage and the reranking yes/no tasks, rerank_pointwise and
// rerank_support): they carry the engine's own probability for its
// answer. The reranking tasks of pipeline/rerank are answered in
// rerank.go. Token counts are 0: the engine reads no tokens.
func (e *Engine) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return pipeline.ModelResponse{}, err
	}
	if e == nil || e.an == nil {
		return pipeline.ModelResponse{}, pipeline.Invalidf("offline engine: no text analyzer configured")
	}
	task, err := taskOf(req.Input)
	if err != nil {
		return pipeline.ModelResponse{}, err
	}
	if req.Task != "" && req.Task != task {
		return pipeline.ModelResponse{}, pipeline.Invalidf("offline engine: task %q was sent with the input of task %q (%T)", req.Task, task, req.Input)
	}
	var (
		text  string
		probs []pipeline.TokenLogprob
	)
	switch in := req.Input.(type) {
	case prompts.SummarizeInput:
		text, err = e.summarize(ctx, in)
	case prompts.NuggetsInput:
		text = prompts.FormatNuggets(prompts.NuggetsOutput{Nuggets: e.nuggets(in)})
	case prompts.ParaphraseInput:
		p := e.paraphrase(in)
		text = prompts.FormatParaphrase(prompts.ParaphraseOutput{Same: p >= 0.5})
		probs = yesNoLogprobs(p)
	case prompts.NuggetQualityInput:
		text = prompts.FormatNuggetQuality(e.quality(in))
	case prompts.ExtractInput:
		out, conf := e.extract(in)
		text = prompts.FormatExtract(out)
		probs = answerLogprobs(text, conf)
	case prompts.VerifySupportInput:
		p := e.verifySupport(in)
		text = prompts.FormatVerifySupport(prompts.VerifySupportOutput{Yes: p >= 0.5})
		probs = yesNoLogprobs(p)
	case prompts.VerifyCoverageInput:
		p := e.verifyCoverage(in)
		text = prompts.FormatVerifyCoverage(prompts.VerifyCoverageOutput{Yes: p >= 0.5})
		probs = yesNoLogprobs(p)
	case prompts.FacetsInput:
		// The request's facets, from its own words (facets.go).
		text = prompts.FormatFacets(prompts.FacetsOutput{Facets: e.facets(in)})
	case rerank.FeaturesInput:
		// CoRank's document features (corank.go).
		text = rerank.FormatFeatures(e.coRankFeatures(in))
	default:
		// The reranking tasks of pipeline/rerank (rerank.go).
		text, probs, err = e.rerankAnswer(ctx, req.Input)
	}
	if err != nil {
		return pipeline.ModelResponse{}, err
	}
	resp := pipeline.ModelResponse{Text: text, Model: Version}
	if req.Logprobs {
		resp.TokenLogprobs = probs
	}
	return resp, nil
}

// taskOf names the task of a structured input.
func taskOf(input any) (pipeline.Task, error) {
	if task, ok := rerankTask(input); ok {
		return task, nil
	}
	switch input.(type) {
	case prompts.SummarizeInput:
		return prompts.TaskSummarize, nil
	case prompts.NuggetsInput:
		return prompts.TaskNuggets, nil
	case prompts.ParaphraseInput:
		return prompts.TaskParaphrase, nil
	case prompts.NuggetQualityInput:
		return prompts.TaskNuggetQuality, nil
	case prompts.ExtractInput:
		return prompts.TaskExtract, nil
	case prompts.VerifySupportInput:
		return prompts.TaskVerifySupport, nil
	case prompts.VerifyCoverageInput:
		return prompts.TaskVerifyCoverage, nil
	case prompts.FacetsInput:
		return prompts.TaskFacets, nil
	case rerank.FeaturesInput:
		return rerank.TaskCoRankFeatures, nil
	case nil:
		return "", pipeline.Invalidf("offline engine: the request has no structured input; the offline engine answers only requests built by pipeline/prompts")
	}
	return "", pipeline.Invalidf("offline engine: unknown input type %T; it answers the inputs of pipeline/prompts (SummarizeInput ... VerifyCoverageInput, FacetsInput) and pipeline/rerank (SubQuestionsInput ... SupportInput)", input)
}

// Probability bounds of the emitted log-probabilities: the engine is never
// certain, and ln(0) would be -Inf.
const (
	minProb = 0.001
	maxProb = 0.999
)

func clampProb(p float64) float64 {
	if math.IsNaN(p) {
		return minProb
	}
	return math.Max(minProb, math.Min(maxProb, p))
}

// yesNoLogprobs is the one-token answer of a yes/no task given p = P(yes):
// the token given ("yes" when p ≥ 0.5) with its log-probability, and both
// words as the alternatives, so prompts.YesProbability reads back p.
func yesNoLogprobs(p float64) []pipeline.TokenLogprob {
	p = clampProb(p)
	yes, no := math.Log(p), math.Log(1-p)
	tok := pipeline.TokenLogprob{Token: "yes", Logprob: yes}
	if p < 0.5 {
		tok = pipeline.TokenLogprob{Token: "no", Logprob: no}
	}
	tok.Top = []pipeline.TopLogprob{{Token: "yes", Logprob: yes}, {Token: "no", Logprob: no}}
	return []pipeline.TokenLogprob{tok}
}

// answerLogprobs spells text as tokens (each word with the white space
// before it) that all carry ln(conf), except the field labels, which are
// format rather than answer and carry 0. The geometric mean over any field
// value, the one prompts.SentenceLikelihood takes, is then conf.
func answerLogprobs(text string, conf float64) []pipeline.TokenLogprob {
	lp := math.Log(clampProb(conf))
	var toks []pipeline.TokenLogprob
	start := 0
	for i := 0; i < len(text); {
		// A token is a run of white space followed by a run of non-space.
		j := i
		for j < len(text) && isASCIISpace(text[j]) {
			j++
		}
		for j < len(text) && !isASCIISpace(text[j]) {
			j++
		}
		tok := text[start:j]
		l := lp
		if isLabelToken(tok) {
			l = 0
		}
		toks = append(toks, pipeline.TokenLogprob{Token: tok, Logprob: l})
		start, i = j, j
	}
	return toks
}

func isASCIISpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isLabelToken(tok string) bool {
	switch strings.TrimSpace(tok) {
	case "SUPPORT:", "SENTENCE:", "CONFIDENCE:":
		return true
	}
	return false
}

// sigmoid is the logistic function.
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	for i, r := range s {
		if unicode.IsLetter(r) {
			if unicode.IsUpper(r) {
				return s
			}
			return s[:i] + string(unicode.ToUpper(r)) + s[i+len(string(r)):]
		}
		if !unicode.IsPunct(r) && !unicode.IsSpace(r) {
			return s
		}
	}
	return s
}
