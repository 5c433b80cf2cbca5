// Package reports renders a record.Result for machines and for people:
// text, [JSON], [JUnit] XML, [Markdown] and one self-contained [HTML] page (see
// [Formats]), plus the raw result that idemcheck report re-reads.
//
// The JSON report (schema idemcheck.report/v1) is a contract: fields are
// only ever added within a schema version, every field is documented in
// schema/report.v1.json (JSON Schema draft 2020-12), and it is
// golden-tested. The JUnit XML follows the shape CI systems read. The text,
// Markdown and HTML reports are for people and may change between
// versions; the text one fits [TextWidth] columns, long lists of evidence
// summarised ([Summarise]). Every format tells the minimal counterexample
// of a failing generated trial ([TrialSteps]). What a target wrote is
// escaped for each format: in Markdown, every construct GitHub's renderer
// would turn into a link, an image, HTML, a heading or a list is escaped,
// so report.md makes no link or image of its own (tested by rendering it
// with a GFM renderer). Every file is written atomically ([WriteFile]: a temporary file
// renamed into place), so an interrupted run never leaves a half-written
// report.
package reports
