public import GeoBase

/// What reading a GPX file left out (warnings) or stopped at (damage, when recovering), as
/// every `geo gpx` command reports it: lines for standard error and members of its JSON.
public struct GPXReadReport: Sendable {
    /// The file's name as the user gave it, for the messages.
    public var file: String
    /// The first warnings, in order; ``warningCount`` counts them all.
    public var warnings: [GPXWarning]
    public var warningCount: Int
    /// Where a recovering read stopped; nil when the file was read to its end.
    public var damage: GPXError?
    /// Points read: waypoints, route points and track points.
    public var points: Int

    /// Warnings listed one per line on standard error; the rest are counted.
    public static let printedWarnings = 10
    /// Warnings listed in JSON; the rest are counted.
    public static let listedWarnings = 5

    public init(file: String, warnings: [GPXWarning], warningCount: Int, damage: GPXError?, points: Int) {
        self.file = file
        self.warnings = warnings
        self.warningCount = warningCount
        self.damage = damage
        self.points = points
    }

    /// Reads `source`, the file named `file`, as a stream: `body` takes the events from a reader
    /// of `options` and returns its result and how many points it handed on; then the report of
    /// the reader's warnings and damage (`geo gpx stats`, `clean`, `smooth`, `geo visits`).
    /// - Throws: what `body` throws (a `GPXError` where the file cannot be read as GPX).
    public static func streamed<Result>(_ source: some ByteSource, file: String, options: GPXReadOptions,
                                        _ body: (GPXStreamReader) throws -> (Result, points: Int)) rethrows -> (Result, GPXReadReport) {
        let reader = GPXStreamReader(source: source, options: options)
        let (result, points) = try body(reader)
        return (result, GPXReadReport(file: file, warnings: reader.warnings, warningCount: reader.warningCount, damage: reader.damage, points: points))
    }

    /// Reads `source`, the file named `file`, whole with `options` (``GPXReader/read(_:options:)``):
    /// the document, and the report of what reading left out or stopped at (`geo gpx convert`,
    /// `simplify`).
    /// - Throws: `GPXError` where the file cannot be read as GPX.
    public static func read(_ source: some ByteSource, file: String, options: GPXReadOptions) throws(GPXError) -> (GPXDocument, GPXReadReport) {
        let result = try GPXReader.read(source, options: options)
        return (result.document, GPXReadReport(file: file, warnings: result.warnings, warningCount: result.warningCount, damage: result.damage,
                                               points: result.document.pointCount))
    }

    /// ``streamed(_:file:options:_:)`` as a command runs it, its lines for standard error
    /// handed to `note` one at a time, without a newline: a read that fails notes
    /// ``failureLines(_:file:recovering:)`` before the error is rethrown; a read that ends
    /// notes ``diagnosticLines(warnings:)`` (`geo gpx stats`, `clean`, `smooth`).
    /// - Throws: what `body` throws (a `GPXError` where the file cannot be read as GPX).
    public static func streamed<Result>(_ source: some ByteSource, file: String, options: GPXReadOptions, warnings: Bool, note: (String) -> Void,
                                        _ body: (GPXStreamReader) throws -> (Result, points: Int)) throws -> (Result, GPXReadReport) {
        let (result, report) = try noting(file: file, options: options, note) { try streamed(source, file: file, options: options, body) }
        report.diagnosticLines(warnings: warnings).forEach(note)
        return (result, report)
    }

    /// ``read(_:file:options:)`` as a command runs it, its lines for standard error (every
    /// warning) handed to `note` as ``streamed(_:file:options:warnings:note:_:)`` hands them
    /// (`geo gpx convert`, `simplify`).
    /// - Throws: `GPXError` where the file cannot be read as GPX, after noting it.
    public static func read(_ source: some ByteSource, file: String, options: GPXReadOptions, note: (String) -> Void) throws -> GPXDocument {
        let (document, report) = try noting(file: file, options: options, note) { try read(source, file: file, options: options) }
        report.diagnosticLines(warnings: true).forEach(note)
        return document
    }

    /// Runs `body`, a read of `file` with `options`; a `GPXError` it throws is noted as
    /// ``failureLines(_:file:recovering:)`` and rethrown.
    private static func noting<Result>(file: String, options: GPXReadOptions, _ note: (String) -> Void, _ body: () throws -> Result) throws -> Result {
        do { return try body() } catch let error as GPXError {
            failureLines(error, file: file, recovering: options.recovering).forEach(note)
            throw error
        }
    }

    /// The lines, without newlines, of a read of `file` that failed with `error`:
    /// `FILE:LINE:COLUMN: code: message`, then, for a file cut off or malformed when the read
    /// was not `recovering`, where a recovering read (``GPXReadOptions/init(recovering:)``)
    /// would keep the points before the damage.
    public static func failureLines(_ error: GPXError, file: String, recovering: Bool) -> [String] {
        var lines = ["\(file):\(error.line):\(error.column): \(error.code): \(error.message)"]
        if !recovering, error.code == .truncated || error.code == .malformedXML {
            lines.append("\(file): --recover keeps every point complete before line \(error.line), column \(error.column)")
        }
        return lines
    }

    /// The lines, without newlines, of what reading left out or stopped at: the warnings when
    /// `warnings` is true (up to ``printedWarnings``, then a count), and what a recovering read
    /// kept. Empty when there is nothing to say.
    public func diagnosticLines(warnings listWarnings: Bool) -> [String] {
        var out: [String] = []
        if listWarnings {
            for w in warnings.prefix(Self.printedWarnings) {
                out.append("\(file):\(w.line):\(w.column): warning: \(w.message)")
            }
            if warningCount > Self.printedWarnings {
                out.append("\(file): \(warningCount) warnings (\(Self.printedWarnings) shown)")
            }
        }
        if let damage {
            out.append("\(file):\(damage.line):\(damage.column): \(damage.code): \(damage.message)")
            out.append("\(file): recovered \(points) points complete before the damage at byte \(damage.offset) (line \(damage.line), column \(damage.column))")
        }
        return out
    }

    /// Adds the report to a JSON object as its last members: `warnings` (the count),
    /// `firstWarnings` (up to ``listedWarnings``: `code`, `element`, `line`, `column`,
    /// `offset`, `text`, `message`) and `recovery` (`null`, or where a recovering read stopped:
    /// `pointsKept`, `code`, `message`, `line`, `column`, `offset`).
    package func add(to object: inout JSONObjectText) {
        object.add("warnings", integer: warningCount)
        object.add("firstWarnings", objects: warnings.prefix(Self.listedWarnings).map { w in
            var o = JSONObjectText()
            o.add("code", string: w.code.description)
            o.add("element", string: w.element)
            o.add("line", integer: w.line)
            o.add("column", integer: w.column)
            o.add("offset", integer: w.offset)
            o.add("text", string: w.text)
            o.add("message", string: w.message)
            return o
        })
        object.add("recovery", object: damage.map { d in
            var o = JSONObjectText()
            o.add("pointsKept", integer: points)
            o.add("code", string: d.code.description)
            o.add("message", string: d.message)
            o.add("line", integer: d.line)
            o.add("column", integer: d.column)
            o.add("offset", integer: d.offset)
            return o
        })
    }
}
