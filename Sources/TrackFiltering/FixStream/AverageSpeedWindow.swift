public import GeoCore
import Platform

/// The mean ground speed over the fixes of a sliding time window (the "average speed" of
/// navigation SDKs): each fix contributes its reported speed, or else the speed implied by the
/// distance from the previous fix over the time between them. Time comes from the fixes'
/// timestamps only; the window ends at the newest fix, and a speed older than the window
/// behind the newest fix leaves for good (a later fix stamped earlier does not bring it back).
public struct AverageSpeedWindow: Sendable {
    /// How far back from the newest fix speeds count.
    public var duration: Duration
    /// The mean of the speeds in the window; nil until one fix has a speed.
    public private(set) var average: Speed?

    /// The window's speeds are `samples[start...]`, summing to `sum`.
    private var samples: [(time: Date, speed: Double)] = []
    private var start = 0
    private var sum = 0.0
    /// Whether the window's timestamps never decrease (then expiry only removes a prefix).
    private var sorted = true
    private var previous: Location?

    public init(duration: Duration) { self.duration = duration }

    /// The speeds currently in the window.
    public var count: Int { samples.count - start }

    /// Adds the fix's speed to the window and returns the new average.
    ///
    /// A fix without a usable reported speed (nil, negative or not finite) contributes the
    /// speed implied by the previous fix, when time moved forward between them; otherwise it
    /// only becomes the previous fix for the next one.
    /// - Complexity: amortised O(1) while timestamps do not run backwards (the window is then
    ///   sorted, so expired speeds are a prefix and the sum is kept running); O(window) for
    ///   each fix that arrives out of order, and for the fixes after it while the window still
    ///   holds it.
    @discardableResult
    public mutating func add(_ location: Location) -> Speed? {
        var speed = location.speed?.metersPerSecond
        if !(speed.map { $0.isFinite && $0 >= 0 } ?? false) {
            speed = nil
            if let previous {
                let dt = location.timestamp.timeIntervalSince(previous.timestamp)
                if dt > 0 { speed = previous.coordinate.distance(to: location.coordinate).meters / dt }
            }
        }
        previous = location
        guard let speed, speed.isFinite else { return average }
        if let last = samples.last, start < samples.count, location.timestamp < last.time { sorted = false }
        samples.append((location.timestamp, speed))
        sum += speed
        let horizon = location.timestamp.addingTimeInterval(-duration.seconds)
        if sorted {
            while start < samples.count, samples[start].time < horizon {
                sum -= samples[start].speed
                start += 1
            }
            if start == samples.count { sum = 0 }
            if start >= 1024, start * 2 >= samples.count { compact() }
        } else {
            samples.removeFirst(start)
            start = 0
            samples.removeAll { $0.time < horizon }
            sorted = zip(samples, samples.dropFirst()).allSatisfy { $0.time <= $1.time }
            sum = samples.reduce(0) { $0 + $1.speed }
        }
        average = Speed(metersPerSecond: sum / Double(samples.count - start))
        return average
    }

    /// Drops the expired prefix and adds the sum up afresh, so rounding does not drift.
    private mutating func compact() {
        samples.removeFirst(start)
        start = 0
        sum = samples.reduce(0) { $0 + $1.speed }
    }
}
