package pipeline

import (
	"strings"
	"unicode"
)

// demonymPlaces maps a people's or a country's adjective to the place it
// names: "the Korean War" is about Korea, and the addresses of 1951-1954
// write "Korea" where a request writes "Korean" (the stemmer keeps the
// two apart). Adjectives that name something else as often as the place
// stay out: "American" (of the United States, not the continents),
// "Indian" (of the American Indians, not India), "African" (of "African
// American"), "Arab", "Soviet".
var demonymPlaces = map[string]string{
	"Afghan": "Afghanistan", "Alaskan": "Alaska", "Argentine": "Argentina",
	"Asian": "Asia", "Austrian": "Austria", "Belgian": "Belgium",
	"Bolivian": "Bolivia", "Bosnian": "Bosnia", "Brazilian": "Brazil",
	"British": "Britain", "Cambodian": "Cambodia", "Canadian": "Canada",
	"Chilean": "Chile", "Chinese": "China", "Colombian": "Colombia",
	"Cuban": "Cuba", "Danish": "Denmark", "Dutch": "Netherlands",
	"Ecuadorian": "Ecuador", "Egyptian": "Egypt", "Ethiopian": "Ethiopia",
	"European": "Europe", "Filipino": "Philippines", "French": "France",
	"German": "Germany", "Greek": "Greece", "Guatemalan": "Guatemala",
	"Haitian": "Haiti", "Hawaiian": "Hawaii", "Honduran": "Honduras",
	"Hungarian": "Hungary", "Indonesian": "Indonesia", "Iranian": "Iran",
	"Iraqi": "Iraq", "Irish": "Ireland", "Israeli": "Israel",
	"Italian": "Italy", "Japanese": "Japan", "Jordanian": "Jordan",
	"Korean": "Korea", "Kuwaiti": "Kuwait", "Laotian": "Laos",
	"Lebanese": "Lebanon", "Liberian": "Liberia", "Libyan": "Libya",
	"Mexican": "Mexico", "Moroccan": "Morocco", "Nicaraguan": "Nicaragua",
	"Norwegian": "Norway", "Pakistani": "Pakistan", "Palestinian": "Palestine",
	"Panamanian": "Panama", "Paraguayan": "Paraguay", "Persian": "Persia",
	"Peruvian": "Peru", "Philippine": "Philippines", "Polish": "Poland",
	"Portuguese": "Portugal", "Prussian": "Prussia", "Russian": "Russia",
	"Rwandan": "Rwanda", "Samoan": "Samoa", "Serbian": "Serbia",
	"Siamese": "Siam", "Somali": "Somalia", "Spanish": "Spain",
	"Sudanese": "Sudan", "Swedish": "Sweden", "Swiss": "Switzerland",
	"Syrian": "Syria", "Texan": "Texas", "Turkish": "Turkey",
	"Ukrainian": "Ukraine", "Uruguayan": "Uruguay", "Venezuelan": "Venezuela",
	"Vietnamese": "Vietnam",
}

// DemonymPlaces returns the places a text names only by their adjective
// or their people, in the order it first does ("The Korean War in the
// messages of Truman and Eisenhower" → "Korea"; "Cubans" → "Cuba"),
// leaving out a place that the text, or any of the texts also, writes by
// its name. Adjectives are matched capitalised, as a name is written
// ("french fries" names no place).
func DemonymPlaces(text string, also ...string) []string {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	}
	words := split(text)
	written := make(map[string]bool, len(words))
	for _, s := range append([]string{text}, also...) {
		for _, w := range split(s) {
			written[w] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		place, ok := demonymPlaces[w]
		if !ok && strings.HasSuffix(w, "s") {
			place, ok = demonymPlaces[strings.TrimSuffix(w, "s")]
		}
		if !ok || seen[place] || written[place] {
			continue
		}
		seen[place] = true
		out = append(out, place)
	}
	return out
}
