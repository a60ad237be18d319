// Rules + Kalman filter throughput: a seeded 1 Hz noisy drive of N fixes (default 1,000,000)
// fed one fix at a time through TrackCleaner(configuration: .automotiveNavigation), as live
// updates would be. Prints fixes per second (best of 3). With `--export PATH` it also writes
// the fixes as CSV (t,east,north,accuracy) for the peer, scripts in Benchmarks/filters.sh; with
// `--gpx PATH` as a GPX track (accuracy, speed and course in LocationKit's point extension) for
// the CLI end-to-end figure.
import BenchSupport
import Foundation
import GeoCore
import GPXCodec
import TrackFiltering

/// Removes `--name VALUE` from `arguments` and returns VALUE.
func option(_ name: String, in arguments: inout ArraySlice<String>) -> String? {
    guard let i = arguments.firstIndex(of: name), arguments.index(after: i) < arguments.endIndex else { return nil }
    defer { arguments.removeSubrange(i...arguments.index(after: i)) }
    return arguments[arguments.index(after: i)]
}
var arguments = CommandLine.arguments.dropFirst()
let exportPath = option("--export", in: &arguments), gpxPath = option("--gpx", in: &arguments)
let count = arguments.first.flatMap { Int($0) } ?? 1_000_000

// The drive: 12 m/s with a slow random turn rate, white noise of 3 m, 1 % multipath jumps.
let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5))
var rng = SplitMix64(seed: 1)
var latitudes = [Double](), longitudes = [Double](), accuracies = [Double](), speeds = [Double](), courses = [Double]()
var easts = [Double](), norths = [Double]()
latitudes.reserveCapacity(count); longitudes.reserveCapacity(count); accuracies.reserveCapacity(count)
speeds.reserveCapacity(count); courses.reserveCapacity(count)
var e = 0.0, n = 0.0, heading = 0.0, turnRate = 0.0
for _ in 0..<count {
    turnRate = 0.95 * turnRate + 0.3 * rng.gaussian()
    heading += turnRate
    e += 12 * sin(heading * .pi / 180)
    n += 12 * cos(heading * .pi / 180)
    // Stay within 15 km of the origin so the track never leaves the test region.
    if e * e + n * n > 15_000 * 15_000 { heading += 180 }
    var ne = e + 3 * rng.gaussian(), nn = n + 3 * rng.gaussian()
    if rng.uniform(0, 1) < 0.01 { ne += 80; nn -= 60 }
    let c = frame.coordinate(east: ne, north: nn)
    latitudes.append(c.latitude)
    longitudes.append(c.longitude)
    easts.append(ne)
    norths.append(nn)
    accuracies.append(4.5)
    speeds.append(12 + 0.2 * rng.gaussian())
    courses.append(Bearing(degrees: heading + 2 * rng.gaussian()).degrees)
}
let start = Date(timeIntervalSince1970: 1_700_000_000)

if let exportPath {
    var text = "t,east,north,accuracy\n"
    text.reserveCapacity(count * 48)
    for i in 0..<count { text += "\(i),\(easts[i]),\(norths[i]),\(accuracies[i])\n" }
    try Data(text.utf8).write(to: URL(fileURLWithPath: exportPath))
}

if let gpxPath {
    var text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="FilterBench" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:lk="\(GPXPoint.locationExtensionNamespace)"><trk><trkseg>

        """
    text.reserveCapacity(count * 260)
    let iso = ISO8601DateFormatter()
    for i in 0..<count {
        text += "<trkpt lat=\"\(latitudes[i])\" lon=\"\(longitudes[i])\"><time>\(iso.string(from: start.addingTimeInterval(Double(i))))</time>"
            + "<extensions><lk:acc>\(accuracies[i])</lk:acc><lk:speed>\(speeds[i])</lk:speed><lk:sacc>0.3</lk:sacc>"
            + "<lk:course>\(courses[i])</lk:course><lk:cacc>4</lk:cacc></extensions></trkpt>\n"
    }
    text += "</trkseg></trk></gpx>\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: gpxPath))
}

/// The fixes' columns, passed to `run` as one value so the loop reads locals (globals of
/// main.swift pay dynamic exclusivity checks).
struct Columns {
    var latitudes: [Double], longitudes: [Double], accuracies: [Double], speeds: [Double], courses: [Double]
}

/// One pass: every fix through the rules and the Kalman filter. Returns a checksum so the
/// work cannot be optimised away, and the report.
func run(_ columns: Columns, count: Int, start: Date, rulesOnly: Bool = false) -> (Double, FilterReport) {
    let latitudes = columns.latitudes, longitudes = columns.longitudes, accuracies = columns.accuracies
    let speeds = columns.speeds, courses = columns.courses
    var configuration = TrackFilterConfiguration.automotiveNavigation
    if rulesOnly { configuration.kalman = nil }
    var cleaner = TrackCleaner(configuration: configuration, start: start)
    var checksum = 0.0
    for i in 0..<count {
        let t = start.addingTimeInterval(Double(i))
        let fix = Location(coordinate: Coordinate(uncheckedLatitude: latitudes[i], longitude: longitudes[i]),
                           timestamp: t, horizontalAccuracy: Distance(meters: accuracies[i]),
                           speed: Speed(metersPerSecond: speeds[i]), speedAccuracy: Speed(metersPerSecond: 0.3),
                           course: Bearing(degrees: courses[i]), courseAccuracy: .degrees(4))
        if case .accepted(let l) = cleaner.process(fix, receivedAt: t.addingTimeInterval(0.2)) {
            checksum += l.coordinate.latitude
        }
    }
    return (checksum, cleaner.report)
}

/// This thread's CPU time in seconds (steadier than wall time on a shared machine).
func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

let columns = Columns(latitudes: latitudes, longitudes: longitudes, accuracies: accuracies, speeds: speeds, courses: courses)
var bestWall = Double.infinity, bestCPU = Double.infinity
var last: (Double, FilterReport) = (0, FilterReport())
for _ in 0..<5 {
    let clock = ContinuousClock()
    let began = clock.now
    let cpu0 = cpuSeconds()
    last = run(columns, count: count, start: start)
    bestCPU = min(bestCPU, cpuSeconds() - cpu0)
    let elapsed = began.duration(to: clock.now)
    bestWall = min(bestWall, elapsed.seconds)
}
print("fixes: \(count)")
print("accepted: \(last.1.accepted), kalman outliers: \(last.1.count(of: .kalmanOutlier)), implied speed: \(last.1.count(of: .impliedSpeed))")
print(String(format: "rules + Kalman (best of 5): wall %.3f s = %.0f fixes/s; CPU %.3f s = %.0f fixes/s (checksum %.3f)",
             bestWall, Double(count) / bestWall, bestCPU, Double(count) / bestCPU, last.0))

// The rules alone (no Kalman filter), to show how the time splits between the two.
var bestRulesCPU = Double.infinity
for _ in 0..<5 {
    let cpu0 = cpuSeconds()
    last = run(columns, count: count, start: start, rulesOnly: true)
    bestRulesCPU = min(bestRulesCPU, cpuSeconds() - cpu0)
}
print(String(format: "rules only (best of 5): CPU %.3f s = %.0f fixes/s (checksum %.3f)",
             bestRulesCPU, Double(count) / bestRulesCPU, last.0))

// Why GeoCore keeps the fast LocalFrame beside the exact LocalTangentPlane:
// the cost of one fix's round trip (coordinate → plane → coordinate) on each.
func roundTrips(_ columns: Columns, count: Int) -> (frame: Double, tangentPlane: Double) {
    let origin = Coordinate(uncheckedLatitude: columns.latitudes[0], longitude: columns.longitudes[0])
    let frame = LocalFrame(origin: origin), plane = LocalTangentPlane(origin: origin)
    var sum = 0.0
    let c0 = cpuSeconds()
    for i in 0..<count {
        let p = frame.point(for: Coordinate(uncheckedLatitude: columns.latitudes[i], longitude: columns.longitudes[i]))
        sum += frame.coordinate(east: p.east + 1, north: p.north).latitude
    }
    let c1 = cpuSeconds()
    for i in 0..<count {
        let p = plane.enu(of: Coordinate(uncheckedLatitude: columns.latitudes[i], longitude: columns.longitudes[i]))
        sum += plane.coordinate(of: ENU(east: p.east + 1, north: p.north, up: p.up)).coordinate.latitude
    }
    let c2 = cpuSeconds()
    if sum == 42 { print(sum) }
    return ((c1 - c0) / Double(count) * 1e9, (c2 - c1) / Double(count) * 1e9)
}
let trips = roundTrips(columns, count: count)
print(String(format: "round trip per fix: LocalFrame %.1f ns, GeoCore LocalTangentPlane %.1f ns", trips.frame, trips.tangentPlane))
