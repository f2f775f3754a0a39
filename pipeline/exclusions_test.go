package pipeline

import (
	"reflect"
	"testing"
)

func TestSplitExclusions(t *testing.T) {
	tests := []struct {
		name, statement, asked string
		excluded               []string
	}{
		{"none", "Describe the tariff of 1890 and its reciprocity clause.", "Describe the tariff of 1890 and its reciprocity clause.", nil},
		{"a sentence of its own",
			"Describe the new cruisers and the coaling stations. Leave aside the marines and the yards. Give the dates.",
			"Describe the new cruisers and the coaling stations. Give the dates.",
			[]string{"the marines and the yards"}},
		{"an opening clause before the request verb",
			"Leaving aside Iraq, Afghanistan and the Palestinian territories, describe the endowment and the elections.",
			"Describe the endowment and the elections.",
			[]string{"Iraq, Afghanistan and the Palestinian territories"}},
		{"a clause inside the sentence",
			"Using the annual messages of 1866-1899, and leaving aside the fisheries and the fur seals, describe the armed expedition of 1866.",
			"Using the annual messages of 1866-1899, describe the armed expedition of 1866.",
			[]string{"the fisheries and the fur seals"}},
		{"a closing clause",
			"Give the numbers and phrases the addresses state, leaving aside the regulations cut.",
			"Give the numbers and phrases the addresses state.",
			[]string{"the regulations cut"}},
		{"leave aside, and a request verb after it",
			"Leave aside the lynchings of Italians and the award against Colombia, and give the dates the messages use.",
			"Give the dates the messages use.",
			[]string{"the lynchings of Italians and the award against Colombia"}},
		{"an initial is no sentence end",
			"Report the child tax credit. Leave aside George W. Bush's child credit. Give the sums.",
			"Report the child tax credit. Give the sums.",
			[]string{"George W. Bush's child credit"}},
		{"do not cover",
			"Describe the Marshall Plan. Do not cover the Berlin airlift.",
			"Describe the Marshall Plan.",
			[]string{"the Berlin airlift"}},
		{"set aside and excluding inside a phrase say what is asked",
			"Describe the lands set aside for the parks, the order setting aside the reserves and the act excluding Chinese laborers.",
			"Describe the lands set aside for the parks, the order setting aside the reserves and the act excluding Chinese laborers.", nil},
		{"but leave aside",
			"Give the dates the messages name, but leave aside the parallel finally adopted.",
			"Give the dates the messages name.",
			[]string{"the parallel finally adopted"}},
		{"apart from after keeping is no exclusion",
			"Cover also the system of keeping the public money apart from all banks.",
			"Cover also the system of keeping the public money apart from all banks.", nil},
		{"other than narrows a phrase up to a colon",
			"Report what the messages of 1880-1890 said about immigration other than the exclusion of the Chinese: the arrivals and the ports.",
			"Report what the messages of 1880-1890 said about immigration: the arrivals and the ports.",
			[]string{"the exclusion of the Chinese"}},
		{"apart from narrows a phrase up to the sentence's end",
			"Describe the dealings with Spain apart from the Cuban insurrections. Give the dates.",
			"Describe the dealings with Spain. Give the dates.",
			[]string{"the Cuban insurrections"}},
		{"other than after a comma",
			"List the amendments the messages proposed, other than those on the income tax, prohibition and suffrage.",
			"List the amendments the messages proposed.",
			[]string{"those on the income tax, prohibition and suffrage"}},
		{"covered elsewhere, after a semicolon",
			"Give the names, dates and reasons the messages give; the Koszta affair, the Hungarian revolution of 1849 and the Vienna exposition are covered elsewhere.",
			"Give the names, dates and reasons the messages give.",
			[]string{"the Koszta affair, the Hungarian revolution of 1849 and the Vienna exposition"}},
		{"treated in another report, a sentence of its own",
			"Describe the loans. The tariff is treated in another report. Give the sums.",
			"Describe the loans. Give the sums.",
			[]string{"the tariff"}},
		{"covered elsewhere, after a comma and but",
			"Give the names and dates the messages give, but the Koszta affair is covered by another report.",
			"Give the names and dates the messages give.",
			[]string{"the Koszta affair"}},
		{"a report covered elsewhere in the asked text is no exclusion",
			"Describe how the treaty was covered in the press and what reports Congress received.",
			"Describe how the treaty was covered in the press and what reports Congress received.", nil},
		{"apart from opening the sentence",
			"Apart from the canal and the conferences, describe the loans.",
			"Describe the loans.",
			[]string{"the canal and the conferences"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, excluded := SplitExclusions(tt.statement)
			if asked != tt.asked {
				t.Errorf("asked = %q, want %q", asked, tt.asked)
			}
			if !reflect.DeepEqual(excluded, tt.excluded) {
				t.Errorf("excluded = %q, want %q", excluded, tt.excluded)
			}
		})
	}
	r := Request{Title: "The Navy", ProblemStatement: "Describe the cruisers. Leave aside the marines."}
	if got, want := r.Asked(), "Describe the cruisers."; got != want {
		t.Errorf("Asked() = %q, want %q", got, want)
	}
	if got, want := r.Excluded(), []string{"the marines"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Excluded() = %q, want %q", got, want)
	}
}

func TestSplitTitleExclusions(t *testing.T) {
	tests := []struct {
		title, asked string
		excluded     []string
	}{
		{"Coaling stations and naval bases beyond the seas, 1878-1912", "Coaling stations and naval bases beyond the seas, 1878-1912", nil},
		{"Making the peace after the war, apart from Germany and Japan, 1946-1948", "Making the peace after the war, 1946-1948", []string{"Germany and Japan"}},
		{"China and the United States apart from immigration, 1861-1895", "China and the United States, 1861-1895", []string{"immigration"}},
		{"Services for the aged other than pensions, housing loans and Medicare", "Services for the aged", []string{"pensions, housing loans and Medicare"}},
		{"Relations with Spain apart from Cuba: ships and cargoes", "Relations with Spain: ships and cargoes", []string{"Cuba"}},
		{"The tariff, excluding sugar, 1890-1897", "The tariff, 1890-1897", []string{"sugar"}},
		{"Keeping the public money apart from the banks, 1837-1846", "Keeping the public money apart from the banks, 1837-1846", nil},
	}
	for _, tt := range tests {
		asked, excluded := SplitTitleExclusions(tt.title)
		if asked != tt.asked || !reflect.DeepEqual(excluded, tt.excluded) {
			t.Errorf("SplitTitleExclusions(%q) = %q, %q; want %q, %q", tt.title, asked, excluded, tt.asked, tt.excluded)
		}
	}
	r := Request{Title: "The Navy apart from the marines, 1880-1900", ProblemStatement: "Describe the cruisers. Leave aside the yards."}
	if got, want := r.AskedTitle(), "The Navy, 1880-1900"; got != want {
		t.Errorf("AskedTitle() = %q, want %q", got, want)
	}
	if got, want := r.Excluded(), []string{"the marines", "the yards"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Excluded() = %q, want %q", got, want)
	}
}

func TestWithoutEventTime(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Refugees and the displaced in the addresses after the Cold War, 1996-2021", "Refugees and the displaced in the addresses, 1996-2021"},
		{"Terrorism before September 11, from Reagan to Clinton", "Terrorism, from Reagan to Clinton"},
		{"Indochina, Laos and Viet-Nam before the American war, 1952-1965", "Indochina, Laos and Viet-Nam, 1952-1965"},
		{"The public debt since the Second World War", "The public debt"},
		// A war the request asks about too, a court, a person: kept.
		{"Pensions for the soldiers during and after the Civil War, 1861-1870", "Pensions for the soldiers during and after the Civil War, 1861-1870"},
		{"Settling disputes by arbitration before the Hague court, 1885-1900", "Settling disputes by arbitration before the Hague court, 1885-1900"},
		{"Forests after Roosevelt: timber supply", "Forests after Roosevelt: timber supply"},
		{"", ""},
	} {
		if got := WithoutEventTime(tc.title); got != tc.want {
			t.Errorf("WithoutEventTime(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}
