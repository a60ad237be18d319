import Testing
import GeoBase
import GeoCore

/// A source that hands out at most `step` bytes a read, so lines straddle reads and buffers.
private struct TrickleSource: ByteSource {
    var inner: MemorySource
    let step: Int
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        inner.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(step, buffer.count)]))
    }
}

/// A sink that refuses every write, as a closed pipe does.
private struct ClosedSink: ByteSink {
    struct Closed: Error {}
    var writes = 0
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        writes += 1
        throw Closed()
    }
}

/// Every line of GeographicLib's inverse fixture (GeodesicTests' oracle), fed in reads of 7
/// bytes and repeated past the 64 KiB output piece: one answer line each, in order, within
/// GeodesicTests' tolerances (1e-6 m, 1e-9 degrees), each number reading back as the double
/// `inverse` gives (round-trip precision).
@Test func solveInverseLines_matchesGeographicLib_lineForLine() throws {
    let rows = try GeodesicFixture.rows("geodesic-inverse.tsv")
    let text = rows.map { r in r.values[0..<4].map { "\($0)" }.joined(separator: " ") + "\n" }.joined()
    var source = TrickleSource(inner: MemorySource(string: String(repeating: text, count: 3)), step: 7)
    var sink = MemorySink()
    let (lines, bad) = try Geodesic.wgs84.solveInverseLines(from: &source, to: &sink) { number, error in
        Issue.record("line \(number): \(error)")
    }
    #expect(lines == 3 * rows.count && bad == 0)
    let answers = String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    try #require(answers.count == 3 * rows.count + 1 && answers.last == "")
    var failures = 0
    for (k, answer) in answers.dropLast().enumerated() {
        let v = rows[k % rows.count].values
        let got = answer.split(separator: " ").compactMap { Double(String($0)) }
        let r = Geodesic.wgs84.inverse(fromLatitude: v[0], longitude: v[1], toLatitude: v[2], longitude: v[3])
        if got.count != 3 || got != [r.distance.meters, r.initialBearing.degrees, r.finalBearing.degrees]
            || abs(got[0] - v[4]) > 1e-6 || GeodesicFixture.angleError(got[1], v[5]) > 1e-9 || GeodesicFixture.angleError(got[2], v[6]) > 1e-9 {
            failures += 1
        }
    }
    #expect(failures == 0)
}

/// Bad lines get no answer and are reported with their numbers; the others are answered in
/// order (Berlin → Paris: 879,387.363 m, GeographicLib's GeodSolve).
@Test func solveInverseLines_reportsBadLinesAndAnswersTheRest() throws {
    var source = MemorySource(string: "52.52 13.40 48.8566 2.3522\nbad line\n91 0 0 0\n\n0 0 0 0\r\n1 2 3")
    var sink = MemorySink()
    var reported: [(Int, GeoCoreError.Code)] = []
    let (lines, bad) = try Geodesic.wgs84.solveInverseLines(from: &source, to: &sink) { reported.append(($0, $1.code)) }
    #expect(lines == 6 && bad == 4)
    #expect(reported.map(\.0) == [2, 3, 4, 6])
    #expect(reported.map(\.1) == [.invalidArgument, .invalidLatitude, .invalidArgument, .invalidArgument])
    let answers = String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n")
    #expect(answers.count == 2)
    #expect(abs((Double(answers[0].split(separator: " ")[0]) ?? 0) - 879_387.363) < 1e-3)
    #expect(answers[1] == "0.0 180.0 180.0")
}

/// A sink that fails stops the reading at once with its error; a line too long for the
/// reader stops it with `LineReadError` after the lines before it were written.
@Test func solveInverseLines_stopsOnSinkAndReadErrors() throws {
    let many = String(repeating: "10 20 30 40\n", count: 20_000) // > 64 KiB of answers
    var source = MemorySource(string: many)
    var closed = ClosedSink()
    #expect(throws: ClosedSink.Closed.self) { try Geodesic.wgs84.solveInverseLines(from: &source, to: &closed) { _, _ in } }
    #expect(closed.writes == 1)

    var long = MemorySource(string: "0 0 1 1\n" + String(repeating: "1", count: 1 << 20) + "\n")
    var sink = MemorySink()
    let error = #expect(throws: LineReadError.self) { try Geodesic.wgs84.solveInverseLines(from: &long, to: &sink) { _, _ in } }
    #expect(error?.code == .lineTooLong && error?.line == 2)
    #expect(String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n").count == 1)
}

/// `geo distance`'s lines along the equator, where the geodesic is the equator itself and its
/// length is a·Δλ (a = 6,378,137 m, WGS84): one degree is 111,319.490793 m (GeographicLib's
/// GeodSolve gives the same to the nanometre), bearing 90° at both ends; below 1 km the
/// distance is in metres, from 1 km in kilometres.
@Test func summaryLines_equator_metresBelowOneKilometreKilometresAbove() throws {
    let degree = Geodesic.wgs84.inverse(from: try Coordinate(latitude: 0, longitude: 0), to: try Coordinate(latitude: 0, longitude: 1)).summaryLines
    #expect(degree.count == 3)
    #expect(degree[0].hasPrefix("distance:        111.319 km ("))
    let exact = try #require(Double(degree[0].dropFirst("distance:        111.319 km (".count).dropLast(" m)".count)))
    #expect(abs(exact - 6_378_137 * Double.pi / 180) < 1e-6)
    #expect(degree[1] == "initial bearing: 90.0° (90.0°)")
    #expect(degree[2] == "final bearing:   90.0° (90.0°)")
    let short = Geodesic.wgs84.inverse(from: try Coordinate(latitude: 0, longitude: 0), to: try Coordinate(latitude: 0, longitude: 0.001)).summaryLines
    #expect(short[0].hasPrefix("distance:        111.319 m (111.319"))
    let west = Geodesic.wgs84.inverse(from: try Coordinate(latitude: 0, longitude: 1), to: try Coordinate(latitude: 0, longitude: 0)).summaryLines
    #expect(west[1] == "initial bearing: 270.0° (270.0°)")
}
