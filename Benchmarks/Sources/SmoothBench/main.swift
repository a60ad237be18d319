// The fixed-lag RTS smoother's memory: a seeded 1 Hz noisy walk of N fixes (default 1,000,000),
// generated one fix at a time and never stored, smoothed with the fitness preset's rules and
// Student-t noise, each smoothed fix counted and dropped. Run under /usr/bin/time -v
// (Benchmarks/rss.sh): the peak RSS stays flat in N with the standard window and grows with N
// with `--whole` (the whole track in one window, as before the fixed lag).
import BenchSupport
import Foundation
import GeoCore
import TrackFiltering

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap { Int($0) } ?? 1_000_000
let window: KalmanSmoother.SmoothingWindow = arguments.contains("--whole") ? .wholeTrack : .standard

// The walk: 1.4 m/s with a slowly wandering heading, white noise of 3 m, 1 % multipath jumps.
let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5))
let start = Date(timeIntervalSince1970: 1_700_000_000)
struct Walk: Sequence, IteratorProtocol {
    var rng = SplitMix64(seed: 1)
    var index = 0, e = 0.0, n = 0.0, heading = 0.0
    let count: Int
    mutating func next() -> (Location, Date?)? {
        guard index < count else { return nil }
        heading += 3 * rng.gaussian()
        e += 1.4 * sin(heading * .pi / 180)
        n += 1.4 * cos(heading * .pi / 180)
        if e * e + n * n > 5_000 * 5_000 { heading += 180 }
        var ne = e + 3 * rng.gaussian(), nn = n + 3 * rng.gaussian()
        if rng.uniform(0, 1) < 0.01 { ne += 80; nn -= 60 }
        let time = start.addingTimeInterval(Double(index))
        index += 1
        return (Location(coordinate: frame.coordinate(east: ne, north: nn), timestamp: time,
                         horizontalAccuracy: .meters(4.5)), time)
    }
}

let configuration = TrackFilterConfiguration.fitness
let smoother = KalmanSmoother(parameters: configuration.kalman ?? KalmanParameters())
var report = FilterReport()
var smoothed = 0
smoother.smoothing(Walk(count: count), rules: configuration.rules(), report: &report, window: window) { _ in smoothed += 1 }
print("fixes: \(count), smoothed: \(smoothed), window: \(window == .wholeTrack ? "whole track" : "\(window.core) + 2 × \(window.lag)")")
