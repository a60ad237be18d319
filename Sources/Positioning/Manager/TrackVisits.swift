public import Foundation
public import GeoCore
public import GPXCodec
public import Monitoring

/// The visits of a recorded track (`geo visits`): its track points, every track and segment in
/// file order, through a `VisitDetector`, with what the read saw of the track's times. Points
/// without a time are skipped; the first point earlier than the point before it ends the read
/// (the visits before it stand; the track needs sorting by time).
public struct TrackVisits: Sendable {
    /// The track points read.
    public private(set) var points = 0
    /// The points without a time, skipped.
    public private(set) var untimed = 0
    /// The last fix the detector took.
    public private(set) var lastFix: Location?
    /// The first point earlier than the point before it, where the read stopped: its number
    /// from 1, its time and the time of the fix before it.
    public private(set) var backwards: (point: Int, time: Date, last: Date)?
    /// The stay under way at the last fix (not finished by a departure), if any.
    public private(set) var current: Visit?

    /// ``current`` as `geo visits` ends with it: its JSON line (`EventJSON.visit`) with the
    /// last fix's time; nil when no stay is under way.
    public var currentVisitLine: String? {
        guard let current, let lastFix else { return nil }
        return EventJSON.visit(current, event: false, lastFix: lastFix.timestamp)
    }

    /// Reads `reader`'s track points through `detector`, each point's accuracy by `accuracy`
    /// (points it gives none are skipped), calling `visit` with each finished visit in order.
    /// - Throws: the reader's `GPXError`.
    public static func read(_ reader: GPXStreamReader, detector: VisitDetector, accuracy: GPXAccuracyPolicy,
                            visit: (Visit) -> Void) throws(GPXError) -> TrackVisits {
        var detector = detector
        var read = TrackVisits()
        while let event = try reader.next() {
            guard case .trackPoint(let point) = event else { continue }
            read.points += 1
            guard let time = point.time else {
                read.untimed += 1
                continue
            }
            if let last = read.lastFix?.timestamp, time < last {
                read.backwards = (read.points, time, last)
                break
            }
            guard let fix = Location(gpxPoint: point, accuracy: accuracy) else { continue }
            read.lastFix = fix
            for case .departure(let finished) in detector.update(with: fix) { visit(finished) }
        }
        read.current = detector.currentVisit
        return read
    }
}
