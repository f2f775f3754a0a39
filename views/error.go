package views

// ErrorPage is the view model of the page shown for a failed request.
type ErrorPage struct {
	Site Site
	// Status is the HTTP status code sent with the page.
	Status int
	// Title is a short heading, such as "Page not found".
	Title string
	// Message tells the user what went wrong. For server errors it is a
	// generic sentence: internal error text never reaches the page.
	Message string
	// RequestID identifies the request in the logs, so a user can report it.
	RequestID string
	// LoginURL, when set, links to the sign-in page: for requests refused
	// because the viewer has not signed in.
	LoginURL string
}
