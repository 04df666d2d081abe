package reports

import (
	"fmt"

	"github.com/ctxbench/ctxbench/replay/probe"
)

// ProbeText writes a probe score as a cell: the share of the session's
// probes not lost, and how many were lost of how many ("86% (31 of 220
// lost)").
func ProbeText(l probe.Loss) string {
	lost, of := l.Totals()
	return fmt.Sprintf("%.0f%% (%s of %s lost)", l.Score()*100, Int(lost), Int(of))
}

// ProbeNote says what the probe score and retention columns are.
const ProbeNote = "probes is the share of the session's probes (its files and commands, errors, the user's rules and numbers, each next step) " +
	"that the policy did not lose: a probe is lost when the policy stops sending the message it is about and the context it sent can no longer answer it, " +
	"judged exactly (ctxbench probes lists them); retention is the older proxy, the mean share of the files, commands, URLs, " +
	"errors and tool calls seen so far that the context still holds"
