import Foundation
import GeoCore
import Histogram
import NIOCore

/// Latencies in microseconds, all together and by the window of the run they fall in, an
/// HdrHistogram each (3 significant digits: a percentile is exact to 0.1 %): a tail made by a
/// passing backlog (the devices connecting, a stall) shows in a few windows, one of a saturated
/// server in every window. `geo loadgen`'s request → ack (`LoadGenerator.Report`) and its
/// subscribers' fix time → delivery (`LiveSubscribers.Report`).
struct Latencies: Sendable {
    var all = Latencies.histogram()
    /// One histogram per `window` of the run from its start.
    var windows: [Histogram<UInt64>] = []
    /// The width of `windows`' windows (`window(for:)`).
    var window = TimeAmount.seconds(10)

    init(duration: Duration? = nil) {
        if let duration { window = Self.window(for: duration) }
    }

    /// 10 s, or wider for a run over 10 minutes: about 60 windows at most (each histogram
    /// holds ~140 KB: a day's run in 10 s windows would take 1.2 GB a shard).
    static func window(for duration: Duration) -> TimeAmount {
        .seconds(max(10, Int64((duration.seconds / 60).rounded(.up))))
    }

    var count: Int { Int(all.totalCount) }

    /// The `p`-th percentile (0…100), seconds; NaN with none.
    func percentile(_ p: Double) -> Double { Self.seconds(atPercentile: p, of: all) }

    /// The longest, seconds; NaN with none.
    var maximum: Double { all.totalCount == 0 ? .nan : Double(all.max) / 1e6 }

    /// The `p`-th percentile of each `window` of the run, in order, seconds; NaN for a window
    /// without any.
    func percentileByWindow(_ p: Double) -> [Double] {
        windows.map { Self.seconds(atPercentile: p, of: $0) }
    }

    /// `histogram`'s `p`-th percentile in seconds; NaN when it is empty.
    static func seconds(atPercentile p: Double, of histogram: Histogram<UInt64>) -> Double {
        histogram.totalCount == 0 ? .nan : Double(histogram.valueAtPercentile(p)) / 1e6
    }

    /// Records a latency (µs) that belongs `sinceStart` after the run's start.
    mutating func record(_ microseconds: UInt64, sinceStart: TimeAmount) {
        _ = all.record(microseconds)
        let k = max(0, Int(sinceStart.nanoseconds / window.nanoseconds))
        while windows.count <= k { windows.append(Self.histogram()) }
        _ = windows[k].record(microseconds)
    }

    /// An empty histogram of latencies in µs, 1 µs to 60 s at 3 significant digits (and past
    /// 60 s by resizing).
    static func histogram() -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        histogram.autoResize = true
        return histogram
    }

    mutating func add(_ other: Latencies) {
        all.add(other.all)
        while windows.count < other.windows.count { windows.append(Self.histogram()) }
        for (k, window) in other.windows.enumerated() { windows[k].add(window) }
    }

    /// `p99 ms by 10 s of the run 2.00 nan 700.00`.
    func p99ByWindow(of what: String) -> String {
        "p99 ms by \(window.nanoseconds / 1_000_000_000) s of \(what) \(percentileByWindow(99).map { String(format: "%.2f", $0 * 1000) }.joined(separator: " "))"
    }
}
