package import GeoCore
import TrackFiltering
package import Platform

/// How close a filtered track is to the truth.
package struct TrackMetrics: Hashable, Sendable {
    /// Fixes in the filtered track.
    package var count: Int
    /// Root-mean-square distance from each fix to the truth at its timestamp, metres.
    package var rmse: Double
    /// Path length against the truth's over the same time span, percent (positive = too long);
    /// the truth as sampled at the logger's times when those are given.
    package var lengthErrorPercent: Double
    /// Path length accumulated inside the truth's stop, metres per 10 minutes (nil: no stop).
    package var stationaryDriftPer10Minutes: Double?
    /// Mean along-track error where the truth moves at walking speed (0.5–2.5 m/s), metres,
    /// positive = behind the truth (nil: fewer than 20 such fixes).
    package var walkingLag: Double?

    /// Measures `track` (in delivery order, as a map would draw it) against `truth`.
    /// - Parameter sampleTimes: when the logger fixed (increasing), if it did not fix at every
    ///   truth sample: the length is then measured against the truth's at those times
    ///   (`TruthTrack.length(sampledAt:from:to:)`), the most any filter of those fixes can see.
    /// - Complexity: O(n + truth samples).
    package init(_ track: [Location], truth: TruthTrack, sampleTimes: [Date]? = nil) {
        count = track.count
        guard let first = track.first else {
            rmse = .nan
            lengthErrorPercent = .nan
            stationaryDriftPer10Minutes = nil
            walkingLag = nil
            return
        }
        var squares = 0.0, length = 0.0, drift = 0.0, lagSum = 0.0, lagCount = 0
        var previous: Vec2?
        var previousInStop = false
        var earliest = first.timestamp, latest = first.timestamp
        for fix in track {
            let p = truth.frame.point(for: fix.coordinate)
            let here = Vec2(x: p.east, y: p.north)
            let error = here - truth.position(at: fix.timestamp)
            squares += error.x * error.x + error.y * error.y
            let inStop = truth.stop?.contains(fix.timestamp) ?? false
            if let previous {
                let hop = (here - previous).norm
                length += hop
                if inStop && previousInStop { drift += hop }
            }
            previous = here
            previousInStop = inStop
            earliest = min(earliest, fix.timestamp)
            latest = max(latest, fix.timestamp)
            let v = truth.velocity(at: fix.timestamp)
            let speed = v.norm
            if speed >= 0.5, speed <= 2.5 {
                lagSum -= (error.x * v.x + error.y * v.y) / speed
                lagCount += 1
            }
        }
        rmse = (squares / Double(track.count)).squareRoot()
        let truthLength = sampleTimes.map { truth.length(sampledAt: $0, from: earliest, to: latest) }
            ?? truth.length(from: earliest, to: latest)
        lengthErrorPercent = truthLength > 0 ? (length - truthLength) / truthLength * 100 : .nan
        stationaryDriftPer10Minutes = truth.stop.map { drift * 600 / $0.duration }
        walkingLag = lagCount >= 20 ? lagSum / Double(lagCount) : nil
    }
}
