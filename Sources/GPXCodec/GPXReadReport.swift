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

    /// The lines for standard error, each ending in a newline and starting with `prefix`
    /// (`geo gpx: `): the warnings when `warnings` is true (up to ``printedWarnings``, then a
    /// count), and what a recovering read kept. Empty when there is nothing to say.
    public func diagnostics(prefix: String, warnings listWarnings: Bool) -> String {
        var out = ""
        if listWarnings {
            for w in warnings.prefix(Self.printedWarnings) {
                out += "\(prefix)\(file):\(w.line):\(w.column): warning: \(w.message)\n"
            }
            if warningCount > Self.printedWarnings {
                out += "\(prefix)\(file): \(warningCount) warnings (\(Self.printedWarnings) shown)\n"
            }
        }
        if let damage {
            out += "\(prefix)\(file):\(damage.line):\(damage.column): \(damage.code): \(damage.message)\n"
            out += "\(prefix)\(file): recovered \(points) points complete before the damage at byte \(damage.offset) (line \(damage.line), column \(damage.column))\n"
        }
        return out
    }

    /// The report as JSON members, without braces:
    /// `"warnings":N,"firstWarnings":[…],"recovery":null|{…}`.
    public var jsonMembers: String {
        let list = warnings.prefix(Self.listedWarnings).map { w in
            "{\"code\":\(JSONText.quoted(w.code.description)),\"element\":\(JSONText.quoted(w.element)),"
                + "\"line\":\(w.line),\"column\":\(w.column),\"offset\":\(w.offset),\"text\":\(JSONText.quoted(w.text)),"
                + "\"message\":\(JSONText.quoted(w.message))}"
        }
        let recovery = damage.map { d in
            "{\"pointsKept\":\(points),\"code\":\(JSONText.quoted(d.code.description)),\"message\":\(JSONText.quoted(d.message)),"
                + "\"line\":\(d.line),\"column\":\(d.column),\"offset\":\(d.offset)}"
        } ?? "null"
        return "\"warnings\":\(warningCount),\"firstWarnings\":[\(list.joined(separator: ","))],\"recovery\":\(recovery)"
    }
}
