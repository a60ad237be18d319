public import Platform
public import GeoCore

/// Lines for people about the fixes a filter dropped, from a stream of rejections and a
/// ``FilterReport`` (`geo track` prints them on standard error): the first run of drops of each
/// reason explained once, when it ends or reaches ``longRun``, with how old a stale fix was.
public struct DropDiagnostics: Sendable {
    /// The drops in a row for one reason, and how much older the first one was than the
    /// stream's latest fix before it (s), or than the clock when it opened the stream.
    private var run: (reason: RejectionReason, count: Int, firstAge: Double, againstClock: Bool)?
    /// The latest fix time the stream has shown (delivered or dropped).
    private var latest: Date?
    /// Reasons already explained: each gets one line.
    private var explained: Set<RejectionReason> = []
    /// A run this long is explained at once, even while it goes on.
    public static let longRun = 10

    public init() {}

    /// Notes a fix the stream showed, delivered or dropped (how far behind it a later drop is).
    public mutating func saw(_ fix: Location) {
        latest = max(latest ?? fix.timestamp, fix.timestamp)
    }

    /// Counts one dropped fix received at `now`; returns the line to print, if this is the first
    /// run of its reason that is over or long.
    public mutating func dropped(_ fix: Location, _ reason: RejectionReason, at now: Date) -> String? {
        var line: String?
        if run?.reason == reason {
            run?.count += 1
        } else {
            line = endRun()
            run = (reason, 1, (latest ?? now).timeIntervalSince(fix.timestamp), latest == nil)
        }
        saw(fix)
        if let r = run, r.count == Self.longRun, !explained.contains(r.reason) { return describe(r, ongoing: true) }
        return line
    }

    /// Ends the current run of drops; returns its line if its reason was not explained yet.
    public mutating func endRun() -> String? {
        guard let r = run else { return nil }
        run = nil
        return explained.contains(r.reason) ? nil : describe(r)
    }

    private mutating func describe(_ r: (reason: RejectionReason, count: Int, firstAge: Double, againstClock: Bool),
                                   ongoing: Bool = false) -> String {
        explained.insert(r.reason)
        let fixes = r.count == 1 ? "1 fix" : "\(r.count) fixes"
        let measure = r.againstClock ? "the clock" : "the stream's latest fix before it"
        let age = r.reason == .stale ? "; the first was \(Self.duration(r.firstAge)) older than \(measure)" : ""
        return "dropped \(fixes)\(ongoing ? " so far" : "") as \(r.reason): \(r.reason.explanation)\(age); --preset raw keeps them"
    }

    /// `filter: 130 fixes, 118 delivered; dropped: warm-up 5, stale 7`, or nil before any fix.
    public static func summary(_ report: FilterReport) -> String? {
        guard report.received > 0 else { return nil }
        let dropped = RejectionReason.allReasons.compactMap { reason in
            report.count(of: reason) > 0 ? "\(reason) \(report.count(of: reason))" : nil
        }
        return "filter: \(report.received) fixes, \(report.accepted) delivered; dropped: "
            + (dropped.isEmpty ? "none" : dropped.joined(separator: ", "))
    }

    /// A duration for people: `3 s`, `12 min`, `5 h`, `9 days`, `14 months`, `3 years`.
    public static func duration(_ seconds: Double) -> String {
        let s = abs(seconds)
        switch s {
        case ..<120: return "\(Int(s.rounded())) s"
        case ..<7_200: return "\(Int((s / 60).rounded())) min"
        case ..<172_800: return "\(Int((s / 3_600).rounded())) h"
        case ..<5_184_000: return "\(Int((s / 86_400).rounded())) days"
        case ..<63_072_000: return "\(Int((s / 2_629_746).rounded())) months"
        default: return "\(Int((s / 31_556_952).rounded())) years"
        }
    }
}
