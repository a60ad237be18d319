// Region monitoring: (1) throughput of FenceEngine with 100,000 circles and polygons over a
// 60 km square, a seeded 1 Hz drive through it (fixes/s, after the first 30 s that decide
// every condition), and with DISTRICTS more 64-gons of 10–20 km radius over a 600 km square
// around it (districts of a country: the index's coarser grids); (2) drives simulated through Monaco's boundary polygon with the route
// simulation source: the delay between each true crossing and its event.
// Usage: MonitorBench throughput [conditions] [fixes] [districts] | MonitorBench monaco POLY [drives]
import BenchSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GeoCore
import Monitoring
import Positioning

let arguments = CommandLine.arguments
let origin = Coordinate(uncheckedLatitude: 48.137, longitude: 11.575)
let frame = LocalFrame(origin: origin)

func throughput(conditions: Int, fixes: Int, districts: Int) throws {
    var rng = SplitMix64(seed: 2026)
    var engine = FenceEngine()
    let half = 30_000.0
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    for k in 0..<districts {
        let c = (east: rng.uniform(-10 * half, 10 * half), north: rng.uniform(-10 * half, 10 * half)), radius = rng.uniform(10_000, 20_000)
        var ring = (0..<64).map { i in frame.coordinate(east: c.east + radius * sin(Double(i) * .pi / 32), north: c.north + radius * cos(Double(i) * .pi / 32)) }
        ring.append(ring[0])
        try engine.add(.polygon(try PolygonRegion(polygons: [[ring]])), identifier: "d\(k)", at: t0)
    }
    for k in 0..<conditions {
        let centre = frame.coordinate(east: rng.uniform(-half, half), north: rng.uniform(-half, half))
        let radius = rng.uniform(50, 500)
        if k % 10 == 0 { // one in ten a 16-gon polygon of that size
            let c = frame.point(for: centre)
            var ring = (0..<16).map { i in frame.coordinate(east: c.east + radius * sin(Double(i) * .pi / 8), north: c.north + radius * cos(Double(i) * .pi / 8)) }
            ring.append(ring[0])
            try engine.add(.polygon(try PolygonRegion(polygons: [[ring]])), identifier: "p\(k)", at: t0)
        } else {
            try engine.add(.circle(try CircularGeographicCondition(center: centre, radius: .meters(radius))), identifier: "c\(k)", at: t0)
        }
    }
    // A drive: 15 m/s, turning slowly, reflected at the square's edges, 10 m accuracy with noise.
    var east = 0.0, north = 0.0, heading = 0.3
    var track: [Location] = []
    track.reserveCapacity(fixes)
    for i in 0..<fixes {
        heading += rng.gaussian() * 0.05
        east += 15 * sin(heading); north += 15 * cos(heading)
        if abs(east) > half { heading = -heading; east = max(min(east, half), -half) }
        if abs(north) > half { heading = .pi - heading; north = max(min(north, half), -half) }
        track.append(Location(coordinate: frame.coordinate(east: east + rng.gaussian() * 6.6, north: north + rng.gaussian() * 6.6),
                              timestamp: t0.addingTimeInterval(Double(i)), horizontalAccuracy: .meters(10)))
    }
    let warmUp = 30
    var events = 0
    // Thread CPU time as well as wall time: on a shared machine the wall clock also counts
    // the time other processes held the core.
    func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
    let clock = ContinuousClock()
    let cpu0 = cpuSeconds()
    let first = clock.measure { for fix in track[..<warmUp] { events += engine.process(fix).count } }
    let cpu1 = cpuSeconds()
    let rest = clock.measure { for fix in track[warmUp...] { events += engine.process(fix).count } }
    let cpu2 = cpuSeconds()
    let seconds = Double(rest.components.seconds) + Double(rest.components.attoseconds) * 1e-18
    let warmSeconds = Double(first.components.seconds) + Double(first.components.attoseconds) * 1e-18
    let n = Double(fixes - warmUp)
    print("throughput: \(conditions) conditions\(districts > 0 ? " and \(districts) districts" : ""), \(fixes - warmUp) fixes: \(Int(n / (cpu2 - cpu1))) fixes/s of CPU time, "
          + "\(Int(n / seconds)) fixes/s of wall time; the first \(warmUp) fixes (every condition undecided) "
          + "\(String(format: "%.2f", cpu1 - cpu0)) s CPU, \(String(format: "%.2f", warmSeconds)) s wall; \(events) events")
}

func monaco(poly path: String, drives: Int, sigma: Double) async throws {
    let region = try PolygonRegion(osmosisPoly: String(contentsOfFile: path, encoding: .utf8), file: path)
    let ring = region.polygons[0][0]
    let south = ring.map(\.latitude).min()!, north = ring.map(\.latitude).max()!
    let west = ring.map(\.longitude).min()!, east = ring.map(\.longitude).max()!
    var rng = SplitMix64(seed: 377)
    var delays: [Double] = [], missed = 0, spurious = 0, crossings = 0
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    var drive = 0
    while drive < drives {
        let middle = Coordinate(uncheckedLatitude: rng.uniform(south, north), longitude: rng.uniform(west, east))
        guard region.contains(middle) else { continue }
        drive += 1
        let f = LocalFrame(origin: middle), bearing = rng.uniform(0, 2 * .pi)
        let line = [f.coordinate(east: -3_000 * sin(bearing), north: -3_000 * cos(bearing)),
                    f.coordinate(east: 3_000 * sin(bearing), north: 3_000 * cos(bearing))]
        // The truth: the noise-free path at 0.1 s.
        let exact = try RouteSimulationSource(polyline: line, movementSpeed: .metersPerSecond(13.9), updateInterval: .milliseconds(100),
                                              pacing: .asFastAsPossible, startDate: t0)
        var truth: [(Date, ConditionState)] = []
        var inside: Bool?
        for try await case .location(let l) in exact.events() {
            let now = region.contains(l.coordinate)
            if let inside, inside != now { truth.append((l.timestamp, now ? .satisfied : .unsatisfied)) }
            inside = now
        }
        let noisy = try RouteSimulationSource(polyline: line, movementSpeed: .metersPerSecond(13.9), updateInterval: .seconds(1),
                                              noise: .init(sigma: .meters(sigma), seed: UInt64(drive)), pacing: .asFastAsPossible, startDate: t0)
        var engine = FenceEngine()
        try engine.add(.polygon(region), identifier: "monaco", at: t0)
        var events: [MonitorEvent] = []
        for try await case .location(let l) in noisy.events() { events += engine.process(l) }
        // Pair each state change after the first decision with the first unclaimed true
        // crossing of the same direction before it.
        let changes = events.dropFirst().filter { $0.refinement == nil }
        crossings += truth.count
        var claimed = Set<Int>()
        for e in changes {
            if let k = truth.indices.last(where: { !claimed.contains($0) && truth[$0].1 == e.state && truth[$0].0 <= e.date }) {
                claimed.insert(k)
                delays.append(e.date.timeIntervalSince(truth[k].0))
            } else {
                spurious += 1
            }
        }
        // The first decision stands for the start; crossings never claimed are missed (short
        // passages through a corner the fence cannot confirm).
        missed += truth.count - claimed.count
    }
    delays.sort()
    func q(_ p: Double) -> String { delays.isEmpty ? "-" : String(format: "%.0f", delays[min(Int(Double(delays.count) * p), delays.count - 1)]) }
    print("monaco (σ \(sigma) m per axis, accuracy \(String(format: "%.1f", sigma * 1.5096)) m, 13.9 m/s, 1 Hz): \(drives) drives, "
          + "\(crossings) true crossings, \(delays.count) events paired: delay median \(q(0.5)) s, p10 \(q(0.1)) s, p90 \(q(0.9)) s; "
          + "\(missed) missed, \(spurious) spurious")
}

switch arguments.dropFirst().first {
case "throughput":
    try throughput(conditions: arguments.count > 2 ? Int(arguments[2])! : 100_000, fixes: arguments.count > 3 ? Int(arguments[3])! : 500_000,
                   districts: arguments.count > 4 ? Int(arguments[4])! : 0)
case "monaco":
    for sigma in [3.0, 10.0] {
        try await monaco(poly: arguments[2], drives: arguments.count > 3 ? Int(arguments[3])! : 50, sigma: sigma)
    }
default:
    print("usage: MonitorBench throughput [conditions] [fixes] | MonitorBench monaco POLY [drives]")
}
