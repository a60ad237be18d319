import Foundation
import Testing
import GeoBase
import GeoCore
import GPXCodec
import GeoTestSupport
import Positioning
import SystemIO

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
    try await withTemporaryDirectory { dir in
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
}

/// After every append and segment break, while the log is open, the file is a complete
/// document — read without damage, well-formed for xmllint, nothing but spaces after `</gpx>`
/// — including the appends that cross a page boundary (40 fixes of ~700 bytes cross several).
@Test func positionLog_isACompleteDocumentAfterEveryAppend() async throws {
    try await withTemporaryDirectory { dir in
        let log = try PositionLog(url: dir.appendingPathComponent("open.gpx"))
        #expect(try PositionLog.read(url: log.url).damage == nil, "a new log is a complete document with an empty track")
        #expect(try await xmllintAccepts(log.url))
        let rootEnd = Data("</gpx>\n".utf8)
        for i in 0..<40 {
            if i == 2 || i == 20 { try log.beginSegment() }
            try log.append(fullFix(i))
            let back = try PositionLog.read(url: log.url)
            #expect(back.locations == (0...i).map(fullFix))
            #expect(back.damage == nil, "after fix \(i)")
            #expect(back.segments == (i < 2 ? 1 : i < 20 ? 2 : 3))
            #expect(try await xmllintAccepts(log.url), "after fix \(i)")
            let bytes = try Data(contentsOf: log.url)
            let end = try #require(bytes.range(of: rootEnd)).upperBound
            #expect(bytes[end...].allSatisfy { $0 == 0x20 }, "after fix \(i): only spaces after </gpx>")
        }
        let open = try Data(contentsOf: log.url)
        try log.close()
        #expect(try Data(contentsOf: log.url) == open, "close() finds the closing tags already written")
    }
}

/// Every append that crosses a page boundary must be able to park its part beyond the boundary
/// (`LogFileSink`), which needs 8 bytes between the old closing tags and the boundary: the
/// closing tags never straddle a page boundary nor end in a page's last 8 bytes. Over 600
/// appends (about 100 pages, segments broken now and then) the closing tags land everywhere
/// in a page; on the old writer 5 of them straddled a boundary or ended too near it, and a
/// kill inside such an append tore the file.
@Test func positionLog_closingTagsNeverStraddleAPageBoundary() async throws {
    try await withTemporaryDirectory { dir in
        let log = try PositionLog(url: dir.appendingPathComponent("pages.gpx"))
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let closing = Data("</trkseg>".utf8)
        let rootEnd = Data("</gpx>\n".utf8)
        for i in 0..<600 {
            if i % 37 == 36 { try log.beginSegment() }
            try log.append(fullFix(i))
            let bytes = try Data(contentsOf: log.url)
            let start = try #require(bytes.range(of: closing, options: .backwards)).lowerBound
            let end = try #require(bytes.range(of: rootEnd, options: .backwards)).upperBound
            #expect(start / page == (end - 1) / page && end % page <= page - 8 && end % page != 0,
                    "after fix \(i): closing tags at \(start)..<\(end), pages of \(page) bytes")
        }
        let back = try PositionLog.read(url: log.url)
        #expect(back.damage == nil)
        #expect(back.locations == (0..<600).map(fullFix))
        #expect(try await xmllintAccepts(log.url))
    }
}

/// A kill between the single-page writes of an append that crosses a page boundary leaves
/// the part beyond the boundary parked in a processing instruction after `</gpx>`: a valid
/// document without the new point, which reopening cuts back to its last point.
@Test func positionLog_parkedWriteAfterTheRoot_isValid_andCutOffOnReopen() async throws {
    try await withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("parked.gpx")
        let log = try PositionLog(url: url)
        try log.append(contentsOf: (0..<3).map(fullFix))
        log.abandon()
        let parked = "<?pad      <time>2026-09-21T14:13:20Z</time>\n      </trkpt>\n    </trkseg>\n  </trk>\n</gpx>\n<?z?>"
        try (try Data(contentsOf: url) + Data(parked.utf8)).write(to: url)
        #expect(try await xmllintAccepts(url))
        let read = try PositionLog.read(url: url)
        #expect(read.locations == (0..<3).map(fullFix) && read.damage == nil)

        let reopened = try PositionLog(url: url)
        #expect(reopened.recovery?.pointsKept == 3)
        try reopened.append(fullFix(3))
        reopened.abandon()
        let back = try PositionLog.read(url: url)
        #expect(back.locations == (0..<4).map(fullFix))
        #expect(back.segments == 2)
        #expect(try await xmllintAccepts(url))
        #expect(!String(decoding: try Data(contentsOf: url), as: UTF8.self).contains("<?pad"), "the parked bytes were cut off")
    }
}

@Test func positionLog_batchAppend_andSegments() async throws {
    try await withTemporaryDirectory { dir in
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
}

@Test func positionLog_closed_refusesAppends() throws {
    try withTemporaryDirectory { dir in
        let log = try PositionLog(url: dir.appendingPathComponent("closed.gpx"))
        try log.close()
        #expect(log.isClosed)
        let error = #expect(throws: PositioningError.self) { try log.append(fullFix(0)) }
        #expect(error?.code == .sessionInvalid)
    }
}

@Test func positionLog_secondWriter_isRefused() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("locked.gpx")
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
}

@Test func positionLog_refusesToOverwriteAForeignFile() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("notes.gpx")
        let text = "these are my notes, not GPX\n"
        try Data(text.utf8).write(to: url)
        let error = #expect(throws: PositioningError.self) { try PositionLog(url: url) }
        #expect(error?.code == .io)
        #expect(try String(contentsOf: url, encoding: .utf8) == text)
    }
}

/// Tails a power loss can leave where the last write went (over the closing tags): NUL bytes
/// (delayed allocation), stray markup. They follow the last complete point, so reopening cuts
/// them off in place and counts a point begun in them; nothing acknowledged is in them, so no
/// copy is kept.
@Test(arguments: [(Data(repeating: 0, count: 512), 0), (Data("      <trkpt lat=\"north\" lon=\"1\"/>\n".utf8), 1)])
func positionLog_garbageTail_isCutOffInPlace(tail: Data, pointsBegun: Int) async throws {
    try await withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("garbage.gpx")
        let log = try PositionLog(url: url)
        for i in 0..<3 { try log.append(fullFix(i)) }
        log.abandon()
        let complete = try Data(contentsOf: url)
        let closingTags = Data("    </trkseg>\n  </trk>\n</gpx>\n".utf8)
        #expect(complete.suffix(closingTags.count) == closingTags)
        try (complete.dropLast(closingTags.count) + tail).write(to: url)
        let damaged = try PositionLog.read(url: url)
        #expect(damaged.locations == (0..<3).map(fullFix))
        #expect(damaged.damage != nil)

        let reopened = try PositionLog(url: url)
        let recovery = try #require(reopened.recovery)
        #expect(recovery.pointsKept == 3 && recovery.pointsDropped == pointsBegun && recovery.damage == damaged.damage)
        try reopened.append(fullFix(3))
        try reopened.close()
        let back = try PositionLog.read(url: url)
        #expect(back.locations == (0..<4).map(fullFix))
        #expect(back.damage == nil)
        #expect(try await xmllintAccepts(url))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".damaged"))
    }
}

/// Damage before the last point (a page lost mid-file in a power loss) cannot be cut off in
/// place: the log is rewritten with the points before the damage, and the original bytes are
/// kept as `.damaged`.
@Test func positionLog_damageBeforeTheLastPoint_isRewritten_andOriginalKept() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("holed.gpx")
        let log = try PositionLog(url: url)
        for i in 0..<3 { try log.append(fullFix(i)) }
        log.abandon()
        var bytes = [UInt8](try Data(contentsOf: url))
        let secondPoint = try #require((0..<bytes.count).filter { bytes[$0..<min($0 + 6, bytes.count)].elementsEqual("<trkpt".utf8) }.dropFirst().first)
        bytes.replaceSubrange((secondPoint + 20)..<(secondPoint + 84), with: repeatElement(0, count: 64))
        try Data(bytes).write(to: url)

        let reopened = try PositionLog(url: url)
        #expect(reopened.recovery?.pointsKept == 1)
        #expect(reopened.recovery?.pointsDropped == 2)
        try reopened.append(fullFix(3))
        try reopened.close()
        #expect(try PositionLog.read(url: url).locations == [fullFix(0), fullFix(3)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + ".damaged")) == Data(bytes))
    }
}

/// Cuts a complete log at every byte offset, reopens it, appends, and checks that every point
/// complete before the cut survives, in order and exactly, followed by the new segment.
@Test(.onOwnThread) func positionLog_appendAfterTruncation_atEveryCutOffset() async throws {
    try await withTemporaryDirectory { dir in
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
            let head = String(decoding: try Data(contentsOf: cut).prefix(120), as: UTF8.self)
            #expect(back.damage == nil, "cut at \(offset); the file begins \(head.debugDescription)")
            #expect(back.locations == recovered.locations + added, "cut at \(offset)")
            let oldSegments = recovered.locations.count > 2 ? 2 : (recovered.locations.isEmpty ? 0 : 1)
            #expect(back.segments == oldSegments + 1, "cut at \(offset)")
        }
        #expect(previousRecovered == originals.count)
        #expect(try await xmllintAccepts(cut))
    }
}

/// The crash-safe log under real crashes (issue 12 §3): a process appending fixes
/// (PositionLogCrashHelper) is killed with SIGKILL at 100 seeded random instants, five runs per
/// file, so every run after the first rejoins a crashed log; each run breaks segments at a
/// random interval, and every fifth fsyncs each point. The file as each kill left it must be a
/// complete GPX document that outside readers take as it is — xmllint, gpxpy and GPSBabel, each
/// run once over all 100 snapshots, and `geo gpx stats` — holding every fix the process
/// acknowledged, exactly.
/// (Linux may cut a write short at a page boundary on SIGKILL; with one `pwrite` per append
/// that tore about 1 kill in 230 here, which `LogFileSink`'s single-page writes rule out.)
@Test func positionLog_afterKill9_isReadByOutsideReaders_withEveryAcknowledgedFix() async throws {
    let helper = GeoProcess.productsDirectory.appendingPathComponent("PositionLogCrashHelper")
    try #require(FileManager.default.isExecutableFile(atPath: helper.path), "built with the test target")
    let xmllint = try #require(GeoProcess.which("xmllint"), "xmllint is installed here and in CI (libxml2-utils)")
    let gpsbabel = try #require(GeoProcess.which("gpsbabel"), "gpsbabel is installed here and in CI")
    let python = try #require(GeoProcess.which("python3"), "python3 with gpxpy is installed here and in CI")
    try await withTemporaryDirectory { dir in
        let count = 200
        let fixes = (0..<count).map(fullFix)
        let input = dir.appendingPathComponent("fixes.jsonl")
        let encoder = JSONEncoder()
        var lines = Data()
        for f in fixes { lines.append(try encoder.encode(f)); lines.append(0x0A) }
        try lines.write(to: input)

        var rng = SplitMix64(seed: 12)
        var held: [Int: [Location]] = [:] // per file: the fixes it held after its last kill
        var snapshots: [(path: String, points: Int)] = []
        var acknowledgedTotal = 0, extraTotal = 0
        for run in 0..<100 {
            let file = run % 20
            let url = dir.appendingPathComponent("log-\(file).gpx")
            let before = held[file] ?? []
            let killAfter = Int.random(in: 1..<count, using: &rng)
            var arguments = [url.path, "--segment-every", String(Int.random(in: 5...80, using: &rng))]
            if run % 5 == 0 { arguments += ["--sync", "1"] }
            let process = try ChildProcess.spawn(.init(
                executable: helper.path, arguments: arguments,
                standardInput: .file(input.path), standardOutput: .pipe, standardError: .nullDevice
            ))
            var acknowledged = 0
            for await chunk in try #require(process.standardOutput) {
                acknowledged += chunk.count { $0 == 0x0A }
                if acknowledged >= killAfter { break }
            }
            // Let the helper run on for a random instant, so the kill lands anywhere in its cycle
            // (inside pwrite(2), between points, while printing); the checks do not depend on
            // how far it got.
            usleep(UInt32.random(in: 0..<400, using: &rng))
            process.kill()
            let status = try await process.exitStatus(timeout: .seconds(60))
            try #require(acknowledged >= killAfter, "run \(run): the helper acknowledged \(acknowledged) of \(killAfter) before exiting")
            #expect(status == .signaled(SIGKILL))

            let snapshot = dir.appendingPathComponent("kill-\(run).gpx")
            try FileManager.default.copyItem(at: url, to: snapshot)
            let back = try PositionLog.read(url: snapshot)
            #expect(back.damage == nil, "run \(run): \(back.damage.map(String.init(describing:)) ?? "")")
            #expect(Array(back.locations.prefix(before.count)) == before, "run \(run): the earlier runs' fixes are kept")
            let new = Array(back.locations.dropFirst(before.count))
            #expect(new.count >= acknowledged, "run \(run): \(new.count) fixes logged, \(acknowledged) acknowledged")
            #expect(new == Array(fixes.prefix(new.count)), "run \(run)")
            held[file] = back.locations
            snapshots.append((snapshot.path, back.locations.count))
            acknowledgedTotal += acknowledged
            extraTotal += new.count - acknowledged
        }
        print("kill -9 ×100: \(acknowledgedTotal) fixes acknowledged, all logged, plus \(extraTotal) written but killed before the acknowledgement")

        let paths = snapshots.map(\.path)
        let lint = try await GeoProcess.run(xmllint, ["--noout"] + paths)
        #expect(lint.status == 0, "xmllint: \(lint.stderr.prefix(2_000))")
        let gpxpy = try await GeoProcess.run(python, ["-c", """
            import sys, gpxpy
            for path in sys.argv[1:]:
                with open(path, encoding="utf-8") as f:
                    gpx = gpxpy.parse(f)
                print(sum(len(s.points) for t in gpx.tracks for s in t.segments))
            """] + paths)
        #expect(gpxpy.status == 0, "gpxpy: \(gpxpy.stderr.suffix(2_000))")
        #expect(gpxpy.stdout.split(separator: "\n").map { Int($0) } == snapshots.map(\.points), "gpxpy's track points per file")
        // GPSBabel's csv output is one line per track point; a file it refuses prints "refused".
        let babel = try await GeoProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", """
            for f; do
                if out=$("$0" -i gpx -f "$f" -o csv -F -); then printf '%s\n' "$out" | grep -c . ; else echo refused; fi
            done
            """, gpsbabel.path] + paths)
        #expect(babel.stdout.split(separator: "\n").map { Int($0) } == snapshots.map(\.points), "GPSBabel's track points per file: \(babel.stderr.prefix(2_000))")
        // And LocationKit's own command, without any recovery option (every tenth snapshot).
        for path in stride(from: 0, to: paths.count, by: 10).map({ paths[$0] }) {
            let stats = try await GeoProcess.geo(["gpx", "stats", path])
            #expect(stats.status == 0, "geo gpx stats \(path): \(stats.stderr)")
        }
    }
}

/// A torn final write — the new point and closing tags cut after any byte, with whatever of
/// the old closing tags lay beyond the cut left behind (a power loss mid-write, or a kill
/// between two pages of one write) — is repaired when the log is reopened: every complete
/// point is kept, a torn point is dropped and counted in `recovery`, the file is a complete
/// document again, and the next fix goes into a new segment.
@Test func positionLog_tornFinalWrite_isRepairedOnReopen_andCounted() async throws {
    try await withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("log.gpx")
        let log = try PositionLog(url: url)
        try log.append(contentsOf: (0..<3).map(fullFix))
        let before = [UInt8](try Data(contentsOf: url))
        try log.append(fullFix(3))
        log.abandon()
        let after = [UInt8](try Data(contentsOf: url))
        func lastRange(of text: String, in bytes: [UInt8]) -> Range<Int>? {
            let pattern = Array(text.utf8)
            return stride(from: bytes.count - pattern.count, through: 0, by: -1)
                .first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
                .map { $0..<($0 + pattern.count) }
        }
        // The final write starts where the old closing tags started and leaves the bytes before alone.
        let writeStart = try #require(lastRange(of: "    </trkseg>", in: before)).lowerBound
        #expect(before[..<writeStart] == after[..<writeStart])
        let pointStart = try #require(lastRange(of: "<trkpt", in: after)).lowerBound
        let pointEnd = try #require(lastRange(of: "</trkpt>", in: after)).upperBound
        #expect(writeStart < pointStart)

        var repaired: [String] = []
        for cut in (writeStart + 1)..<after.count {
            let torn = dir.appendingPathComponent("torn-\(cut).gpx")
            try Data(after[..<cut] + (cut < before.count ? before[cut...] : [])).write(to: torn)
            let pointComplete = cut >= pointEnd
            let pointBegun = cut >= pointStart + "<trkpt".utf8.count
            let reopened = try PositionLog(url: torn)
            let recovery = try #require(reopened.recovery)
            #expect(recovery.pointsKept == (pointComplete ? 4 : 3), "cut at \(cut)")
            #expect(recovery.pointsDropped == (pointBegun && !pointComplete ? 1 : 0), "cut at \(cut)")
            try reopened.append(fullFix(10))
            reopened.abandon()
            let back = try PositionLog.read(url: torn)
            #expect(back.damage == nil, "cut at \(cut)")
            #expect(back.locations == (0..<(pointComplete ? 4 : 3)).map(fullFix) + [fullFix(10)], "cut at \(cut)")
            #expect(back.segments == 2, "cut at \(cut)")
            repaired.append(torn.path)
        }
        let xmllint = try #require(GeoProcess.which("xmllint"), "xmllint is installed here and in CI (libxml2-utils)")
        let lint = try await GeoProcess.run(xmllint, ["--noout"] + repaired)
        #expect(lint.status == 0, "xmllint: \(lint.stderr.prefix(2_000))")
    }
}

/// Continuing a file keeps everything else in it: waypoints, routes, earlier tracks with
/// their names, segment and document extensions; the new points join the last track.
@Test func positionLog_continuesAForeignDocument_keepingEverything() async throws {
    try await withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("foreign.gpx")
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
        try GPXWriter.write(document, to: MemorySink()).bytes.withUnsafeBufferPointer { try Data(buffer: $0).write(to: url) }

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
}

@Test func positionLog_refusesADocumentOutOfSchemaOrder_leavingItUntouched() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("disorder.gpx")
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
}

/// Another writer may bind the namespace to another prefix and format the extension freely.
@Test func positionLog_read_acceptsAnyPrefixAndWhitespace() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("pretty.gpx")
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
}
