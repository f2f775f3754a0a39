package offline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type foundFact struct {
	Kind   factKind
	Answer string
	Ask    string // the wh-phrase
}

func TestFindFacts(t *testing.T) {
	tests := []struct {
		name     string
		sentence string
		want     []foundFact
	}{
		{"year and name", "In 1890 Congress passed the McKinley Tariff.", []foundFact{
			{factYear, "1890", "what year"}, {factName, "McKinley Tariff", "which tariff"}}},
		{"full date", "Japan attacked Pearl Harbor on December 7, 1941, without warning.", []foundFact{
			{factName, "Pearl Harbor", "which harbor"}, {factDate, "December 7, 1941", "what date"}}},
		{"day of month", "The treaty was ratified on the 10th of September last.", []foundFact{
			{factDate, "10th of September last", "what date"}}},
		{"month and year", "Work began in March 1903 and in October, 1904.", []foundFact{
			{factDate, "March 1903", "what month"}, {factDate, "October, 1904", "what month"}}},
		{"money", "Congress appropriated $1.2 billion and 300,000 dollars for the canal.", []foundFact{
			{factMoney, "$1.2 billion", "how much"}, {factMoney, "300,000 dollars", "how much"}}},
		{"percentages", "Duties rose 3 percent, then 4 per cent, then 12%.", []foundFact{
			{factPercent, "3 percent", "what percentage"}, {factPercent, "4 per cent", "what percentage"}, {factPercent, "12%", "what percentage"}}},
		{"quantities", "The army enlisted 12,000 regular troops and two hundred and fifty officers.", []foundFact{
			{factQuantity, "12,000 regular troops", "how many regular troops"}, {factQuantity, "two hundred and fifty officers", "how many officers"}}},
		{"a number before an adjective", "We cleaned up 250 toxic waste sites and 9,000 fourth-class offices.", []foundFact{
			{factQuantity, "250 toxic waste sites", "how many toxic waste sites"},
			{factQuantity, "9,000 fourth-class offices", "how many fourth-class offices"}}},
		// A modifier is no unit: the counted noun is the plural after it,
		// names between ("four new", "ten small" were answers once).
		{"modifier before a name", "Congress admitted four new States in 1889 and 20 different American States ratified.", []foundFact{
			{factQuantity, "four new States", "how many new States"}, {factYear, "1889", "what year"},
			{factQuantity, "20 different American States", "how many different American States"}}},
		{"modifier before a compound", "We hired 1,000 new Border Patrol agents and built ten small war steamers.", []foundFact{
			{factQuantity, "1,000 new Border Patrol agents", "how many new Border Patrol agents"},
			{factQuantity, "ten small war steamers", "how many small war steamers"}}},
		{"modifier with no plural", "The two great Powers and 59 separate Federal programs remain; ten small remain.", []foundFact{
			{factQuantity, "two great Powers", "how many great Powers"},
			{factQuantity, "59 separate Federal programs", "how many separate Federal programs"}}},
		{"four digits before a noun", "The depot stored 2000 rifles.", []foundFact{
			{factQuantity, "2000 rifles", "how many rifles"}}},
		{"year after a time word", "Revenue grew steadily since 1897 despite the war.", []foundFact{
			{factYear, "1897", "what year"}}},
		{"decade", "Prices fell throughout the 1890s.", []foundFact{{factYear, "1890s", "what decade"}}},
		{"treaty with connector", "The Treaty of Ghent ended the war.", []foundFact{
			{factName, "Treaty of Ghent", "which treaty"}}},
		// The head of "X of Y" is X's last word, not Y's (Hayes, 1879;
		// Arthur, 1884).
		{"head before the connector", "The business of the Supreme Court of the United States is in arrears.", []foundFact{
			{factName, "Supreme Court of the United States", "which court"}}},
		{"no head before the connector", "He consulted the Secretaries of War and the Navy.", []foundFact{
			{factName, "Secretaries of War", "what"}}},
		{"person with title", "Yesterday President Lincoln signed the bill.", []foundFact{
			{factName, "President Lincoln", "who"}}},
		{"person with initial", "The plan of Franklin D. Roosevelt was adopted.", []foundFact{
			{factName, "Franklin D. Roosevelt", "who"}}},
		{"place after a preposition", "The fleet anchored in Manila Bay for the winter and troops landed in Cuba.", []foundFact{
			{factName, "Manila Bay", "which bay"}, {factName, "Cuba", "where"}}},
		// A country, a government, a State of the Union asked by kind;
		// after "in" a place is asked with "where".
		{"country and government", "The treaty with Mexico was signed, and the Government of Ecuador paid the claim.", []foundFact{
			{factName, "Mexico", "which country"}, {factName, "Government of Ecuador", "which government"}}},
		{"State and government", "The Swiss Government protested the law Texas had passed.", []foundFact{
			{factName, "Swiss Government", "which government"}, {factName, "Texas", "which State"}}},
		{"no kind for an ambiguous name", "The monument to Washington was finished.", []foundFact{
			{factName, "Washington", "what"}}},
		{"single word opening a sentence", "Congress agreed with the Senate.", nil},
		{"capitalised adjective", "A Presidential message was sent.", nil},
		{"compound adjective", "The fund helps State-administered programs.", nil},
		{"salutation titles", "Mr. Speaker, Mr. President, we gather again.", []foundFact{
			{factName, "Mr. Speaker", "who"}, {factName, "Mr. President", "who"}}},
		{"compound with a number", "A 6-month freeze was proposed for 1983.", []foundFact{
			{factYear, "1983", "what year"}}},
		{"ordinal is no quantity", "This is the 196th address.", nil},
		{"older ordinals are no quantity", "The 93d Congress met on the 2d day of the session.", nil},
		{"the second year of a pair", "It called forth between 1823 and 1860 various declarations.", []foundFact{
			{factYear, "1823", "what year"}, {factYear, "1860", "what year"}}},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wt := e.newWordTerms()
			var got []foundFact
			for _, f := range e.findFacts(tt.sentence, tokenize(tt.sentence), wt) {
				got = append(got, foundFact{f.kind, answerText(tt.sentence, f), whPhrase(f)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("facts of %q (-want +got)\n%s", tt.sentence, diff)
			}
		})
	}
}

func TestGenericNamesAreMarked(t *testing.T) {
	e := newTestEngine()
	for _, s := range []string{"They met the United States delegation.", "We heard Mr. Speaker and the Federal Government."} {
		wt := e.newWordTerms()
		for _, f := range e.findFacts(s, tokenize(s), wt) {
			if f.kind == factName && !f.generic {
				t.Errorf("%q: name %q is not marked generic", s, answerText(s, f))
			}
		}
	}
}

func TestTokenize(t *testing.T) {
	got := []string{}
	for _, tk := range tokenize(`The U.S. paid $1,200.50 in the 1890s—don't ask; "so-called" 19th-century 6-month 93d 5d.`) {
		got = append(got, tk.text)
	}
	want := []string{"The", "U.S.", "paid", "$", "1,200.50", "in", "the", "1890s", "—", "don't", "ask", ";",
		`"`, "so-called", `"`, "19th-century", "6-month", "93d", "5", "d", "."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got)\n%s", diff)
	}
}

// TestTokenizeDashWrittenAsHyphen: a hyphen that runs a word into one of
// dashWords is a dash; compounds, those with such a word inside them too,
// stay whole.
func TestTokenizeDashWrittenAsHyphen(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"the Higher Education Act-including proposals", []string{"the", "Higher", "Education", "Act", "-", "including", "proposals"}},
		{"in 1961-and individuals", []string{"in", "1961", "-", "and", "individuals"}},
		{"the Energy Initiative-a 22-percent increase", []string{"the", "Energy", "Initiative", "-", "a", "22-percent", "increase"}},
		{"a state-of-the-art bread-and-butter issue", []string{"a", "state-of-the-art", "bread-and-butter", "issue"}},
		{"the Food-for-Peace program and line-of-battle ships", []string{"the", "Food-for-Peace", "program", "and", "line-of-battle", "ships"}},
		{"years-that's all", []string{"years", "-", "that's", "all"}},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range tokenize(tt.text) {
			got = append(got, tk.text)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("tokenize(%q) (-want +got)\n%s", tt.text, diff)
		}
	}
}

func TestAnswerMatch(t *testing.T) {
	tests := []struct {
		name, text, answer string
		want               float64
	}{
		{"exact", "In 1890 Congress passed the tariff.", "1890", 1},
		{"number format", "Revenue fell by $50000000 that year.", "$50,000,000", 1},
		{"spelled number", "The fleet gained three cruisers.", "3 cruisers", 1},
		{"per cent", "Duties rose by 49.5 per cent.", "49.5%", 1},
		{"case and stemming", "the mckinley tariffs were debated", "McKinley Tariff", 1},
		{"other order nearby", "The war ended 7 December 1941.", "December 7, 1941", 0.85},
		{"scattered number", "Each year the Government spends $15 billion.", "15 years", 0.6},
		{"words in other order", "duties raised by the tariff on imports", "import duties", 0.85},
		{"absent", "The Navy completed three cruisers.", "1890", 0},
	}
	e := newTestEngine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wt := e.newWordTerms()
			if got := answerMatch(normalize(tt.text, wt), normalize(tt.answer, wt)); got != tt.want {
				t.Errorf("answerMatch(%q, %q) = %g, want %g", tt.text, tt.answer, got, tt.want)
			}
		})
	}
}

func TestSimHash(t *testing.T) {
	a := []string{"congress", "pass", "mckinley", "tariff", "1890", "duty", "import"}
	b := []string{"congress", "pass", "mckinley", "tariff", "1890", "duty", "imports"}
	c := []string{"navy", "cruiser", "fleet", "vessel", "launch", "philadelphia", "seamen"}
	if SimHash(a) != SimHash(append([]string(nil), a...)) {
		t.Fatal("SimHash is not a function of its terms")
	}
	near, far := Hamming(SimHash(a), SimHash(b)), Hamming(SimHash(a), SimHash(c))
	if near >= far || near > 16 {
		t.Errorf("Hamming distances: near texts %d, unrelated texts %d", near, far)
	}
	if Hamming(0, ^uint64(0)) != 64 || Hamming(5, 5) != 0 {
		t.Error("Hamming counts differing bits wrongly")
	}
}
