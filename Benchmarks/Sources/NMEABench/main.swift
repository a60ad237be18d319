// Decodes an NMEA file held in memory with NMEADecoder, best of N runs (default 3), and
// prints machine-readable results: `bytes sentences fixes seconds` and the derived rates.
// Usage: NMEABench FILE [runs] [all|scan|on|off]
import Foundation
import GeoCore
import NMEACodec

let arguments = CommandLine.arguments
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: NMEABench FILE [runs]\n".utf8))
    exit(2)
}
let runs = arguments.count >= 3 ? Int(arguments[2]) ?? 3 : 3
/// Which measurements to run: `all` (default), `scan`, `on` or `off` (satellite collection);
/// single modes let an allocation counter (valgrind) attribute allocations.
let only = arguments.count >= 4 ? arguments[3] : "all"

/// One full decode in 64 KiB chunks, as a serial reader would deliver them.
func decodeOnce(_ data: Data, collectSatellites: Bool) -> (sentences: Int, fixes: Int, seconds: Double) {
    var decoder = NMEADecoder(options: .init(collectSatellites: collectSatellites))
    var fixes = 0
    var latitudeSum = 0.0
    let clock = ContinuousClock()
    let start = clock.now
    data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < all.count {
            let end = min(all.count, offset + 65_536)
            decoder.decode(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { fix in
                fixes += 1
                latitudeSum += fix.latitude ?? 0
            }
            offset = end
        }
    }
    decoder.finish { _ in fixes += 1 }
    let elapsed = clock.now - start
    // Keep the work observable so it is not optimised away.
    if latitudeSum.isNaN { print("nan") }
    let seconds = elapsed.seconds
    return (decoder.scanner.statistics.accepted, fixes, seconds)
}

/// The framing scanner alone (checksums verified, nothing parsed).
func scanOnce(_ data: Data) -> (sentences: Int, seconds: Double) {
    var scanner = NMEAScanner()
    var bytes = 0
    let clock = ContinuousClock()
    let start = clock.now
    data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < all.count {
            let end = min(all.count, offset + 65_536)
            scanner.scan(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { bytes &+= $0.bytes.count }
            offset = end
        }
    }
    let elapsed = clock.now - start
    if bytes == -1 { print("") }
    return (scanner.statistics.accepted, elapsed.seconds)
}

if only == "all" || only == "scan" {
    var best = Double.infinity
    var sentences = 0
    for _ in 0..<runs {
        let r = scanOnce(data)
        best = min(best, r.seconds)
        sentences = r.sentences
    }
    print(String(format: "NMEABench scanner-only seconds=%.4f MB/s=%.1f sentences/s=%.0f",
                 best, Double(data.count) / 1_000_000 / best, Double(sentences) / best))
}

for collect in [true, false] where only == "all" || only == (collect ? "on" : "off") {
    var best: (sentences: Int, fixes: Int, seconds: Double)?
    for _ in 0..<runs {
        let r = decodeOnce(data, collectSatellites: collect)
        if best == nil || r.seconds < best!.seconds { best = r }
    }
    guard let b = best else { continue }
    let mb = Double(data.count) / 1_000_000
    print(String(format: "NMEABench satellites=%@ bytes=%d sentences=%d fixes=%d seconds=%.4f MB/s=%.1f sentences/s=%.0f",
                 collect ? "on" : "off", data.count, b.sentences, b.fixes, b.seconds, mb / b.seconds,
                 Double(b.sentences) / b.seconds))
}
