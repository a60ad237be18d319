// PositionLog benchmark (driver: Benchmarks/poslog.sh).
//
//   PositionLogBench append FILE N   append N fixes (every field set) one by one: one write(2) per fix
//   PositionLogBench reopen FILE     continue the existing log (recover + two-pass rewrite) and close it
//   PositionLogBench read FILE       PositionLog.read(url:): every fix back with all fields
//
// Each run prints one line: mode, points, wall and CPU seconds, points/s per CPU second
// (robust on a shared machine), peak RSS (MiB).
import BenchSupport
import Foundation
import GeoCore
import Positioning

/// A 10 Hz fix with every field set (the same fields the gpxpy peer writes).
func fix(_ i: Int) -> Location {
    let x = Double(i)
    return Location(coordinate: Coordinate(uncheckedLatitude: 48.137_154 + x * 1e-6, longitude: 11.575_490 + x * 1.5e-6),
                    timestamp: Date(timeIntervalSince1970: 1_790_000_000 + x * 0.1),
                    altitude: .meters(519.4 + Double(i % 100) / 10), ellipsoidalAltitude: .meters(566.9),
                    horizontalAccuracy: .meters(3.5), verticalAccuracy: .meters(6.5),
                    speed: Speed(metersPerSecond: 13.9), speedAccuracy: Speed(metersPerSecond: 0.3),
                    course: Bearing(degrees: Double(i % 360)), courseAccuracy: .degrees(1.5), climb: .metersPerSecond(0.1),
                    fixMode: .threeDimensional, fixQuality: .gps, satelliteCount: 9)
}

func report(_ mode: String, points: Int, wall: Double, cpu: Double) {
    print(String(format: "%@ points=%d wall_s=%.3f cpu_s=%.3f points/s=%.0f peakRSS_MiB=%.1f",
                 mode, points, wall, cpu, Double(points) / cpu, peakRSSMiB()))
}

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: PositionLogBench append FILE N | reopen FILE | read FILE")
    exit(2)
}
let url = URL(fileURLWithPath: args[2])
let wall0 = Date(), cpu0 = cpuSeconds()
do {
    switch args[1] {
    case "append":
        let n = args.count > 3 ? Int(args[3]) ?? 100_000 : 100_000
        try? FileManager.default.removeItem(at: url)
        let log = try PositionLog(url: url)
        for i in 0..<n { try log.append(fix(i)) }
        try log.close()
        report("ours-append", points: n, wall: Date().timeIntervalSince(wall0), cpu: cpuSeconds() - cpu0)
    case "reopen":
        let log = try PositionLog(url: url)
        try log.close()
        let wall = Date().timeIntervalSince(wall0), cpu = cpuSeconds() - cpu0, rss = peakRSSMiB()
        let n = try PositionLog.read(url: url).locations.count
        print(String(format: "ours-reopen points=%d wall_s=%.3f cpu_s=%.3f points/s=%.0f peakRSS_MiB=%.1f",
                     n, wall, cpu, Double(n) / cpu, rss))
    case "read":
        let back = try PositionLog.read(url: url)
        report("ours-read", points: back.locations.count, wall: Date().timeIntervalSince(wall0), cpu: cpuSeconds() - cpu0)
    default:
        print("unknown mode \(args[1])")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
