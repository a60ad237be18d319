package import GeoCore
package import TrackFiltering
package import Platform
import GeoBase

/// A clean track used as ground truth: resampled to a steady rate on a local plane, with
/// speeds and courses, optionally with a stop inserted so stationary drift can be measured.
package struct TruthTrack: Sendable {
    /// The plane positions are measured on (origin at the first fix).
    package let frame: LocalFrame
    /// Seconds between samples.
    package let interval: Double
    /// Sample times.
    package let times: [Date]
    let points: [Vec2]
    /// Truth speed at each sample, m/s.
    package let speeds: [Double]
    /// Truth course at each sample, degrees clockwise from north (meaningless when still).
    package let courses: [Double]
    /// The inserted stop, if any.
    package let stop: DateInterval?

    /// Resamples `track` (sorted by time; fixes without a later time are skipped) by linear
    /// interpolation, and optionally inserts a stop of `stopDuration` at `stopFraction` of it.
    /// - Throws: `TrackFilteringError` with `.invalidParameter` when fewer than two fixes have
    ///   increasing times or the interval is not positive.
    /// - Complexity: O(n + samples).
    package init(resampling track: [Location], interval: Duration = .seconds(1),
                stopDuration: Duration? = nil, stopFraction: Double = 0.5) throws(TrackFilteringError) {
        let step = interval.seconds
        guard step > 0 else { throw TrackFilteringError(.invalidParameter, "resampling interval must be positive") }
        var clean: [Location] = []
        for fix in track where clean.last.map({ fix.timestamp > $0.timestamp }) ?? true { clean.append(fix) }
        guard clean.count >= 2, let first = clean.first, let last = clean.last else {
            throw TrackFilteringError(.invalidParameter, "a truth track needs at least two fixes with increasing times")
        }
        let frame = LocalFrame(origin: first.coordinate)
        let xy = clean.map { l -> Vec2 in let p = frame.point(for: l.coordinate); return Vec2(x: p.east, y: p.north) }
        let t0 = first.timestamp
        let total = last.timestamp.timeIntervalSince(t0)
        var points: [Vec2] = []
        var j = 0
        var t = 0.0
        while t <= total {
            while j + 1 < clean.count - 1, clean[j + 1].timestamp.timeIntervalSince(t0) <= t { j += 1 }
            let ta = clean[j].timestamp.timeIntervalSince(t0), tb = clean[j + 1].timestamp.timeIntervalSince(t0)
            let w = min(max((t - ta) / (tb - ta), 0), 1)
            points.append(xy[j] + (xy[j + 1] - xy[j]) * w)
            t += step
        }
        var stopInterval: DateInterval?
        if let stopDuration, stopDuration.seconds >= step {
            let at = min(max(Int(Double(points.count) * stopFraction), 1), points.count - 1)
            let extra = Int(stopDuration.seconds / step)
            points.insert(contentsOf: repeatElement(points[at], count: extra), at: at + 1)
            stopInterval = DateInterval(start: t0.addingTimeInterval(Double(at) * step),
                                        duration: Double(extra) * step)
        }
        var speeds = [Double](repeating: 0, count: points.count)
        var courses = [Double](repeating: 0, count: points.count)
        for k in points.indices {
            let a = points[max(k - 1, 0)], b = points[min(k + 1, points.count - 1)]
            let span = Double(min(k + 1, points.count - 1) - max(k - 1, 0)) * step
            let d = b - a
            speeds[k] = span > 0 ? d.norm / span : 0
            courses[k] = Bearing(degrees: atan2(d.x, d.y) * 180 / .pi).degrees
        }
        if let stopInterval {
            for k in points.indices {
                let tk = t0.addingTimeInterval(Double(k) * step)
                if stopInterval.contains(tk) { speeds[k] = 0 }
            }
        }
        self.frame = frame
        self.interval = step
        self.points = points
        self.times = points.indices.map { t0.addingTimeInterval(Double($0) * step) }
        self.speeds = speeds
        self.courses = courses
        self.stop = stopInterval
    }

    /// The number of samples.
    package var count: Int { points.count }

    /// The truth as fixes (perfect accuracy, truth speed and course).
    package var locations: [Location] {
        points.indices.map { k in
            Location(coordinate: frame.coordinate(east: points[k].x, north: points[k].y), timestamp: times[k],
                     horizontalAccuracy: .zero, speed: Speed(metersPerSecond: speeds[k]),
                     course: speeds[k] > 0 ? Bearing(degrees: courses[k]) : nil)
        }
    }

    /// The continuous time of `date` in samples from the start, clamped to the track.
    private func sampleIndex(_ date: Date) -> Double {
        min(max(date.timeIntervalSince(times[0]) / interval, 0), Double(points.count - 1))
    }

    /// The truth position at a time, on the plane.
    package func position(at date: Date) -> Vec2 {
        let s = sampleIndex(date)
        let k = min(Int(s), points.count - 2)
        let w = s - Double(k)
        return points[k] + (points[k + 1] - points[k]) * w
    }

    /// The truth velocity at a time, m/s on the plane (of the sample segment containing it).
    func velocity(at date: Date) -> Vec2 {
        let k = min(Int(sampleIndex(date)), points.count - 2)
        return (points[k + 1] - points[k]) * (1 / interval)
    }

    /// The path length between two times, metres.
    package func length(from start: Date, to end: Date) -> Double {
        guard end > start else { return 0 }
        let a = sampleIndex(start), b = sampleIndex(end)
        var total = 0.0
        var previous = position(at: start)
        var k = Int(a) + 1
        while Double(k) < b {
            total += (points[k] - previous).norm
            previous = points[k]
            k += 1
        }
        return total + (position(at: end) - previous).norm
    }

    /// The path length between two times as a logger sampling at `times` (increasing) sees it:
    /// straight lines through the truth's positions at those of `times` inside the span and at
    /// its ends, metres. A logger that fixes every 5–60 s cuts the bends between its fixes, so
    /// no filter of its fixes can recover the length the 1 s truth has.
    /// - Complexity: O(times).
    package func length(sampledAt times: [Date], from start: Date, to end: Date) -> Double {
        guard end > start else { return 0 }
        var total = 0.0
        var previous = position(at: start)
        for t in times where t > start && t < end {
            let here = position(at: t)
            total += (here - previous).norm
            previous = here
        }
        return total + (position(at: end) - previous).norm
    }

    /// The whole length, metres.
    package var length: Double { length(from: times[0], to: times[times.count - 1]) }
}

