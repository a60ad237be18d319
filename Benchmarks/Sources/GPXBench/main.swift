// GPX parse benchmark (driver: Benchmarks/gpx.sh).
//
//   GPXBench generate FILE N     write an N-point GPX 1.1 track (ele, time, Garmin hr) with our writer
//   GPXBench stream FILE         our streaming reader: every track point decoded, constant memory
//   GPXBench document FILE       our document reader: the whole file in memory
//   GPXBench foundationxml FILE  FoundationXML's XMLParser (libxml2 SAX) doing the same decoding work
//
// Each run prints one line: mode, points, wall and CPU seconds, MB/s and points/s per CPU
// second (robust on a shared machine), peak RSS (MiB).
import BenchSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import GPXCodec
import GeoBase
import GeoCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct FileSource: ByteSource {
    let fd: Int32
    init(_ path: String) {
        fd = open(path, O_RDONLY)
        if fd < 0 { fatalError("cannot open \(path)") }
    }
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        systemRead(fd, buffer.baseAddress, buffer.count)
    }
}

struct FileSink: ByteSink {
    let fd: Int32
    init(_ path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 { fatalError("cannot create \(path)") }
    }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count { done += max(0, systemWrite(fd, bytes.baseAddress! + done, bytes.count - done)) }
    }
}

func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int { read(fd, p, n) }
func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

/// One result line; rates are per CPU second, `wall` is the elapsed time.
func report(_ mode: String, points: Int, wall: Double, cpu: Double, path: String) {
    let bytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    print(String(format: "%@ points=%d wall_s=%.3f cpu_s=%.3f MB/s=%.1f points/s=%.0f peakRSS_MiB=%.1f",
                 mode, points, wall, cpu, bytes / cpu / 1e6, Double(points) / cpu, peakRSSMiB()))
}

func time(_ body: () throws -> Int) rethrows -> (points: Int, wall: Double, cpu: Double) {
    let start = ContinuousClock.now
    let cpu0 = cpuSeconds()
    let n = try body()
    let d = ContinuousClock.now - start
    return (n, d.seconds, cpuSeconds() - cpu0)
}

func generate(_ path: String, _ n: Int) throws {
    var w = try GPXStreamWriter(sink: FileSink(path), header: GPXHeader(
        creator: "LocationKit GPXBench",
        namespaces: [GPXNamespace(prefix: "gpxtpx", uri: "http://www.garmin.com/xmlschemas/TrackPointExtension/v1")]))
    try w.beginTrack(GPXPathInfo(name: "benchmark"))
    try w.beginSegment()
    var lat = 46.0, lon = 14.0, ele = 300.0
    var rng = SystemRandomNumberGenerator()
    for i in 0..<n {
        lat += Double.random(in: -1e-4...1e-4, using: &rng)
        lon += Double.random(in: -1e-4...1e-4, using: &rng)
        ele += Double.random(in: -0.5...0.5, using: &rng)
        var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: (lat * 1e7).rounded() / 1e7, longitude: (lon * 1e7).rounded() / 1e7),
                         elevation: .meters((ele * 10).rounded() / 10),
                         time: Date(timeIntervalSince1970: 1_600_000_000 + Double(i)))
        p.extensions = GPXExtensions(xml: "<gpxtpx:TrackPointExtension><gpxtpx:hr>\(120 + i % 60)</gpxtpx:hr></gpxtpx:TrackPointExtension>")
        try w.write(trackPoint: p)
    }
    try w.endSegment()
    try w.endTrack()
    _ = try w.finish()
}

#if canImport(FoundationXML) || canImport(Darwin)
/// Does the work our reader does for each point with XMLParser callbacks: lat/lon/ele as
/// Doubles, time as a Date (with the same hand-written parser), extensions kept as text.
final class SAXCounter: NSObject, XMLParserDelegate {
    var points = 0
    var text = ""
    var latSum = 0.0
    var current: String?
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "trkpt" {
            latSum += Double(attributes["lat"] ?? "") ?? 0
            latSum += Double(attributes["lon"] ?? "") ?? 0
        }
        current = name
        text = ""
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "trkpt": points += 1
        case "ele": latSum += Double(text.trimmingCharacters(in: .whitespaces)) ?? 0
        case "time": latSum += ISO8601Time.date(from: text)?.timeIntervalSince1970 ?? 0
        default: break
        }
        text = ""
    }
}
#endif

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: GPXBench generate FILE N | stream FILE | document FILE | foundationxml FILE")
    exit(2)
}
let path = args[2]
switch args[1] {
case "generate":
    try generate(path, Int(args.count > 3 ? args[3] : "1000000") ?? 1_000_000)
case "stream":
    var checksum = 0.0
    let r = try time {
        let reader = GPXStreamReader(source: FileSource(path))
        var n = 0
        try reader.forEachTrackPoint { p in
            n += 1
            checksum += p.coordinate.latitude + (p.elevation?.meters ?? 0)
        }
        return n
    }
    report("ours-stream", points: r.points, wall: r.wall, cpu: r.cpu, path: path)
    if checksum.isNaN { print(checksum) }
case "document":
    // The document outlives the timing, as gpxpy's does in its measurement.
    var kept: GPXDocument?
    let r = try time {
        let d = try GPXReader.read(FileSource(path))
        kept = d
        return d.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
    }
    report("ours-document", points: r.points, wall: r.wall, cpu: r.cpu, path: path)
    withExtendedLifetime(kept) {}
case "foundationxml":
    #if canImport(FoundationXML) || canImport(Darwin)
    let r = time {
        let counter = SAXCounter()
        guard let stream = InputStream(fileAtPath: path) else { fatalError("cannot open \(path)") }
        let parser = XMLParser(stream: stream)
        parser.delegate = counter
        guard parser.parse() else { fatalError("XMLParser failed: \(String(describing: parser.parserError))") }
        return counter.points
    }
    report("foundationxml", points: r.points, wall: r.wall, cpu: r.cpu, path: path)
    #else
    print("foundationxml unavailable")
    #endif
default:
    print("unknown mode \(args[1])")
    exit(2)
}
