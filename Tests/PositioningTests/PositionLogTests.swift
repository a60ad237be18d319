import Foundation
import Testing
import GeoCore
import GPXCodec
import GeoTestSupport
import Positioning
import SystemIO

/// A fresh empty directory under the system temporary directory.
func temporaryDirectory(_ name: String = #function) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("PositioningTests-\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Whether `xmllint --noout` accepts the file (well-formed XML).
func xmllintAccepts(_ url: URL) async throws -> Bool {
    let xmllint = try #require(GeoProcess.which("xmllint"), "xmllint is installed here and in CI (libxml2-utils)")
    return try await GeoProcess.run(xmllint, ["--noout", url.path]).status == 0
}

/// A fix with every field set, varied by `i`; coordinates and times have many digits so a
/// lossy writer would show.
func fullFix(_ i: Int) -> Location {
    let x = Double(i)
    return Location(coordinate: Coordinate(uncheckedLatitude: 48.137_154_3 + x * 1.234_567e-5, longitude: 11.575_490_9 - x * 7.654_321e-6),
                    timestamp: Date(timeIntervalSince1970: 1_790_000_000.123 + x * 0.1),
                    altitude: .meters(519.37 + x / 3),
                    ellipsoidalAltitude: .meters(566.91 + x / 7),
                    horizontalAccuracy: .meters(3.2 + x / 11),
                    verticalAccuracy: .meters(6.4),
                    speed: Speed(metersPerSecond: 13.89 + x / 13),
                    speedAccuracy: Speed(metersPerSecond: 0.25),
                    course: Bearing(degrees: 87.5 + x),
                    courseAccuracy: .degrees(1.5),
                    climb: .metersPerSecond(-0.125),
                    fixMode: .threeDimensional,
                    fixQuality: .differential,
                    satelliteCount: 9 + i % 4)
}

@Test func positionLog_roundTripsEveryField() async throws {
    let dir = try temporaryDirectory()
    let log = try PositionLog(directory: dir, sessionID: "ride 1/a", start: Date(timeIntervalSince1970: 1_790_000_000.9))
    #expect(log.url.lastPathComponent == "20260921T141320Z_ride_1_a.gpx")
    let sparse = Location(coordinate: Coordinate(uncheckedLatitude: -33.5, longitude: 151.25), timestamp: Date(timeIntervalSince1970: 1_790_000_100))
    let twoD = Location(coordinate: Coordinate(uncheckedLatitude: 0, longitude: -179.999_999_9), timestamp: Date(timeIntervalSince1970: 1_790_000_101),
                        horizontalAccuracy: .meters(-1), fixMode: .twoDimensional, fixQuality: .gps)
    let fixes = (0..<5).map(fullFix) + [sparse, twoD]
    for f in fixes { try log.append(f) }
    try log.close()
    let back = try PositionLog.read(url: log.url)
    // Exact (tolerance 0): the log writes shortest round-trip decimals and exact times.
    #expect(back.locations == fixes)
    #expect(back.segments == 1)
    #expect(back.damage == nil)
    #expect(try await xmllintAccepts(log.url))
    let text = try String(contentsOf: log.url, encoding: .utf8)
    #expect(text.contains("xmlns:lk=\"\(GPXPoint.locationExtensionNamespace)\""))
    #expect(text.contains("<lk:acc>3.2</lk:acc>"))
}

@Test func positionLog_isReadableWhileOpen_asATruncatedDocument() throws {
    let dir = try temporaryDirectory()
    let log = try PositionLog(url: dir.appendingPathComponent("open.gpx"))
    for i in 0..<3 { try log.append(fullFix(i)) }
    let back = try PositionLog.read(url: log.url)
    #expect(back.locations == (0..<3).map(fullFix))
    #expect(back.damage?.code == .truncated)
    try log.close()
    #expect(try PositionLog.read(url: log.url).damage == nil)
}

@Test func positionLog_batchAppend_andSegments() async throws {
    let dir = try temporaryDirectory()
    let log = try PositionLog(url: dir.appendingPathComponent("segments.gpx"), options: .init(sync: .everyPoints(2)))
    try log.append(contentsOf: (0..<4).map(fullFix))
    try log.beginSegment()
    try log.beginSegment() // no points yet: no empty segment
    try log.append(contentsOf: [Location]())
    try log.append(fullFix(4))
    try log.sync()
    #expect(log.pointsWritten == 5)
    try log.close()
    try log.close() // idempotent
    let back = try PositionLog.read(url: log.url)
    #expect(back.locations == (0..<5).map(fullFix))
    #expect(back.segments == 2)
    #expect(try await xmllintAccepts(log.url))
}

@Test func positionLog_closed_refusesAppends() throws {
    let log = try PositionLog(url: try temporaryDirectory().appendingPathComponent("closed.gpx"))
    try log.close()
    #expect(log.isClosed)
    let error = #expect(throws: PositioningError.self) { try log.append(fullFix(0)) }
    #expect(error?.code == .sessionInvalid)
}

@Test func positionLog_secondWriter_isRefused() throws {
    let url = try temporaryDirectory().appendingPathComponent("locked.gpx")
    let first = try PositionLog(url: url, options: .init(sync: .fixInterval(seconds: 5)))
    try first.append(fullFix(0))
    let error = #expect(throws: PositioningError.self) { try PositionLog(url: url) }
    #expect(error?.code == .io)
    first.abandon()
    let second = try PositionLog(url: url)
    try second.append(fullFix(1))
    try second.close()
    let back = try PositionLog.read(url: url)
    #expect(back.locations == [fullFix(0), fullFix(1)])
    #expect(back.segments == 2)
}

@Test func positionLog_refusesToOverwriteAForeignFile() throws {
    let url = try temporaryDirectory().appendingPathComponent("notes.gpx")
    let text = "these are my notes, not GPX\n"
    try Data(text.utf8).write(to: url)
    let error = #expect(throws: PositioningError.self) { try PositionLog(url: url) }
    #expect(error?.code == .io)
    #expect(try String(contentsOf: url, encoding: .utf8) == text)
}

/// Tails a crash or power loss can leave: NUL bytes (delayed allocation), stray markup.
@Test(arguments: [Data(repeating: 0, count: 512), Data("<trkpt lat=\"north\" lon=\"1\"/>\n".utf8)])
func positionLog_garbageTail_isRecovered_andOriginalKept(tail: Data) throws {
    let url = try temporaryDirectory().appendingPathComponent("garbage.gpx")
    let log = try PositionLog(url: url)
    for i in 0..<3 { try log.append(fullFix(i)) }
    log.abandon()
    var bytes = try Data(contentsOf: url)
    bytes.append(tail)
    try bytes.write(to: url)
    let damaged = try PositionLog.read(url: url)
    #expect(damaged.locations == (0..<3).map(fullFix))
    print("garbage tail of \(tail.count) bytes: \(damaged.damage.map(String.init(describing:)) ?? "no damage")")
    let reopened = try PositionLog(url: url)
    try reopened.append(fullFix(3))
    try reopened.close()
    let back = try PositionLog.read(url: url)
    #expect(back.locations == (0..<4).map(fullFix))
    #expect(back.damage == nil)
    // A copy is kept exactly when the damage is more than a cut.
    #expect(FileManager.default.fileExists(atPath: url.path + ".damaged") == (damaged.damage?.code != .truncated),
            "damage: \(damaged.damage.map(String.init(describing:)) ?? "none")")
}

/// Cuts a complete log at every byte offset, reopens it, appends, and checks that every point
/// complete before the cut survives, in order and exactly, followed by the new segment.
@Test(.onOwnThread) func positionLog_appendAfterTruncation_atEveryCutOffset() async throws {
    let dir = try temporaryDirectory()
    let source = dir.appendingPathComponent("full.gpx")
    let originals = (0..<4).map(fullFix)
    let log = try PositionLog(url: source)
    try log.append(contentsOf: originals[0..<2])
    try log.beginSegment()
    try log.append(contentsOf: originals[2...])
    try log.close()
    let full = [UInt8](try Data(contentsOf: source))
    // The byte offset just past each `</trkpt>`: a cut at or after it keeps that point.
    let closing = Array("</trkpt>".utf8)
    var pointEnds: [Int] = []
    for i in 0...(full.count - closing.count) where full[i..<(i + closing.count)].elementsEqual(closing) {
        pointEnds.append(i + closing.count)
    }
    try #require(pointEnds.count == originals.count)
    let added = [fullFix(10), fullFix(11)]
    let cut = dir.appendingPathComponent("cut.gpx")
    var previousRecovered = 0
    for offset in 0...full.count {
        try Data(full[..<offset]).write(to: cut)
        let recovered = try PositionLog.read(url: cut)
        let complete = pointEnds.filter { $0 <= offset }.count
        #expect(recovered.locations.count >= complete, "cut at \(offset)")
        #expect(recovered.locations.count >= previousRecovered, "cut at \(offset)")
        #expect(recovered.locations == Array(originals.prefix(recovered.locations.count)), "cut at \(offset)")
        previousRecovered = recovered.locations.count

        let reopened = try PositionLog(url: cut)
        try reopened.append(contentsOf: added)
        try reopened.close()
        let back = try PositionLog.read(url: cut)
        #expect(back.damage == nil, "cut at \(offset)")
        #expect(back.locations == recovered.locations + added, "cut at \(offset)")
        let oldSegments = recovered.locations.count > 2 ? 2 : (recovered.locations.isEmpty ? 0 : 1)
        #expect(back.segments == oldSegments + 1, "cut at \(offset)")
    }
    #expect(previousRecovered == originals.count)
    #expect(try await xmllintAccepts(cut))
}

/// Kills a process that is writing a log with SIGKILL after it acknowledged `k` fixes, for
/// several seeded `k`, and checks the file recovers every acknowledged fix, exactly.
@Test(arguments: [false, true])
func positionLog_survivesKill9(fsyncEveryPoint: Bool) async throws {
    let helper = GeoProcess.productsDirectory.appendingPathComponent("PositionLogCrashHelper")
    try #require(FileManager.default.isExecutableFile(atPath: helper.path), "built with the test target")
    let dir = try temporaryDirectory()
    let count = fsyncEveryPoint ? 300 : 3_000
    let fixes = (0..<count).map(fullFix)
    let input = dir.appendingPathComponent("fixes.jsonl")
    let encoder = JSONEncoder()
    var lines = Data()
    for f in fixes { lines.append(try encoder.encode(f)); lines.append(0x0A) }
    try lines.write(to: input)

    var rng = SplitMix64(seed: fsyncEveryPoint ? 5 : 4)
    for run in 0..<6 {
        let killAfter = Int.random(in: 1..<(count - count / 10), using: &rng)
        let url = dir.appendingPathComponent("crash-\(run).gpx")
        let process = try ChildProcess.spawn(.init(
            executable: helper.path, arguments: [url.path] + (fsyncEveryPoint ? ["--sync", "1"] : []),
            standardInput: .file(input.path), standardOutput: .pipe, standardError: .nullDevice
        ))
        var acknowledged = 0
        for await chunk in try #require(process.standardOutput) {
            acknowledged += chunk.count { $0 == 0x0A }
            if acknowledged >= killAfter { break }
        }
        // Let the helper run on for a random instant, so the kill lands anywhere in its cycle
        // (inside write(2), between points, while printing); the check below does not depend
        // on how far it got.
        usleep(UInt32.random(in: 0..<400, using: &rng))
        process.kill()
        let status = try await process.exitStatus(timeout: .seconds(60))
        try #require(acknowledged >= killAfter, "the helper acknowledged \(acknowledged) of \(killAfter) before exiting")
        #expect(status == .signaled(SIGKILL))

        let back = try PositionLog.read(url: url)
        #expect(back.locations.count >= acknowledged, "run \(run): kill after \(killAfter)")
        #expect(back.locations == Array(fixes.prefix(back.locations.count)), "run \(run)")
        #expect(back.damage == nil || back.damage?.code == .truncated)
        let tail = try String(contentsOf: url, encoding: .utf8).suffix(12)
        let midPoint = !(tail.hasSuffix("</trkpt>\n") || tail.hasSuffix("<trkseg>\n") || tail.hasSuffix("</gpx>\n"))
        print("kill -9 run \(run) (fsync \(fsyncEveryPoint)): acknowledged \(acknowledged), recovered \(back.locations.count) of \(count), damage \(back.damage.map { "\($0.code) at byte \($0.offset)" } ?? "none"), file ends \(midPoint ? "inside a point" : "at a point boundary")")

        // The crashed log continues as a new segment.
        let reopened = try PositionLog(url: url)
        try reopened.append(fullFix(count))
        try reopened.close()
        let continued = try PositionLog.read(url: url)
        #expect(continued.locations == back.locations + [fullFix(count)])
        #expect(continued.damage == nil)
        #expect(continued.segments == (back.locations.isEmpty ? 1 : 2))
    }
}

/// Continuing a file keeps everything else in it: waypoints, routes, earlier tracks with
/// their names, segment and document extensions; the new points join the last track.
@Test func positionLog_continuesAForeignDocument_keepingEverything() async throws {
    let url = try temporaryDirectory().appendingPathComponent("foreign.gpx")
    let p = { (i: Int) in GPXPoint(location: fullFix(i)) }
    var document = GPXDocument(header: GPXHeader(creator: "someone else"))
    document.metadata.name = "holiday"
    document.waypoints = [GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))]
    var route = GPXRoute(info: GPXPathInfo(name: "plan"), points: [GPXPoint(coordinate: Coordinate(uncheckedLatitude: 3, longitude: 4))])
    route.info.number = 7
    document.routes = [route]
    document.tracks = [
        GPXTrack(info: GPXPathInfo(name: "day 1"), segments: [GPXTrackSegment(points: [p(0), p(1)]), GPXTrackSegment()]),
        GPXTrack(info: GPXPathInfo(name: "day 2"), segments: [GPXTrackSegment(points: [p(2)], extensions: GPXExtensions(xml: "<seg>a</seg>"))]),
    ]
    document.extensions = GPXExtensions(xml: "<trip>b</trip>")
    try GPXWriter.write(document, to: GPXMemorySink()).bytes.withUnsafeBufferPointer { try Data(buffer: $0).write(to: url) }

    let log = try PositionLog(url: url)
    try log.append(fullFix(3))
    try log.close()
    let back = try GPXReader.read(bytes: try Data(contentsOf: url))
    #expect(back.header.creator == "someone else")
    #expect(back.metadata.name == "holiday")
    #expect(back.waypoints == document.waypoints)
    #expect(back.routes == document.routes)
    #expect(back.extensions == document.extensions)
    #expect(back.tracks.count == 2)
    #expect(back.tracks.first?.info.name == "day 1")
    #expect(back.tracks.first?.segments.map(\.points) == [[p(0), p(1)]]) // the empty segment is dropped
    #expect(back.tracks.last?.info.name == "day 2")
    #expect(back.tracks.last?.segments.map(\.points) == [[p(2)], [p(3)]])
    #expect(back.tracks.last?.segments.first?.extensions == GPXExtensions(xml: "<seg>a</seg>"))
    #expect(try PositionLog.read(url: url).locations == (0..<4).map(fullFix))
    #expect(try await xmllintAccepts(url))
}

@Test func positionLog_refusesADocumentOutOfSchemaOrder_leavingItUntouched() throws {
    let url = try temporaryDirectory().appendingPathComponent("disorder.gpx")
    let text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">
      <trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>
      <wpt lat="3" lon="4"/>
    </gpx>

    """
    try Data(text.utf8).write(to: url)
    let error = #expect(throws: PositioningError.self) { try PositionLog(url: url) }
    #expect(error?.code == .io)
    #expect(try String(contentsOf: url, encoding: .utf8) == text)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
    #expect(leftovers == ["disorder.gpx"])
}

/// Another writer may bind the namespace to another prefix and format the extension freely.
@Test func positionLog_read_acceptsAnyPrefixAndWhitespace() throws {
    let url = try temporaryDirectory().appendingPathComponent("pretty.gpx")
    let text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1" xmlns:loc="\(GPXPoint.locationExtensionNamespace)">
      <trk><trkseg>
        <trkpt lat="48.5" lon="11.25"><time>2026-09-21T14:13:20.25Z</time>
          <extensions>
            <loc:acc>
              4.5
            </loc:acc>
            <loc:empty/><other:thing xmlns:other="urn:x">7</other:thing>
            <loc:speed>2</loc:speed><loc:course>-90</loc:course><loc:q>9</loc:q>
          </extensions>
        </trkpt>
      </trkseg></trk>
    </gpx>
    """
    try Data(text.utf8).write(to: url)
    let back = try PositionLog.read(url: url)
    let expected = Location(coordinate: Coordinate(uncheckedLatitude: 48.5, longitude: 11.25),
                            timestamp: Date(timeIntervalSince1970: 1_790_000_000.25),
                            horizontalAccuracy: .meters(4.5), speed: Speed(metersPerSecond: 2),
                            course: Bearing(degrees: 270)) // -90° wraps; quality 9 is not a GGA value: dropped
    #expect(back.locations == [expected])
    #expect(back.damage == nil)
}
