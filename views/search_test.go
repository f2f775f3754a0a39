package views

import "testing"

func TestSyntaxNote(t *testing.T) {
	for q, want := range map[string]bool{
		"steel tariffs": false, "title:tariff": true, `"the union"`: true, "tariff AND steel": true,
		"+tariff": true, "-steel": true, "Andrew Jackson": false, "ratio 3:1": false, "NOTE on orders": false,
	} {
		if got := syntaxNote(q) != ""; got != want {
			t.Errorf("syntaxNote(%q) given: %v, want %v", q, got, want)
		}
	}
}
