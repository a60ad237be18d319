// Positioning pipeline benchmark (driver: Benchmarks/pipeline.sh), issue 5 "Numbers".
//
//   PipelineBench [FIXES] [ROUNDS] [airborne|default] [unbounded|newest256] [notifications|quiet]
//
// Replays FIXES synthetic 10 Hz fixes (default 864,000 = 24 h) through
// LocationReplaySource(.asFastAsPossible) → PositioningManager → two subscribers of
// `manager.events(bufferingPolicy:)`, each counting `.updated` events; ROUNDS times (the same
// manager started again on the same source). Later rounds replay the same timestamps, so for
// the manager time runs backwards at each restart and `averageSpeed` takes its O(window) path:
// use one long round to measure throughput, several to see memory across restarts.
// Prints, per round, fixes/s end to end (start() until both subscribers saw the round's last
// fix) by wall clock and per CPU second, the events each subscriber saw (fewer than FIXES means
// the buffering policy dropped some), and VmRSS sampled every 100,000 fixes plus VmHWM.
import BenchSupport
import Foundation
import GeoCore
import Positioning
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// VmRSS and VmHWM from /proc/self/status, in KiB (0 where unavailable).
func memoryKiB() -> (rss: Int, hwm: Int) {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    var rss = 0, hwm = 0
    for line in text.split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let value = Int(parts[1]) else { continue }
        if parts[0] == "VmRSS:" { rss = value } else if parts[0] == "VmHWM:" { hwm = value }
    }
    return (rss, hwm)
}

func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }

/// A 10 Hz fix of a device moving due east along the parallel of 48.137° N at 13.9 m/s (so no
/// preset counts it as stationary), with the fields a receiver reports, its Doppler speed and
/// course agreeing with its positions. (Fixes whose reported 13.9 m/s and spinning course
/// contradicted positions 0.16 m apart made the Kalman gate drop 19 % of them as outliers.)
func fix(_ i: Int) -> Location {
    let x = Double(i)
    return Location(coordinate: Coordinate(uncheckedLatitude: latitude, longitude: 11.575_490 + x * 1.39 / metresPerDegreeOfLongitude),
                    timestamp: Date(timeIntervalSince1970: 1_790_000_000 + x * 0.1),
                    altitude: .meters(519.4), horizontalAccuracy: .meters(3.5), verticalAccuracy: .meters(6.5),
                    speed: Speed(metersPerSecond: 13.9), course: Bearing(degrees: 90),
                    fixMode: .threeDimensional, fixQuality: .gps, satelliteCount: 9)
}
let latitude = 48.137_154
/// The length of one degree along the parallel on WGS84: (π/180)·a·cos φ / √(1 − e² sin² φ).
let metresPerDegreeOfLongitude: Double = {
    let a = 6_378_137.0, e2 = 0.006_694_379_990_14, phi = latitude * .pi / 180
    return .pi / 180 * a * cos(phi) / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
}()

let args = CommandLine.arguments
let fixes = args.count > 1 ? Int(args[1]) ?? 864_000 : 864_000
let rounds = args.count > 2 ? Int(args[2]) ?? 1 : 1
let preset = args.count > 3 ? args[3] : "airborne"
let policyName = args.count > 4 ? args[4] : "unbounded"
let notifications = args.count > 5 ? args[5] : "notifications"
let sampleEvery = 100_000

let locations = (0..<fixes).map(fix)
let source = try LocationReplaySource(locations: locations, pacing: .asFastAsPossible, name: "bench")
let manager = PositioningManager(source: source)
await manager.setConfiguration(preset == "default" ? .default : .airborne)
if notifications == "quiet" { await manager.setPostsNotifications(false) }
let policy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy = policyName == "unbounded" ? .unbounded : .bufferingNewest(256)

/// What a subscriber saw in one round.
struct RoundResult: Sendable {
    var subscriber: Int
    var updates: Int
    var lastFix: ContinuousClock.Instant
    var rssKiB: [Int]
}

let (results, resultSink) = AsyncStream.makeStream(of: RoundResult.self)
let clock = ContinuousClock()

/// Counts `.updated` events; reports one `RoundResult` per `.stopped` (the end of a replay).
func subscribe(_ id: Int, _ events: PositioningEvents) -> Task<Void, Never> {
    Task {
        var updates = 0, rss: [Int] = []
        var last = clock.now
        for await event in events {
            switch event {
            case .updated:
                updates += 1
                if id == 0, updates % sampleEvery == 0 { rss.append(memoryKiB().rss) }
                if updates == fixes { last = clock.now }
            case .stopped:
                if updates != fixes { last = clock.now }
                resultSink.yield(RoundResult(subscriber: id, updates: updates, lastFix: last, rssKiB: rss))
                updates = 0
                rss = []
            default: break
            }
        }
    }
}

let subscribers = [subscribe(0, manager.events(bufferingPolicy: policy)), subscribe(1, manager.events(bufferingPolicy: policy))]
print("pipeline fixes=\(fixes) rounds=\(rounds) preset=\(preset) policy=\(policyName) \(notifications) subscribers=2")
print("rss before replay (fixes array built): \(mib(memoryKiB().rss)) MiB")
/// Runs the rounds, printing one line each.
func runRounds() async {
    var iterator = results.makeAsyncIterator()
    for round in 1...rounds {
        let start = clock.now, cpu0 = cpuSeconds()
        await manager.start()
        var seen: [RoundResult] = []
        while seen.count < 2, let r = await iterator.next() { seen.append(r) }
        let cpu = cpuSeconds() - cpu0
        let end = seen.map(\.lastFix).max() ?? clock.now
        let wall = (end - start) / .seconds(1)
        let counts = seen.sorted { $0.subscriber < $1.subscriber }.map(\.updates)
        let drops = counts.map { fixes - $0 }
        let samples = seen.first { $0.subscriber == 0 }?.rssKiB ?? []
        let mem = memoryKiB()
        print(String(format: "round %d: wall_s=%.3f cpu_s=%.3f fixes/s=%.0f fixes/cpu_s=%.0f", round, wall, cpu,
                     Double(fixes) / wall, Double(fixes) / cpu)
              + " seen=\(counts) dropped=\(drops) rss_MiB_every_\(sampleEvery)=[\(samples.map(mib).joined(separator: ","))]"
              + " rss_MiB=\(mib(mem.rss)) hwm_MiB=\(mib(mem.hwm))")
    }
}
await runRounds()
// What the track filter dropped in the last round, by reason: the `seen` shortfall above.
print("filter (last round): \(await manager.filterReport)")
subscribers.forEach { $0.cancel() }
