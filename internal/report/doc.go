// Package report renders the ctxbench command's results for people:
// terminal tables (tablewriter), Markdown, CSV and JSON, PNG and SVG
// plots (gonum/plot), JUnit XML, and the report folder with its index
// page. Package reports is its public face: the few tables a library
// user of cost and replay prints.
//
// A [Builder] assembles a [Report] from what ctxbench's batch pipeline makes
// of each transcript — its runs, priced, and their series call by call,
// its messages' counts, its part of the sweep — keeping what the report
// draws, in memory or in a temporary file (Builder.SpoolTranscripts: a
// report over thousands of sessions then keeps in memory their totals
// and each one's name); the package runs none of that work itself.
// [WriteReport] writes the folder (index.html, report.md, results.json,
// summary.csv, steps.csv, sweep.csv and the plots), built beside the
// target and swapped in whole, and never over a folder ctxbench did not
// make ([ErrNotAReport]). [Report.WriteSummary] prints the totals per
// policy. The cost tables open with the section titled
// [CostSectionTitle]: the bill, each policy's total with its median and
// p90 per session (a subagent's transcript in its parent's session, as
// `ctxbench cost` counts sessions) and its range, the total × (1 ± the p90 of the
// measured error), and the projection error on the report's sessions
// ([Report.ProjectionError]), as `ctxbench cost` measures and prints it.
//
// The commands' text tables are here too: the estimators' accuracy
// ([WriteEstimate]), a transcript's statistics ([WriteStats]), its runs ([WriteRunTable]), a sweep ([WriteSweepText]),
// a transcript's costs by component ([WriteComparison]) and each
// policy's over the sessions ([WritePolicyCosts]), texts' token counts
// ([WriteTokenCounts]), the bill by
// session, model and day ([WriteLedger], [WriteSessions]), the projection
// and the price table, the policies ([WritePolicies]), a transcript's
// probes ([WriteProbes]), and a check's
// table, Markdown summary, JUnit and workflow annotations
// ([WriteCheckRows], [WriteCheckMarkdown], [WriteCheckJUnit],
// [WriteCheckAnnotations]). A metric shown beside each run is one entry of one
// list of columns for replay's table, summary.csv, the Markdown and the
// page; a policy's totals are one list for the page, the Markdown and the
// summary; a sweep's, one for its CSV, text and the report's sweep.csv;
// and every one of them shows the metrics the metric registry marks as
// shown after its own, so that a metric of a run is added there once.
//
// Numbers are formatted here, by hand, never with %v: integers with
// thousands separators ([Int]), dollars to 4 decimals ([USD]),
// right-aligned. Output carries no colour and no terminal-dependent width,
// so it is the same bytes on every machine and can be kept in golden
// files. [WriteFile] writes any output atomically.
package report
