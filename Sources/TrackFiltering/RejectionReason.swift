/// Why a fix was dropped: one code per rule (a struct over a private enum, so codes can be
/// added without breaking clients, STYLE.md §3.7).
public struct RejectionReason: Hashable, Sendable, CustomStringConvertible {
    enum Value: Int, CaseIterable, Sendable {
        case invalidAccuracy, inaccurate, stale, warmUp, outOfOrder, duplicateTimestamp,
             insideAccuracyRadius, belowMinimumDistance, impliedSpeed, stationary, kalmanOutlier
    }
    let value: Value
    init(_ value: Value) { self.value = value }

    /// Horizontal accuracy negative (Core Location's "invalid") or not reported.
    public static let invalidAccuracy = RejectionReason(.invalidAccuracy)
    /// Horizontal accuracy worse than the configured threshold.
    public static let inaccurate = RejectionReason(.inaccurate)
    /// The fix is older than the allowed age at the time it was received (a cached fix).
    public static let stale = RejectionReason(.stale)
    /// Received within the warm-up period after updates started.
    public static let warmUp = RejectionReason(.warmUp)
    /// Timestamped before the last accepted fix.
    public static let outOfOrder = RejectionReason(.outOfOrder)
    /// Same timestamp as the last accepted fix.
    public static let duplicateTimestamp = RejectionReason(.duplicateTimestamp)
    /// Moved less than a fraction of the previous accuracy radius, without better accuracy.
    public static let insideAccuracyRadius = RejectionReason(.insideAccuracyRadius)
    /// Moved less than the distance filter.
    public static let belowMinimumDistance = RejectionReason(.belowMinimumDistance)
    /// Reaching it from the last accepted fix needs an impossible speed (a teleport).
    public static let impliedSpeed = RejectionReason(.impliedSpeed)
    /// The device is still; the fix would only add drift.
    public static let stationary = RejectionReason(.stationary)
    /// The Kalman filter's innovation gate (Mahalanobis distance) rejected it as an outlier.
    public static let kalmanOutlier = RejectionReason(.kalmanOutlier)

    /// Every reason, in report order.
    public static let allReasons: [RejectionReason] = Value.allCases.map(RejectionReason.init)

    /// A stable identifier, e.g. `implied-speed`, used in reports and on the command line.
    public var identifier: String {
        switch value {
        case .invalidAccuracy: "invalid-accuracy"
        case .inaccurate: "inaccurate"
        case .stale: "stale"
        case .warmUp: "warm-up"
        case .outOfOrder: "out-of-order"
        case .duplicateTimestamp: "duplicate-timestamp"
        case .insideAccuracyRadius: "inside-accuracy-radius"
        case .belowMinimumDistance: "below-minimum-distance"
        case .impliedSpeed: "implied-speed"
        case .stationary: "stationary"
        case .kalmanOutlier: "kalman-outlier"
        }
    }

    public var description: String { identifier }

    /// Why fixes were dropped for this reason, as a clause about them for diagnostics
    /// ("they were taken within the warm-up after the start").
    public var explanation: String {
        switch value {
        case .invalidAccuracy: "they have no valid horizontal accuracy"
        case .inaccurate: "their horizontal accuracy is worse than the preset allows"
        case .stale: "they lagged the stream's own pace by more than the preset's maximum age, as cached fixes do"
        case .warmUp: "they were taken within the warm-up after the start"
        case .outOfOrder: "they are timestamped before the last accepted fix"
        case .duplicateTimestamp: "they repeat the last accepted fix's time"
        case .insideAccuracyRadius: "they moved less than the accuracy radius allows"
        case .belowMinimumDistance: "they moved less than the distance filter"
        case .impliedSpeed: "reaching them needs an impossible speed"
        case .stationary: "the device is still"
        case .kalmanOutlier: "the Kalman filter's gate rejected them as outliers"
        }
    }
}

/// How many fixes went in, how many came out, and why each of the others was dropped.
///
/// A fixed-size counter table, so counting never allocates on the hot path.
public struct FilterReport: Hashable, Sendable, CustomStringConvertible {
    /// Fixes offered.
    public private(set) var received = 0
    /// Fixes passed on.
    public private(set) var accepted = 0
    // One slot per `RejectionReason.Value` case, indexed by its raw value.
    private var counts = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    public init() {}

    /// The number of fixes dropped for `reason`.
    public func count(of reason: RejectionReason) -> Int {
        withUnsafeBytes(of: counts) { $0.load(fromByteOffset: reason.value.rawValue * MemoryLayout<Int>.stride, as: Int.self) }
    }

    /// All fixes dropped, for any reason.
    public var rejected: Int { received - accepted }

    /// Counts one fix offered and its fate (`nil` = accepted).
    public mutating func record(_ reason: RejectionReason?) {
        received += 1
        guard let reason else { accepted += 1; return }
        add(1, to: reason)
    }

    /// Turns one accepted fix into a rejection (used when a later stage drops it).
    public mutating func reclassify(acceptedAs reason: RejectionReason) {
        accepted -= 1
        received -= 1
        record(reason)
    }

    /// Turns one fix dropped for `reason` back into an accepted one (a later stage took it back).
    public mutating func reinstate(rejectedAs reason: RejectionReason) {
        accepted += 1
        add(-1, to: reason)
    }

    /// Adds another report's counts to this one.
    public mutating func merge(_ other: FilterReport) {
        received += other.received
        accepted += other.accepted
        for reason in RejectionReason.allReasons { add(other.count(of: reason), to: reason) }
    }

    private mutating func add(_ n: Int, to reason: RejectionReason) {
        withUnsafeMutableBytes(of: &counts) { raw in
            let offset = reason.value.rawValue * MemoryLayout<Int>.stride
            raw.storeBytes(of: raw.load(fromByteOffset: offset, as: Int.self) + n, toByteOffset: offset, as: Int.self)
        }
    }

    public static func == (l: FilterReport, r: FilterReport) -> Bool {
        l.received == r.received && l.accepted == r.accepted
            && RejectionReason.allReasons.allSatisfy { l.count(of: $0) == r.count(of: $0) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(received)
        for reason in RejectionReason.allReasons { hasher.combine(count(of: reason)) }
    }

    /// One line per non-zero reason: `reason count`, then the totals.
    public var description: String {
        var lines = ["received \(received)", "accepted \(accepted)"]
        for reason in RejectionReason.allReasons where count(of: reason) > 0 {
            lines.append("\(reason.identifier) \(count(of: reason))")
        }
        return lines.joined(separator: "\n")
    }
}
