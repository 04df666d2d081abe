// Package reports renders ctxbench results for people: terminal tables
// (tablewriter), and, as the report command grows, markdown, CSV and plots.
//
// Numbers are formatted here, by hand, never with %v: integers with
// thousands separators, right-aligned. Output carries no colour and no
// terminal-dependent width, so it is the same bytes on every machine and
// can be kept in golden files.
package reports
