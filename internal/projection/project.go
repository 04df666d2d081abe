// Package projection scales the cost of policies replayed over a set of
// sessions to a team's volume (`ctxbench cost --per-day`): each policy's
// spread per session, its projection to a number of sessions a day, and
// the range the measured projection error puts them in.
package projection

import (
	"slices"

	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/pricing"
)

// A Spread is a policy's cost over the sessions priced: in all, and per
// session the mean, the median and the 90th percentile, with the range
// the measured projection error puts the total in ([ProjectionError.Range];
// absent when no session was measured).
type Spread struct {
	Label      string   `json:"label"`
	Sessions   int      `json:"sessions"`
	TotalUSD   float64  `json:"total_usd"`
	SessionUSD float64  `json:"per_session_usd"`
	MedianUSD  float64  `json:"per_session_median_usd"`
	P90USD     float64  `json:"per_session_p90_usd"`
	LowUSD     *float64 `json:"total_low_usd,omitempty"`
	HighUSD    *float64 `json:"total_high_usd,omitempty"`
}

// SpreadOf returns the spread of perSession, one policy's cost of each
// session, its range by pe.
func SpreadOf(label string, perSession []pricing.Money, pe ProjectionError) Spread {
	s := Spread{Label: label, Sessions: len(perSession)}
	if len(perSession) == 0 {
		return s
	}
	v := make([]float64, len(perSession))
	var total pricing.Money
	for i, m := range perSession {
		v[i] = m.USD()
		total += m
	}
	slices.Sort(v)
	s.TotalUSD = total.USD()
	s.SessionUSD = s.TotalUSD / float64(len(v))
	s.MedianUSD, s.P90USD = stats.MedianP90(v)
	if lo, hi, ok := pe.Range(s.TotalUSD); ok {
		s.LowUSD, s.HighUSD = &lo, &hi
	}
	return s
}

// A Projection scales a policy's cost per session to a number of
// sessions a day: the mean's, with the range the measured projection
// error puts it in (absent when no session was measured), and the
// median session's.
type Projection struct {
	Label      string   `json:"label"`
	SessionUSD float64  `json:"per_session_usd"`
	MedianUSD  float64  `json:"per_session_median_usd"`
	P90USD     float64  `json:"per_session_p90_usd"`
	DayUSD     float64  `json:"per_day_usd"`
	MonthUSD   float64  `json:"per_30_days_usd"`
	DayLowUSD  *float64 `json:"per_day_low_usd,omitempty"`
	DayHighUSD *float64 `json:"per_day_high_usd,omitempty"`
	// MonthLowUSD and MonthHighUSD are the range of MonthUSD.
	MonthLowUSD  *float64 `json:"per_30_days_low_usd,omitempty"`
	MonthHighUSD *float64 `json:"per_30_days_high_usd,omitempty"`
}

// Project returns the projection of s, a policy's spread over the
// sessions priced, at perDay sessions a day, its range by pe.
func Project(s Spread, perDay float64, pe ProjectionError) Projection {
	p := Projection{Label: s.Label, SessionUSD: s.SessionUSD, MedianUSD: s.MedianUSD, P90USD: s.P90USD,
		DayUSD: s.SessionUSD * perDay, MonthUSD: s.SessionUSD * perDay * 30}
	if lo, hi, ok := pe.Range(p.DayUSD); ok {
		mlo, mhi := lo*30, hi*30
		p.DayLowUSD, p.DayHighUSD, p.MonthLowUSD, p.MonthHighUSD = &lo, &hi, &mlo, &mhi
	}
	return p
}
