package offline

import (
	"github.com/crucible-portal/crucible/pipeline/prompts"
)

// Test material: short passages in the manner of State of the Union
// addresses, and a request about the McKinley Tariff.

var tariffRequest = prompts.RequestInfo{
	ID:               "tariff-1890",
	Title:            "The McKinley Tariff",
	ProblemStatement: "What did the McKinley Tariff change about import duties, prices and federal revenue?",
	Background:       "An economic historian studying protectionism and trade policy in the 1890s.",
	Limit:            2000,
}

const tariffAddress = `To the Senate and House of Representatives: The year has been one of general prosperity and peace. ` +
	`In 1890 Congress passed the McKinley Tariff, raising duties on imports to an average of 49.5 percent. ` +
	`The new tariff act reduced the revenue from sugar by $50,000,000, since raw sugar now enters free of duty. ` +
	`Critics of the tariff claim that the prices of wool and tin plate rose sharply after October 6, 1890. ` +
	`The reciprocity clause of the tariff act opens the way to a large trade with Brazil and Cuba. ` +
	`Our relations with the Republic of Chile remain cordial. ` +
	`The Navy has completed three new cruisers this year, and the fleet now numbers 42 vessels. ` +
	`I recommend that Congress appropriate $2,000,000 for the coast defenses of New York.`

const navyAddress = `The Navy has grown steadily. Four new battleships were launched at Philadelphia in 1896, ` +
	`and the Secretary of the Navy asks for 12,000 more seamen. The fleet visited Honolulu in the summer.`
