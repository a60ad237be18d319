import Foundation
import GeoBase
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec
import SystemIO

/// The JSON objects `geo track` printed.
private func events(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(whereSeparator: \.isNewline).map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
}

@Test(.onOwnThread) func track_fromGpsd_reportsTheFixesGpsdDecodes() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log"), let chk = try Fixtures.url("nmea/nmea-rtk.log.chk") else { return }
    var expected: [String: (Double, Double)] = [:]
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
        if case .tpv(let t) = try GPSDMessage(json: String(line)), let time = t.time, let lat = t.lat, let lon = t.lon { expected[time] = (lat, lon) }
    }
    guard let result = try await GPSFake.withReplay(log: log, { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--preset", "raw", "--count", "15", "--for", "60"])
    }) else { return }
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == 15)
    var matched = 0
    for u in updates {
        guard let time = u["time"] as? String, let (lat, lon) = expected[time] else { continue }
        matched += 1
        #expect(abs((u["lat"] as? Double ?? 0) - lat) < 1e-7 && abs((u["lon"] as? Double ?? 0) - lon) < 1e-7, "at \(time)") // degrees
        #expect(u["stationary"] as? Bool == false)
    }
    #expect(matched >= 12, "only \(matched) of 15 updates matched gpsd's output by time")
}

@Test func track_fromAnNMEAFile_printsEveryDecodedFix() async throws {
    guard let log = try Fixtures.url("nmea/ublox-zed-f9p-nmea.log") else { return }
    let decoded = try await GeoProcess.geo(["nmea", "decode", log.path])
    let fixes = try events(decoded.stdout).filter { ($0["mode"] as? Int ?? 0) >= 2 }
    let tracked = try await GeoProcess.geo(["track", "--source", "nmea:\(log.path)", "--preset", "raw"])
    #expect(tracked.status == 0, "\(tracked.stderr)")
    let updates = try events(tracked.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == fixes.count)
    #expect(zip(updates, fixes).allSatisfy { $0["time"] as? String == $1["time"] as? String })
}

@Test func track_deviceWithoutPermission_reportsDenied() async throws {
    // Root may open anything, so the command runs as `nobody` (util-linux setpriv).
    guard let setpriv = GeoProcess.which("setpriv") else {
        if Fixtures.isCI { Issue.record("setpriv (util-linux) is required under CI") }
        return
    }
    try await withTemporaryDirectory { dir in
        let device = dir.appendingPathComponent("ttyLK")
        #expect(FileManager.default.createFile(atPath: device.path, contents: Data(), attributes: [.posixPermissions: 0o600]))
        let result = try await GeoProcess.run(setpriv, ["--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                  GeoProcess.geoExecutable.path, "track", "--source", "nmea://\(device.path)?baud=9600"])
        #expect(result.status != 0)
        let error = try #require(try events(result.stdout).first)
        #expect(error["event"] as? String == "error" && error["code"] as? String == "denied", "\(result.stdout) \(result.stderr)")
    }
}

@Test func track_rejectsAMalformedSource() async throws {
    let result = try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:notaport"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("port"))
}

@Test(.onOwnThread) func simulate_servesNMEAThatGpsdAndTrackRead() async throws {
    // geo simulate → NMEA over TCP → a real gpsd → geo track: the simulated fixes come back.
    let port = FreePort.take()
    let simulator = try ChildProcess.spawn(.init(
        executable: GeoProcess.geoExecutable.path,
        arguments: ["simulate", "--nmea-tcp", String(port), "--interval", "0.2", "--count", "150"],
        standardOutput: .nullDevice, standardError: .nullDevice
    ))
    defer { simulator.kill() }
    #expect(await GPSFake.waitUntilListening(port: port), "geo simulate listens on \(port)")
    guard let result = try await GPSFake.withDaemon(device: "tcp://127.0.0.1:\(port)", { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--preset", "raw", "--count", "5", "--for", "30"])
    }) else { return }
    simulator.terminate()
    _ = try await simulator.exitStatus(timeout: .seconds(10))
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == 5)
    // The default simulation drives at 13.9 m/s; NMEA carries speed in knots to 3 decimals.
    #expect(updates.allSatisfy { abs(($0["speed"] as? Double ?? 0) - 13.9) < 0.01 }, "\(updates)")
    // Inside the sample city, around 48.0 N 11.0 E.
    #expect(updates.allSatisfy { abs(($0["lat"] as? Double ?? 0) - 48) < 0.05 && abs(($0["lon"] as? Double ?? 0) - 11) < 0.05 })
}

/// gpsd's last TPV with a position for each epoch (time) of a capture's regression output.
private func lastTPVPerEpoch(_ chk: URL) throws -> [String: GPSDMessage.TPV] {
    var out: [String: GPSDMessage.TPV] = [:]
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
        if case .tpv(let t) = try GPSDMessage(json: String(line)), t.location != nil, let time = t.time { out[time] = t }
    }
    return out
}

@Test(.onOwnThread, .timeLimit(.minutes(3))) func track_fromGpsd_rawPreset_printsOneUpdatePerEpoch() async throws {
    // quectel-eg25-g: gpsd reports up to 11 TPVs per epoch, the first without an error estimate.
    guard let log = try Fixtures.url("nmea/quectel-eg25-g.log"), let chk = try Fixtures.url("nmea/quectel-eg25-g.log.chk") else { return }
    let epochs = try lastTPVPerEpoch(chk)
    guard let result = try await GPSFake.withReplay(log: log, { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--preset", "raw",
                                  "--count", String(epochs.count), "--for", "45"])
    }) else { return }
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    let times = updates.compactMap { $0["time"] as? String }
    #expect(Set(times).count == times.count, "an epoch was printed twice: \(times)")
    // The replay may start a moment before the client's WATCH: at most the first epoch is missed.
    #expect(times.count >= epochs.count - 1, "\(times.count) updates for gpsd's \(epochs.count) epochs")
    for u in updates {
        let time = try #require(u["time"] as? String)
        let final = try #require(epochs[time]?.location, "\(time) is no epoch of gpsd's output")
        #expect(abs((u["lat"] as? Double ?? 0) - final.coordinate.latitude) < 1e-9
                && abs((u["lon"] as? Double ?? 0) - final.coordinate.longitude) < 1e-9, "at \(time)") // degrees
        let accuracy = try #require(u["accuracy"] as? Double, "no accuracy at \(time)")
        // Printed with 3 decimals (JSONNumber): equal to the printed precision, 0.5 mm.
        #expect(abs(accuracy - (final.horizontalAccuracy?.meters ?? .nan)) <= 0.0005 + 1e-9, "at \(time)") // metres
    }
}

@Test(.onOwnThread, .timeLimit(.minutes(3))) func track_fromGpsd_defaultPreset_replayedLogFlows_andDropsAreExplained() async throws {
    // quectel-eg25-g was recorded in September 2022, walking: judged against the host's clock,
    // every fix would be stale.
    guard let log = try Fixtures.url("nmea/quectel-eg25-g.log") else { return }
    guard let result = try await GPSFake.withReplay(log: log, { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--count", "3", "--for", "45"])
    }) else { return }
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == 3, "\(result.stdout)\n\(result.stderr)")
    let lines = result.stderr.split(whereSeparator: \.isNewline)
    #expect(!result.stderr.contains("as stale"), "\(result.stderr)")
    // The warm-up's drops are explained once, and the summary counts them by reason.
    #expect(lines.filter { $0.contains("as warm-up") && $0.contains("--preset raw keeps them") }.count == 1, "\(result.stderr)")
    let summary = try #require(lines.last { $0.contains("filter: ") }, "\(result.stderr)")
    #expect(summary.contains("warm-up") && summary.contains("3 delivered"), "\(summary)")
}

@Test func track_countCountsTheStationaryUpdateToo() async throws {
    // 20 s driving north at 10 m/s, 80 s standing (fixes alternating between two spots 12 m
    // apart, inside the default preset's 15 m pause radius), then 20 s driving again.
    try await withTemporaryDirectory { directory in
        var north: [Double] = (0..<20).map { 10 * Double($0) }
        north += (0..<80).map { 200 + ($0 % 2 == 0 ? 0 : 12) }
        north += (1...20).map { 212 + 10 * Double($0) }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let points = north.enumerated().map { i, n in
            #"<trkpt lat="\#(48 + n / 111_195)" lon="11"><time>\#(ISO8601Time.string(from: start.addingTimeInterval(Double(i)), fractionDigits: 3))</time></trkpt>"#
        }
        let gpx = directory.appendingPathComponent("stop.gpx")
        try (#"<?xml version="1.0"?><gpx version="1.1" creator="LocationKit tests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
            + points.joined() + "</trkseg></trk></gpx>").write(to: gpx, atomically: true, encoding: .utf8)
        let source = "gpx:\(gpx.path)?speed=max&accuracy=8"
        let all = try await GeoProcess.geo(["track", "--source", source])
        #expect(all.status == 0, "\(all.stderr)")
        let every = try events(all.stdout).filter { $0["event"] as? String == "update" }
        // Found outside #require: inside this closure, after the `{ i, n in }` map above, Swift
        // 6.3.1's #require yields 0 for this firstIndex (a `$0[...] as? Bool` predicate).
        let firstPause = every.firstIndex { $0["stationary"] as? Bool == true }
        let pause = try #require(firstPause, "no pause in \(all.stdout)")
        #expect(every.count > pause + 1, "updates resume after the pause")
        // Counting up to and including the pause: the pause is the last object printed.
        let counted = try await GeoProcess.geo(["track", "--source", source, "--count", String(pause + 1)])
        let printed = try events(counted.stdout).filter { $0["event"] as? String == "update" }
        #expect(printed.count == pause + 1, "\(counted.stdout)")
        #expect(printed.last?["stationary"] as? Bool == true)
    }
}

@Test func track_cachedFixIsDroppedAsStale_andSaysHowOld() async throws {
    // A drive recorded in 2023, replayed as fast as possible, with the 25th point a fix from
    // 10 minutes earlier (a cached fix): the recording flows, the cached fix is dropped and said so.
    try await withTemporaryDirectory { directory in
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let points = (0..<40).map { i in
            let time = start.addingTimeInterval(i == 24 ? Double(i) - 600 : Double(i))
            return #"<trkpt lat="\#(48 + 10 * Double(i) / 111_195)" lon="11"><time>\#(ISO8601Time.string(from: time, fractionDigits: 3))</time></trkpt>"#
        }
        let gpx = directory.appendingPathComponent("cached.gpx")
        try (#"<?xml version="1.0"?><gpx version="1.1" creator="LocationKit tests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
            + points.joined() + "</trkseg></trk></gpx>").write(to: gpx, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["track", "--source", "gpx:\(gpx.path)?speed=max&accuracy=5"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(whereSeparator: \.isNewline)
        let stale = try #require(lines.first { $0.contains("as stale") }, "\(result.stderr)")
        #expect(stale.contains("dropped 1 fix as stale") && stale.contains("10 min older than the stream's latest fix before it"), "\(stale)")
        let summary = try #require(lines.last { $0.contains("filter: ") }, "\(result.stderr)")
        #expect(summary.hasSuffix("filter: 40 fixes, 34 delivered; dropped: stale 1, warm-up 5"), "\(summary)")
    }
}

/// One precision per field (JSONNumber): raw and Kalman-filtered updates print lat/lon with 9
/// decimals, accuracy and speed with 3, course with 4 — never a 17-digit shortest round trip.
@Test func track_printsOnePrecisionPerField_rawOrFiltered() async throws {
    guard let gpx = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let decimals = ["lat": 9, "lon": 9, "accuracy": 3, "speed": 3, "course": 4]
    for preset in ["raw", "fitness"] {
        let result = try await GeoProcess.geo(["track", "--source", "gpx:\(gpx.path)?speed=max&accuracy=8", "--preset", preset, "--count", "30"])
        #expect(result.status == 0, "\(preset): \(result.stderr)")
        var checked = 0
        for line in result.stdout.split(separator: "\n") where line.contains(#""event":"update""#) {
            for (field, places) in decimals {
                guard let match = line.firstMatch(of: try Regex(#""\#(field)":(-?[0-9]+)(\.[0-9]+)?[,}]"#)) else { continue }
                let fraction = match.output[2].substring.map(String.init) ?? ""
                #expect(fraction.count == places + 1, "\(preset) \(field) in \(line)")
                checked += 1
            }
        }
        #expect(checked >= 30 * 3, "\(preset): fields checked \(checked)")
    }
}

/// `--log`: a rerun rejoins the session's log and says on stderr what it found in it.
@Test func track_log_rerunRejoinsAndSaysWhatTheLogHeld() async throws {
    guard let gpx = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    try await withTemporaryDirectory { dir in
        let arguments = ["track", "--source", "gpx:\(gpx.path)?speed=max&accuracy=8", "--preset", "raw", "--count", "5", "--log", dir.path]
        let first = try await GeoProcess.geo(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("rejoined log"), "a new session has nothing to rejoin: \(first.stderr)")
        let second = try await GeoProcess.geo(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        let line = try #require(second.stderr.split(separator: "\n").first { $0.contains("rejoined log") }, "\(second.stderr)")
        let kept = try #require(line.firstMatch(of: /: ([0-9]+) points kept/)).output.1
        #expect(Int(kept) ?? 0 >= 5, "\(line)")
    }
}

/// `geo track` on a gpsd that refuses: one line on standard error at the first failure, one when
/// it gives up, an error event and exit 1 after `--retry` retries, instead of retrying silently
/// for ever; with `--retry 0` the one line says it gave up.
@Test func track_refusedGpsd_saysSoOnceAndGivesUpAfterTheRetries() async throws {
    let port = FreePort.take()
    let result = try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(port)", "--retry", "1", "--timeout", "1"])
    #expect(result.status == 1)
    let lines = result.stderr.split(whereSeparator: \.isNewline)
    #expect(lines.count == 2, "\(result.stderr)")
    #expect(lines.first?.contains("refused; retrying in 0.25 s") == true, "\(result.stderr)")
    #expect(lines.last?.hasPrefix("geo track: giving up: ") == true && lines.last?.contains("2 attempts in a row") == true, "\(result.stderr)")
    let last = try #require(try events(result.stdout).last)
    #expect(last["event"] as? String == "error")
    #expect((last["message"] as? String)?.contains("2 attempts in a row") == true, "\(last)")

    let once = try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(port)", "--retry", "0", "--timeout", "1"])
    #expect(once.status == 1)
    #expect(once.stderr.split(whereSeparator: \.isNewline).count == 1 && once.stderr.hasPrefix("geo track: giving up: "), "\(once.stderr)")
}

@Test func track_rejectsRetryAndTimeoutOutOfRange() async throws {
    for arguments in [["--retry", "-1"], ["--retry", "1001"], ["--timeout", "0"], ["--timeout", "nan"], ["--timeout", "1e20"]] {
        let result = try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:1"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }
}
