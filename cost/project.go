package cost

import "github.com/ctxbench/ctxbench/pricing"

// A Projection scales the mean cost of the sessions priced to a number of
// sessions a day.
type Projection struct {
	Label      string  `json:"label"`
	SessionUSD float64 `json:"per_session_usd"`
	DayUSD     float64 `json:"per_day_usd"`
	MonthUSD   float64 `json:"per_30_days_usd"`
}

// Project returns the projection of total, the cost of sessions sessions,
// at perDay sessions a day.
func Project(label string, total pricing.Money, sessions int, perDay float64) Projection {
	per := total.USD() / float64(sessions)
	return Projection{Label: label, SessionUSD: per, DayUSD: per * perDay, MonthUSD: per * perDay * 30}
}
